//! Every fixture's Lantern requests, network analysis and page dependency
//! graph against the DevTools engine's golden (`fixtures/expected/NAME/lantern/`,
//! written by `cargo xtask oracle --lantern` from `xtask/js/lantern.mjs
//! --graph`): identical, numbers within 0.002, graphs node by node. With
//! `TRACEKIT_LANTERN_CACHE` (a directory of `NAME.json` made by
//! `lantern.mjs --graph`) and `TRACEKIT_LANTERN_TRACES` (directories of the
//! traces `NAME.json.gz`, `:`-separated), also every cached trace's graphs,
//! their totals printed.

use std::path::{Path, PathBuf};

use tracekit::DevTools;
use tracekit_conformance::data::{data_dir, data_fixtures};
use tracekit_conformance::lantern::{compare_graphs, first_difference, lantern_dir, run_ours_lantern, without_graph};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn lantern_requests_and_network_analysis_are_devtools_ones() {
    std::env::set_current_dir(root()).unwrap();
    let devtools = DevTools::LATEST;
    let (mut compared, mut navigations, mut failures) = (0, 0, Vec::new());
    let (mut graphs, mut identical_graphs) = (0, 0);
    for (file, data_golden) in data_fixtures(devtools).unwrap() {
        let golden = lantern_dir(devtools).join(data_golden.strip_prefix(data_dir(devtools)).unwrap());
        let Ok(text) = std::fs::read_to_string(&golden) else {
            continue;
        };
        let expected: serde_json::Value = serde_json::from_str(&text).unwrap();
        let ours = run_ours_lantern(&file, devtools).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        compared += 1;
        navigations += expected.as_array().map_or(0, Vec::len);
        if let Some(d) = first_difference(&without_graph(&expected), &without_graph(&ours)) {
            failures.push(format!("{}: {d}", file.display()));
        }
        let (n, same, differences) = compare_graphs(&expected, &ours);
        (graphs, identical_graphs) = (graphs + n, identical_graphs + same);
        failures.extend(differences.into_iter().map(|d| format!("{}: {d}", file.display())));
    }
    assert!(
        compared >= 20 && navigations >= 8,
        "{compared} fixtures, {navigations} navigations"
    );
    eprintln!("graphs: {identical_graphs}/{graphs} navigations identical");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(graphs >= 9, "{graphs} graphs compared");
}

/// The graphs of every trace cached by `lantern.mjs --graph` (see the
/// module documentation); nothing without the variables.
#[test]
fn cached_lantern_graphs_are_devtools_ones() {
    let (Ok(cache), Ok(traces)) = (
        std::env::var("TRACEKIT_LANTERN_CACHE"),
        std::env::var("TRACEKIT_LANTERN_TRACES"),
    ) else {
        return;
    };
    let mut names: Vec<PathBuf> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    let only = std::env::var("TRACEKIT_LANTERN_ONLY").unwrap_or_default();
    let (mut graphs, mut identical, mut failures) = (0, 0, Vec::new());
    for golden in names {
        let name = golden.file_stem().unwrap().to_string_lossy().into_owned();
        if !name.contains(&only) {
            continue;
        }
        let Some(file) = traces
            .split(':')
            .map(|dir| Path::new(dir).join(format!("{name}.json.gz")))
            .find(|f| f.exists())
        else {
            continue;
        };
        let expected: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&golden).unwrap()).unwrap();
        let ours = match run_ours_lantern(&file, DevTools::LATEST) {
            Ok(ours) => ours,
            Err(e) => {
                failures.push(format!("{name}: tracekit fails: {e}"));
                continue;
            }
        };
        let (n, same, differences) = compare_graphs(&expected, &ours);
        (graphs, identical) = (graphs + n, identical + same);
        failures.extend(differences.into_iter().map(|d| format!("{name}: {d}")));
    }
    eprintln!("{}", failures.join("\n"));
    eprintln!("cached graphs: {identical}/{graphs} navigations identical");
    assert!(failures.is_empty());
}
