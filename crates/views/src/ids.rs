//! The ids of the views' nodes, as DevTools' `generateEventID` makes them
//! (a JS call's `f:NAME@LOCATION:LINE:COLUMN`; with grouping, the Call
//! Tree's `ID/GROUP`), interned per thread with a readable label of each.

use ahash::AHashMap;
pub(crate) use tracekit_engine::support::js_call_id;
use tracekit_engine::{CallFrame, Strings};

use crate::grouping::Grouper;

/// The id table of a thread, with a readable label of each id.
#[derive(Default)]
pub(crate) struct Ids {
    pub(crate) strings: Vec<String>,
    pub(crate) labels: Vec<String>,
    pub(crate) frames: Vec<Option<CallFrame>>,
    index: AHashMap<String, u32>,
}

impl Ids {
    pub(crate) fn intern(&mut self, s: String) -> u32 {
        self.intern_labelled(s, None, None)
    }

    pub(crate) fn intern_labelled(&mut self, s: String, label: Option<String>, frame: Option<CallFrame>) -> u32 {
        if let Some(&i) = self.index.get(&s) {
            return i;
        }
        // One id per distinct name of a thread's events, whose tracks index their nodes by u32.
        #[allow(clippy::cast_possible_truncation)]
        let i = self.strings.len() as u32;
        self.labels.push(label.unwrap_or_else(|| s.clone()));
        self.frames.push(frame);
        self.strings.push(s.clone());
        self.index.insert(s, i);
        i
    }
}

/// `js NAME URL:LINE:COLUMN`, a JS call as the tracks' text format shows it.
pub(crate) fn js_call_label(frame: &CallFrame, interner: &Strings) -> String {
    let name = interner.resolve(frame.function_name);
    let mut out = format!("js {}", if name.is_empty() { "(anonymous)" } else { name });
    tracekit_engine::support::write_js_location(
        &mut out,
        interner.resolve(frame.url),
        frame.line_number,
        frame.column_number,
    );
    out
}

/// The ids of an event with grouping: its group, and its Call Tree id.
pub(crate) struct GroupedIds<'g, 'a> {
    pub(crate) grouper: &'g mut Grouper<'a>,
    /// The Call Tree id of each (id, group) pair seen.
    pub(crate) call_tree_ids: AHashMap<(u32, u32), u32>,
}

impl GroupedIds<'_, '_> {
    /// The Call Tree id of an event with id `id` in `group`: `ID/GROUP`,
    /// or `ID` for the empty group. A suffixed id may be one that exists
    /// already (an event named `A/B`), as in DevTools.
    pub(crate) fn call_tree_id(&mut self, ids: &mut Ids, id: u32, group: u32) -> u32 {
        let group_id = &self.grouper.ids[group as usize];
        if group_id.is_empty() {
            return id;
        }
        *self.call_tree_ids.entry((id, group)).or_insert_with(|| {
            let text = format!("{}/{}", ids.strings[id as usize], group_id);
            let label = ids.labels[id as usize].clone();
            let frame = ids.frames[id as usize];
            ids.intern_labelled(text, Some(label), frame)
        })
    }
}
