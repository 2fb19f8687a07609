//! The Flows handler: chains of events tied by the trace's flow events
//! (`ph` `s`, `t`, `f`: a flow starts, steps and ends), each flow the
//! events it passes through, in the order it reaches them.
//!
//! A flow event binds the flow to the event of the same time, process,
//! thread and category (the first such event of the trace that is not a
//! flow event). Flow events of one category, name and id go from a start
//! to its end; a step or an end with no open start is ignored. A flow is
//! its id: the events bound to every start, step and end of an id, one per
//! time; a flow that reaches fewer than two events is left out.

use tracekit_events::bits::Bits;
use tracekit_events::dump::{Dump, Object, Value};
use tracekit_events::{Context, Event, EventIndex, Handler, Id, Phase, Sym, Wants};

use crate::Map;

const FLOW_START: Phase = Phase(b's');
const FLOW_STEP: Phase = Phase(b't');
const FLOW_END: Phase = Phase(b'f');

/// What a flow event binds to: a hash of an event's time, process,
/// thread and category (a fixed-seed 64-bit hash: the same on every run;
/// two keys that share one are as unlikely as in the trace's own ids).
type Binding = u64;

/// The binding of a flow event itself, in [`FlowsHandler::bindings`]: no
/// event binds to one.
const NOT_BOUND: Binding = 0;

/// A flow event, as the handler keeps it until the end.
#[derive(Debug, Clone, Copy)]
struct FlowEvent {
    ph: Phase,
    binding: Binding,
    /// Its time (the bits of the `f64`).
    ts_bits: u64,
    cat: Sym,
    name: Sym,
    id: Option<Id>,
}

/// The Flows handler (see the module documentation).
#[derive(Debug)]
pub struct FlowsHandler {
    flow_events: Vec<FlowEvent>,
    /// The binding of every event, by its index: 8 bytes an event, pushed
    /// without a look-up. Which events the flows reach is found at the
    /// end, when the flows' own bindings are known (a flow may bind to an
    /// event before or after it).
    bindings: Vec<Binding>,
    hasher: ahash::RandomState,
}

impl Default for FlowsHandler {
    fn default() -> Self {
        Self {
            flow_events: Vec::new(),
            bindings: Vec::new(),
            // Fixed seeds: the flows found must not depend on the run.
            hasher: ahash::RandomState::with_seeds(0x5eed_f10e, 0x7eac_e417, 0x0c0f_fee5, 0xdead_10cc),
        }
    }
}

/// The flows of a trace.
#[derive(Debug, Clone, Default)]
pub struct Flows {
    /// Each flow: the events it reaches, in order (at least two).
    pub flows: Vec<Vec<EventIndex>>,
}

impl FlowsHandler {
    fn binding(&self, event: &Event<'_>) -> Binding {
        match self
            .hasher
            .hash_one((event.ts.0.to_bits(), event.pid, event.tid, event.cat))
        {
            NOT_BOUND => 1,
            hash => hash,
        }
    }

    /// The first event of each of `wanted`'s bindings that is not a flow
    /// event, in input order.
    fn first_events<V>(&self, wanted: &Map<Binding, V>) -> Vec<(EventIndex, Binding)> {
        let mut unseen: ahash::AHashSet<Binding> = wanted.keys().copied().collect();
        let mut reached = Vec::with_capacity(wanted.len());
        if unseen.is_empty() {
            return reached;
        }
        // A binding is a hash: its low bits, marked in a bitmap of about
        // 16 bits per wanted binding, rule out most events without a
        // look-up in the set (most events bind no flow).
        let size = (wanted.len() * 16).next_power_of_two();
        // Only low bits are wanted: what a cast to a narrower usize drops
        // is dropped by the mask anyway.
        #[allow(clippy::cast_possible_truncation)]
        let low_bits = |binding: Binding| binding as usize & (size - 1);
        let mut marked = Bits::with_len(size);
        for &binding in wanted.keys() {
            marked.insert(low_bits(binding));
        }
        for (index, &binding) in (0..).zip(&self.bindings) {
            if !marked.contains(low_bits(binding)) {
                continue;
            }
            if unseen.remove(&binding) {
                reached.push((index, binding));
                if unseen.is_empty() {
                    break;
                }
            }
        }
        reached
    }
}

impl Handler for FlowsHandler {
    type Deps<'d> = ();
    type Data = Flows;

    const WANTS: Wants = Wants::Every;

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, _cx: &mut Context) {
        let at = index as usize;
        if self.bindings.len() < at {
            // Events not handed to this handler bind nothing.
            self.bindings.resize(at, NOT_BOUND);
        }
        if matches!(event.ph, FLOW_START | FLOW_STEP | FLOW_END) {
            self.flow_events.push(FlowEvent {
                ph: event.ph,
                binding: self.binding(event),
                ts_bits: event.ts.0.to_bits(),
                cat: event.cat,
                name: event.name,
                id: event.id,
            });
            self.bindings.push(NOT_BOUND);
        } else {
            self.bindings.push(self.binding(event));
        }
    }

    fn finalize(self, (): (), _cx: &mut Context) -> Flows {
        // The flows bound to each binding, in the order they were bound.
        // A flow is its id, as DevTools keys it: two flows of one id (of
        // two names, or one after the other) are one.
        // Each with the time of its events (a binding's flow events share
        // it).
        let mut bound: Map<Binding, (u64, Vec<Option<Id>>)> = Map::default();
        let mut open: ahash::AHashMap<(Sym, Sym, Option<Id>), Option<Id>> = ahash::AHashMap::default();
        for flow in &self.flow_events {
            let group = (flow.cat, flow.name, flow.id);
            let id = match flow.ph {
                FLOW_START => {
                    open.insert(group, flow.id);
                    flow.id
                }
                FLOW_STEP => match open.get(&group) {
                    Some(&id) => id,
                    None => continue,
                },
                _ => match open.remove(&group) {
                    Some(id) => id,
                    None => continue,
                },
            };
            let (_, flows) = bound.entry(flow.binding).or_insert_with(|| (flow.ts_bits, Vec::new()));
            if !flows.contains(&id) {
                flows.push(id);
            }
        }
        // Each bound event, in input order, joins its flows, once per time.
        let reached = self.first_events(&bound);
        // Each flow numbered in the order it is first joined; its joins
        // (flow, time, event) listed, then grouped by flow: a map per flow
        // cost more than the rest of the handler.
        let mut flow_numbers: ahash::AHashMap<Option<Id>, u32> = ahash::AHashMap::default();
        let mut joins: Vec<(u32, u64, EventIndex)> = Vec::with_capacity(reached.len());
        for (index, binding) in reached {
            let (ts_bits, ids) = &bound[&binding];
            for id in ids {
                let next = u32::try_from(flow_numbers.len()).unwrap_or(u32::MAX);
                let flow = *flow_numbers.entry(*id).or_insert(next);
                joins.push((flow, *ts_bits, index));
            }
        }
        joins.sort_by_key(|&(flow, ..)| flow);
        let flows = joins
            .chunk_by(|a, b| a.0 == b.0)
            .map(events_by_time)
            .filter(|events| events.len() > 1)
            .collect();
        Flows { flows }
    }
}

/// A flow's events: one per time, the last joined at that time, in the
/// order the times were first joined.
fn events_by_time(joins: &[(u32, u64, EventIndex)]) -> Vec<EventIndex> {
    // Most flows join two or three events: a look along the list is
    // quicker than a map, which long flows get.
    const SHORT: usize = 16;
    if joins.len() <= SHORT {
        let mut events: Vec<(u64, EventIndex)> = Vec::with_capacity(joins.len());
        for &(_, ts_bits, index) in joins {
            match events.iter_mut().find(|(t, _)| *t == ts_bits) {
                Some(event) => event.1 = index,
                None => events.push((ts_bits, index)),
            }
        }
        return events.into_iter().map(|(_, index)| index).collect();
    }
    let mut events: Map<u64, EventIndex> = Map::default();
    for &(_, ts_bits, index) in joins {
        events.insert(ts_bits, index);
    }
    events.into_values().collect()
}

impl Flows {
    /// This data in the data conformance dump.
    pub fn dump(&self, _dump: &mut Dump<'_>) -> Value {
        let flows = self.flows.iter().map(|f| Value::events(f.iter().copied())).collect();
        Object::new().with("flows", Value::Array(flows)).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_events::{feed, AnalyzeOptions};

    fn flows(trace: &str) -> Vec<Vec<EventIndex>> {
        let mut cx = Context::new(AnalyzeOptions::default().with_all_handlers(true));
        let mut handler = FlowsHandler::default();
        feed(trace, &mut handler, &mut cx).unwrap();
        handler.finalize((), &mut cx).flows
    }

    #[test]
    fn a_flow_ties_the_events_bound_to_its_start_steps_and_end() {
        let trace = r#"[
            {"name":"A","cat":"c","ph":"X","ts":10,"dur":5,"pid":1,"tid":1},
            {"name":"f","cat":"c","ph":"s","ts":10,"pid":1,"tid":1,"id":7},
            {"name":"f","cat":"c","ph":"t","ts":20,"pid":1,"tid":2,"id":7},
            {"name":"f","cat":"c","ph":"f","ts":30,"pid":1,"tid":1,"id":7},
            {"name":"B","cat":"c","ph":"X","ts":20,"dur":5,"pid":1,"tid":2},
            {"name":"B2","cat":"c","ph":"X","ts":20,"dur":5,"pid":1,"tid":2},
            {"name":"C","cat":"other","ph":"X","ts":30,"dur":5,"pid":1,"tid":1},
            {"name":"D","cat":"c","ph":"X","ts":30,"dur":5,"pid":1,"tid":1}
        ]"#;
        // B2 shares B's binding (only the first counts); C has another category.
        assert_eq!(flows(trace), vec![vec![0, 4, 7]]);
    }

    #[test]
    fn a_step_without_a_start_and_a_flow_of_one_event_are_left_out() {
        let trace = r#"[
            {"name":"A","cat":"c","ph":"X","ts":10,"dur":5,"pid":1,"tid":1},
            {"name":"f","cat":"c","ph":"t","ts":10,"pid":1,"tid":1,"id":1},
            {"name":"g","cat":"c","ph":"s","ts":10,"pid":1,"tid":1,"id":2},
            {"name":"g","cat":"c","ph":"f","ts":11,"pid":1,"tid":1,"id":2}
        ]"#;
        assert!(flows(trace).is_empty());
    }

    #[test]
    fn a_flow_keeps_one_event_per_time_the_last_joined_in_the_place_of_the_first() {
        // Short flows take the look along the list, long ones the map: both
        // as a map keyed by time would give them.
        for len in [1, 2, 5, 16, 17, 40] {
            let joins: Vec<(u32, u64, EventIndex)> = (0..len).map(|k| (0, (k * 7 % 5) as u64, k)).collect();
            let mut expected: Map<u64, EventIndex> = Map::default();
            for &(_, ts, index) in &joins {
                expected.insert(ts, index);
            }
            let expected: Vec<EventIndex> = expected.into_values().collect();
            assert_eq!(events_by_time(&joins), expected, "{len} joins");
        }
    }

    #[test]
    fn flows_come_in_the_order_they_were_first_joined() {
        let trace = r#"[
            {"name":"A","cat":"c","ph":"X","ts":10,"dur":5,"pid":1,"tid":1},
            {"name":"f","cat":"c","ph":"s","ts":10,"pid":1,"tid":1,"id":9},
            {"name":"g","cat":"c","ph":"s","ts":10,"pid":1,"tid":1,"id":3},
            {"name":"B","cat":"c","ph":"X","ts":20,"dur":5,"pid":1,"tid":1},
            {"name":"g","cat":"c","ph":"f","ts":20,"pid":1,"tid":1,"id":3},
            {"name":"C","cat":"c","ph":"X","ts":30,"dur":5,"pid":1,"tid":1},
            {"name":"f","cat":"c","ph":"f","ts":30,"pid":1,"tid":1,"id":9}
        ]"#;
        assert_eq!(flows(trace), vec![vec![0, 5], vec![0, 3]]);
    }
}
