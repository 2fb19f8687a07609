//! Why things happened, end to end: `tracekit tracks --why` (the warnings
//! in text, the initiator and warnings of each node in JSON) and the
//! warnings and scripts of `tracekit info`, on a small trace written here
//! and on the recorded fixtures.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn tracekit(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(args)
        .current_dir(fixtures())
        .output()
        .expect("runs")
}

/// The standard output of a command that must succeed without a word on
/// stderr.
fn stdout(args: &[&str]) -> String {
    let out = tracekit(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// A renderer whose main thread has a long task with a forced layout in
/// its JavaScript, a timer installed there and fired later, and a timer
/// installed in the browser process (which DevTools does not show) fired
/// on the renderer: an initiator on no track. The events' indexes are
/// their lines' order, from 0.
const TIMERS: &str = r#"{"traceEvents":[
{"name":"process_name","ph":"M","pid":100,"tid":0,"ts":0,"args":{"name":"Browser"}},
{"name":"thread_name","ph":"M","pid":100,"tid":101,"ts":0,"args":{"name":"CrBrowserMain"}},
{"name":"thread_name","ph":"M","pid":200,"tid":201,"ts":0,"args":{"name":"CrRendererMain"}},
{"name":"TracingStartedInBrowser","cat":"disabled-by-default-devtools.timeline","ph":"I","s":"t","pid":100,"tid":101,"ts":1000,"args":{"data":{"frameTreeNodeId":1,"persistentIds":true,"frames":[{"frame":"F1","url":"https://main.test/","name":"","processId":200,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}]}}},
{"name":"RunTask","cat":"disabled-by-default-devtools.timeline","ph":"X","pid":200,"tid":201,"ts":2000,"dur":60000,"args":{}},
{"name":"FunctionCall","cat":"devtools.timeline","ph":"X","pid":200,"tid":201,"ts":2100,"dur":40000,"args":{"data":{"frame":"F1","url":"https://main.test/app.js","functionName":"go"}}},
{"name":"TimerInstall","cat":"devtools.timeline","ph":"I","s":"t","pid":200,"tid":201,"ts":2200,"args":{"data":{"frame":"F1","timerId":1,"timeout":50,"singleShot":true}}},
{"name":"Layout","cat":"devtools.timeline","ph":"X","pid":200,"tid":201,"ts":3000,"dur":35000,"args":{"beginData":{"frame":"F1"}}},
{"name":"TimerInstall","cat":"devtools.timeline","ph":"I","s":"t","pid":100,"tid":101,"ts":2500,"args":{"data":{"frame":"F0","timerId":2,"timeout":10,"singleShot":true}}},
{"name":"RunTask","cat":"disabled-by-default-devtools.timeline","ph":"X","pid":200,"tid":201,"ts":70000,"dur":1000,"args":{}},
{"name":"TimerFire","cat":"devtools.timeline","ph":"X","pid":200,"tid":201,"ts":70100,"dur":500,"args":{"data":{"frame":"F1","timerId":1}}},
{"name":"RunTask","cat":"disabled-by-default-devtools.timeline","ph":"X","pid":200,"tid":201,"ts":80000,"dur":1000,"args":{}},
{"name":"TimerFire","cat":"devtools.timeline","ph":"X","pid":200,"tid":201,"ts":80100,"dur":500,"args":{"data":{"frame":"F1","timerId":2}}}
],"metadata":{"source":"tracekit test: crates/cli/tests/why.rs"}}"#;

/// [`TIMERS`] in a file of its own.
fn timers_trace() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tracekit-why-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("timers.json");
    std::fs::write(&path, TIMERS).unwrap();
    path
}

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({
        snapshot_path => "../../../fixtures/snapshots",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name, text);
    });
}

/// Each line of `with` is the line of `without`, then its warnings in
/// brackets; returns the lines with warnings.
fn only_warnings_added(with: &str, without: &str) -> Vec<String> {
    assert_eq!(with.lines().count(), without.lines().count());
    let mut marked = Vec::new();
    for (a, b) in with.lines().zip(without.lines()) {
        let rest = a
            .strip_prefix(b)
            .unwrap_or_else(|| panic!("{a:?} does not start with {b:?}"));
        if !rest.is_empty() {
            let labels = [
                "long task",
                "forced reflow",
                "idle callback over time",
                "long interaction",
            ];
            assert!(
                rest.split(" [")
                    .skip(1)
                    .all(|w| labels.iter().any(|l| w == format!("{l}]"))),
                "{rest:?}"
            );
            marked.push(a.to_owned());
        }
    }
    marked
}

#[test]
fn text_ends_the_lines_of_flagged_entries_with_their_warnings() {
    let trace = timers_trace();
    let trace = trace.to_str().unwrap();
    let with = stdout(&["tracks", trace, "--why"]);
    let without = stdout(&["tracks", trace]);
    let marked = only_warnings_added(&with, &without);
    assert_eq!(marked.len(), 2, "{with}");
    assert!(marked[0].trim_start().starts_with("RunTask ") && marked[0].ends_with(" [long task]"));
    assert!(marked[1].trim_start().starts_with("Layout ") && marked[1].ends_with(" [forced reflow]"));
    snapshot("why__timers", &with);

    // Idle callbacks over time, a long task and forced reflows, in the
    // hand-written fixture of the page handlers.
    let with = stdout(&["tracks", "handwritten/page-extensions.json", "--why"]);
    let without = stdout(&["tracks", "handwritten/page-extensions.json"]);
    let marked = only_warnings_added(&with, &without);
    snapshot("why__page-extensions", &marked.join("\n"));
}

/// The warnings of every recorded fixture, in text, are those of the
/// Warnings handler on the tracks' events.
#[test]
fn text_warnings_of_the_recorded_traces() {
    for name in ["kitchen-sink", "main-thread", "page-load"] {
        let path = format!("traces/{name}.json.gz");
        let with = stdout(&["tracks", &path, "--why"]);
        let without = stdout(&["tracks", &path]);
        let marked = only_warnings_added(&with, &without);
        let long_tasks = marked.iter().filter(|l| l.ends_with("[long task]")).count();
        assert!(long_tasks > 0, "{name}");
        assert!(marked
            .iter()
            .filter(|l| l.ends_with("[long task]"))
            .all(|l| l.trim_start().starts_with("RunTask ")));
    }
}

fn nodes(doc: &Value) -> Vec<(Value, Value, usize, &Value)> {
    let mut all = Vec::new();
    for p in doc["processes"].as_array().unwrap() {
        for t in p["threads"].as_array().unwrap() {
            for (i, n) in t["nodes"].as_array().unwrap().iter().enumerate() {
                all.push((p["pid"].clone(), t["tid"].clone(), i, n));
            }
        }
    }
    all
}

/// Drops what `--why` adds to the nodes.
fn strip_why(doc: &mut Value) {
    for p in doc["processes"].as_array_mut().unwrap() {
        for t in p["threads"].as_array_mut().unwrap() {
            for n in t["nodes"].as_array_mut().unwrap() {
                let n = n.as_object_mut().unwrap();
                n.remove("initiator");
                n.remove("warnings");
            }
        }
    }
}

#[test]
fn json_gives_each_node_its_initiator_and_warnings() {
    let trace = timers_trace();
    let trace = trace.to_str().unwrap();
    let mut doc: Value = serde_json::from_str(&stdout(&["tracks", trace, "--why", "--format", "json"])).unwrap();
    let all = nodes(&doc);
    let fires: Vec<&Value> = all.iter().filter(|n| n.3["name"] == "TimerFire").map(|n| n.3).collect();
    assert_eq!(fires.len(), 2);
    // The first timer was installed on the same thread: its node is there.
    let first = &fires[0]["initiator"];
    assert_eq!(
        (&first["event"], &first["name"], &first["kind"]),
        (&Value::from(6), &Value::from("TimerInstall"), &Value::from("timer"))
    );
    let install = all
        .iter()
        .find(|n| n.2 as u64 == first["node"].as_u64().unwrap() && n.0 == first["pid"] && n.1 == first["tid"])
        .unwrap();
    assert_eq!(
        (install.3["name"].as_str(), install.3["ts"].as_f64()),
        (Some("TimerInstall"), Some(2200.0))
    );
    // The second, in the browser, which DevTools does not show: on no
    // track, still given, by its index.
    let second = &fires[1]["initiator"];
    assert_eq!(
        (&second["event"], &second["kind"]),
        (&Value::from(8), &Value::from("timer"))
    );
    assert!(second["node"].is_null() && second["name"].is_null(), "{second}");
    // The long task and the forced layout.
    let warned: Vec<(&str, &Value)> = all
        .iter()
        .filter(|n| n.3.get("warnings").is_some())
        .map(|n| (n.3["name"].as_str().unwrap(), &n.3["warnings"]))
        .collect();
    assert_eq!(
        warned,
        [
            ("RunTask", &serde_json::json!(["LONG_TASK"])),
            ("Layout", &serde_json::json!(["FORCED_REFLOW"]))
        ]
    );
    // Without --why, the same document without those members.
    let without: Value = serde_json::from_str(&stdout(&["tracks", trace, "--format", "json"])).unwrap();
    strip_why(&mut doc);
    assert_eq!(doc, without);
}

/// On a recorded trace: every initiator on a track points at a node that
/// is the event it names, each timer fire at a timer install, and the
/// kinds of links DevTools draws are there.
#[test]
fn json_initiators_of_a_recorded_trace_point_at_their_nodes() {
    let doc: Value = serde_json::from_str(&stdout(&[
        "tracks",
        "traces/kitchen-sink.json.gz",
        "--why",
        "--format",
        "json",
    ]))
    .unwrap();
    let all = nodes(&doc);
    let at: std::collections::HashMap<(String, String, u64), &Value> = all
        .iter()
        .map(|(pid, tid, i, n)| ((pid.to_string(), tid.to_string(), *i as u64), *n))
        .collect();
    let mut kinds = std::collections::BTreeSet::new();
    let mut linked = 0;
    for (_, _, _, node) in &all {
        let Some(initiator) = node.get("initiator") else {
            continue;
        };
        linked += 1;
        kinds.insert(initiator["kind"].as_str().unwrap_or("?").to_owned());
        if let Some(position) = initiator["node"].as_u64() {
            let key = (initiator["pid"].to_string(), initiator["tid"].to_string(), position);
            let target = at[&key];
            let name = match target["type"].as_str() {
                Some("js") => match target["functionName"].as_str() {
                    Some("") => "(anonymous)",
                    other => other.unwrap(),
                },
                _ => target["name"].as_str().unwrap(),
            };
            assert_eq!(initiator["name"], name);
            assert_eq!(target["ts"], initiator["ts"]);
        }
        if node["name"] == "TimerFire" && initiator["kind"] == "timer" {
            assert_eq!(initiator["name"], "TimerInstall");
        }
    }
    assert!(linked > 1000, "{linked}");
    for kind in [
        "timer",
        "animation frame",
        "style recalc",
        "layout invalidation",
        "flow",
    ] {
        assert!(kinds.contains(kind), "{kind} not in {kinds:?}");
    }
}

#[test]
fn why_with_the_conformance_dump_is_a_usage_error() {
    let out = tracekit(&["tracks", "traces/worker.json.gz", "--why", "--format", "conformance"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("tracekit: --why adds to the text and json formats"),
        "{stderr}"
    );
    // A profile has no page: its tracks, and a warning.
    let out = tracekit(&["tracks", "traces/node-work.cpuprofile.gz", "--why", "--max-depth", "1"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: traces/node-work.cpuprofile.gz: --why: a CPU profile has no page"),
        "{stderr}"
    );
    assert_eq!(
        out.stdout,
        tracekit(&["tracks", "traces/node-work.cpuprofile.gz", "--max-depth", "1"]).stdout
    );
}

#[test]
fn info_counts_warnings_by_kind_and_scripts_by_source_map() {
    let info = stdout(&["info", "traces/page-load.json.gz"]);
    let line = |start: &str| {
        info.lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no {start:?} in {info}"))
            .to_owned()
    };
    // The Warnings handler's data of the recording.
    assert_eq!(
        line("  warnings: "),
        "  warnings: 5 long tasks, 1 idle callback over time, 2 long interactions"
    );
    assert_eq!(line("  scripts: "), "  scripts: 13 (0 with a source map, 13 without)");
    assert!(line("    without: ").ends_with(" (and 3 more URLs)"), "{info}");
    let info = stdout(&["info", "handwritten/page-extensions.json"]);
    assert!(
        info.contains("  scripts: none (the trace has no V8 source rundown)\n"),
        "{info}"
    );
    assert!(
        info.contains("  warnings: 1 long task, 2 idle callbacks over time, 2 forced reflows\n"),
        "{info}"
    );
}
