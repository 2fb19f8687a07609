//! The AsyncJSCalls handler (DevTools' `AsyncJSCallsHandler`): which JS
//! call scheduled which async task, read from the flows that go from a
//! `v8::Debugger::AsyncTaskScheduled` to the `v8::Debugger::AsyncTaskRun`
//! of its task, and from the renderer's call trees around both:
//!
//! - the scheduler is the nearest JS call above the schedule event: a JS
//!   call made of samples (DevTools' ProfileCall) or a JS entry point
//!   (`FunctionCall`, `EvaluateScript`, `EventDispatch`, `RunMicrotasks`,
//!   `V8Console::runTask`);
//! - the run's entry point is the first JS entry point below the run, level
//!   by level, and its JS calls are the first ProfileCalls below it; both
//!   searches stop at a nested run (another task's).
//!
//! A task run several times (`setInterval`, `console.createTask`) is one
//! flow from run to run: a flow that starts at a run takes the schedule
//! an earlier flow gave that run.
//!
//! DevTools' tree holds a new complete event for a begin/end pair, not the
//! begin event, so a schedule or run written as a begin/end pair is not
//! found in the tree, and an entry point written so is that new event.

use tracekit_events::dump::{Dump, Object, Value};
use tracekit_events::json::{as_str, member};
use tracekit_events::{names, Context, Event, EventIndex, Handler, Phase, Skip, Sym, Wants};
use tracekit_page::{CallSample, EntityEvent, ThreadNumber, TrackEntries};
use tracekit_renderer::{NodeKind, NumberedThreads, RendererData, ThreadTrack};

use crate::{Flows, Map};

/// The JS entry points a scheduler or a run's entry point can be (the JS
/// invocation events whose names do not start with `v8`, and
/// `V8Console::runTask`).
const JS_ENTRY_POINTS: [Sym; 5] = [
    names::RUN_MICROTASKS,
    names::FUNCTION_CALL,
    names::EVALUATE_SCRIPT,
    names::EVENT_DISPATCH,
    names::V8_CONSOLE_RUN_TASK,
];

/// The AsyncJSCalls handler (see the module documentation).
#[derive(Debug, Default)]
pub struct AsyncJsCallsHandler {
    /// Each `AsyncTaskScheduled`, in input order, with its
    /// `args.taskName` (`None`: not a string).
    scheduled: Vec<(EventIndex, Option<Sym>)>,
    /// Each `AsyncTaskRun`, in input order.
    runs: Vec<EventIndex>,
    /// The begin events (`B`) of async tasks and JS entry points: DevTools'
    /// tree holds a new event for each pair. A JS entry point's keeps its
    /// text (interned), which that new event copies.
    begins: ahash::AHashMap<EventIndex, Option<Sym>>,
}

/// The task of an async call, and who scheduled it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AsyncScheduler {
    /// The schedule event's `args.taskName` (`setTimeout`,
    /// `requestAnimationFrame`, a `console.createTask` name...); `None`
    /// when it is not a string.
    pub task_name: Option<Sym>,
    /// The JS call that scheduled it (or the schedule event, where
    /// [`AsyncJsCalls::run_entry_point_to_scheduler`] says so).
    pub scheduler: EntityEvent,
}

/// The async JS calls of a trace. An entry is an event of the input
/// ([`EntityEvent::Event`]), a JS call of a thread's track
/// ([`EntityEvent::ProfileCall`]), or a begin/end pair made one event
/// ([`EntityEvent::BeginEnd`]).
#[derive(Debug, Clone, Default)]
pub struct AsyncJsCalls {
    /// Each JS call that scheduled tasks whose run has a JS entry point,
    /// with those entry points (a `FunctionCall`...), in the flows' order.
    pub scheduler_to_run_entry_points: Map<EntityEvent, Vec<EntityEvent>>,
    /// Each JS call (a ProfileCall) first below the run of a task whose
    /// scheduler and entry point are known, with the task and its
    /// scheduler.
    pub async_call_to_scheduler: Map<EntityEvent, AsyncScheduler>,
    /// Each run's JS entry point (the run itself when it has none), with
    /// the task and its scheduler (the schedule event itself when no JS
    /// call is above it): the fallback when a side has no JS call.
    pub run_entry_point_to_scheduler: Map<EntityEvent, AsyncScheduler>,
}

impl Handler for AsyncJsCallsHandler {
    type Deps<'d> = (&'d Flows, &'d RendererData);
    type Data = AsyncJsCalls;

    const WANTS: Wants = Wants::Named(&[
        names::DEBUGGER_ASYNC_TASK_SCHEDULED,
        names::DEBUGGER_ASYNC_TASK_RUN,
        names::RUN_MICROTASKS,
        names::FUNCTION_CALL,
        names::EVALUATE_SCRIPT,
        names::EVENT_DISPATCH,
        names::V8_CONSOLE_RUN_TASK,
    ]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let is_task = match event.name {
            names::DEBUGGER_ASYNC_TASK_SCHEDULED => {
                let name = event.args.and_then(|a| member(a, "taskName")).and_then(as_str);
                self.scheduled.push((index, name.map(|n| cx.interner.intern(&n))));
                true
            }
            names::DEBUGGER_ASYNC_TASK_RUN => {
                self.runs.push(index);
                true
            }
            _ => false,
        };
        if event.ph == Phase::BEGIN {
            let text = (!is_task).then(|| cx.interner.intern(event.text));
            self.begins.insert(index, text);
        }
    }

    fn finalize(self, (flows, renderer): Self::Deps<'_>, cx: &mut Context) -> AsyncJsCalls {
        let mut data = AsyncJsCalls::default();
        // The flows that may tie a schedule to a run: only their events are
        // looked for in the trees.
        let candidates: Vec<&[EventIndex]> = flows
            .flows
            .iter()
            .map(Vec::as_slice)
            .filter(|f| f.len() > 1 && self.is_run(f[1]) && (self.is_run(f[0]) || self.task_name(f[0]).is_some()))
            .collect();
        if candidates.is_empty() {
            return data;
        }
        let found = self.find_in_trees(&candidates, renderer);
        let mut schedule_of_run: ahash::AHashMap<EventIndex, EventIndex> = ahash::AHashMap::default();
        for flow in candidates {
            let (first, run) = (flow[0], flow[1]);
            let scheduled = if self.is_run(first) {
                match schedule_of_run.get(&first) {
                    Some(&s) => s,
                    None => {
                        cx.diagnostics.skip(Skip::AsyncCallsUnpairedFlow, || {
                            format!("flow from run event {first} to run event {run}")
                        });
                        continue;
                    }
                }
            } else {
                first
            };
            schedule_of_run.insert(run, scheduled);
            let task_name = self.task_name(scheduled).flatten();
            let caller = found.schedulers.get(&scheduled).copied().flatten();
            let run_node = found.runs.get(&run);
            let entry = run_node.and_then(|r| {
                r.first_descendants(renderer, Accept::EntryPoint, &self.begins)
                    .first()
                    .copied()
            });
            let fallback = AsyncScheduler {
                task_name,
                scheduler: caller.unwrap_or(EntityEvent::Event(scheduled)),
            };
            data.run_entry_point_to_scheduler
                .insert(entry.unwrap_or(EntityEvent::Event(run)), fallback);
            let (Some(caller), Some(entry), Some(run_node)) = (caller, entry, run_node) else {
                continue;
            };
            data.scheduler_to_run_entry_points
                .entry(caller)
                .or_default()
                .push(entry);
            let scheduler = AsyncScheduler {
                task_name,
                scheduler: caller,
            };
            for call in run_node.first_descendants(renderer, Accept::ProfileCall, &self.begins) {
                data.async_call_to_scheduler.insert(call, scheduler);
            }
        }
        data
    }
}

/// What the searches below a run accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Accept {
    /// A JS entry point.
    EntryPoint,
    /// A JS call made of samples.
    ProfileCall,
}

/// A node of a thread's track: where to find it, and how many JS call
/// nodes come before it (which numbers its calls' samples).
#[derive(Debug, Clone, Copy)]
struct NodeAt {
    thread: ThreadNumber,
    position: usize,
    calls_before: usize,
}

/// The schedules' and runs' places in the trees.
#[derive(Debug, Default)]
struct Found {
    /// Each schedule event found in a tree, with the nearest JS call above
    /// it (`None`: none).
    schedulers: ahash::AHashMap<EventIndex, Option<EntityEvent>>,
    /// Each run event found in a tree.
    runs: ahash::AHashMap<EventIndex, NodeAt>,
}

impl AsyncJsCallsHandler {
    fn is_run(&self, index: EventIndex) -> bool {
        self.runs.binary_search(&index).is_ok()
    }

    /// `Some(task name)` for a schedule event, `None` for any other.
    fn task_name(&self, index: EventIndex) -> Option<Option<Sym>> {
        let at = self.scheduled.binary_search_by_key(&index, |(i, _)| *i).ok()?;
        Some(self.scheduled[at].1)
    }

    /// Walks the trees DevTools keeps once, finding the flows' schedules
    /// (with the JS call above each) and runs.
    fn find_in_trees(&self, flows: &[&[EventIndex]], renderer: &RendererData) -> Found {
        let mut wanted: ahash::AHashSet<EventIndex> = ahash::AHashSet::default();
        for flow in flows {
            wanted.extend(&flow[..2]);
        }
        // A begin/end pair is a new event in DevTools' tree: its begin is
        // not there.
        wanted.retain(|i| !self.begins.contains_key(i));
        let mut found = Found::default();
        // The nearest JS call at or above each level of the current path:
        // its position and the JS calls before it.
        let mut path: Vec<Option<(usize, usize)>> = Vec::new();
        let numbered = NumberedThreads(&renderer.processes).numbered();
        for (thread, _, _, track) in numbered.filter(|(_, _, process, _)| process.kept_by_devtools) {
            path.clear();
            let mut calls = 0;
            for (position, node) in track.nodes.iter().enumerate() {
                path.truncate(node.depth() as usize);
                let above = path.last().copied().flatten();
                let own = match node.kind() {
                    NodeKind::Call { .. } => true,
                    NodeKind::Event { name, event, .. } => {
                        // The flows' ends are async task events: a name
                        // compared first spares a look-up per node.
                        let task_event =
                            name == names::DEBUGGER_ASYNC_TASK_SCHEDULED || name == names::DEBUGGER_ASYNC_TASK_RUN;
                        if task_event && wanted.contains(&event) {
                            let at = NodeAt {
                                thread,
                                position,
                                calls_before: calls,
                            };
                            if self.is_run(event) {
                                found.runs.insert(event, at);
                            } else {
                                let caller = above.map(|(position, calls_before)| {
                                    NodeAt {
                                        position,
                                        calls_before,
                                        ..at
                                    }
                                    .entry(track, &self.begins)
                                });
                                found.schedulers.insert(event, caller);
                            }
                        }
                        JS_ENTRY_POINTS.contains(&name)
                    }
                };
                path.push(if own { Some((position, calls)) } else { above });
                if matches!(node.kind(), NodeKind::Call { .. }) {
                    calls += 1;
                }
            }
        }
        found
    }
}

impl NodeAt {
    fn track<'r>(&self, renderer: &'r RendererData) -> Option<&'r ThreadTrack> {
        let (_, _, track) = NumberedThreads(&renderer.processes).thread(self.thread)?;
        Some(track)
    }

    /// The node as the data names it.
    fn entry(&self, track: &ThreadTrack, begins: &ahash::AHashMap<EventIndex, Option<Sym>>) -> EntityEvent {
        let node = &track.nodes[self.position];
        let position = u32::try_from(self.position).unwrap_or(u32::MAX);
        match node.kind() {
            NodeKind::Call { .. } => EntityEvent::ProfileCall {
                thread: self.thread,
                position,
                sample: CallSample::new(track.call_sample(self.calls_before)),
            },
            NodeKind::Event { event, .. } => match begins.get(&event) {
                Some(&Some(text)) => EntityEvent::BeginEnd {
                    thread: self.thread,
                    position,
                    begin: event,
                    text,
                },
                _ => EntityEvent::Event(event),
            },
        }
    }

    /// The first nodes below this one that `accept` takes, level by level
    /// (a node taken is not looked into), not looking into a nested run.
    fn first_descendants(
        &self,
        renderer: &RendererData,
        accept: Accept,
        begins: &ahash::AHashMap<EventIndex, Option<Sym>>,
    ) -> Vec<EntityEvent> {
        let Some(track) = self.track(renderer) else {
            return Vec::new();
        };
        let nodes = &track.nodes;
        let depth = nodes[self.position].depth();
        // One walk of the subtree in pre-order finds what the search level
        // by level finds: the nodes taken, each with its depth; a node
        // taken, or a nested run, hides the nodes below it. Sorted by
        // depth (stably), they are in the order of the search: within a
        // level, a breadth-first search meets nodes in pre-order.
        let mut taken: Vec<(u32, EntityEvent)> = Vec::new();
        let mut hidden_below: Option<u32> = None;
        let mut calls = self.calls_before + usize::from(matches!(nodes[self.position].kind(), NodeKind::Call { .. }));
        for (at, node) in nodes.iter().enumerate().skip(self.position + 1) {
            let d = node.depth();
            if d <= depth {
                break;
            }
            let kind = node.kind();
            let is_call = matches!(kind, NodeKind::Call { .. });
            if hidden_below.is_some_and(|h| d > h) {
                calls += usize::from(is_call);
                continue;
            }
            hidden_below = None;
            let take = match (accept, kind) {
                (Accept::ProfileCall, NodeKind::Call { .. }) => true,
                (Accept::EntryPoint, NodeKind::Event { name, .. }) => JS_ENTRY_POINTS.contains(&name),
                _ => false,
            };
            if take {
                let node = NodeAt {
                    position: at,
                    calls_before: calls,
                    ..*self
                };
                taken.push((d, node.entry(track, begins)));
                hidden_below = Some(d);
            } else if matches!(
                kind,
                NodeKind::Event {
                    name: names::DEBUGGER_ASYNC_TASK_RUN,
                    ..
                }
            ) {
                hidden_below = Some(d);
            }
            calls += usize::from(is_call);
        }
        taken.sort_by_key(|&(d, _)| d);
        taken.into_iter().map(|(_, entry)| entry).collect()
    }
}

/// An entry in the data conformance dump: an input event as itself, an
/// entry DevTools made as its synthetic event.
pub(crate) fn entry_value(entry: EntityEvent, tracks: &dyn TrackEntries, dump: &mut Dump<'_>) -> Value {
    match entry {
        EntityEvent::Event(index) => Value::Event(index),
        other => {
            tracekit_page::network::track_entry_synthetic(other, tracks, dump).map_or(Value::Null, Value::Synthetic)
        }
    }
}

impl AsyncJsCalls {
    /// This data in the data conformance dump. DevTools keeps
    /// `asyncCallToScheduler` and `runEntryPointToScheduler` in weak maps,
    /// which its dump cannot list: written `{}` there, and in full by
    /// `tracekit data --format json` ([`Value::Weak`]). `tracks`: those
    /// the entries are on.
    pub fn dump(&self, tracks: &dyn TrackEntries, dump: &mut Dump<'_>) -> Value {
        let rows = self
            .scheduler_to_run_entry_points
            .iter()
            .map(|(caller, entries)| {
                let caller = entry_value(*caller, tracks, dump);
                let entries = entries.iter().map(|e| entry_value(*e, tracks, dump)).collect();
                (caller, Value::Array(entries))
            })
            .collect();
        let mut weak = |map: &Map<EntityEvent, AsyncScheduler>| {
            let rows = map
                .iter()
                .map(|(&call, task)| {
                    let task_name = task.task_name.map_or(Value::Null, Value::Sym);
                    let scheduler = entry_value(task.scheduler, tracks, dump);
                    let task = Object::new().with("scheduler", scheduler).with("taskName", task_name);
                    (entry_value(call, tracks, dump), task.into())
                })
                .collect();
            Value::Weak(Box::new(Value::Map(rows)))
        };
        let async_call_to_scheduler = weak(&self.async_call_to_scheduler);
        let run_entry_point_to_scheduler = weak(&self.run_entry_point_to_scheduler);
        Object::new()
            .with("asyncCallToScheduler", async_call_to_scheduler)
            .with("runEntryPointToScheduler", run_entry_point_to_scheduler)
            .with("schedulerToRunEntryPoints", Value::Map(rows))
            .into()
    }
}

#[cfg(test)]
mod tests;
