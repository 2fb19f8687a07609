//! The aggregated views of the Performance panel (issue 7): the Call Tree
//! (top-down) and the Bottom-Up of a thread, with no grouping or grouped as
//! the panel's "Group by" setting does it ([`GroupBy`]), as DevTools'
//! `TopDownRootNode` / `BottomUpRootNode` (`models/trace/extras/TraceTree`)
//! build them for the panel's tree views. The behaviour reproduced is
//! described in `docs/views.md`.
//!
//! DevTools builds both trees lazily and re-walks the whole thread for
//! every node it expands. Here one walk over the thread builds both:
//!
//! - the events of the thread are the track's nodes kept by the panel's
//!   "visible in the timeline" test, stably sorted by start;
//! - the walk is DevTools' `forEachEvent` (start index at the last
//!   top-level task, window, stack of started events, filters);
//! - the Call Tree is a trie of node-id paths: each started event adds its
//!   clipped duration to the trie node of its path of kept ancestors;
//! - the Bottom-Up's first level sums self times per id, and totals over
//!   outermost occurrences; each deeper node is a chain of ids (function,
//!   caller, caller's caller...), and each event, when it ends, adds to
//!   every chain of its ancestors, with one end marker per parent node
//!   updated in end order, which is the order DevTools sees them in
//!   (the Bottom-Up's builder, with the chains of callers it keeps per
//!   Call Tree node, is the `bottom_up` module);
//! - with grouping, every event also has a group (see [`GroupBy`]): the Call
//!   Tree's ids carry it (`ID/GROUP`), and after the walk the top-level
//!   nodes of both views go under one group node per group.
//!
//! The Summary (time per category over a window) is [`summary`]; the
//! events it walks are the same as the views', chosen by the same code.
//!
//! Types: [`Window`] is the selected range in ms; [`Tree`] is one view
//! (nodes with an id index, self and total ms, children); [`ThreadViews`]
//! is both views of one thread with the tables of node and group ids;
//! [`calltree_conformance`] writes the dump of `xtask/js/calltree.mjs`;
//! [`write_text`] writes a readable indented tree.

mod bottom_up;
mod error;
mod grouping;
mod json;
pub mod summary;
mod url;

pub use error::ViewError;
use grouping::Grouper;
pub use grouping::{domain_group, GroupBy, GroupingError};
/// DevTools' Styles table, in the core crate (the flame chart uses it too).
pub use tracekit_engine::styles;

pub use json::calltree_json;

use ahash::AHashMap;
use bottom_up::{BottomUpBuilder, EndedCall};
use tracekit_engine::query::{self, Query};
use tracekit_engine::support::jsnum::{round3, write_js_number, write_json_number};
use tracekit_engine::support::json::write_json_string;
use tracekit_engine::support::names;
use tracekit_engine::Phase;
use tracekit_engine::{Analysis, Bounds, CpuSample, Id, NodeKind, Parallelism, Strings, Sym, ThreadTrack};
use tracekit_engine::{CallFrame, IdLocation, Micros, Millis};

/// The selected range of the views, in ms (absolute, as the trace's
/// timestamps in ms): a [`Query`]'s window (relative to the trace
/// start) placed in the trace's bounds ([`Window::new`]). Infinite ends:
/// the trace has no bounds (an empty CPU profile); the views are then
/// empty.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// The start.
    pub start: Millis,
    /// The end.
    pub end: Millis,
}

impl Window {
    /// The window of the panel's tree views: the trace bounds by default,
    /// or `relative` (ms from the trace start) as
    /// `bounds.min / 1000 + A`, `bounds.min / 1000 + B`; an open end of
    /// `relative` is that of the trace bounds.
    pub fn new(bounds: Bounds, relative: Option<query::Window>) -> Window {
        let min = bounds.min.to_millis();
        let max = bounds.max.to_millis();
        match relative {
            Some(relative) => {
                let (a, b) = (relative.start(), relative.end());
                Window {
                    start: if a.is_finite() { min + a } else { min },
                    end: if b.is_finite() { min + b } else { max },
                }
            }
            None => Window { start: min, end: max },
        }
    }

    /// The window of `query` in the bounds of `analysis`.
    pub fn of(analysis: &Analysis, query: &Query) -> Window {
        Window::new(analysis.bounds(), query.window())
    }

    /// The window of `query`, which the aggregated views (Call Tree,
    /// Bottom-Up, Summary) need to hold time: `what` is what the caller
    /// does with it (`"aggregate"`, `"summarize"`).
    ///
    /// # Errors
    ///
    /// The message of an empty window, or of a trace without timed events.
    pub fn with_time(analysis: &Analysis, query: &Query, what: &str) -> Result<Window, String> {
        let window = Window::of(analysis, query);
        if !window.is_finite() {
            return Err(format!("the trace has no timed events, so no window to {what}"));
        }
        if window.end <= window.start {
            let lasts = analysis.bounds().range().to_millis().0;
            return Err(match query.window() {
                Some(asked) => format!("the window {asked} ms is empty; the trace lasts 0..{lasts:.3} ms"),
                None => format!("the trace lasts {lasts:.3} ms: no time to {what}"),
            });
        }
        Ok(window)
    }

    /// Whether the bounds were finite (a trace with a start).
    pub fn is_finite(&self) -> bool {
        self.start.is_finite() && self.end.is_finite()
    }

    /// How long it lasts (`end - start`).
    pub fn length(&self) -> Millis {
        self.end - self.start
    }
}

/// A node of a view. Times in ms, clipped to the window.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeNode {
    /// Index of the node's id in [`ThreadViews::ids`], or for a group node
    /// in [`ThreadViews::group_ids`] (unused for the root).
    pub id: u32,
    /// A group node (the top level of a grouped view).
    pub is_group: bool,
    /// Time spent in the node itself.
    pub self_ms: f64,
    /// Time of the node with its children (for a Bottom-Up node: see
    /// `docs/views.md`).
    pub total_ms: f64,
    /// Children, indices into [`Tree::nodes`], in order of creation.
    pub children: Vec<u32>,
}

/// One view of a thread: node 0 is the root (not printed).
#[derive(Debug, Clone, Default)]
pub struct Tree {
    /// The nodes, the root first.
    pub nodes: Vec<TreeNode>,
    /// The children of the nodes with more than [`Tree::FEW_CHILDREN`], by
    /// `parent << 32 | id` (one word hashes faster than a pair).
    children_by_id: AHashMap<u64, u32>,
    /// By node: the id and index of the child last asked for. Calls
    /// repeat (a function called in a loop), so the child asked for next
    /// is most often the same, found without hashing.
    last_child: Vec<(u32, u32)>,
}

impl Tree {
    /// Up to this many children, a node's child is found by reading them
    /// (the most nodes have fewer): a hash lookup costs more, and so does
    /// keeping each child in the table.
    const FEW_CHILDREN: usize = 8;

    fn new() -> Tree {
        Tree {
            nodes: vec![TreeNode {
                id: u32::MAX,
                is_group: false,
                self_ms: 0.0,
                total_ms: 0.0,
                children: Vec::new(),
            }],
            children_by_id: AHashMap::new(),
            last_child: vec![(u32::MAX, u32::MAX)],
        }
    }

    /// The child of `parent` with id `id`, made if needed.
    fn child(&mut self, parent: u32, id: u32) -> u32 {
        let (last_id, last) = self.last_child[parent as usize];
        if last_id == id {
            return last;
        }
        let c = self.child_by_id(parent, id);
        self.last_child[parent as usize] = (id, c);
        c
    }

    /// The child of `parent` with id `id`, found among its children (a
    /// node with few) or in the table (one with more), made if needed.
    fn child_by_id(&mut self, parent: u32, id: u32) -> u32 {
        let key = |child: u32| u64::from(parent) << 32 | u64::from(child);
        let siblings = &self.nodes[parent as usize].children;
        let found = if siblings.len() <= Tree::FEW_CHILDREN {
            siblings.iter().copied().find(|&c| self.nodes[c as usize].id == id)
        } else {
            self.children_by_id.get(&key(id)).copied()
        };
        if let Some(c) = found {
            return c;
        }
        // A tree has at most one node per event and ancestor, and stops at its node budget, below u32::MAX.
        #[allow(clippy::cast_possible_truncation)]
        let c = self.nodes.len() as u32;
        self.last_child.push((u32::MAX, u32::MAX));
        self.nodes.push(TreeNode {
            id,
            is_group: false,
            self_ms: 0.0,
            total_ms: 0.0,
            children: Vec::new(),
        });
        let siblings = &mut self.nodes[parent as usize].children;
        siblings.push(c);
        // Past a few children, the table holds them all.
        if siblings.len() == Tree::FEW_CHILDREN + 1 {
            for &s in &self.nodes[parent as usize].children {
                self.children_by_id.insert(key(self.nodes[s as usize].id), s);
            }
        } else if siblings.len() > Tree::FEW_CHILDREN + 1 {
            self.children_by_id.insert(key(id), c);
        }
        c
    }

    /// Puts the root's children under group nodes: one per group, in the
    /// order the groups first appear among the children (given with their
    /// group, in the root's order). A group node's self time is the sum of
    /// its children's, its total the sum of `total_of` them.
    fn group_roots(&mut self, children: &[(u32, u32)], total_of: impl Fn(&TreeNode) -> f64) {
        let mut group_nodes: AHashMap<u32, u32> = AHashMap::new();
        let mut roots = Vec::new();
        for &(child, group) in children {
            let node = *group_nodes.entry(group).or_insert_with(|| {
                self.nodes.push(TreeNode {
                    id: group,
                    is_group: true,
                    self_ms: 0.0,
                    total_ms: 0.0,
                    children: Vec::new(),
                });
                self.last_child.push((u32::MAX, u32::MAX));
                // As in `child`: the node budget is below u32::MAX.
                #[allow(clippy::cast_possible_truncation)]
                let node = (self.nodes.len() - 1) as u32;
                roots.push(node);
                node
            });
            let (self_ms, total_ms) = {
                let c = &self.nodes[child as usize];
                (c.self_ms, total_of(c))
            };
            let g = &mut self.nodes[node as usize];
            g.self_ms += self_ms;
            g.total_ms += total_ms;
            g.children.push(child);
        }
        self.nodes[0].children = roots;
    }
}

/// Both views of one thread.
#[derive(Debug, Clone)]
pub struct ThreadViews {
    /// The node ids (DevTools' `generateEventID`, which with grouping the
    /// Call Tree suffixes with `/GROUP` for a non-empty group), indexed by
    /// [`TreeNode::id`].
    pub ids: Vec<String>,
    /// A readable label of each id: the id itself, or for a JS call
    /// `js NAME URL:LINE:COLUMN` (1-based, as the tracks' text format);
    /// an id with a group suffix has the label of the id without it.
    pub labels: Vec<String>,
    /// The call frame of each id that names a JS call.
    pub frames: Vec<Option<CallFrame>>,
    /// The group ids (empty with no grouping), indexed by the
    /// [`TreeNode::id`] of group nodes; `""` is the empty group.
    pub group_ids: Vec<String>,
    /// A readable label of each group ([`GroupBy::label`]).
    pub group_labels: Vec<String>,
    /// The Call Tree.
    pub top_down: Tree,
    /// The Bottom-Up; its first-level nodes with no self time (and no
    /// transfer size) are already removed.
    pub bottom_up: Tree,
    /// The CPU samples in each Call Tree node, for a thread with a CPU
    /// profile; `None` without one.
    pub samples: Option<SampleCounts>,
}

/// The CPU samples of a thread's window counted per Call Tree node (the
/// trie of call sites with `samples` and `selfCount`): a sample taken at
/// `t`, with `start <= t <= end` of the window, counts for the JS call
/// that its leaf frame made and that was running at `t`, and for each of
/// that call's ancestors. The Performance panel shows no such counts;
/// the profile's own samples are the reference (see `docs/views.md`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SampleCounts {
    /// Samples taken in each node or below it, indexed like the Call
    /// Tree's nodes (the root's: every attributed sample).
    pub total: Vec<u32>,
    /// Samples taken with the node's call on top of the stack.
    pub own: Vec<u32>,
    /// Samples taken in the window.
    pub in_window: u32,
    /// Samples in the window whose leaf call is no Call Tree node: a call
    /// of zero duration (two samples at the same time), which the views
    /// take for an instant.
    pub unattributed: u32,
}

/// Attributes a thread's samples to the Call Tree node of the call each
/// one's leaf frame was running, fed in time order alongside the walk.
struct SampleAttribution<'t> {
    samples: &'t [CpuSample],
    /// The next sample to attribute.
    next: usize,
    /// Samples at or after this time (µs) are outside the window.
    end_us: f64,
    /// The latest call of each frame: (Call Tree node, start, end), µs;
    /// by frame for the track's frames, and for a frame past them (of no
    /// known function) in `call_of_unknown_frame`.
    call_of_frame: Vec<Option<(u32, f64, f64)>>,
    call_of_unknown_frame: AHashMap<u32, (u32, f64, f64)>,
    counts: SampleCounts,
}

impl<'t> SampleAttribution<'t> {
    fn new(samples: &'t [CpuSample], frame_count: usize, start_us: f64, end_us: f64) -> Self {
        SampleAttribution {
            samples,
            next: samples.partition_point(|s| s.ts.0 < start_us),
            end_us,
            call_of_frame: vec![None; frame_count],
            call_of_unknown_frame: AHashMap::new(),
            counts: SampleCounts::default(),
        }
    }

    /// A call of `frame` started, as Call Tree node `node`.
    fn call_started(&mut self, frame: u32, node: u32, start_us: f64, end_us: f64) {
        let call = (node, start_us, end_us);
        match self.call_of_frame.get_mut(frame as usize) {
            Some(slot) => *slot = Some(call),
            None => {
                self.call_of_unknown_frame.insert(frame, call);
            }
        }
    }

    /// Attributes the samples taken before `until_us`: every call running
    /// then has started.
    fn attribute_before(&mut self, until_us: f64) {
        while let Some(sample) = self.samples.get(self.next) {
            let t = sample.ts.0;
            if !(t < until_us && t <= self.end_us) {
                break;
            }
            self.next += 1;
            self.counts.in_window += 1;
            let call = match self.call_of_frame.get(sample.frame as usize) {
                Some(known) => *known,
                None => self.call_of_unknown_frame.get(&sample.frame).copied(),
            };
            match call {
                Some((node, start, end)) if start <= t && t < end => {
                    let own = &mut self.counts.own;
                    if own.len() <= node as usize {
                        own.resize(node as usize + 1, 0);
                    }
                    own[node as usize] += 1;
                }
                _ => self.counts.unattributed += 1,
            }
        }
    }

    /// The counts, totals summed up the tree (group nodes included, which
    /// are made after their children).
    fn finish(mut self, top_down: &Tree) -> SampleCounts {
        self.attribute_before(f64::INFINITY);
        let mut counts = self.counts;
        counts.own.resize(top_down.nodes.len(), 0);
        counts.total.clone_from(&counts.own);
        // Post-order: a node's total once all its children's are summed.
        let mut stack: Vec<(u32, bool)> = vec![(0, false)];
        while let Some((node, children_done)) = stack.pop() {
            let children = &top_down.nodes[node as usize].children;
            if children_done {
                let sum: u32 = children.iter().map(|&c| counts.total[c as usize]).sum();
                counts.total[node as usize] += sum;
            } else {
                stack.push((node, true));
                stack.extend(children.iter().map(|&c| (c, false)));
            }
        }
        counts
    }
}

impl ThreadViews {
    /// The rows `(depth, node)` of `view` as the panel lists them when
    /// fully expanded: pre-order, siblings in [`View`]'s default order,
    /// rows of depth < `max_depth` only (`None`: all). `node` indexes the
    /// view's [`Tree::nodes`]; the root (node 0) is not a row.
    pub fn rows(&self, view: View, max_depth: Option<u32>) -> Vec<(u32, u32)> {
        let tree = match view {
            View::TopDown => &self.top_down,
            View::BottomUp => &self.bottom_up,
        };
        preorder(tree, max_depth, sibling_order(self, view))
    }

    /// The id of a node (a node id or a group id).
    pub fn id(&self, node: &TreeNode) -> &str {
        if node.is_group {
            &self.group_ids[node.id as usize]
        } else {
            &self.ids[node.id as usize]
        }
    }

    /// The readable label of a node.
    pub fn label(&self, node: &TreeNode) -> &str {
        if node.is_group {
            &self.group_labels[node.id as usize]
        } else {
            &self.labels[node.id as usize]
        }
    }
}

/// An event of the thread list, as the views see it: 40 bytes, as a
/// thread's list is written once and read once per event, and the main
/// thread of a recording has half a million.
struct Ev {
    /// Start, µs.
    ts: f64,
    /// Start plus duration, µs (the start for an event without one).
    end: f64,
    /// Index into the ids.
    id: u32,
    /// Its id in the Call Tree: `id`, or with grouping `ID/GROUP` when its
    /// group is not empty.
    td_id: u32,
    /// Its group (an index into the group ids; 0 with no grouping).
    group: u32,
    /// A JS call's frame, or a received-data event's args.
    detail: Detail,
    /// It has a duration, and a JavaScript-truthy one (not 0 or NaN): it
    /// opens a level.
    lasts: bool,
    /// A top-level task (`RunTask` of category devtools.timeline).
    top_level: bool,
    /// Kept by the filters (not `RunTask`; a visible type unless generic).
    kept: bool,
}

/// What a few events of the list carry besides.
#[derive(Clone, Copy)]
enum Detail {
    None,
    /// A JS call: its frame (an index into the track's JS frames).
    Frame(u32),
    /// A received-data event: where its name and args are in the list
    /// [`thread_events`] returns beside the events.
    Received(u32),
}

impl Ev {
    fn new(ts: f64, dur: Option<f64>) -> Ev {
        Ev {
            ts,
            end: ts + dur.unwrap_or(0.0),
            id: 0,
            td_id: 0,
            group: 0,
            detail: Detail::None,
            lasts: dur.is_some_and(truthy),
            top_level: false,
            kept: true,
        }
    }

    fn frame(&self) -> Option<u32> {
        match self.detail {
            Detail::Frame(frame) => Some(frame),
            _ => None,
        }
    }

    fn received(&self) -> Option<u32> {
        match self.detail {
            Detail::Received(at) => Some(at),
            _ => None,
        }
    }
}

const _: () = assert!(std::mem::size_of::<Ev>() == 40);

/// JavaScript's `Math.min` / `Math.max` (NaN wins).
fn js_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

pub(crate) fn js_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// JavaScript truthiness of a number.
pub(crate) fn truthy(x: f64) -> bool {
    x != 0.0 && !x.is_nan()
}

/// `f:NAME@LOCATION:LINE:COLUMN`, DevTools' id of a JS call.
fn js_call_id(frame: &CallFrame, interner: &Strings) -> String {
    let mut out = String::from("f:");
    let name = interner.resolve(frame.function_name);
    if frame.url == names::NATIVE_V8_RUNTIME {
        out.push_str(if name.starts_with("Parse") {
            "Parse"
        } else if name.starts_with("Compile") || name.starts_with("Recompile") {
            "Compile"
        } else {
            "null"
        });
    } else {
        out.push_str(name);
    }
    out.push('@');
    match frame.id_location {
        IdLocation::ScriptId => out.push_str(interner.resolve(frame.script_id)),
        IdLocation::Url => out.push_str(interner.resolve(frame.url)),
        IdLocation::Nothing => {}
    }
    out.push(':');
    match frame.line_number {
        Some(x) => write_js_number(&mut out, x),
        None => out.push_str("undefined"),
    }
    out.push(':');
    match frame.column_number {
        Some(x) => write_js_number(&mut out, x),
        None => out.push_str("undefined"),
    }
    out
}

fn is_received_data(name: Sym) -> bool {
    matches!(
        name,
        names::RESOURCE_RECEIVED_DATA | names::RESOURCE_FINISH | names::RESOURCE_RECEIVE_RESPONSE
    )
}

// DevTools' `isPhaseAsync`.
pub(crate) use styles::is_async_phase;

/// The id table of a thread, with a readable label of each id.
#[derive(Default)]
struct Ids {
    strings: Vec<String>,
    labels: Vec<String>,
    frames: Vec<Option<CallFrame>>,
    index: AHashMap<String, u32>,
}

impl Ids {
    fn intern(&mut self, s: String) -> u32 {
        self.intern_labelled(s, None, None)
    }

    fn intern_labelled(&mut self, s: String, label: Option<String>, frame: Option<CallFrame>) -> u32 {
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
fn js_call_label(frame: &CallFrame, interner: &Strings) -> String {
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

/// Which trace events of a track the panel hands to its detail views (the
/// Call Tree, Bottom-Up and Summary): its `entryIsVisibleInTimeline`, with
/// the Styles lookups of the names seen so far cached.
pub(crate) struct Visibility<'a> {
    interner: &'a Strings,
    generic: bool,
    visible_type: AHashMap<Sym, bool>,
}

impl<'a> Visibility<'a> {
    pub(crate) fn new(analysis: &'a Analysis) -> Visibility<'a> {
        Visibility {
            interner: analysis.strings(),
            generic: analysis.is_generic(),
            visible_type: AHashMap::new(),
        }
    }

    /// Whether `name` has a Styles entry that is not hidden.
    fn visible_type(&mut self, name: Sym) -> bool {
        let interner = self.interner;
        *self
            .visible_type
            .entry(name)
            .or_insert_with(|| styles::is_visible_type(interner.resolve(name)))
    }

    /// Whether the panel draws the event (everything, in a generic trace).
    /// A JS call is always drawn.
    pub(crate) fn in_timeline(&mut self, name: Sym, cat_text: &str, ph: Phase) -> bool {
        if self.generic {
            return true;
        }
        styles::drawn_without_style(self.interner.resolve(name), cat_text, ph) || self.visible_type(name)
    }
}

/// A top-level task (`RunTask` of category devtools.timeline): where
/// DevTools' walk may start.
pub(crate) fn is_top_level_task(name: Sym, cat_text: &str) -> bool {
    name == names::RUN_TASK && cat_text.contains("disabled-by-default-devtools.timeline")
}

/// Sorts a thread's events by start, stably, as JavaScript's sort by
/// `a.ts - b.ts`: -0 equals 0, and a NaN start (which JavaScript's
/// comparator leaves unordered) goes last, so that the order is total.
pub(crate) fn sort_by_start<T>(events: &mut [T], ts: impl Fn(&T) -> f64) {
    let key = |x: f64| if x.is_nan() { f64::INFINITY } else { x + 0.0 };
    let order = |a: &T, b: &T| key(ts(a)).total_cmp(&key(ts(b)));
    // A thread's nodes come in pre-order, so most often already sorted:
    // checking costs a read, sorting a buffer as big as the list.
    if !events.is_sorted_by(|a, b| order(a, b).is_le()) {
        events.sort_by(order);
    }
}

/// The ids of an event with grouping: its group, and its Call Tree id.
struct GroupedIds<'g, 'a> {
    grouper: &'g mut Grouper<'a>,
    /// The Call Tree id of each (id, group) pair seen.
    call_tree_ids: AHashMap<(u32, u32), u32>,
}

impl GroupedIds<'_, '_> {
    /// The Call Tree id of an event with id `id` in `group`: `ID/GROUP`,
    /// or `ID` for the empty group. A suffixed id may be one that exists
    /// already (an event named `A/B`), as in DevTools.
    fn call_tree_id(&mut self, ids: &mut Ids, id: u32, group: u32) -> u32 {
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

/// What the views make of the trace events of one type (name, category
/// and phase), worked out at the first event of the type.
#[derive(Clone, Copy)]
struct EventType {
    /// Drawn by the panel ([`Visibility::in_timeline`]); the others are
    /// not in the list.
    in_timeline: bool,
    /// Kept by the filters (not `RunTask`; a visible type unless generic).
    kept: bool,
    /// A top-level task.
    top_level: bool,
    /// The id of its events, when their args do not change it (then it is
    /// their name).
    plain_id: Option<u32>,
}

/// The thread's event list (section 1 of the spec) with ids and filters,
/// and with `grouped`, each event's group and Call Tree id; and the args
/// of its received-data events (indexed by [`Ev::received`]).
fn thread_events(
    track: &ThreadTrack,
    visibility: &mut Visibility,
    ids: &mut Ids,
    mut grouped: Option<GroupedIds<'_, '_>>,
) -> (Vec<Ev>, Vec<(Sym, tracekit_engine::support::ViewArgs)>) {
    let interner = visibility.interner;
    let generic = visibility.generic;
    // The ids and group of each function's JS calls, by frame; a frame
    // past the track's frames is of no known function, and all such
    // frames share the last slot.
    let unknown_frame = track.js_frames.len();
    let mut frame_ids: Vec<Option<(u32, u32, u32)>> = vec![None; unknown_frame + 1];
    // Per name, the id of a plain event (its name, interned at its first
    // event); per type, what the views make of it.
    let mut name_ids: AHashMap<Sym, u32> = AHashMap::new();
    let name_id = |name_ids: &mut AHashMap<Sym, u32>, ids: &mut Ids, name: Sym| {
        *name_ids
            .entry(name)
            .or_insert_with(|| ids.intern(interner.resolve(name).to_owned()))
    };
    let mut types: AHashMap<(Sym, Sym, Phase), EventType> = AHashMap::new();
    let mut events = Vec::with_capacity(track.nodes.len());
    let mut received = Vec::new();
    for node in &track.nodes {
        let ts = node.ts().0;
        let dur = node.dur().map(|d| d.0);
        match node.kind() {
            NodeKind::Call { frame } => {
                // A JS call (ProfileCall): visible, a visible type, never a task.
                let slot = &mut frame_ids[(frame as usize).min(unknown_frame)];
                let (id, td_id, group) = match *slot {
                    Some(ids_of_frame) => ids_of_frame,
                    None => {
                        let js = track.js_frames.get(frame as usize);
                        let (s, label, call_frame) = match js {
                            Some(js) => (
                                js_call_id(&js.call_frame, interner),
                                Some(js_call_label(&js.call_frame, interner)),
                                Some(js.call_frame),
                            ),
                            None => ("f:?".to_owned(), None, None),
                        };
                        let id = ids.intern_labelled(s, label, call_frame);
                        let (td_id, group) = match &mut grouped {
                            Some(g) => {
                                // A call of no known function: as one
                                // without name or script.
                                let call_frame = js.map_or(CallFrame::meta(names::EMPTY), |js| js.call_frame);
                                let group = g.grouper.of_call(&call_frame);
                                (g.call_tree_id(ids, id, group), group)
                            }
                            None => (id, 0),
                        };
                        *slot = Some((id, td_id, group));
                        (id, td_id, group)
                    }
                };
                events.push(Ev {
                    id,
                    td_id,
                    group,
                    detail: Detail::Frame(frame),
                    ..Ev::new(ts, dur)
                });
            }
            NodeKind::Event { name, cat, ph, event } => {
                let ty = *types.entry((name, cat, ph)).or_insert_with(|| {
                    let cat_text = interner.resolve(cat);
                    let in_timeline = visibility.in_timeline(name, cat_text, ph);
                    let kept = name != names::RUN_TASK
                        && (generic
                            || cat_text == "devtools.extension"
                            || if cat_text.contains("blink.console") {
                                styles::is_visible_type("ConsoleTime")
                            } else if cat_text.contains("blink.user_timing") {
                                styles::is_visible_type("UserTiming")
                            } else {
                                visibility.visible_type(name)
                            });
                    let args_make_the_id =
                        (name == names::TIME_STAMP && ph == Phase::INSTANT) || is_received_data(name);
                    let plain_id = (in_timeline && !args_make_the_id).then(|| name_id(&mut name_ids, ids, name));
                    EventType {
                        in_timeline,
                        kept,
                        top_level: is_top_level_task(name, cat_text),
                        plain_id,
                    }
                });
                if !ty.in_timeline {
                    continue;
                }
                let (id, args) = match ty.plain_id {
                    Some(id) => (id, None),
                    None => {
                        let args = tracekit_engine::support::event_view_args(track, event).copied();
                        let id = if name == names::TIME_STAMP && args.is_some_and(|a| a.has_data) {
                            let a = args.unwrap_or_default();
                            ids.intern(format!(
                                "TimeStamp:{}",
                                a.name.map_or("undefined", |n| interner.resolve(n))
                            ))
                        } else if is_received_data(name) {
                            let a = args.unwrap_or_default();
                            ids.intern(format!(
                                "req:{}",
                                a.request_id.map_or("undefined", |n| interner.resolve(n))
                            ))
                        } else {
                            name_id(&mut name_ids, ids, name)
                        };
                        (id, args)
                    }
                };
                let (td_id, group) = match &mut grouped {
                    Some(g) => {
                        let group_args = if g.grouper.reads_args() {
                            tracekit_engine::support::event_group_args(track, event)
                        } else {
                            None
                        };
                        let group = g.grouper.of_event(name, cat, group_args);
                        (g.call_tree_id(ids, id, group), group)
                    }
                    None => (id, 0),
                };
                let detail = if is_received_data(name) {
                    received.push((name, args.unwrap_or_default()));
                    // One per event of a track, whose nodes are indexed by u32.
                    #[allow(clippy::cast_possible_truncation)]
                    let at = (received.len() - 1) as u32;
                    Detail::Received(at)
                } else {
                    Detail::None
                };
                events.push(Ev {
                    id,
                    td_id,
                    group,
                    detail,
                    top_level: ty.top_level,
                    kept: ty.kept,
                    ..Ev::new(ts, dur)
                });
            }
        }
    }
    sort_by_start(&mut events, |e| e.ts);
    (events, received)
}

/// A started event on the walk's stack.
struct Open {
    /// Index of the event.
    ev: u32,
    /// Its clipped duration less its kept children's.
    self_ms: f64,
    /// Its Call Tree node.
    td: u32,
    /// Whether no event with the same id is open below it.
    outermost: bool,
}

/// Computes both views of a thread's track, over `window`, with no
/// grouping, and at most [`tracekit_engine::DEFAULT_MAX_NODES`] Bottom-Up nodes.
///
/// # Errors
///
/// [`ViewError::TooManyNodes`] past that budget.
pub fn thread_views(analysis: &Analysis, track: &ThreadTrack, window: Window) -> Result<ThreadViews, ViewError> {
    thread_views_to_depth(
        analysis,
        track,
        window,
        None,
        GroupBy::None,
        tracekit_engine::DEFAULT_MAX_NODES,
    )
}

/// [`thread_views`] grouped by `group_by`, with the Bottom-Up built only
/// to depth < `max_depth` (its deeper nodes are the costly part: one per
/// event and ancestor) and at most `max_nodes` Bottom-Up nodes; group
/// nodes are at depth 0. The Call Tree and the nodes built are the same as
/// without a limit.
///
/// # Errors
///
/// [`ViewError::Grouping`] when `group_by` reads the events' args
/// ([`GroupBy::reads_args`]) and the analysis was made without them
/// ([`tracekit_engine::AnalyzeOptions::with_group_args`]);
/// [`ViewError::TooManyNodes`] when the Bottom-Up would have more than
/// `max_nodes` nodes (it stops growing there).
pub fn thread_views_to_depth(
    analysis: &Analysis,
    track: &ThreadTrack,
    window: Window,
    max_depth: Option<u32>,
    group_by: GroupBy,
    max_nodes: usize,
) -> Result<ThreadViews, ViewError> {
    views_of_thread(
        analysis,
        track,
        window,
        max_depth,
        group_by,
        max_nodes,
        bottom_up::CHAIN_BUDGET,
    )
}

/// [`thread_views_to_depth`], with the Bottom-Up's kept chains of callers
/// holding at most `chain_budget` nodes (the tests vary it: the views are
/// the same whatever it is).
fn views_of_thread(
    analysis: &Analysis,
    track: &ThreadTrack,
    window: Window,
    max_depth: Option<u32>,
    group_by: GroupBy,
    max_nodes: usize,
    chain_budget: usize,
) -> Result<ThreadViews, ViewError> {
    // Callers of a chain of depth d (0-based, counted without the group
    // level) are built for d + 1 + group levels < max_depth.
    let group_levels = usize::from(group_by != GroupBy::None);
    let callers = max_depth.map_or(usize::MAX, |m| (m as usize).saturating_sub(1 + group_levels));
    let mut ids = Ids::default();
    let mut grouper = (group_by != GroupBy::None)
        .then(|| Grouper::new(group_by, analysis))
        .transpose()?;
    let mut top_down = Tree::new();
    if !window.is_finite() {
        let (group_ids, group_labels) = grouper.map(|g| (g.ids, g.labels)).unwrap_or_default();
        return Ok(ThreadViews {
            ids: ids.strings,
            labels: ids.labels,
            frames: ids.frames,
            group_ids,
            group_labels,
            top_down,
            bottom_up: Tree::new(),
            samples: None,
        });
    }
    let grouped = grouper.as_mut().map(|grouper| GroupedIds {
        grouper,
        call_tree_ids: AHashMap::new(),
    });
    let (events, received) = thread_events(track, &mut Visibility::new(analysis), &mut ids, grouped);
    let (s_ms, e_ms) = (window.start.0, window.end.0);
    let s_us = window.start.to_micros().0;
    let e_us = {
        let e = window.end.to_micros().0;
        if truthy(e) {
            e
        } else {
            f64::INFINITY
        }
    };

    // Transfer sizes: cache hits over the whole list.
    let mut cache_hit: AHashMap<u32, bool> = AHashMap::new();
    for ev in &events {
        if let Some((names::RESOURCE_RECEIVE_RESPONSE, args)) = ev.received().map(|at| received[at as usize]) {
            cache_hit.insert(ev.id, args.from_cache);
        }
    }
    let mut bottom_up = BottomUpBuilder::new(
        ids.strings.len(),
        call_tree_ids_are_view_ids(&events, ids.strings.len()).then_some(chain_budget),
        callers,
        max_nodes,
        s_ms,
        e_ms,
    );

    // Start index: the last event starting at or before S, stepped back
    // to a top-level task.
    let mut start = events.partition_point(|e| e.ts <= s_us) as isize - 1;
    while start > 0 && !events[start as usize].top_level {
        start -= 1;
    }
    let start = start.max(0) as usize;

    let mut samples =
        (!track.samples.is_empty()).then(|| SampleAttribution::new(&track.samples, track.js_frames.len(), s_us, e_us));
    let mut stack: Vec<Open> = Vec::new();
    let clip = |ev: &Ev| -> f64 {
        let s = Micros(ev.ts).to_millis().0;
        let t = Micros(ev.end).to_millis().0;
        js_min(t, e_ms) - js_max(s, s_ms)
    };
    // Ends the call on top of the stack.
    let pop = |stack: &mut Vec<Open>, bottom_up: &mut BottomUpBuilder| {
        let open = stack.pop().expect("non-empty");
        let ev = &events[open.ev as usize];
        let call = EndedCall {
            event: open.ev,
            id: ev.id,
            call_tree_node: open.td,
            ts: ev.ts,
            end_us: ev.end,
            self_ms: open.self_ms,
            outermost: open.outermost,
        };
        let callers = stack.iter().rev().map(|a| events[a.ev as usize].id);
        bottom_up.call_ended(&call, callers);
    };

    // The Call Tree's top-level nodes, with the group of the event that
    // made each.
    let mut top_level: Vec<(u32, u32)> = Vec::new();
    for i in start..events.len() {
        let ev = &events[i];
        // The events are a track's nodes, which are indexed by u32.
        #[allow(clippy::cast_possible_truncation)]
        let i = i as u32;
        if let Some(samples) = &mut samples {
            samples.attribute_before(ev.ts);
        }
        let ev_end = ev.end;
        if ev_end < s_us {
            continue;
        }
        if ev.ts > e_us {
            break;
        }
        while let Some(top) = stack.last() {
            let top_end = events[top.ev as usize].end;
            if !(truthy(top_end) && top_end <= ev.ts) {
                break;
            }
            pop(&mut stack, &mut bottom_up);
        }
        if !ev.kept {
            continue;
        }
        if ev.lasts {
            let c = clip(ev);
            let parent_td = match stack.last_mut() {
                Some(parent) => {
                    parent.self_ms -= c;
                    top_down.nodes[parent.td as usize].self_ms -= c;
                    parent.td
                }
                None => 0,
            };
            let made = top_down.nodes.len();
            let td = top_down.child(parent_td, ev.td_id);
            if parent_td == 0 && td as usize == made {
                top_level.push((td, ev.group));
            }
            top_down.nodes[td as usize].self_ms += c;
            top_down.nodes[td as usize].total_ms += c;
            if let (Some(samples), Some(frame)) = (&mut samples, ev.frame()) {
                samples.call_started(frame, td, ev.ts, ev_end);
            }
            let outermost = bottom_up.call_started(ev.id, c);
            stack.push(Open {
                ev: i,
                self_ms: c,
                td,
                outermost,
            });
        } else if let Some((name, args)) = ev.received().map(|at| received[at as usize]) {
            // An instant: only transfer sizes.
            let entry = bottom_up.first_level(ev.id, i);
            let size = args.encoded_data_length.unwrap_or(f64::NAN);
            let hit = cache_hit.get(&ev.id).copied().unwrap_or(false);
            if name == names::RESOURCE_RECEIVED_DATA {
                if hit {
                    entry.transfer_size = 0.0;
                } else {
                    entry.transfer_size += size;
                }
            } else if name == names::RESOURCE_FINISH && size == 0.0 && hit {
                entry.transfer_size = 0.0;
            } else if size > 0.0 {
                entry.transfer_size = size;
            }
        }
    }
    while !stack.is_empty() {
        pop(&mut stack, &mut bottom_up);
    }

    // First level of the Bottom-Up, in the order DevTools makes its rows
    // (first end or instant of each id): drop rows without self time or
    // transfer size.
    let (mut bottom_up, kept_children) = bottom_up.finish(|made_by| events[made_by as usize].group);
    if bottom_up.nodes.len() > max_nodes {
        let thread = analysis
            .threads()
            .find(|t| std::ptr::eq(t.track(), track))
            .map_or_else(|| "a thread".to_owned(), |t| thread_in_words(analysis, &t));
        return Err(ViewError::TooManyNodes { thread, max_nodes });
    }
    if grouper.is_some() {
        // DevTools' group nodes: a Call Tree group's total is its nodes'
        // totals, a Bottom-Up group's is their self times.
        top_down.group_roots(&top_level, |n| n.total_ms);
        bottom_up.group_roots(&kept_children, |n| n.self_ms);
    }
    // After the group nodes: the counts of a group are its nodes'.
    let samples = samples.map(|s| s.finish(&top_down));
    let (group_ids, group_labels) = grouper.map(|g| (g.ids, g.labels)).unwrap_or_default();
    Ok(ThreadViews {
        ids: ids.strings,
        labels: ids.labels,
        frames: ids.frames,
        group_ids,
        group_labels,
        top_down,
        bottom_up,
        samples,
    })
}

/// Whether each Call Tree id of `events` stands for one view id, so that a
/// Call Tree node's path gives its callers' ids. Always true without
/// grouping (the two ids are the same); with it, an event whose id is
/// `A/B` and one with id `A` in group `B` share a Call Tree id.
fn call_tree_ids_are_view_ids(events: &[Ev], id_count: usize) -> bool {
    let mut view_id_of = vec![u32::MAX; id_count];
    events.iter().all(|ev| {
        let seen = &mut view_id_of[ev.td_id as usize];
        if *seen == u32::MAX {
            *seen = ev.id;
        }
        *seen == ev.id
    })
}

/// The threads of the tracks, in the order of the tracks dump.
pub(crate) fn threads(analysis: &Analysis) -> impl Iterator<Item = (Id, Id, &ThreadTrack)> {
    analysis.threads().map(|t| (t.pid(), t.tid(), t.track()))
}

/// Pre-order rows `(depth, node)` of a tree, siblings ordered by `order`,
/// rows of depth < `max_depth` only.
pub(crate) fn preorder(
    tree: &Tree,
    max_depth: Option<u32>,
    mut order: impl FnMut(&TreeNode, &TreeNode) -> std::cmp::Ordering,
) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let limit = max_depth.unwrap_or(u32::MAX);
    if limit == 0 {
        return out;
    }
    let mut stack: Vec<(u32, u32)> = Vec::new();
    let push_children = |stack: &mut Vec<(u32, u32)>,
                         node: u32,
                         depth: u32,
                         order: &mut dyn FnMut(&TreeNode, &TreeNode) -> std::cmp::Ordering| {
        let mut children = tree.nodes[node as usize].children.clone();
        children.sort_by(|a, b| order(&tree.nodes[*a as usize], &tree.nodes[*b as usize]));
        for c in children.into_iter().rev() {
            stack.push((c, depth));
        }
    };
    push_children(&mut stack, 0, 0, &mut order);
    while let Some((node, depth)) = stack.pop() {
        out.push((depth, node));
        if depth + 1 < limit {
            push_children(&mut stack, node, depth + 1, &mut order);
        }
    }
    out
}

fn write_rows(out: &mut String, views: &ThreadViews, tree: &Tree, max_depth: Option<u32>) {
    let rows = preorder(tree, max_depth, |a, b| {
        views.id(a).encode_utf16().cmp(views.id(b).encode_utf16())
    });
    for (i, (depth, node)) in rows.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let n = &tree.nodes[node as usize];
        out.push('[');
        out.push_str(&depth.to_string());
        out.push(',');
        write_json_string(out, views.id(n));
        out.push(',');
        write_json_number(out, round3(n.self_ms));
        out.push(',');
        write_json_number(out, round3(n.total_ms));
        out.push(']');
    }
}

/// What the views are computed over, and how: the [`Query`] (its
/// threads, window and levels; the views keep every duration), the
/// grouping, and whether threads may be computed on other cores. The
/// default is every thread, the whole trace, every level, no grouping, on
/// the caller's thread.
///
/// ```
/// use tracekit::query::{Query, Window};
/// use tracekit::views::{GroupBy, ViewOptions};
/// use tracekit::Millis;
/// let query = Query::new().with_window(Window::new(Millis(100.0), Millis(250.0))?).with_levels(3)?;
/// let options = ViewOptions::new().query(query).group_by(GroupBy::Category);
/// assert_eq!(options.query.levels(), Some(3));
/// # Ok::<(), tracekit::query::QueryError>(())
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ViewOptions {
    /// The threads (checked with [`Query::validate`]: a thread query that
    /// names none computes none), the selected range (`None`: the trace
    /// bounds) and the levels (rows of depth < levels; `None`: all).
    pub query: Query,
    /// The panel's "Group by".
    pub group_by: GroupBy,
    /// The most nodes a thread's Bottom-Up may have (`None`:
    /// [`tracekit_engine::DEFAULT_MAX_NODES`]); past them, the views fail
    /// ([`ViewError::TooManyNodes`]).
    pub max_nodes: Option<usize>,
    /// [`Parallelism::Rayon`]: threads are computed (and written) on
    /// rayon's pool; the output is the same.
    pub parallelism: Parallelism,
}

impl ViewOptions {
    /// The default options.
    pub fn new() -> ViewOptions {
        ViewOptions::default()
    }

    /// The threads, window and levels of `query`.
    pub fn query(mut self, query: Query) -> Self {
        self.query = query;
        self
    }

    /// The grouping.
    pub fn group_by(mut self, group_by: GroupBy) -> Self {
        self.group_by = group_by;
        self
    }

    /// The most nodes a thread's Bottom-Up may have.
    pub fn max_nodes(mut self, max_nodes: usize) -> Self {
        self.max_nodes = Some(max_nodes);
        self
    }

    /// Whether threads may be computed on other cores.
    pub fn parallelism(mut self, parallelism: Parallelism) -> Self {
        self.parallelism = parallelism;
        self
    }
}

/// Computes the views of each thread `options` selects and hands them to
/// `write`, which makes that thread's piece of a dump; the pieces come
/// back in the order of the tracks dump, whatever the parallelism.
pub(crate) fn per_thread<W>(
    analysis: &Analysis,
    options: &ViewOptions,
    window: Window,
    write: W,
) -> Result<Vec<String>, ViewError>
where
    W: Fn(Id, Id, &ThreadTrack, &ThreadViews) -> String + Sync,
{
    options.group_by.check(analysis)?;
    let only = options.query.kept_threads(analysis);
    let selected: Vec<(Id, Id, &ThreadTrack)> = threads(analysis)
        .filter(|(pid, tid, _)| only.as_ref().is_none_or(|o| o.contains(&(*pid, *tid))))
        .collect();
    let levels = options.query.levels();
    let piece = |&(pid, tid, track): &(Id, Id, &ThreadTrack)| {
        let max_nodes = options.max_nodes.unwrap_or(tracekit_engine::DEFAULT_MAX_NODES);
        let views = thread_views_to_depth(analysis, track, window, levels, options.group_by, max_nodes)?;
        Ok(write(pid, tid, track, &views))
    };
    match options.parallelism {
        Parallelism::Sequential => selected.iter().map(piece).collect(),
        Parallelism::Rayon => {
            use rayon::prelude::*;
            // Largest threads first, so that a big thread does not start
            // last; the pieces are put back in order after.
            let mut order: Vec<usize> = (0..selected.len()).collect();
            order.sort_by_key(|&i| std::cmp::Reverse(selected[i].2.nodes.len()));
            let mut pieces: Vec<(usize, String)> = order
                .into_par_iter()
                .with_max_len(1)
                .map(|i| piece(&selected[i]).map(|p| (i, p)))
                .collect::<Result<_, _>>()?;
            pieces.sort_by_key(|(i, _)| *i);
            Ok(pieces.into_iter().map(|(_, p)| p).collect())
        }
    }
}

/// The "calltree conformance" dump: exactly what `xtask/js/calltree.mjs`
/// prints from the DevTools engine (one line, no newline), for the threads,
/// window (ms from the trace start), depth and grouping of `options`
/// (`calltree.mjs --group-by`: group nodes are rows of depth 0, with their
/// group id).
///
/// # Errors
///
/// As [`thread_views_to_depth`].
pub fn calltree_conformance(analysis: &Analysis, options: &ViewOptions) -> Result<String, ViewError> {
    let window = Window::of(analysis, &options.query);
    let levels = options.query.levels();
    let pieces = per_thread(analysis, options, window, |pid, tid, track, views| {
        let mut out = String::from("{");
        write_thread_keys(&mut out, analysis, pid, tid, track);
        out.push_str(",\"topDown\":[");
        write_rows(&mut out, views, &views.top_down, levels);
        out.push_str("],\"bottomUp\":[");
        write_rows(&mut out, views, &views.bottom_up, levels);
        out.push_str("]}");
        out
    })?;
    let mut out = String::from("{\"threads\":[");
    out.push_str(&pieces.join(","));
    out.push_str("],");
    write_rounded_window(&mut out, window);
    out.push('}');
    Ok(out)
}

/// `"pid":…,"tid":…,"name":…` of a thread in the views' dumps.
pub(crate) fn write_thread_keys(out: &mut String, analysis: &Analysis, pid: Id, tid: Id, track: &ThreadTrack) {
    out.push_str("\"pid\":");
    pid.write_json(out, analysis.strings());
    out.push_str(",\"tid\":");
    tid.write_json(out, analysis.strings());
    out.push_str(",\"name\":");
    match &track.name {
        Some(name) => write_json_string(out, name),
        None => out.push_str("null"),
    }
}

/// `thread TID NAME (pid PID)`: a thread in an error message.
fn thread_in_words(analysis: &Analysis, thread: &tracekit_engine::Thread<'_>) -> String {
    let mut out = String::new();
    write_thread_heading(&mut out, analysis, thread.pid(), thread.tid(), thread.track());
    out.trim_end().to_owned()
}

/// `thread TID NAME (pid PID)`, a thread's first line in the text views.
pub(crate) fn write_thread_heading(out: &mut String, analysis: &Analysis, pid: Id, tid: Id, track: &ThreadTrack) {
    use std::fmt::Write;
    let strings = analysis.strings();
    let _ = writeln!(
        out,
        "thread {}{} (pid {})",
        tid.to_js_string(strings),
        track.name.as_ref().map(|n| format!(" {n}")).unwrap_or_default(),
        pid.to_js_string(strings)
    );
}

/// `"window":{"start":…,"end":…}` in absolute ms rounded to 3 decimals,
/// as the conformance dumps write it.
pub(crate) fn write_rounded_window(out: &mut String, window: Window) {
    out.push_str("\"window\":{\"start\":");
    write_json_number(out, round3(window.start.0));
    out.push_str(",\"end\":");
    write_json_number(out, round3(window.end.0));
    out.push('}');
}

/// Which view [`write_text`] prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// The Call Tree: children by total time, largest first.
    TopDown,
    /// The Bottom-Up: children by self time, largest first.
    BottomUp,
}

/// A readable indented view of each thread `options` selects: one row per node, `SELF ms (PERCENT%)  TOTAL ms
/// (PERCENT%)  LABEL`, percents of the window, a group row labelled by its
/// kind and [`GroupBy::label`] (`category Scripting`, `domain
/// [unattributed]`); rows of depth < `max_depth`.
///
/// # Errors
///
/// As [`thread_views_to_depth`].
pub fn write_text(analysis: &Analysis, view: View, options: &ViewOptions) -> Result<String, ViewError> {
    use std::fmt::Write;
    let (max_depth, group_by) = (options.query.levels(), options.group_by);
    let window = Window::of(analysis, &options.query);
    let span = window.length().0;
    let origin = analysis.bounds().min.to_millis();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}{}, window {:.3}..{:.3} ms from the trace start ({:.3} ms)",
        match view {
            View::TopDown => "Call Tree",
            View::BottomUp => "Bottom-Up",
        },
        match group_by {
            GroupBy::None => String::new(),
            other => format!(" grouped by {}", other.name()),
        },
        (window.start - origin).0,
        (window.end - origin).0,
        span
    );
    let percent = |x: f64| if span > 0.0 { x / span * 100.0 } else { 0.0 };
    let pieces = per_thread(analysis, options, window, |pid, tid, track, views| {
        let mut out = String::new();
        write_thread_heading(&mut out, analysis, pid, tid, track);
        let tree = match view {
            View::TopDown => &views.top_down,
            View::BottomUp => &views.bottom_up,
        };
        // A profile on its own: its samples are what the times come from.
        let samples = match (view, &views.samples) {
            (View::TopDown, Some(samples)) if analysis.kind() != tracekit_engine::InputKind::ChromeTrace => {
                Some(samples)
            }
            _ => None,
        };
        if let Some(samples) = samples {
            let _ = writeln!(
                out,
                "  {} samples in the window{}; columns: self, total, samples (self/total), function",
                samples.in_window,
                if samples.unattributed > 0 {
                    format!(" ({} in calls of no duration, in no node)", samples.unattributed)
                } else {
                    String::new()
                }
            );
        }
        let rows = views.rows(view, max_depth);
        if rows.is_empty() {
            out.push_str("  (empty)\n");
        }
        for (depth, node) in rows {
            let n = &tree.nodes[node as usize];
            for _ in 0..depth.min(MAX_INDENT) + 1 {
                out.push_str("  ");
            }
            if depth > MAX_INDENT {
                let _ = write!(out, "[depth {depth}] ");
            }
            let _ = write!(
                out,
                "{:.3} ms ({:.1}%)  {:.3} ms ({:.1}%)  ",
                n.self_ms,
                percent(n.self_ms),
                n.total_ms,
                percent(n.total_ms),
            );
            if let Some(samples) = samples {
                let _ = write!(out, "{}/{}  ", samples.own[node as usize], samples.total[node as usize]);
            }
            if n.is_group {
                // `category Scripting`, `domain [unattributed]`...
                let _ = write!(out, "{} ", group_by.name());
            }
            out.push_str(views.label(n));
            out.push('\n');
        }
        out
    })?;
    out.extend(pieces);
    Ok(out)
}

/// The order of siblings as the panel sorts them by default: by total
/// time (Call Tree) or self time (Bottom-Up), largest first, then by id.
pub(crate) fn sibling_order(
    views: &ThreadViews,
    view: View,
) -> impl FnMut(&TreeNode, &TreeNode) -> std::cmp::Ordering + '_ {
    move |a, b| {
        let (x, y) = match view {
            View::TopDown => (a.total_ms, b.total_ms),
            View::BottomUp => (a.self_ms, b.self_ms),
        };
        y.total_cmp(&x).then_with(|| views.id(a).cmp(views.id(b)))
    }
}

/// Deeper rows write their depth instead of indenting further.
const MAX_INDENT: u32 = 40;

#[cfg(test)]
mod tests {
    use super::*;

    /// The nodes of a tree with their times as bits: equal only if every
    /// sum is the same to the last bit.
    fn exact(tree: &Tree) -> Vec<(u32, bool, u64, u64, Vec<u32>)> {
        tree.nodes
            .iter()
            .map(|n| {
                (
                    n.id,
                    n.is_group,
                    n.self_ms.to_bits(),
                    n.total_ms.to_bits(),
                    n.children.clone(),
                )
            })
            .collect()
    }

    /// A CPU profile whose function `f` calls `g`, which calls `f` again,
    /// five levels deep, with `h` and `f` called in loops on the way: the
    /// Bottom-Up's end markers matter wherever a call has a caller of its
    /// own function below it.
    fn recursive_profile() -> Vec<u8> {
        let frame = |name: &str| {
            format!(r#"{{"functionName":"{name}","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":1}}"#)
        };
        // Node 1 is the root; 2 f, 3 g, 4 f, 5 g, 6 f under each other; 7 h
        // under 4; 8 h under 6; 9 f under 8.
        let parents = [
            (2, 1, "f"),
            (3, 2, "g"),
            (4, 3, "f"),
            (5, 4, "g"),
            (6, 5, "f"),
            (7, 4, "h"),
            (8, 6, "h"),
            (9, 8, "f"),
        ];
        let mut nodes = vec![format!(r#"{{"id":1,"callFrame":{},"children":[2]}}"#, frame("(root)"))];
        for &(id, _, name) in &parents {
            let children: Vec<String> = parents.iter().filter(|p| p.1 == id).map(|p| p.0.to_string()).collect();
            nodes.push(format!(
                r#"{{"id":{id},"callFrame":{},"children":[{}]}}"#,
                frame(name),
                children.join(",")
            ));
        }
        let samples = [9, 8, 9, 6, 7, 6, 9, 4, 7, 9, 5, 3, 9, 9, 8, 2, 7, 6, 9, 1, 9, 7, 4];
        let deltas: Vec<String> = (0..samples.len()).map(|i| (100 + 37 * (i % 5)).to_string()).collect();
        let samples: Vec<String> = samples.iter().map(ToString::to_string).collect();
        format!(
            r#"{{"nodes":[{}],"startTime":0,"endTime":4000,"samples":[{}],"timeDeltas":[{}]}}"#,
            nodes.join(","),
            samples.join(","),
            deltas.join(",")
        )
        .into_bytes()
    }

    /// Every thread's views with the Bottom-Up's chains of callers kept
    /// for every Call Tree node, for none, and for the first few only, to
    /// every depth, over the whole trace and a window: the same to the
    /// last bit. The kept chains change which work is done, never a sum.
    #[test]
    fn kept_chains_of_callers_change_no_sum() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/traces");
        let mut traces = vec![("recursive profile".to_owned(), recursive_profile())];
        for name in ["kitchen-sink.json.gz", "main-thread.json.gz", "node-work.cpuprofile.gz"] {
            traces.push((name.to_owned(), std::fs::read(root.join(name)).unwrap()));
        }
        let options = tracekit_engine::AnalyzeOptions::default().with_group_args(true);
        let mut nodes_compared = 0;
        for (name, bytes) in traces {
            let analysis = tracekit_engine::analyze_bytes(&bytes, &options).unwrap();
            let bounds = analysis.bounds();
            // The middle third, relative to the trace start.
            let length = (bounds.max - bounds.min).to_millis().0;
            let middle = query::Window::new(Millis(length / 3.0), Millis(2.0 * length / 3.0)).ok();
            for (_, _, track) in threads(&analysis) {
                for window in [Window::new(bounds, None), Window::new(bounds, middle)] {
                    for (group_by, max_depth) in
                        [(GroupBy::None, None), (GroupBy::None, Some(4)), (GroupBy::Domain, None)]
                    {
                        let views = |chain_budget| {
                            views_of_thread(&analysis, track, window, max_depth, group_by, usize::MAX, chain_budget)
                                .unwrap()
                        };
                        let stepped = views(0);
                        for budget in [40, bottom_up::CHAIN_BUDGET] {
                            let kept = views(budget);
                            assert_eq!(
                                exact(&kept.bottom_up),
                                exact(&stepped.bottom_up),
                                "{name} {group_by:?} {max_depth:?} {budget}"
                            );
                            assert_eq!(exact(&kept.top_down), exact(&stepped.top_down), "{name}");
                        }
                        nodes_compared += stepped.bottom_up.nodes.len();
                    }
                }
            }
        }
        assert!(nodes_compared > 10_000, "{nodes_compared}");
    }

    /// A node's children are found again whether it has few (read one by
    /// one) or many (in the table, which takes them all when the node
    /// passes a few), and in order of creation.
    #[test]
    fn children_are_found_before_and_after_a_node_has_many() {
        let mut tree = Tree::new();
        let mut made = Vec::new();
        for id in 0..20u32 {
            let child = tree.child(0, id * 7);
            made.push(child);
            // Every child so far, by its id, in an order the last-child
            // guess does not help with.
            for (earlier, &node) in (0..id + 1).zip(&made).rev() {
                assert_eq!(tree.child(0, earlier * 7), node);
            }
            // A grandchild under the newest child, and found again.
            let grandchild = tree.child(child, 1);
            assert_eq!(tree.child(child, 1), grandchild);
        }
        assert_eq!(tree.nodes[0].children, made);
        assert_eq!(tree.nodes.len(), 41);
        assert!(made.iter().all(|&c| tree.nodes[c as usize].children.len() == 1));
    }

    /// With grouping, an event whose id is `A/B` and one with id `A` in
    /// group `B` share a Call Tree id: a Call Tree path no longer gives
    /// the callers, and no chain is kept.
    #[test]
    fn a_call_tree_id_of_two_view_ids_keeps_no_chain() {
        let ev = |id, td_id| Ev {
            id,
            td_id,
            ..Ev::new(0.0, Some(1.0))
        };
        assert!(call_tree_ids_are_view_ids(&[ev(0, 0), ev(1, 2), ev(1, 2)], 3));
        assert!(!call_tree_ids_are_view_ids(&[ev(0, 2), ev(1, 1), ev(2, 2)], 3));
    }
}
