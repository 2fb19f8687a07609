//! Every fixture's main thread activity (`tracekit agent activity`, whole
//! and over the windows its goldens name) against the oracle's
//! (`fixtures/expected/NAME/agent/FIXTURE.activity*.txt`, written by
//! `cargo xtask oracle --agent` with `xtask/js/activity.mjs`): byte for
//! byte.

use std::path::{Path, PathBuf};

use tracekit::DevTools;
use tracekit_conformance::agent::agent_fixtures;
use tracekit_conformance::agent_activity::{activity_goldens, run_ours_activity};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn activities_are_devtools_activities() {
    std::env::set_current_dir(root()).unwrap();
    let devtools = DevTools::LATEST;
    let (mut failures, mut compared, mut windows) = (Vec::new(), 0, 0);
    for (file, summary) in agent_fixtures(devtools).unwrap() {
        for (window, golden) in activity_goldens(&summary) {
            let expected = std::fs::read_to_string(&golden).unwrap();
            let name = format!("{} {}", file.display(), window.as_deref().unwrap_or("whole"));
            compared += 1;
            windows += usize::from(window.is_some());
            match run_ours_activity(&file, window.as_deref(), devtools) {
                Ok(ours) if ours == expected => {}
                Ok(ours) => {
                    let line = expected
                        .lines()
                        .zip(ours.lines())
                        .find(|(a, b)| a != b)
                        .map_or("(lengths differ)".to_owned(), |(a, b)| {
                            format!("\n  want {a}\n  got  {b}")
                        });
                    failures.push(format!("{name}: differs from {}: {line}", golden.display()));
                }
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
    }
    eprintln!("agent activity: {compared} compared ({windows} windows)");
    assert!(compared >= 10 && windows > 0, "too few goldens: {compared}");
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
