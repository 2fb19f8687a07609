//! The Scripts handler on small hand-written traces: rundown events in any
//! order, frames from `FunctionCall`s, source text whole and hashed,
//! inline scripts, requests, source map URLs, and bad input.

use tracekit_events::dump::Dump;
use tracekit_events::{feed, AnalyzeOptions, Context, Handler, Strings};
use tracekit_meta::MetaHandler;

use super::*;
use crate::network::NetworkRequestsHandler;

const PAGE: &str = r#"
  {"name":"TracingStartedInBrowser","ph":"I","pid":1,"tid":1,"ts":900,"args":{"data":{"frames":[
    {"frame":"F","url":"https://a.test/page.html","processId":2,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}]}}},
  {"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":950,"args":{"data":{"requestId":"R1",
    "url":"https://a.test/js/app.js","frame":"F"}}},
  {"name":"ResourceFinish","ph":"I","pid":2,"tid":3,"ts":980,"args":{"data":{"requestId":"R1","finishTime":0.001}}}"#;

const RUNDOWN: &str = "disabled-by-default-devtools.v8-source-rundown";
const SOURCES: &str = "disabled-by-default-devtools.v8-source-rundown-sources";
const TARGET: &str = "disabled-by-default-devtools.target-rundown";

fn event(name: &str, cat: &str, ts: u32, data: &str) -> String {
    format!(r#"{{"name":"{name}","cat":"{cat}","ph":"I","pid":2,"tid":3,"ts":{ts},"args":{{"data":{data}}}}}"#)
}

fn run(events: &[String]) -> (Scripts, NetworkRequests, Context) {
    let text = format!("[{PAGE},{}]", events.join(","));
    let mut cx = Context::new(AnalyzeOptions::default().with_all_handlers(true));
    let (mut meta, mut network, mut scripts) = (
        MetaHandler::default(),
        NetworkRequestsHandler::default(),
        ScriptsHandler::default(),
    );
    feed(&text, &mut meta, &mut cx).unwrap();
    feed(&text, &mut network, &mut cx).unwrap();
    feed(&text, &mut scripts, &mut cx).unwrap();
    let meta = meta.finalize((), &mut cx);
    let network = network.finalize(&meta, &mut cx);
    let scripts = scripts.finalize((&meta, &network), &mut cx);
    (scripts, network, cx)
}

fn text(strings: &Strings, sym: Option<Sym>) -> Option<&str> {
    sym.map(|s| strings.resolve(s))
}

#[test]
fn scripts_gather_their_rundown_frame_request_and_source_map() {
    let (data, network, cx) = run(&[
        event(
            "ScriptCatchup",
            RUNDOWN,
            1000,
            r#"{"isolate":"7","scriptId":5,"url":"https://a.test/js/app.js",
            "sourceMapUrl":"../maps/app.js.map","executionContextId":3}"#,
        ),
        event(
            "ScriptCompiled",
            TARGET,
            1001,
            r#"{"isolate":"7","scriptId":5,"frame":"F"}"#,
        ),
        event(
            "ScriptCatchup",
            SOURCES,
            1002,
            r#"{"isolate":"7","scriptId":5,"length":5,"sourceText":"x=1;\n"}"#,
        ),
        event(
            "ScriptCatchup",
            RUNDOWN,
            1003,
            r#"{"isolate":"7","scriptId":6,"url":"https://a.test/page.html",
            "sourceUrl":"inline.js","sourceMapUrl":"inline.js.map"}"#,
        ),
        event(
            "ScriptCatchup",
            SOURCES,
            1004,
            r#"{"isolate":"7","scriptId":6,"sourceText":"y"}"#,
        ),
    ]);
    let strings = &cx.interner;
    assert_eq!(data.scripts.len(), 2);
    let app = &data.scripts[0];
    assert_eq!(text(strings, app.frame), Some("F"));
    assert_eq!(
        (app.ts, app.execution_context_id, app.length),
        (Micros(1001.0), Some(3.0), Some(5.0))
    );
    assert_eq!(app.content, Some(ScriptSource::Text("x=1;\n".into())));
    assert!(!app.inline);
    assert_eq!(network.requests[app.request.unwrap() as usize].url, app.url.unwrap());
    assert_eq!(text(strings, app.source_map_url), Some("../maps/app.js.map"));
    assert_eq!(
        text(strings, app.resolved_source_map_url),
        Some("https://a.test/maps/app.js.map")
    );
    // An inline script: its URL is the document's. It has no frame, so
    // DevTools would not resolve its source map.
    let inline = &data.scripts[1];
    assert!(inline.inline && inline.request.is_none());
    assert_eq!(text(strings, inline.frame), Some(""));
    assert_eq!(inline.resolved_source_map_url, None);
    assert!(cx.diagnostics.skipped.is_empty(), "{:?}", cx.diagnostics.skipped);
}

#[test]
fn function_calls_give_the_frame_of_scripts_no_rundown_placed() {
    let call = |ts: u32, isolate: &str, frame: &str| {
        format!(
            r#"{{"name":"FunctionCall","cat":"devtools.timeline","ph":"X","dur":1,"pid":2,"tid":3,"ts":{ts},
            "args":{{"data":{{"isolate":{isolate},"frame":"{frame}"}}}}}}"#
        )
    };
    let (data, _, cx) = run(&[
        event(
            "ScriptCatchup",
            RUNDOWN,
            1000,
            r#"{"isolate":"7","scriptId":1,"url":"a.js"}"#,
        ),
        call(1001, r#""7""#, "G"),
        call(1002, r#""8""#, "H"),
        event(
            "ScriptCatchup",
            RUNDOWN,
            1003,
            r#"{"isolate":"8","scriptId":2,"url":"b.js"}"#,
        ),
        // A number isolate is another Map key than its text.
        call(1004, "9", "K"),
        event(
            "ScriptCatchup",
            RUNDOWN,
            1005,
            r#"{"isolate":9,"scriptId":3,"url":"c.js"}"#,
        ),
        // A ScriptCompiled without a frame unplaces a script; the next
        // frame of its isolate places it again, the same frame does not.
        event("ScriptCompiled", TARGET, 1006, r#"{"isolate":"8","scriptId":2}"#),
        call(1007, r#""8""#, "H"),
        event(
            "ScriptCompiled",
            TARGET,
            1008,
            r#"{"isolate":"7","scriptId":1,"frame":""}"#,
        ),
        call(1009, r#""7""#, "J"),
    ]);
    let strings = &cx.interner;
    let frames: Vec<_> = data.scripts.iter().map(|s| text(strings, s.frame)).collect();
    assert_eq!(frames, [Some("J"), None, Some("")]);
}

#[test]
fn long_sources_are_hashed_as_their_pieces_arrive() {
    let half = "é".repeat(600);
    let whole = format!("{half}{half}");
    let (data, network, cx) = run(&[
        event("ScriptCatchup", RUNDOWN, 1000, r#"{"isolate":1,"scriptId":1,"url":""}"#),
        event(
            "LargeScriptCatchup",
            SOURCES,
            1001,
            &format!(r#"{{"isolate":1,"scriptId":1,"sourceText":"{half}"}}"#),
        ),
        event(
            "LargeScriptCatchup",
            SOURCES,
            1002,
            &format!(r#"{{"isolate":1,"scriptId":1,"sourceText":"{half}"}}"#),
        ),
        // A whole text replaces the pieces.
        event("ScriptCatchup", RUNDOWN, 1003, r#"{"isolate":1,"scriptId":2,"url":""}"#),
        event(
            "LargeScriptCatchup",
            SOURCES,
            1004,
            r#"{"isolate":1,"scriptId":2,"sourceText":"ab"}"#,
        ),
        event(
            "ScriptCatchup",
            SOURCES,
            1005,
            r#"{"isolate":1,"scriptId":2,"sourceText":"c"}"#,
        ),
    ]);
    let digest = sha1_smol::Sha1::from(whole.as_bytes()).digest().to_string();
    assert_eq!(
        data.scripts[0].content,
        Some(ScriptSource::Long {
            length: 1200,
            sha1: digest.clone().into()
        })
    );
    assert_eq!(data.scripts[1].content, Some(ScriptSource::Text("c".into())));
    // The dump writes the hashed text as DevTools' dump writes the string.
    let strings = cx.interner.into_strings();
    let mut dump = Dump::new(&strings);
    let value = data.dump(&network, &mut dump);
    dump.handler("Scripts", value);
    let mut out = String::new();
    dump.write(&mut out);
    assert!(out.contains(&format!(r#""content":"$str:1200:{digest}""#)), "{out}");
    assert!(out.contains(
        r#"{"content":"c","frame":"","inline":false,"isolate":1,"request":null,"scriptId":"2","ts":1003,"url":""}"#
    ));
}

#[test]
fn bad_input_is_counted_and_kept_as_devtools_keeps_it() {
    let (data, network, cx) = run(&[
        // A source for a script no ScriptCatchup describes: made all the same.
        event("ScriptCatchup", SOURCES, 1000, r#"{"isolate":1,"scriptId":4,"sourceText":"z"}"#),
        // A described script without its source, in a trace with sources.
        event("ScriptCatchup", RUNDOWN, 1001, r#"{"isolate":1,"scriptId":5,"url":"https://a.test/x.js",
            "sourceMapUrl":"m.map"}"#),
        event("ScriptCompiled", TARGET, 1002, r#"{"isolate":1,"scriptId":5,"frame":"F"}"#),
        // No data, a script id that is an object, a URL that is a number.
        r#"{"name":"ScriptCatchup","cat":"disabled-by-default-devtools.v8-source-rundown","ph":"I","pid":2,"tid":3,"ts":1003,"args":{}}"#.to_owned(),
        event("ScriptCatchup", RUNDOWN, 1004, r#"{"isolate":1,"scriptId":{"a":1}}"#),
        event("ScriptCatchup", RUNDOWN, 1005, r#"{"isolate":1,"scriptId":6,"url":12}"#),
        event("ScriptCatchup", SOURCES, 1006, r#"{"isolate":1,"scriptId":6}"#),
    ]);
    assert_eq!(data.scripts.len(), 3);
    assert!(!data.scripts[0].described);
    assert_eq!(data.scripts[2].url, None);
    assert_eq!(data.scripts[2].content, Some(ScriptSource::Missing));
    assert_eq!(cx.diagnostics.skipped[&Skip::ScriptsUnreadableEvent].count, 3);
    // The undescribed script and the one without source.
    assert_eq!(cx.diagnostics.skipped[&Skip::ScriptsIncomplete].count, 2);
    let strings = cx.interner.into_strings();
    let mut dump = Dump::new(&strings);
    let value = data.dump(&network, &mut dump);
    dump.handler("Scripts", value);
    let mut out = String::new();
    dump.write(&mut out);
    assert!(out
        .contains(r#"{"content":"z","frame":"","inline":false,"isolate":1,"request":null,"scriptId":"4","ts":1000}"#));
    assert!(out.contains(r#""content":null,"#));
}

#[test]
fn a_data_url_map_is_read_and_sizes_the_main_frame_script() {
    // `{"version":3,"sources":["src/a.js"],"names":[],"mappings":"AAAA"}`, base64.
    let map = "data:application/json;base64,eyJ2ZXJzaW9uIjozLCJzb3VyY2VzIjpbInNyYy9hLmpzIl0sIm5hbWVzIjpbXSwibWFwcGluZ3MiOiJBQUFBIn0=";
    let events = [
        event(
            "ScriptCatchup",
            RUNDOWN,
            1000,
            &format!(r#"{{"isolate":"7","scriptId":5,"url":"https://a.test/js/app.js","sourceMapUrl":"{map}"}}"#),
        ),
        event(
            "ScriptCompiled",
            TARGET,
            1001,
            r#"{"isolate":"7","scriptId":5,"frame":"F"}"#,
        ),
        event(
            "ScriptCatchup",
            SOURCES,
            1002,
            r#"{"isolate":"7","scriptId":5,"sourceText":"x=1;\nyy"}"#,
        ),
    ];
    let (data, _, cx) = run(&events);
    let strings = &cx.interner;
    let found = data.scripts[0].source_map.as_deref().expect("the data: URL's map");
    // Its sources are relative to the script's URL (a data: map has no URL of its own).
    let sources: Vec<&str> = found.sources.iter().map(|s| strings.resolve(*s)).collect();
    assert_eq!(sources, ["https://a.test/js/src/a.js"]);
    let sizes = found.sizes.clone().unwrap().unwrap();
    // One mapping, at the start of line 1: the line and its newline.
    assert_eq!(sizes.files.len(), 1);
    assert_eq!(
        (sizes.files[0].1, sizes.unmapped_bytes, sizes.total_bytes),
        (5.0, 2.0, 7.0)
    );
    // Without the maps of the trace (chrome-devtools-mcp), none.
    let text = format!("[{PAGE},{}]", events.join(","));
    let options = AnalyzeOptions::default()
        .with_all_handlers(true)
        .with_trace_source_maps(false);
    let mut cx = Context::new(options);
    let (mut meta, mut network, mut scripts) = (
        MetaHandler::default(),
        NetworkRequestsHandler::default(),
        ScriptsHandler::default(),
    );
    feed(&text, &mut meta, &mut cx).unwrap();
    feed(&text, &mut network, &mut cx).unwrap();
    feed(&text, &mut scripts, &mut cx).unwrap();
    let meta = meta.finalize((), &mut cx);
    let network = network.finalize(&meta, &mut cx);
    let scripts = scripts.finalize((&meta, &network), &mut cx);
    assert!(scripts.scripts[0].source_map.is_none());
    assert!(!scripts.with_source_maps);
}
