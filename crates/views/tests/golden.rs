//! tracekit's Call Tree and Bottom-Up against the DevTools oracle's
//! goldens of each engine tracekit follows (`calltree/index.txt` of
//! `fixtures/expected/NAME/`, made by `xtask/js/calltree.mjs`), tracekit
//! following the same engine. Rows are compared by their path of ids (the
//! order of siblings does not matter), times within 0.002 ms; a golden
//! made with a depth limit is compared with tracekit's rows of the same
//! depths; one made with `--group-by KIND` with tracekit's views grouped
//! the same way. A trace on which the engine took a documented divergence from
//! DevTools (`docs/divergences.md`), or a golden listed in
//! `known-differences.txt`, may differ: it is reported, not failed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tracekit::DevTools;
use tracekit_conformance::views::{compare_views, known_view_differences, views_cases, ViewsReport};
use tracekit_conformance::{check_engine_file, documented_divergences, expected_dir};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn views_match_the_devtools_goldens() {
    for devtools in DevTools::ALL {
        views_match(devtools);
    }
}

fn views_match(devtools: DevTools) {
    let root = root();
    check_engine_file(&root, devtools).unwrap();
    let goldens = root.join(expected_dir(devtools)).join("calltree");
    let documented = documented_divergences(&root);
    let known = known_view_differences(&root, devtools);
    let mut sets: BTreeMap<String, ViewsReport> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut diverging = Vec::new();
    for case in views_cases(&root, devtools).unwrap() {
        let group_by = match &case.group_by {
            Some(kind) => {
                tracekit_views::GroupBy::from_name(kind).unwrap_or_else(|| panic!("index: group kind {kind}"))
            }
            None => tracekit_views::GroupBy::None,
        };
        let bytes = std::fs::read(root.join("fixtures").join(&case.trace)).unwrap();
        let options = tracekit::AnalyzeOptions::default()
            .with_group_args(group_by.reads_args())
            .with_devtools(devtools);
        let analysis = tracekit::analyze_bytes(&bytes, &options).unwrap();
        let ours = tracekit_views::calltree_conformance(
            &analysis,
            &tracekit_views::ViewOptions::new()
                .query(case.query())
                .group_by(group_by),
        )
        .unwrap();
        let golden = std::fs::read_to_string(goldens.join(&case.golden)).unwrap();
        let report = compare_views(&ours, &golden, case.top_down_depth, case.bottom_up_depth).unwrap();
        let set = format!(
            "{} {}",
            devtools.name(),
            Path::new(&case.trace).parent().unwrap().to_string_lossy()
        );
        let mut counts = report.clone();
        counts.first_difference = None;
        sets.entry(set).or_default().add(&counts);
        let label = format!("{} ({})", case.trace, case.golden);
        eprintln!("{label}: {counts}");
        if let Some(first) = report.first_difference {
            let divergences: Vec<&str> = analysis.diagnostics().divergences().map(|(d, _)| d.as_str()).collect();
            if let Some(reason) = known.get(&case.golden) {
                diverging.push(format!("{label}: known difference ({reason}): {first}"));
            } else if !divergences.is_empty() && divergences.iter().all(|d| documented.iter().any(|x| x == d)) {
                diverging.push(format!("{label}: diverges ({}): {first}", divergences.join(", ")));
            } else {
                failures.push(format!("{label}: {first}"));
            }
        }
    }
    for (set, counts) in &sets {
        eprintln!("{set}: {counts}");
    }
    for d in &diverging {
        eprintln!("{d}");
    }
    assert!(
        failures.is_empty(),
        "differences from {devtools}:\n{}",
        failures.join("\n")
    );
}

/// A known difference must still be one: once tracekit matches the
/// golden, its line in `known-differences.txt` has to go.
#[test]
fn known_differences_still_differ() {
    for devtools in DevTools::ALL {
        known_differences_still_differ_from(devtools);
    }
}

fn known_differences_still_differ_from(devtools: DevTools) {
    let root = root();
    let cases = views_cases(&root, devtools).unwrap();
    for (golden, reason) in known_view_differences(&root, devtools) {
        let case = cases
            .iter()
            .find(|c| c.golden == golden)
            .expect("a known difference names an index golden");
        let divergence = reason.split_whitespace().next().unwrap();
        let doc = std::fs::read_to_string(root.join("docs/divergences.md")).unwrap();
        assert!(
            doc.contains(&format!("### {divergence}")),
            "{golden}: {divergence} is not in docs/divergences.md"
        );
        let bytes = std::fs::read(root.join("fixtures").join(&case.trace)).unwrap();
        let options = tracekit::AnalyzeOptions::default().with_devtools(devtools);
        let analysis = tracekit::analyze_bytes(&bytes, &options).unwrap();
        let ours =
            tracekit_views::calltree_conformance(&analysis, &tracekit_views::ViewOptions::new().query(case.query()))
                .unwrap();
        let text = std::fs::read_to_string(root.join(expected_dir(devtools)).join("calltree").join(&golden)).unwrap();
        let report = compare_views(&ours, &text, case.top_down_depth, case.bottom_up_depth).unwrap();
        assert!(
            !report.is_match(),
            "{golden} now matches DevTools: remove it from known-differences.txt"
        );
    }
}

/// `event-without-category` (docs/divergences.md): DevTools throws on this
/// fixture and has no golden; tracekit gives the views, the event's
/// category read as empty (so not a console or user timing).
#[test]
fn an_event_without_category_gets_views() {
    let bytes = std::fs::read(root().join("fixtures/handwritten/views/nocat.json")).unwrap();
    let analysis = tracekit::analyze_bytes(&bytes, &tracekit::AnalyzeOptions::default()).unwrap();
    assert_eq!(
        tracekit_views::calltree_conformance(&analysis, &tracekit_views::ViewOptions::new()).unwrap(),
        r#"{"threads":[{"pid":1,"tid":1,"name":"CrRendererMain","topDown":[[0,"FunctionCall",0.5,0.5]],"bottomUp":[[0,"FunctionCall",0.5,0.5]]}],"window":{"start":0,"end":2}}"#
    );
}
