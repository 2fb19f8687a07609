//! The Memory handler: the `UpdateCounters` events (JS heap size, documents,
//! nodes, listeners), by process.

use tracekit_events::dump::{Dump, Object, Value};
use tracekit_events::json::{as_f64, members};
use tracekit_events::{names, ArgsKey, Context, Event, EventIndex, Handler, Id, Micros, Wants};

use crate::Map;

/// The Memory handler (see the module documentation).
#[derive(Debug, Default)]
pub struct MemoryHandler {
    data: Memory,
}

/// The memory counters of a trace.
#[derive(Debug, Clone, Default)]
pub struct Memory {
    /// The `UpdateCounters` events of each process, in input order.
    pub counters_by_process: Map<Id, Vec<EventIndex>>,
    /// What each of those events says, in the same order: the chart's
    /// memory graph.
    pub values_by_process: Map<Id, Vec<Counters>>,
}

/// What one `UpdateCounters` event says (`args.data`): each value `None`
/// when the event does not give it as a number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Counters {
    /// When (the event's `ts`).
    pub ts: Micros,
    /// `jsHeapSizeUsed`: bytes of the JS heap in use.
    pub js_heap_size_used: Option<f64>,
    /// `documents`.
    pub documents: Option<f64>,
    /// `nodes`: DOM nodes.
    pub nodes: Option<f64>,
    /// `jsEventListeners`.
    pub js_event_listeners: Option<f64>,
}

impl Handler for MemoryHandler {
    type Deps<'d> = ();
    type Data = Memory;

    const WANTS: Wants = Wants::Named(&[names::UPDATE_COUNTERS]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        self.data.counters_by_process.entry(event.pid).or_default().push(index);
        // `args.data`'s counters, found in one pass.
        let keys = ["jsHeapSizeUsed", "documents", "nodes", "jsEventListeners"];
        let [js_heap_size_used, documents, nodes, js_event_listeners] = cx
            .args_member(index, event, ArgsKey::Data)
            .and_then(|data| members(data, keys))
            .unwrap_or_default()
            .map(|value| value.and_then(as_f64));
        let counters = Counters {
            ts: event.ts,
            js_heap_size_used,
            documents,
            nodes,
            js_event_listeners,
        };
        self.data.values_by_process.entry(event.pid).or_default().push(counters);
    }

    fn finalize(self, (): (), _cx: &mut Context) -> Memory {
        self.data
    }
}

impl Memory {
    /// This data in the data conformance dump.
    pub fn dump(&self, _dump: &mut Dump<'_>) -> Value {
        let by_process = self
            .counters_by_process
            .iter()
            .map(|(pid, events)| (Value::id(*pid), Value::events(events.iter().copied())))
            .collect();
        Object::new()
            .with("updateCountersByProcess", Value::Map(by_process))
            .into()
    }
}
