//! The tables of why things happened (`initiators`, `warnings`,
//! `scripts`) against the page rows they are made from, the handlers'
//! data and the `tracks` table, on the recorded fixtures and on small
//! traces written here.

use std::collections::HashMap;

use arrow_array::cast::AsArray;
use arrow_array::RecordBatch;
use serde_json::Value;
use tracekit::{Analysis, AnalyzeOptions};

use super::{column, fixtures, float, int, string};
use crate::Table;

fn load(name: &str) -> Analysis {
    let path = fixtures().join(name);
    let options = crate::load_options(&AnalyzeOptions::default(), &[Table::Initiators]);
    crate::load_file(&path, name, &options).unwrap()
}

fn load_text(text: &str) -> Analysis {
    let options = AnalyzeOptions::default().with_all_handlers(true);
    crate::load_bytes(text.as_bytes(), "t", &options).unwrap()
}

fn boolean(batch: &RecordBatch, name: &str, row: usize) -> bool {
    column(batch, name).as_boolean().value(row)
}

/// The name of each node of the `tracks` table, by pid, tid and position.
fn track_names(analysis: &Analysis) -> HashMap<(Option<i64>, Option<i64>, i64), Value> {
    let tracks = Table::Tracks.build(analysis, "t").unwrap();
    (0..tracks.num_rows())
        .map(|r| {
            let key = (
                int(&tracks, "pid", r),
                int(&tracks, "tid", r),
                int(&tracks, "node", r).unwrap(),
            );
            (key, string(&tracks, "name", r))
        })
        .collect()
}

#[test]
fn initiators_are_the_page_rows_and_point_at_track_nodes() {
    let analysis = load("traces/kitchen-sink.json.gz");
    let batch = Table::Initiators.build(&analysis, "t").unwrap();
    assert_eq!(batch.schema(), Table::Initiators.schema());
    let rows = tracekit::page::initiators(&analysis).unwrap();
    assert!(rows.len() > 1000, "{}", rows.len());
    assert_eq!(batch.num_rows(), rows.len());
    assert_eq!(
        rows.len(),
        analysis.handlers().unwrap().initiators().event_to_initiator.len()
    );
    let names = track_names(&analysis);
    let mut kinds = std::collections::BTreeSet::new();
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(int(&batch, "event", i), r.event.event.map(i64::from));
        assert_eq!(int(&batch, "initiator_event", i), r.initiator.event.map(i64::from));
        let kind = string(&batch, "kind", i);
        assert_eq!(kind, r.kind.map_or(Value::Null, |k| Value::from(k.name())));
        kinds.insert(kind.as_str().unwrap_or("?").to_owned());
        for prefix in ["", "initiator_"] {
            let Some(node) = int(&batch, &format!("{prefix}node"), i) else {
                continue;
            };
            let key = (
                int(&batch, &format!("{prefix}pid"), i),
                int(&batch, &format!("{prefix}tid"), i),
                node,
            );
            // A JS call's name in `tracks` is its function's, as here.
            assert_eq!(names[&key], string(&batch, &format!("{prefix}name"), i), "row {i}");
        }
    }
    for kind in [
        "timer",
        "animation frame",
        "style recalc",
        "layout invalidation",
        "flow",
    ] {
        assert!(kinds.contains(kind), "{kind} not in {kinds:?}");
    }
    // By the start of the initiated event.
    let starts: Vec<f64> = (0..batch.num_rows())
        .filter_map(|r| float(&batch, "ts_us", r))
        .collect();
    assert!(starts.windows(2).all(|w| w[0] <= w[1]));
}

/// A timer installed in the browser process (not shown by DevTools) and
/// fired on the renderer: its initiator is on no track, and still listed,
/// by its index.
#[test]
fn an_initiator_on_no_track_is_listed_with_what_is_known() {
    let analysis = load_text(
        r#"[
{"name":"thread_name","ph":"M","pid":100,"tid":101,"ts":0,"args":{"name":"CrBrowserMain"}},
{"name":"thread_name","ph":"M","pid":200,"tid":201,"ts":0,"args":{"name":"CrRendererMain"}},
{"name":"TracingStartedInBrowser","ph":"I","pid":100,"tid":101,"ts":1000,"args":{"data":{"frames":[
  {"frame":"F1","url":"https://main.test/","processId":200,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}]}}},
{"name":"TimerInstall","ph":"I","pid":100,"tid":101,"ts":1500,"args":{"data":{"frame":"F0","timerId":2}}},
{"name":"RunTask","ph":"X","pid":200,"tid":201,"ts":2000,"dur":1000,"args":{}},
{"name":"TimerFire","ph":"X","pid":200,"tid":201,"ts":2100,"dur":500,"args":{"data":{"frame":"F1","timerId":2}}}
]"#,
    );
    let batch = Table::Initiators.build(&analysis, "t").unwrap();
    assert_eq!(batch.num_rows(), 1);
    assert_eq!(
        (
            int(&batch, "event", 0),
            string(&batch, "name", 0),
            int(&batch, "node", 0)
        ),
        (Some(5), Value::from("TimerFire"), Some(1))
    );
    assert_eq!(float(&batch, "ts_us", 0), Some(2100.0));
    assert_eq!(int(&batch, "initiator_event", 0), Some(3));
    for c in ["initiator_name", "initiator_node", "initiator_ts_us"] {
        assert!(column(&batch, c).is_null(0), "{c}");
    }
    assert_eq!(string(&batch, "kind", 0), "timer");
}

#[test]
fn warnings_are_the_handlers_by_kind() {
    let analysis = load("traces/page-load.json.gz");
    let batch = Table::Warnings.build(&analysis, "t").unwrap();
    assert_eq!(batch.schema(), Table::Warnings.schema());
    let data = analysis.handlers().unwrap().warnings();
    let total: usize = data.per_warning.values().map(Vec::len).sum();
    assert_eq!(batch.num_rows(), total);
    for (warning, flagged) in &data.per_warning {
        let rows: Vec<usize> = (0..batch.num_rows())
            .filter(|r| string(&batch, "warning", *r) == warning.name())
            .collect();
        assert_eq!(rows.len(), flagged.len(), "{}", warning.name());
        for r in rows {
            assert_eq!(string(&batch, "label", r), tracekit::page::warning_label(*warning));
        }
    }
    for r in 0..batch.num_rows() {
        match string(&batch, "warning", r).as_str().unwrap() {
            // On a track: a task over 50 ms; else (a process DevTools
            // does not show) known by its index alone.
            "LONG_TASK" => match int(&batch, "node", r) {
                Some(_) => {
                    assert_eq!(string(&batch, "name", r), "RunTask");
                    assert!(float(&batch, "dur_us", r).unwrap() > 50_000.0);
                }
                None => {
                    assert!(int(&batch, "event", r).is_some());
                    assert!(string(&batch, "name", r).is_null());
                }
            },
            "LONG_INTERACTION" => {
                assert_eq!(string(&batch, "name", r), "EventTiming");
                assert!(string(&batch, "interaction_type", r).is_string());
                assert!(int(&batch, "node", r).is_none());
                assert!(float(&batch, "dur_us", r).unwrap() > 200_000.0);
            }
            _ => {}
        }
    }
}

#[test]
fn scripts_with_and_without_source_maps() {
    let analysis = load_text(
        r#"[
{"name":"thread_name","ph":"M","pid":2,"tid":3,"ts":0,"args":{"name":"CrRendererMain"}},
{"name":"TracingStartedInBrowser","ph":"I","pid":1,"tid":1,"ts":900,"args":{"data":{"frames":[
  {"frame":"F","url":"https://a.test/page.html","processId":2,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}]}}},
{"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":950,"args":{"data":{"requestId":"R1","url":"https://a.test/js/app.js","frame":"F"}}},
{"name":"ResourceFinish","ph":"I","pid":2,"tid":3,"ts":980,"args":{"data":{"requestId":"R1","finishTime":0.001}}},
{"name":"ScriptCatchup","cat":"disabled-by-default-devtools.v8-source-rundown","ph":"I","pid":2,"tid":3,"ts":1000,
 "args":{"data":{"isolate":"7","scriptId":5,"url":"https://a.test/js/app.js","sourceMapUrl":"../maps/app.js.map"}}},
{"name":"ScriptCompiled","cat":"disabled-by-default-devtools.target-rundown","ph":"I","pid":2,"tid":3,"ts":1001,
 "args":{"data":{"isolate":"7","scriptId":5,"frame":"F"}}},
{"name":"ScriptCatchup","cat":"disabled-by-default-devtools.v8-source-rundown-sources","ph":"I","pid":2,"tid":3,"ts":1002,
 "args":{"data":{"isolate":"7","scriptId":5,"length":5,"sourceText":"x=1;\n"}}},
{"name":"ScriptCatchup","cat":"disabled-by-default-devtools.v8-source-rundown","ph":"I","pid":2,"tid":3,"ts":1003,
 "args":{"data":{"isolate":"7","scriptId":6,"url":"https://a.test/other.js"}}}
]"#,
    );
    let batch = Table::Scripts.build(&analysis, "t").unwrap();
    assert_eq!(batch.schema(), Table::Scripts.schema());
    assert_eq!(batch.num_rows(), 2);
    assert_eq!(
        (string(&batch, "isolate", 0), string(&batch, "script_id", 0)),
        ("7".into(), "5".into())
    );
    assert_eq!(string(&batch, "source_map_url", 0), "../maps/app.js.map");
    assert_eq!(
        string(&batch, "resolved_source_map_url", 0),
        "https://a.test/maps/app.js.map"
    );
    assert!(boolean(&batch, "has_source_map", 0) && boolean(&batch, "has_source", 0));
    assert_eq!(
        (string(&batch, "frame", 0), string(&batch, "request_id", 0)),
        ("F".into(), "R1".into())
    );
    assert_eq!(int(&batch, "length", 0), Some(5));
    assert_eq!(float(&batch, "ts_us", 0), Some(1001.0));
    assert_eq!(string(&batch, "url", 1), "https://a.test/other.js");
    assert!(!boolean(&batch, "has_source_map", 1) && !boolean(&batch, "has_source", 1));
    assert!(string(&batch, "source_map_url", 1).is_null());
    let info = tracekit::output::info(&analysis);
    assert!(info.contains("  scripts: 2 (1 with a source map, 1 without)\n    with a source map: https://a.test/js/app.js\n    without: https://a.test/other.js\n"), "{info}");

    // The recorded page load: 13 scripts, none with a source map.
    let analysis = load("traces/page-load.json.gz");
    let batch = Table::Scripts.build(&analysis, "t").unwrap();
    assert_eq!(batch.num_rows(), analysis.handlers().unwrap().scripts().scripts.len());
    assert_eq!(batch.num_rows(), 13);
    assert!((0..13).all(|r| !boolean(&batch, "has_source_map", r)));
    assert!((0..13).any(|r| string(&batch, "request_id", r).is_string()));
}
