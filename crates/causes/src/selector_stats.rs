//! The SelectorStats handler (DevTools' `SelectorStatsHandler`): what CSS
//! selector matching cost in each style recalculation, and which selectors
//! invalidated which DOM nodes. With the
//! `disabled-by-default-blink.debug` category, Chrome writes a
//! `SelectorStats` event after an `UpdateLayoutTree` with the time and
//! counts of each selector; with invalidation tracking, a
//! `StyleInvalidatorInvalidationTracking` event names the selectors that
//! invalidated a node, and a `StyleRecalcInvalidationTracking` right
//! after it says whether the node's whole subtree was invalidated.
//!
//! As in DevTools, the events are taken in input order whatever their
//! thread: a `SelectorStats` belongs to the last `UpdateLayoutTree` before
//! it (whose time and frame are kept with it, for the selector costs of an
//! insight set), and an invalidation's subtree flag to the last invalidated
//! node.

use tracekit_events::dump::{Dump, Object, Value};
use tracekit_events::json::{as_f64, as_str, js_truthy, member, member_path, object_members};
use tracekit_events::{names, Context, Event, EventIndex, Handler, Interner, Micros, Skip, Sym, Wants};

use crate::Map;

/// The matching cost of one selector in one style recalculation (DevTools'
/// `SelectorTiming`); each field is `None` when the event left it out.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectorTiming {
    /// The selector's text.
    pub selector: Option<Sym>,
    /// The style sheet it comes from.
    pub style_sheet_id: Option<Sym>,
    /// The time spent matching it, in microseconds (`elapsed (us)`).
    pub elapsed: Option<f64>,
    /// How many elements it was tried on.
    pub match_attempts: Option<f64>,
    /// How many it matched.
    pub match_count: Option<f64>,
    /// How many attempts the Bloom filter rejected early.
    pub fast_reject_count: Option<f64>,
    /// How many invalidations it caused.
    pub invalidation_count: Option<f64>,
}

/// A selector that invalidated a node, with its style sheet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InvalidatingSelector {
    /// The selector's text (`None`: the event gave none).
    pub selector: Option<Sym>,
    /// Its style sheet's id.
    pub style_sheet_id: Option<Sym>,
}

/// A DOM node invalidated by selectors (DevTools' `InvalidatedNode`).
#[derive(Debug, Clone, PartialEq)]
pub struct InvalidatedNode {
    /// Its frame.
    pub frame: Option<Sym>,
    /// Its backend node id.
    pub backend_node_id: Option<f64>,
    /// The selectors that invalidated it (never empty).
    pub selectors: Vec<InvalidatingSelector>,
    /// When its `StyleInvalidatorInvalidationTracking` happened.
    pub ts: Micros,
    /// That event's thread time, when it has one.
    pub tts: Option<Micros>,
    /// Whether the invalidation reached its whole subtree, not only the
    /// node.
    pub subtree: bool,
    /// When the last `UpdateLayoutTree` before it started (0 without one).
    pub last_recalc_style_ts: Micros,
}

/// A style recalculation that a `SelectorStats` event followed: when it
/// happened, in which frame, and what matching its selectors cost.
#[derive(Debug, Clone, PartialEq)]
pub struct RecalcStyleStats {
    /// When the `UpdateLayoutTree` started.
    pub ts: Micros,
    /// How long it lasted (zero when it says none).
    pub dur: Micros,
    /// Its `args.beginData.frame` (`None`: not a string).
    pub frame: Option<Sym>,
    /// The last `SelectorStats` event's timings; `None` when that event
    /// had no `selector_timings`.
    pub timings: Option<Vec<SelectorTiming>>,
}

/// What the SelectorStats handler found.
#[derive(Debug, Clone, Default)]
pub struct SelectorStats {
    /// The selector timings of each `UpdateLayoutTree` that a
    /// `SelectorStats` event followed (the last one's), in the order of
    /// their first.
    pub by_recalc_style: Map<EventIndex, RecalcStyleStats>,
    /// The nodes invalidated by selectors, in input order.
    pub invalidated_nodes: Vec<InvalidatedNode>,
}

/// The SelectorStats handler (see the module documentation).
#[derive(Debug, Default)]
pub struct SelectorStatsHandler {
    data: SelectorStats,
    /// The last `UpdateLayoutTree`: its index, start, duration and frame.
    last_recalc: Option<(EventIndex, Micros, Micros, Option<Sym>)>,
    /// The last node invalidated, as an index in `invalidated_nodes`.
    last_node: Option<usize>,
}

/// The reason of a `StyleRecalcInvalidationTracking` that follows the
/// invalidation of a subtree.
const RELATED_STYLE_RULE: &str = "Related style rule";

impl Handler for SelectorStatsHandler {
    type Deps<'d> = ();
    type Data = SelectorStats;

    const WANTS: Wants = Wants::Named(&[
        names::STYLE_RECALC_INVALIDATION_TRACKING,
        names::SELECTOR_STATS,
        names::STYLE_INVALIDATOR_INVALIDATION_TRACKING,
        names::UPDATE_LAYOUT_TREE,
    ]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let data = || event.args.and_then(|a| member(a, "data")).filter(|d| *d != "null");
        if event.name == names::STYLE_RECALC_INVALIDATION_TRACKING {
            let Some(data) = data() else {
                return without_data(index, cx);
            };
            let subtree = member(data, "subtree").is_some_and(js_truthy);
            let related = member(data, "reason")
                .and_then(as_str)
                .is_some_and(|r| r == RELATED_STYLE_RULE);
            if subtree && related {
                let node_id = member(data, "nodeId").and_then(as_f64);
                if let Some(last) = self.last_node.map(|at| &mut self.data.invalidated_nodes[at]) {
                    if last.backend_node_id == node_id {
                        last.subtree = true;
                    }
                }
            }
        } else if event.name == names::SELECTOR_STATS {
            let stats = event
                .args
                .and_then(|a| member(a, "selector_stats"))
                .filter(|s| js_truthy(s));
            if let (Some((recalc, ts, dur, frame)), Some(stats)) = (self.last_recalc, stats) {
                let timings = member(stats, "selector_timings").map(|t| timings(t, &mut cx.interner));
                let stats = RecalcStyleStats {
                    ts,
                    dur,
                    frame,
                    timings,
                };
                self.data.by_recalc_style.insert(recalc, stats);
            }
        } else if event.name == names::STYLE_INVALIDATOR_INVALIDATION_TRACKING {
            let Some(data) = data() else {
                return without_data(index, cx);
            };
            self.invalidated(event, data, &mut cx.interner);
        } else if event.name == names::UPDATE_LAYOUT_TREE {
            let frame = event
                .args
                .and_then(|a| member_path(a, &["beginData", "frame"]))
                .and_then(as_str)
                .map(|f| cx.interner.intern(&f));
            let dur = event.dur.unwrap_or(Micros::ZERO);
            self.last_recalc = Some((index, event.ts, dur, frame));
        }
    }

    fn finalize(self, (): (), _cx: &mut Context) -> SelectorStats {
        self.data
    }
}

impl SelectorStatsHandler {
    /// A `StyleInvalidatorInvalidationTracking`: a node invalidated by the
    /// selectors it names (none named: no node).
    fn invalidated(&mut self, event: &Event<'_>, data: &str, interner: &mut Interner) {
        let mut sym = |raw: Option<&str>| raw.and_then(as_str).map(|s| interner.intern(&s));
        let selectors: Vec<InvalidatingSelector> = member(data, "selectors")
            .map(array_items)
            .unwrap_or_default()
            .into_iter()
            .map(|item| InvalidatingSelector {
                selector: sym(member(item, "selector")),
                style_sheet_id: sym(member(item, "style_sheet_id")),
            })
            .collect();
        if selectors.is_empty() {
            return;
        }
        self.last_node = Some(self.data.invalidated_nodes.len());
        self.data.invalidated_nodes.push(InvalidatedNode {
            frame: sym(member(data, "frame")),
            backend_node_id: member(data, "nodeId").and_then(as_f64),
            selectors,
            ts: event.ts,
            tts: member(event.text, "tts").and_then(as_f64).map(Micros),
            subtree: false,
            last_recalc_style_ts: self.last_recalc.map_or(Micros::ZERO, |(_, ts, _, _)| ts),
        });
    }
}

fn without_data(index: EventIndex, cx: &mut Context) {
    cx.diagnostics.skip(Skip::SelectorStatsWithoutData, || {
        format!("invalidation tracking event #{index} without args.data")
    });
}

/// The items of a raw JSON array (none when it is not one).
fn array_items(raw: &str) -> Vec<&str> {
    let raw = raw.trim();
    if !raw.starts_with('[') {
        return Vec::new();
    }
    let Ok(items) = serde_json::from_str::<Vec<&serde_json::value::RawValue>>(raw) else {
        return Vec::new();
    };
    items.into_iter().map(|item| item.get()).collect()
}

/// A `selector_timings` array, read into typed timings.
fn timings(raw: &str, interner: &mut Interner) -> Vec<SelectorTiming> {
    array_items(raw)
        .into_iter()
        .map(|item| {
            let mut timing = SelectorTiming {
                selector: None,
                style_sheet_id: None,
                elapsed: None,
                match_attempts: None,
                match_count: None,
                fast_reject_count: None,
                invalidation_count: None,
            };
            for (key, value) in object_members(item) {
                let mut text = || as_str(value).map(|s| interner.intern(&s));
                match &*key {
                    "selector" => timing.selector = text(),
                    "style_sheet_id" => timing.style_sheet_id = text(),
                    "elapsed (us)" => timing.elapsed = as_f64(value),
                    "match_attempts" => timing.match_attempts = as_f64(value),
                    "match_count" => timing.match_count = as_f64(value),
                    "fast_reject_count" => timing.fast_reject_count = as_f64(value),
                    "invalidation_count" => timing.invalidation_count = as_f64(value),
                    _ => {}
                }
            }
            timing
        })
        .collect()
}

impl SelectorTiming {
    /// The timing as the trace writes it, its fields by their names there
    /// (those the event left out left out): how the handler's data and the
    /// CSS selector insight dump it.
    pub fn dump(&self) -> Value {
        let num = |x: Option<f64>| x.map(Value::Num);
        Object::new()
            .with_some("selector", self.selector.map(Value::Sym))
            .with_some("style_sheet_id", self.style_sheet_id.map(Value::Sym))
            .with_some("elapsed (us)", num(self.elapsed))
            .with_some("match_attempts", num(self.match_attempts))
            .with_some("match_count", num(self.match_count))
            .with_some("fast_reject_count", num(self.fast_reject_count))
            .with_some("invalidation_count", num(self.invalidation_count))
            .into()
    }
}

impl SelectorStats {
    /// This data in the data conformance dump.
    pub fn dump(&self, _dump: &mut Dump<'_>) -> Value {
        let sym = |s: Option<Sym>| Value::opt(s, Value::Sym);
        let rows = self
            .by_recalc_style
            .iter()
            .map(|(event, stats)| {
                let list = stats.timings.as_ref().map_or(Value::Null, |list| {
                    Value::Array(list.iter().map(SelectorTiming::dump).collect())
                });
                (Value::Event(*event), Object::new().with("timings", list).into())
            })
            .collect();
        let nodes = self
            .invalidated_nodes
            .iter()
            .map(|n| {
                let selectors = n
                    .selectors
                    .iter()
                    .map(|s| {
                        Object::new()
                            .with("selector", sym(s.selector))
                            .with("styleSheetId", sym(s.style_sheet_id))
                            .into()
                    })
                    .collect();
                Object::new()
                    .with("backendNodeId", Value::opt(n.backend_node_id, Value::Num))
                    .with("frame", sym(n.frame))
                    .with("lastRecalcStyleEventTs", Value::Num(n.last_recalc_style_ts.0))
                    .with("selectorList", Value::Array(selectors))
                    .with("subtree", Value::Bool(n.subtree))
                    .with("ts", Value::Num(n.ts.0))
                    .with("tts", Value::opt(n.tts, |t| Value::Num(t.0)))
                    .with("type", Value::str("StyleInvalidatorInvalidationTracking"))
                    .into()
            })
            .collect();
        Object::new()
            .with("dataForRecalcStyleEvent", Value::Map(rows))
            .with("invalidatedNodeList", Value::Array(nodes))
            .into()
    }
}

#[cfg(test)]
mod tests;
