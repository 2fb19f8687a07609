//! tracekit's Summary against the DevTools oracle's goldens of each engine
//! tracekit follows (`summary/index.txt` of `fixtures/expected/NAME/`, made
//! by `xtask/js/summary.mjs`), tracekit following the same engine.
//! A rounded golden is compared category by category within 0.002 ms; an
//! `--exact` golden holds JavaScript's text of every unrounded time, which
//! tracekit's own time must print as, bit for bit. The threads, the set of
//! categories of each and the window must be the same. A trace on which
//! the engine took a documented divergence from DevTools
//! (`docs/divergences.md`) may differ: it is reported, not failed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tracekit::query::{Query, Window as QueryWindow};
use tracekit::support::jsnum::js_number_string;
use tracekit::{DevTools, Millis};
use tracekit_conformance::{check_engine_file, documented_divergences, expected_dir};
use tracekit_views::styles::Category;
use tracekit_views::summary::{summaries, summary_conformance};
use tracekit_views::Window;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One golden of the index.
struct Case {
    trace: String,
    golden: String,
    window: Option<(f64, f64)>,
    exact: bool,
}

/// Where the Summary goldens of `devtools` are.
fn summary_goldens(devtools: DevTools) -> PathBuf {
    root().join(expected_dir(devtools)).join("summary")
}

fn cases(devtools: DevTools) -> Vec<Case> {
    let index = std::fs::read_to_string(summary_goldens(devtools).join("index.txt")).unwrap();
    let mut out = Vec::new();
    for line in index.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let mut case = Case {
            trace: words[0].to_owned(),
            golden: words[1].to_owned(),
            window: None,
            exact: false,
        };
        let mut options = words[2..].iter();
        while let Some(option) = options.next() {
            match *option {
                "--window" => {
                    let (a, b) = options.next().unwrap().split_once("..").unwrap();
                    case.window = Some((a.parse().unwrap(), b.parse().unwrap()));
                }
                "--exact" => case.exact = true,
                other => panic!("index: unknown option {other}"),
            }
        }
        out.push(case);
    }
    out
}

/// A golden's time: a rounded number, or (`--exact`) JavaScript's text of it.
#[derive(Debug, Clone, PartialEq)]
enum Golden {
    Rounded(Option<f64>),
    Exact(String),
}

impl Golden {
    fn of(v: &Value) -> Golden {
        match v {
            Value::String(s) => Golden::Exact(s.clone()),
            v => Golden::Rounded(v.as_f64()),
        }
    }

    /// Whether tracekit's time `ours` (rounded, or exact) gives this golden.
    fn matches(&self, ours: f64) -> bool {
        match self {
            Golden::Exact(text) => js_number_string(ours) == *text,
            Golden::Rounded(None) => !ours.is_finite(),
            Golden::Rounded(Some(x)) => (x - ours).abs() <= 0.002 + 1e-9,
        }
    }
}

/// Compares one golden: (categories matched, categories, first difference).
fn compare(case: &Case, analysis: &tracekit::Analysis, oracle: &Value) -> (usize, usize, Option<String>) {
    let (mut matched, mut count) = (0, 0);
    let mut first = None;
    let mut note = |s: String| {
        if first.is_none() {
            first = Some(s);
        }
    };
    // The rounded dump, for the threads and the window as printed.
    let query = match case.window {
        Some((a, b)) => Query::new().with_window(QueryWindow::new(Millis(a), Millis(b)).unwrap()),
        None => Query::new(),
    };
    let dump: Value = serde_json::from_str(&summary_conformance(analysis, &query)).unwrap();
    let window = Window::of(analysis, &query);
    for (key, ours) in [("start", window.start.0), ("end", window.end.0)] {
        if !Golden::of(&oracle["window"][key]).matches(ours) {
            note(format!("window {key} {ours} vs oracle {}", oracle["window"][key]));
        }
    }
    let theirs = oracle["threads"].as_array().unwrap();
    let threads: Vec<_> = summaries(analysis, &query).collect();
    if threads.len() != theirs.len() {
        note(format!("{} threads vs oracle {}", threads.len(), theirs.len()));
    }
    for ((_, _, _, times), (printed, o)) in threads
        .iter()
        .zip(dump["threads"].as_array().unwrap().iter().zip(theirs))
    {
        let tid = &printed["tid"];
        for key in ["pid", "tid", "name"] {
            if printed[key] != o[key] {
                note(format!("thread {key} {} vs oracle {}", printed[key], o[key]));
            }
        }
        let golden: BTreeMap<&str, Golden> = o["categories"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.as_str(), Golden::of(v)))
            .collect();
        let ours: BTreeMap<&str, f64> = times.times.iter().map(|(c, ms)| (c.name(), *ms)).collect();
        for name in golden.keys().filter(|k| !ours.contains_key(*k)) {
            note(format!("tid {tid}: category {name} missing"));
        }
        for (name, ms) in &ours {
            if Category::from_name(name).is_none() {
                note(format!("tid {tid}: unknown category {name}"));
            }
            count += 1;
            match golden.get(name) {
                Some(g) if g.matches(*ms) => matched += 1,
                Some(g) => note(format!("tid {tid} {name}: {ms} vs oracle {g:?}")),
                None => note(format!("tid {tid}: category {name} not in the oracle's")),
            }
        }
        count += 1;
        let total = Golden::of(&o["total"]);
        if total.matches(times.total()) {
            matched += 1;
        } else {
            note(format!("tid {tid} total: {} vs oracle {total:?}", times.total()));
        }
    }
    (matched, count, first)
}

#[test]
fn summaries_match_the_devtools_goldens() {
    for devtools in DevTools::ALL {
        summaries_match(devtools);
    }
}

fn summaries_match(devtools: DevTools) {
    check_engine_file(&root(), devtools).unwrap();
    let documented = documented_divergences(&root());
    let mut failures = Vec::new();
    let mut diverging = Vec::new();
    let (mut goldens, mut exact, mut all_matched, mut all_count) = (0, 0, 0, 0);
    for case in cases(devtools) {
        let bytes = std::fs::read(root().join("fixtures").join(&case.trace)).unwrap();
        let options = tracekit::AnalyzeOptions::default().with_devtools(devtools);
        let analysis = tracekit::analyze_bytes(&bytes, &options).unwrap();
        let golden = std::fs::read_to_string(summary_goldens(devtools).join(&case.golden)).unwrap();
        let oracle: Value = serde_json::from_str(&golden).unwrap();
        let (matched, count, first) = compare(&case, &analysis, &oracle);
        goldens += 1;
        exact += usize::from(case.exact);
        all_matched += matched;
        all_count += count;
        let label = format!("{} ({})", case.trace, case.golden);
        eprintln!("{label}: times matched {matched}/{count}");
        if let Some(first) = first {
            let divergences: Vec<&str> = analysis.diagnostics().divergences().map(|(d, _)| d.as_str()).collect();
            if !divergences.is_empty() && divergences.iter().all(|d| documented.iter().any(|x| x == d)) {
                diverging.push(format!("{label}: diverges ({}): {first}", divergences.join(", ")));
            } else {
                failures.push(format!("{label}: {first}"));
            }
        }
    }
    eprintln!("{goldens} goldens ({exact} bit for bit): times matched {all_matched}/{all_count}");
    for d in &diverging {
        eprintln!("{d}");
    }
    // The index is not empty, and covers windows and exact goldens.
    assert!(goldens >= 80 && exact >= 10, "{goldens} goldens, {exact} exact");
    assert!(
        failures.is_empty(),
        "differences from {devtools}:\n{}",
        failures.join("\n")
    );
}
