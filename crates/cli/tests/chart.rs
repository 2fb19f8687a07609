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
    run_browser_script("check", &config)
}

/// Runs `tests/chart/SCRIPT.mjs` with `config` and returns what it saw
/// (its one line of JSON), checked for a run that did not fail.
fn run_browser_script(script: &str, config: &Value) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/chart/{script}.mjs"));
    let output = Command::new("node")
        .arg(path)
        .arg(config.to_string())
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{script}.mjs failed: {}\n{stdout}",
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

/// Opens the chart `html` in Chromium with the script
/// `tests/chart/SCRIPT.mjs` (its screenshots in `dir`), and returns what
/// the script saw, checked for a drawn chart without errors that made no
/// request but the file.
fn open_in_browser(script: &str, html: &Path, dir: &Path) -> Value {
    tools::browser();
    let config = serde_json::json!({
        "html": html.canonicalize().unwrap(),
        "nodeModules": tools::node_packages(),
        "screenshots": dir,
    });
    let seen = run_browser_script(script, &config);
    assert_drawn_without_errors(&seen);
    assert_eq!(seen["requests"], serde_json::json!([seen["url"]]), "requests");
    seen
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
    // `tracks` prints it. The lane is scrolled to the top, past the page's
    // tracks: the click must find what the hover found.
    let (code, text, _) = tracekit(&[
        "tracks",
        TRACE,
        "--full-urls",
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
    // An event's tooltip says what it is, as its line in `tracks` does.
    assert!(
        tips.iter().any(|t| t.starts_with("TimerFire\ntimer ")),
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

/// Made-up page tracks over the first 2.2 s of a trace whose clock starts
/// at `origin` µs: requests of every kind (one render-blocking), frames
/// of every state, screenshots (the three small JPEGs of `tests/chart/shots/`,
/// made in Chromium), timings, markers, interactions (one long),
/// layout shifts.
fn synthetic_page_tracks(origin: f64) -> tracekit::export::chart::PageTracks {
    use tracekit::export::chart::*;
    use tracekit::Micros;
    let at = |ms: f64| Micros(origin + ms * 1000.0);
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/chart/shots");
    let images: Vec<Vec<u8>> = (1..=3)
        .map(|i| std::fs::read(shots.join(format!("shot{i}.jpg"))).unwrap())
        .collect();
    let kinds = [
        ("Document", "text/html", "/index.html"),
        ("Stylesheet", "text/css", "/style.css"),
        ("Script", "text/javascript", "/app.js"),
        ("Font", "font/woff2", "/font.woff2"),
        ("Image", "image/png", "/hero.png"),
        ("Fetch", "application/json", "/api/data.json"),
    ];
    let mut network = Vec::new();
    for i in 0..18 {
        let (resource_type, mime, path) = kinds[i % kinds.len()];
        let start = 20.0 + 60.0 * i as f64 + if i == 0 { 0.0 } else { 40.0 };
        network.push(NetworkRequest {
            url: format!("https://shop.example{path}?v={i}"),
            kind: ResourceKind::of(Some(resource_type), mime),
            priority: ["VeryHigh", "High", "Medium", "Low"][i % 4].to_owned(),
            initial_priority: (i == 2).then(|| "Low".to_owned()),
            status: Some(if i == 11 { 404 } else { 200 }),
            mime_type: mime.to_owned(),
            transfer_size: Some(1000 + 5000 * i as u64),
            decoded_size: Some(3000 + 9000 * i as u64),
            render_blocking: i == 1 || i == 2,
            from_cache: i == 9,
            start: at(start),
            send_start: at(start + 15.0 + (i % 3) as f64 * 10.0),
            download_start: at(start + 60.0 + (i % 4) as f64 * 25.0),
            finish: at(start + 110.0 + (i % 5) as f64 * 30.0),
            end: at(start + 125.0 + (i % 5) as f64 * 30.0),
        });
    }
    let frames = (0..130)
        .map(|i| Frame {
            start: at(16.7 * i as f64),
            end: at(16.7 * (i + 1) as f64),
            state: match i % 23 {
                5 => FrameState::Dropped,
                11 => FrameState::Partial,
                17 | 18 => FrameState::Idle,
                _ => FrameState::Good,
            },
        })
        .collect();
    let screenshots = (0..22)
        .map(|i| Screenshot {
            time: at(100.0 * i as f64),
            jpeg: images[(i / 4).min(2)].clone(),
        })
        .collect();
    let timing = |kind, name: &str, start, dur| Timing {
        kind,
        name: name.to_owned(),
        start: at(start),
        dur: Micros(dur * 1000.0),
    };
    let timings = vec![
        timing(TimingKind::Measure, "hydrate", 300.0, 700.0),
        timing(TimingKind::Measure, "render list", 420.0, 250.0),
        timing(TimingKind::Mark, "app ready", 1000.0, 0.0),
        timing(TimingKind::ConsoleTime, "fetch data", 1250.0, 400.0),
        timing(TimingKind::TimeStamp, "checkpoint", 1500.0, 0.0),
    ];
    let marker = |kind, ms| PageLoadMarker { kind, time: at(ms) };
    let markers = vec![
        marker(MarkerKind::FirstPaint, 180.0),
        marker(MarkerKind::FirstContentfulPaint, 240.0),
        marker(MarkerKind::DomContentLoaded, 520.0),
        marker(MarkerKind::LargestContentfulPaint, 760.0),
        marker(MarkerKind::Load, 1100.0),
    ];
    let interaction = |kind, event_type: &str, id, times: [f64; 4]| Interaction {
        kind,
        event_type: event_type.to_owned(),
        interaction_id: id,
        start: at(times[0]),
        processing_start: at(times[1]),
        processing_end: at(times[2]),
        end: at(times[3]),
    };
    let interactions = vec![
        interaction(
            InteractionKind::Pointer,
            "click",
            7001,
            [1320.0, 1335.0, 1420.0, 1450.0],
        ),
        interaction(
            InteractionKind::Keyboard,
            "keydown",
            7002,
            [1600.0, 1650.0, 1900.0, 1960.0],
        ),
    ];
    let layout_shifts = vec![
        LayoutShiftCluster {
            start: at(600.0),
            end: at(1700.0),
            score: 0.21,
            shifts: vec![
                LayoutShift {
                    time: at(600.0),
                    score: 0.15,
                },
                LayoutShift {
                    time: at(700.0),
                    score: 0.01,
                },
                LayoutShift {
                    time: at(820.0),
                    score: 0.05,
                },
            ],
        },
        LayoutShiftCluster {
            start: at(1900.0),
            end: at(2200.0),
            score: 0.002,
            shifts: vec![LayoutShift {
                time: at(1900.0),
                score: 0.002,
            }],
        },
    ];
    PageTracks {
        network,
        frames,
        screenshots,
        timings,
        markers,
        interactions,
        layout_shifts,
        ..PageTracks::default()
    }
}

/// The page's tracks (a test-only chart: a recorded fixture's threads
/// under made-up page tracks, `chart::html_with_page`) drawn in Chromium
/// (`tests/chart/page.mjs`): every track has ink, hovering a request and
/// an interaction shows their tooltips and the screenshot of that time,
/// a track folds, and nothing is requested or fails.
#[test]
fn page_tracks_in_chromium() {
    const TRACE: &str = "traces/main-thread.json.gz";
    let dir = artifacts("page");
    let html = dir.join("page.html");
    let bytes = std::fs::read(fixtures().join(TRACE)).unwrap();
    let analysis = tracekit::analyze_bytes(&bytes, &tracekit::AnalyzeOptions::default()).unwrap();
    let origin = analysis.bounds().min.0;
    let tracks = synthetic_page_tracks(origin);
    let page = tracekit::export::chart::html_with_page(
        &analysis,
        &tracekit::query::Query::new(),
        tracekit::Parallelism::Sequential,
        "main-thread.json.gz",
        Some(&tracks),
    );
    std::fs::write(&html, page).unwrap();

    let seen = open_in_browser("page", &html, &dir);

    // The tracks, in the panel's order, above the lanes; each has ink.
    let kinds: Vec<&str> = seen["tracks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "network",
            "frames",
            "screenshots",
            "timings",
            "interactions",
            "layoutShifts"
        ]
    );
    for track in seen["tracks"].as_array().unwrap() {
        assert!(track["ink"].as_u64().unwrap() > 50, "nothing drawn in {track}");
    }
    // The requests are packed into rows; the timings have the markers'
    // row and two of nested measures.
    assert!(
        seen["tracks"][0]["rows"].as_u64().unwrap() >= 2,
        "{}",
        seen["tracks"][0]
    );
    assert_eq!(seen["tracks"][3]["rows"], 3);
    assert_eq!(seen["images"], 3, "three distinct images, decoded");

    // A request's tooltip, with the screenshot of its time.
    let request = &tracks.network[2];
    let tip = seen["hover"]["request"]["tip"].as_str().unwrap();
    for needed in [
        request.url.as_str(),
        "JS · Priority: Low → Medium",
        "Render-blocking",
        "200 · text/javascript · 11.0 kB transferred",
        "Queuing and connecting: 35.000 ms",
        "Content downloading: ",
    ] {
        assert!(tip.contains(needed), "{needed:?} not in {tip}");
    }
    let shot_time = |hover: &Value| hover["shot"].as_f64().expect("a screenshot shown");
    let at = seen["hover"]["request"]["timeUs"].as_f64().unwrap();
    let expected = tracks
        .screenshots
        .iter()
        .map(|s| s.time.0 - origin)
        .filter(|t| *t <= at)
        .fold(f64::NEG_INFINITY, f64::max);
    assert_eq!(shot_time(&seen["hover"]["request"]), expected);
    // An interaction's: its phases; a long one is flagged.
    let tip = seen["hover"]["interaction"]["tip"].as_str().unwrap();
    for needed in [
        "Keyboard (keydown) · 360.000 ms",
        "Long interaction (over 200 ms)",
        "Input delay: 50.000 ms",
        "Processing duration: 250.000 ms",
        "Presentation delay: 60.000 ms",
    ] {
        assert!(tip.contains(needed), "{needed:?} not in {tip}");
    }
    // Over a thread's lane, no tooltip needed: the screenshot still shows.
    assert!(shot_time(&seen["hover"]["lane"]) >= 0.0);
    // A click pins a request's details.
    let pinned = seen["pinned"].as_str().unwrap();
    assert!(
        pinned.contains(&format!("URL\t{}\n", request.url)) && pinned.contains("Render-blocking"),
        "{pinned}"
    );
    // Folding the network track moves the lanes up.
    let fold = &seen["fold"];
    assert_eq!(fold["collapsed"], true);
    assert!(fold["lanesTop"].as_f64().unwrap() < fold["lanesTopBefore"].as_f64().unwrap());
}

/// The handlers' marks on the chart of a hand-made trace
/// (`tests/chart/causes.json`: a timer installed in one task and fired
/// in a long one that installs another, the GPU's tasks, memory
/// counters, a group of extension tracks and a track of its own, a
/// marker), drawn in Chromium (`tests/chart/causes.mjs`): the long task
/// has its red corner, its stripes and its warning; a click on the timer's
/// fire draws the arrow from its install, a click on the second install
/// the arrow to its fire, Escape none; the GPU, memory and extension
/// tracks are drawn.
#[test]
fn causes_in_chromium() {
    let dir = artifacts("causes");
    let html = dir.join("causes.html");
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/chart/causes.json");
    chart(trace.to_str().unwrap(), &html, &[]);

    let seen = open_in_browser("causes", &html, &dir);

    // The tracks: the extensions' (a group, then a track of its own), the
    // GPU's, the memory graph; each with ink.
    let tracks: Vec<(&str, &str)> = seen["tracks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["kind"].as_str().unwrap(), t["title"].as_str().unwrap()))
        .collect();
    assert_eq!(
        tracks,
        [
            ("timings", "Timings"),
            ("extension", "My Framework"),
            ("extension", "Sync"),
            ("gpu", "GPU"),
            ("memory", "Memory")
        ]
    );
    for track in seen["tracks"].as_array().unwrap() {
        assert!(track["ink"].as_u64().unwrap() > 500, "nothing drawn in {track}");
    }
    // The group: a row of names per track, the nested entries on three rows.
    assert_eq!(seen["tracks"][1]["rows"], 7);

    // The long task: red in its top-right corner, red stripes past 50 ms,
    // grey before; the warning in its tooltip.
    let long = &seen["longTask"];
    let rgb = |v: &Value| -> Vec<u64> { v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect() };
    let corner = rgb(&long["corner"]);
    assert!(corner[0] > 200 && corner[1] < 60 && corner[2] < 60, "corner {corner:?}");
    let before = rgb(&long["before"]);
    assert!(
        before[0] == before[1] && before[1] == before[2],
        "before 50 ms {before:?}"
    );
    assert!(long["redPixelsPastFifty"].as_u64().unwrap() > 50, "{long}");
    assert_eq!(
        long["tip"],
        "RunTask\nstart 39.000 ms · total 90.000 ms · self 1.000 ms\nLong task (over 50 ms)"
    );

    // The timer's fire, clicked: one arrow, from its install, drawn.
    let fire = &seen["fire"];
    assert_eq!(fire["selected"]["node"], fire["node"]);
    let arrows = fire["arrows"].as_array().unwrap();
    assert_eq!(arrows.len(), 1, "{fire}");
    assert_eq!(arrows[0]["to"]["node"], fire["node"]);
    assert!(
        arrows[0]["x1"].as_f64().unwrap() < arrows[0]["x2"].as_f64().unwrap(),
        "{arrows:?}"
    );
    assert!(fire["arrowInk"].as_u64().unwrap() > 5, "no arrow drawn: {fire}");
    assert!(
        fire["details"].as_str().unwrap().contains("Initiated by\tTimerInstall"),
        "{fire}"
    );
    // The second install: an arrow to the second fire.
    let install = &seen["install"];
    let arrows = install["arrows"].as_array().unwrap();
    assert_eq!(arrows.len(), 1, "{install}");
    assert_eq!(arrows[0]["from"]["node"], install["node"]);
    assert!(
        install["details"].as_str().unwrap().contains("Initiated\tTimerFire"),
        "{install}"
    );
    assert_eq!(seen["unselected"], 0, "Escape: no arrow");

    // The memory graph's and an extension entry's tooltips.
    let memory = seen["memoryTip"].as_str().unwrap();
    assert!(
        memory.starts_with("Memory at ") && memory.contains("JS heap: ") && memory.contains("Nodes: "),
        "{memory}"
    );
    assert_eq!(seen["entryTip"], "App rendered\nstart 19.000 ms · total 120.000 ms");
}
