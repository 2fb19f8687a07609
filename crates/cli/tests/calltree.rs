//! End to end: `tracekit calltree`, the aggregated views (crates/views).

use std::path::Path;
use std::process::Command;

/// Runs tracekit in `fixtures/`: (exit code, stdout, stderr).
fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures"))
        .output()
        .expect("tracekit runs");
    (
        output.status.code(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn conformance_is_the_oracles_dump_byte_for_byte() {
    let (code, stdout, stderr) = run(&[
        "calltree",
        "handwritten/views/bu-cross.json",
        "--format",
        "conformance",
        "--window",
        "1.4..1.95",
    ]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    let golden = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/expected/2026-10/calltree/views/bu-cross.window-1.4..1.95.json"),
    )
    .unwrap();
    assert_eq!(stdout, golden);
}

#[test]
fn text_of_the_bottom_up_with_a_depth_limit() {
    let (code, stdout, stderr) = run(&[
        "calltree",
        "handwritten/views/recursion-direct.json",
        "--bottom-up",
        "--max-depth",
        "2",
        "--thread",
        "crrenderermain",
    ]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    assert_eq!(
        stdout,
        "Bottom-Up, window 0.000..2.000 ms from the trace start (2.000 ms)
thread 1 CrRendererMain (pid 1)
  self ms (%)  total ms (%)  name
  0.800 ms (40.0%)  0.900 ms (45.0%)  FunctionCall
    0.400 ms (20.0%)  0.500 ms (25.0%)  FunctionCall
  0.100 ms (5.0%)  0.100 ms (5.0%)  Layout
    0.100 ms (5.0%)  0.100 ms (5.0%)  FunctionCall
"
    );
}

#[test]
fn top_and_min_duration_keep_the_first_and_the_longest_rows() {
    let args = [
        "calltree",
        "handwritten/views/recursion-direct.json",
        "--bottom-up",
        "--thread",
        "1",
    ];
    let (code, stdout, stderr) = run(&[&args[..], &["--top", "2"]].concat());
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    assert_eq!(
        stdout.lines().skip(2).collect::<Vec<_>>(),
        [
            "  self ms (%)  total ms (%)  name",
            "  0.800 ms (40.0%)  0.900 ms (45.0%)  FunctionCall",
            "    0.400 ms (20.0%)  0.500 ms (25.0%)  FunctionCall",
            "  (3 more rows)"
        ]
    );
    // --min-duration is accepted as by every command: rows of at least
    // that total, here in µs.
    let (code, stdout, stderr) = run(&[&args[..], &["--min-duration", "450us"]].concat());
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    assert_eq!(
        stdout.lines().skip(3).collect::<Vec<_>>(),
        [
            "  0.800 ms (40.0%)  0.900 ms (45.0%)  FunctionCall",
            "    0.400 ms (20.0%)  0.500 ms (25.0%)  FunctionCall",
        ]
    );
    let (code, _, stderr) = run(&[&args[..], &["--top", "0"]].concat());
    assert_eq!(code, Some(2), "{stderr}");
}

#[test]
fn recording_overhead_is_marked_among_the_slowest_work() {
    let (code, stdout, _) = run(&[
        "calltree",
        "traces/causes.json.gz",
        "--bottom-up",
        "--thread",
        "DedicatedWorker",
        "--max-depth",
        "1",
        "--top",
        "6",
    ]);
    assert_eq!(code, Some(0));
    assert!(
        stdout.contains("  1.124 ms (0.0%)  1.124 ms (0.0%)  CpuProfiler::StartProfiling [recording overhead]\n"),
        "{stdout}"
    );
}

#[test]
fn an_open_window_ends_with_the_trace() {
    let (_, open, _) = run(&["calltree", "handwritten/views/window.json", "--window", "1.15.."]);
    let (_, closed, _) = run(&["calltree", "handwritten/views/window.json", "--window", "1.15..2.3"]);
    assert!(open.starts_with("Call Tree, window 1.150.."), "{open}");
    assert_eq!(
        open.lines().skip(1).collect::<Vec<_>>(),
        closed.lines().skip(1).collect::<Vec<_>>()
    );
}

#[test]
fn a_thread_that_does_not_exist_is_an_error() {
    let (code, stdout, stderr) = run(&[
        "calltree",
        "handwritten/views/recursion-direct.json",
        "--thread",
        "nosuch",
    ]);
    assert_eq!(code, Some(1));
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        "tracekit: handwritten/views/recursion-direct.json: no thread matches 'nosuch'; threads: CrRendererMain (tid 1)\n"
    );
}

#[test]
fn a_window_outside_the_trace_is_an_error() {
    let (code, stdout, stderr) = run(&[
        "calltree",
        "handwritten/views/recursion-direct.json",
        "--window",
        "50..60",
    ]);
    assert_eq!(code, Some(1));
    assert_eq!(stdout, "");
    assert!(
        stderr.starts_with(
            "tracekit: handwritten/views/recursion-direct.json: the window 50..60 ms lies outside the trace (0.."
        ),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn json_lists_nodes_with_parents_functions_and_sample_counts() {
    let (code, stdout, stderr) = run(&["calltree", "handwritten/views/js.cpuprofile", "--format", "json"]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let thread = &doc["threads"][0];
    assert_eq!(
        thread["samples"],
        serde_json::json!({"inWindow": 12, "attributed": 12, "unattributed": 0})
    );
    let nodes = thread["topDown"].as_array().unwrap();
    // The anonymous function of app.js, 9 of the 12 samples, 3 its own.
    assert_eq!(nodes[0]["id"], "f:@7:10:4");
    assert_eq!(nodes[0]["url"], "https://a.test/app.js");
    assert_eq!(
        (nodes[0]["line"].as_f64(), nodes[0]["column"].as_f64()),
        (Some(10.0), Some(4.0))
    );
    assert_eq!(
        (nodes[0]["samples"].as_u64(), nodes[0]["selfCount"].as_u64()),
        (Some(9), Some(3))
    );
    assert_eq!(nodes[0]["parent"], serde_json::Value::Null);
    // Every node's parent comes before it, one level up; samples add up.
    for (i, node) in nodes.iter().enumerate() {
        let depth = node["depth"].as_u64().unwrap();
        match node["parent"].as_u64().map(|p| usize::try_from(p).unwrap()) {
            Some(p) => {
                assert!(p < i);
                assert_eq!(nodes[p]["depth"].as_u64().unwrap() + 1, depth);
            }
            None => assert_eq!(depth, 0),
        }
        let children: u64 = nodes
            .iter()
            .filter(|c| c["parent"].as_u64() == Some(i as u64))
            .map(|c| c["samples"].as_u64().unwrap())
            .sum();
        assert_eq!(
            node["samples"].as_u64().unwrap(),
            children + node["selfCount"].as_u64().unwrap()
        );
    }
    let roots: u64 = nodes
        .iter()
        .filter(|n| n["parent"].is_null())
        .map(|n| n["samples"].as_u64().unwrap())
        .sum();
    assert_eq!(roots, 12);
    // The Bottom-Up has no sample counts.
    assert!(thread["bottomUp"][0].get("samples").is_none());
}

#[test]
fn the_text_of_a_profile_shows_sample_counts_and_a_trace_does_not() {
    let (code, stdout, _) = run(&["calltree", "handwritten/views/js.cpuprofile"]);
    assert_eq!(code, Some(0));
    assert!(stdout.contains("12 samples in the window"), "{stdout}");
    assert!(stdout.contains("  3/9  js (anonymous) a.test/app.js:11:5"), "{stdout}");
    let (code, stdout, _) = run(&["calltree", "handwritten/views/js-trace.json"]);
    assert_eq!(code, Some(0));
    assert!(!stdout.contains("samples"), "{stdout}");
}

#[test]
fn an_empty_window_or_a_trace_without_time_is_an_error() {
    let (code, stdout, stderr) = run(&["calltree", "handwritten/views/window.json", "--window", "1..1"]);
    assert_eq!((code, stdout.as_str()), (Some(1), ""));
    assert_eq!(
        stderr,
        "tracekit: handwritten/views/window.json: the window 1..1 ms is empty; the trace lasts 0..2.300 ms\n"
    );
    let dir = std::env::temp_dir().join(format!("tracekit-calltree-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.cpuprofile");
    std::fs::write(
        &empty,
        r#"{"nodes":[],"startTime":0,"endTime":0,"samples":[],"timeDeltas":[]}"#,
    )
    .unwrap();
    let (code, stdout, stderr) = run(&["calltree", empty.to_str().unwrap(), "--format", "conformance"]);
    assert_eq!((code, stdout.as_str()), (Some(1), ""));
    assert!(
        stderr.ends_with("empty.cpuprofile: the trace has no timed events, so no window to aggregate\n"),
        "{stderr}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn grouped_conformance_is_the_oracles_dump_byte_for_byte() {
    for kind in ["category", "domain", "url", "frame"] {
        let (code, stdout, stderr) = run(&[
            "calltree",
            "handwritten/views/grouping.json",
            "--format",
            "conformance",
            "--group-by",
            kind,
        ]);
        assert_eq!((code, stderr.as_str()), (Some(0), ""), "{kind}");
        let golden = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
            "../../fixtures/expected/2026-10/calltree/views/grouping.group-{kind}.json"
        )))
        .unwrap();
        assert_eq!(stdout, golden, "{kind}");
    }
}

#[test]
fn text_of_a_grouped_bottom_up() {
    let (code, stdout, stderr) = run(&[
        "calltree",
        "handwritten/views/grouping-generic.json",
        "--group-by",
        "category",
        "--bottom-up",
        "--max-depth",
        "2",
    ]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    assert_eq!(
        stdout,
        "Bottom-Up grouped by category, window 0.000..1.000 ms from the trace start (1.000 ms)
thread 1 Main (pid 1)
  self ms (%)  total ms (%)  name
  0.650 ms (65.0%)  0.650 ms (65.0%)  category System
    0.200 ms (20.0%)  0.200 ms (20.0%)  Baz
    0.200 ms (20.0%)  0.200 ms (20.0%)  Foo
    0.150 ms (15.0%)  0.150 ms (15.0%)  Qux
    0.100 ms (10.0%)  0.100 ms (10.0%)  FunctionCall/u
  0.200 ms (20.0%)  0.200 ms (20.0%)  category Scripting
    0.100 ms (10.0%)  0.100 ms (10.0%)  Bar
    0.100 ms (10.0%)  0.100 ms (10.0%)  FunctionCall
"
    );
}

#[test]
fn an_unknown_group_kind_is_a_usage_error() {
    let (code, stdout, stderr) = run(&[
        "calltree",
        "handwritten/views/grouping.json",
        "--group-by",
        "third-party",
    ]);
    assert_eq!((code, stdout.as_str()), (Some(2), ""));
    assert!(
        stderr.contains("[possible values: none, category, domain, subdomain, url, frame]"),
        "{stderr}"
    );
}

/// A Bottom-Up past `--max-nodes` (calls nested deep under many different
/// callers make one node per call and caller) is a one-line error naming
/// the file and the thread, with the flags that change it; fewer levels
/// fit.
#[test]
fn a_bottom_up_past_max_nodes_is_an_error() {
    let file = std::env::temp_dir().join(format!("tracekit-deep-nesting-{}.json", std::process::id()));
    std::fs::write(&file, tracekit_conformance::deep_distinct_nesting(300)).unwrap();
    let path = file.to_str().unwrap();

    let (code, stdout, stderr) = run(&["calltree", path, "--max-nodes", "10000"]);
    assert_eq!(code, Some(1));
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        format!(
            "tracekit: {path}: thread 1 (pid 1): its Bottom-Up tree would have more than 10000 nodes (calls nested \
             deep under many different callers); build fewer levels with --max-depth, or raise --max-nodes\n"
        )
    );
    let (code, _, stderr) = run(&["calltree", path, "--max-nodes", "10000", "--max-depth", "3"]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    let (code, _, stderr) = run(&["calltree", path]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    let _ = std::fs::remove_file(&file);
}
