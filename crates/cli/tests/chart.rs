//! End to end: `tracekit chart`, the flame chart in one HTML file
//! (crates/export/src/export/chart.rs). The chart of a recorded fixture
//! is opened from disk in Debian's Chromium, driven by playwright-core
//! (`tests/chart/check.mjs`), and used as a person would: it must load
//! without a console error or a request, draw every lane, show the right
//! tooltip, zoom, pan and search. What it must show comes from `tracekit
//! tracks`, not from the chart. Screenshots are kept under
//! `target/chart-test/` (`CARGO_TARGET_DIR` if set).
//!
//! `big_trace_figures` (ignored: it needs the ~200 MB bench trace of
//! `cargo xtask bench`) measures the chart of the largest trace: file
//! size against the conformance dump, time to first draw, frame times.
//! Run it with `cargo test --release -p tracekit-cli --test chart --
//! --ignored --nocapture` (`TRACEKIT_BIG_TRACE=PATH` for another trace).

#[path = "support/tools.rs"]
mod tools;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn fixtures() -> PathBuf {
    tools::root().join("fixtures")
}

/// Where the test writes charts and screenshots.
fn artifacts(name: &str) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| tools::root().join("target"), PathBuf::from);
    let dir = target.join("chart-test").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs tracekit: (exit code, stdout, stderr).
fn tracekit(args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(args)
        .current_dir(fixtures())
        .output()
        .expect("tracekit runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// Writes the chart of `trace` (relative to `fixtures/`) to `html`.
fn chart(trace: &str, html: &Path, extra: &[&str]) {
    let mut args = vec!["chart", trace, "-o", html.to_str().unwrap()];
    args.extend(extra);
    let (code, stdout, stderr) = tracekit(&args);
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (Some(0), "", ""));
}

/// Opens `html` in Chromium with `tests/chart/check.mjs` and returns what
/// it saw.
fn check_in_browser(html: &Path, screenshots: &Path, hover: Option<Value>, search: Option<&str>) -> Value {
    check_with(html, screenshots, hover, search, 0)
}

/// [`check_in_browser`], after opening the page `loads` more times to
/// time it (`loads` in what it saw: each opening's performance marks).
fn check_with(html: &Path, screenshots: &Path, hover: Option<Value>, search: Option<&str>, loads: usize) -> Value {
    tools::browser();
    let config = serde_json::json!({
        "html": html.canonicalize().unwrap(),
        "nodeModules": tools::node_packages(),
        "screenshots": screenshots,
        "hover": hover,
        "search": search,
        "loads": loads,
    });
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/chart/check.mjs");
    let output = Command::new("node")
        .arg(script)
        .arg(config.to_string())
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "check.mjs failed: {}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert!(seen["failure"].is_null(), "in the browser: {}", seen["failure"]);
    seen
}

/// A JS call of the text format (`js NAME URL:LINE:COLUMN  @START +TOTAL
/// self SELF`) at tree depth `depth`.
#[derive(Debug)]
struct JsLine {
    depth: usize,
    name: String,
    location: String,
    start: String,
    total: String,
    self_time: String,
}

fn js_lines(text: &str) -> Vec<JsLine> {
    text.lines()
        .filter_map(|line| {
            let body = line.trim_start();
            let rest = body.strip_prefix("js ")?;
            // Nodes are indented by two spaces a level, after four.
            let depth = (line.len() - body.len()) / 2 - 2;
            let (label, times) = rest.split_once("  @")?;
            let (name, location) = label.split_once(' ')?;
            let (start, rest) = times.split_once(" +")?;
            let (total, self_time) = rest.split_once(" self ")?;
            Some(JsLine {
                depth,
                name: name.to_owned(),
                location: location.to_owned(),
                start: start.to_owned(),
                total: total.to_owned(),
                self_time: self_time.to_owned(),
            })
        })
        .collect()
}

/// How many JS calls of `tracks --format json` (all threads) have `query`
/// in their function name or URL, ignoring case; and whether any event
/// name holds it (the test's query must hold none, so that the count does
/// not depend on which events the panel draws).
fn js_calls_matching(tracks_json: &Value, query: &str) -> (usize, bool) {
    let (mut calls, mut in_events) = (0, false);
    for process in tracks_json["processes"].as_array().unwrap() {
        for thread in process["threads"].as_array().unwrap() {
            for node in thread["nodes"].as_array().unwrap() {
                let text = |key: &str| node[key].as_str().unwrap_or_default().to_lowercase();
                if node["type"] == "js" {
                    if text("functionName").contains(query) || text("url").contains(query) {
                        calls += 1;
                    }
                } else if text("name").contains(query) {
                    in_events = true;
                }
            }
        }
    }
    (calls, in_events)
}

/// Checks that the page drew, with no error on the page or the console.
fn assert_drawn_without_errors(seen: &Value) {
    assert_eq!(seen["pageErrors"], serde_json::json!([]));
    let errors: Vec<&Value> = seen["console"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["type"] == "error")
        .collect();
    assert!(errors.is_empty(), "console errors: {errors:?}");
    let first_draw = seen["marks"]["tracekit-chart:first-draw"].as_f64().expect("drawn");
    assert!(first_draw > 0.0);
}

/// The threads of `tracks --format json`.
fn thread_count(tracks_json: &Value) -> usize {
    tracks_json["processes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["threads"].as_array().unwrap().len())
        .sum()
}

fn view(state: &Value) -> (f64, f64) {
    (
        state["view"]["start"].as_f64().unwrap(),
        state["view"]["end"].as_f64().unwrap(),
    )
}

fn span(state: &Value) -> f64 {
    let (start, end) = view(state);
    end - start
}

#[test]
fn the_chart_of_a_recording_works_in_chromium() {
    const TRACE: &str = "traces/main-thread.json.gz";
    let dir = artifacts("main-thread");
    let html = dir.join("main-thread.html");
    chart(TRACE, &html, &[]);

    // The node to hover: the longest JS call at least six levels down (and
    // at most 25, so that it is drawn on the first screen of its lane), as
    // `tracks` prints it.
    let (code, text, _) = tracekit(&[
        "tracks",
        TRACE,
        "--thread",
        "CrRendererMain",
        "--max-depth",
        "25",
        "--min-duration",
        "5",
    ]);
    assert_eq!(code, Some(0));
    let lines = js_lines(&text);
    let node = lines
        .iter()
        .filter(|l| l.depth >= 6)
        .max_by(|a, b| {
            a.total
                .parse::<f64>()
                .unwrap()
                .total_cmp(&b.total.parse::<f64>().unwrap())
        })
        .expect("a deep JS call");
    let ms = |x: &str| x.parse::<f64>().unwrap();
    let hover = serde_json::json!({
        "thread": "CrRendererMain",
        "name": node.name,
        "start": format!("{} ms", node.start),
        "startMs": ms(&node.start),
        "endMs": ms(&node.start) + ms(&node.total),
    });

    let (code, tracks_json, _) = tracekit(&["tracks", TRACE, "--format", "json"]);
    assert_eq!(code, Some(0));
    let tracks_json: Value = serde_json::from_str(&tracks_json).unwrap();
    let query = "deepbeta";
    let (matching, in_events) = js_calls_matching(&tracks_json, query);
    assert!(matching > 10 && !in_events, "{matching} {in_events}");

    let seen = check_in_browser(&html, &dir, Some(hover), Some("deepBeta"));

    // From disk, alone: no request but the file, no error.
    let url = seen["url"].as_str().unwrap();
    assert_eq!(seen["requests"], serde_json::json!([url]), "requests");
    assert_drawn_without_errors(&seen);

    // A lane per thread of the trace's shown processes, in the panel's
    // order; each one that is not folded has bars drawn.
    let lanes = seen["lanes"].as_array().unwrap();
    let threads = thread_count(&tracks_json);
    assert_eq!(lanes.len(), threads);
    assert_eq!(lanes[0]["thread"], "CrRendererMain");
    assert!(lanes[0]["levels"].as_u64().unwrap() > 25, "{:?}", lanes[0]);
    for lane in lanes {
        if lane["folded"] == false && lane["levels"].as_u64().unwrap() > 0 {
            assert!(lane["barPixels"].as_u64().unwrap() > 0, "nothing drawn in {lane}");
        }
    }
    // The panel hides the Compositor: folded.
    let compositor = lanes
        .iter()
        .find(|l| l["thread"] == "Compositor")
        .expect("a Compositor lane");
    assert_eq!(compositor["folded"], true);

    // The tooltip of the node, then its pinned details, as `tracks` has it.
    let expected_tip = format!(
        "{}\n{}\nstart {} ms · total {} ms · self {} ms",
        node.name, node.location, node.start, node.total, node.self_time
    );
    let tips: Vec<&str> = seen["tooltips"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        tips.last().copied(),
        Some(expected_tip.as_str()),
        "tooltips seen: {tips:#?}"
    );
    let pinned = seen["pinned"].as_str().expect("pinned details");
    assert!(
        pinned.contains(&format!("Name\t{}\n", node.name))
            && pinned.contains(&format!("\t{}\n", node.location))
            && pinned.contains(&format!("Total\t{} ms\n", node.total)),
        "{pinned}"
    );

    // Zoom and pan change the visible range and the axis labels.
    let zoom = &seen["zoom"];
    let reset = &zoom["reset"];
    assert_eq!(reset["view"]["start"], 0.0);
    let duration = reset["view"]["end"].as_f64().unwrap();
    assert!((duration - 2274.723).abs() < 1e-9, "{duration}");
    assert!(span(&zoom["wheel"]) < span(reset) / 2.0, "the wheel zooms in");
    assert_ne!(zoom["wheel"]["axis"], reset["axis"], "axis labels change");
    assert!(span(&zoom["w"]) < span(&zoom["wheel"]), "W zooms in");
    assert!(span(&zoom["s"]) > span(&zoom["w"]), "S zooms out");
    assert!(view(&zoom["d"]).0 > view(&zoom["s"]).0, "D pans later");
    assert!(view(&zoom["a"]).0 < view(&zoom["d"]).0, "A pans earlier");
    assert!(view(&zoom["drag"]).0 > view(&zoom["a"]).0, "dragging left pans later");
    assert!(
        (span(&zoom["drag"]) - span(&zoom["a"])).abs() < 1e-6,
        "dragging keeps the zoom"
    );
    assert!(span(&zoom["pinch"]) < span(&zoom["drag"]), "a pinch zooms in");
    assert_eq!(zoom["again"]["view"], reset["view"], "0 resets");
    assert_eq!(zoom["again"]["axis"], reset["axis"]);

    // Search: the matches counted, the rest faded, Enter shows the first.
    let search = &seen["search"];
    assert_eq!(search["count"], format!("{matching} matches"));
    let (before, after) = (
        search["before"]["ink"].as_f64().unwrap(),
        search["after"]["ink"].as_f64().unwrap(),
    );
    assert!(after < before * 0.8 && after > 0.0, "ink {before} -> {after}");
    let next = search["next"]["details"].as_str().unwrap();
    assert!(next.contains("Name\tdeepBeta\n"), "{next}");
    assert!(span(&search["next"]) < span(reset) / 10.0, "Enter zooms to the match");

    // Showing all events adds the levels of the events the panel leaves
    // out (on the main thread: ThreadControllerImpl::RunTask, v8.run...);
    // the search still counts only JS calls.
    let show_all = &seen["showAll"];
    let (before, after) = (
        show_all["before"][0].as_u64().unwrap(),
        show_all["after"][0].as_u64().unwrap(),
    );
    assert!(after > before, "levels {before} -> {after}");
    assert_eq!(show_all["count"], format!("{matching} matches"));

    // Frames while zooming stay short (a generous bound for slow machines).
    let mut frames: Vec<f64> = seen["frameTimes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert!(frames.len() >= 10, "{frames:?}");
    frames.sort_by(f64::total_cmp);
    assert!(frames[frames.len() / 2] < 50.0, "median frame {frames:?}");
}

/// The renderer's pure parts, in Node (`tests/chart/renderer.test.mjs`).
#[test]
fn renderer_functions() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/chart/renderer.test.mjs");
    let output = Command::new("node").arg(script).output().expect("node runs");
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&output.stdout), "ok\n");
}

#[test]
fn a_thread_and_a_window() {
    let dir = artifacts("window");
    let html = dir.join("worker.html");
    chart(
        "traces/worker.json.gz",
        &html,
        &["--thread", "DedicatedWorker thread", "--window", "100..400"],
    );
    let seen = check_in_browser(&html, &dir, None, None);
    let lanes = seen["lanes"].as_array().unwrap();
    assert_eq!(lanes.len(), 1);
    assert_eq!(lanes[0]["thread"], "DedicatedWorker thread");
    assert!(lanes[0]["barPixels"].as_u64().unwrap() > 0);
    // The window is the first view.
    assert_eq!(view(&seen["zoom"]["reset"]), (100.0, 400.0));
    assert_eq!(seen["requests"].as_array().unwrap().len(), 1);
}

#[test]
fn columns_deflated_in_several_pieces_open_in_chromium() {
    // Every process of the kitchen sink: more than a megabyte of columns,
    // deflated as several pieces joined into one stream.
    const TRACE: &str = "traces/kitchen-sink.json.gz";
    let dir = artifacts("pieces");
    let html = dir.join("kitchen-sink.html");
    chart(TRACE, &html, &["--all-processes"]);
    let page = std::fs::read_to_string(&html).unwrap();
    let bytes_at = page.find("\"bytes\":").expect("the header gives the columns' size") + "\"bytes\":".len();
    let bytes: u64 = page[bytes_at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(bytes > 1 << 20, "{bytes} bytes of columns: one piece");

    let seen = check_in_browser(&html, &dir, None, None);
    assert_drawn_without_errors(&seen);
    let (code, tracks_json, _) = tracekit(&["tracks", TRACE, "--all-processes", "--format", "json"]);
    assert_eq!(code, Some(0));
    let tracks_json: Value = serde_json::from_str(&tracks_json).unwrap();
    let threads = thread_count(&tracks_json);
    let lanes = seen["lanes"].as_array().unwrap();
    assert_eq!(lanes.len(), threads);
    assert!(lanes[0]["barPixels"].as_u64().unwrap() > 0, "{:?}", lanes[0]);
}

#[test]
fn the_file_is_smaller_than_the_conformance_dump() {
    let dir = artifacts("sizes");
    for trace in ["main-thread", "kitchen-sink", "worker", "navigation", "iframe"] {
        let path = format!("traces/{trace}.json.gz");
        let html = dir.join(format!("{trace}.html"));
        chart(&path, &html, &[]);
        let (code, dump, _) = tracekit(&["tracks", &path, "--format", "conformance"]);
        assert_eq!(code, Some(0));
        let size = std::fs::metadata(&html).unwrap().len();
        // The page's own code is a fixed cost of some 40 kB.
        assert!(
            size as f64 <= 1.5 * dump.len() as f64,
            "{trace}: {size} bytes of chart, {} of conformance dump",
            dump.len()
        );
    }
}

#[test]
fn errors_name_the_input() {
    let (code, stdout, stderr) = tracekit(&["chart", "traces/main-thread.json.gz", "--thread", "nope", "-o", "-"]);
    assert_eq!(code, Some(1));
    assert_eq!(stdout, "");
    assert!(
        stderr.starts_with("tracekit: traces/main-thread.json.gz: no thread matches 'nope'; threads: "),
        "{stderr}"
    );
    let (code, _, stderr) = tracekit(&[
        "chart",
        "traces/main-thread.json.gz",
        "--window",
        "9000..9001",
        "-o",
        "-",
    ]);
    assert_eq!(code, Some(1));
    assert_eq!(
        stderr,
        "tracekit: traces/main-thread.json.gz: the window 9000..9001 ms lies outside the trace (0..2274.723 ms)\n"
    );
    // Standard output, when it is not a terminal, gets the page.
    let (code, stdout, stderr) = tracekit(&["chart", "handwritten/nesting.json"]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    assert!(stdout.starts_with("<!DOCTYPE html>") && stdout.ends_with("</html>\n"));
}

/// The figures of the chart of the bench trace (`fixtures/big/`): sizes,
/// time to first draw, frame times while zooming.
#[test]
#[ignore = "needs the ~200 MB bench trace (cargo xtask bench); run with --release"]
fn big_trace_figures() {
    let trace = std::env::var_os("TRACEKIT_BIG_TRACE")
        .map_or_else(|| fixtures().join("big/kitchen-sink.json.gz"), PathBuf::from);
    assert!(
        trace.exists(),
        "no {}: record it with cargo xtask bench",
        trace.display()
    );
    let trace = trace.canonicalize().unwrap();
    let dir = artifacts("big");
    let html = dir.join("big.html");
    let started = std::time::Instant::now();
    chart(trace.to_str().unwrap(), &html, &[]);
    let chart_time = started.elapsed();
    let dump = dir.join("big.conformance.json");
    let (code, _, _) = tracekit(&[
        "tracks",
        trace.to_str().unwrap(),
        "--format",
        "conformance",
        "-o",
        dump.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0));
    let (html_size, dump_size) = (
        std::fs::metadata(&html).unwrap().len(),
        std::fs::metadata(&dump).unwrap().len(),
    );
    let seen = check_with(&html, &dir, None, None, 5);
    // The nodes charted, from the page's header.
    let page = std::fs::read_to_string(&html).unwrap();
    let marker = "type=\"application/json\">";
    let from = page.find(marker).unwrap() + marker.len();
    let header: Value = serde_json::from_str(&page[from..from + page[from..].find("</script>").unwrap()]).unwrap();
    let lanes = header["lanes"].as_array().unwrap();
    let nodes: u64 = lanes.iter().map(|l| l["nodes"].as_u64().unwrap()).sum();
    // The best of the openings: the machine's other work only slows.
    let best = |mark: &str| {
        seen["loads"]
            .as_array()
            .unwrap()
            .iter()
            .map(|marks| marks[mark].as_f64().unwrap())
            .fold(f64::INFINITY, f64::min)
    };
    let all = |mark: &str| -> Vec<String> {
        let loads = seen["loads"].as_array().unwrap();
        loads
            .iter()
            .map(|m| format!("{:.0}", m[mark].as_f64().unwrap()))
            .collect()
    };
    let (decoded, first_draw) = (best("tracekit-chart:decoded"), best("tracekit-chart:first-draw"));
    let mut frames: Vec<f64> = seen["frameTimes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    frames.sort_by(f64::total_cmp);
    println!(
        "{}: {nodes} nodes in {} lanes\n\
         chart: {html_size} bytes, conformance dump: {dump_size} bytes ({:.3}x); made in {:.1} s\n\
         Chromium, best of 5 openings: data decoded at {decoded:.0} ms (all: {}), first draw at {first_draw:.0} ms (all: {})\n\
         zoom frames: median {:.1} ms, max {:.1} ms over {}",
        trace.display(),
        lanes.len(),
        html_size as f64 / dump_size as f64,
        chart_time.as_secs_f64(),
        all("tracekit-chart:decoded").join(", "),
        all("tracekit-chart:first-draw").join(", "),
        frames[frames.len() / 2],
        frames[frames.len() - 1],
        frames.len()
    );
    assert!(html_size as f64 <= 1.5 * dump_size as f64);
    assert!(first_draw < 2000.0, "first draw at {first_draw} ms");
    assert!(seen["pageErrors"].as_array().unwrap().is_empty());
}
