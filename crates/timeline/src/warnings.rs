//! The Warnings handler (DevTools' `WarningsHandler`): the events the
//! Performance panel marks as problems, by event and by kind of problem
//! ([`Warning`]): main-thread tasks over 50 ms (not on a worker's thread),
//! idle callbacks that ran past their allotted time, style recalculations
//! and layouts forced by JavaScript that cost 30 ms or more in one task,
//! and interactions over 200 ms.
//!
//! As in DevTools, the nesting of events is followed in input order over
//! all threads at once: an event is inside the events before it that it
//! starts within; a task is an event nested in no other.

use tracekit_events::dump::{Dump, Object, Value};
use tracekit_events::json::{js_number, member};
use tracekit_events::prepared::{ArgsSpan, Prepared, PreparedChunk};
use tracekit_events::{names, AnalyzeOptions, Context, Event, EventIndex, Handler, Id, Micros, Phase, Skip, Wants};
use tracekit_meta::Workers;

use crate::interactions::UserInteractions;
use crate::Map;

mod reflows;

pub use reflows::{ForcedReflow, FunctionCallFrame, PayloadFrame};

/// A task longer than this is a long task: 50 ms.
pub const LONG_TASK_THRESHOLD: Micros = Micros(50_000.0);

/// Forced style recalculations and layouts of one task that last this
/// long in all are flagged: 30 ms.
pub const FORCED_REFLOW_THRESHOLD: Micros = Micros(30_000.0);

/// A kind of problem the panel flags (DevTools' `Warning`; [`Warning::name`]
/// gives DevTools' name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Warning {
    /// `LONG_TASK`: a `RunTask` over [`LONG_TASK_THRESHOLD`], on a thread
    /// that runs no worker.
    LongTask,
    /// `IDLE_CALLBACK_OVER_TIME`: a `FireIdleCallback` that lasted longer
    /// than the `allottedMilliseconds` it was given.
    IdleCallbackOverTime,
    /// `FORCED_REFLOW`: an `UpdateLayoutTree` or `Layout` inside a
    /// JavaScript call, in a task whose such events last
    /// [`FORCED_REFLOW_THRESHOLD`] or more in all.
    ForcedReflow,
    /// `LONG_INTERACTION`: an interaction over 200 ms
    /// ([`LONG_INTERACTION_THRESHOLD`](crate::interactions::LONG_INTERACTION_THRESHOLD)).
    LongInteraction,
}

impl Warning {
    /// DevTools' name of the warning (`LONG_TASK`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Warning::LongTask => "LONG_TASK",
            Warning::IdleCallbackOverTime => "IDLE_CALLBACK_OVER_TIME",
            Warning::ForcedReflow => "FORCED_REFLOW",
            Warning::LongInteraction => "LONG_INTERACTION",
        }
    }
}

/// What a warning is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flagged {
    /// An event of the input.
    Event(EventIndex),
    /// An interaction, as an index in
    /// [`UserInteractions::interactions`].
    Interaction(usize),
}

/// What the Warnings handler found.
#[derive(Debug, Clone, Default)]
pub struct Warnings {
    /// What the Forced reflow insight reads of each event flagged
    /// `FORCED_REFLOW`, in the order of `per_warning`'s list.
    pub forced_reflows: Vec<ForcedReflow>,
    /// The warnings of each flagged event, in the order they were found
    /// (the events in the order of their first warning).
    pub per_event: Map<Flagged, Vec<Warning>>,
    /// The events flagged with each warning, in the order they were found.
    pub per_warning: Map<Warning, Vec<Flagged>>,
}

impl Warnings {
    fn store(&mut self, flagged: Flagged, warning: Warning) {
        self.per_event.entry(flagged).or_default().push(warning);
        self.per_warning.entry(warning).or_default().push(flagged);
    }
}

/// The Warnings handler (see the module documentation).
#[derive(Debug, Default)]
pub struct WarningsHandler {
    data: Warnings,
    /// The ends of the events the current one may be nested in.
    open: Vec<f64>,
    /// The ends of the JavaScript calls it may be nested in.
    open_js: Vec<f64>,
    /// The forced style recalculations and layouts of the current task,
    /// with their durations.
    reflows: Vec<(EventIndex, f64, ForcedReflow)>,
    /// The `FunctionCall`s a reflow may be in.
    open_calls: Vec<reflows::OpenCall>,
    /// The `RunTask`s over the threshold, with their threads.
    long_tasks: Vec<(EventIndex, Id)>,
    /// The args of the style recalculations and layouts of the events
    /// handed over last, walked on all cores (most are not forced, but
    /// which are is known only in order).
    prepared_reflows: Prepared<reflows::RawReflow<ArgsSpan>>,
}

/// Whether the event is a call into JavaScript.
fn is_js_call(event: &Event<'_>, name: &str) -> bool {
    [
        names::RUN_MICROTASKS,
        names::FUNCTION_CALL,
        names::EVALUATE_SCRIPT,
        names::EVALUATE_MODULE,
        names::EVENT_DISPATCH,
        names::V8_EXECUTE,
        names::V8_CONSOLE_RUN_TASK,
    ]
    .contains(&event.name)
        || name.starts_with("v8")
        || name.starts_with("V8")
}

/// Drops from `stack` the events that end before `ts`.
fn close_before(stack: &mut Vec<f64>, ts: f64) {
    while stack.last().is_some_and(|&end| ts > end) {
        stack.pop();
    }
}

/// An event's duration as DevTools reads it (`dur || 0`).
fn duration(event: &Event<'_>) -> f64 {
    event.dur.map_or(0.0, |d| if d.0.is_nan() { 0.0 } else { d.0 })
}

impl Handler for WarningsHandler {
    type Deps<'d> = (&'d UserInteractions, &'d Workers);
    type Data = Warnings;

    // The nesting of every event decides which layouts are forced.
    const WANTS: Wants = Wants::Every;

    fn enabled(options: &AnalyzeOptions) -> bool {
        options.all_handlers
    }

    /// Walks the args of the style recalculations and layouts, which the
    /// forced ones keep, on all cores.
    fn prepare(events: &[Event<'_>], _: &AnalyzeOptions) -> Option<PreparedChunk> {
        Some(Prepared::of_chunk(events, reflows::RawReflow::read))
    }

    fn take_prepared(&mut self, first: EventIndex, prepared: PreparedChunk) {
        self.prepared_reflows.set(first, prepared);
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        self.follow_reflows(index, event, cx);
        if event.name == names::RUN_TASK {
            if duration(event) > LONG_TASK_THRESHOLD.0 {
                self.long_tasks.push((index, event.tid));
            }
        } else if event.name == names::FIRE_IDLE_CALLBACK && event.ph == Phase::COMPLETE {
            let Some(data) = event.args.and_then(|a| member(a, "data")).filter(|d| *d != "null") else {
                cx.diagnostics.skip(Skip::WarningsIdleCallbackWithoutData, || {
                    format!("FireIdleCallback (event #{index}) without args.data")
                });
                return;
            };
            let allotted = js_number(member(data, "allottedMilliseconds"));
            if Micros(duration(event)).to_millis().0 > allotted {
                self.data.store(Flagged::Event(index), Warning::IdleCallbackOverTime);
            }
        }
    }

    fn finalize(self, (interactions, workers): (&UserInteractions, &Workers), _cx: &mut Context) -> Warnings {
        let mut data = self.data;
        for at in interactions.over_threshold() {
            data.store(Flagged::Interaction(at), Warning::LongInteraction);
        }
        for (index, tid) in self.long_tasks {
            let thread = (!tid.is_missing()).then_some(tid);
            if !workers.worker_by_thread.contains_key(&thread) {
                data.store(Flagged::Event(index), Warning::LongTask);
            }
        }
        data
    }
}

impl WarningsHandler {
    /// Follows the nesting of events: a style recalculation or layout
    /// inside a JavaScript call is kept for its task, whose forced ones are
    /// flagged when the next task starts, if they took long enough.
    fn follow_reflows(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        // A metadata event without a `ts` is never over for DevTools (its
        // end is not a number): it stays at the bottom of the stack, and no
        // event after it is a task.
        let untimed = event.ph == Phase::METADATA && member(event.text, "ts").is_none();
        let ts = if untimed { f64::NAN } else { event.ts.0 };
        let end = ts + duration(event);
        close_before(&mut self.open, ts);
        self.open.push(end);
        close_before(&mut self.open_js, ts);
        if is_js_call(event, cx.interner.resolve(event.name)) {
            self.open_js.push(end);
        }
        while self.open_calls.last().is_some_and(|c| ts > c.end) {
            self.open_calls.pop();
        }
        if event.name == names::FUNCTION_CALL {
            self.open_calls.push(reflows::OpenCall::of(index, event, end, cx));
        }
        let reflow = event.name == names::LAYOUT || event.name == names::UPDATE_LAYOUT_TREE;
        if !self.open_js.is_empty() && reflow {
            let call = self
                .open_calls
                .iter_mut()
                .rev()
                .find(|c| c.pid == event.pid && c.tid == event.tid && c.end >= ts)
                .and_then(|c| c.frame(&mut cx.interner));
            let raw = self
                .prepared_reflows
                .take_or_read(index, event, reflows::RawReflow::read)
                .unwrap_or_default()
                .map(|span| span.in_args(event));
            let details = reflows::forced_reflow(index, event, call, raw, &mut cx.interner);
            self.reflows.push((index, duration(event), details));
            return;
        }
        if self.open.len() == 1 {
            let total: f64 = self.reflows.iter().map(|(_, dur, _)| dur).sum();
            if total >= FORCED_REFLOW_THRESHOLD.0 {
                for &(reflow, _, details) in &self.reflows {
                    self.data.store(Flagged::Event(reflow), Warning::ForcedReflow);
                    self.data.forced_reflows.push(details);
                }
            }
            self.reflows.clear();
        }
    }
}

impl Warnings {
    /// This data in the data conformance dump. DevTools keeps `perEvent`
    /// in a `WeakMap`, which its dump cannot list: written `{}` there, as
    /// DevTools' is, and in full by `tracekit data --format json`
    /// ([`Value::Weak`]).
    pub fn dump(&self, interactions: &UserInteractions, dump: &mut Dump<'_>) -> Value {
        let flagged_value = |f: Flagged, dump: &mut Dump<'_>| match f {
            Flagged::Event(index) => Value::Event(index),
            Flagged::Interaction(at) => interactions.dump_interaction(at, dump),
        };
        let rows = self
            .per_warning
            .iter()
            .map(|(warning, flagged)| {
                let list = flagged.iter().map(|&f| flagged_value(f, dump)).collect();
                (Value::str(warning.name()), Value::Array(list))
            })
            .collect();
        let per_event = self
            .per_event
            .iter()
            .map(|(&flagged, warnings)| {
                let names = warnings.iter().map(|w| Value::str(w.name())).collect();
                (flagged_value(flagged, dump), Value::Array(names))
            })
            .collect();
        Object::new()
            .with("perEvent", Value::Weak(Box::new(Value::Map(per_event))))
            .with("perWarning", Value::Map(rows))
            .into()
    }
}

#[cfg(test)]
mod tests;
