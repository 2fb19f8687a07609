//! tracekit's Call Tree and Bottom-Up against the DevTools oracle's
//! goldens (`fixtures/expected/calltree/index.txt`, made by
//! `xtask/js/calltree.mjs`). Rows are compared by their path of ids (the
//! order of siblings does not matter), times within 0.002 ms; a golden
//! made with a depth limit is compared with tracekit's rows of the same
//! depths; one made with `--group-by KIND` with tracekit's views grouped
//! the same way. A trace on which the engine took a documented divergence from
//! DevTools (`docs/divergences.md`), or a golden listed in
//! `known-differences.txt`, may differ: it is reported, not failed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One golden of the index.
struct Case {
    trace: String,
    golden: String,
    window: Option<(f64, f64)>,
    top_down_depth: Option<u32>,
    bottom_up_depth: Option<u32>,
    group_by: tracekit_views::GroupBy,
}

fn cases() -> Vec<Case> {
    let index = std::fs::read_to_string(root().join("fixtures/expected/calltree/index.txt")).unwrap();
    let mut out = Vec::new();
    for line in index.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let mut case = Case {
            trace: words[0].to_owned(),
            golden: words[1].to_owned(),
            window: None,
            top_down_depth: None,
            bottom_up_depth: None,
            group_by: tracekit_views::GroupBy::None,
        };
        let mut max_depth = None;
        let mut i = 2;
        while i < words.len() {
            let value = words[i + 1];
            match words[i] {
                "--window" => {
                    let (a, b) = value.split_once("..").unwrap();
                    case.window = Some((a.parse().unwrap(), b.parse().unwrap()));
                }
                "--max-depth" => max_depth = Some(value.parse().unwrap()),
                "--top-down-max-depth" => case.top_down_depth = Some(value.parse().unwrap()),
                "--bottom-up-max-depth" => case.bottom_up_depth = Some(value.parse().unwrap()),
                "--group-by" => {
                    case.group_by = tracekit_views::GroupBy::from_name(value)
                        .unwrap_or_else(|| panic!("index: unknown group kind {value}"))
                }
                other => panic!("index: unknown option {other}"),
            }
            i += 2;
        }
        case.top_down_depth = case.top_down_depth.or(max_depth);
        case.bottom_up_depth = case.bottom_up_depth.or(max_depth);
        out.push(case);
    }
    out
}

/// Rows of a view by path of ids: (self, total).
fn by_path(rows: &Value, max_depth: Option<u32>) -> BTreeMap<Vec<String>, (Option<f64>, Option<f64>)> {
    let mut out = BTreeMap::new();
    let mut path: Vec<String> = Vec::new();
    for row in rows.as_array().unwrap() {
        let depth = row[0].as_u64().unwrap() as usize;
        path.truncate(depth);
        path.push(row[1].as_str().unwrap().to_owned());
        if max_depth.is_some_and(|m| depth as u32 >= m) {
            continue;
        }
        out.insert(path.clone(), (row[2].as_f64(), row[3].as_f64()));
    }
    out
}

fn close(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() <= 0.002 + 1e-9,
        (None, None) => true,
        _ => false,
    }
}

/// Compares two dumps: (views identical, views, rows matched, rows, first difference).
fn compare(case: &Case, ours: &Value, oracle: &Value) -> (usize, usize, usize, usize, Option<String>) {
    let (mut same_views, mut views, mut matched, mut rows) = (0, 0, 0, 0);
    let mut first = None;
    let note = |first: &mut Option<String>, s: String| {
        if first.is_none() {
            *first = Some(s);
        }
    };
    if ours["window"] != oracle["window"] {
        note(
            &mut first,
            format!("window {} vs oracle {}", ours["window"], oracle["window"]),
        );
    }
    let (a, b) = (
        ours["threads"].as_array().unwrap(),
        oracle["threads"].as_array().unwrap(),
    );
    if a.len() != b.len() {
        note(&mut first, format!("{} threads vs oracle {}", a.len(), b.len()));
    }
    for (t, o) in a.iter().zip(b) {
        if t["pid"] != o["pid"] || t["tid"] != o["tid"] || t["name"] != o["name"] {
            note(
                &mut first,
                format!("thread {} {} vs oracle {} {}", t["pid"], t["tid"], o["pid"], o["tid"]),
            );
        }
        for (key, depth) in [("topDown", case.top_down_depth), ("bottomUp", case.bottom_up_depth)] {
            views += 1;
            let ours = by_path(&t[key], depth);
            let theirs = by_path(&o[key], None);
            let mut same = ours.len() == theirs.len();
            rows += theirs.len();
            for (path, (s, tot)) in &theirs {
                match ours.get(path) {
                    Some((s2, t2)) if close(*s, *s2) && close(*tot, *t2) => matched += 1,
                    Some((s2, t2)) => {
                        same = false;
                        note(
                            &mut first,
                            format!(
                                "tid {} {key} {path:?}: self/total {s2:?}/{t2:?}, oracle {s:?}/{tot:?}",
                                t["tid"]
                            ),
                        );
                    }
                    None => {
                        same = false;
                        note(
                            &mut first,
                            format!("tid {} {key} {path:?}: missing (oracle {s:?}/{tot:?})", t["tid"]),
                        );
                    }
                }
            }
            if let Some(path) = ours.keys().find(|p| !theirs.contains_key(*p)) {
                note(
                    &mut first,
                    format!("tid {} {key} {path:?}: not in the oracle's", t["tid"]),
                );
            }
            same_views += usize::from(same);
        }
    }
    (same_views, views, matched, rows, first)
}

/// Goldens listed in `known-differences.txt`, with the reason.
fn known_differences() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(root().join("fixtures/expected/calltree/known-differences.txt")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once(' '))
        .map(|(g, reason)| (g.to_owned(), reason.to_owned()))
        .collect()
}

fn documented_divergences() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("docs/divergences.md")).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("## "))
        .map(|l| l.split_whitespace().next().unwrap_or("").trim_matches('`').to_owned())
        .collect()
}

#[test]
fn views_match_the_devtools_goldens() {
    let documented = documented_divergences();
    let known = known_differences();
    // Per fixture set: views identical, views, rows matched, rows.
    let mut sets: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut diverging = Vec::new();
    for case in cases() {
        let bytes = std::fs::read(root().join("fixtures").join(&case.trace)).unwrap();
        let options = tracekit::AnalyzeOptions::default().with_group_args(case.group_by.reads_args());
        let analysis = tracekit::analyze_bytes(&bytes, &options).unwrap();
        let ours: Value = serde_json::from_str(&tracekit_views::calltree_conformance_of(
            &analysis,
            None,
            case.window,
            None,
            case.group_by,
        ))
        .unwrap();
        let golden = std::fs::read_to_string(root().join("fixtures/expected/calltree").join(&case.golden)).unwrap();
        let oracle: Value = serde_json::from_str(&golden).unwrap();
        let (same, views, matched, rows, first) = compare(&case, &ours, &oracle);
        let set = Path::new(&case.trace).parent().unwrap().to_string_lossy().into_owned();
        let totals = sets.entry(set).or_default();
        for (t, x) in totals.iter_mut().zip([same, views, matched, rows]) {
            *t += x;
        }
        let label = format!("{} ({})", case.trace, case.golden);
        eprintln!("{label}: views identical {same}/{views}, rows matched {matched}/{rows}");
        if let Some(first) = first {
            let divergences: Vec<&str> = analysis.diagnostics.divergences.keys().map(|d| d.as_str()).collect();
            if let Some(reason) = known.get(&case.golden) {
                diverging.push(format!("{label}: known difference ({reason}): {first}"));
            } else if !divergences.is_empty() && divergences.iter().all(|d| documented.iter().any(|x| x == d)) {
                diverging.push(format!("{label}: diverges ({}): {first}", divergences.join(", ")));
            } else {
                failures.push(format!("{label}: {first}"));
            }
        }
    }
    for (set, [same, views, matched, rows]) in &sets {
        eprintln!("{set}: views identical {same}/{views}, rows matched {matched}/{rows}");
    }
    for d in &diverging {
        eprintln!("{d}");
    }
    assert!(
        failures.is_empty(),
        "differences from DevTools:\n{}",
        failures.join("\n")
    );
}
