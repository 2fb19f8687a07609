//! `tracekit data`: the handlers' data of a trace, end to end.

use std::path::PathBuf;
use std::process::Command;

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

#[test]
fn data_of_one_handler() {
    let out = tracekit(&[
        "data",
        "traces/worker.json.gz",
        "--handler",
        "Workers",
        "--format",
        "conformance",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let workers = &doc["handlers"]["Workers"];
    assert_eq!(doc["handlers"].as_object().unwrap().len(), 1);
    let urls = workers["workerURLById"]["$map"].as_array().unwrap();
    assert_eq!(urls.len(), 1);
    assert!(urls[0][1].as_str().unwrap().ends_with("/worker-task.js?scale=1"));
}

#[test]
fn an_unknown_handler_is_a_usage_error_listing_them() {
    let out = tracekit(&["data", "traces/worker.json.gz", "--handler", "Nope"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("handlers: ") && err.contains("Workers"), "{err}");
}

#[test]
fn a_profile_has_no_handler_data() {
    let out = tracekit(&["data", "handwritten/node.cpuprofile"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim(),
        "tracekit: handwritten/node.cpuprofile: a CPU profile has no handler data: only a Chrome trace has (tracks, calltree and summary read profiles)"
    );
}

#[test]
fn network_lists_the_requests_of_a_page_load() {
    let out = tracekit(&["network", "traces/page-load.json.gz"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("   start    total   queue"), "{text}");
    let css = text.lines().find(|l| l.contains("/page-load.css")).unwrap();
    assert!(css.contains(" blocking ") && css.contains(" parser "), "{css}");
    let json = tracekit(&["network", "traces/page-load.json.gz", "--format", "json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&json.stdout).unwrap();
    // One row per line of the table but its header and its footnote.
    assert_eq!(rows.len(), text.lines().count() - 2);
    let starts: Vec<f64> = rows.iter().map(|r| r["start"].as_f64().unwrap()).collect();
    assert!(starts.windows(2).all(|w| w[0] <= w[1]), "sorted by start");
    let css = rows
        .iter()
        .find(|r| r["url"].as_str().unwrap().contains("/page-load.css"))
        .unwrap();
    assert_eq!(css["renderBlocking"], "blocking");
    assert_eq!(css["status"], 200.0);
    assert!(
        css["wait"].as_f64().unwrap() >= 250.0,
        "served with a 300 ms delay: {css}"
    );
}

#[test]
fn network_of_a_trace_without_requests_says_so() {
    let out = tracekit(&["network", "handwritten/nesting.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "tracekit: handwritten/nesting.json: the trace has no network requests (no ResourceSendRequest event)"
    );
    let json = tracekit(&["network", "handwritten/nesting.json", "--format", "json"]);
    assert_eq!(String::from_utf8_lossy(&json.stdout).trim(), "[]");
}
