//! LCP breakdown: the navigation's Largest Contentful Paint split into
//! time to first byte, then (for an image) the wait before its request and
//! the request itself, then the delay until it was drawn.

use tracekit_engine::handlers::page::args::ArgKey;
use tracekit_engine::handlers::page::metrics::{MetricName, MetricScore, PageLoadEvent};
use tracekit_engine::handlers::page::{JsValue, NetworkRequest};
use tracekit_engine::support::dump::{Object, Value};
use tracekit_engine::support::json::{as_f64, member};
use tracekit_engine::support::EventIndex;
use tracekit_engine::Micros;

use crate::model::{Category, EventRef, Finding, Insight, InsightWarning, RelatedEvents, State, Ui};
use crate::sets::Context;

/// DevTools' words for the insight.
pub static UI: Ui = Ui {
    key: "LCPBreakdown",
    title: "LCP breakdown",
    description: "Each [subpart has specific improvement strategies](https://developer.chrome.com/docs/performance/insights/lcp-breakdown). Ideally, most of the LCP time should be spent on loading the resources, not within delays.",
    docs: "https://developer.chrome.com/docs/performance/insights/lcp-breakdown",
    category: Category::Lcp,
    strings: &[
        ("title", "LCP breakdown"),
        ("description", "Each [subpart has specific improvement strategies](https://developer.chrome.com/docs/performance/insights/lcp-breakdown). Ideally, most of the LCP time should be spent on loading the resources, not within delays."),
        ("timeToFirstByte", "Time to first byte"),
        ("resourceLoadDelay", "Resource load delay"),
        ("resourceLoadDuration", "Resource load duration"),
        ("elementRenderDelay", "Element render delay"),
        ("subpart", "Subpart"),
        ("duration", "Duration"),
        ("fieldDuration", "Field p75"),
        ("noLcp", "No LCP detected"),
    ],
};

/// One subpart: a span of the trace.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Subpart {
    /// Its start.
    pub min: Micros,
    /// Its end.
    pub max: Micros,
}

impl Subpart {
    fn range(self) -> f64 {
        self.max.0 - self.min.0
    }
}

/// The LCP's subparts: two for text, four for an image.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Subparts {
    /// From the navigation to the document's first byte.
    pub ttfb: Subpart,
    /// From the first byte to the image's request (images only).
    pub load_delay: Option<Subpart>,
    /// The image's request (images only).
    pub load_duration: Option<Subpart>,
    /// From the first byte (text) or the image's arrival to the paint.
    pub render_delay: Subpart,
}

/// The navigation's LCP.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lcp {
    /// Its candidate event.
    pub event: EventIndex,
    /// The time from the navigation, in ms.
    pub ms: f64,
    /// When it was painted, in ms (`None` at time 0).
    pub ts_ms: Option<f64>,
    /// The image's request, by index in the network requests.
    pub request: Option<usize>,
    /// The subparts: `None` without a document request, `Some(None)` when
    /// they cannot be told.
    pub subparts: Option<Option<Subparts>>,
}

/// What the insight found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LcpBreakdown {
    /// The LCP, when the navigation has one.
    pub lcp: Option<Lcp>,
}

/// The navigation's LCP score, `Ok(None)` when it has none; an error when
/// the navigation has no page load metrics at all (as DevTools throws).
pub(crate) fn lcp_score(cx: &Context<'_>, navigation: EventIndex) -> Result<Option<(EventIndex, MetricScore)>, String> {
    let metrics = cx.data.page_load_metrics();
    let frame = metrics
        .metric_scores_by_frame
        .get(&cx.frame_id)
        .ok_or("no frame metrics")?;
    let scores = frame.get(&navigation).ok_or("no navigation metrics")?;
    Ok(match scores.get(&MetricName::LargestContentfulPaint) {
        Some(
            score @ MetricScore {
                event: PageLoadEvent::Input(event),
                ..
            },
        ) => Some((*event, *score)),
        _ => None,
    })
}

/// The navigation's document request, by index in the network requests
/// (the request whose id is the navigation's).
pub(crate) fn document_request(cx: &Context<'_>) -> Option<usize> {
    let id = cx.navigation?.navigation_id?;
    let key = ArgKey {
        text: id,
        is_number: false,
    };
    cx.data.network_requests().by_id.get(&key).map(|&i| i as usize)
}

/// When the document's first byte arrived (its own start for a `file:`
/// document); `None` without a response timing.
pub(crate) fn document_first_byte(cx: &Context<'_>, doc: &NetworkRequest) -> Option<f64> {
    let strings = cx.analysis.strings();
    if matches!(doc.protocol, JsValue::Str(p) if strings.resolve(p) == "file") {
        return Some(doc.ts.0);
    }
    let JsValue::Raw(timing) = &doc.timing else {
        return None;
    };
    let number = |key: &str| {
        member(timing, key)
            .filter(|v| v.trim() != "null")
            .map(|v| as_f64(v).unwrap_or(f64::NAN))
    };
    let request_time = number("requestTime").unwrap_or(f64::NAN);
    let headers = number("receiveHeadersStart")
        .or_else(|| number("receiveHeadersEnd"))
        .unwrap_or(f64::NAN);
    Some(request_time * 1000.0 * 1000.0 + headers * 1000.0)
}

/// Computes the insight.
pub fn generate(cx: &Context<'_>) -> Result<Insight, String> {
    let Some(navigation) = cx.navigation else {
        return Ok(finish(LcpBreakdown::default(), Vec::new()));
    };
    let Some((event, score)) = lcp_score(cx, navigation.event)? else {
        return Ok(finish(LcpBreakdown::default(), vec![InsightWarning::NoLcp]));
    };
    let metrics = cx.data.page_load_metrics();
    // The candidate's time (every LCP is a kept candidate; the sum is a
    // fallback).
    let candidate = metrics.lcp_candidates.get(&event);
    let ts = candidate.map_or(navigation.ts.0 + score.timing.0, |c| c.ts.0);
    let request = cx
        .data
        .largest_image_paint()
        .lcp_request_by_navigation
        .get(&navigation.navigation_id)
        .copied();
    let mut lcp = Lcp {
        event,
        ms: score.timing.0 / 1000.0,
        ts_ms: Some(ts).filter(|&t| t != 0.0 && !t.is_nan()).map(|t| t / 1000.0),
        request,
        subparts: None,
    };
    let Some(doc) = document_request(cx) else {
        let found = LcpBreakdown { lcp: Some(lcp) };
        return Ok(finish(found, vec![InsightWarning::NoDocumentRequest]));
    };
    let requests = &cx.data.network_requests().requests;
    let lcp_ts = ts;
    lcp.subparts = Some(subparts(
        cx,
        navigation.ts.0,
        &requests[doc],
        lcp_ts,
        request.map(|r| &requests[r]),
    ));
    Ok(finish(LcpBreakdown { lcp: Some(lcp) }, Vec::new()))
}

fn subparts(
    cx: &Context<'_>,
    start: f64,
    doc: &NetworkRequest,
    lcp_ts: f64,
    request: Option<&NetworkRequest>,
) -> Option<Subparts> {
    let first_byte = document_first_byte(cx, doc)?;
    let span = |min: f64, max: f64| Subpart {
        min: Micros(min),
        max: Micros(max),
    };
    let ttfb = span(start, first_byte);
    let parts = match request {
        None => Subparts {
            ttfb,
            load_delay: None,
            load_duration: None,
            render_delay: span(first_byte, lcp_ts),
        },
        Some(image) => {
            let (begin, end) = (image.ts.0, image.timings.finish_time.0);
            Subparts {
                ttfb,
                load_delay: Some(span(first_byte, begin)),
                load_duration: Some(span(begin, end)),
                render_delay: span(end, lcp_ts),
            }
        }
    };
    let all = [
        Some(parts.ttfb),
        parts.load_delay,
        parts.load_duration,
        Some(parts.render_delay),
    ];
    (!all.iter().flatten().any(|p| p.range().is_nan())).then_some(parts)
}

fn finish(found: LcpBreakdown, warnings: Vec<InsightWarning>) -> Insight {
    let state = match &found.lcp {
        None => State::Pass,
        // Good up to 2.5 s (NaN is bad).
        Some(lcp) if lcp.ms * 1000.0 <= 2_500_000.0 => State::Informative,
        Some(_) => State::Fail,
    };
    let mut related = Vec::new();
    if let Some(lcp) = &found.lcp {
        related.push(EventRef::Input(lcp.event));
        related.extend(lcp.request.map(EventRef::Request));
    }
    let mut insight = Insight::new(state, Finding::LcpBreakdown(found));
    insight.warnings = warnings;
    insight.related_events = Some(RelatedEvents::List(related));
    insight
}

impl LcpBreakdown {
    /// What it found, in words: the LCP, then its subparts.
    pub(crate) fn summary(&self, cx: &crate::TextCx<'_>) -> Vec<String> {
        let Some(lcp) = &self.lcp else {
            return vec![UI.string("noLcp").to_owned()];
        };
        let mut lines = vec![match lcp.ts_ms {
            Some(ts) => format!(
                "LCP {}, painted at {}",
                crate::text::ms(lcp.ms),
                cx.at(tracekit_engine::Micros(ts * 1000.0))
            ),
            None => format!("LCP {}", crate::text::ms(lcp.ms)),
        }];
        if let Some(r) = lcp.request {
            lines.push(format!("LCP image: {}", cx.event(EventRef::Request(r))));
        }
        if let Some(Some(parts)) = lcp.subparts {
            let parts = [
                ("timeToFirstByte", Some(parts.ttfb)),
                ("resourceLoadDelay", parts.load_delay),
                ("resourceLoadDuration", parts.load_duration),
                ("elementRenderDelay", Some(parts.render_delay)),
            ];
            let told: Vec<String> = parts
                .iter()
                .filter_map(|(name, p)| {
                    p.map(|p| format!("{} {}", UI.string(name), crate::text::ms(p.range() / 1000.0)))
                })
                .collect();
            lines.push(told.join(", "));
        }
        lines
    }

    /// Its members of the insight's model.
    pub(crate) fn dump(&self, model: &mut Object, cx: &mut crate::DumpCx<'_, '_>) {
        let Some(lcp) = &self.lcp else {
            return;
        };
        // DevTools' model has these members even when undefined (null).
        model.push("lcpMs", Value::Num(lcp.ms));
        model.push("lcpTs", Value::opt(lcp.ts_ms, Value::Num));
        model.push("lcpEvent", Value::Event(lcp.event));
        let request = lcp.request.map(|r| cx.event(EventRef::Request(r)));
        model.push("lcpRequest", request.unwrap_or(Value::Null));
        if let Some(subparts) = lcp.subparts {
            model.push("subparts", Value::opt(subparts, subparts_value));
        }
    }
}

fn subparts_value(parts: Subparts) -> Value {
    let part = |p: Subpart, label: &'static str| {
        Object::new()
            .with("min", Value::Num(p.min.0))
            .with("max", Value::Num(p.max.0))
            .with("range", Value::Num(p.range()))
            .with("label", Value::str(label))
            .into()
    };
    let mut value = Object::new().with("ttfb", part(parts.ttfb, "Time to first byte"));
    if let Some(p) = parts.load_delay {
        value.push("loadDelay", part(p, "Resource load delay"));
    }
    if let Some(p) = parts.load_duration {
        value.push("loadDuration", part(p, "Resource load duration"));
    }
    value
        .with("renderDelay", part(parts.render_delay, "Element render delay"))
        .into()
}

#[cfg(test)]
#[path = "lcp_breakdown_tests.rs"]
mod tests;
