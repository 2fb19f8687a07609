//! Every fixture's summary against chrome-devtools-mcp's own
//! (`fixtures/expected/NAME/agent/FIXTURE.summary.txt`, written by `cargo
//! xtask oracle --agent`): byte for byte, but for the fixtures the
//! directory's `known-differences.txt` names (`FIXTURE: WHY`), which must
//! still differ: with WHY `Lantern: ...` only by the insights tracekit does
//! not compute yet, with WHY `divergence: ...` by a documented divergence
//! from DevTools (whose call trees are left out too). The call trees
//! (`FIXTURE.calltree.KEY.txt`) and insights' analyses
//! (`FIXTURE.insight.SET.NAME.txt`) must all be identical.

use std::path::{Path, PathBuf};

use tracekit::DevTools;
use tracekit_conformance::agent::{
    agent_dir, agent_fixtures, call_tree_goldens, insight_goldens, run_ours_analyses, run_ours_call_tree,
    run_ours_summary, without_not_computed,
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The known differences: (fixture, whether a documented divergence).
fn known(devtools: DevTools) -> Vec<(String, bool)> {
    let text = std::fs::read_to_string(agent_dir(devtools).join("known-differences.txt")).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let (fixture, why) = l.split_once(':')?;
            Some((fixture.trim().to_owned(), why.trim().starts_with("divergence:")))
        })
        .collect()
}

#[test]
fn summaries_are_chrome_devtools_mcp_summaries() {
    std::env::set_current_dir(root()).unwrap();
    let devtools = DevTools::LATEST;
    let known = known(devtools);
    let (mut failures, mut compared, mut identical) = (Vec::new(), 0, 0);
    for (file, golden) in agent_fixtures(devtools).unwrap() {
        let Ok(expected) = std::fs::read_to_string(&golden) else {
            continue;
        };
        let name = file.display().to_string();
        let ours = run_ours_summary(&file, devtools).unwrap_or_else(|e| panic!("{name}: {e}"));
        compared += 1;
        let known = known
            .iter()
            .find(|(f, _)| *f == name)
            .map(|(_, divergence)| *divergence);
        match (ours == expected, known) {
            (true, None) => identical += 1,
            (true, Some(_)) => failures.push(format!("{name}: identical now: take it out of known-differences.txt")),
            (false, Some(true)) => {}
            (false, Some(false)) if without_not_computed(&ours) == without_not_computed(&expected) => {}
            (false, _) => failures.push(format!(
                "{name}: differs from {}{}",
                golden.display(),
                first_difference(&expected, &ours)
            )),
        }
    }
    eprintln!(
        "agent summaries: {identical} identical, {} known, of {compared}",
        known.len()
    );
    assert!(compared > 0, "no golden under {}", agent_dir(devtools).display());
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn call_trees_are_devtools_call_trees() {
    std::env::set_current_dir(root()).unwrap();
    let devtools = DevTools::LATEST;
    let divergent: Vec<String> = known(devtools)
        .into_iter()
        .filter(|(_, d)| *d)
        .map(|(f, _)| f)
        .collect();
    let (mut failures, mut compared) = (Vec::new(), 0);
    for (file, summary) in agent_fixtures(devtools).unwrap() {
        // A documented divergence changes the trees too.
        if divergent.contains(&file.display().to_string()) {
            continue;
        }
        for (key, golden) in call_tree_goldens(&summary) {
            let expected = std::fs::read_to_string(&golden).unwrap();
            let name = format!("{} {key}", file.display());
            compared += 1;
            match run_ours_call_tree(&file, &key, devtools) {
                Ok(ours) if ours == expected => {}
                Ok(ours) => failures.push(format!("{name}: differs{}", first_difference(&expected, &ours))),
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
    }
    assert!(
        compared > 0,
        "no call tree golden under {}",
        agent_dir(devtools).display()
    );
    assert!(
        failures.is_empty(),
        "{} of {compared}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn insight_analyses_are_chrome_devtools_mcp_s() {
    std::env::set_current_dir(root()).unwrap();
    let devtools = DevTools::LATEST;
    let (mut failures, mut compared) = (Vec::new(), 0);
    for (file, summary) in agent_fixtures(devtools).unwrap() {
        let goldens = insight_goldens(&summary);
        if goldens.is_empty() {
            continue;
        }
        let wanted: Vec<(String, String)> = goldens.iter().map(|(s, i, _)| (s.clone(), i.clone())).collect();
        let ours = run_ours_analyses(&file, &wanted, devtools).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for ((set, insight, golden), ours) in goldens.iter().zip(ours) {
            let expected = std::fs::read_to_string(golden).unwrap();
            let name = format!("{} {set} {insight}", file.display());
            compared += 1;
            match ours {
                Ok(ours) if ours == expected => {}
                Ok(ours) => failures.push(format!("{name}: differs{}", first_difference(&expected, &ours))),
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
    }
    assert!(
        compared > 0,
        "no insight golden under {}",
        agent_dir(devtools).display()
    );
    assert!(
        failures.is_empty(),
        "{} of {compared}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn first_difference(expected: &str, ours: &str) -> String {
    let line = expected
        .lines()
        .zip(ours.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| expected.lines().count().min(ours.lines().count()));
    format!(
        " at line {}:\n  expected: {}\n  ours:     {}",
        line + 1,
        expected.lines().nth(line).unwrap_or("(end)"),
        ours.lines().nth(line).unwrap_or("(end)")
    )
}
