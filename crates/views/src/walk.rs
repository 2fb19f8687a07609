//! The one walk over a thread's event list that builds both views: DevTools'
//! `forEachEvent` (start index at the last top-level task, window, stack
//! of started events, filters), each started event adding its clipped
//! duration to the Call Tree's node of its path and, when it ends, to the
//! Bottom-Up's builder; after the walk, the group nodes. The Summary can
//! walk the same list ([`thread_bottom_up_and_summary`]).

use std::ops::ControlFlow;

use ahash::AHashMap;
use tracekit_engine::support::{names, ViewArgs};
use tracekit_engine::{Analysis, Micros, Sym, ThreadTrack};

use crate::bottom_up::{self, BottomUpBuilder, EndedCall};
use crate::events::{thread_events, Ev, Visibility};
use crate::grouping::Grouper;
use crate::ids::{GroupedIds, Ids};
use crate::js::{js_max, js_min, truthy};
use crate::samples::{SampleAttribution, SampleCounts};
use crate::summary::{thread_summary, CategoryTimeline, CategoryTimes};
use crate::text::thread_in_words;
use crate::{GroupBy, ThreadViews, Tree, ViewError, Window};

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
    let chain_budget = Some(bottom_up::CHAIN_BUDGET);
    walk_thread(analysis, track, window, max_depth, group_by, max_nodes, chain_budget).map(|(views, _)| views)
}

/// The Bottom-Up of a thread over `window`, to depth < `max_depth` and
/// with at most `max_nodes` nodes, and its Summary over the same window,
/// from one list of its events, for callers that need no Call Tree (the
/// views returned have an empty Call Tree and no sample counts). The
/// Bottom-Up is that of [`thread_views_to_depth`] with no grouping, the
/// Summary that of [`crate::summary::thread_summary`].
///
/// # Errors
///
/// [`ViewError::TooManyNodes`] when the Bottom-Up would have more than
/// `max_nodes` nodes.
pub fn thread_bottom_up_and_summary(
    analysis: &Analysis,
    track: &ThreadTrack,
    window: Window,
    max_depth: Option<u32>,
    max_nodes: usize,
) -> Result<(ThreadViews, CategoryTimes), ViewError> {
    if !window.is_finite() {
        let views = thread_views_to_depth(analysis, track, window, max_depth, GroupBy::None, max_nodes)?;
        return Ok((views, thread_summary(analysis, track, window)));
    }
    // Without a Call Tree, its nodes cannot key the chains of callers.
    let (views, events) = walk_thread(analysis, track, window, max_depth, GroupBy::None, max_nodes, None)?;
    Ok((views, CategoryTimeline::of_events(&events).times(window)))
}

/// The views of a thread, and its event list. With a `chain_budget` (the
/// most nodes the Bottom-Up's kept chains of callers may hold; the tests
/// vary it: the views are the same whatever it is), the Call Tree and the
/// samples' counts are built; without, neither is (and no chain is kept).
pub(crate) fn walk_thread(
    analysis: &Analysis,
    track: &ThreadTrack,
    window: Window,
    max_depth: Option<u32>,
    group_by: GroupBy,
    max_nodes: usize,
    chain_budget: Option<usize>,
) -> Result<(ThreadViews, Vec<Ev>), ViewError> {
    // Callers of a chain of depth d (0-based, counted without the group
    // level) are built for d + 1 + group levels < max_depth.
    let group_levels = usize::from(group_by != GroupBy::None);
    let callers = max_depth.map_or(usize::MAX, |m| (m as usize).saturating_sub(1 + group_levels));
    let mut ids = Ids::default();
    let mut grouper = (group_by != GroupBy::None)
        .then(|| Grouper::new(group_by, analysis))
        .transpose()?;
    if !window.is_finite() {
        let views = thread_views_of(ids, grouper, Tree::new(), Tree::new(), None);
        return Ok((views, Vec::new()));
    }
    let grouped = grouper.as_mut().map(|grouper| GroupedIds {
        grouper,
        call_tree_ids: AHashMap::new(),
    });
    let (events, received) = thread_events(track, &mut Visibility::new(analysis), &mut ids, grouped);
    let bounds = WalkWindow::new(window);
    let cache_hit = cache_hits(&events, &received);
    let call_tree = chain_budget.is_some();
    let bottom_up = BottomUpBuilder::new(
        ids.strings.len(),
        // Without groups, a Call Tree id is its view id.
        chain_budget.filter(|_| group_by == GroupBy::None || call_tree_ids_are_view_ids(&events, ids.strings.len())),
        callers,
        max_nodes,
        bounds.s_ms,
        bounds.e_ms,
    );
    let samples = (call_tree && !track.samples.is_empty())
        .then(|| SampleAttribution::new(&track.samples, track.js_frames.len(), bounds.s_us, bounds.e_us));
    let mut walk = Walk {
        events: &events,
        received: &received,
        cache_hit,
        bounds,
        call_tree,
        top_down: Tree::new(),
        bottom_up,
        samples,
        stack: Vec::new(),
        top_level: Vec::new(),
    };
    walk.run(start_index(&events, bounds.s_us));
    let views = walk.finish(analysis, track, ids, grouper, max_nodes)?;
    Ok((views, events))
}

/// The window as the walk compares with it.
#[derive(Clone, Copy)]
struct WalkWindow {
    /// The start and end, ms.
    s_ms: f64,
    e_ms: f64,
    /// The start and end, µs; an end of 0 (or NaN) is none (infinite).
    s_us: f64,
    e_us: f64,
}

impl WalkWindow {
    fn new(window: Window) -> WalkWindow {
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
        WalkWindow { s_ms, e_ms, s_us, e_us }
    }
}

/// The walk's start index: the last event starting at or before `s_us`
/// (the window's start), stepped back to a top-level task.
fn start_index(events: &[Ev], s_us: f64) -> usize {
    let mut start = events.partition_point(|e| e.ts <= s_us) as isize - 1;
    while start > 0 && !events[start as usize].top_level() {
        start -= 1;
    }
    start.max(0) as usize
}

/// Transfer sizes: cache hits over the whole list (by id, whether the
/// request's response came from the cache).
fn cache_hits(events: &[Ev], received: &[(Sym, ViewArgs)]) -> AHashMap<u32, bool> {
    let mut cache_hit: AHashMap<u32, bool> = AHashMap::new();
    for ev in events {
        if let Some((names::RESOURCE_RECEIVE_RESPONSE, args)) = ev.received().map(|at| received[at as usize]) {
            cache_hit.insert(ev.id, args.from_cache);
        }
    }
    cache_hit
}

/// The views of a thread from their parts.
fn thread_views_of(
    ids: Ids,
    grouper: Option<Grouper<'_>>,
    top_down: Tree,
    bottom_up: Tree,
    samples: Option<SampleCounts>,
) -> ThreadViews {
    let (group_ids, group_labels) = grouper.map(|g| (g.ids, g.labels)).unwrap_or_default();
    ThreadViews {
        ids: ids.strings,
        labels: ids.labels,
        frames: ids.frames,
        group_ids,
        group_labels,
        top_down,
        bottom_up,
        samples,
    }
}

/// The walk over a thread's event list, and what it builds.
struct Walk<'e, 't> {
    events: &'e [Ev],
    /// The names and args of the received-data events ([`Ev::received`]).
    received: &'e [(Sym, ViewArgs)],
    /// By id, whether a request's response came from the cache.
    cache_hit: AHashMap<u32, bool>,
    bounds: WalkWindow,
    /// Whether the Call Tree is built (else `top_down` stays empty).
    call_tree: bool,
    top_down: Tree,
    bottom_up: BottomUpBuilder,
    samples: Option<SampleAttribution<'t>>,
    /// The started events.
    stack: Vec<Open>,
    /// The Call Tree's top-level nodes, with the group of the event that
    /// made each.
    top_level: Vec<(u32, u32)>,
}

impl Walk<'_, '_> {
    /// Walks the events from `start` on, then ends the calls still open.
    fn run(&mut self, start: usize) {
        let events = self.events;
        for (i, ev) in events.iter().enumerate().skip(start) {
            // The events are a track's nodes, which are indexed by u32.
            #[allow(clippy::cast_possible_truncation)]
            let i = i as u32;
            if self.step(i, ev).is_break() {
                break;
            }
        }
        while !self.stack.is_empty() {
            self.pop();
        }
    }

    /// Event `i` of the walk: ends the calls that ended before it, then
    /// starts it (an event that lasts) or adds its transfer size (an
    /// instant). Breaks past the window's end.
    #[inline]
    fn step(&mut self, i: u32, ev: &Ev) -> ControlFlow<()> {
        if let Some(samples) = &mut self.samples {
            samples.attribute_before(ev.ts);
        }
        if ev.end < self.bounds.s_us {
            return ControlFlow::Continue(());
        }
        if ev.ts > self.bounds.e_us {
            return ControlFlow::Break(());
        }
        while let Some(top) = self.stack.last() {
            let top_end = self.events[top.ev as usize].end;
            if !(truthy(top_end) && top_end <= ev.ts) {
                break;
            }
            self.pop();
        }
        if !ev.kept() {
            return ControlFlow::Continue(());
        }
        if ev.lasts() {
            self.start_call(i, ev);
        } else if let Some((name, args)) = ev.received().map(|at| self.received[at as usize]) {
            // An instant: only transfer sizes.
            self.add_transfer_size(i, ev.id, name, args);
        }
        ControlFlow::Continue(())
    }

    /// The duration of `ev` within the window, ms.
    #[inline]
    fn clip(&self, ev: &Ev) -> f64 {
        let s = Micros(ev.ts).to_millis().0;
        let t = Micros(ev.end).to_millis().0;
        js_min(t, self.bounds.e_ms) - js_max(s, self.bounds.s_ms)
    }

    /// Starts event `i`, one that lasts: adds its clipped duration to its
    /// Call Tree node (taking it from its parent's self time) and puts it
    /// on the stack.
    #[inline]
    fn start_call(&mut self, i: u32, ev: &Ev) {
        let c = self.clip(ev);
        let parent = self.stack.last_mut().map(|parent| {
            parent.self_ms -= c;
            parent.td
        });
        let td = if self.call_tree {
            let top_down = &mut self.top_down;
            let parent_td = match parent {
                Some(parent_td) => {
                    top_down.nodes[parent_td as usize].self_ms -= c;
                    parent_td
                }
                None => 0,
            };
            let made = top_down.nodes.len();
            let td = top_down.child(parent_td, ev.td_id);
            if parent_td == 0 && td as usize == made {
                self.top_level.push((td, ev.group));
            }
            top_down.nodes[td as usize].self_ms += c;
            top_down.nodes[td as usize].total_ms += c;
            td
        } else {
            0
        };
        if let (Some(samples), Some(frame)) = (&mut self.samples, ev.frame()) {
            samples.call_started(frame, td, ev.ts, ev.end);
        }
        let outermost = self.bottom_up.call_started(ev.id, c);
        self.stack.push(Open {
            ev: i,
            self_ms: c,
            td,
            outermost,
        });
    }

    /// Ends the call on top of the stack.
    #[inline]
    fn pop(&mut self) {
        let open = self.stack.pop().expect("non-empty");
        let events = self.events;
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
        let callers = self.stack.iter().rev().map(|a| events[a.ev as usize].id);
        self.bottom_up.call_ended(&call, callers);
    }

    /// Adds the transfer size of event `i`, a received-data instant of id
    /// `id` named `name`, to its Bottom-Up row.
    fn add_transfer_size(&mut self, i: u32, id: u32, name: Sym, args: ViewArgs) {
        let entry = self.bottom_up.first_level(id, i);
        let size = args.encoded_data_length.unwrap_or(f64::NAN);
        let hit = self.cache_hit.get(&id).copied().unwrap_or(false);
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

    /// After the walk: the Bottom-Up's first level (dropping the rows
    /// without self time or transfer size) and its node budget, the group
    /// nodes, then the samples' counts.
    fn finish(
        self,
        analysis: &Analysis,
        track: &ThreadTrack,
        ids: Ids,
        grouper: Option<Grouper<'_>>,
        max_nodes: usize,
    ) -> Result<ThreadViews, ViewError> {
        let Walk {
            events,
            mut top_down,
            bottom_up,
            samples,
            top_level,
            ..
        } = self;
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
        Ok(thread_views_of(ids, grouper, top_down, bottom_up, samples))
    }
}

/// Whether each Call Tree id of `events` stands for one view id, so that a
/// Call Tree node's path gives its callers' ids. Always true without
/// grouping (the two ids are the same); with it, an event whose id is
/// `A/B` and one with id `A` in group `B` share a Call Tree id.
pub(crate) fn call_tree_ids_are_view_ids(events: &[Ev], id_count: usize) -> bool {
    let mut view_id_of = vec![u32::MAX; id_count];
    events.iter().all(|ev| {
        let seen = &mut view_id_of[ev.td_id as usize];
        if *seen == u32::MAX {
            *seen = ev.id;
        }
        *seen == ev.id
    })
}
