//! The document's insights (CharacterSet, DocumentLatency, FontDisplay,
//! ThirdParties) on small hand-written traces: a navigation of the main
//! frame and its document request, with what each test adds.

use tracekit::AnalyzeOptions;

use crate::{compute, Finding, Insight, InsightSets, InsightWarning, State};

/// A trace of one navigation (`N1`, at 1 ms) whose document request has
/// these response headers (a JSON list), MIME type, decoded size and
/// `receiveHeadersStart` (ms after the request), with `extra` events.
pub(crate) fn navigation_trace(headers: &str, mime: &str, size: u32, headers_start: f64, extra: &str) -> String {
    format!(
        r#"[
  {{"name":"TracingStartedInBrowser","ph":"I","pid":1,"tid":1,"ts":500,"args":{{"data":{{"frames":[
    {{"frame":"F","url":"https://a.test/","processId":2,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}}]}}}}}},
  {{"name":"thread_name","ph":"M","pid":2,"tid":3,"ts":0,"args":{{"name":"CrRendererMain"}}}},
  {{"name":"navigationStart","ph":"R","pid":2,"tid":3,"ts":1000,"args":{{"frame":"F","data":{{"navigationId":"N1",
    "documentLoaderURL":"https://a.test/","isOutermostMainFrame":true,"isLoadingMainFrame":true}}}}}},
  {{"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":1100,"args":{{"data":{{"requestId":"N1",
    "url":"https://a.test/","priority":"VeryHigh","requestMethod":"GET","frame":"F","resourceType":"Document"}}}}}},
  {{"name":"ResourceReceiveResponse","ph":"I","pid":2,"tid":3,"ts":1500,"args":{{"data":{{"requestId":"N1",
    "fromCache":false,"mimeType":"{mime}","statusCode":200,"headers":{headers},
    "timing":{{"requestTime":0.0011,"dnsStart":-1,"dnsEnd":-1,"connectStart":-1,"connectEnd":-1,
      "sslStart":-1,"sslEnd":-1,"proxyStart":-1,"proxyEnd":-1,"sendStart":1,"sendEnd":2,
      "receiveHeadersStart":{headers_start},"receiveHeadersEnd":{headers_start}}}}}}}}},
  {{"name":"ResourceFinish","ph":"I","pid":2,"tid":3,"ts":1800,"args":{{"data":{{"requestId":"N1",
    "encodedDataLength":100,"decodedBodyLength":{size},"finishTime":2.0}}}}}}{extra}
]"#
    )
}

/// The insight sets of a trace.
pub(crate) fn sets_of(trace: &str) -> InsightSets {
    let analysis =
        tracekit::analyze_bytes(trace.as_bytes(), &AnalyzeOptions::default().with_all_handlers(true)).unwrap();
    compute(&analysis).unwrap()
}

/// The insight of the navigation's set whose finding `pick` accepts.
pub(crate) fn navigation_insight(sets: &InsightSets, pick: fn(&Finding) -> bool) -> Insight {
    let set = sets
        .sets
        .iter()
        .find(|s| s.navigation.is_some())
        .expect("a navigation's set");
    set.computed().find(|i| pick(&i.finding)).expect("the insight").clone()
}

const HTML_UTF8: &str = r#"[{"name":"content-type","value":"text/html; charset=utf-8"}]"#;
const HTML: &str = r#"[{"name":"Content-Type","value":"text/html"}]"#;

fn charset(trace: &str) -> Insight {
    navigation_insight(&sets_of(trace), |f| matches!(f, Finding::CharacterSet(_)))
}

#[test]
fn a_charset_in_the_content_type_passes() {
    let insight = charset(&navigation_trace(HTML_UTF8, "text/html", 10, 50.0, ""));
    assert_eq!(insight.state, State::Pass);
    let Finding::CharacterSet(f) = &insight.finding else {
        unreachable!()
    };
    let doc = f.document.as_ref().unwrap();
    assert!(doc.has_http_charset && doc.meta_charset_disposition.is_none());
}

#[test]
fn no_charset_anywhere_fails_and_an_early_meta_tag_passes() {
    let insight = charset(&navigation_trace(HTML, "text/html", 10, 50.0, ""));
    assert_eq!(insight.state, State::Fail);
    let check = |disposition: &str| {
        format!(
            r#",
  {{"name":"MetaCharsetCheck","ph":"X","pid":2,"tid":3,"ts":1900,"dur":1,"args":{{"data":{{"frame":"F","disposition":"{disposition}"}}}}}}"#
        )
    };
    let early = charset(&navigation_trace(
        HTML,
        "text/html",
        10,
        50.0,
        &check("found-in-first-1024-bytes"),
    ));
    assert_eq!(early.state, State::Pass);
    let late = charset(&navigation_trace(
        HTML,
        "text/html",
        10,
        50.0,
        &check("found-after-first-1024-bytes"),
    ));
    assert_eq!(late.state, State::Fail);
    let Finding::CharacterSet(f) = &late.finding else {
        unreachable!()
    };
    assert!(f.document.as_ref().unwrap().meta_charset_disposition.is_some());
}

#[test]
fn a_navigation_without_its_document_request_warns() {
    let trace = navigation_trace(HTML, "text/html", 10, 50.0, "").replace(r#""requestId":"N1""#, r#""requestId":"X""#);
    let insight = charset(&trace);
    assert_eq!(insight.state, State::Pass);
    assert_eq!(insight.warnings, [InsightWarning::NoDocumentRequest]);
}

fn latency(trace: &str) -> Insight {
    navigation_insight(&sets_of(trace), |f| matches!(f, Finding::DocumentLatency(_)))
}

#[test]
fn a_quick_compressed_document_passes() {
    let gzip = r#"[{"name":"Content-Encoding","value":"gzip"}]"#;
    let insight = latency(&navigation_trace(gzip, "text/html", 100_000, 50.0, ""));
    assert_eq!(insight.state, State::Pass);
    let Finding::DocumentLatency(f) = &insight.finding else {
        unreachable!()
    };
    let doc = f.document.as_ref().unwrap();
    // Headers start 50 ms after the request, sent by 2 ms.
    assert_eq!(doc.server_response_time, 48.0);
    assert_eq!(insight.metric_savings.unwrap().fcp, Some(0.0));
    assert_eq!(insight.wasted_bytes, Some(0.0));
}

#[test]
fn a_slow_uncompressed_document_fails_with_its_savings() {
    let insight = latency(&navigation_trace(HTML, "text/html", 100_000, 900.0, ""));
    assert_eq!(insight.state, State::Fail);
    let savings = insight.metric_savings.unwrap();
    assert_eq!((savings.fcp, savings.lcp), (Some(798.0), Some(798.0)));
    assert_eq!(insight.wasted_bytes, Some(67_000.0));
    // A small body is not worth compressing.
    let small = latency(&navigation_trace(HTML, "text/html", 2000, 50.0, ""));
    assert_eq!((small.state, small.wasted_bytes), (State::Pass, Some(0.0)));
}

/// A font request `2.5` from 2 ms to `finish` ms, and its
/// `BeginRemoteFontLoad` with this `font-display`.
fn font_events(display: &str, finish: f64) -> String {
    format!(
        r#",
  {{"name":"BeginRemoteFontLoad","ph":"I","pid":2,"tid":3,"ts":2000,"args":{{"id":5,"display":"{display}","url":"https://a.test/f.woff2"}}}},
  {{"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":2000,"args":{{"data":{{"requestId":"2.5",
    "url":"https://a.test/f.woff2","priority":"High","requestMethod":"GET","frame":"F","resourceType":"Font"}}}}}},
  {{"name":"ResourceReceiveResponse","ph":"I","pid":2,"tid":3,"ts":2100,"args":{{"data":{{"requestId":"2.5",
    "fromCache":false,"mimeType":"font/woff2","statusCode":200,
    "timing":{{"requestTime":0.002,"dnsStart":-1,"dnsEnd":-1,"connectStart":-1,"connectEnd":-1,
      "sslStart":-1,"sslEnd":-1,"proxyStart":-1,"proxyEnd":-1,"sendStart":0,"sendEnd":1,
      "receiveHeadersStart":5,"receiveHeadersEnd":5}}}}}}}},
  {{"name":"ResourceFinish","ph":"I","pid":2,"tid":3,"ts":2200,"args":{{"data":{{"requestId":"2.5",
    "encodedDataLength":100,"decodedBodyLength":100,"finishTime":{}}}}}}}"#,
        finish / 1000.0
    )
}

fn font_display(extra: &str) -> Insight {
    let trace = navigation_trace(HTML_UTF8, "text/html", 10, 50.0, extra);
    navigation_insight(&sets_of(&trace), |f| matches!(f, Finding::FontDisplay(_)))
}

#[test]
fn a_blocking_font_fails_with_its_wait_by_steps_of_5_ms() {
    let insight = font_display(&font_events("block", 40.0));
    assert_eq!(insight.state, State::Fail);
    let Finding::FontDisplay(f) = &insight.finding else {
        unreachable!()
    };
    // Sent at 2 ms, finished at 40 ms: 38 ms, floored to 35.
    assert_eq!(f.fonts.len(), 1);
    assert_eq!(f.fonts[0].wasted_time, 35.0);
    assert_eq!(insight.metric_savings.unwrap().fcp, Some(35.0));
}

#[test]
fn a_swapped_font_passes_and_nothing_saves_minus_infinity() {
    let insight = font_display(&font_events("swap", 40.0));
    assert_eq!(insight.state, State::Pass);
    let Finding::FontDisplay(f) = &insight.finding else {
        unreachable!()
    };
    assert!(f.fonts.is_empty());
    assert_eq!(insight.metric_savings.unwrap().fcp, Some(f64::NEG_INFINITY));
}

/// A script of `url` evaluated on the main thread from 3 ms for `dur_ms`.
fn script(url: &str, dur_ms: u32) -> String {
    format!(
        r#",
  {{"name":"EvaluateScript","cat":"devtools.timeline","ph":"X","pid":2,"tid":3,"ts":3000,"dur":{},"args":{{"data":{{"url":"{url}"}}}}}}"#,
        dur_ms * 1000
    )
}

fn third_parties(extra: &str) -> Insight {
    let trace = navigation_trace(HTML_UTF8, "text/html", 10, 50.0, extra);
    navigation_insight(&sets_of(&trace), |f| matches!(f, Finding::ThirdParties(_)))
}

#[test]
fn a_third_party_script_is_summarized_with_its_main_thread_time() {
    let insight = third_parties(&script("https://cdn.other.test/x.js", 10));
    assert_eq!(insight.state, State::Informative);
    let Finding::ThirdParties(f) = &insight.finding else {
        unreachable!()
    };
    assert_eq!(f.first_party.as_ref().map(|p| p.name.as_str()), Some("a.test"));
    let other = f
        .summaries
        .iter()
        .find(|s| Some(s.entity) != f.first_party.as_ref().and_then(|p| p.entity));
    let other = other.expect("the third party");
    assert!(
        (other.main_thread_time - 10.0).abs() < 1e-9,
        "{}",
        other.main_thread_time
    );
    // The related events are the third party's, shared with its summary.
    let Some(crate::RelatedEvents::Entities(related)) = &insight.related_events else {
        panic!("{:?}", insight.related_events)
    };
    assert_eq!(related.len(), 1);
    assert!(std::sync::Arc::ptr_eq(&related[0], &other.events) && !other.events.is_empty());
}

#[test]
fn only_first_party_work_passes() {
    let insight = third_parties(&script("https://a.test/app.js", 10));
    assert_eq!(insight.state, State::Pass);
    let Finding::ThirdParties(f) = &insight.finding else {
        unreachable!()
    };
    let first = f.first_party.as_ref().and_then(|p| p.entity);
    assert!(first.is_some());
    // The first party's own summary: its script and its document request.
    assert!(f.summaries.iter().all(|s| Some(s.entity) == first));
    assert!(f.summaries.iter().any(|s| (s.main_thread_time - 10.0).abs() < 1e-9));
}

/// The third parties' events made on rayon's pool beside the sets give
/// the same sets as made after them on this thread, and they reach the
/// 3rd parties insights.
#[test]
fn sets_are_the_same_whatever_the_parallelism() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/traces");
    for name in ["page-load.json.gz", "kitchen-sink.json.gz"] {
        let bytes = std::fs::read(root.join(name)).unwrap();
        let analysis = tracekit::analyze_bytes(&bytes, &AnalyzeOptions::default().with_all_handlers(true)).unwrap();
        let sequential = compute(&analysis).unwrap();
        let pooled = crate::compute_with(&analysis, tracekit::Parallelism::Rayon).unwrap();
        assert_eq!(sequential, pooled, "{name}");
        let events: usize = sequential
            .sets
            .iter()
            .flat_map(|set| set.insights.iter().flatten())
            .filter_map(|insight| match &insight.finding {
                Finding::ThirdParties(f) => Some(f.summaries.iter().map(|s| s.events.len()).sum::<usize>()),
                _ => None,
            })
            .sum();
        assert!(events > 0, "{name}");
    }
}
