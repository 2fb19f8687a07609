//! The aggregated views of the Performance panel (issue 7): the Call Tree
//! (top-down) and the Bottom-Up of a thread, with no grouping, as DevTools'
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
//!   updated in end order, which is the order DevTools sees them in.
//!
//! The Summary (time per category over a window) is [`summary`]; the
//! events it walks are the same as the views', chosen by the same code.
//!
//! Types: [`Window`] is the selected range in ms; [`Tree`] is one view
//! (nodes with an id index, self and total ms, children); [`ThreadViews`]
//! is both views of one thread with the table of node ids;
//! [`calltree_conformance`] writes the dump of `xtask/js/calltree.mjs`;
//! [`write_text`] writes a readable indented tree.

#![deny(missing_docs)]

mod json;
pub mod summary;

/// DevTools' Styles table, in the core crate (the flame chart uses it too).
pub use tracekit::styles;

pub use json::calltree_json;

use ahash::AHashMap;
use tracekit::{Analysis, Bounds, CpuSample, Id, Interner, NodeKind, Sym, ThreadTrack};
use tracekit_cpuprofile::{CallFrame, IdLocation};
use tracekit_events::jsnum::{round3, write_js_number, write_json_number};
use tracekit_events::json::write_json_string;
use tracekit_events::{names, Phase};

/// The selected range of the views, in ms (absolute, as the trace's
/// timestamps divided by 1000). `None` bounds: the trace has none (an
/// empty CPU profile); the views are then empty.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// The start, in ms.
    pub start: f64,
    /// The end, in ms.
    pub end: f64,
}

impl Window {
    /// The window of the panel's tree views: the trace bounds by default,
    /// or `relative` (ms from the trace start) as
    /// `bounds.min / 1000 + A`, `bounds.min / 1000 + B`; an infinite end
    /// of `relative` (an open range) is that of the trace bounds.
    pub fn new(bounds: Bounds, relative: Option<(f64, f64)>) -> Window {
        let min = bounds.min.0 / 1000.0;
        let max = bounds.max.0 / 1000.0;
        match relative {
            Some((a, b)) => Window {
                start: if a.is_finite() { min + a } else { min },
                end: if b.is_finite() { min + b } else { max },
            },
            None => Window { start: min, end: max },
        }
    }

    /// Whether the bounds were finite (a trace with a start).
    pub fn is_finite(&self) -> bool {
        self.start.is_finite() && self.end.is_finite()
    }
}

/// A node of a view. Times in ms, clipped to the window.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeNode {
    /// Index of the node's id in [`ThreadViews::ids`] (unused for the root).
    pub id: u32,
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
    children_by_id: AHashMap<(u32, u32), u32>,
}

impl Tree {
    fn new() -> Tree {
        Tree {
            nodes: vec![TreeNode {
                id: u32::MAX,
                self_ms: 0.0,
                total_ms: 0.0,
                children: Vec::new(),
            }],
            children_by_id: AHashMap::new(),
        }
    }

    /// The child of `parent` with id `id`, made if needed.
    fn child(&mut self, parent: u32, id: u32) -> u32 {
        if let Some(&c) = self.children_by_id.get(&(parent, id)) {
            return c;
        }
        let c = self.nodes.len() as u32;
        self.nodes.push(TreeNode {
            id,
            self_ms: 0.0,
            total_ms: 0.0,
            children: Vec::new(),
        });
        self.nodes[parent as usize].children.push(c);
        self.children_by_id.insert((parent, id), c);
        c
    }
}

/// Both views of one thread.
#[derive(Debug, Clone)]
pub struct ThreadViews {
    /// The node ids (DevTools' `generateEventID`), indexed by
    /// [`TreeNode::id`].
    pub ids: Vec<String>,
    /// A readable label of each id: the id itself, or for a JS call
    /// `js NAME URL:LINE:COLUMN` (1-based, as the tracks' text format).
    pub labels: Vec<String>,
    /// The call frame of each id that names a JS call.
    pub frames: Vec<Option<CallFrame>>,
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
    /// The latest call of each frame: (Call Tree node, start, end), µs.
    call_of_frame: AHashMap<u32, (u32, f64, f64)>,
    counts: SampleCounts,
}

impl<'t> SampleAttribution<'t> {
    fn new(samples: &'t [CpuSample], start_us: f64, end_us: f64) -> Self {
        SampleAttribution {
            samples,
            next: samples.partition_point(|s| s.ts.0 < start_us),
            end_us,
            call_of_frame: AHashMap::new(),
            counts: SampleCounts::default(),
        }
    }

    /// A call of `frame` started, as Call Tree node `node`.
    fn call_started(&mut self, frame: u32, node: u32, start_us: f64, end_us: f64) {
        self.call_of_frame.insert(frame, (node, start_us, end_us));
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
            match self.call_of_frame.get(&sample.frame) {
                Some(&(node, start, end)) if start <= t && t < end => {
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

    /// The counts, totals summed up the tree.
    fn finish(mut self, top_down: &Tree) -> SampleCounts {
        self.attribute_before(f64::INFINITY);
        let mut counts = self.counts;
        counts.own.resize(top_down.nodes.len(), 0);
        counts.total.clone_from(&counts.own);
        // A child is made after its parent: its index is greater.
        for node in (1..top_down.nodes.len()).rev() {
            for &child in &top_down.nodes[node].children {
                counts.total[node] += counts.total[child as usize];
            }
        }
        counts.total[0] = top_down.nodes[0]
            .children
            .iter()
            .map(|&c| counts.total[c as usize])
            .sum::<u32>()
            + counts.own[0];
        counts
    }
}

/// An event of the thread list, as the views see it.
struct Ev {
    /// Start, µs.
    ts: f64,
    /// Duration, µs (`None`: absent).
    dur: Option<f64>,
    /// Index into the ids.
    id: u32,
    /// For a JS call, its frame (index into the track's JS frames).
    frame: Option<u32>,
    /// A top-level task (`RunTask` of category devtools.timeline).
    top_level: bool,
    /// Kept by the filters (not `RunTask`; a visible type unless generic).
    kept: bool,
    /// For received-data events: the name and args.
    received: Option<(Sym, tracekit_renderer::ViewArgs)>,
}

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
fn js_call_id(frame: &CallFrame, interner: &Interner) -> String {
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
        let i = self.strings.len() as u32;
        self.labels.push(label.unwrap_or_else(|| s.clone()));
        self.frames.push(frame);
        self.strings.push(s.clone());
        self.index.insert(s, i);
        i
    }
}

/// `js NAME URL:LINE:COLUMN`, a JS call as the tracks' text format shows it.
fn js_call_label(frame: &CallFrame, interner: &Interner) -> String {
    let name = interner.resolve(frame.function_name);
    let mut out = format!("js {}", if name.is_empty() { "(anonymous)" } else { name });
    tracekit::output::write_js_location(
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
    interner: &'a Interner,
    generic: bool,
    visible_type: AHashMap<Sym, bool>,
}

impl<'a> Visibility<'a> {
    pub(crate) fn new(analysis: &'a Analysis) -> Visibility<'a> {
        Visibility {
            interner: &analysis.interner,
            generic: analysis.meta.as_ref().is_some_and(|m| m.trace_is_generic),
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
    events.sort_by(|a, b| key(ts(a)).total_cmp(&key(ts(b))));
}

/// The thread's event list (section 1 of the spec) with ids and filters.
fn thread_events(track: &ThreadTrack, visibility: &mut Visibility, ids: &mut Ids) -> Vec<Ev> {
    let interner = visibility.interner;
    let generic = visibility.generic;
    let mut frame_ids: AHashMap<u32, u32> = AHashMap::new();
    let mut events = Vec::with_capacity(track.nodes.len());
    for node in &track.nodes {
        let ts = node.ts.0;
        let dur = node.dur.map(|d| d.0);
        match node.kind {
            NodeKind::Call { frame } => {
                // A JS call (ProfileCall): visible, a visible type, never a task.
                let id = match frame_ids.get(&frame) {
                    Some(&id) => id,
                    None => {
                        let (s, label, call_frame) = match track.js_frames.get(frame as usize) {
                            Some(js) => (
                                js_call_id(&js.call_frame, interner),
                                Some(js_call_label(&js.call_frame, interner)),
                                Some(js.call_frame),
                            ),
                            None => ("f:?".to_owned(), None, None),
                        };
                        let id = ids.intern_labelled(s, label, call_frame);
                        frame_ids.insert(frame, id);
                        id
                    }
                };
                events.push(Ev {
                    ts,
                    dur,
                    id,
                    frame: Some(frame),
                    top_level: false,
                    kept: true,
                    received: None,
                });
            }
            NodeKind::Event { name, cat, ph, event } => {
                let cat_text = interner.resolve(cat);
                if !visibility.in_timeline(name, cat_text, ph) {
                    continue;
                }
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
                let args = track.view_args(event).copied();
                let id_text = if name == names::TIME_STAMP && ph == Phase::INSTANT && args.is_some_and(|a| a.has_data) {
                    let a = args.unwrap_or_default();
                    format!("TimeStamp:{}", a.name.map_or("undefined", |n| interner.resolve(n)))
                } else if is_received_data(name) {
                    let a = args.unwrap_or_default();
                    format!("req:{}", a.request_id.map_or("undefined", |n| interner.resolve(n)))
                } else {
                    interner.resolve(name).to_owned()
                };
                let id = ids.intern(id_text);
                events.push(Ev {
                    ts,
                    dur,
                    id,
                    frame: None,
                    top_level: is_top_level_task(name, cat_text),
                    kept,
                    received: if is_received_data(name) {
                        Some((name, args.unwrap_or_default()))
                    } else {
                        None
                    },
                });
            }
        }
    }
    sort_by_start(&mut events, |e| e.ts);
    events
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

/// Computes both views of a thread's track, over `window`.
pub fn thread_views(analysis: &Analysis, track: &ThreadTrack, window: Window) -> ThreadViews {
    thread_views_to_depth(analysis, track, window, None)
}

/// [`thread_views`], with the Bottom-Up built only to depth < `max_depth`
/// (its deeper nodes are the costly part: one per event and ancestor).
/// The Call Tree and the nodes built are the same as without a limit.
pub fn thread_views_to_depth(
    analysis: &Analysis,
    track: &ThreadTrack,
    window: Window,
    max_depth: Option<u32>,
) -> ThreadViews {
    // Callers of a chain of depth d (0-based) are built for d + 1 < max_depth.
    let callers = max_depth.map_or(usize::MAX, |m| (m as usize).saturating_sub(1));
    let mut ids = Ids::default();
    let mut top_down = Tree::new();
    let mut bottom_up = Tree::new();
    if !window.is_finite() {
        return ThreadViews {
            ids: ids.strings,
            labels: ids.labels,
            frames: ids.frames,
            top_down,
            bottom_up,
            samples: None,
        };
    }
    let events = thread_events(track, &mut Visibility::new(analysis), &mut ids);
    let (s_ms, e_ms) = (window.start, window.end);
    let s_us = s_ms * 1000.0;
    let e_us = {
        let e = e_ms * 1000.0;
        if truthy(e) {
            e
        } else {
            f64::INFINITY
        }
    };

    // Transfer sizes: cache hits over the whole list.
    let mut cache_hit: AHashMap<u32, bool> = AHashMap::new();
    for ev in &events {
        if let Some((names::RESOURCE_RECEIVE_RESPONSE, args)) = ev.received {
            cache_hit.insert(ev.id, args.from_cache);
        }
    }
    // First-level Bottom-Up data, by id: self, total, transfer size, made.
    let mut first: AHashMap<u32, (f64, f64, f64)> = AHashMap::new();
    let mut first_order: Vec<u32> = Vec::new();
    let mut open_ids: AHashMap<u32, f64> = AHashMap::new();
    // The end marker of each Bottom-Up node (by node index).
    let mut markers: AHashMap<u32, f64> = AHashMap::new();

    // Start index: the last event starting at or before S, stepped back
    // to a top-level task.
    let mut start = events.partition_point(|e| e.ts <= s_us) as isize - 1;
    while start > 0 && !events[start as usize].top_level {
        start -= 1;
    }
    let start = start.max(0) as usize;

    let mut samples = (!track.samples.is_empty()).then(|| SampleAttribution::new(&track.samples, s_us, e_us));
    let mut stack: Vec<Open> = Vec::new();
    let clip = |ev: &Ev| -> f64 {
        let s = ev.ts / 1000.0;
        let t = (ev.ts + ev.dur.unwrap_or(0.0)) / 1000.0;
        js_min(t, e_ms) - js_max(s, s_ms)
    };
    let end_of = |ev: &Ev| ev.ts + ev.dur.unwrap_or(0.0);

    let on_end = |open: Open,
                  stack: &[Open],
                  first: &mut AHashMap<u32, (f64, f64, f64)>,
                  first_order: &mut Vec<u32>,
                  open_ids: &mut AHashMap<u32, f64>,
                  bottom_up: &mut Tree,
                  markers: &mut AHashMap<u32, f64>| {
        let ev = &events[open.ev as usize];
        let self_or_zero = if open.self_ms.is_nan() { 0.0 } else { open.self_ms };
        let entry = first.entry(ev.id).or_insert_with(|| {
            first_order.push(ev.id);
            (0.0, 0.0, 0.0)
        });
        entry.0 += self_or_zero;
        if open.outermost {
            let total = open_ids.remove(&ev.id).unwrap_or(0.0);
            entry.1 += if total.is_nan() { 0.0 } else { total };
        }
        // Deeper levels: the chain of ancestors, innermost first.
        let end = js_min((ev.ts + ev.dur.unwrap_or(0.0)) / 1000.0, e_ms);
        let s = ev.ts / 1000.0;
        let mut node = bottom_up.child(0, ev.id);
        for ancestor in stack.iter().rev().take(callers) {
            let parent = node;
            node = bottom_up.child(parent, events[ancestor.ev as usize].id);
            let marker = markers.entry(parent).or_insert(s_ms);
            let n = &mut bottom_up.nodes[node as usize];
            n.self_ms += self_or_zero;
            n.total_ms += end - js_max(s, *marker);
            *marker = end;
        }
    };

    for i in start..events.len() {
        let ev = &events[i];
        if let Some(samples) = &mut samples {
            samples.attribute_before(ev.ts);
        }
        let ev_end = end_of(ev);
        if ev_end < s_us {
            continue;
        }
        if ev.ts > e_us {
            break;
        }
        while let Some(top) = stack.last() {
            let top_end = end_of(&events[top.ev as usize]);
            if !(truthy(top_end) && top_end <= ev.ts) {
                break;
            }
            let open = stack.pop().expect("non-empty");
            on_end(
                open,
                &stack,
                &mut first,
                &mut first_order,
                &mut open_ids,
                &mut bottom_up,
                &mut markers,
            );
        }
        if !ev.kept {
            continue;
        }
        if ev.dur.is_some_and(truthy) {
            let c = clip(ev);
            let parent_td = match stack.last_mut() {
                Some(parent) => {
                    parent.self_ms -= c;
                    top_down.nodes[parent.td as usize].self_ms -= c;
                    parent.td
                }
                None => 0,
            };
            let td = top_down.child(parent_td, ev.id);
            top_down.nodes[td as usize].self_ms += c;
            top_down.nodes[td as usize].total_ms += c;
            if let (Some(samples), Some(frame)) = (&mut samples, ev.frame) {
                samples.call_started(frame, td, ev.ts, ev_end);
            }
            let outermost = !open_ids.contains_key(&ev.id);
            if outermost {
                open_ids.insert(ev.id, c);
            }
            stack.push(Open {
                ev: i as u32,
                self_ms: c,
                td,
                outermost,
            });
        } else if let Some((name, args)) = ev.received {
            // An instant: only transfer sizes.
            let entry = first.entry(ev.id).or_insert_with(|| {
                first_order.push(ev.id);
                (0.0, 0.0, 0.0)
            });
            let size = args.encoded_data_length.unwrap_or(f64::NAN);
            let hit = cache_hit.get(&ev.id).copied().unwrap_or(false);
            if name == names::RESOURCE_RECEIVED_DATA {
                if hit {
                    entry.2 = 0.0;
                } else {
                    entry.2 += size;
                }
            } else if name == names::RESOURCE_FINISH && size == 0.0 && hit {
                entry.2 = 0.0;
            } else if size > 0.0 {
                entry.2 = size;
            }
        }
    }
    while let Some(open) = stack.pop() {
        on_end(
            open,
            &stack,
            &mut first,
            &mut first_order,
            &mut open_ids,
            &mut bottom_up,
            &mut markers,
        );
    }

    // First level of the Bottom-Up: drop rows without self time or size.
    let level1: Vec<u32> = bottom_up.nodes[0].children.clone();
    let mut kept_children = Vec::new();
    for child in level1 {
        let id = bottom_up.nodes[child as usize].id;
        let (self_ms, total_ms, size) = first.get(&id).copied().unwrap_or((0.0, 0.0, 0.0));
        let n = &mut bottom_up.nodes[child as usize];
        n.self_ms = self_ms;
        n.total_ms = total_ms;
        if self_ms <= 0.0 && size <= 0.0 {
            continue;
        }
        kept_children.push(child);
    }
    // Rows made by instants alone.
    for id in first_order {
        if bottom_up.children_by_id.contains_key(&(0, id)) {
            continue;
        }
        let (self_ms, total_ms, size) = first[&id];
        if self_ms <= 0.0 && size <= 0.0 {
            continue;
        }
        let c = bottom_up.child(0, id);
        bottom_up.nodes[c as usize].self_ms = self_ms;
        bottom_up.nodes[c as usize].total_ms = total_ms;
        kept_children.push(c);
    }
    bottom_up.nodes[0].children = kept_children;
    let samples = samples.map(|s| s.finish(&top_down));
    ThreadViews {
        ids: ids.strings,
        labels: ids.labels,
        frames: ids.frames,
        top_down,
        bottom_up,
        samples,
    }
}

/// The threads of the tracks, in the order of the tracks dump.
pub(crate) fn threads(analysis: &Analysis) -> impl Iterator<Item = (Id, Id, &ThreadTrack)> {
    analysis
        .processes
        .iter()
        .flat_map(|(pid, p)| p.threads.iter().map(move |(tid, t)| (*pid, *tid, t)))
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
        views.ids[a.id as usize]
            .encode_utf16()
            .cmp(views.ids[b.id as usize].encode_utf16())
    });
    for (i, (depth, node)) in rows.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let n = &tree.nodes[node as usize];
        out.push('[');
        out.push_str(&depth.to_string());
        out.push(',');
        write_json_string(out, &views.ids[n.id as usize]);
        out.push(',');
        write_json_number(out, round3(n.self_ms));
        out.push(',');
        write_json_number(out, round3(n.total_ms));
        out.push(']');
    }
}

/// The "calltree conformance" dump: exactly what `xtask/js/calltree.mjs`
/// prints from the DevTools engine (one line, no newline), for the window
/// `relative` (ms from the trace start; `None`: the trace bounds) and rows
/// of depth < `max_depth`.
pub fn calltree_conformance(analysis: &Analysis, relative: Option<(f64, f64)>, max_depth: Option<u32>) -> String {
    calltree_conformance_of(analysis, None, relative, max_depth)
}

/// [`calltree_conformance`] of the threads `only` names (`(pid, tid)`;
/// `None`: every thread).
pub fn calltree_conformance_of(
    analysis: &Analysis,
    only: Option<&[(Id, Id)]>,
    relative: Option<(f64, f64)>,
    max_depth: Option<u32>,
) -> String {
    let window = Window::new(analysis.bounds, relative);
    let interner = &analysis.interner;
    let mut out = String::from("{\"threads\":[");
    let selected = threads(analysis).filter(|(pid, tid, _)| only.is_none_or(|o| o.contains(&(*pid, *tid))));
    for (i, (pid, tid, track)) in selected.enumerate() {
        if i > 0 {
            out.push(',');
        }
        let views = thread_views_to_depth(analysis, track, window, max_depth);
        out.push_str("{\"pid\":");
        pid.write_json(&mut out, interner);
        out.push_str(",\"tid\":");
        tid.write_json(&mut out, interner);
        out.push_str(",\"name\":");
        match &track.name {
            Some(name) => write_json_string(&mut out, name),
            None => out.push_str("null"),
        }
        out.push_str(",\"topDown\":[");
        write_rows(&mut out, &views, &views.top_down, max_depth);
        out.push_str("],\"bottomUp\":[");
        write_rows(&mut out, &views, &views.bottom_up, max_depth);
        out.push_str("]}");
    }
    out.push_str("],\"window\":{\"start\":");
    write_json_number(&mut out, round3(window.start));
    out.push_str(",\"end\":");
    write_json_number(&mut out, round3(window.end));
    out.push_str("}}");
    out
}

/// Which view [`write_text`] prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// The Call Tree: children by total time, largest first.
    TopDown,
    /// The Bottom-Up: children by self time, largest first.
    BottomUp,
}

/// A readable indented view of each thread `only` names (`None`: all):
/// one row per node, `SELF ms (PERCENT%)  TOTAL ms (PERCENT%)  LABEL`,
/// percents of the window; rows of depth < `max_depth`.
pub fn write_text(
    analysis: &Analysis,
    only: Option<&[(Id, Id)]>,
    view: View,
    relative: Option<(f64, f64)>,
    max_depth: Option<u32>,
) -> String {
    use std::fmt::Write;
    let window = Window::new(analysis.bounds, relative);
    let interner = &analysis.interner;
    let span = window.end - window.start;
    let origin = analysis.bounds.min.0 / 1000.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}, window {:.3}..{:.3} ms from the trace start ({:.3} ms)",
        match view {
            View::TopDown => "Call Tree",
            View::BottomUp => "Bottom-Up",
        },
        window.start - origin,
        window.end - origin,
        span
    );
    let percent = |x: f64| if span > 0.0 { x / span * 100.0 } else { 0.0 };
    for (pid, tid, track) in threads(analysis).filter(|(pid, tid, _)| only.is_none_or(|o| o.contains(&(*pid, *tid)))) {
        let views = thread_views_to_depth(analysis, track, window, max_depth);
        let _ = writeln!(
            out,
            "thread {}{} (pid {})",
            tid.to_js_string(interner),
            track.name.as_ref().map(|n| format!(" {n}")).unwrap_or_default(),
            pid.to_js_string(interner)
        );
        let tree = match view {
            View::TopDown => &views.top_down,
            View::BottomUp => &views.bottom_up,
        };
        // A profile on its own: its samples are what the times come from.
        let samples = match (view, &views.samples) {
            (View::TopDown, Some(samples)) if analysis.kind != tracekit::InputKind::ChromeTrace => Some(samples),
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
        let rows = preorder(tree, max_depth, sibling_order(&views, view));
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
            let _ = writeln!(out, "{}", views.labels[n.id as usize]);
        }
    }
    out
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
        y.total_cmp(&x)
            .then_with(|| views.ids[a.id as usize].cmp(&views.ids[b.id as usize]))
    }
}

/// Deeper rows write their depth instead of indenting further.
const MAX_INDENT: u32 = 40;
