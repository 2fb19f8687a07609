//! The `args` of `Profile`, `ProfileChunk` and `CpuProfile` events.

use std::borrow::Cow;

use ahash::AHashMap;
use serde::Deserialize;
use serde_json::value::RawValue;
use tracekit_cpuprofile::{parse_profile_json, CallFrame, IdLocation, IntId, RawNode, RawProfile, Text};
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
    trace_ids: Option<AHashMap<String, IntId>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChunkNode {
    id: IntId,
    call_frame: ChunkCallFrame,
    parent: Option<IntId>,
    children: Option<Vec<IntId>>,
    hit_count: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChunkCallFrame {
    function_name: Option<String>,
    url: Option<String>,
    script_id: Option<Text>,
    line_number: Option<f64>,
    column_number: Option<f64>,
}

pub(crate) struct Chunk<'a> {
    pub nodes: Vec<RawNode>,
    pub samples: Vec<i64>,
    pub time_deltas: Vec<f64>,
    pub trace_ids: Option<AHashMap<String, i64>>,
    pub source: Option<Cow<'a, str>>,
}

pub(crate) fn decode<'a>(event: &Event<'a>, interner: &mut Interner, diag: &mut Diagnostics) -> Option<Chunk<'a>> {
    let text = event.args.unwrap_or("{}");
    let args: Args<ChunkData<'a>> = match serde_json::from_str(text) {
        Ok(args) => args,
        Err(e) => {
            diag.skip(Skip::SamplesUnreadableChunk, || format!("at ts {}: {e}", event.ts.0));
            return None;
        }
    };
    let Some(data) = args.data else {
        return Some(Chunk {
            nodes: Vec::new(),
            samples: Vec::new(),
            time_deltas: Vec::new(),
            trace_ids: None,
            source: None,
        });
    };
    let profile = data.cpu_profile;
    let (nodes, samples, trace_ids) = match profile {
        Some(p) => (p.nodes.unwrap_or_default(), p.samples.unwrap_or_default(), p.trace_ids),
        None => (Vec::new(), Vec::new(), None),
    };
    let nodes = nodes
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
                },
                parent: n.parent.map(|p| p.0),
                children: n.children.map(|c| c.into_iter().map(|i| i.0).collect()),
                hit_count: n.hit_count,
            }
        })
        .collect();
    Some(Chunk {
        nodes,
        samples: samples.into_iter().map(|s| s.0).collect(),
        time_deltas: data.time_deltas.unwrap_or_default(),
        trace_ids: trace_ids.map(|m| m.into_iter().map(|(k, v)| (k, v.0)).collect()),
        source: data.source,
    })
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
