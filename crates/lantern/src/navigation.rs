//! What Lantern's metrics need to know of a navigation as it happened: when
//! its first and largest contentful paints were (from the PageLoadMetrics
//! handler's scores), and whether the largest was of text.

use tracekit_engine::handlers::meta::Navigation;
use tracekit_engine::handlers::page::metrics::{MetricName, PageLoadEvent};
use tracekit_engine::HandlerData;

use crate::LanternError;

/// A navigation's paints, as Lantern's metrics read them. Times are trace
/// timestamps, in microseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProcessedNavigation {
    /// When its first contentful paint was.
    pub first_contentful_paint: f64,
    /// When its largest contentful paint was, if it had one.
    pub largest_contentful_paint: Option<f64>,
    /// Its largest contentful paint was of text.
    pub largest_contentful_paint_is_text: bool,
}

/// The paints of `navigation` (of the main frame), or DevTools' error: no
/// scores for its frame or for it, or no first contentful paint.
pub fn processed_navigation(data: &HandlerData, navigation: &Navigation) -> Result<ProcessedNavigation, LanternError> {
    let metrics = data.page_load_metrics();
    let by_navigation = metrics
        .metric_scores_by_frame
        .get(&navigation.frame)
        .ok_or_else(|| LanternError::new("missing metric scores for frame"))?;
    let scores = by_navigation
        .get(&navigation.event)
        .ok_or_else(|| LanternError::new("missing metric scores for specified navigation"))?;
    // A score's event's time, and whether it is an LCP candidate of text.
    let time_of = |name: MetricName| {
        let score = scores.get(&name)?;
        let text = match score.event {
            PageLoadEvent::Input(e) => metrics.lcp_candidates.get(&e).is_some_and(|c| c.text),
            PageLoadEvent::SoftFirstContentfulPaint(_) => false,
        };
        Some((score.ts.0, text))
    };
    let fcp = time_of(MetricName::FirstContentfulPaint).ok_or_else(|| LanternError::new("missing metric: FCP"))?;
    let lcp = time_of(MetricName::LargestContentfulPaint);
    Ok(ProcessedNavigation {
        first_contentful_paint: fcp.0,
        largest_contentful_paint: lcp.map(|l| l.0),
        largest_contentful_paint_is_text: lcp.is_some_and(|l| l.1),
    })
}
