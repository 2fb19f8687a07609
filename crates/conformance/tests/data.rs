//! Every fixture's handler data against the DevTools engine's golden
//! (`fixtures/expected/NAME/data/`, written by `cargo xtask oracle --data`
//! from the oracle's `devtools-data.mjs`), for the handlers tracekit has
//! (`tracekit::data::HANDLERS`): each must be identical, but for the
//! fixture and handler pairs of the data directory's
//! `known-differences.txt`, each with its reason (and each of which must
//! still differ, so that the list stays true).

use std::path::{Path, PathBuf};

use tracekit::DevTools;
use tracekit_conformance::data::{compare_data, data_fixtures, known_differences, run_ours_data};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn handler_data_is_devtools_data() {
    std::env::set_current_dir(root()).unwrap();
    let devtools = DevTools::LATEST;
    let known = known_differences(Path::new("."), devtools);
    let mut failures = Vec::new();
    let mut compared = 0;
    let mut still_known = Vec::new();
    for (file, golden) in data_fixtures(devtools).unwrap() {
        let name = file.display().to_string();
        let ours = run_ours_data(&file, devtools);
        let Ok(expected) = std::fs::read_to_string(&golden) else {
            // The oracle refused the fixture (DevTools throws on it, or it
            // is not a trace): tracekit must still load it or say why.
            if let Ok(text) = &ours {
                assert!(text.starts_with("{\"handlers\":"), "{name}: {text}");
            }
            continue;
        };
        let ours = ours.unwrap_or_else(|e| panic!("{name}: {e}"));
        let report = compare_data(&expected, &ours, tracekit::data::HANDLERS).unwrap();
        compared += 1;
        for handler in &report.handlers {
            let is_known = known.iter().any(|(f, h)| *f == name && *h == handler.name);
            match (&handler.first_difference, is_known) {
                (Some(first), false) => failures.push(format!(
                    "{name} {}: {}/{} values; first difference {first}",
                    handler.name, handler.matched, handler.total
                )),
                (None, true) => failures.push(format!(
                    "{name} {}: identical now; remove it from known-differences.txt",
                    handler.name
                )),
                (Some(_), true) => still_known.push(format!("{name} {}", handler.name)),
                (None, false) => {}
            }
        }
    }
    assert!(compared >= 20, "only {compared} fixtures have a data golden");
    eprintln!("known differences: {still_known:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
