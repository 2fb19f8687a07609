//! The NetworkRequests handler on small hand-written traces: timing
//! phases, redirects, caching, priorities, web sockets, both depths and
//! engines, and the dump.

use tracekit_events::dump::Dump;
use tracekit_events::{feed, AnalyzeOptions, Context, DevTools, Handler, Interner, Micros};
use tracekit_meta::MetaHandler;

use super::*;
use crate::entities::EntityEvent;

fn run_with(text: &str, options: AnalyzeOptions) -> (NetworkRequests, Interner) {
    let mut cx = Context::new(options);
    let (mut meta, mut network) = (MetaHandler::default(), NetworkRequestsHandler::default());
    feed(text, &mut meta, &mut cx).unwrap();
    feed(text, &mut network, &mut cx).unwrap();
    let meta = meta.finalize((), &mut cx);
    (network.finalize(&meta, &mut cx), cx.interner)
}

fn run(text: &str) -> (NetworkRequests, Interner) {
    run_with(text, AnalyzeOptions::default().with_all_handlers(true))
}

fn key(interner: &mut Interner, id: &str) -> ArgKey {
    ArgKey::of(Some(&format!("\"{id}\"")), interner).unwrap()
}

/// One request that goes through every phase.
const ONE_REQUEST: &str = r#"[
  {"name":"TracingStartedInBrowser","ph":"I","pid":1,"tid":1,"ts":900,"args":{"data":{"frames":[
    {"frame":"F","url":"https://a.test/","processId":2,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}]}}},
  {"name":"ResourceWillSendRequest","ph":"I","pid":2,"tid":3,"ts":1000,"args":{"data":{"requestId":"R1"}}},
  {"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":1100,"args":{"data":{"requestId":"R1",
    "url":"https://fonts.googleapis.com/css","priority":"High","requestMethod":"GET","frame":"F",
    "stackTrace":[{"url":"chrome://x","lineNumber":2,"columnNumber":3,"scriptId":4,"functionName":"f"}]}}},
  {"name":"ResourceReceiveResponse","ph":"I","pid":2,"tid":3,"ts":1500,"args":{"data":{"requestId":"R1",
    "fromCache":false,"mimeType":"text/css","statusCode":200,"connectionId":7,
    "timing":{"requestTime":0.0012,"dnsStart":0.01,"dnsEnd":0.02,"connectStart":0.02,"connectEnd":0.05,
      "sslStart":0.03,"sslEnd":0.05,"proxyStart":-1,"proxyEnd":-1,"sendStart":0.06,"sendEnd":0.07,
      "receiveHeadersStart":0.2,"receiveHeadersEnd":0.25}}}},
  {"name":"ResourceReceivedData","ph":"I","pid":2,"tid":3,"ts":1600,"args":{"data":{"requestId":"R1"}}},
  {"name":"ResourceFinish","ph":"I","pid":2,"tid":3,"ts":1800,"args":{"data":{"requestId":"R1",
    "encodedDataLength":0,"decodedBodyLength":50,"finishTime":0.0017}}}
]"#;

#[test]
fn a_request_has_every_phase_of_its_timing() {
    let (data, mut interner) = run(ONE_REQUEST);
    let r1 = key(&mut interner, "R1");
    let request = data.by_id(r1).unwrap();
    assert_eq!(
        (request.ts, request.dur, request.event),
        (Micros(1000.0), Micros(800.0), 2)
    );
    let t = &request.timings;
    assert_eq!(t.redirection_duration, Micros(0.0), "one will-send: no redirect");
    assert!((t.queueing.0 - 200.0).abs() < 1e-6, "{:?}", t.queueing);
    assert!((t.network_duration.0 - 700.0).abs() < 1e-6);
    assert!(
        (t.stalled.0 - 10.0).abs() < 1e-9,
        "the first positive of dnsStart...: {:?}",
        t.stalled
    );
    assert!((t.download_start.0 - 1450.0).abs() < 1e-6);
    assert!((t.finish_time.0 - 1700.0).abs() < 1e-6);
    assert!((t.download.0 - 250.0).abs() < 1e-6);
    assert!((t.processing_duration.0 - 100.0).abs() < 1e-6);
    assert!((t.waiting.0 - 180.0).abs() < 1e-6 && (t.server_response_time.0 - 130.0).abs() < 1e-6);
    assert!(!request.is_pushed_resource && !request.is_disk_cached && request.is_https);
    assert_eq!(interner.resolve(request.requesting_frame_url), "https://a.test/");
    assert_eq!(
        request.events,
        vec![1, 2, 3, 4, 5],
        "will-send, send, response, data, finish"
    );
    assert_eq!(data.url(r1), Some(request.url));
    let (entity, events) = data.entities.events_by_entity.first().unwrap();
    assert_eq!(entity.name(&interner), "Google Fonts");
    assert_eq!(events[..2], [EntityEvent::Request(0), EntityEvent::Event(1)]);
}

#[test]
fn redirects_are_timed_by_their_will_sends_and_hide_other_schemes() {
    let (data, mut interner) = run(r#"[
      {"name":"ResourceWillSendRequest","ph":"I","pid":2,"tid":3,"ts":10,"args":{"data":{"requestId":"R"}}},
      {"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":11,"args":{"data":{"requestId":"R","url":"chrome://a/","priority":"Low"}}},
      {"name":"ResourceWillSendRequest","ph":"I","pid":2,"tid":3,"ts":30,"args":{"data":{"requestId":"R"}}},
      {"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":32,"args":{"data":{"requestId":"R","url":"http://b.test/","priority":"High"}}},
      {"name":"ResourceChangePriority","ph":"I","pid":2,"tid":3,"ts":40,"args":{"data":{"requestId":"R","priority":"VeryHigh"}}},
      {"name":"PreloadRenderBlockingStatusChange","ph":"I","pid":2,"tid":3,"ts":41,"args":{"data":{"requestId":"R","renderBlocking":"blocking"}}},
      {"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":50,"args":{"data":{"requestId":"D","url":"data:text/plain,x"}}}
    ]"#);
    assert_eq!(data.requests.len(), 1, "the data: URL is dropped");
    let request = data.by_id(key(&mut interner, "R")).unwrap();
    let redirect = &request.redirects[0];
    assert_eq!(
        (redirect.ts, redirect.dur, redirect.url),
        (Micros(10.0), Micros(20.0), names::EMPTY)
    );
    assert_eq!(request.initial_priority, JsValue::Str(interner.intern("High")));
    assert_eq!(request.priority, JsValue::Str(interner.intern("VeryHigh")));
    assert_eq!(request.render_blocking, JsValue::Str(interner.intern("blocking")));
    assert!(request.is_pushed_resource && !request.finished && request.timing == JsValue::Undefined);
    assert_eq!(request.timings.send_start_time, Micros(10.0));
}

#[test]
fn a_memory_cached_request_has_no_timing() {
    let (data, _) = run(r#"[
      {"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":100,"args":{"data":{"requestId":"M","url":"https://a.test/i.png"}}},
      {"name":"ResourceMarkAsCached","ph":"I","pid":2,"tid":3,"ts":101,"args":{"data":{"requestId":"M"}}},
      {"name":"ResourceReceiveResponse","ph":"I","pid":2,"tid":3,"ts":130,"args":{"data":{"requestId":"M","fromCache":true,"timing":{"requestTime":1}}}}
    ]"#);
    let request = &data.requests[0];
    assert!(request.is_memory_cached && request.timing == JsValue::Undefined);
    assert_eq!(
        (request.timings.stalled, request.timings.queueing),
        (Micros(30.0), Micros(0.0))
    );
    assert!(!request.is_disk_cached, "an unfinished request counts as pushed");
}

#[test]
fn the_url_depth_keeps_urls_by_the_engines_scheme_rule() {
    let text = r#"[
      {"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":1,"args":{"data":{"requestId":"A","url":"chrome://x/"}}},
      {"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":2,"args":{"data":{"requestId":"A","url":"https://a.test/"}}}
    ]"#;
    let urls_only = AnalyzeOptions::default().with_group_args(true);
    let (latest, mut interner) = run_with(text, urls_only);
    let (full, _) = run(text);
    let a = key(&mut interner, "A");
    assert_eq!(latest.url(a).map(|u| interner.resolve(u)), Some("https://a.test/"));
    assert!(latest.requests.is_empty() && full.url(a).is_some());
    let (june, _) = run_with(text, urls_only.with_devtools(DevTools::V2026_06));
    assert!(june.is_empty(), "2026-06 looked at the first URL's scheme");
    let (off, _) = run_with(text, AnalyzeOptions::default());
    assert!(off.is_empty(), "not gathered for the tracks alone");
    assert!(!NetworkRequestsHandler::enabled(&AnalyzeOptions::default()));
}

#[test]
fn web_sockets_are_connected_from_create_to_destroy_or_the_trace_bounds() {
    let (data, mut interner) = run(r#"[
      {"name":"RunTask","ph":"X","pid":2,"tid":3,"ts":5,"dur":1000},
      {"name":"WebSocketCreate","ph":"I","s":"t","cat":"devtools.timeline","pid":2,"tid":3,"ts":10,"args":{"data":{"identifier":7,"frame":"F","url":"wss://a.test/"}}},
      {"name":"WebSocketSend","ph":"I","pid":2,"tid":3,"ts":20,"args":{"data":{"identifier":7}}},
      {"name":"WebSocketDestroy","ph":"I","pid":2,"tid":3,"ts":30,"args":{"data":{"identifier":7}}},
      {"name":"WebSocketSend","ph":"I","pid":2,"tid":4,"ts":40,"args":{"data":{"identifier":8,"workerId":"W"}}},
      {"name":"WebSocketSend","ph":"I","pid":2,"tid":4,"ts":41,"args":{"data":{"identifier":9}}}
    ]"#);
    assert_eq!(
        data.web_sockets.len(),
        2,
        "a socket naming no frame or worker is not kept"
    );
    let first = data.web_sockets[0].connection.as_ref().unwrap();
    assert_eq!((first.ts, first.dur), (Micros(10.0), Micros(20.0)));
    assert_eq!(first.url, JsValue::Str(interner.intern("wss://a.test/")));
    let second = data.web_sockets[1].connection.as_ref().unwrap();
    assert_eq!((second.ts, second.dur, second.main), (Micros(5.0), Micros(1000.0), 0));
    assert_eq!(
        data.web_sockets[1].owner,
        WebSocketOwner::Worker(JsValue::Str(interner.intern("W")))
    );
}

#[test]
fn the_simulation_stops_at_a_trace_too_old() {
    let (mut data, interner) = run(r#"[
      {"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":1,"args":{"data":{"requestId":"A","url":"https://a.test/","initiator":{"type":"script"},"stackTrace":[{"url":"https://a.test/","lineNumber":3,"columnNumber":1,"scriptId":"1"}]}}},
      {"name":"ResourceReceiveResponse","ph":"I","pid":2,"tid":3,"ts":2,"args":{"data":{"requestId":"A","connectionId":1}}},
      {"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":3,"args":{"data":{"requestId":"B","url":"https://a.test/b"}}},
      {"name":"ResourceReceiveResponse","ph":"I","pid":2,"tid":3,"ts":4,"args":{"data":{"requestId":"B"}}},
      {"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":5,"args":{"data":{"requestId":"C","url":"https://a.test/c","initiator":{"type":"script"},"stackTrace":[]}}}
    ]"#);
    data.add_simulation_initiator_stacks(Micros(0.0), Micros(100.0), &interner);
    let stacked: Vec<bool> = data.requests.iter().map(|r| r.initiator_has_stack).collect();
    assert_eq!(stacked, [true, false, false]);
    let mut dump = Dump::new(&interner);
    let value = data.dump(&mut dump);
    dump.handler("NetworkRequests", value);
    let mut out = String::new();
    dump.write(&mut out);
    assert!(
        out.contains(r#""initiator":{"stack":{"callFrames":[{"columnNumber":0,"functionName":null,"lineNumber":2,"scriptId":"1","url":"https://a.test/"}]},"type":"script"}"#),
        "{out}"
    );
}

#[test]
fn the_dump_keys_requests_by_their_last_send() {
    let (data, interner) = run(ONE_REQUEST);
    let mut dump = Dump::new(&interner);
    let value = data.dump(&mut dump);
    dump.handler("NetworkRequests", value);
    let mut out = String::new();
    dump.write(&mut out);
    let key = "$SyntheticNetworkRequest:2:3:1000:#2";
    assert!(out.contains(&format!(r#""byId":{{"$map":[["R1","{key}"]]}}"#)), "{out}");
    assert!(
        out.contains(r#""entityMappings":{"eventsByEntity":{"$map":[["entity:Google Fonts",["#),
        "{out}"
    );
    assert!(out.contains(r#""incompleteInitiator":{}"#));
    assert!(
        out.contains(r#""stackTrace":[{"columnNumber":3,"functionName":"f","lineNumber":2,"scriptId":4,"url":""}]"#)
    );
    assert!(out.contains(r#""isDiskCached":false"#) && out.contains(r#""requestingFrameUrl":"https://a.test/""#));
}

/// The Renderer's entity events in the dump: a JS call by its key (its
/// sample index, -1 for a call of a sample trace id), a begin/end pair as
/// the complete event DevTools makes of it.
#[test]
fn the_dump_writes_calls_and_begin_end_pairs_of_the_renderer() {
    use crate::{CallSample, ThreadNumber, TrackEntries, TrackEntry};
    use tracekit_events::Id;
    let (data, mut interner) = run(ONE_REQUEST);
    let mut entities = data.entities.clone();
    let entity = crate::Entity::for_url("https://d.test/", &mut interner).unwrap();
    /// One thread (number 0: process 2, thread 3) whose calls start at
    /// 2048 µs, on profile node 5, and whose pair (at 20) lasts 50 µs.
    struct OneThread;
    impl TrackEntries for OneThread {
        fn entry(&self, thread: ThreadNumber, position: u32) -> Option<TrackEntry> {
            let (pid, tid) = (thread == ThreadNumber(0)).then(|| (Id::num(2.0), Id::num(3.0)))?;
            let (ts, dur, node_id) = if position == 20 {
                (2200.0, 50.0, 0)
            } else {
                (2048.0, 0.0, 5)
            };
            Some(TrackEntry {
                pid,
                tid,
                ts,
                dur,
                node_id,
            })
        }
    }
    let call = |sample, position| EntityEvent::ProfileCall {
        thread: ThreadNumber(0),
        position,
        sample: CallSample::new(sample),
    };
    let text =
        r#"{"name":"ParseHTML","ph":"B","pid":2,"tid":3,"ts":2200,"args":{"beginData":{"url":"https://d.test/"}}}"#;
    let pair = EntityEvent::BeginEnd {
        thread: ThreadNumber(0),
        position: 20,
        begin: 9,
        text: interner.intern(text),
    };
    // A call of a thread the tracks do not have is written null.
    let stray = EntityEvent::ProfileCall {
        thread: ThreadNumber(1),
        position: 10,
        sample: CallSample::NONE,
    };
    for event in [call(Some(7), 10), call(None, 11), call(None, 12), pair, stray] {
        assert!(entities.add_once(entity, event));
    }
    let mut dump = Dump::new(&interner);
    let value = data.dump_with(&entities, &OneThread, &mut dump);
    dump.handler("NetworkRequests", value);
    let mut out = String::new();
    dump.write(&mut out);
    let calls = r#""$ProfileCall:2:3:2048:5:7","$ProfileCall:2:3:2048:5:-1","$ProfileCall:2:3:2048:5:-1:2""#;
    let expected = format!(r#"["entity:d.test",[{calls},"$ParseHTML:2:3:2200",null]]"#);
    assert!(out.contains(&expected), "{out}");
    assert!(
        out.contains(r#""ParseHTML:2:3:2200":{"args":{"beginData":{"url":"https://d.test/"}},"dur":50,"name":"ParseHTML","ph":"X","pid":2,"tid":3,"ts":2200}"#),
        "{out}"
    );
}
