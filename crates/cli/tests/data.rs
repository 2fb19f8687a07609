//! `tracekit data`: the handlers' data of a trace, end to end.

#[path = "support/run.rs"]
mod run;

use run::tracekit;

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
fn what_devtools_keeps_in_weak_maps_is_empty_in_the_conformance_dump_and_whole_in_json() {
    let of = |format: &str| {
        let out = tracekit(&[
            "data",
            "traces/main-thread.json.gz",
            "--handler",
            "Initiators",
            "--handler",
            "Warnings",
            "--format",
            format,
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["handlers"].clone()
    };
    let conformance = of("conformance");
    assert_eq!(conformance["Initiators"]["eventToInitiator"], serde_json::json!({}));
    assert_eq!(conformance["Warnings"]["perEvent"], serde_json::json!({}));
    let json = of("json");
    // Each timer fire has its install as initiator: a map of input events.
    let links = json["Initiators"]["eventToInitiator"]["$map"].as_array().unwrap();
    assert!(links.len() > 100, "{}", links.len());
    assert!(links.iter().all(|l| l[0].as_str().unwrap().starts_with('#')));
    let per_event = json["Warnings"]["perEvent"]["$map"].as_array().unwrap();
    assert!(per_event.iter().any(|e| e[1] == serde_json::json!(["FORCED_REFLOW"])));
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
    assert_eq!(
        String::from_utf8_lossy(&json.stderr).trim(),
        "tracekit: warning: handwritten/nesting.json: the trace has no network requests (no ResourceSendRequest event)"
    );
}

#[test]
fn metrics_and_info_tell_the_page_load() {
    let out = tracekit(&["metrics", "traces/page-load.json.gz"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let line = |name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap()
            .to_owned()
    };
    // DevTools' own values for this recording (its PageLoadMetrics data).
    assert!(line("FCP ").contains(" 489.0 ms  good"), "{text}");
    assert!(
        line("LCP ").contains(" 875.0 ms  good") && line("LCP ").contains("image http://a.test:"),
        "{text}"
    );
    assert!(
        line("CLS ").contains("0.1091") && line("CLS ").contains("3 shifts"),
        "{text}"
    );
    assert!(
        line("INP ").contains(" ok ") && line("INP ").contains("click at"),
        "{text}"
    );
    let info = String::from_utf8(tracekit(&["info", "traces/page-load.json.gz"]).stdout).unwrap();
    let page: Vec<&str> = info.lines().skip_while(|l| !l.starts_with("page: ")).take(4).collect();
    assert!(
        page[0].ends_with("/page-load.html?scale=1 (1 navigation of the main frame)"),
        "{info}"
    );
    assert!(page[1].contains("FCP 489.0 ms, LCP 875.0 ms (image "), "{info}");
    assert!(page[2].starts_with("  requests: 13 ("), "{info}");
    assert_eq!(page[3], "  screenshots: 17");
    let none = tracekit(&["metrics", "handwritten/nesting.json"]);
    assert_eq!(none.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&none.stderr).contains("the trace has no navigation of the main frame"));
}

#[test]
fn bad_page_input_is_counted_and_reported() {
    let out = tracekit(&["info", "handwritten/page-bad-input.json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    for expected in [
        "warning: 1 network request never finished (kept, unfinished; first: https://page.test/never-finished.js)",
        "warning: 1 layout shift without a score (args.data.weighted_score_delta; first: event #10)",
        "warning: 1 screenshot whose image is not base64 (kept, as DevTools keeps them; first: event #11)",
        "skipped 1 x meta: navigation of an unknown frame, or of no frame (first: navigationStart (event #6)",
        "skipped 1 x network: request events without a ResourceSendRequest (first: request R2 (event #8)",
        "skipped 2 x user timings: measure or console timing end without a begin before it, or begin never ended (first: event #12",
    ] {
        assert!(text.contains(expected), "{expected}\nnot in\n{text}");
    }
}

#[test]
fn bad_extension_entries_are_counted() {
    let out = tracekit(&["info", "handwritten/page-extensions.json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    for expected in [
        "skipped 3 x extensions: console.timeStamp whose start or end names no earlier time stamp (first: console.timeStamp (event #48)",
        "skipped 5 x extensions: user timing detail that is not JSON, or whose devtools payload is not valid (first: event #5: detail \"{not json\")",
    ] {
        assert!(text.contains(expected), "{expected}\nnot in\n{text}");
    }
}

#[test]
fn the_chart_of_a_page_load_has_the_page_tracks() {
    let dir = std::env::temp_dir().join(format!("tracekit-chart-page-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let html = dir.join("chart.html");
    let out = tracekit(&["chart", "traces/page-load.json.gz", "-o", html.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&html).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let start = text
        .find(r#"<script id="tracekit-chart-header" type="application/json">"#)
        .unwrap();
    let header = &text[text[start..].find('>').unwrap() + start + 1..];
    let header: serde_json::Value = serde_json::from_str(&header[..header.find("</script>").unwrap()]).unwrap();
    let page = &header["page"];
    let len = |key: &str| page[key].as_array().map_or(0, Vec::len);
    // As `tracekit network`, `metrics` and DevTools' data say of this recording.
    assert_eq!(len("network"), 13);
    assert_eq!(len("screenshots"), 17);
    assert_eq!(len("markers"), 5, "FP, FCP, LCP, DCL, load");
    assert_eq!(len("layoutShifts"), 1);
    assert!(
        len("interactions") >= 2 && len("frames") > 0 && len("timings") > 0,
        "{page}"
    );
}

#[test]
fn metrics_as_json() {
    let out = tracekit(&["metrics", "traces/page-load.json.gz", "--format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), 1);
    let nav = &rows[0];
    assert_eq!(
        nav["fcp"]["value"].as_f64().map(|x| (x * 10.0).round() / 10.0),
        Some(489.0)
    );
    assert_eq!(nav["lcp"]["rating"], "good");
    assert!(nav["cls"]["value"].as_f64().unwrap() > 0.1);
    assert!(nav["inp"]["value"].as_f64().unwrap() > 200.0);
    let none = tracekit(&["metrics", "handwritten/nesting.json", "--format", "json"]);
    assert_eq!(String::from_utf8_lossy(&none.stdout).trim(), "[]");
    assert!(String::from_utf8_lossy(&none.stderr)
        .contains("warning: handwritten/nesting.json: the trace has no navigation"));
}
