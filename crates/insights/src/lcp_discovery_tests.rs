//! LCP request discovery on small hand-written traces.

use super::*;
use crate::compute;

/// A trace of a main frame F navigated at 1 s (navigation N0), its
/// document's request, and an image LCP 500 ms later whose request is sent
/// with `request_data` (members of `args.data`) and whose candidate has
/// `candidate_data`.
fn trace(request_data: &str, candidate_data: &str) -> String {
    let events = [
        r#"{"name":"TracingStartedInBrowser","ph":"I","pid":9,"tid":9,"ts":0,"args":{"data":{"frames":[
            {"frame":"F","url":"https://a.test/","processId":1,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}]}}}"#.to_owned(),
        r#"{"name":"navigationStart","ph":"R","cat":"blink.user_timing","pid":1,"tid":1,"ts":1000000,"args":{"frame":"F","data":{"navigationId":"N0","documentLoaderURL":"https://a.test/","isLoadingMainFrame":true,"isOutermostMainFrame":true}}}"#.to_owned(),
        r#"{"name":"ResourceSendRequest","ph":"I","cat":"devtools.timeline","pid":1,"tid":1,"ts":1010000,"args":{"data":{"requestId":"N0","frame":"F","url":"https://a.test/","requestMethod":"GET","priority":"VeryHigh","resourceType":"Document"}}}"#.to_owned(),
        r#"{"name":"ResourceReceiveResponse","ph":"I","cat":"devtools.timeline","pid":1,"tid":1,"ts":1120000,"args":{"data":{"requestId":"N0","frame":"F","mimeType":"text/html","statusCode":200,"protocol":"h2","timing":{"requestTime":1.01,"receiveHeadersEnd":100}}}}"#.to_owned(),
        r#"{"name":"ResourceFinish","ph":"I","cat":"devtools.timeline","pid":1,"tid":1,"ts":1130000,"args":{"data":{"requestId":"N0","finishTime":1.13,"encodedDataLength":10,"decodedBodyLength":10}}}"#.to_owned(),
        format!(r#"{{"name":"ResourceSendRequest","ph":"I","cat":"devtools.timeline","pid":1,"tid":1,"ts":1200000,"args":{{"data":{{"requestId":"R1","frame":"F","url":"https://a.test/i.png","requestMethod":"GET","priority":"Low","resourceType":"Image"{request_data}}}}}}}"#),
        r#"{"name":"ResourceFinish","ph":"I","cat":"devtools.timeline","pid":1,"tid":1,"ts":1300000,"args":{"data":{"requestId":"R1","finishTime":1.3,"encodedDataLength":10,"decodedBodyLength":10}}}"#.to_owned(),
        r#"{"name":"LargestImagePaint::Candidate","ph":"I","cat":"loading","pid":1,"tid":1,"ts":1500000,"args":{"data":{"DOMNodeId":5,"imageUrl":"https://a.test/i.png","size":100}}}"#.to_owned(),
        format!(r#"{{"name":"largestContentfulPaint::Candidate","ph":"R","cat":"loading,rail,devtools.timeline","pid":1,"tid":1,"ts":1500000,"args":{{"frame":"F","data":{{"candidateIndex":1,"navigationId":"N0","nodeId":5,"type":"image","size":100,"isOutermostMainFrame":true,"isMainFrame":true{candidate_data}}}}}}}"#),
        r#"{"name":"RunTask","ph":"X","pid":1,"tid":1,"ts":9000000,"dur":1}"#.to_owned(),
    ];
    format!("[{}]", events.join(","))
}

fn insight(text: &str) -> (State, ImageDiscovery) {
    let options = tracekit::AnalyzeOptions::default().with_all_handlers(true);
    let analysis = tracekit::analyze_bytes(text.as_bytes(), &options).unwrap();
    let sets = compute(&analysis).unwrap();
    let set = sets.sets.into_iter().find(|s| s.navigation.is_some()).unwrap();
    let insight = set.computed().find(|i| i.ui().key == "LCPDiscovery").unwrap().clone();
    match insight.finding {
        Finding::LcpDiscovery(f) => (insight.state, f.image.unwrap()),
        other => panic!("{other:?}"),
    }
}

const FROM_HTML: &str = r#","initiator":{"type":"parser","url":"https://a.test/"}"#;

#[test]
fn an_image_found_in_the_html_with_high_priority_passes() {
    let (state, image) = insight(&trace(&format!(r#"{FROM_HTML},"fetchPriorityHint":"high""#), ""));
    assert_eq!(state, State::Pass);
    assert!(image.initiated_by_document && image.priority_hinted && !image.lazy);
    assert_eq!(image.earliest_discovery, Some(1_110_000.0));
}

#[test]
fn a_missing_hint_or_a_lazy_image_fails() {
    let (state, image) = insight(&trace(FROM_HTML, ""));
    assert_eq!(state, State::Fail);
    assert!(!image.priority_hinted);
    let hinted = format!(r#"{FROM_HTML},"fetchPriorityHint":"high""#);
    let (state, image) = insight(&trace(&hinted, r#","loadingAttr":"lazy""#));
    assert_eq!(state, State::Fail);
    assert!(image.lazy);
    assert_eq!(image.eager(), Value::Bool(false));
}

#[test]
fn an_image_started_by_a_script_is_not_discoverable() {
    let script = r#","initiator":{"type":"script","url":"https://a.test/"},"fetchPriorityHint":"high""#;
    let (state, image) = insight(&trace(script, ""));
    assert_eq!(state, State::Fail);
    assert!(!image.initiated_by_document);
}
