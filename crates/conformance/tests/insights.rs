//! Every fixture's insight sets against the DevTools engine's golden
//! (`fixtures/expected/NAME/insights/`, written by `cargo xtask oracle
//! --insights`): each set tracekit makes and each insight it computes must
//! be identical, but for the pairs of the directory's
//! `known-differences.txt` (`FIXTURE SET INSIGHT: WHY`, SET the set's
//! navigation `#N` or `none`), each with its reason and each still
//! differing. An insight tracekit does not compute yet is counted and
//! listed (`docs/insights.md` has the table), not failed.

use std::path::{Path, PathBuf};

use tracekit::DevTools;
use tracekit_conformance::data::{data_dir, data_fixtures};
use tracekit_conformance::insights::{compare_insights, insights_dir, run_ours_insights};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The known differences: (fixture, set, insight).
fn known(devtools: DevTools) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(insights_dir(devtools).join("known-differences.txt")).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let (head, _why) = l.split_once(':')?;
            let mut words = head.split_whitespace();
            Some((
                words.next()?.to_owned(),
                words.next()?.to_owned(),
                words.next()?.to_owned(),
            ))
        })
        .collect()
}

#[test]
fn insight_sets_are_devtools_sets() {
    std::env::set_current_dir(root()).unwrap();
    let devtools = DevTools::LATEST;
    let known = known(devtools);
    let (mut failures, mut still_known, mut not_computed) = (Vec::new(), Vec::new(), Vec::new());
    let mut compared = 0;
    let mut identical = 0;
    for (file, data_golden) in data_fixtures(devtools).unwrap() {
        let name = file.display().to_string();
        let golden = insights_dir(devtools).join(data_golden.strip_prefix(data_dir(devtools)).unwrap());
        let ours = run_ours_insights(&file, devtools);
        let Ok(expected) = std::fs::read_to_string(&golden) else {
            continue;
        };
        let ours = ours.unwrap_or_else(|e| panic!("{name}: {e}"));
        let report = compare_insights(&expected, &ours).unwrap();
        for row in &report.rows {
            if row.missing && row.insight != "(set)" {
                not_computed.push(row.insight.clone());
                continue;
            }
            compared += 1;
            let is_known = known
                .iter()
                .any(|(f, s, i)| *f == name && *s == row.set && *i == row.insight);
            let what = format!("{name} {} {}", row.set, row.insight);
            match (&row.first_difference, is_known) {
                (Some(first), false) => failures.push(format!(
                    "{what}: {}/{} values; first difference {first}",
                    row.matched, row.total
                )),
                (None, true) => failures.push(format!("{what}: identical now; remove it from known-differences.txt")),
                (Some(_), true) => still_known.push(what),
                (None, false) => identical += 1,
            }
        }
    }
    not_computed.sort();
    not_computed.dedup();
    assert!(compared >= 20, "only {compared} sets and insights compared");
    eprintln!(
        "{identical}/{compared} identical; known differences: {still_known:?}; not computed yet: {not_computed:?}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
