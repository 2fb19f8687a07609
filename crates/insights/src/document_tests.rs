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
