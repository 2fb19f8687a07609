//! The metrics of each navigation of the main frame: what `tracekit
//! metrics` prints, `Trace.metrics()` returns and the `navigations` table
//! holds. FCP, LCP, DCL and load as DevTools scores them (PageLoadMetrics);
//! the LCP's image and its request (LargestImagePaint); CLS as the worst
//! cluster of layout shifts after the navigation (LayoutShifts); INP as
//! the longest interaction of the navigation (UserInteractions).

use tracekit_engine::handlers::page::metrics::{MetricName, MetricScore};
use tracekit_engine::handlers::timeline::layout_shifts::ClusterNavigation;
use tracekit_engine::{Analysis, HandlerData, Micros, Millis, Strings, Sym};

use super::PageError;

/// One metric of a navigation: its value and how DevTools rates it.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Metric {
    /// The time from the navigation (for TBT: the blocking time).
    pub value: Millis,
    /// `good`, `ok`, `bad` or `unclassified` (FP, DCL, load).
    pub rating: &'static str,
}

/// One navigation of the main frame and its metrics.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct NavigationRow {
    /// Its navigation id.
    pub navigation_id: Option<String>,
    /// The URL it showed (after redirects and history changes).
    pub url: Option<String>,
    /// The frame navigated.
    pub frame: Option<String>,
    /// When it started, in ms from the start of the trace.
    pub start: Millis,
    /// First paint.
    pub fp: Option<Metric>,
    /// First contentful paint.
    pub fcp: Option<Metric>,
    /// Largest contentful paint.
    pub lcp: Option<Metric>,
    /// The image the LCP painted (its URL), if an image.
    pub lcp_image: Option<String>,
    /// The DOM node the LCP painted.
    pub lcp_node: Option<f64>,
    /// DOMContentLoaded.
    pub dcl: Option<Metric>,
    /// The load event.
    pub load: Option<Metric>,
    /// Total blocking time (when the trace has it: Lighthouse's traces).
    pub tbt: Option<Metric>,
    /// The score of the worst cluster of layout shifts after it (CLS).
    pub cls: Option<f64>,
    /// When that cluster started, ms from the start of the trace, and how
    /// many shifts it has.
    pub cls_cluster: Option<(Millis, usize)>,
    /// The longest interaction (INP): its duration in ms.
    pub inp: Option<Millis>,
    /// The INP's interaction: its type (`pointerdown`, `keydown`, ...),
    /// when it started (ms from the start of the trace), and its input
    /// delay, processing and presentation delay (ms).
    pub inp_interaction: Option<InteractionFacts>,
}

/// What an interaction is made of.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct InteractionFacts {
    /// The event type (`click`, `pointerdown`, `keydown`, ...).
    pub kind: String,
    /// When it started, ms from the start of the trace.
    pub start: Millis,
    /// From the input to its handlers.
    pub input_delay: Millis,
    /// The handlers.
    pub processing: Millis,
    /// From the handlers to the next frame.
    pub presentation_delay: Millis,
}

/// The main frame's navigations, in time order, with their metrics. A
/// trace without navigations gives none (the caller says so).
pub fn navigations(analysis: &Analysis) -> Result<Vec<NavigationRow>, PageError> {
    let data = super::handlers(analysis)?;
    let strings = analysis.strings();
    let text = |s: Option<Sym>| s.map(|s| strings.resolve(s).to_owned());
    let origin = analysis.bounds().min;
    let meta = data.meta();
    let metrics = data.page_load_metrics();
    let mut navigations: Vec<_> = meta.navigations.main_frame.iter().collect();
    navigations.sort_by(|a, b| a.ts.0.total_cmp(&b.ts.0));
    let rows = navigations
        .into_iter()
        .map(|nav| {
            let scores = metrics
                .metric_scores_by_frame
                .get(&nav.frame)
                .and_then(|by_nav| by_nav.get(&nav.event));
            let metric = |name: MetricName| scores.and_then(|s| s.get(&name)).map(as_metric);
            let lcp_image = data
                .largest_image_paint()
                .lcp_images
                .iter()
                .find(|i| i.navigation_id == nav.navigation_id)
                .map(|i| strings.resolve(i.url).to_owned());
            let lcp_node = scores
                .and_then(|s| s.get(&MetricName::LargestContentfulPaint))
                .and_then(|s| match s.event {
                    tracekit_engine::handlers::page::metrics::PageLoadEvent::Input(e) => metrics.lcp_candidates.get(&e),
                    _ => None,
                })
                .and_then(|c| c.node_id.as_f64());
            let (cls, cls_cluster) = worst_cluster(data, nav.navigation_id, origin);
            let (inp, inp_interaction) = longest_interaction(data, strings, nav.navigation_id, origin);
            let url = meta
                .navigations
                .final_display_url
                .get(&nav.navigation_id)
                .copied()
                .flatten()
                .or(nav.url);
            NavigationRow {
                navigation_id: text(nav.navigation_id),
                url: text(url),
                frame: text(nav.frame),
                start: (nav.ts - origin).to_millis(),
                fp: metric(MetricName::FirstPaint),
                fcp: metric(MetricName::FirstContentfulPaint),
                lcp: metric(MetricName::LargestContentfulPaint),
                lcp_image,
                lcp_node,
                dcl: metric(MetricName::DomContentLoaded),
                load: metric(MetricName::Load),
                tbt: metric(MetricName::TotalBlockingTime),
                cls,
                cls_cluster,
                inp,
                inp_interaction,
            }
        })
        .collect();
    Ok(rows)
}

/// DevTools' rating of a CLS score (`scoreClassificationForLayoutShift`):
/// `good` below 0.1, `ok` below 0.25, else `bad`.
pub fn cls_rating(score: f64) -> &'static str {
    use tracekit_engine::handlers::timeline::layout_shifts::{BAD, NEEDS_IMPROVEMENT};
    if score >= BAD {
        "bad"
    } else if score >= NEEDS_IMPROVEMENT {
        "ok"
    } else {
        "good"
    }
}

/// DevTools' rating of an INP (`scoreClassificationForInteractionToNextPaint`):
/// `good` up to 200 ms, `ok` up to 500 ms, else `bad`.
pub fn inp_rating(inp: Millis) -> &'static str {
    if inp.0 <= 200.0 {
        "good"
    } else if inp.0 <= 500.0 {
        "ok"
    } else {
        "bad"
    }
}

fn as_metric(score: &MetricScore) -> Metric {
    Metric {
        value: score.timing.to_millis(),
        rating: score.classification.as_str(),
    }
}

/// The worst cluster of layout shifts after the navigation `id`: its score,
/// start and shifts (no shift: a CLS of 0, no cluster).
fn worst_cluster(data: &HandlerData, id: Option<Sym>, origin: Micros) -> (Option<f64>, Option<(Millis, usize)>) {
    let worst = data
        .layout_shifts()
        .clusters
        .iter()
        .filter(|c| c.navigation == ClusterNavigation::After(id))
        .max_by(|a, b| a.cumulative_score.total_cmp(&b.cumulative_score));
    match worst {
        Some(c) => (
            Some(c.cumulative_score),
            Some(((c.ts - origin).to_millis(), c.shifts.len())),
        ),
        None => (Some(0.0), None),
    }
}

/// The longest interaction of the navigation `id` (INP).
fn longest_interaction(
    data: &HandlerData,
    strings: &Strings,
    id: Option<Sym>,
    origin: Micros,
) -> (Option<Millis>, Option<InteractionFacts>) {
    let interactions = data.user_interactions();
    let longest = interactions
        .without_nesting
        .iter()
        .map(|&i| &interactions.interactions[i])
        .filter(|i| i.navigation_id == id)
        .max_by(|a, b| a.dur.0.total_cmp(&b.dur.0));
    let Some(i) = longest else {
        return (None, None);
    };
    let facts = InteractionFacts {
        kind: strings.resolve(i.kind).to_owned(),
        start: (i.ts - origin).to_millis(),
        input_delay: i.input_delay.to_millis(),
        processing: i.main_thread_handling.to_millis(),
        presentation_delay: i.presentation_delay.to_millis(),
    };
    (Some(i.dur.to_millis()), Some(facts))
}
