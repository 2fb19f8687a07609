//! The `args` of `Profile`, `ProfileChunk` and `CpuProfile` events.

mod usual;

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use tracekit_cpuprofile::{
    parse_profile_json, CallFrame, IdLocation, IntId, MapKey, RawNode, RawProfile, Text, TraceIdKey,
};
use tracekit_events::{names, Diagnostics, Event, Interner, Skip};

#[derive(Deserialize)]
struct Args<T> {
    data: Option<T>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChunkData<'a> {
    cpu_profile: Option<ChunkProfile>,
    time_deltas: Option<Vec<f64>>,
    #[serde(borrow)]
    source: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ChunkProfile {
    nodes: Option<Vec<ChunkNode>>,
    samples: Option<Vec<IntId>>,
    trace_ids: Option<TraceIds>,
}

/// A chunk's `trace_ids` object as its members in order (a repeated key
/// is kept twice: the later one wins where they are put in a map). No
/// map is built per chunk: the pairs are gathered per profile, in input
/// order, and hashed once, when the profile is built. The keys are read
/// here, on any core: most are numbers, kept as such, without a string.
#[derive(Debug, Default)]
struct TraceIds(Vec<(TraceIdKey, i64)>);

impl<'de> Deserialize<'de> for TraceIds {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> serde::de::Visitor<'de> for Members {
            type Value = TraceIds;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<TraceIds, A::Error> {
                let mut pairs = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some((MapKey(key), IntId(node))) = map.next_entry::<MapKey<'de>, IntId>()? {
                    pairs.push((TraceIdKey::of(&key), node));
                }
                Ok(TraceIds(pairs))
            }
        }
        d.deserialize_map(Members)
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChunkNode {
    id: IntId,
    call_frame: ChunkCallFrame,
    parent: Option<IntId>,
    children: Option<Vec<IntId>>,
    hit_count: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChunkCallFrame {
    function_name: Option<String>,
    url: Option<String>,
    script_id: Option<Text>,
    line_number: Option<f64>,
    column_number: Option<f64>,
    code_type: Option<String>,
}

/// A `ProfileChunk`'s args, read but not yet interned: what [`parse`]
/// makes on any core; its nodes' names are interned in input order
/// ([`ParsedChunk::take_nodes`]).
#[derive(Debug)]
pub(crate) struct ParsedChunk {
    nodes: Vec<ChunkNode>,
    pub samples: Vec<i64>,
    pub time_deltas: Vec<f64>,
    /// The `trace_ids` members, in order.
    pub trace_ids: Option<Vec<(TraceIdKey, i64)>>,
    pub source: Option<String>,
}

/// Reads a `ProfileChunk`'s args; needs nothing but their text, so that
/// the `ProfileChunk`s handed over together are read on all cores. The
/// error is the message for [`Skip::SamplesUnreadableChunk`].
pub(crate) fn parse(event: &Event<'_>) -> Result<ParsedChunk, String> {
    let text = event.args.unwrap_or("{}");
    usual::parse(text).map_or_else(|| parse_with_serde(text), Ok)
}

/// Reads any chunk's args, usual or not, with `serde_json`.
fn parse_with_serde(text: &str) -> Result<ParsedChunk, String> {
    let args: Args<ChunkData<'_>> = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let Some(data) = args.data else {
        return Ok(ParsedChunk {
            nodes: Vec::new(),
            samples: Vec::new(),
            time_deltas: Vec::new(),
            trace_ids: None,
            source: None,
        });
    };
    let (nodes, samples, trace_ids) = match data.cpu_profile {
        Some(p) => (p.nodes.unwrap_or_default(), p.samples.unwrap_or_default(), p.trace_ids),
        None => (Vec::new(), Vec::new(), None),
    };
    Ok(ParsedChunk {
        nodes,
        samples: samples.into_iter().map(|s| s.0).collect(),
        time_deltas: data.time_deltas.unwrap_or_default(),
        trace_ids: trace_ids.map(|ids| ids.0),
        source: data.source.map(Cow::into_owned),
    })
}

impl ParsedChunk {
    /// The chunk's nodes, their names interned (in input order, as
    /// interning must be).
    pub(crate) fn take_nodes(&mut self, interner: &mut Interner) -> Vec<RawNode> {
        std::mem::take(&mut self.nodes)
            .into_iter()
            .map(|n| {
                let cf = n.call_frame;
                // Chunks leave out what is default: DevTools fills it in.
                let url = match cf.url.as_deref() {
                    None | Some("") => names::EMPTY,
                    Some(u) => interner.intern(u),
                };
                RawNode {
                    id: n.id.0,
                    call_frame: CallFrame {
                        function_name: interner.intern(cf.function_name.as_deref().unwrap_or("undefined")),
                        url,
                        script_id: interner.intern(cf.script_id.as_ref().map_or("undefined", |t| t.0.as_str())),
                        // DevTools keeps `String(scriptId)`.
                        id_location: IdLocation::of(
                            cf.script_id.as_ref().is_none_or(|t| !t.0.is_empty()),
                            url != names::EMPTY,
                        ),
                        line_number: Some(cf.line_number.unwrap_or(-1.0)),
                        column_number: Some(cf.column_number.unwrap_or(-1.0)),
                        code_type: cf.code_type.as_deref().map(|c| interner.intern(c)),
                    },
                    parent: n.parent.map(|p| p.0),
                    children: n.children.map(|c| c.into_iter().map(|i| i.0).collect()),
                    hit_count: n.hit_count,
                }
            })
            .collect()
    }
}

#[derive(Deserialize)]
struct SourceData<'a> {
    #[serde(borrow)]
    source: Option<Cow<'a, str>>,
}

/// `args.data.source` of a `Profile` event.
pub(crate) fn source<'a>(event: &Event<'a>) -> Option<Cow<'a, str>> {
    let args: Args<SourceData<'a>> = serde_json::from_str(event.args?).ok()?;
    args.data?.source
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WholeData<'a> {
    #[serde(borrow)]
    cpu_profile: Option<&'a RawValue>,
}

/// The profile a `CpuProfile` event carries in `args.data.cpuProfile`.
pub(crate) fn whole_profile(event: &Event<'_>, interner: &mut Interner, diag: &mut Diagnostics) -> Option<RawProfile> {
    let text = event.args.unwrap_or("{}");
    let raw = serde_json::from_str::<Args<WholeData<'_>>>(text)
        .ok()
        .and_then(|a| a.data)
        .and_then(|d| d.cpu_profile);
    let Some(raw) = raw else {
        diag.skip(Skip::SamplesCpuProfileWithoutData, || format!("at ts {}", event.ts.0));
        return None;
    };
    match parse_profile_json(raw.get(), interner) {
        Ok(p) => Some(p),
        Err(e) => {
            diag.skip(Skip::SamplesUnreadableCpuProfile, || {
                format!("at ts {}: {e}", event.ts.0)
            });
            None
        }
    }
}
