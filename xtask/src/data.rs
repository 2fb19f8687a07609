//! The handlers' data against the DevTools engine's: the data conformance
//! dump (`tracekit data --format conformance`) compared with the one the
//! oracle's `devtools-data.mjs` writes from DevTools' own handlers.
//!
//! The oracle's scripts are not part of the project: they are read from
//! `TRACEKIT_ORACLE` (default `../shared/oracle`), copied to
//! `target/oracle` and installed there (`npm install`) when their folder
//! has no `node_modules`. The copy gets `xtask/oracle/source-maps.patch`:
//! the oracle as given hands DevTools' engine no `resolveSourceMap`, where
//! the Performance panel resolves the maps an enhanced trace saved, so
//! that without it the duplicated JavaScript of such a trace is never
//! found; an installed oracle must have it applied already. CI needs none of it: it compares with the
//! goldens committed under `fixtures/expected/NAME/data/`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context};
use tracekit_conformance::data::{compare_data, data_fixtures, run_ours_data, DataReport};

use crate::node::Engine;

/// The folder of the oracle's scripts, installed.
pub(crate) fn oracle_dir() -> anyhow::Result<PathBuf> {
    let given = std::env::var_os("TRACEKIT_ORACLE").map_or_else(|| PathBuf::from("../shared/oracle"), PathBuf::from);
    if given.join("node_modules/.bin/node").exists() {
        ensure_patched(&given)?;
        return Ok(given);
    }
    let scratch = PathBuf::from("target/oracle");
    if !scratch.join("node_modules/.bin/node").exists() {
        if !given.join("devtools-data.mjs").exists() {
            bail!(
                "no oracle at {} (set TRACEKIT_ORACLE to the folder of devtools-data.mjs)",
                given.display()
            );
        }
        eprintln!(
            "xtask: installing the oracle of {} in {}",
            given.display(),
            scratch.display()
        );
        std::fs::create_dir_all(&scratch)?;
        for entry in std::fs::read_dir(&given)? {
            let path = entry?.path();
            if path.is_file() {
                std::fs::copy(&path, scratch.join(path.file_name().expect("a file")))?;
            }
        }
        let status = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&scratch)
            .status()
            .context("running npm")?;
        if !status.success() {
            bail!("npm install in {} failed", scratch.display());
        }
        let patch = std::fs::File::open(SOURCE_MAPS_PATCH).context("opening the oracle's patch")?;
        let status = Command::new("patch")
            .args(["-p0", "-d"])
            .arg(&scratch)
            .stdin(patch)
            .status()
            .context("running patch")?;
        if !status.success() {
            bail!("{SOURCE_MAPS_PATCH} does not apply to {}", given.display());
        }
    }
    ensure_patched(&scratch)?;
    Ok(scratch)
}

/// The oracle's source-map resolution, as the Performance panel's.
const SOURCE_MAPS_PATCH: &str = "xtask/oracle/source-maps.patch";

/// Fails unless the oracle in `dir` resolves an enhanced trace's maps.
fn ensure_patched(dir: &Path) -> anyhow::Result<()> {
    let engine = std::fs::read_to_string(dir.join("engine.mjs")).unwrap_or_default();
    if !engine.contains("loadResolveSourceMap") {
        bail!(
            "the oracle in {} resolves no source maps: apply {SOURCE_MAPS_PATCH} to it (patch -p0 -d DIR)",
            dir.display()
        );
    }
    Ok(())
}

/// How a run of the oracle's `devtools-data.mjs` ended.
pub(crate) enum OracleRun {
    /// It wrote the dump to the file asked for.
    Written,
    /// DevTools itself throws on the trace (exit 3), or the file is no
    /// trace with events: its one line.
    Refused(String),
}

/// Runs `devtools-data.mjs FILE --no-insights --out OUT` with `engine`
/// (`out`'s directory must exist).
fn run_oracle(oracle: &Path, engine: Engine, file: &Path, out: &Path) -> anyhow::Result<OracleRun> {
    run_oracle_with(oracle, engine, file, out, &["--no-insights"])
}

/// Runs `devtools-data.mjs FILE ARGS --out OUT` with `engine`.
pub(crate) fn run_oracle_with(
    oracle: &Path,
    engine: Engine,
    file: &Path,
    out: &Path,
    args: &[&str],
) -> anyhow::Result<OracleRun> {
    let dir = std::fs::canonicalize(
        out.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new(".")),
    )?;
    let out = dir.join(out.file_name().context("an output file")?);
    let output = Command::new(oracle.join("node_modules/.bin/node"))
        .arg("--max-old-space-size=8192")
        .arg(oracle.join("devtools-data.mjs"))
        .arg(std::fs::canonicalize(file)?)
        .args(args)
        .args(["--engine", engine.arg(), "--out"])
        .arg(&out)
        .current_dir(oracle)
        .output()
        .context("running node")?;
    if output.status.success() {
        return Ok(OracleRun::Written);
    }
    let err = String::from_utf8_lossy(&output.stderr);
    let line = err
        .lines()
        .rev()
        .find(|l| l.contains("Error") || l.contains("throws"))
        .unwrap_or(err.trim());
    Ok(OracleRun::Refused(line.trim().to_owned()))
}

/// DevTools' data dump of `file` written to `out`: `Ok(false)` when
/// DevTools throws on it.
pub fn oracle_dump(engine: Engine, file: &Path, out: &Path) -> anyhow::Result<bool> {
    let oracle = oracle_dir()?;
    Ok(matches!(run_oracle(&oracle, engine, file, out)?, OracleRun::Written))
}

/// Writes the data goldens of `engine` for the fixtures whose path
/// contains `only`.
pub fn write_goldens(engine: Engine, only: &str) -> anyhow::Result<()> {
    let oracle = oracle_dir()?;
    for (file, golden) in data_fixtures(engine.devtools())? {
        if !file.to_string_lossy().contains(only) {
            continue;
        }
        std::fs::create_dir_all(golden.parent().expect("in a directory"))?;
        match run_oracle(&oracle, engine, &file, &golden)? {
            OracleRun::Written => println!("{:<60} written", golden.display()),
            OracleRun::Refused(message) => {
                let _ = std::fs::remove_file(&golden);
                println!("{:<60} no golden: {message}", file.display());
            }
        }
    }
    Ok(())
}

/// The totals of a comparison over many traces.
#[derive(Default)]
struct Totals {
    traces: usize,
    identical_traces: usize,
    handlers: usize,
    identical_handlers: usize,
    matched: usize,
    values: usize,
    refused: usize,
}

impl Totals {
    fn row(&mut self, name: &str, report: &DataReport) {
        let (matched, values) = report.values();
        self.traces += 1;
        self.handlers += report.handlers.len();
        self.identical_handlers += report.identical();
        self.matched += matched;
        self.values += values;
        let first = report
            .handlers
            .iter()
            .find_map(|h| h.first_difference.as_ref().map(|d| format!("{}: {d}", h.name)));
        if first.is_none() {
            self.identical_traces += 1;
        }
        println!(
            "{name:<60} handlers {}/{}, values {matched}/{values}{}",
            report.identical(),
            report.handlers.len(),
            first.map(|f| format!("; first: {f}")).unwrap_or_default()
        );
    }

    fn finish(self, handlers: &[&str]) {
        #[allow(clippy::cast_precision_loss)]
        let percent = if self.values == 0 {
            100.0
        } else {
            100.0 * self.matched as f64 / self.values as f64
        };
        println!(
            "\nData of {} handlers ({}): {}/{} traces identical, handlers identical {}/{}, values matched {}/{} ({percent:.3}%); DevTools throws on {} more",
            handlers.len(),
            handlers.join(", "),
            self.identical_traces,
            self.traces,
            self.identical_handlers,
            self.handlers,
            self.matched,
            self.values,
            self.refused
        );
    }
}

/// Every fixture's data against its golden, for the handlers tracekit has.
pub fn fixtures(engine: Engine) -> anyhow::Result<()> {
    let handlers = tracekit::data::HANDLERS;
    let mut totals = Totals::default();
    for (file, golden) in data_fixtures(engine.devtools())? {
        let name = file.display().to_string();
        let Ok(expected) = std::fs::read_to_string(&golden) else {
            totals.refused += 1;
            continue;
        };
        let ours = run_ours_data(&file, engine.devtools()).map_err(anyhow::Error::msg)?;
        let report = compare_data(&expected, &ours, handlers).map_err(anyhow::Error::msg)?;
        totals.row(&name, &report);
    }
    totals.finish(handlers);
    Ok(())
}

/// Every trace under `dir` against the oracle run live (its dumps kept
/// under `target/oracle-data/ENGINE/` for the next run).
pub fn corpus(engine: Engine, dir: &Path) -> anyhow::Result<()> {
    let oracle = oracle_dir()?;
    let handlers = tracekit::data::HANDLERS;
    let mut files = Vec::new();
    crate::conformance::walk(dir, &mut files)?;
    let cache = PathBuf::from("target/oracle-data").join(engine.arg());
    let mut totals = Totals::default();
    for file in files {
        let name = file.strip_prefix(dir).unwrap_or(&file).display().to_string();
        let golden = cache.join(format!("{}.json", name.replace('/', "__")));
        if !golden.exists() {
            std::fs::create_dir_all(&cache)?;
            if let OracleRun::Refused(message) = run_oracle(&oracle, engine, &file, &golden)? {
                totals.refused += 1;
                println!("{name:<60} DevTools: {message}");
                continue;
            }
        }
        let expected = std::fs::read_to_string(&golden)?;
        match run_ours_data(&file, engine.devtools()) {
            Ok(ours) => totals.row(
                &name,
                &compare_data(&expected, &ours, handlers).map_err(anyhow::Error::msg)?,
            ),
            Err(e) => {
                totals.traces += 1;
                println!("{name:<60} TRACEKIT FAILS: {e}");
            }
        }
    }
    totals.finish(handlers);
    Ok(())
}
