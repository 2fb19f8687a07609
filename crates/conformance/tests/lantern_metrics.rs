//! Lantern's simulator and metrics against DevTools', on DevTools' own
//! page dependency graph and on tracekit's: every fixture's Lantern golden
//! that has the graph
//! (`fixtures/expected/NAME/lantern/`, written by `cargo xtask oracle
//! --lantern` with `--graph`), and, when the directory is there, every
//! output of `xtask/js/lantern.mjs --graph` cached in
//! `$LANTERN_GRAPH_CACHE` (default `/work/oracle-cache/lantern-graph`)
//! whose trace is a fixture or in `$LANTERN_CORPUS`'s `devtools` or
//! `lighthouse` directory.

use std::path::{Path, PathBuf};

use tracekit::DevTools;
use tracekit_conformance::data::{data_dir, data_fixtures};
use tracekit_conformance::lantern::lantern_dir;
use tracekit_conformance::lantern_metrics::{cached_outputs, compare_metrics, Comparison, GraphSource};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn add(total: &mut Comparison, name: &str, one: Comparison) {
    total.compared += one.compared;
    total.identical += one.identical;
    total
        .differences
        .extend(one.differences.into_iter().map(|d| format!("{name}: {d}")));
}

#[test]
fn lantern_metrics_on_devtools_graph_are_devtools_ones() {
    std::env::set_current_dir(root()).unwrap();
    let devtools = DevTools::LATEST;
    let mut total = Comparison::default();
    for (file, data_golden) in data_fixtures(devtools).unwrap() {
        let golden = lantern_dir(devtools).join(data_golden.strip_prefix(data_dir(devtools)).unwrap());
        let Ok(text) = std::fs::read_to_string(&golden) else {
            continue;
        };
        let expected: serde_json::Value = serde_json::from_str(&text).unwrap();
        // On DevTools' graph (the simulator and metrics alone), then on
        // tracekit's (the whole chain, as the insights run it).
        for source in [GraphSource::DevTools, GraphSource::Ours] {
            let one = compare_metrics(&file, &expected, devtools, source)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            add(&mut total, &format!("{} ({source:?} graph)", file.display()), one);
        }
    }
    let goldens = total.clone();
    let cache = std::env::var("LANTERN_GRAPH_CACHE").unwrap_or_else(|_| "/work/oracle-cache/lantern-graph".to_owned());
    let mut cached = Comparison::default();
    for (name, file, expected) in cached_outputs(Path::new(&cache), None) {
        match compare_metrics(&file, &expected, devtools, GraphSource::Ours) {
            Ok(one) => add(&mut cached, &name, one),
            Err(e) => cached.differences.push(format!("{name}: {e}")),
        }
    }
    eprintln!(
        "Lantern metrics: goldens {}/{} navigations identical (each on DevTools' graph and on tracekit's); cache {}/{} identical (on tracekit's graph)",
        goldens.identical, goldens.compared, cached.identical, cached.compared
    );
    let failures: Vec<_> = total.differences.iter().chain(&cached.differences).collect();
    assert!(
        failures.is_empty(),
        "{}",
        failures.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
}

/// The savings of fewer bytes against DevTools', where the outputs of
/// `xtask/js/lantern-savings.mjs` are cached in `$LANTERN_SAVINGS_CACHE`
/// (`NAME.json`, beside the graphs of `$LANTERN_GRAPH_CACHE`).
#[test]
fn lantern_savings_of_fewer_bytes_are_devtools_ones() {
    std::env::set_current_dir(root()).unwrap();
    let Ok(savings_dir) = std::env::var("LANTERN_SAVINGS_CACHE") else {
        return;
    };
    let cache = std::env::var("LANTERN_GRAPH_CACHE").unwrap_or_else(|_| "/work/oracle-cache/lantern-graph".to_owned());
    let mut total = Comparison::default();
    let read =
        |p: PathBuf| -> Option<serde_json::Value> { serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok() };
    for (name, file, savings) in cached_outputs(Path::new(&savings_dir), None) {
        let Some(graph) = read(Path::new(&cache).join(&name)) else {
            continue;
        };
        match tracekit_conformance::lantern_metrics::compare_savings(&file, &graph, &savings, DevTools::LATEST) {
            Ok(one) => add(&mut total, &name, one),
            Err(e) => total.differences.push(format!("{name}: {e}")),
        }
    }
    eprintln!(
        "Lantern savings of fewer bytes: {}/{} navigations identical",
        total.identical, total.compared
    );
    assert!(total.differences.is_empty(), "{}", total.differences.join("\n"));
}

/// The simulated metrics an insight set exposes are DevTools' Lantern
/// metrics of its navigation (the goldens' `metrics`).
#[test]
fn insight_sets_expose_the_simulated_metrics() {
    std::env::set_current_dir(root()).unwrap();
    let devtools = DevTools::LATEST;
    let mut compared = 0;
    for (file, data_golden) in data_fixtures(devtools).unwrap() {
        let golden = lantern_dir(devtools).join(data_golden.strip_prefix(data_dir(devtools)).unwrap());
        let Ok(text) = std::fs::read_to_string(&golden) else {
            continue;
        };
        let expected: serde_json::Value = serde_json::from_str(&text).unwrap();
        let analysis = tracekit_conformance::data::load_with_all_handlers(&file, devtools).unwrap();
        let sets = tracekit::insights::compute(&analysis).unwrap();
        for entry in expected.as_array().unwrap() {
            let navigation = entry["navigation"].as_u64().unwrap();
            let set = sets
                .sets
                .iter()
                .find(|s| s.navigation.is_some_and(|n| u64::from(n.event) == navigation));
            let Some(set) = set else { continue };
            let metrics = &entry["metrics"];
            match set.simulated {
                None => assert!(
                    metrics["totalBlockingTime"].is_null(),
                    "{}: {navigation}",
                    file.display()
                ),
                Some(m) => {
                    compared += 1;
                    for (ours, key) in [
                        (m.fcp, "firstContentfulPaint"),
                        (m.lcp, "largestContentfulPaint"),
                        (m.tti, "interactive"),
                        (m.tbt, "totalBlockingTime"),
                    ] {
                        let theirs = metrics[key]["timing"].as_f64().unwrap();
                        assert!(
                            (ours - theirs).abs() < 0.0011,
                            "{} {key}: {ours} != {theirs}",
                            file.display()
                        );
                    }
                }
            }
        }
    }
    assert!(compared >= 5, "{compared}");
}
