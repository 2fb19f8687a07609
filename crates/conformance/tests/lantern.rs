//! Every fixture's Lantern requests and network analysis against the
//! DevTools engine's golden (`fixtures/expected/NAME/lantern/`, written by
//! `cargo xtask oracle --lantern` from `xtask/js/lantern.mjs`): identical,
//! numbers within 0.002.

use std::path::{Path, PathBuf};

use tracekit::DevTools;
use tracekit_conformance::data::{data_dir, data_fixtures};
use tracekit_conformance::lantern::{first_difference, lantern_dir, run_ours_lantern};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn lantern_requests_and_network_analysis_are_devtools_ones() {
    std::env::set_current_dir(root()).unwrap();
    let devtools = DevTools::LATEST;
    let (mut compared, mut navigations, mut failures) = (0, 0, Vec::new());
    for (file, data_golden) in data_fixtures(devtools).unwrap() {
        let golden = lantern_dir(devtools).join(data_golden.strip_prefix(data_dir(devtools)).unwrap());
        let Ok(text) = std::fs::read_to_string(&golden) else {
            continue;
        };
        let expected: serde_json::Value = serde_json::from_str(&text).unwrap();
        let ours = run_ours_lantern(&file, devtools).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        compared += 1;
        navigations += expected.as_array().map_or(0, Vec::len);
        if let Some(d) = first_difference(&expected, &ours) {
            failures.push(format!("{}: {d}", file.display()));
        }
    }
    assert!(
        compared >= 20 && navigations >= 8,
        "{compared} fixtures, {navigations} navigations"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
