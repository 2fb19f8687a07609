//! The UserTimings handler on small hand-written traces.

use tracekit_events::{feed, AnalyzeOptions};

use super::*;

fn run(text: &str) -> (UserTimings, Context) {
    let mut cx = Context::new(AnalyzeOptions::default().with_all_handlers(true));
    let mut handler = UserTimingsHandler::default();
    feed(text, &mut handler, &mut cx).unwrap();
    (handler.finalize((), &mut cx), cx)
}

#[test]
fn pairs_measures_and_console_timings() {
    let (data, cx) = run(r#"[
        {"name":"m","cat":"blink.user_timing","ph":"b","id":"0x1","pid":1,"tid":2,"ts":100,"args":{}},
        {"name":"mark","cat":"blink.user_timing","ph":"R","pid":1,"tid":2,"ts":120,"args":{}},
        {"name":"fetchStart","cat":"blink.user_timing","ph":"R","pid":1,"tid":2,"ts":120,"args":{}},
        {"name":"m","cat":"blink.user_timing","ph":"e","id":"0x1","pid":1,"tid":9,"ts":300,"args":{}},
        {"name":"t","cat":"blink.console","ph":"b","id2":{"local":"0x2"},"pid":1,"tid":2,"ts":50,"args":{}},
        {"name":"t","cat":"blink.console","ph":"e","id2":{"local":"0x2"},"pid":1,"tid":2,"ts":70,"args":{}},
        {"name":"back","cat":"blink.console","ph":"b","id":"0x3","pid":1,"tid":2,"ts":90,"args":{}},
        {"name":"back","cat":"blink.console","ph":"e","id":"0x3","pid":1,"tid":2,"ts":80,"args":{}},
        {"name":"UserTiming::Measure","cat":"devtools.timeline","ph":"X","pid":1,"tid":2,"ts":100,"dur":1,"args":{"traceId":42}}
    ]"#);
    let marks: Vec<(EventIndex, &str, Micros)> = data
        .performance_marks
        .iter()
        .map(|m| (m.event, cx.interner.resolve(m.name), m.ts))
        .collect();
    assert_eq!(marks, [(1, "mark", Micros(120.0))]);
    let [measure] = &data.performance_measures[..] else {
        panic!("{data:?}")
    };
    assert_eq!((measure.begin, measure.end, measure.dur), (0, Some(3), Micros(200.0)));
    assert_eq!(measure.tid, Id::num(9.0));
    assert_eq!(cx.interner.resolve(measure.id), "blink.user_timing:0x1:m");
    // The pair that would end before it began is no timing.
    let [console] = &data.console_timings[..] else {
        panic!("{data:?}")
    };
    assert_eq!(cx.interner.resolve(console.id), "blink.console:0x2:t");
    assert_eq!(
        data.measure_trace_by_trace_id.values().copied().collect::<Vec<_>>(),
        [8]
    );
}

#[test]
fn orders_equal_times_of_one_track_last_first() {
    let (data, _) = run(r#"[
        {"name":"a","cat":"blink.user_timing","ph":"b","id":"1","pid":1,"tid":2,"ts":100,"args":{}},
        {"name":"b","cat":"blink.user_timing","ph":"b","id":"2","pid":1,"tid":2,"ts":100,"args":{}},
        {"name":"a","cat":"blink.user_timing","ph":"e","id":"1","pid":1,"tid":2,"ts":200,"args":{}},
        {"name":"b","cat":"blink.user_timing","ph":"e","id":"2","pid":1,"tid":2,"ts":200,"args":{}},
        {"name":"TimeStamp","cat":"devtools.timeline","ph":"I","pid":1,"tid":2,"ts":10,"args":{"data":{"start":5,"end":50,"track":"x"}}},
        {"name":"TimeStamp","cat":"devtools.timeline","ph":"I","pid":1,"tid":2,"ts":10,"args":{"data":{"start":5,"end":50,"track":"x"}}},
        {"name":"TimeStamp","cat":"devtools.timeline","ph":"I","pid":1,"tid":2,"ts":1,"args":{"data":{}}}
    ]"#);
    let begins: Vec<EventIndex> = data.performance_measures.iter().map(|m| m.begin).collect();
    assert_eq!(begins, [1, 0]);
    let stamps: Vec<(EventIndex, Micros, Micros)> = data
        .timestamp_events
        .iter()
        .map(|t| (t.event, t.start, t.end))
        .collect();
    assert_eq!(
        stamps,
        [
            (6, Micros(1.0), Micros(1.0)),
            (5, Micros(5.0), Micros(50.0)),
            (4, Micros(5.0), Micros(50.0))
        ]
    );
}

#[test]
fn a_measure_track_needs_a_valid_devtools_payload() {
    let mut cx = Context::default();
    let mut track = |detail: &str| {
        let mut args = String::from(r#"{"detail":"#);
        tracekit_events::json::write_json_string(&mut args, detail);
        args.push('}');
        measure_track(7, Some(&args), &mut cx)
    };
    assert!(matches!(track(r#"{"devtools":{"track":"T"}}"#), Track::Value(_)));
    assert!(matches!(track(r#"{"devtools":{"track":{"a":1}}}"#), Track::Unique(7)));
    assert_eq!(
        track(r#"{"devtools":{"track":"T","dataType":"other"}}"#),
        Track::Undefined
    );
    assert_eq!(track(r#"{"devtools":"T"}"#), Track::Undefined);
    assert_eq!(track("not json"), Track::Undefined);
}
