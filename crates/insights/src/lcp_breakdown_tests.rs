//! LCP breakdown on small hand-written traces.

use super::*;
use crate::compute;

/// A trace of a main frame F navigated at 1 s (navigation N0), with
/// `more` events.
fn trace(more: &[String]) -> String {
    let mut events = vec![
        r#"{"name":"TracingStartedInBrowser","ph":"I","pid":9,"tid":9,"ts":0,"args":{"data":{"frames":[
            {"frame":"F","url":"https://a.test/","processId":1,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}]}}}"#
            .to_owned(),
        r#"{"name":"navigationStart","ph":"R","cat":"blink.user_timing","pid":1,"tid":1,"ts":1000000,"args":{"frame":"F","data":{"navigationId":"N0","documentLoaderURL":"https://a.test/","isLoadingMainFrame":true,"isOutermostMainFrame":true}}}"#
            .to_owned(),
    ];
    events.extend(more.iter().cloned());
    events.push(r#"{"name":"RunTask","ph":"X","pid":1,"tid":1,"ts":9000000,"dur":1}"#.to_owned());
    format!("[{}]", events.join(","))
}

/// A text LCP candidate `ms` after the navigation.
fn lcp(ms: u64) -> String {
    format!(
        r#"{{"name":"largestContentfulPaint::Candidate","ph":"R","cat":"loading,rail,devtools.timeline","pid":1,"tid":1,"ts":{},"args":{{"frame":"F","data":{{"candidateIndex":1,"navigationId":"N0","nodeId":5,"type":"text","size":100,"isOutermostMainFrame":true,"isMainFrame":true}}}}}}"#,
        1_000_000 + ms * 1000
    )
}

/// The document's request: sent at 1.01 s, headers 100 ms later.
fn document() -> Vec<String> {
    vec![
        r#"{"name":"ResourceSendRequest","ph":"I","cat":"devtools.timeline","pid":1,"tid":1,"ts":1010000,"args":{"data":{"requestId":"N0","frame":"F","url":"https://a.test/","requestMethod":"GET","priority":"VeryHigh","resourceType":"Document"}}}"#.to_owned(),
        r#"{"name":"ResourceReceiveResponse","ph":"I","cat":"devtools.timeline","pid":1,"tid":1,"ts":1120000,"args":{"data":{"requestId":"N0","frame":"F","mimeType":"text/html","statusCode":200,"protocol":"h2","timing":{"requestTime":1.01,"receiveHeadersEnd":100}}}}"#.to_owned(),
        r#"{"name":"ResourceFinish","ph":"I","cat":"devtools.timeline","pid":1,"tid":1,"ts":1130000,"args":{"data":{"requestId":"N0","finishTime":1.13,"encodedDataLength":10,"decodedBodyLength":10}}}"#.to_owned(),
    ]
}

fn result(text: &str) -> Result<Insight, String> {
    let options = tracekit::AnalyzeOptions::default().with_all_handlers(true);
    let analysis = tracekit::analyze_bytes(text.as_bytes(), &options).unwrap();
    let sets = compute(&analysis).unwrap();
    let set = sets.sets.into_iter().find(|s| s.navigation.is_some()).unwrap();
    let at = crate::sets::RUNNERS
        .iter()
        .position(|(ui, _)| ui.key == "LCPBreakdown")
        .unwrap();
    set.insights.into_iter().nth(at).unwrap().map_err(|e| e.message)
}

fn insight(text: &str) -> Insight {
    result(text).unwrap()
}

/// A first contentful paint 200 ms after the navigation.
fn fcp() -> String {
    r#"{"name":"firstContentfulPaint","ph":"R","cat":"loading,rail,devtools.timeline","pid":1,"tid":1,"ts":1200000,"args":{"frame":"F","data":{"navigationId":"N0"}}}"#.to_owned()
}

fn found(insight: &Insight) -> LcpBreakdown {
    match &insight.finding {
        Finding::LcpBreakdown(f) => f.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn without_an_lcp_it_passes_with_a_warning() {
    // No page load metric at all: DevTools' insight throws.
    assert_eq!(result(&trace(&document())), Err("no frame metrics".to_owned()));
    let mut events = document();
    events.push(fcp());
    let insight = insight(&trace(&events));
    assert_eq!(insight.state, State::Pass);
    assert_eq!(insight.warnings, [InsightWarning::NoLcp]);
    assert!(found(&insight).lcp.is_none());
}

#[test]
fn a_text_lcp_has_two_subparts_split_at_the_first_byte() {
    let mut events = document();
    events.push(lcp(500));
    let insight = insight(&trace(&events));
    assert_eq!(insight.state, State::Informative);
    let lcp = found(&insight).lcp.unwrap();
    assert_eq!(lcp.ms, 500.0);
    assert_eq!(lcp.ts_ms, Some(1500.0));
    let parts = lcp.subparts.unwrap().unwrap();
    assert_eq!((parts.ttfb.min.0, parts.ttfb.max.0), (1_000_000.0, 1_110_000.0));
    assert_eq!(
        (parts.render_delay.min.0, parts.render_delay.max.0),
        (1_110_000.0, 1_500_000.0)
    );
    assert!(parts.load_delay.is_none() && parts.load_duration.is_none());
}

#[test]
fn a_slow_lcp_fails_and_without_the_document_it_has_no_subparts() {
    let insight = insight(&trace(&[lcp(3000)]));
    assert_eq!(insight.state, State::Fail);
    assert_eq!(insight.warnings, [InsightWarning::NoDocumentRequest]);
    assert_eq!(found(&insight).lcp.unwrap().subparts, None);
}
