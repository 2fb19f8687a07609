//! Render-blocking requests: the requests of the navigation's frame that
//! blocked its first render (marked render-blocking by Chrome, finished
//! before the first paint, and belonging to this navigation), the longest
//! first.

use tracekit_engine::handlers::page::metrics::MetricName;
use tracekit_engine::handlers::page::navigations::nearest_index_from_end;
use tracekit_engine::handlers::page::{JsValue, NetworkRequest};
use tracekit_engine::support::dump::{Object, Value};
use tracekit_engine::{Micros, Strings};

use crate::model::{Category, EventRef, Finding, Insight, InsightWarning, MetricSavings, RelatedEvents, State, Ui};
use crate::sets::Context;

/// DevTools' words for the insight.
pub static UI: Ui = Ui {
    key: "RenderBlocking",
    title: "Render-blocking requests",
    description: "Requests are blocking the page\u{2019}s initial render, which may delay LCP. [Deferring or inlining](https://developer.chrome.com/docs/performance/insights/render-blocking) can move these network requests out of the critical path.",
    docs: "https://developer.chrome.com/docs/performance/insights/render-blocking",
    category: Category::Lcp,
    strings: &[
        ("description", "Requests are blocking the page\u{2019}s initial render, which may delay LCP. [Deferring or inlining](https://developer.chrome.com/docs/performance/insights/render-blocking) can move these network requests out of the critical path."),
        ("duration", "Duration"),
        ("noRenderBlocking", "No render-blocking requests for this navigation"),
        ("renderBlockingRequest", "Request"),
        ("title", "Render-blocking requests"),
    ],
};

/// Chrome's `renderBlocking` values that do not block rendering (an
/// `async` script, `potentially_blocking`, can run at any time but never
/// holds the parser).
const NOT_BLOCKING: [&str; 3] = [
    "non_blocking",
    "dynamically_injected_non_blocking",
    "potentially_blocking",
];

/// What the insight found: the render-blocking requests, longest first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RenderBlocking {
    /// The requests, by index in
    /// [`NetworkRequests::requests`](tracekit_engine::NetworkRequests).
    pub requests: Vec<usize>,
    /// With a Lantern context: each request's simulated download time, ms,
    /// by request id, those of 50 ms or more (DevTools'
    /// `requestIdToWastedMs`).
    pub wasted_ms: Option<Vec<(String, f64)>>,
}

/// Computes the insight.
pub fn generate(cx: &Context<'_>) -> Result<Insight, String> {
    let nothing = || Insight::new(State::Pass, Finding::RenderBlocking(RenderBlocking::default()));
    let (Some(navigation), Some(frame)) = (cx.navigation, cx.frame_id) else {
        return Ok(nothing());
    };
    let Some(first_paint) = first_paint(cx).filter(|ts| ts.0 != 0.0 && !ts.0.is_nan()) else {
        let mut insight = nothing();
        insight.warnings.push(InsightWarning::NoFp);
        return Ok(insight);
    };
    let strings = cx.analysis.strings();
    let frame_navigations = cx.data.meta().navigations.by_frame_id.get(&Some(frame));
    let mut requests = Vec::new();
    for (at, request) in cx.data.network_requests().requests.iter().enumerate() {
        if request.frame.as_sym() != Some(frame) || !blocks_rendering(request, strings) {
            continue;
        }
        if request.timings.finish_time.0 > first_paint.0 {
            continue;
        }
        // The navigation of the request's frame it was made during: the
        // last one started by then.
        let during = frame_navigations
            .filter(|_| frame != tracekit_engine::support::names::EMPTY)
            .and_then(|list| nearest_index_from_end(list, |n| n.ts.0 <= request.ts.0).map(|i| &list[i]));
        if during.is_some_and(|n| n.event == navigation.event) {
            requests.push(at);
        }
    }
    // Lantern reads the requests in the order of time, before the sort.
    let savings = match cx.lantern() {
        Some(lantern) => {
            let ids: Vec<&str> = requests
                .iter()
                .map(|&at| strings.resolve(cx.data.network_requests().requests[at].request_id.text))
                .collect();
            let lcp_is_image = cx
                .data
                .largest_image_paint()
                .lcp_request_by_navigation
                .contains_key(&navigation.navigation_id);
            Some(tracekit_lantern::render_blocking_savings(lantern, &ids, lcp_is_image).map_err(|e| e.to_string())?)
        }
        None => None,
    };
    let network = &cx.data.network_requests().requests;
    requests.sort_by(|&a, &b| {
        let longer = network[b].dur.0 - network[a].dur.0;
        longer.partial_cmp(&0.0).unwrap_or(std::cmp::Ordering::Equal)
    });
    let state = if requests.is_empty() { State::Pass } else { State::Fail };
    let related = requests.iter().map(|&at| EventRef::Request(at)).collect();
    let finding = RenderBlocking {
        requests,
        wasted_ms: savings.as_ref().map(|s| s.wasted_ms.clone()),
    };
    let mut insight = Insight::new(state, Finding::RenderBlocking(finding));
    insight.related_events = Some(RelatedEvents::List(related));
    insight.metric_savings = savings.map(|s| MetricSavings {
        fcp: Some(s.fcp),
        lcp: Some(s.lcp),
        ..MetricSavings::default()
    });
    Ok(insight)
}

/// When the navigation's first paint happened, if it has one.
fn first_paint(cx: &Context<'_>) -> Option<Micros> {
    let navigation = cx.navigation?;
    let scores = cx
        .data
        .page_load_metrics()
        .metric_scores_by_frame
        .get(&cx.frame_id)?
        .get(&navigation.event)?;
    let score = scores.get(&MetricName::FirstPaint)?;
    Some(Micros(navigation.ts.0 + score.timing.0))
}

/// Whether Chrome marked a request as blocking rendering; a request the
/// parser met in the body blocks only at the highest priority (or a script
/// at high priority).
fn blocks_rendering(request: &NetworkRequest, strings: &Strings) -> bool {
    let text = |v: &JsValue| v.as_sym().map(|s| strings.resolve(s));
    let blocking = text(&request.render_blocking);
    if blocking.is_some_and(|b| NOT_BLOCKING.contains(&b)) {
        return false;
    }
    if blocking == Some("in_body_parser_blocking") {
        let priority = text(&request.priority);
        let blocking_script = text(&request.resource_type) == Some("Script") && priority == Some("High");
        if priority != Some("VeryHigh") && !blocking_script {
            return false;
        }
    }
    true
}

impl RenderBlocking {
    /// Its members of the insight's model.
    pub(crate) fn dump(&self, model: &mut Object, cx: &mut crate::DumpCx<'_, '_>) {
        let requests = self
            .requests
            .iter()
            .map(|&at| cx.event(EventRef::Request(at)))
            .collect();
        model.push("renderBlockingRequests", Value::Array(requests));
        if let Some(wasted) = &self.wasted_ms {
            let rows = wasted
                .iter()
                .map(|(id, ms)| (Value::str(id.clone()), Value::Num(*ms)))
                .collect();
            model.push("requestIdToWastedMs", Value::Map(rows));
        }
    }

    /// What it found, in words.
    pub(crate) fn summary(&self, cx: &crate::TextCx<'_>) -> Vec<String> {
        if self.requests.is_empty() {
            return vec![UI.string("noRenderBlocking").to_owned()];
        }
        let strings = cx.analysis.strings();
        let requests = &cx.data.network_requests().requests;
        self.requests
            .iter()
            .map(|&at| {
                let r = &requests[at];
                format!("{} ({})", strings.resolve(r.url), crate::text::ms(r.dur.0 / 1000.0))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::test_trace::{navigation_set, sets, trace};
    use crate::{Finding, InsightWarning, State};

    /// A stylesheet request `R1` marked `blocking`, finishing at 60 ms
    /// (its `finishTime`), and a first paint at `paint` µs.
    fn page(blocking: &str, priority: &str, paint: u32) -> String {
        format!(
            r#"{{"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":5000,"args":{{"data":{{"requestId":"R1",
    "url":"https://a.test/s.css","priority":"{priority}","requestMethod":"GET","frame":"F1","resourceType":"Stylesheet",
    "renderBlocking":"{blocking}"}}}}}},
  {{"name":"ResourceReceiveResponse","ph":"I","pid":2,"tid":3,"ts":40000,"args":{{"data":{{"requestId":"R1",
    "fromCache":false,"mimeType":"text/css","statusCode":200,"protocol":"h2","headers":[]}}}}}},
  {{"name":"ResourceFinish","ph":"I","pid":2,"tid":3,"ts":60000,"args":{{"data":{{"requestId":"R1",
    "encodedDataLength":100,"decodedBodyLength":100,"finishTime":0.06}}}}}},
  {{"name":"firstPaint","ph":"R","pid":2,"tid":3,"ts":{paint},"cat":"loading,rail,devtools.timeline",
    "args":{{"frame":"F1","data":{{"navigationId":"N1"}}}}}}"#
        )
    }

    fn blocking(text: &str) -> (State, Vec<usize>, Vec<InsightWarning>) {
        let sets = sets(text);
        let insight = navigation_set(&sets)
            .computed()
            .find(|i| matches!(i.finding, Finding::RenderBlocking(_)))
            .unwrap()
            .clone();
        let Finding::RenderBlocking(f) = insight.finding else {
            unreachable!()
        };
        (insight.state, f.requests, insight.warnings)
    }

    #[test]
    fn a_blocking_stylesheet_before_the_first_paint_fails() {
        let (state, requests, warnings) = blocking(&trace(&page("blocking", "VeryHigh", 100_000)));
        assert_eq!(state, State::Fail);
        assert_eq!(requests.len(), 1);
        assert!(warnings.is_empty());
    }

    #[test]
    fn late_non_blocking_or_low_priority_body_requests_pass() {
        assert_eq!(blocking(&trace(&page("blocking", "VeryHigh", 50_000))).0, State::Pass);
        assert_eq!(
            blocking(&trace(&page("non_blocking", "VeryHigh", 100_000))).0,
            State::Pass
        );
        assert_eq!(
            blocking(&trace(&page("in_body_parser_blocking", "Low", 100_000))).0,
            State::Pass
        );
    }

    #[test]
    fn no_first_paint_is_a_warning() {
        let (state, _, warnings) = blocking(&trace(""));
        assert_eq!(state, State::Pass);
        assert_eq!(warnings, [InsightWarning::NoFp]);
    }
}
