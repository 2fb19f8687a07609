//! A set's lab metrics as DevTools' AI texts read them from its insights:
//! the LCP of the LCP breakdown, the longest interaction of the INP
//! breakdown, the worst layout shift cluster of the CLS culprits.

use tracekit_engine::support::jsnum::js_number_string;
use tracekit_engine::support::EventIndex;
use tracekit_engine::HandlerData;
use tracekit_insights::lcp_breakdown::Subparts;
use tracekit_insights::{Finding, InsightSet};

/// The Largest Contentful Paint of a set.
#[derive(Debug, Clone)]
pub struct LcpMetric {
    /// Its time from the navigation, ms.
    pub ms: f64,
    /// Its candidate event.
    pub event: EventIndex,
    /// That event's time, µs.
    pub ts: f64,
    /// The DOM node painted, as its event's args write it.
    pub node_id: Option<String>,
    /// Its breakdown, when the document request is known.
    pub subparts: Option<Subparts>,
}

/// The longest interaction of a set.
#[derive(Debug, Clone, Copy)]
pub struct InpMetric {
    /// Its duration, µs.
    pub dur: f64,
    /// The input event it stands on.
    pub begin: EventIndex,
    /// Its start, µs.
    pub ts: f64,
}

/// The metrics of one set.
#[derive(Debug, Clone, Default)]
pub struct SetMetrics {
    /// LCP, when the set has one.
    pub lcp: Option<LcpMetric>,
    /// INP, when the set has an interaction with a duration.
    pub inp: Option<InpMetric>,
    /// The worst cluster's score (0 without one).
    pub cls_score: f64,
    /// The worst cluster: the input event it stands on, its start.
    pub cls_event: Option<(EventIndex, f64)>,
}

/// The metrics of `set`.
pub fn set_metrics(set: &InsightSet, data: &HandlerData, strings: &tracekit_engine::Strings) -> SetMetrics {
    let mut out = SetMetrics::default();
    for insight in set.computed() {
        match &insight.finding {
            Finding::LcpBreakdown(f) => {
                let Some(lcp) = f.lcp.as_ref().filter(|l| l.ms != 0.0 && !l.ms.is_nan()) else {
                    continue;
                };
                let candidate = data.page_load_metrics().lcp_candidates.get(&lcp.event);
                let ts = candidate.map_or(lcp.ts_ms.unwrap_or(0.0) * 1000.0, |c| c.ts.0);
                let node_id = candidate.map(|c| c.node_id).and_then(|id| {
                    if let Some(x) = id.as_f64() {
                        Some(js_number_string(x))
                    } else {
                        id.as_sym().map(|s| strings.resolve(s).to_owned())
                    }
                });
                out.lcp = Some(LcpMetric {
                    ms: lcp.ms,
                    event: lcp.event,
                    ts,
                    node_id,
                    subparts: lcp.subparts.flatten(),
                });
            }
            Finding::InpBreakdown(f) => {
                let interactions = &data.user_interactions().interactions;
                let Some(i) = f.longest.and_then(|i| interactions.get(i)) else {
                    continue;
                };
                if i.dur.0 != 0.0 && !i.dur.0.is_nan() {
                    out.inp = Some(InpMetric {
                        dur: i.dur.0,
                        begin: i.begin,
                        ts: i.ts.0,
                    });
                }
            }
            Finding::ClsCulprits(f) => {
                let clusters = &data.layout_shifts().clusters;
                for c in f.clusters.iter().filter_map(|&c| clusters.get(c)) {
                    if c.cumulative_score > out.cls_score {
                        out.cls_score = c.cumulative_score;
                        out.cls_event = Some((c.source, c.ts.0));
                    }
                }
            }
            _ => {}
        }
    }
    out
}
