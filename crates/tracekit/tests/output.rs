//! The output formats on one tiny trace: the exact text of each, what the
//! filters keep, and the JSON document's fields (`docs/json-format.md`).

use serde_json::Value;
use tracekit::output::{conformance, json, text};
use tracekit::query::{Query, Window};
use tracekit::Millis;
use tracekit::{Analysis, AnalyzeOptions};

/// Two threads: a task running JS (sampled: `main`, and an anonymous
/// function it calls) with an instant; a compositor frame.
const TINY: &str = r#"[
{"name":"thread_name","ph":"M","pid":1,"tid":1,"ts":0,"args":{"name":"CrRendererMain"}},
{"name":"thread_name","ph":"M","pid":1,"tid":2,"ts":0,"args":{"name":"Compositor"}},
{"name":"RunTask","cat":"toplevel","ph":"X","pid":1,"tid":1,"ts":1000,"dur":100},
{"name":"FunctionCall","cat":"devtools.timeline","ph":"X","pid":1,"tid":1,"ts":1010,"dur":80},
{"name":"Mark","cat":"blink","ph":"I","s":"t","pid":1,"tid":1,"ts":1095},
{"name":"Composite","cat":"cc","ph":"X","pid":1,"tid":2,"ts":1200,"dur":0.5},
{"name":"Profile","cat":"v8","ph":"P","pid":1,"tid":1,"ts":1000,"id":"0x1","args":{"data":{"startTime":0}}},
{"name":"ProfileChunk","cat":"v8","ph":"P","pid":1,"tid":1,"ts":1000,"id":"0x1","args":{"data":{"cpuProfile":{"nodes":[
  {"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}},
  {"id":2,"parent":1,"callFrame":{"functionName":"main","scriptId":"7","url":"https://a.test/app.js","lineNumber":4,"columnNumber":2}},
  {"id":3,"parent":2,"callFrame":{"functionName":"","scriptId":"7","url":"https://a.test/app.js","lineNumber":9,"columnNumber":0}}],
  "samples":[3,3,2]},"timeDeltas":[20,30,30]}}}
]"#;

fn analyze(trace: &str) -> Analysis {
    tracekit::analyze_bytes(trace.as_bytes(), &AnalyzeOptions::default()).unwrap()
}

/// What the DevTools oracle prints for `TINY` (`node xtask/js/oracle.mjs`).
const TINY_CONFORMANCE: &str = r#"{"processes":[{"pid":1,"url":null,"isOnMainFrame":false,"threads":[{"tid":1,"name":"CrRendererMain","entries":[[0,"RunTask",1000,100,20],[1,"FunctionCall",1010,80,10],[2,"js:main@https://a.test/app.js:4:2",1020,70,10],[3,"js:@https://a.test/app.js:9:0",1020,60,60],[1,"Mark",1095,0,0]]},{"tid":2,"name":"Compositor","entries":[[0,"Composite",1200,0.5,0.5]]}]}],"bounds":{"min":1000,"max":1200.5}}
"#;

#[test]
fn the_conformance_dump_is_the_oracles() {
    assert_eq!(conformance(&analyze(TINY)), TINY_CONFORMANCE);
}

/// Numbers are rounded to three decimals in the dump, as the oracle
/// prints them; string ids stay strings.
#[test]
fn the_conformance_dump_rounds_to_three_decimals() {
    let analysis = analyze(r#"[{"name":"R","ph":"X","pid":"p","tid":"t","ts":1.23456,"dur":2.0004}]"#);
    assert_eq!(
        conformance(&analysis),
        r#"{"processes":[{"pid":"p","url":null,"isOnMainFrame":false,"threads":[{"tid":"t","name":null,"entries":[[0,"R",1.235,2,2]]}]}],"bounds":{"min":1.235,"max":3.235}}
"#
    );
}

const TINY_TEXT: &str = "\
trace: ChromeTrace, 0.201 ms long, times in ms from 1000 µs
process 1
  thread 1 CrRendererMain
    RunTask  @0.000 +0.100 self 0.020
      FunctionCall  @0.010 +0.080 self 0.010
        js main https://a.test/app.js:5:3  @0.020 +0.070 self 0.010
          js (anonymous) https://a.test/app.js:10:1  @0.020 +0.060 self 0.060
      Mark  @0.095 +0.000 self 0.000
  thread 2 Compositor
    Composite  @0.200 +0.001 self 0.001
";

#[test]
fn the_text_format() {
    assert_eq!(text(&analyze(TINY), &Query::new()), TINY_TEXT);
}

/// The lines of `TINY_TEXT` a filter keeps: the node lines whose
/// (trimmed) label starts with one of `labels`, under the headers of the
/// threads and processes they belong to (a filtered text leaves out the
/// threads and processes left empty), and the trace line.
fn text_keeping(labels: &[&str]) -> String {
    let mut out = String::new();
    let (mut process, mut thread) = (None::<&str>, None::<&str>);
    for line in TINY_TEXT.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("trace:") {
            out.push_str(line);
            out.push('\n');
        } else if trimmed.starts_with("process ") {
            process = Some(line);
        } else if trimmed.starts_with("thread ") {
            thread = Some(line);
        } else if labels.iter().any(|l| trimmed.starts_with(l)) {
            for header in [process.take(), thread.take()].into_iter().flatten() {
                out.push_str(header);
                out.push('\n');
            }
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn filtered(filter: Query) -> String {
    text(&analyze(TINY), &filter)
}

#[test]
fn the_thread_filter_keeps_one_thread_by_name_or_id() {
    let compositor = text_keeping(&["Composite"]);
    assert_eq!(filtered(Query::new().with_thread("Compositor").unwrap()), compositor);
    assert_eq!(filtered(Query::new().with_thread("2").unwrap()), compositor);
    assert_eq!(filtered(Query::new().with_thread("nope").unwrap()), text_keeping(&[]));
}

/// The window is in milliseconds from the start of the trace; a node is
/// kept if it overlaps it (ends included).
#[test]
fn the_window_filter_keeps_the_nodes_overlapping_it() {
    let window =
        |start: f64, end: f64| filtered(Query::new().with_window(Window::new(Millis(start), Millis(end)).unwrap()));
    assert_eq!(window(0.15, 0.25), text_keeping(&["Composite"]));
    assert_eq!(
        window(0.085, 0.095),
        text_keeping(&["RunTask", "FunctionCall", "js main", "Mark"])
    );
    // From 0.2005 ms on nothing is left but the thread headers.
    assert_eq!(window(0.3, 0.4), text_keeping(&[]));
}

#[test]
fn the_depth_filter_keeps_the_top_levels() {
    assert_eq!(
        filtered(Query::new().with_levels(2).unwrap()),
        text_keeping(&["RunTask", "FunctionCall", "Mark", "Composite"])
    );
    assert_eq!(
        filtered(Query::new().with_levels(1).unwrap()),
        text_keeping(&["RunTask", "Composite"])
    );
}

/// The nodes lasting at least the minimum (an instant lasts 0).
#[test]
fn the_duration_filter_keeps_the_long_nodes() {
    assert_eq!(
        filtered(Query::new().with_min_duration(Millis(0.065)).unwrap()),
        text_keeping(&["RunTask", "FunctionCall", "js main"])
    );
    assert_eq!(
        filtered(Query::new().with_min_duration(Millis(0.0)).unwrap()),
        TINY_TEXT
    );
}

#[test]
fn the_filters_apply_to_the_json_formats_too() {
    let analysis = analyze(TINY);
    let filter = Query::new().with_thread("Compositor").unwrap();
    let doc: Value = serde_json::from_str(&json(&analysis, &filter)).unwrap();
    let threads = doc["processes"][0]["threads"].as_array().unwrap();
    assert_eq!(threads.len(), 1);
    assert_eq!(threads[0]["tid"], 2);
    let mut dump = Vec::new();
    tracekit::output::write_conformance(&analysis, &filter, tracekit::Parallelism::Sequential, &mut dump).unwrap();
    let dump: Value = serde_json::from_slice(&dump).unwrap();
    assert_eq!(dump["processes"][0]["threads"].as_array().unwrap().len(), 1);
}

const TINY_JSON: &str = r#"{"format":"tracekit-tracks","version":1,"input":"ChromeTrace","bounds":{"min":1000,"max":1200.5},"processes":[{"pid":1,"url":null,"isOnMainFrame":false,"keptByDevTools":true,"threads":[{"tid":1,"name":"CrRendererMain","nodes":[{"depth":0,"type":"event","name":"RunTask","cat":"toplevel","ph":"X","ts":1000,"dur":100,"self":20},{"depth":1,"type":"event","name":"FunctionCall","cat":"devtools.timeline","ph":"X","ts":1010,"dur":80,"self":10},{"depth":2,"type":"js","functionName":"main","url":"https://a.test/app.js","scriptId":"7","lineNumber":4,"columnNumber":2,"nodeId":2,"ts":1020,"dur":70,"self":10},{"depth":3,"type":"js","functionName":"","url":"https://a.test/app.js","scriptId":"7","lineNumber":9,"columnNumber":0,"nodeId":3,"ts":1020,"dur":60,"self":60},{"depth":1,"type":"event","name":"Mark","cat":"blink","ph":"I","ts":1095,"dur":0,"self":0}]},{"tid":2,"name":"Compositor","nodes":[{"depth":0,"type":"event","name":"Composite","cat":"cc","ph":"X","ts":1200,"dur":0.5,"self":0.5}]}]}],"diagnostics":{"warnings":[],"skipped":[]}}
"#;

#[test]
fn the_json_format() {
    assert_eq!(json(&analyze(TINY), &Query::new()), TINY_JSON);
}

fn keys(v: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    keys
}

/// The fields `docs/json-format.md` documents, with their types.
#[test]
fn the_json_document_has_the_documented_fields() {
    let doc: Value = serde_json::from_str(&json(&analyze(TINY), &Query::new())).unwrap();
    assert_eq!(
        keys(&doc),
        ["bounds", "diagnostics", "format", "input", "processes", "version"]
    );
    assert_eq!(doc["format"], "tracekit-tracks");
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["input"], "ChromeTrace");
    assert_eq!(keys(&doc["bounds"]), ["max", "min"]);
    let process = &doc["processes"][0];
    assert_eq!(
        keys(process),
        ["isOnMainFrame", "keptByDevTools", "pid", "threads", "url"]
    );
    let thread = &process["threads"][0];
    assert_eq!(keys(thread), ["name", "nodes", "tid"]);
    let nodes = thread["nodes"].as_array().unwrap();
    let event_keys = ["cat", "depth", "dur", "name", "ph", "self", "ts", "type"];
    let js_keys = [
        "columnNumber",
        "depth",
        "dur",
        "functionName",
        "lineNumber",
        "nodeId",
        "scriptId",
        "self",
        "ts",
        "type",
        "url",
    ];
    for node in nodes {
        match node["type"].as_str() {
            Some("event") => assert_eq!(keys(node), event_keys),
            Some("js") => assert_eq!(keys(node), js_keys),
            other => panic!("type {other:?}"),
        }
        assert!(node["ts"].is_number() && node["dur"].is_number() && node["depth"].is_u64());
    }
    // Pre-order: a node's parent is the nearest node before it that is
    // less deep.
    let depths: Vec<u64> = nodes.iter().map(|n| n["depth"].as_u64().unwrap()).collect();
    assert_eq!(depths, [0, 1, 2, 3, 1]);
    assert_eq!(keys(&doc["diagnostics"]), ["skipped", "warnings"]);
}

/// Skips are listed with their reason, count and first example; a trace
/// without a time gives null bounds.
#[test]
fn the_json_document_lists_what_was_skipped() {
    let analysis = analyze(
        r#"[{"name":"A","ph":"X","pid":1,"tid":1,"ts":5,"dur":1},
            {"name":"Z","ph":"E","pid":1,"tid":1,"ts":6},
            {"name":"Z","ph":"E","pid":1,"tid":1,"ts":7}]"#,
    );
    let doc: Value = serde_json::from_str(&json(&analysis, &Query::new())).unwrap();
    assert_eq!(
        doc["diagnostics"]["skipped"],
        serde_json::json!([{"reason": "renderer: end event without a begin", "count": 2, "firstExample": "event 1 at ts 6"}])
    );
    let analysis = analyze(r#"[{"name":"thread_name","ph":"M","pid":1,"tid":1,"ts":0,"args":{"name":"x"}}]"#);
    let doc: Value = serde_json::from_str(&json(&analysis, &Query::new())).unwrap();
    assert!(
        doc["bounds"]["min"].is_null() && doc["bounds"]["max"].is_null(),
        "{doc}"
    );
    assert_eq!(doc["processes"], serde_json::json!([]));
}

#[test]
fn every_format_ends_with_a_newline_and_only_the_text_has_more_than_one_line() {
    let analysis = analyze(TINY);
    let filter = Query::new();
    for out in [conformance(&analysis), json(&analysis, &filter)] {
        assert!(out.ends_with("}\n") && out.matches('\n').count() == 1);
    }
    assert_eq!(text(&analysis, &filter).lines().count(), 10);
}

/// The JSON document's times are rounded to the nanosecond: sums and
/// differences of doubles carry noise in their last bits (a profile's
/// `dur` of `699.9999999999318` µs), which a reader should not see.
#[test]
fn json_times_are_rounded_to_the_nanosecond() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/handwritten/node.cpuprofile"
    );
    let analysis = tracekit::analyze_bytes(&std::fs::read(file).unwrap(), &AnalyzeOptions::default()).unwrap();
    let thread = analysis.threads().next().unwrap();
    let raw = thread.nodes().next().unwrap().duration().0;
    assert!(raw != 700.0 && (raw - 700.0).abs() < 1e-9, "the fixture's noise: {raw}");
    let doc: Value = serde_json::from_str(&json(&analysis, &Query::new())).unwrap();
    let nodes = doc["processes"][0]["threads"][0]["nodes"].as_array().unwrap();
    assert_eq!(nodes[0]["dur"], 700);
    for (node, ours) in nodes.iter().zip(thread.nodes()) {
        for (key, time) in [
            ("ts", ours.start().0),
            ("dur", ours.duration().0),
            ("self", ours.self_time().unwrap().0),
        ] {
            let written = node[key].as_f64().unwrap();
            assert_eq!(written, (time * 1000.0).round() / 1000.0, "{key} of {node}");
            assert!(
                node[key].to_string().split('.').nth(1).is_none_or(|d| d.len() <= 3),
                "{node}"
            );
        }
    }
}
