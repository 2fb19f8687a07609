//! DOM size: the long layouts and style recalculations of the page's main
//! thread that updated many objects or elements (a big DOM makes them
//! slow), the five longest of them, and the frame's largest DOM statistics.

use tracekit_engine::support::dump::{Object, Value};
use tracekit_engine::support::jsnum::js_number_string;
use tracekit_engine::support::EventIndex;
use tracekit_engine::{DomUpdate, DomUpdateKind, Id};

use crate::model::{Category, EventRef, Finding, Insight, RelatedEvents, State, Ui};
use crate::sets::Context;

/// DevTools' words for the insight.
pub static UI: Ui = Ui {
    key: "DOMSize",
    title: "Optimize DOM size",
    description: "A large DOM can increase the duration of style calculations and layout reflows, impacting page responsiveness. A large DOM will also increase memory usage. [Learn how to avoid an excessive DOM size](https://developer.chrome.com/docs/performance/insights/dom-size).",
    docs: "https://developer.chrome.com/docs/performance/insights/dom-size",
    category: Category::Inp,
    strings: &[
        ("title", "Optimize DOM size"),
        ("description", "A large DOM can increase the duration of style calculations and layout reflows, impacting page responsiveness. A large DOM will also increase memory usage. [Learn how to avoid an excessive DOM size](https://developer.chrome.com/docs/performance/insights/dom-size)."),
        ("statistic", "Statistic"),
        ("value", "Value"),
        ("element", "Element"),
        ("totalElements", "Total elements"),
        ("maxDOMDepth", "DOM depth"),
        ("maxChildren", "Most children"),
        ("topUpdatesDescription", "These are the largest layout and style recalculation events. Their performance impact may be reduced by making the DOM simpler."),
        ("duration", "Duration"),
        ("largeLayout", "Layout ({PH1} objects)"),
        ("largeStyleRecalc", "Style recalculation ({PH1} elements)"),
    ],
};

/// An update shorter than this is not counted: 40 ms.
const DURATION_THRESHOLD_US: f64 = 40_000.0;
/// A layout of more dirty objects than this is large (DevTools chose the
/// thresholds to separate updates over 40 ms from the shorter ones).
const LAYOUT_OBJECTS_THRESHOLD: f64 = 100.0;
/// A style recalculation of more elements than this is large.
const STYLE_RECALC_ELEMENTS_THRESHOLD: f64 = 300.0;
/// How many of the largest updates are listed.
const TOP_UPDATES: usize = 5;

/// What the insight found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DomSize {
    /// The large layouts, by thread then input order.
    pub large_layout_updates: Vec<DomUpdate>,
    /// The large style recalculations, likewise.
    pub large_style_recalcs: Vec<DomUpdate>,
    /// The five longest of both, longest first (layouts before
    /// recalculations when as long).
    pub large_updates: Vec<DomUpdate>,
    /// The frame's `DOMStats` event with the most elements.
    pub max_dom_stats: Option<EventIndex>,
}

/// Computes the insight.
pub fn generate(cx: &Context<'_>) -> Result<Insight, String> {
    let main_tid = cx.navigation.map(|n| n.tid).filter(|t| !t.is_missing());
    let mut finding = DomSize::default();
    for process in cx.analysis.process_tracks().values() {
        if !process.kept_by_devtools {
            continue;
        }
        for (tid, thread) in &process.threads {
            if thread.name.as_deref() != Some("CrRendererMain") {
                continue;
            }
            // Without a navigation, the main threads of the main frame's
            // processes; with one, those of its thread id (in any process).
            match main_tid {
                None if !process.is_on_main_frame => continue,
                Some(main) if *tid != main => continue,
                _ => {}
            }
            let (Some(first), Some(last)) = (thread.nodes.first(), thread.nodes.last()) else {
                continue;
            };
            let end = last.ts().0 + last.dur().map_or(0.0, |d| d.0);
            if cx.bounds.min.0 > end || cx.bounds.max.0 < first.ts().0 {
                continue;
            }
            let large = |u: &&DomUpdate, kind: DomUpdateKind, threshold: f64| {
                u.kind == kind
                    && !u.dur.is_some_and(|d| d.0 < DURATION_THRESHOLD_US)
                    && cx.overlaps(u.ts, u.dur.unwrap_or_default())
                    && u.size.is_some_and(|s| s > threshold)
            };
            let updates = &thread.dom_updates;
            let layouts = updates
                .iter()
                .filter(|u| large(u, DomUpdateKind::Layout, LAYOUT_OBJECTS_THRESHOLD));
            finding.large_layout_updates.extend(layouts);
            let recalcs = updates
                .iter()
                .filter(|u| large(u, DomUpdateKind::RecalcStyle, STYLE_RECALC_ELEMENTS_THRESHOLD));
            finding.large_style_recalcs.extend(recalcs);
        }
    }
    let mut top: Vec<DomUpdate> = finding
        .large_layout_updates
        .iter()
        .chain(&finding.large_style_recalcs)
        .copied()
        .collect();
    // A stable sort, longest first; an update without a duration compares
    // as long as any.
    top.sort_by(|a, b| {
        let (a, b) = (a.dur.map_or(f64::NAN, |d| d.0), b.dur.map_or(f64::NAN, |d| d.0));
        b.partial_cmp(&a).unwrap_or(std::cmp::Ordering::Equal)
    });
    top.truncate(TOP_UPDATES);
    finding.large_updates = top;
    finding.max_dom_stats = max_dom_stats(cx);
    let related: Vec<EventRef> = finding
        .large_layout_updates
        .iter()
        .chain(&finding.large_style_recalcs)
        .map(|u| EventRef::Input(u.event))
        .collect();
    let state = if related.is_empty() {
        State::Pass
    } else {
        State::Informative
    };
    let mut insight = Insight::new(state, Finding::DomSize(finding));
    insight.related_events = Some(RelatedEvents::List(related));
    Ok(insight)
}

/// The set's `DOMStats` event of its frame with the most elements (the
/// first of those as large); with a navigation, of its process only, as
/// the page before a cross-origin navigation may share the frame's id.
fn max_dom_stats(cx: &Context<'_>) -> Option<EventIndex> {
    let stats = cx.data.dom_stats().by_frame.get(&cx.frame_id)?;
    let pid = cx.navigation.map(|n| n.pid).filter(|&p| id_is_truthy(p, cx));
    let mut max: Option<&tracekit_engine::handlers::system::DomStatsEvent> = None;
    for s in stats {
        if !cx.overlaps(s.ts, s.dur) || pid.is_some_and(|p| s.pid != p) {
            continue;
        }
        if max.is_none_or(|m| s.total_elements > m.total_elements) {
            max = Some(s);
        }
    }
    max.map(|m| m.event)
}

/// Whether an id is truthy in JavaScript (not 0, NaN, `""` or absent).
fn id_is_truthy(id: Id, cx: &Context<'_>) -> bool {
    if let Some(x) = id.as_f64() {
        return x != 0.0 && !x.is_nan();
    }
    id.as_sym()
        .is_some_and(|s| !cx.analysis.strings().resolve(s).is_empty())
}

impl DomSize {
    /// Its members of the insight's model.
    pub(crate) fn dump(&self, model: &mut Object) {
        let events = |list: &[DomUpdate]| Value::Array(list.iter().map(|u| Value::Event(u.event)).collect());
        model.push("largeLayoutUpdates", events(&self.large_layout_updates));
        model.push("largeStyleRecalcs", events(&self.large_style_recalcs));
        let updates = self.large_updates.iter().map(|u| {
            let size = u.size.unwrap_or(f64::NAN);
            let label = match u.kind {
                DomUpdateKind::Layout => format!("Layout ({} objects)", js_number_string(size)),
                DomUpdateKind::RecalcStyle => format!("Style recalculation ({} elements)", js_number_string(size)),
            };
            let duration = u.dur.map_or(Value::Num(f64::NAN), |d| Value::Num(d.0 / 1000.0));
            Object::new()
                .with("label", Value::str(label))
                .with("duration", duration)
                .with("size", Value::Num(size))
                .with("event", Value::Event(u.event))
                .into()
        });
        model.push("largeUpdates", Value::Array(updates.collect()));
        model.push("maxDOMStats", Value::opt(self.max_dom_stats, Value::Event));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_trace::{navigation_set, sets, trace, FIRST_ADDED};

    fn layout(ts: u32, dur: u32, objects: u32) -> String {
        format!(
            r#"{{"name":"Layout","ph":"X","pid":2,"tid":3,"ts":{ts},"dur":{dur},"args":{{"beginData":{{"dirtyObjects":{objects},"frame":"F1"}},"endData":{{}}}}}}"#
        )
    }

    fn recalc(ts: u32, dur: u32, elements: u32) -> String {
        format!(
            r#"{{"name":"UpdateLayoutTree","ph":"X","pid":2,"tid":3,"ts":{ts},"dur":{dur},"args":{{"elementCount":{elements}}}}}"#
        )
    }

    fn dom_stats(ts: u32, pid: u32, total: u32) -> String {
        format!(
            r#"{{"name":"DOMStats","ph":"I","s":"t","pid":{pid},"tid":3,"ts":{ts},"args":{{"data":{{"frame":"F1","totalElements":{total},"maxDepth":{{}},"maxChildren":{{}}}}}}}}"#
        )
    }

    fn dom_size(events: &[String]) -> (Insight, DomSize) {
        let sets = sets(&trace(&events.join(",")));
        let set = navigation_set(&sets);
        let insight = set
            .computed()
            .find(|i| i.ui().key == "DOMSize")
            .expect("a DOMSize insight");
        match &insight.finding {
            Finding::DomSize(f) => (insight.clone(), f.clone()),
            other => panic!("not a DOMSize finding: {other:?}"),
        }
    }

    #[test]
    fn long_updates_of_many_nodes_are_large_and_the_longest_listed_first() {
        let (insight, f) = dom_size(&[
            layout(100_000, 50_000, 500),
            // Too short, and too few objects.
            layout(200_000, 30_000, 5000),
            layout(300_000, 90_000, 80),
            recalc(400_000, 60_000, 1000),
            recalc(500_000, 60_000, 200),
        ]);
        assert_eq!(insight.state, State::Informative);
        let events = |list: &[DomUpdate]| list.iter().map(|u| u.event).collect::<Vec<_>>();
        assert_eq!(f.large_layout_updates.len(), 1);
        assert_eq!(f.large_style_recalcs.len(), 1);
        let (layout, recalc) = (f.large_layout_updates[0].event, f.large_style_recalcs[0].event);
        assert_eq!(events(&f.large_updates), vec![recalc, layout]);
        assert_eq!(
            insight.related_events,
            Some(RelatedEvents::List(vec![
                EventRef::Input(layout),
                EventRef::Input(recalc)
            ]))
        );
    }

    #[test]
    fn small_updates_pass_and_the_largest_dom_stats_of_the_navigation_process_are_kept() {
        let (insight, f) = dom_size(&[
            layout(100_000, 10_000, 500),
            dom_stats(150_000, 2, 10),
            dom_stats(160_000, 2, 30),
            // Another process (the page before a cross-origin navigation).
            dom_stats(170_000, 9, 99),
            dom_stats(180_000, 2, 20),
        ]);
        assert_eq!(insight.state, State::Pass);
        assert!(f.large_updates.is_empty());
        // The events added come after the trace's own: the layout, then
        // the statistics; the second one has the most elements of process 2.
        assert_eq!(f.max_dom_stats, Some(FIRST_ADDED + 2));
    }
}
