//! The DOMStats handler: the `DOMStats` events (a frame's DOM size, its
//! deepest and widest nodes), by frame, each with its time, process and
//! element count (what the DOM size insight compares).

use tracekit_events::dump::{Dump, Object, Value};
use tracekit_events::json::{as_f64, as_str, member, member_path};
use tracekit_events::{names, Context, Event, EventIndex, Handler, Id, Micros, Skip, Sym, Wants};

use crate::Map;

/// The DOMStats handler (see the module documentation).
#[derive(Debug, Default)]
pub struct DomStatsHandler {
    data: DomStats,
}

/// The DOM statistics of a trace.
#[derive(Debug, Clone, Default)]
pub struct DomStats {
    /// The `DOMStats` events of each frame (by `args.data.frame`; `None`
    /// for an event without one), in input order.
    pub by_frame: Map<Option<Sym>, Vec<DomStatsEvent>>,
}

/// A `DOMStats` event.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DomStatsEvent {
    /// The event.
    pub event: EventIndex,
    /// When it was taken.
    pub ts: Micros,
    /// Its duration (zero when it says none).
    pub dur: Micros,
    /// Its process.
    pub pid: Id,
    /// `args.data.totalElements`: the frame's element count (NaN when not a
    /// number, which no count exceeds).
    pub total_elements: f64,
    /// `args.data.maxDepth`: the deepest node, when an object.
    pub max_depth: Option<DomNodeStat>,
    /// `args.data.maxChildren`: the node with the most children, when an
    /// object.
    pub max_children: Option<DomNodeStat>,
}

/// One node a `DOMStats` event names: how deep it is (or how many
/// children it has), its name and its id, as the event writes them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DomNodeStat {
    /// `depth` or `numChildren` (NaN when not a number).
    pub count: f64,
    /// `nodeName`, when a string.
    pub node_name: Option<Sym>,
    /// `nodeId` (NaN when not a number).
    pub node_id: f64,
}

/// The node stat at `key` of a `DOMStats` event's data, counted by
/// `count`.
fn node_stat(data: &str, key: &str, count: &str, cx: &mut Context) -> Option<DomNodeStat> {
    let stat = member(data, key).filter(|s| s.starts_with('{'))?;
    let number = |k: &str| member(stat, k).and_then(as_f64).unwrap_or(f64::NAN);
    Some(DomNodeStat {
        count: number(count),
        node_name: member(stat, "nodeName")
            .and_then(as_str)
            .map(|n| cx.interner.intern(&n)),
        node_id: number("nodeId"),
    })
}

impl Handler for DomStatsHandler {
    type Deps<'d> = ();
    type Data = DomStats;

    const WANTS: Wants = Wants::Named(&[names::DOM_STATS]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let data = event.args.and_then(|a| member(a, "data"));
        if data.is_none_or(|d| !d.starts_with('{')) {
            // DevTools reads `args.data.frame` without a check: it would
            // fail on the whole trace. Such an event is skipped here.
            cx.diagnostics.skip(Skip::DomStatsWithoutData, || {
                format!("DOMStats (event #{index}) without args.data")
            });
            return;
        }
        let frame = event
            .args
            .and_then(|a| member_path(a, &["data", "frame"]))
            .and_then(as_str)
            .map(|f| cx.interner.intern(&f));
        let total_elements = event
            .args
            .and_then(|a| member_path(a, &["data", "totalElements"]))
            .and_then(as_f64)
            .unwrap_or(f64::NAN);
        let data = data.unwrap_or("{}");
        let max_depth = node_stat(data, "maxDepth", "depth", cx);
        let max_children = node_stat(data, "maxChildren", "numChildren", cx);
        self.data.by_frame.entry(frame).or_default().push(DomStatsEvent {
            event: index,
            ts: event.ts,
            dur: event.dur.unwrap_or(Micros(0.0)),
            pid: event.pid,
            total_elements,
            max_depth,
            max_children,
        });
    }

    fn finalize(self, (): (), _cx: &mut Context) -> DomStats {
        self.data
    }
}

impl DomStats {
    /// This data in the data conformance dump.
    pub fn dump(&self, _dump: &mut Dump<'_>) -> Value {
        let by_frame = self
            .by_frame
            .iter()
            .map(|(frame, events)| {
                (
                    Value::opt(*frame, Value::Sym),
                    Value::events(events.iter().map(|e| e.event)),
                )
            })
            .collect();
        Object::new().with("domStatsByFrameId", Value::Map(by_frame)).into()
    }
}
