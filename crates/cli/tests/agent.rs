//! `tracekit agent`: the texts chrome-devtools-mcp gives an AI agent,
//! end to end.

#[path = "support/run.rs"]
mod run;

use run::{fixtures, run, tracekit};

#[test]
fn the_summary_is_chrome_devtools_mcp_s() {
    let out = tracekit(&["agent", "summary", "traces/causes.json.gz"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let golden = std::fs::read_to_string(fixtures().join("expected/2026-10/agent/causes.summary.txt")).unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), golden);
}

#[test]
fn the_summary_names_the_metrics_events_by_their_keys() {
    let out = tracekit(&[
        "agent",
        "summary",
        "traces/page-load.json.gz",
        "--cpu",
        "4",
        "--network",
        "Slow 4G",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("\nCPU throttling: 4x\nNetwork throttling: Slow 4G\n"),
        "{text}"
    );
    assert!(
        text.contains("  - INP: 236 ms, event: (eventKey: s-16472, ts: 22594405154)\n"),
        "{text}"
    );
    assert!(
        text.contains("  - CLS: 0.11, event: (eventKey: s-8944, ts: 22593299431)\n"),
        "{text}"
    );
}

#[test]
fn a_file_that_is_not_a_trace_is_one_line_and_exit_1() {
    let out = tracekit(&["agent", "summary", "no-such-file.json"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn the_call_tree_of_a_click_is_devtools_s() {
    let out = tracekit(&["agent", "call-tree", "traces/page-load.json.gz", "r-10129"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let golden =
        std::fs::read_to_string(fixtures().join("expected/2026-10/agent/page-load.calltree.r-10129.txt")).unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), golden);
}

#[test]
fn request_lists_and_lcp_analyses_are_chrome_devtools_mcp_s() {
    for name in [
        "RenderBlocking",
        "ModernHTTP",
        "LCPDiscovery",
        "NetworkDependencyTree",
        "ImageDelivery",
    ] {
        let out = tracekit(&["agent", "insight", "traces/page-load.json.gz", "NAVIGATION_0", name]);
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let golden = fixtures().join(format!(
            "expected/2026-10/agent/page-load.insight.NAVIGATION_0.{name}.txt"
        ));
        let golden = std::fs::read_to_string(golden).unwrap();
        assert_eq!(String::from_utf8(out.stdout).unwrap(), golden, "{name}");
    }
}

#[test]
fn the_inp_breakdown_is_analysed_and_a_bad_set_or_key_is_one_line() {
    let out = tracekit(&[
        "agent",
        "insight",
        "traces/page-load.json.gz",
        "NAVIGATION_0",
        "INPBreakdown",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("## Insight Title: INP breakdown\n"), "{text}");
    for args in [
        [
            "agent",
            "insight",
            "traces/page-load.json.gz",
            "NAVIGATION_9",
            "INPBreakdown",
        ]
        .as_slice(),
        &["agent", "insight", "traces/page-load.json.gz", "NAVIGATION_0", "Nope"],
        &["agent", "call-tree", "traces/page-load.json.gz", "x-1"],
        &["agent", "call-tree", "traces/page-load.json.gz", "r-999999"],
    ] {
        let out = tracekit(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
}

#[test]
fn the_main_thread_activity_is_devtools_s_whole_and_over_a_window() {
    let golden = |name: &str| std::fs::read_to_string(fixtures().join("expected/2026-10/agent").join(name)).unwrap();
    let out = tracekit(&["agent", "activity", "traces/page-load.json.gz"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), golden("page-load.activity.txt"));
    let window = std::fs::read_dir(fixtures().join("expected/2026-10/agent"))
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().into_string().ok())
        .find_map(|n| {
            let w = n.strip_prefix("page-load.activity.window.")?.strip_suffix(".txt")?;
            Some((n.clone(), w.replace('-', ",")))
        })
        .expect("a window golden of page-load");
    let out = tracekit(&["agent", "activity", "traces/page-load.json.gz", "--window", &window.1]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), golden(&window.0));
    // A window backwards is refused before the trace is read.
    let out = tracekit(&["agent", "activity", "traces/page-load.json.gz", "--window", "20,10"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("START not after END"), "{stderr}");
    // A window off the trace is an error that gives the trace's bounds,
    // not a text of empty sections.
    let (code, _, stderr) = run(&["agent", "activity", "traces/page-load.json.gz", "--window", "1,2"]);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("the window 1..2 µs is outside the trace, whose bounds are"),
        "{stderr}"
    );
}
