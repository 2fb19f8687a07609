//! End to end: `tracekit summary`, the Summary of each thread
//! (crates/views/src/summary.rs).

#[path = "support/run.rs"]
mod support;

use support::{fixtures, run};

const CATEGORIES: &str = "handwritten/views/summary-categories.json";

#[test]
fn conformance_is_the_oracles_dump_byte_for_byte() {
    for (window, golden) in [
        (None, "views/summary-categories.json"),
        (Some("0.25..0.875"), "views/summary-categories.window-0.25..0.875.json"),
        (Some("1.02..1.65"), "views/summary-categories.window-1.02..1.65.json"),
    ] {
        let mut args = vec!["summary", CATEGORIES, "--format", "conformance"];
        if let Some(window) = window {
            args.extend(["--window", window]);
        }
        let (code, stdout, stderr) = run(&args);
        assert_eq!((code, stderr.as_str()), (Some(0), ""));
        let golden = std::fs::read_to_string(fixtures().join("expected/2026-10/summary").join(golden)).unwrap();
        assert_eq!(stdout, golden, "{window:?}");
    }
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

#[test]
fn text_of_a_small_trace() {
    let (code, stdout, stderr) = run(&["summary", CATEGORIES]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    snapshot("summary__summary-categories", &stdout);
    // A window from inside a layout (under a script) to inside an event of
    // the idle category.
    let (code, stdout, stderr) = run(&["summary", CATEGORIES, "--window", "0.25..0.875"]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    snapshot("summary__summary-categories.window", &stdout);
}

#[test]
fn json_lists_the_categories_as_the_panel_does() {
    let (code, stdout, stderr) = run(&["summary", CATEGORIES, "--format", "json"]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["window"]["start"], 0.0);
    assert_eq!(value["window"]["end"], 2.0);
    let thread = &value["threads"][0];
    assert_eq!(thread["name"], "CrRendererMain");
    let rows = thread["categories"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "other",
            "scripting",
            "rendering",
            "loading",
            "async",
            "painting",
            "messaging",
            "gpu"
        ]
    );
    assert_eq!(rows[0]["title"], "System");
    let total = thread["total"].as_f64().unwrap();
    let sum: f64 = rows.iter().map(|r| r["ms"].as_f64().unwrap()).sum::<f64>() + thread["idle"].as_f64().unwrap();
    assert!((sum - total).abs() < 1e-9, "{sum} vs {total}");
    for row in rows {
        let percent = row["ms"].as_f64().unwrap() * 100.0 / total;
        assert!((row["percent"].as_f64().unwrap() - percent).abs() < 1e-9);
    }
}

#[test]
fn a_thread_and_an_output_file() {
    let dir = std::env::temp_dir().join(format!("tracekit-summary-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("summary.txt");
    let (code, stdout, stderr) = run(&[
        "summary",
        "traces/main-thread.json.gz",
        "--thread",
        "crrenderermain",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (Some(0), "", ""));
    let text = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let threads: Vec<&str> = text.lines().filter(|l| l.starts_with("thread ")).collect();
    assert_eq!(threads, ["thread 19383 CrRendererMain (pid 19383)"], "{text}");
    assert!(text.contains("  Scripting     1012.029 ms   44.5%\n"), "{text}");
}

#[test]
fn an_open_window_ends_with_the_trace() {
    let (_, open, _) = run(&["summary", CATEGORIES, "--window", "1.02.."]);
    let (_, closed, _) = run(&["summary", CATEGORIES, "--window", "1.02..2"]);
    assert!(open.starts_with("Summary, window 1.020..2.000 ms"), "{open}");
    assert_eq!(open, closed);
}

#[test]
fn a_thread_that_does_not_exist_is_an_error() {
    let (code, stdout, stderr) = run(&["summary", CATEGORIES, "--thread", "nosuch"]);
    assert_eq!((code, stdout.as_str()), (Some(1), ""));
    assert_eq!(
        stderr,
        "tracekit: handwritten/views/summary-categories.json: no thread matches 'nosuch'; threads: CrRendererMain (tid 1)\n"
    );
}

#[test]
fn a_window_outside_the_trace_is_an_error() {
    let (code, stdout, stderr) = run(&["summary", CATEGORIES, "--window", "50..60"]);
    assert_eq!((code, stdout.as_str()), (Some(1), ""));
    assert_eq!(
        stderr,
        "tracekit: handwritten/views/summary-categories.json: the window 50..60 ms lies outside the trace (0..2.000 ms)\n"
    );
}

#[test]
fn an_empty_window_is_an_error() {
    for (window, shown) in [("1..1", "1..1"), ("2..", "2..")] {
        let (code, stdout, stderr) = run(&["summary", CATEGORIES, "--window", window]);
        assert_eq!((code, stdout.as_str()), (Some(1), ""), "{window}");
        assert_eq!(
            stderr,
            format!(
                "tracekit: handwritten/views/summary-categories.json: the window {shown} ms is empty; the trace lasts 0..2.000 ms\n"
            )
        );
    }
}

#[test]
fn the_man_page_of_summary() {
    let (code, stdout, stderr) = run(&["man", "summary"]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    assert!(stdout.contains("tracekit\\-summary"), "{stdout}");
}

#[test]
fn a_trace_of_no_time_is_an_error() {
    let dir = std::env::temp_dir().join(format!("tracekit-summary-instant-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("instant.json");
    std::fs::write(
        &trace,
        r#"[{"name":"Paint","ph":"X","ts":5,"dur":0,"pid":1,"tid":1,"cat":"devtools.timeline"}]"#,
    )
    .unwrap();
    let (code, stdout, stderr) = run(&["summary", trace.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!((code, stdout.as_str()), (Some(1), ""));
    assert_eq!(
        stderr,
        format!(
            "tracekit: {}: the trace lasts 0.000 ms: no time to summarize\n",
            trace.display()
        )
    );
}

#[test]
fn all_processes_adds_the_processes_devtools_drops_to_summary_and_calltree() {
    let trace = fixtures().join("traces/kitchen-sink.json.gz");
    let trace = trace.to_str().unwrap();
    for command in ["summary", "calltree"] {
        let (code, plain, _) = run(&[command, trace]);
        assert_eq!(code, Some(0));
        let (code, all, err) = run(&[command, trace, "--all-processes"]);
        assert_eq!(code, Some(0), "{err}");
        assert!(!plain.contains("CrBrowserMain"), "{command}");
        assert!(all.contains("CrBrowserMain"), "{command}: {all}");
        // The threads DevTools keeps are there as they were.
        assert!(all.contains(plain.lines().nth(1).unwrap()), "{command}");
    }
}
