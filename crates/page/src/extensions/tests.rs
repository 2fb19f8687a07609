//! The ExtensionTraceData handler on small hand-written traces.

use tracekit_events::dump::Dump;
use tracekit_events::{feed, AnalyzeOptions};

use super::*;
use crate::user_timings::UserTimingsHandler;

fn run(text: &str) -> (UserTimings, ExtensionTraceData, Context) {
    let mut cx = Context::new(AnalyzeOptions::default().with_all_handlers(true));
    let mut timings = UserTimingsHandler::default();
    feed(text, &mut timings, &mut cx).unwrap();
    let mut handler = ExtensionTraceDataHandler::default();
    feed(text, &mut handler, &mut cx).unwrap();
    let timings = timings.finalize((), &mut cx);
    let data = handler.finalize(&timings, &mut cx);
    (timings, data, cx)
}

fn detail(devtools: &str) -> String {
    let detail = format!(r#"{{"devtools":{devtools},"mine":1}}"#);
    let mut quoted = String::new();
    tracekit_events::json::write_json_string(&mut quoted, &detail);
    quoted
}

fn measure(name: &str, id: u32, begin: u32, end: u32, devtools: &str) -> String {
    format!(
        r#"{{"name":"{name}","cat":"blink.user_timing","ph":"b","id":"{id}","pid":1,"tid":2,"ts":{begin},"args":{{"detail":{}}}}},
        {{"name":"{name}","cat":"blink.user_timing","ph":"e","id":"{id}","pid":1,"tid":2,"ts":{end},"args":{{}}}}"#,
        detail(devtools)
    )
}

#[test]
fn measures_nest_on_their_tracks_and_marks_become_markers() {
    let mark = format!(
        r#"{{"name":"m","cat":"blink.user_timing","ph":"R","pid":1,"tid":2,"ts":300,"args":{{"data":{{"detail":{}}}}}}}"#,
        detail(r#"{"dataType":"marker","color":"error"}"#)
    );
    let trace = [
        measure("outer", 1, 100, 400, r#"{"track":"T","trackGroup":"G"}"#),
        measure("inner", 2, 150, 250, r#"{"track":"T","trackGroup":"G"}"#),
        measure("other", 3, 120, 130, r#"{"track":"U","dataType":"track-entry"}"#),
        measure("plain", 4, 100, 900, r#"{"dataType":"bogus"}"#),
        mark,
    ];
    let trace = format!("[{}]", trace.join(","));
    let (_, data, cx) = run(&trace);
    let names: Vec<&str> = data.entries.iter().map(|e| cx.interner.resolve(e.name)).collect();
    assert_eq!(names, ["outer", "other", "inner"]);
    assert_eq!(data.markers.len(), 1);
    assert!(data.markers[0].marker && data.markers[0].dur.is_none());
    assert_eq!(data.tracks.len(), 2);
    let group = &data.tracks[0];
    assert!(group.is_track_group);
    assert_eq!(group.entries_by_track.len(), 1);
    assert_eq!(group.entries_by_track[0].1, [0, 2]);
    // outer holds inner: its self time is its duration less inner's.
    let outer = &data.nodes[0];
    assert_eq!((outer.entry, outer.depth, outer.self_time), (0, 0, Micros(200.0)));
    assert_eq!(outer.children, [1]);
    assert_eq!((data.nodes[1].parent, data.nodes[1].id), (Some(0), 1));
    // The payload that is neither marker nor entry is counted.
    assert_eq!(cx.diagnostics.skipped[&Skip::ExtensionMalformedDetail].count, 1);
    // The user detail is the detail without its `devtools`.
    assert_eq!(data.entries[0].user_detail.as_deref(), Some(r#"{"mine":1}"#));
}

#[test]
fn time_stamps_find_their_bounds_by_label() {
    let (_, data, cx) = run(r#"[
        {"name":"TimeStamp","cat":"devtools.timeline","ph":"I","pid":1,"tid":2,"ts":10,"args":{"data":{"message":"a"}}},
        {"name":"TimeStamp","cat":"devtools.timeline","ph":"I","pid":1,"tid":2,"ts":50,"args":{"data":{"name":"b","start":"a","track":"T","color":"primary","devtools":"{\"x\":1}"}}},
        {"name":"TimeStamp","cat":"devtools.timeline","ph":"I","pid":1,"tid":2,"ts":60,"args":{"data":{"name":"c","start":"a","end":"b"}}},
        {"name":"TimeStamp","cat":"devtools.timeline","ph":"I","pid":1,"tid":2,"ts":70,"args":{"data":{"name":"d","start":"nowhere","end":"a"}}},
        {"name":"TimeStamp","cat":"devtools.timeline","ph":"I","pid":1,"tid":2,"ts":80,"args":{"data":{"name":"e","end":"nowhere","track":"T"}}},
        {"name":"TimeStamp","cat":"devtools.timeline","ph":"I","pid":1,"tid":2,"ts":90,"args":{}}
    ]"#);
    let spans: Vec<(&str, Micros, Option<Micros>)> = data
        .entries
        .iter()
        .map(|e| (cx.interner.resolve(e.name), e.ts, e.dur))
        .collect();
    // b: from a to itself; e: its end names nothing, so at its own time.
    assert_eq!(
        spans,
        [
            ("b", Micros(10.0), Some(Micros(40.0))),
            ("e", Micros(80.0), Some(Micros(0.0)))
        ]
    );
    assert_eq!(data.entries[0].user_detail.as_deref(), Some(r#"{"x":1}"#));
    let [c] = &data.timings_track_stamps[..] else {
        panic!("{data:?}")
    };
    assert_eq!((c.ts, c.dur), (Micros(10.0), Micros(40.0)));
    // d (start not found, end found) is left out; d and e are counted.
    assert_eq!(cx.diagnostics.skipped[&Skip::ExtensionUnresolvedTimeStamp].count, 2);
}

#[test]
fn the_extension_entry_takes_the_measures_key_first() {
    let trace = format!("[{}]", measure("x", 1, 100, 400, r#"{"track":"T"}"#));
    let (timings, data, cx) = run(&trace);
    let strings = cx.interner.into_strings();
    let mut dump = Dump::new(&strings);
    let value = data.dump(&mut dump);
    dump.handler("ExtensionTraceData", value);
    let value = timings.dump(&mut dump);
    dump.handler("UserTimings", value);
    let mut out = String::new();
    dump.write(&mut out);
    assert!(out.contains(r##""performanceMeasures":["$x:1:2:100:#0:2"]"##), "{out}");
    assert!(
        out.contains(r##""x:1:2:100:#0":{"cat":"devtools.extension","devtoolsObj":{"track":"T"},"dur":300,"name":"x","ph":"X","pid":1,"rawSourceEvent":"#0","tid":2,"ts":100,"userDetail":{"mine":1}}"##),
        "{out}"
    );
}
