//! End to end: `tracekit diff`, on CPU profiles built with exact sample
//! counts (1 ms apart), one pair and seven runs per side: the changes,
//! the formats, `--fail-on` and its exit status 3, the flame graph, and
//! the errors of bad input.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs tracekit in `dir`: (exit code, stdout, stderr).
fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("tracekit runs");
    (
        output.status.code(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// A `.cpuprofile`: `(root)` → `main` (line 1) → each of `calls` (line
/// 11, 21, ...), `main` with `main_self` samples of its own, samples 1 ms
/// apart, then one `(idle)` sample.
fn profile(main_self: usize, calls: &[(&str, usize)]) -> String {
    let frame = |id: usize, name: &str, line: usize, children: &str| {
        format!(
            r#"{{"id":{id},"callFrame":{{"functionName":"{name}","scriptId":"1","url":"file:///app.js","lineNumber":{line},"columnNumber":4}},"children":[{children}]}}"#
        )
    };
    let children: Vec<String> = (0..calls.len()).map(|i| (i + 4).to_string()).collect();
    let mut nodes = vec![
        r#"{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3]}"#.to_owned(),
        frame(2, "main", 0, &children.join(",")),
        r#"{"id":3,"callFrame":{"functionName":"(idle)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[]}"#.to_owned(),
    ];
    let mut samples = vec![2; main_self];
    for (i, (name, n)) in calls.iter().enumerate() {
        nodes.push(frame(i + 4, name, 10 * (i + 1), ""));
        samples.extend(std::iter::repeat_n(i + 4, *n));
    }
    samples.push(3);
    let deltas = vec!["1000"; samples.len()].join(",");
    let samples: Vec<String> = samples.iter().map(ToString::to_string).collect();
    format!(
        r#"{{"nodes":[{}],"startTime":1000000,"endTime":{},"samples":[{}],"timeDeltas":[{deltas}]}}"#,
        nodes.join(","),
        1_000_000 + samples.len() * 1000,
        samples.join(",")
    )
}

/// A fresh directory under the target directory.
fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A directory of its own for each test (they run at once).
fn pair_dir(test: &str) -> PathBuf {
    let dir = temp_dir(&format!("diff-pair-{test}"));
    std::fs::write(
        dir.join("base.cpuprofile"),
        profile(20, &[("fast", 30), ("slow", 50), ("gone", 5)]),
    )
    .unwrap();
    std::fs::write(
        dir.join("new.cpuprofile"),
        profile(20, &[("fast", 30), ("slow", 80), ("fresh", 7)]),
    )
    .unwrap();
    dir
}

#[test]
fn one_pair_names_the_exact_changes() {
    let dir = pair_dir("one");
    let (code, stdout, stderr) = run(&dir, &["diff", "base.cpuprofile", "new.cpuprofile"]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    let functions = stdout.split("\nFunctions\n").nth(1).unwrap();
    let first = functions.lines().nth(1).unwrap();
    assert_eq!(
        first.split_whitespace().collect::<Vec<_>>(),
        [
            "+30.00",
            "ms",
            "+60.0%",
            "self",
            "slow",
            "file:///app.js:21:5",
            "[main]",
            "50.00",
            "ms",
            "->",
            "80.00",
            "ms"
        ]
    );
    assert!(
        stdout.contains("+7.00 ms    added self  fresh file:///app.js:31:5 [main]"),
        "{stdout}"
    );
    assert!(
        stdout.contains("-5.00 ms  removed self  gone file:///app.js:31:5 [main]"),
        "{stdout}"
    );
    assert!(!functions.contains(" fast "), "{stdout}");

    let (code, json, _) = run(&dir, &["diff", "base.cpuprofile", "new.cpuprofile", "--format", "json"]);
    assert_eq!(code, Some(0));
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let row = &doc["rows"][0];
    assert_eq!(row["key"]["name"], "slow file:///app.js:21:5");
    assert_eq!(row["key"]["quantity"], "self");
    assert_eq!(
        (row["base"].as_f64(), row["new"].as_f64(), row["delta"].as_f64()),
        (Some(50.0), Some(80.0), Some(30.0))
    );
    assert_eq!(doc["threads"], serde_json::json!(["main"]));

    let (code, md, _) = run(
        &dir,
        &["diff", "base.cpuprofile", "new.cpuprofile", "--format", "markdown"],
    );
    assert_eq!(code, Some(0));
    assert!(
        md.contains(
            "| **changed** | `slow file:///app.js:21:5 (self)` | main | 50.00 ms | 80.00 ms | +30.00 ms | +60.0% |"
        ),
        "{md}"
    );
}

#[test]
fn a_crossed_threshold_exits_3() {
    let dir = pair_dir("threshold");
    let args = |t: &'static str| {
        [
            "diff",
            "base.cpuprofile",
            "new.cpuprofile",
            "--fail-on",
            t,
            "-o",
            "out.txt",
        ]
    };
    let (code, _, stderr) = run(&dir, &args("self:slow>+10%"));
    assert_eq!(code, Some(3));
    assert_eq!(
        stderr,
        "tracekit: threshold crossed: self:slow>+10% (self slow file:///app.js:21:5 [main]: +30.000, +60.0%)\n"
    );
    assert!(std::fs::read_to_string(dir.join("out.txt")).unwrap().contains("slow"));
    for (t, want) in [
        ("self:slow>+31ms", 0),
        ("self:fast>+1%", 0),
        ("category:Scripting>+25ms", 3),
        ("LCP>+100ms", 0),
    ] {
        assert_eq!(run(&dir, &args(t)).0, Some(want), "{t}");
    }
}

#[test]
fn several_runs_report_only_significant_changes() {
    let dir = temp_dir("diff-runs");
    let mut base = Vec::new();
    let mut new = Vec::new();
    let mut again = Vec::new();
    for i in 0..7 {
        for (side, slow, list) in [
            ("base", 50, &mut base),
            ("new", 60, &mut new),
            ("again", 50, &mut again),
        ] {
            let name = format!("{side}{i}.cpuprofile");
            // Jitter of their own in every function; NEW's slow takes 20% more.
            let text = profile(
                20 + (i + slow) % 3,
                &[("fast", 30 + (i * 5 + slow) % 4), ("slow", slow + i % 4)],
            );
            std::fs::write(dir.join(&name), text).unwrap();
            list.push(name);
        }
    }
    let args = |a: &[String], b: &[String], extra: &[&str]| -> Vec<String> {
        let mut v = vec!["diff".to_owned(), "--base".to_owned()];
        v.extend(a.iter().cloned());
        v.push("--new".to_owned());
        v.extend(b.iter().cloned());
        v.extend(extra.iter().map(|s| (*s).to_owned()));
        v
    };
    let strs = |v: &[String]| -> Vec<String> { v.to_vec() };
    let call = |v: Vec<String>| run(&dir, &v.iter().map(String::as_str).collect::<Vec<_>>());

    let (code, json, stderr) = call(args(
        &strs(&base),
        &strs(&new),
        &["--format", "json", "--fail-on", "self:slow>+10%"],
    ));
    assert_eq!((code, stderr.lines().count()), (Some(3), 1), "{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let first = &doc["rows"][0];
    assert_eq!(
        (first["key"]["name"].as_str(), first["changed"].as_bool()),
        (Some("slow file:///app.js:21:5"), Some(true))
    );
    assert_eq!(first["delta"].as_f64(), Some(10.0));
    assert!(first["stats"]["p_adjusted"].as_f64().unwrap() < 0.05);
    assert_eq!(first["stats"]["method"], "normal"); // the jitter makes ties
    assert_eq!(first["stats"]["cliffs_delta"].as_f64(), Some(1.0));

    // A/A: the same workload again; no change, and so no threshold crossed.
    let (code, text, _) = call(args(&strs(&base), &strs(&again), &["--fail-on", "any>+1%"]));
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains(" 0 significant changes among "), "{text}");
}

#[test]
fn the_differential_flame_graph_is_drawn() {
    let dir = pair_dir("flamegraph");
    let (code, _, stderr) = run(
        &dir,
        &["diff", "base.cpuprofile", "new.cpuprofile", "--flamegraph", "diff.svg"],
    );
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    let svg = std::fs::read_to_string(dir.join("diff.svg")).unwrap();
    assert!(svg.starts_with("<?xml") && svg.contains("Differential flame graph"));
    // NEW's 138 ms: slow's 80 ms, +30 ms from BASE (inferno's change in
    // percent of NEW's total); fast unchanged; fresh all new; gone not drawn.
    assert!(
        svg.contains("<title>slow file:///app.js:21:5 (80,000 µs, 57.97%; +21.74%)</title>"),
        "{svg}"
    );
    assert!(
        svg.contains("<title>fast file:///app.js:11:5 (30,000 µs, 21.74%; 0.00%)</title>"),
        "{svg}"
    );
    assert!(
        svg.contains("<title>fresh file:///app.js:31:5 (7,000 µs, 5.07%; +5.07%)</title>"),
        "{svg}"
    );
    assert!(
        svg.contains("<title>main (138,000 µs, 100.00%; 0.00%)</title>"),
        "{svg}"
    );
    assert!(!svg.contains("gone"));
}

#[test]
fn bad_input_is_one_line() {
    let dir = pair_dir("bad");
    std::fs::write(
        dir.join("trace.json"),
        r#"[{"name":"thread_name","ph":"M","pid":1,"tid":2,"args":{"name":"Worker"}},{"name":"RunTask","ph":"X","ts":1,"dur":5000,"pid":1,"tid":2}]"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("empty.cpuprofile"),
        r#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}}],"startTime":0,"endTime":0,"samples":[],"timeDeltas":[]}"#,
    )
    .unwrap();
    for (args, code, message) in [
        (
            &["diff", "base.cpuprofile", "trace.json"][..],
            1,
            "tracekit: cannot compare a CPU profile with a Chrome trace: give inputs of one kind\n",
        ),
        (
            &["diff", "empty.cpuprofile", "new.cpuprofile"],
            1,
            "tracekit: BASE has nothing to compare: no thread with time\n",
        ),
        (
            &["diff", "base.cpuprofile", "missing.cpuprofile"],
            1,
            "tracekit: missing.cpuprofile: No such file or directory (os error 2)\n",
        ),
    ] {
        let (got, stdout, stderr) = run(&dir, args);
        assert_eq!(
            (got, stdout.as_str(), stderr.as_str()),
            (Some(code), "", message),
            "{args:?}"
        );
    }
    let (code, _, stderr) = run(
        &dir,
        &["diff", "base.cpuprofile", "new.cpuprofile", "--fail-on", "slow>10%"],
    );
    assert_eq!(code, Some(2));
    assert!(
        stderr.starts_with("tracekit: invalid value 'slow>10%' for '--fail-on <THRESHOLD>': the threshold"),
        "{stderr}"
    );
    assert_eq!(
        stderr.lines().filter(|l| l.starts_with("tracekit:")).count(),
        1,
        "{stderr}"
    );
    let (code, _, _) = run(&dir, &["diff", "base.cpuprofile"]);
    assert_eq!(code, Some(2));
    let (code, _, _) = run(&dir, &["diff", "--base", "base.cpuprofile"]);
    assert_eq!(code, Some(2));
}

/// The runs of one version of `fixtures/diff/work.js` (fixtures/diff/README.md).
fn recordings(version: &str) -> Vec<String> {
    (1..=7)
        .map(|i| format!("diff/node-{version}/run{i}.cpuprofile.gz"))
        .collect()
}

/// The JSON report of `base`'s runs against `new`'s.
fn diff_json(base: &str, new: &str) -> serde_json::Value {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut args = vec![
        "diff".to_owned(),
        "--format".to_owned(),
        "json".to_owned(),
        "--base".to_owned(),
    ];
    args.extend(recordings(base));
    args.push("--new".to_owned());
    args.extend(recordings(new));
    let (code, stdout, stderr) = run(&dir, &args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    // The same report with no thread but the main one.
    args.extend(["--threads".to_owned(), "1".to_owned()]);
    let (_, one_thread, _) = run(&dir, &args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(one_thread, stdout);
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn real_recordings_find_the_slowed_function_first() {
    let doc = diff_json("base", "slow");
    let first = &doc["rows"][0];
    assert_eq!(first["key"]["name"], "render file:///tmp/rec/work.js:5:16");
    assert_eq!(first["key"]["quantity"], "self");
    assert_eq!(first["changed"], true);
    let relative = first["relative"].as_f64().unwrap();
    assert!((0.15..0.30).contains(&relative), "{relative}");
    // Every change is render's, or the time it adds to its callers and Scripting.
    for row in doc["rows"].as_array().unwrap().iter().filter(|r| r["changed"] == true) {
        let name = row["key"]["name"].as_str().unwrap();
        assert!(
            name.starts_with("render ") || name.starts_with("main ") || name == "Scripting",
            "{row}"
        );
    }
}

#[test]
fn real_recordings_a_a_reports_no_change() {
    let doc = diff_json("base", "again");
    let changes: Vec<&serde_json::Value> = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["changed"] == true)
        .collect();
    assert!(changes.is_empty(), "{changes:?}");
    assert!(doc["tested"].as_u64().unwrap() > 10);
}

#[test]
fn chrome_traces_line_up_by_thread_role_and_page_metrics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/traces");
    let (code, json, stderr) = run(
        &dir,
        &[
            "diff",
            "page-load.json.gz",
            "page-load-mobile.json.gz",
            "--format",
            "json",
        ],
    );
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let threads: Vec<&str> = doc["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(threads.contains(&"Main frame: CrRendererMain"), "{threads:?}");
    assert!(threads.iter().any(|t| t.starts_with("Worker http://")), "{threads:?}");
    // Page metrics first: FCP moved most.
    let first = &doc["rows"][0];
    assert_eq!(
        (first["key"]["kind"].as_str(), first["key"]["name"].as_str()),
        (Some("page"), Some("FCP"))
    );
    for (threshold, status) in [
        ("LCP>+20ms", 3),
        ("LCP>+100ms", 0),
        ("CLS<-0.01", 3),
        ("CLS>+0.01", 0),
        ("INP>+10%", 3),
    ] {
        let (code, _, _) = run(
            &dir,
            &[
                "diff",
                "page-load.json.gz",
                "page-load-mobile.json.gz",
                "--fail-on",
                threshold,
                "-o",
                "/dev/null",
            ],
        );
        assert_eq!(code, Some(status), "{threshold}");
    }
    // A trace against itself: nothing changed.
    let (code, text, _) = run(
        &dir,
        &["diff", "page-load.json.gz", "page-load.json.gz", "--fail-on", "any>+0%"],
    );
    assert_eq!(code, Some(0));
    assert!(text.contains(" 0 changes (one run per side"), "{text}");
    // A trace against a profile: different kinds.
    let (code, _, stderr) = run(&dir, &["diff", "page-load.json.gz", "node-work.cpuprofile.gz"]);
    assert_eq!(
        (code, stderr.as_str()),
        (
            Some(1),
            "tracekit: cannot compare a Chrome trace with a CPU profile: give inputs of one kind\n"
        )
    );
}

/// The rows of `tracekit diff A B --format json`.
fn rows_of(dir: &Path, base: &str, new: &str) -> Vec<serde_json::Value> {
    let (code, json, stderr) = run(dir, &["diff", base, new, "--format", "json"]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    doc["rows"].as_array().unwrap().clone()
}

/// The value BASE has of a key, in a diff's rows.
fn base_of(rows: &[serde_json::Value], kind: &str, name: &str, quantity: &str) -> Option<f64> {
    rows.iter()
        .find(|r| r["key"]["kind"] == kind && r["key"]["name"] == name && r["key"]["quantity"] == quantity)
        .and_then(|r| r["base"].as_f64())
}

#[test]
fn requests_bytes_and_third_parties_are_keys() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/traces");
    // Requests and bytes: those `tracekit network` lists.
    let rows = rows_of(&dir, "page-load.json.gz", "page-load.json.gz");
    let (code, network, _) = run(&dir, &["network", "page-load.json.gz", "--format", "json"]);
    assert_eq!(code, Some(0));
    let requests: Vec<serde_json::Value> = serde_json::from_str(&network).unwrap();
    let bytes: f64 = requests.iter().filter_map(|r| r["transferSize"].as_f64()).sum();
    assert!(requests.len() > 5 && bytes > 100_000.0);
    assert_eq!(base_of(&rows, "page", "Requests", "value"), Some(requests.len() as f64));
    assert_eq!(base_of(&rows, "page", "Bytes", "value"), Some(bytes));
    let unit = |name: &str| rows.iter().find(|r| r["key"]["name"] == name).unwrap()["unit"].clone();
    assert_eq!(
        (unit("Requests"), unit("Bytes"), unit("LCP")),
        ("count".into(), "bytes".into(), "ms".into())
    );
    // Third parties: as DevTools' 3rd parties insight counts them over the
    // whole trace, which is the one insight set of a trace without a
    // navigation.
    let rows = rows_of(&dir, "causes.json.gz", "causes.json.gz");
    let (code, insights, _) = run(&dir, &["insights", "causes.json.gz", "--format", "json"]);
    assert_eq!(code, Some(0));
    let insights: serde_json::Value = serde_json::from_str(&insights).unwrap();
    let set = &insights["insights"][0];
    assert_eq!(set["id"], "NO_NAVIGATION");
    let summaries = set["model"]["ThirdParties"]["entitySummaries"].as_array().unwrap();
    assert!(!summaries.is_empty());
    for s in summaries {
        let name = s["entity"].as_str().unwrap().trim_start_matches("entity:");
        let time = s["mainThreadTime"].as_f64().unwrap();
        assert!(time > 0.0, "{name}");
        assert_eq!(base_of(&rows, "third-party", name, "self"), Some(time), "{name}");
        let transfer = s["transferSize"].as_f64().unwrap();
        assert_eq!(
            base_of(&rows, "third-party", name, "transfer"),
            (transfer > 0.0).then_some(transfer),
            "{name}"
        );
    }
    // Against another run: a third party's time as a threshold. The
    // threads measured at once or one after the other: the same report.
    let rows = rows_of(&dir, "page-load.json.gz", "page-load-mobile.json.gz");
    let args = [
        "diff",
        "page-load.json.gz",
        "page-load-mobile.json.gz",
        "--format",
        "json",
    ];
    let (_, parallel, _) = run(&dir, &args);
    let (_, sequential, _) = run(&dir, &[&args[..], &["--threads", "1"]].concat());
    assert_eq!(parallel, sequential);
    let before = base_of(&rows, "third-party", "a.test", "self").unwrap();
    let after = rows
        .iter()
        .find(|r| r["key"]["name"] == "a.test" && r["key"]["quantity"] == "self")
        .unwrap()["new"]
        .as_f64()
        .unwrap();
    let moved = after - before;
    for (threshold, status) in [
        (format!("third-party:a.test>+{:.0}ms", moved - 1.0), 3),
        (format!("third-party:a.test>+{:.0}ms", moved + 1.0), 0),
        ("Requests>+0".to_owned(), 0),
        ("Bytes>+1kB".to_owned(), 0),
    ] {
        let (code, _, _) = run(
            &dir,
            &[
                "diff",
                "page-load.json.gz",
                "page-load-mobile.json.gz",
                "--fail-on",
                &threshold,
                "-o",
                "/dev/null",
            ],
        );
        assert_eq!(code, Some(status), "{threshold}");
    }
}
