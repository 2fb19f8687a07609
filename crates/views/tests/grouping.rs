//! Grouping (`docs/views.md`, "Grouping") on the hand-written grouping
//! fixtures: rows asserted exactly (`DEPTH ID SELF TOTAL`, pre-order,
//! siblings by id, group nodes at depth 0), and a snapshot of the text.

use std::path::Path;

use tracekit::DevTools;
use tracekit_views::{GroupBy, View};

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

/// A fixture loaded with what grouping reads, as DevTools `devtools` reads it.
fn analysis(name: &str, devtools: DevTools) -> tracekit::Analysis {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/handwritten/views")
        .join(name);
    let options = tracekit::AnalyzeOptions::default()
        .with_group_args(true)
        .with_devtools(devtools);
    tracekit::analyze_bytes(&std::fs::read(file).unwrap(), &options).unwrap()
}

/// The rows of one view of the first thread whose name is `thread`, the
/// rows under the group `group` only (`None`: all), joined by ` | `.
fn rows(name: &str, group_by: GroupBy, view: &str, thread: &str, group: Option<&str>) -> String {
    rows_as(DevTools::LATEST, name, group_by, view, thread, group)
}

/// [`rows`], DevTools `devtools` reading the URLs.
fn rows_as(devtools: DevTools, name: &str, group_by: GroupBy, view: &str, thread: &str, group: Option<&str>) -> String {
    let analysis = analysis(name, devtools);
    let dump: serde_json::Value = serde_json::from_str(
        &tracekit_views::calltree_conformance(&analysis, &tracekit_views::ViewOptions::new().group_by(group_by))
            .unwrap(),
    )
    .unwrap();
    let thread = dump["threads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == thread)
        .unwrap();
    let mut in_group = group.is_none();
    let mut out = Vec::new();
    for r in thread[view].as_array().unwrap() {
        if r[0] == 0 {
            in_group = group.is_none_or(|g| r[1] == g);
        }
        if in_group {
            out.push(format!("{} {} {} {}", r[0], r[1].as_str().unwrap(), r[2], r[3]));
        }
    }
    out.join(" | ")
}

#[test]
fn call_tree_ids_carry_the_group_and_two_ids_may_become_one() {
    // `FunctionCall` with the URL `u` and an event named `FunctionCall/u`
    // without one both get the Call Tree id `FunctionCall/u`: one node, in
    // the group of the first.
    assert_eq!(
        rows("grouping-generic.json", GroupBy::Url, "topDown", "Main", Some("u")),
        "0 u 0.2 0.2 | 1 FunctionCall/u 0.2 0.2"
    );
    // Deeper nodes carry their own event's group.
    assert_eq!(
        rows(
            "grouping-generic.json",
            GroupBy::Url,
            "topDown",
            "Main",
            Some("HTTP://Mixed.Case.Example.COM:80/x")
        ),
        "0 HTTP://Mixed.Case.Example.COM:80/x 0.15 0.2 | 1 Foo/HTTP://Mixed.Case.Example.COM:80/x 0.15 0.2 | 2 Foo/https://sub.example.com/y 0.05 0.05"
    );
}

#[test]
fn a_bottom_up_row_is_in_the_group_of_its_first_ended_event_and_a_group_totals_self_times() {
    // The inner `Foo` (sub.example.com) ends first: the whole `Foo` row,
    // both events' self time, is in its group; the group's total is the
    // sum of its rows' self times, not of their totals.
    assert_eq!(
        rows(
            "grouping-generic.json",
            GroupBy::Domain,
            "bottomUp",
            "Main",
            Some("example.com")
        ),
        "0 example.com 0.2 0.2 | 1 Foo 0.2 0.2 | 2 Foo 0.05 0.05"
    );
    assert_eq!(
        rows(
            "grouping.json",
            GroupBy::Domain,
            "bottomUp",
            "CrRendererMain",
            Some("localhost")
        ),
        "0 localhost 0.06 0.06 | 1 f:main@15:0:0 0.06 0.15 | 2 EvaluateScript 0.03 0.06 | 2 FunctionCall 0.03 0.09"
    );
}

#[test]
fn events_without_a_url_are_in_the_empty_group() {
    // `u` is no URL the panel's parser reads: no host. A Call Tree
    // group's totals are its nodes' totals.
    assert_eq!(
        rows("grouping-generic.json", GroupBy::Subdomain, "topDown", "Main", Some("")),
        "0  0.35 0.35 | 1 Bar 0.1 0.1 | 1 FunctionCall 0.1 0.1 | 1 FunctionCall/u 0.1 0.1 | 1 Qux 0.05 0.05"
    );
    // DevTools 2026-06 took a string for a stack trace (a `Baz` has
    // `"stackTrace": "s"`), its first frame's URL undefined; today's skips
    // it and reads the event's own URL.
    assert_eq!(
        rows_as(DevTools::V2026_06, "grouping-generic.json", GroupBy::Subdomain, "topDown", "Main", Some("")),
        "0  0.45 0.45 | 1 Bar 0.1 0.1 | 1 Baz 0.1 0.1 | 1 FunctionCall 0.1 0.1 | 1 FunctionCall/u 0.1 0.1 | 1 Qux 0.05 0.05"
    );
    assert_eq!(
        rows(
            "grouping-generic.json",
            GroupBy::Subdomain,
            "topDown",
            "Main",
            Some("ignored.test")
        ),
        "0 ignored.test 0.1 0.1 | 1 Baz/ignored.test 0.1 0.1"
    );
}

#[test]
fn urls_come_from_requests_and_painted_images() {
    // `ResourceFinish` of request R1: the URL of its last ResourceSendRequest.
    assert_eq!(
        rows(
            "grouping.json",
            GroupBy::Domain,
            "topDown",
            "CrRendererMain",
            Some("example.net")
        ),
        "0 example.net 0.1 0.1 | 1 req:R1/example.net 0.1 0.1"
    );
    // On the raster thread, `Decode Image` is tied to the PaintImage of
    // the main thread through its LazyPixelRef; the begin/end one is not.
    assert_eq!(
        rows("grouping.json", GroupBy::Url, "topDown", "CompositorTileWorker1", None),
        "0  0.1 0.1 | 1 Decode Image 0.1 0.1 | 0 https://img.example.org/a.png 0.25 0.25 | 1 Decode Image/https://img.example.org/a.png 0.25 0.25"
    );
}

#[test]
fn frames_fall_back_to_the_main_frame() {
    // `UpdateLayoutTree` names the frame "" in `beginData` (and F2 in
    // `data`): it is in the main frame F1, as JS calls are.
    let f1 = rows("grouping.json", GroupBy::Frame, "topDown", "CrRendererMain", Some("F1"));
    assert!(f1.contains("| 1 UpdateLayoutTree/F1 0.01 0.01"), "{f1}");
    assert!(f1.contains("| 2 f:main@15:0:0/F1 "), "{f1}");
    assert_eq!(
        rows("grouping.json", GroupBy::Frame, "topDown", "CrRendererMain", Some("F2")),
        "0 F2 0.06 0.2 | 1 EvaluateScript/F2 0.04 0.1 | 2 f:main@15:0:0/F1 0.03 0.06 | 3 f:@16:0:0/F1 0.03 0.03 | 1 EventDispatch/F2 0.02 0.1 | 2 FunctionCall/F2 0.08 0.08"
    );
}

#[test]
fn categories_follow_the_styles_and_the_console_categories() {
    // A `Layout` of category blink.user_timing is scripting: a node of
    // its own in the Call Tree; in the Bottom-Up, the one `Layout` row is
    // in the group of the first to end, rendering.
    let scripting = rows(
        "grouping.json",
        GroupBy::Category,
        "topDown",
        "CrRendererMain",
        Some("scripting"),
    );
    assert!(scripting.contains("| 1 Layout/scripting 0.05 0.05 |"), "{scripting}");
    let rendering = rows(
        "grouping.json",
        GroupBy::Category,
        "bottomUp",
        "CrRendererMain",
        Some("rendering"),
    );
    assert_eq!(
        rendering,
        "0 rendering 0.21 0.21 | 1 Layout 0.2 0.2 | 1 UpdateLayoutTree 0.01 0.01"
    );
    assert_eq!(
        rows(
            "grouping.json",
            GroupBy::Category,
            "topDown",
            "CrRendererMain",
            Some("gpu")
        ),
        "0 gpu 0.05 0.05 | 1 GPUTask/gpu 0.05 0.05"
    );
}

#[test]
fn a_depth_limit_is_a_pure_filter_of_the_grouped_rows() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/traces/main-thread.json.gz");
    let options = tracekit::AnalyzeOptions::default().with_group_args(true);
    let analysis = tracekit::analyze_bytes(&std::fs::read(file).unwrap(), &options).unwrap();
    let dump = |depth: Option<u32>| -> serde_json::Value {
        let text = tracekit_views::calltree_conformance(
            &analysis,
            &tracekit_views::ViewOptions::new()
                .query(q(Some((600.0, 1400.0)), depth))
                .group_by(GroupBy::Domain),
        )
        .unwrap();
        serde_json::from_str(&text).unwrap()
    };
    let full = dump(None);
    for depth in [1, 2, 4] {
        let limited = dump(Some(depth));
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
                assert!(!rows.is_empty() || filtered.is_empty());
                assert_eq!(rows, filtered, "{key} at depth {depth}");
            }
        }
    }
}

#[test]
fn categories_need_no_args_but_urls_do() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/handwritten/views/grouping.json");
    let without = tracekit::analyze_bytes(&std::fs::read(file).unwrap(), &Default::default()).unwrap();
    let with = analysis("grouping.json", DevTools::LATEST);
    let dump = |a: &tracekit::Analysis, g| {
        tracekit_views::calltree_conformance(a, &tracekit_views::ViewOptions::new().group_by(g))
    };
    assert_eq!(dump(&without, GroupBy::Category), dump(&with, GroupBy::Category));
    assert_eq!(dump(&without, GroupBy::None), dump(&with, GroupBy::None));
    assert!(dump(&with, GroupBy::Category).is_ok());
    for group_by in [GroupBy::Url, GroupBy::Domain, GroupBy::Subdomain, GroupBy::Frame] {
        let error = dump(&without, group_by).unwrap_err();
        let tracekit_views::ViewError::Grouping(grouping) = &error else {
            panic!("{error:?}");
        };
        assert_eq!(grouping.group_by(), group_by);
        assert_eq!(
            error,
            tracekit_views::calltree_json(&without, &tracekit_views::ViewOptions::new().group_by(group_by))
                .unwrap_err()
        );
        assert_eq!(*grouping, group_by.check(&without).unwrap_err());
        let parallel = tracekit_views::ViewOptions::new()
            .group_by(group_by)
            .parallelism(tracekit::Parallelism::Rayon);
        assert_eq!(
            error,
            tracekit_views::calltree_conformance(&without, &parallel).unwrap_err()
        );
        assert!(dump(&with, group_by).is_ok());
    }
    assert_eq!(
        dump(&without, GroupBy::Url).unwrap_err().to_string(),
        "grouping by url needs an analysis made with AnalyzeOptions::with_group_args(true)"
    );
}

#[test]
fn text_of_the_grouped_views() {
    let analysis = analysis("grouping.json", DevTools::LATEST);
    let mut text = tracekit_views::write_text(
        &analysis,
        View::TopDown,
        &tracekit_views::ViewOptions::new().group_by(GroupBy::Domain),
    )
    .unwrap();
    text.push_str(
        &tracekit_views::write_text(
            &analysis,
            View::BottomUp,
            &tracekit_views::ViewOptions::new()
                .query(q(None, Some(2)))
                .group_by(GroupBy::Category),
        )
        .unwrap(),
    );
    text.push_str(
        &tracekit_views::write_text(
            &analysis,
            View::TopDown,
            &tracekit_views::ViewOptions::new()
                .query(q(None, Some(1)))
                .group_by(GroupBy::Frame),
        )
        .unwrap(),
    );
    insta::with_settings!({
        snapshot_path => "../../../fixtures/snapshots",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!("views__grouping.json", text);
    });
}
