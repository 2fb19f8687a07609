//! The extension track entries grouped into tracks (a track group holds
//! several), and nested into a tree per track when they nest properly.

use std::cmp::Ordering;

use tracekit_events::{Interner, Micros, Sym};

use super::{js_string, ExtensionEntry};
use crate::value::JsValue;

/// A track group, or a track of its own, and its entries.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtensionTrack {
    /// Its name: the entries' track group, else their track (as given).
    pub name: JsValue,
    /// Whether it is a track group.
    pub is_track_group: bool,
    /// Its tracks, by name (as JavaScript's `String()` writes it), in the
    /// order of their first entries, each with its entries (indexes in
    /// [`ExtensionTraceData::entries`](super::ExtensionTraceData::entries)),
    /// by time.
    pub entries_by_track: Vec<(Sym, Vec<usize>)>,
}

/// An entry's place in the tree of its track (DevTools'
/// `TraceEntryNode`).
#[derive(Debug, Clone, PartialEq)]
pub struct EntryNode {
    /// The entry, as an index in
    /// [`ExtensionTraceData::entries`](super::ExtensionTraceData::entries).
    pub entry: usize,
    /// Its number in its track's tree, from 0 in time order.
    pub id: u32,
    /// How many entries it is nested in.
    pub depth: u32,
    /// The node it is nested in directly, as an index in
    /// [`ExtensionTraceData::nodes`](super::ExtensionTraceData::nodes).
    pub parent: Option<usize>,
    /// The nodes nested in it directly, likewise.
    pub children: Vec<usize>,
    /// Its duration less its children's.
    pub self_time: Micros,
}

/// DevTools' event order: earlier start first, then later end first (a
/// missing `dur` counts as 0).
pub(crate) fn time_order(a_ts: Micros, a_dur: Option<Micros>, b_ts: Micros, b_dur: Option<Micros>) -> Ordering {
    let a_end = a_ts.0 + a_dur.map_or(0.0, |d| d.0);
    let b_end = b_ts.0 + b_dur.map_or(0.0, |d| d.0);
    if a_ts.0 < b_ts.0 {
        Ordering::Less
    } else if a_ts.0 > b_ts.0 {
        Ordering::Greater
    } else if a_end > b_end {
        Ordering::Less
    } else if a_end < b_end {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// What groups entries into one track: a track group (a value compared as
/// JavaScript's `Map` compares keys), or `track-name-TRACK`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum GroupKey {
    Str(Sym),
    Num(u64),
    True,
    /// An object or array: equal to nothing else.
    Unique(usize),
}

/// `String(value)`.
pub(crate) fn value_string(value: &JsValue, interner: &Interner) -> String {
    match value {
        JsValue::Undefined => "undefined".to_owned(),
        JsValue::Null => "null".to_owned(),
        JsValue::Bool(b) => b.to_string(),
        JsValue::Num(x) => tracekit_events::jsnum::js_number_string(*x),
        JsValue::Str(s) => interner.resolve(*s).to_owned(),
        JsValue::Raw(text) => js_string(Some(text)),
    }
}

/// The tracks of the entries (sorted by time), and the tree nodes of the
/// tracks whose entries nest.
pub(crate) fn build(entries: &[ExtensionEntry], interner: &mut Interner) -> (Vec<ExtensionTrack>, Vec<EntryNode>) {
    let mut tracks: Vec<ExtensionTrack> = Vec::new();
    let mut by_key: ahash::AHashMap<GroupKey, usize> = ahash::AHashMap::default();
    for (at, entry) in entries.iter().enumerate() {
        let (track, group) = (entry.payload.track(), entry.payload.track_group());
        let key = if group.is_truthy() {
            match &group {
                JsValue::Str(s) => GroupKey::Str(*s),
                JsValue::Num(x) => GroupKey::Num(if *x == 0.0 { 0 } else { x.to_bits() }),
                JsValue::Bool(_) => GroupKey::True,
                _ => GroupKey::Unique(at),
            }
        } else {
            let name = format!("track-name-{}", value_string(&track, interner));
            GroupKey::Str(interner.intern(&name))
        };
        let track_name = interner.intern(&value_string(&track, interner));
        let slot = *by_key.entry(key).or_insert_with(|| {
            tracks.push(ExtensionTrack {
                name: if group.is_truthy() {
                    group.clone()
                } else {
                    track.clone()
                },
                is_track_group: group.is_truthy(),
                entries_by_track: vec![(track_name, Vec::new())],
            });
            tracks.len() - 1
        });
        let lists = &mut tracks[slot].entries_by_track;
        match lists.iter_mut().find(|(name, _)| *name == track_name) {
            Some((_, list)) => list.push(at),
            None => lists.push((track_name, vec![at])),
        }
    }
    let mut nodes = Vec::new();
    for track in &tracks {
        for (_, list) in &track.entries_by_track {
            if nests(entries, list) {
                treeify(entries, list, &mut nodes);
            }
        }
    }
    (tracks, nodes)
}

fn span(entry: &ExtensionEntry) -> (f64, f64) {
    let dur = entry.dur.map_or(0.0, |d| d.0);
    (entry.ts.0, entry.ts.0 + dur)
}

/// Whether the entries (by time) nest: none ends after an entry it starts
/// in.
fn nests(entries: &[ExtensionEntry], list: &[usize]) -> bool {
    let mut stack: Vec<f64> = Vec::new();
    for &at in list {
        let (start, end) = span(&entries[at]);
        while stack.last().is_some_and(|&parent_end| start >= parent_end) {
            stack.pop();
        }
        if stack.last().is_some_and(|&parent_end| end > parent_end) {
            return false;
        }
        stack.push(end);
    }
    true
}

/// The tree of the entries of one track (by time, nesting), appended to
/// `nodes`.
fn treeify(entries: &[ExtensionEntry], list: &[usize], nodes: &mut Vec<EntryNode>) {
    let mut stack: Vec<usize> = Vec::new();
    let mut next_id = 0u32;
    let mut i = 0;
    while i < list.len() {
        let entry = list[i];
        let (begin, end) = span(&entries[entry]);
        let duration = entries[entry].dur.map_or(0.0, |d| d.0);
        let Some(&parent) = stack.last() else {
            stack.push(nodes.len());
            nodes.push(node(entry, next_id, 0, None, duration));
            next_id += 1;
            i += 1;
            continue;
        };
        let (_, parent_end) = span(&entries[nodes[parent].entry]);
        if begin >= parent_end {
            // Not in this parent: try the next one out, with the same id.
            stack.pop();
            continue;
        }
        if end > parent_end {
            // Cannot happen once the entries nest; the id is used anyway.
            next_id += 1;
            i += 1;
            continue;
        }
        let depth = u32::try_from(stack.len()).unwrap_or(u32::MAX);
        let at = nodes.len();
        nodes.push(node(entry, next_id, depth, Some(parent), duration));
        next_id += 1;
        nodes[parent].children.push(at);
        nodes[parent].self_time = Micros(nodes[parent].self_time.0 - duration);
        stack.push(at);
        i += 1;
    }
}

fn node(entry: usize, id: u32, depth: u32, parent: Option<usize>, duration: f64) -> EntryNode {
    EntryNode {
        entry,
        id,
        depth,
        parent,
        children: Vec::new(),
        self_time: Micros(duration),
    }
}
