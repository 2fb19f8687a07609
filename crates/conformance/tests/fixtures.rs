//! Every fixture against the DevTools oracle's golden dump
//! (`fixtures/expected/`, written by `cargo xtask oracle`): identical, or
//! different only where the engine reports a divergence documented in
//! `docs/divergences.md`.

use std::path::{Path, PathBuf};

use tracekit::Parallelism;
use tracekit_conformance::{compare, documented_divergences, fixture_files, golden_name, run_ours, FIXTURE_SETS};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn every_fixture_matches_the_devtools_engine() {
    let root = root();
    let documented = documented_divergences(&root);
    let mut checked = 0;
    let mut failures = Vec::new();
    for (dir, expected) in FIXTURE_SETS {
        for file in fixture_files(&root.join(dir)).unwrap() {
            let ours = run_ours(&file, Parallelism::Sequential).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let undocumented: Vec<&String> = ours
                .divergences
                .keys()
                .filter(|name| !documented.contains(name))
                .collect();
            assert!(
                undocumented.is_empty(),
                "{}: undocumented divergences {undocumented:?}",
                file.display()
            );
            let golden = root.join(expected).join(golden_name(&file));
            let Ok(golden) = std::fs::read_to_string(&golden) else {
                // The oracle refuses this input: tracekit must say why.
                assert!(
                    !ours.divergences.is_empty(),
                    "{}: no golden, and tracekit reports no divergence",
                    file.display()
                );
                continue;
            };
            let report = compare(&ours.dump, &golden).unwrap();
            checked += 1;
            if report.identical {
                continue;
            }
            if ours.divergences.is_empty() {
                failures.push(format!("{}: {report}", file.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "differences from DevTools:\n{}",
        failures.join("\n")
    );
    assert!(checked >= 20, "only {checked} fixtures had goldens");
}

#[test]
fn output_is_the_same_with_and_without_threads() {
    let root = root();
    for file in fixture_files(&root.join("fixtures/traces")).unwrap() {
        let sequential = run_ours(&file, Parallelism::Sequential).unwrap().dump;
        let parallel = run_ours(&file, Parallelism::Rayon).unwrap().dump;
        assert!(sequential == parallel, "{}: output depends on threads", file.display());
    }
}
