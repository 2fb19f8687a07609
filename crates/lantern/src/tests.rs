//! Lantern's requests and network analysis on small traces written here.

use tracekit::AnalyzeOptions;

use crate::{analyze, requests, LanternRequest, SUMMARY};

/// A navigation of frame `F` at 1 ms, then `events` (comma-separated
/// JSON objects, each followed by a comma).
fn page(events: &str) -> String {
    format!(
        r#"[
  {{"name":"TracingStartedInBrowser","ph":"I","pid":1,"tid":1,"ts":900,"args":{{"data":{{"frames":[
    {{"frame":"F","url":"https://a.test/","processId":2,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}}]}}}}}},
  {{"name":"navigationStart","cat":"blink.user_timing","ph":"R","pid":2,"tid":3,"ts":1000,"args":{{"frame":"F","data":{{"documentLoaderURL":"https://a.test/","isLoadingMainFrame":true,"isOutermostMainFrame":true,"navigationId":"N1"}}}}}},
  {events}
  {{"name":"RunTask","ph":"X","pid":2,"tid":3,"ts":900000,"dur":1,"args":{{}}}}
]"#
    )
}

/// A request of id `id` for `url`, sent at `ts` µs, its headers in 40 ms
/// later and done 10 ms after that, over connection `connection`
/// (`reused` or set up in 20 ms, from 10 ms after the request's start).
fn request(id: &str, url: &str, ts: u64, connection: u32, reused: bool, extra: &str) -> String {
    let start = ts as f64 / 1e6;
    let (cs, ce) = if reused { (-1, -1) } else { (10, 30) };
    format!(
        r#"{{"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":{ts},"args":{{"data":{{"requestId":"{id}","url":"{url}","priority":"High","frame":"F","resourceType":"Script"{extra}}}}}}},
  {{"name":"ResourceReceiveResponse","ph":"I","pid":2,"tid":3,"ts":{},"args":{{"data":{{"requestId":"{id}","mimeType":"text/javascript","statusCode":200,"protocol":"http/1.1","connectionId":{connection},"connectionReused":{reused},"encodedDataLength":20000,
    "timing":{{"requestTime":{start},"dnsStart":-1,"dnsEnd":-1,"connectStart":{cs},"connectEnd":{ce},"sslStart":-1,"sslEnd":-1,"proxyStart":-1,"proxyEnd":-1,"sendStart":31,"sendEnd":32,"receiveHeadersStart":39,"receiveHeadersEnd":40}}}}}}}},
  {{"name":"ResourceFinish","ph":"I","pid":2,"tid":3,"ts":{},"args":{{"data":{{"requestId":"{id}","encodedDataLength":20000,"decodedBodyLength":50000,"finishTime":{}}}}}}},"#,
        ts + 40_000,
        ts + 50_000,
        start + 0.05
    )
}

fn lantern(text: &str) -> Vec<LanternRequest> {
    let options = AnalyzeOptions::default().with_all_handlers(true);
    let analysis = tracekit::analyze_bytes(text.as_bytes(), &options).unwrap();
    let data = analysis.handlers().unwrap();
    let navigation = data.meta().navigations.main_frame[0];
    requests(data, analysis.strings(), &navigation).unwrap()
}

#[test]
fn requests_carry_their_times_in_ms_and_their_origin() {
    let list = lantern(&page(&request("R1", "https://a.test/app.js", 2000, 1, false, "")));
    assert_eq!(list.len(), 1);
    let r = &list[0];
    assert_eq!(
        (r.origin.as_str(), r.scheme.as_str(), r.host.as_str()),
        ("https://a.test", "https", "a.test")
    );
    assert!(
        (r.network_request_time - 2.0).abs() < 1e-9,
        "{}",
        r.network_request_time
    );
    assert!((r.response_headers_end_time - 42.0).abs() < 1e-6 && (r.network_end_time - 52.0).abs() < 1e-6);
    assert_eq!((r.transfer_size, r.resource_size), (20000.0, 50000.0));
    assert_eq!(r.timing.unwrap().receive_headers_start, 39.0);
}

#[test]
fn a_script_request_is_started_by_the_one_request_of_its_stack_url() {
    let stack = r#","stackTrace":[{"url":"https://a.test/app.js","lineNumber":1,"columnNumber":1,"scriptId":"1","functionName":"f"}]"#;
    let initiator = r#","initiator":{"type":"script"}"#.to_owned() + stack;
    let text = page(
        &(request("R1", "https://a.test/app.js", 2000, 1, false, "")
            + &request("R2", "https://b.test/data.js", 80_000, 2, false, &initiator)),
    );
    let list = lantern(&text);
    assert_eq!(list[1].initiator.kind, "script");
    assert_eq!(list[1].initiator_request, Some(0));
    assert_eq!(list[0].initiator_request, None, "no initiator URL");
}

#[test]
fn rtt_comes_from_connection_setups_and_server_time_from_the_rest() {
    let text = page(
        &(request("R1", "https://a.test/app.js", 2000, 1, false, "")
            + &request("R2", "https://b.test/lib.js", 3000, 2, false, "")),
    );
    let analysis = analyze(&lantern(&text)).unwrap();
    // Both connections took 20 ms to set up: no origin is slower.
    assert_eq!(analysis.rtt, 20.0);
    assert!(analysis.additional_rtt_by_origin.iter().all(|(_, extra)| *extra == 0.0));
    // Time to first byte 8 ms after the send ended, less the round trip:
    // no time left for the server.
    let server: Vec<&(String, f64)> = analysis.server_response_time_by_origin.iter().collect();
    assert_eq!(server.last().unwrap().0, SUMMARY);
    assert!(server.iter().all(|(_, t)| *t == 0.0), "{server:?}");
    // 40 kB downloaded over the 10 ms two downloads overlapped (and 1 ms
    // more of the second).
    assert!(
        (analysis.throughput - 40_000.0 * 8.0 / 0.011).abs() < 1.0,
        "{}",
        analysis.throughput
    );
}

#[test]
fn no_request_is_lanterns_error() {
    let options = AnalyzeOptions::default().with_all_handlers(true);
    let analysis = tracekit::analyze_bytes(page("").as_bytes(), &options).unwrap();
    let data = analysis.handlers().unwrap();
    let navigation = data.meta().navigations.main_frame[0];
    let error = requests(data, analysis.strings(), &navigation).unwrap_err();
    assert_eq!(error.to_string(), "No network requests found in trace");
}
