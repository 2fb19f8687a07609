//! The worked examples of the views spec (`docs/views.md`), rows asserted
//! exactly: `DEPTH ID SELF TOTAL`, pre-order, siblings by id.

use std::path::Path;

/// The query of a window (ms from the trace start) and a number of levels.
fn q(window: Option<(f64, f64)>, levels: Option<u32>) -> tracekit::query::Query {
    let query = tracekit::query::Query::from_parts(None, None, levels, None).unwrap();
    match window {
        Some((a, b)) => {
            query.with_window(tracekit::query::Window::new(tracekit::Millis(a), tracekit::Millis(b)).unwrap())
        }
        None => query,
    }
}

/// The rows of each view of the first thread, one string per view.
fn views(name: &str, window: Option<(f64, f64)>) -> (String, String) {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/handwritten/views")
        .join(name);
    let analysis = tracekit::analyze_bytes(&std::fs::read(file).unwrap(), &Default::default()).unwrap();
    let dump: serde_json::Value = serde_json::from_str(
        &tracekit_views::calltree_conformance(&analysis, &tracekit_views::ViewOptions::new().query(q(window, None)))
            .unwrap(),
    )
    .unwrap();
    let rows = |key: &str| {
        dump["threads"][0][key]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| format!("{} {} {} {}", r[0], r[1].as_str().unwrap(), r[2], r[3]))
            .collect::<Vec<_>>()
            .join(" | ")
    };
    (rows("topDown"), rows("bottomUp"))
}

#[test]
fn direct_recursion_is_counted_once_in_bottom_up_totals() {
    let (td, bu) = views("recursion-direct.json", None);
    assert_eq!(td, "0 FunctionCall 0.4 0.9 | 1 FunctionCall 0.4 0.5 | 2 Layout 0.1 0.1");
    assert_eq!(
        bu,
        "0 FunctionCall 0.8 0.9 | 1 FunctionCall 0.4 0.5 | 0 Layout 0.1 0.1 | 1 FunctionCall 0.1 0.1 | 2 FunctionCall 0.1 0.1"
    );
}

#[test]
fn the_end_marker_is_shared_by_the_children_of_a_bottom_up_node() {
    let (_, bu) = views("bu-marker.json", None);
    assert_eq!(
        bu,
        "0 FunctionCall 0.5 0.9 | 1 TimerFire 0.2 0.4 | 2 FunctionCall 0.2 0.4 | 0 TimerFire 0.4 0.6 | 1 FunctionCall 0.4 0.4 | 2 TimerFire 0.2 0.2 | 3 FunctionCall 0.2 0.2"
    );
    let (_, bu) = views("bu-cross.json", Some((1.4, 1.95)));
    assert_eq!(
        bu,
        "0 EventDispatch 0.1 0.2 | 1 TimerFire 0.1 0.2 | 2 FunctionCall 0.1 0.2 | 0 FunctionCall 0.05 0.55 | 0 TimerFire 0.4 0.5 | 1 EventDispatch 0.1 0.1 | 2 TimerFire 0.1 0.1 | 3 FunctionCall 0.1 0.1 | 1 FunctionCall 0.3 0.4"
    );
}

#[test]
fn instants_give_time_stamp_ids_and_transfer_size_rows() {
    let (td, bu) = views("instants.json", None);
    assert_eq!(
        td,
        "0 FunctionCall 0.7 0.9 | 1 TimeStamp 0.1 0.1 | 1 TimeStamp:mark2 0.1 0.1"
    );
    assert_eq!(
        bu,
        "0 FunctionCall 0.7 0.9 | 0 TimeStamp 0.1 0.1 | 1 FunctionCall 0.1 0.1 | 0 TimeStamp:mark2 0.1 0.1 | 1 FunctionCall 0.1 0.1 | 0 req:R1 0 0 | 0 req:R3 0 0"
    );
}

#[test]
fn filtered_events_are_transparent_and_generic_traces_keep_everything() {
    let (td, _) = views("filtered.json", None);
    assert_eq!(
        td,
        "0 Animation 0.01 0.01 | 0 Layout 0.1 0.1 | 0 Paint 0.1 0.1 | 0 UpdateLayoutTree 0.05 0.05"
    );
    let (td, bu) = views("generic.json", None);
    assert_eq!(
        td,
        "0 Bar -0.1 -0.1 | 0 BeginMainThreadFrame 0.1 0.1 | 0 Foo 0.3 0.5 | 1 Foo 0.2 0.2"
    );
    assert_eq!(bu, "0 BeginMainThreadFrame 0.1 0.1 | 0 Foo 0.5 0.5 | 1 Foo 0.2 0.2");
}

#[test]
fn js_calls_are_named_by_function_script_line_and_column() {
    let (td, _) = views("js-trace.json", None);
    assert_eq!(
        td,
        "0 FunctionCall 0.3 1.5 | 1 f:@7:10:4 0.6 1.2 | 2 f:named@0:0:0 0.2 0.2 | 2 f:named@7:20:2 0.2 0.2 | 2 f:reviver@7:40:1 0.2 0.2"
    );
}

#[test]
fn text_shows_labels_times_and_percents() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/handwritten/views/js-trace.json");
    let analysis = tracekit::analyze_bytes(&std::fs::read(file).unwrap(), &Default::default()).unwrap();
    let text = tracekit_views::write_text(
        &analysis,
        tracekit_views::View::TopDown,
        &tracekit_views::ViewOptions::new(),
    )
    .unwrap();
    // A header row names the columns; a URL is short by default.
    assert_eq!(
        text,
        "Call Tree, window 0.000..3.000 ms from the trace start (3.000 ms)
thread 1 CrRendererMain (pid 1)
  self ms (%)  total ms (%)  name
  0.300 ms (10.0%)  1.500 ms (50.0%)  FunctionCall
    0.600 ms (20.0%)  1.200 ms (40.0%)  js (anonymous) app.js:11:5
      0.200 ms (6.7%)  0.200 ms (6.7%)  js named lib.js:1:1
      0.200 ms (6.7%)  0.200 ms (6.7%)  js named app.js:21:3
      0.200 ms (6.7%)  0.200 ms (6.7%)  js reviver app.js:41:2
"
    );
    let bu = tracekit_views::write_text(
        &analysis,
        tracekit_views::View::BottomUp,
        &tracekit_views::ViewOptions::new()
            .query(q(None, Some(2)))
            .text(tracekit_views::TextRows::new().full_urls(true)),
    )
    .unwrap();
    assert!(bu.starts_with(
        "Bottom-Up, window 0.000..3.000 ms from the trace start (3.000 ms)
thread 1 CrRendererMain (pid 1)
  self ms (%)  total ms (%)  name
  0.600 ms (20.0%)  1.200 ms (40.0%)  js (anonymous) https://a.test/app.js:11:5
    0.600 ms (20.0%)  1.200 ms (40.0%)  FunctionCall
  0.300 ms (10.0%)  1.500 ms (50.0%)  FunctionCall
"
    ));
    // The first N rows, the rows of at least a total.
    let rows = |text: tracekit_views::TextRows| {
        let options = tracekit_views::ViewOptions::new().text(text);
        let out = tracekit_views::write_text(&analysis, tracekit_views::View::TopDown, &options).unwrap();
        out.lines().skip(3).map(str::to_owned).collect::<Vec<_>>()
    };
    assert_eq!(
        rows(tracekit_views::TextRows::new().top(Some(2))),
        [
            "  0.300 ms (10.0%)  1.500 ms (50.0%)  FunctionCall",
            "    0.600 ms (20.0%)  1.200 ms (40.0%)  js (anonymous) app.js:11:5",
            "  (3 more rows)"
        ]
    );
    assert_eq!(
        rows(tracekit_views::TextRows::new().min_total(Some(tracekit::Millis(1.3)))),
        ["  0.300 ms (10.0%)  1.500 ms (50.0%)  FunctionCall"]
    );
}

#[test]
fn a_depth_limit_is_a_pure_filter_of_the_rows() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/traces/main-thread.json.gz");
    let analysis = tracekit::analyze_bytes(&std::fs::read(file).unwrap(), &Default::default()).unwrap();
    let full: serde_json::Value = serde_json::from_str(
        &tracekit_views::calltree_conformance(
            &analysis,
            &tracekit_views::ViewOptions::new().query(q(Some((600.0, 1400.0)), None)),
        )
        .unwrap(),
    )
    .unwrap();
    for depth in [1, 3, 6] {
        let limited: serde_json::Value = serde_json::from_str(
            &tracekit_views::calltree_conformance(
                &analysis,
                &tracekit_views::ViewOptions::new().query(q(Some((600.0, 1400.0)), Some(depth))),
            )
            .unwrap(),
        )
        .unwrap();
        for (t, l) in full["threads"]
            .as_array()
            .unwrap()
            .iter()
            .zip(limited["threads"].as_array().unwrap())
        {
            for key in ["topDown", "bottomUp"] {
                let filtered: Vec<&serde_json::Value> = t[key]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|r| r[0].as_u64().unwrap() < depth as u64)
                    .collect();
                let rows: Vec<&serde_json::Value> = l[key].as_array().unwrap().iter().collect();
                assert_eq!(rows, filtered, "{key} at depth {depth}");
            }
        }
    }
}
