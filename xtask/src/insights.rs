//! The insight sets against the DevTools engine's: `tracekit insights
//! --format conformance` compared with the sets the oracle's
//! `devtools-data.mjs` writes, set by set and insight by insight, with a
//! table per insight (the one in `docs/insights.md`). The goldens are under
//! `fixtures/expected/NAME/insights/`: the oracle's dump with the Meta
//! handler's data alone, its handlers left out.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use tracekit_conformance::data::data_fixtures;
use tracekit_conformance::insights::{compare_insights, insights_dir, run_ours_insights, InsightsReport};

use crate::data::{oracle_dir, run_oracle_with, OracleRun};
use crate::node::Engine;

/// The oracle's insight sets of `file`, written to `out` without the
/// handlers' data: `Ok(false)` when DevTools throws on it.
fn oracle_sets(oracle: &Path, engine: Engine, file: &Path, out: &Path) -> anyhow::Result<Option<String>> {
    let whole = out.with_extension("whole.json");
    let run = run_oracle_with(oracle, engine, file, &whole, &["--only", "Meta"])?;
    if let OracleRun::Refused(message) = run {
        return Ok(Some(message));
    }
    let text = std::fs::read_to_string(&whole)?;
    std::fs::remove_file(&whole)?;
    let mut doc: serde_json::Value = serde_json::from_str(&text).context("the oracle's dump")?;
    doc["handlers"] = serde_json::json!({});
    std::fs::write(out, serde_json::to_string(&doc)?)?;
    Ok(None)
}

/// Writes the insight goldens of `engine` for the fixtures whose path
/// contains `only`.
pub fn write_goldens(engine: Engine, only: &str) -> anyhow::Result<()> {
    let oracle = oracle_dir()?;
    let dir = insights_dir(engine.devtools());
    for (file, data_golden) in data_fixtures(engine.devtools())? {
        if !file.to_string_lossy().contains(only) {
            continue;
        }
        let name = data_golden.file_name().context("a golden's name")?;
        let under = data_golden
            .parent()
            .and_then(|p| {
                p.strip_prefix(tracekit_conformance::data::data_dir(engine.devtools()))
                    .ok()
            })
            .unwrap_or(Path::new(""));
        let golden = dir.join(under).join(name);
        std::fs::create_dir_all(golden.parent().context("a directory")?)?;
        match oracle_sets(&oracle, engine, &file, &golden)? {
            None => println!("{:<60} written", golden.display()),
            Some(message) => {
                let _ = std::fs::remove_file(&golden);
                println!("{:<60} no golden: {message}", file.display());
            }
        }
    }
    Ok(())
}

/// Per insight: sets identical, sets compared, missing, values matched and
/// compared.
#[derive(Default)]
struct Tally {
    identical: usize,
    compared: usize,
    missing: usize,
    matched: usize,
    values: usize,
}

#[derive(Default)]
struct Totals {
    by_insight: BTreeMap<String, Tally>,
    traces: usize,
    identical_traces: usize,
    refused: usize,
}

impl Totals {
    fn row(&mut self, name: &str, report: &InsightsReport) {
        self.traces += 1;
        let mut first = None;
        for row in &report.rows {
            let tally = self.by_insight.entry(row.insight.clone()).or_default();
            tally.compared += 1;
            tally.matched += row.matched;
            tally.values += row.total;
            if row.missing {
                tally.missing += 1;
            }
            match &row.first_difference {
                None => tally.identical += 1,
                Some(d) if first.is_none() && !row.missing => first = Some(format!("{} {}: {d}", row.set, row.insight)),
                Some(_) => {}
            }
        }
        let missing = report.rows.iter().filter(|r| r.missing).count();
        let differ = report
            .rows
            .iter()
            .filter(|r| r.first_difference.is_some() && !r.missing)
            .count();
        if differ == 0 && missing == 0 {
            self.identical_traces += 1;
        }
        println!(
            "{name:<60} {} rows, {differ} differ, {missing} missing{}",
            report.rows.len(),
            first.map(|f| format!("; first: {f}")).unwrap_or_default()
        );
    }

    fn finish(self) {
        println!(
            "\n{}/{} traces identical in every insight; DevTools throws on {} more\n",
            self.identical_traces, self.traces, self.refused
        );
        println!("| insight | sets identical | sets compared | not computed by tracekit | values matched |");
        println!("| --- | ---: | ---: | ---: | ---: |");
        for (name, t) in &self.by_insight {
            println!(
                "| {name} | {} | {} | {} | {}/{} |",
                t.identical, t.compared, t.missing, t.matched, t.values
            );
        }
    }
}

/// Every fixture's insight sets against its golden.
pub fn fixtures(engine: Engine) -> anyhow::Result<()> {
    let mut totals = Totals::default();
    let dir = insights_dir(engine.devtools());
    let data_dir = tracekit_conformance::data::data_dir(engine.devtools());
    for (file, data_golden) in data_fixtures(engine.devtools())? {
        let golden = dir.join(data_golden.strip_prefix(&data_dir).unwrap_or(&data_golden));
        let Ok(expected) = std::fs::read_to_string(&golden) else {
            totals.refused += 1;
            continue;
        };
        let ours = run_ours_insights(&file, engine.devtools()).map_err(anyhow::Error::msg)?;
        let report = compare_insights(&expected, &ours).map_err(anyhow::Error::msg)?;
        totals.row(&file.display().to_string(), &report);
    }
    totals.finish();
    Ok(())
}

/// Every trace under `dir` against the oracle run live (its sets kept
/// under `target/oracle-insights/ENGINE/` for the next run).
pub fn corpus(engine: Engine, dir: &Path) -> anyhow::Result<()> {
    let oracle = oracle_dir()?;
    let mut files = Vec::new();
    crate::conformance::walk(dir, &mut files)?;
    let cache = PathBuf::from("target/oracle-insights").join(engine.arg());
    std::fs::create_dir_all(&cache)?;
    let mut totals = Totals::default();
    for file in files {
        let name = file.strip_prefix(dir).unwrap_or(&file).display().to_string();
        let golden = cache.join(format!("{}.json", name.replace('/', "__")));
        if !golden.exists() {
            if let Some(message) = oracle_sets(&oracle, engine, &file, &golden)? {
                totals.refused += 1;
                println!("{name:<60} DevTools: {message}");
                continue;
            }
        }
        let expected = std::fs::read_to_string(&golden)?;
        match run_ours_insights(&file, engine.devtools()) {
            Ok(ours) => totals.row(&name, &compare_insights(&expected, &ours).map_err(anyhow::Error::msg)?),
            Err(e) => {
                totals.traces += 1;
                println!("{name:<60} TRACEKIT FAILS: {e}");
            }
        }
    }
    totals.finish();
    Ok(())
}
