//! The ExtensionTraceData handler's data in the data conformance dump, in
//! DevTools' shape: `entryToNode`, `extensionMarkers`,
//! `extensionTrackData` and `syntheticConsoleEntriesForTimingsTrack`.

use std::borrow::Cow;

use tracekit_events::dump::{Dump, Object, Synthetic, SyntheticId, Value};
use tracekit_events::json::object_members;
use tracekit_events::{EventIndex, Id, Micros, Sym};

use super::{EntryNode, ExtensionEntry, ExtensionTraceData, Origin, Payload, TimingsTrackStamp};

impl ExtensionTraceData {
    /// This data in the data conformance dump.
    pub fn dump(&self, dump: &mut Dump<'_>) -> Value {
        let entries: Vec<SyntheticId> = self.entries.iter().map(|e| dump.synthetic(entry(e, dump))).collect();
        let markers: Vec<Value> = self
            .markers
            .iter()
            .map(|e| Value::Synthetic(dump.synthetic(entry(e, dump))))
            .collect();
        let rows = (0..self.nodes.len())
            .map(|at| {
                let key = Value::Synthetic(entries[self.nodes[at].entry]);
                (key, node_value(&self.nodes, at, &entries, &mut Vec::new()))
            })
            .collect();
        let tracks = self
            .tracks
            .iter()
            .map(|track| {
                let mut by_track = Object::new();
                for (name, list) in &track.entries_by_track {
                    let name = dump.strings().resolve(*name).to_owned();
                    let list = list.iter().map(|&e| Value::Synthetic(entries[e])).collect();
                    by_track.push(name, Value::Array(list));
                }
                Object::new()
                    .with("entriesByTrack", by_track.into())
                    .with("isTrackGroup", Value::Bool(track.is_track_group))
                    .with("name", track.name.dump())
                    .into()
            })
            .collect();
        let stamps = self
            .timings_track_stamps
            .iter()
            .map(|s| Value::Synthetic(dump.synthetic(timings_stamp(s, dump))))
            .collect();
        Object::new()
            .with("entryToNode", Value::Map(rows))
            .with("extensionMarkers", Value::Array(markers))
            .with("extensionTrackData", Value::Array(tracks))
            .with("syntheticConsoleEntriesForTimingsTrack", Value::Array(stamps))
            .into()
    }
}

/// A tree node as DevTools' dump writes it: with its children and its
/// parent in full, a node met again inside itself as `"$cycle"`. The
/// recursion is as deep as the entries nest.
fn node_value(nodes: &[EntryNode], at: usize, ids: &[SyntheticId], path: &mut Vec<usize>) -> Value {
    if path.contains(&at) {
        return Value::str("$cycle");
    }
    path.push(at);
    let node = &nodes[at];
    let children = node.children.iter().map(|&c| node_value(nodes, c, ids, path)).collect();
    let parent = node.parent.map_or(Value::Null, |p| node_value(nodes, p, ids, path));
    path.pop();
    Object::new()
        .with("children", Value::Array(children))
        .with("depth", Value::Num(f64::from(node.depth)))
        .with("entry", Value::Synthetic(ids[node.entry]))
        .with("id", Value::Num(f64::from(node.id)))
        .with("parent", parent)
        .with("selfTime", Value::Num(node.self_time.0))
        .into()
}

/// The fields every synthetic event of this handler has.
struct Common {
    name: Sym,
    pid: Id,
    tid: Id,
    ts: Micros,
    source: EventIndex,
}

fn synthetic(common: &Common, fields: Object, dump: &Dump<'_>) -> Synthetic {
    Synthetic {
        name: dump.strings().resolve(common.name).to_owned().into(),
        pid: Value::id(common.pid),
        tid: Value::id(common.tid),
        ts: common.ts.0,
        raw: Some(common.source),
        profile_call: None,
        fields: Some(fields.into()),
    }
}

/// The members of an event's text but `replaced` (the last of a repeated
/// key, as `JSON.parse` keeps it), as copied JSON.
fn copied_members(text: &str, replaced: &[&str]) -> Object {
    let mut members: Vec<(Cow<'static, str>, &str)> = Vec::new();
    for (key, value) in object_members(text) {
        if replaced.contains(&&*key) {
            continue;
        }
        members.retain(|(k, _)| *k != *key);
        members.push((Cow::Owned(key.into_owned()), value));
    }
    let mut object = Object::new();
    for (key, value) in members {
        object.push(key, Value::Json(value.into()));
    }
    object
}

fn entry(e: &ExtensionEntry, dump: &Dump<'_>) -> Synthetic {
    let payload = match &e.payload {
        Payload::Detail { json, .. } => Value::Json(json.clone()),
        Payload::TimeStamp {
            color,
            track,
            track_group,
        } => Object::new()
            .with("color", Value::Sym(*color))
            .with("dataType", Value::str("track-entry"))
            .with("track", Value::Sym(*track))
            .with("trackGroup", Value::opt(*track_group, Value::Sym))
            .into(),
    };
    // What the entry sets itself; a time stamp's other members are copied.
    const REPLACED: &[&str] = &[
        "name",
        "cat",
        "devtoolsObj",
        "userDetail",
        "rawSourceEvent",
        "dur",
        "ts",
        "ph",
    ];
    let mut fields = match &e.origin {
        Origin::TimeStamp(text) => copied_members(text, REPLACED),
        Origin::Measure | Origin::Mark => Object::new()
            .with("pid", Value::id(e.pid))
            .with("tid", Value::id(e.tid)),
    };
    fields = fields
        .with("cat", Value::str("devtools.extension"))
        .with("devtoolsObj", payload)
        .with("dur", Value::opt(e.dur, |d| Value::Num(d.0)))
        .with("name", Value::Sym(e.name))
        .with("ph", Value::str(if e.marker { "I" } else { "X" }))
        .with("rawSourceEvent", Value::Event(e.source_event))
        .with("ts", Value::Num(e.ts.0))
        .with("userDetail", Value::opt(e.user_detail.clone(), Value::Json));
    let common = Common {
        name: e.name,
        pid: e.pid,
        tid: e.tid,
        ts: e.ts,
        source: e.source_event,
    };
    synthetic(&common, fields, dump)
}

fn timings_stamp(s: &TimingsTrackStamp, dump: &Dump<'_>) -> Synthetic {
    let fields = copied_members(&s.event_text, &["name", "cat", "ph", "ts", "dur", "rawSourceEvent"])
        .with("cat", Value::str("disabled-by-default-v8.inspector"))
        .with("dur", Value::Num(s.dur.0))
        .with("name", Value::Sym(s.name))
        .with("ph", Value::str("X"))
        .with("rawSourceEvent", Value::Event(s.source_event))
        .with("ts", Value::Num(s.ts.0));
    let common = Common {
        name: s.name,
        pid: s.pid,
        tid: s.tid,
        ts: s.ts,
        source: s.source_event,
    };
    synthetic(&common, fields, dump)
}
