//! The Memory handler: the `UpdateCounters` events (JS heap size, documents,
//! nodes, listeners), by process.

use tracekit_events::dump::{Dump, Object, Value};
use tracekit_events::{names, Context, Event, EventIndex, Handler, Id, Wants};

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
}

impl Handler for MemoryHandler {
    type Deps<'d> = ();
    type Data = Memory;

    const WANTS: Wants = Wants::Named(&[names::UPDATE_COUNTERS]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, _cx: &mut Context) {
        self.data.counters_by_process.entry(event.pid).or_default().push(index);
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
