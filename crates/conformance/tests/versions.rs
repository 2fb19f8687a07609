//! `docs/devtools-versions.md` against the goldens: every behaviour it
//! lists as different between two DevTools engines names a golden that
//! both engines made and on which they differ, and every engine tracekit
//! follows has goldens of its own, made by that engine.

use std::path::{Path, PathBuf};

use tracekit::DevTools;
use tracekit_conformance::{check_engine_file, expected_dir};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The goldens named in the last column of the table of differences.
fn goldens_of_the_differences() -> Vec<String> {
    let doc = std::fs::read_to_string(root().join("docs/devtools-versions.md")).unwrap();
    let section = doc
        .split("## What differs")
        .nth(1)
        .expect("docs/devtools-versions.md has a section `What differs`");
    let section = section.split("\n## ").next().unwrap_or(section);
    section
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("| ---") && !l.starts_with("| what"))
        .map(|row| {
            let last = row.trim_end_matches('|').rsplit('|').next().unwrap().trim();
            last.trim_matches('`').to_owned()
        })
        .collect()
}

#[test]
fn every_difference_has_a_golden_on_which_the_engines_differ() {
    let goldens = goldens_of_the_differences();
    assert!(goldens.len() >= 6, "only {} rows: {goldens:?}", goldens.len());
    let [june, october] = DevTools::ALL;
    for golden in goldens {
        let read = |devtools: DevTools| {
            let path = root().join(expected_dir(devtools)).join(&golden);
            std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        };
        assert!(
            read(june) != read(october),
            "{golden}: the goldens of {june} and {october} are the same; the row of docs/devtools-versions.md shows no difference"
        );
    }
}

#[test]
fn every_engine_has_goldens_made_by_it() {
    for devtools in DevTools::ALL {
        check_engine_file(&root(), devtools).unwrap();
    }
    assert_eq!(DevTools::LATEST, *DevTools::ALL.last().unwrap());
    assert_eq!(DevTools::default(), DevTools::LATEST);
}
