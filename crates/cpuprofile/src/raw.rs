//! A CPU profile as the input spells it (the `Profiler.Profile` of the
//! DevTools protocol, or its legacy `head` tree form), before the model is
//! built from it.

use std::fmt;

use ahash::AHashMap;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use tracekit_events::{Interner, Micros, Seconds, Sym};

use crate::callframe::{CallFrame, IdLocation};

/// A profile node as written: links are node ids, not yet checked.
#[derive(Clone, Debug, PartialEq)]
pub struct RawNode {
    /// `id`: what `parent`, `children` and the profile's `samples` name.
    pub id: i64,
    /// Where the node's function lives.
    pub call_frame: CallFrame,
    /// Parent link (trace profiles); `children` lists are the other form.
    pub parent: Option<i64>,
    /// `children`: the ids of the node's children (protocol profiles, and
    /// the flattened legacy tree).
    pub children: Option<Vec<i64>>,
    /// `hitCount`: how many samples hit the node (old profiles without
    /// `samples` have only this).
    pub hit_count: Option<f64>,
}

/// A CPU profile as written, from any of the input forms: the
/// `Profiler.Profile` object, a legacy `head` tree (flattened into
/// `nodes`), or the `Profile`/`ProfileChunk` events of a trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawProfile {
    /// The nodes, in input order (a legacy tree's parents before their
    /// children). The first is taken as the root.
    pub nodes: Vec<RawNode>,
    /// When the profile started (a legacy profile's seconds, converted).
    pub start_time: Micros,
    /// When it ended.
    pub end_time: Micros,
    /// `samples`: the node id of each sample, in the order taken.
    pub samples: Option<Vec<i64>>,
    /// `timeDeltas`: microseconds from each sample to the next, the first
    /// one counted from `start_time`.
    pub time_deltas: Option<Vec<f64>>,
    /// Legacy form: raw sample timestamps in microseconds.
    pub timestamps: Option<Vec<f64>>,
    /// Sample trace ids (keyed by the id's decimal text) to node ids.
    pub trace_ids: Option<crate::TraceIds>,
    /// The profile came in the legacy `head` form, whose start and end are
    /// in seconds: kept as written, for the arithmetic DevTools does on
    /// them.
    pub legacy: Option<LegacySpan>,
}

/// The start and end of a legacy (`head`) profile, in seconds as written.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LegacySpan {
    /// `startTime`.
    pub start: Seconds,
    /// `endTime`.
    pub end: Seconds,
}

/// Appends a node linked to `parent` to a profile being built from
/// another format, with the next id (ids count from 1); returns the id.
pub(crate) fn push_node(nodes: &mut Vec<RawNode>, parent: Option<i64>, call_frame: CallFrame) -> i64 {
    // Fits: a Vec holds far fewer than i64::MAX nodes.
    #[allow(clippy::cast_possible_wrap)]
    let id = nodes.len() as i64 + 1;
    nodes.push(RawNode {
        id,
        call_frame,
        parent,
        children: None,
        hit_count: None,
    });
    id
}

/// Decodes a whole profile from JSON text. Deeply nested legacy trees are
/// decoded on a heap-grown stack, so no depth overflows.
pub fn parse_profile_json(text: &str, interner: &mut Interner) -> Result<RawProfile, serde_json::Error> {
    let mut json = serde_json::Deserializer::from_str(text);
    json.disable_recursion_limit();
    let stacked = serde_stacker::Deserializer::new(&mut json);
    let profile = ProfileSeed { interner }.deserialize(stacked)?;
    json.end()?;
    Ok(profile)
}

/// An integer id; JSON writers sometimes spell them `3.0`. Deserializes
/// from any JSON number that is an integer in `i64`'s range.
#[derive(Debug)]
pub struct IntId(pub i64);

impl<'de> serde::Deserialize<'de> for IntId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = IntId;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an integer")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<IntId, E> {
                Ok(IntId(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<IntId, E> {
                i64::try_from(v)
                    .map(IntId)
                    .map_err(|_| E::custom("integer out of range"))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<IntId, E> {
                if v.fract() == 0.0 && v.abs() < 9.2e18 {
                    // An integer below 2^63 in magnitude: exact in i64.
                    #[allow(clippy::cast_possible_truncation)]
                    let id = v as i64;
                    Ok(IntId(id))
                } else {
                    Err(E::custom(format!("expected an integer, found {v}")))
                }
            }
        }
        d.deserialize_any(V)
    }
}

fn ids(v: Vec<IntId>) -> Vec<i64> {
    v.into_iter().map(|i| i.0).collect()
}

/// A string or a number, kept as text (script ids come both ways): a
/// number as JavaScript prints it, `true`/`false`/`null` as words; and
/// whether the JSON value was JavaScript-truthy (not `0`, `""`, `null`,
/// `false`).
#[derive(Debug)]
pub struct Text(pub String, pub bool);

impl<'de> serde::Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or a number")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Text, E> {
                Ok(Text(v.to_owned(), !v.is_empty()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Text, E> {
                Ok(Text(v.to_string(), v != 0))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Text, E> {
                Ok(Text(v.to_string(), v != 0))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Text, E> {
                Ok(Text(
                    tracekit_events::jsnum::js_number_string(v),
                    v != 0.0 && !v.is_nan(),
                ))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Text, E> {
                Ok(Text(v.to_string(), v))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Text, E> {
                Ok(Text("null".to_owned(), false))
            }
        }
        d.deserialize_any(V)
    }
}

/// The call frame fields, wherever they stand (in `callFrame`, or on the
/// node itself in the legacy form).
#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct CallFrameJson {
    function_name: Option<String>,
    url: Option<String>,
    script_id: Option<Text>,
    line_number: Option<f64>,
    column_number: Option<f64>,
    code_type: Option<String>,
}

impl CallFrameJson {
    /// The `callFrame` object as it is; or, for a legacy node (fields on the
    /// node itself, 1-based), DevTools' conversion: 0-based line and column,
    /// with -1, "", "" and "0" for what is absent (DevTools itself would
    /// compute NaN from an absent line; it cannot load such files at all).
    fn into_call_frame(self, interner: &mut Interner, legacy_fields: bool) -> CallFrame {
        if legacy_fields {
            return CallFrame {
                function_name: interner.intern(self.function_name.as_deref().unwrap_or("")),
                url: interner.intern(self.url.as_deref().unwrap_or("")),
                script_id: interner.intern(self.script_id.as_ref().map_or("0", |t| t.0.as_str())),
                // DevTools' conversion takes `String(scriptId ?? '0')`.
                id_location: IdLocation::of(
                    self.script_id.as_ref().is_none_or(|t| !t.0.is_empty()),
                    self.url.as_deref().is_some_and(|u| !u.is_empty()),
                ),
                line_number: Some(self.line_number.map_or(-1.0, |v| v - 1.0)),
                column_number: Some(self.column_number.map_or(-1.0, |v| v - 1.0)),
                code_type: None,
            };
        }
        let mut text = |s: Option<&str>| -> Sym { interner.intern(s.unwrap_or("undefined")) };
        CallFrame {
            function_name: text(self.function_name.as_deref()),
            url: text(self.url.as_deref()),
            script_id: text(self.script_id.as_ref().map(|t| t.0.as_str())),
            id_location: IdLocation::of(
                self.script_id.as_ref().is_some_and(|t| t.1),
                self.url.as_deref().is_some_and(|u| !u.is_empty()),
            ),
            line_number: self.line_number,
            column_number: self.column_number,
            code_type: self.code_type.as_deref().map(|c| text(Some(c))),
        }
    }
}

/// A node of the `nodes` list. Read field by field (no `flatten`, which
/// would buffer unknown fields, recursively, whatever their depth).
struct NodeJson {
    id: IntId,
    call_frame: Option<CallFrameJson>,
    legacy: CallFrameJson,
    parent: Option<IntId>,
    children: Option<Vec<IntId>>,
    hit_count: Option<f64>,
}

impl<'de> serde::Deserialize<'de> for NodeJson {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = NodeJson;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a profile node")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<NodeJson, A::Error> {
                let mut id = None;
                let mut node = NodeJson {
                    id: IntId(0),
                    call_frame: None,
                    legacy: CallFrameJson::default(),
                    parent: None,
                    children: None,
                    hit_count: None,
                };
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "id" => id = Some(map.next_value::<IntId>()?),
                        "callFrame" => node.call_frame = map.next_value()?,
                        "parent" => node.parent = map.next_value()?,
                        "children" => node.children = map.next_value()?,
                        "hitCount" => node.hit_count = map.next_value()?,
                        "functionName" => node.legacy.function_name = map.next_value()?,
                        "url" => node.legacy.url = map.next_value()?,
                        "scriptId" => node.legacy.script_id = map.next_value()?,
                        "lineNumber" => node.legacy.line_number = map.next_value()?,
                        "columnNumber" => node.legacy.column_number = map.next_value()?,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                node.id = id.ok_or_else(|| de::Error::missing_field("id"))?;
                Ok(node)
            }
        }
        d.deserialize_map(V)
    }
}

impl NodeJson {
    fn into_raw(self, interner: &mut Interner) -> RawNode {
        let call_frame = match self.call_frame {
            Some(cf) => cf.into_call_frame(interner, false),
            None => self.legacy.into_call_frame(interner, true),
        };
        RawNode {
            id: self.id.0,
            call_frame,
            parent: self.parent.map(|p| p.0),
            children: self.children.map(ids),
            hit_count: self.hit_count,
        }
    }
}

struct ProfileSeed<'i> {
    interner: &'i mut Interner,
}

impl<'de> DeserializeSeed<'de> for ProfileSeed<'_> {
    type Value = RawProfile;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<RawProfile, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ProfileSeed<'_> {
    type Value = RawProfile;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a CPU profile object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawProfile, A::Error> {
        let mut profile = RawProfile::default();
        let mut head_nodes: Option<Vec<RawNode>> = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "nodes" => {
                    let nodes: Vec<NodeJson> = map.next_value()?;
                    profile.nodes = nodes.into_iter().map(|n| n.into_raw(self.interner)).collect();
                }
                "startTime" => profile.start_time = Micros(map.next_value::<Option<f64>>()?.unwrap_or(0.0)),
                "endTime" => profile.end_time = Micros(map.next_value::<Option<f64>>()?.unwrap_or(0.0)),
                "samples" => profile.samples = map.next_value::<Option<Vec<IntId>>>()?.map(ids),
                "timeDeltas" => profile.time_deltas = map.next_value()?,
                "timestamps" => profile.timestamps = map.next_value()?,
                "traceIds" | "trace_ids" => {
                    let raw: Option<AHashMap<String, IntId>> = map.next_value()?;
                    profile.trace_ids =
                        raw.map(|m| m.into_iter().map(|(k, v)| (crate::TraceIdKey::of(&k), v.0)).collect());
                }
                "head" => {
                    let mut nodes = Vec::new();
                    map.next_value_seed(HeadSeed {
                        out: &mut nodes,
                        interner: self.interner,
                    })?;
                    head_nodes = Some(nodes);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        // DevTools only converts the head tree when `nodes` is absent.
        if let Some(nodes) = head_nodes {
            // Seconds, as the legacy form counts them.
            let span = LegacySpan {
                start: Seconds(profile.start_time.0),
                end: Seconds(profile.end_time.0),
            };
            profile.start_time = span.start.to_micros();
            profile.end_time = span.end.to_micros();
            profile.legacy = Some(span);
            if profile.nodes.is_empty() {
                profile.nodes = nodes;
            }
        }
        Ok(profile)
    }
}

/// Flattens a legacy `head` tree into the node list, parents before
/// children, as DevTools' conversion does, without building the tree.
struct HeadSeed<'o, 'i> {
    out: &'o mut Vec<RawNode>,
    interner: &'i mut Interner,
}

impl<'de> DeserializeSeed<'de> for HeadSeed<'_, '_> {
    type Value = i64;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<i64, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for HeadSeed<'_, '_> {
    type Value = i64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a profile node")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<i64, A::Error> {
        let slot = self.out.len();
        self.out.push(RawNode {
            id: 0,
            call_frame: CallFrame {
                function_name: tracekit_events::names::EMPTY,
                url: tracekit_events::names::EMPTY,
                script_id: tracekit_events::names::EMPTY,
                id_location: IdLocation::Nothing,
                line_number: None,
                column_number: None,
                code_type: None,
            },
            parent: None,
            children: Some(Vec::new()),
            hit_count: None,
        });
        let mut id = None;
        let mut call_frame: Option<CallFrameJson> = None;
        let mut legacy = CallFrameJson::default();
        let mut children = Vec::new();
        let mut hit_count = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "id" => id = Some(map.next_value::<IntId>()?.0),
                "callFrame" => call_frame = map.next_value()?,
                "functionName" => legacy.function_name = map.next_value()?,
                "url" => legacy.url = map.next_value()?,
                "scriptId" => legacy.script_id = map.next_value()?,
                "lineNumber" => legacy.line_number = map.next_value()?,
                "columnNumber" => legacy.column_number = map.next_value()?,
                "hitCount" => hit_count = map.next_value()?,
                "children" => {
                    children = map.next_value_seed(ChildrenSeed {
                        out: self.out,
                        interner: self.interner,
                    })?
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let id = id.ok_or_else(|| de::Error::missing_field("id"))?;
        let frame = match call_frame {
            Some(cf) => cf.into_call_frame(self.interner, false),
            None => legacy.into_call_frame(self.interner, true),
        };
        let node = &mut self.out[slot];
        node.id = id;
        node.call_frame = frame;
        node.children = Some(children);
        node.hit_count = hit_count;
        Ok(id)
    }
}

struct ChildrenSeed<'o, 'i> {
    out: &'o mut Vec<RawNode>,
    interner: &'i mut Interner,
}

impl<'de> DeserializeSeed<'de> for ChildrenSeed<'_, '_> {
    type Value = Vec<i64>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<i64>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ChildrenSeed<'_, '_> {
    type Value = Vec<i64>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of profile nodes")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<i64>, A::Error> {
        let mut ids = Vec::new();
        while let Some(id) = seq.next_element_seed(HeadSeed {
            out: &mut *self.out,
            interner: &mut *self.interner,
        })? {
            ids.push(id);
        }
        Ok(ids)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_modern_form() {
        let mut interner = Interner::new();
        let p = parse_profile_json(
            r#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":0,"url":"","lineNumber":-1,"columnNumber":-1},"children":[2]},
                {"id":2,"callFrame":{"functionName":"f","scriptId":"7","url":"a.js","lineNumber":3,"columnNumber":4}}],
                "startTime":10,"endTime":20,"samples":[2,2],"timeDeltas":[1,2]}"#,
            &mut interner,
        )
        .unwrap();
        assert_eq!(p.nodes.len(), 2);
        assert_eq!(interner.resolve(p.nodes[0].call_frame.script_id), "0");
        assert_eq!(p.nodes[1].call_frame.label(&interner), "js:f@a.js:3:4");
        assert_eq!(p.samples, Some(vec![2, 2]));
        assert!(p.legacy.is_none());
    }

    #[test]
    fn flattens_a_deep_legacy_head_without_overflow() {
        let depth = 200_000;
        let mut text = String::from(r#"{"startTime":1,"endTime":2,"head":"#);
        for id in 1..=depth {
            text.push_str(&format!(
                r#"{{"id":{id},"functionName":"f","url":"","lineNumber":1,"children":["#
            ));
        }
        for _ in 0..depth {
            text.push_str("]}");
        }
        text.push('}');
        let mut interner = Interner::new();
        let p = parse_profile_json(&text, &mut interner).unwrap();
        assert_eq!(p.nodes.len(), depth);
        assert_eq!(p.nodes[0].children, Some(vec![2]));
        assert_eq!(p.nodes[1].call_frame.line_number, Some(0.0));
        assert_eq!(p.nodes[1].call_frame.column_number, Some(-1.0));
        assert!(p.legacy.is_some());
    }
}
