//! The main table: tracekit against the DevTools engine as a user runs it,
//! on the bench trace and on its gzip, with the outputs compared; then the
//! stage and threads tables, which reuse its runs' medians and output.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::bail;

use super::format::{escape, last_error, mb, secs, secs_signed};
use super::measure::{same_bytes, summarize, Run, Summary};
use super::report::environment;
use super::runner::{Bench, Tool};
use super::trace::Trace;
use super::RECORD_SCALE;

/// The runs of the main table and what their outputs compared to.
struct MainRuns {
    /// tracekit on the JSON input.
    tracekit: Vec<Run>,
    /// The DevTools engine as a user runs it, until it fails.
    devtools: Vec<Run>,
    /// tracekit on the gzipped input.
    tracekit_gz: Vec<Run>,
    /// Why the DevTools engine failed, if it did.
    devtools_failure: Option<String>,
    /// tracekit's output against the oracle's dump (`None`: not compared).
    identical_devtools: Option<Result<(), u64>>,
    /// tracekit's output on the gzip against that on the JSON.
    identical_gz: Result<(), u64>,
    /// tracekit's output from run to run.
    stable: Result<(), u64>,
    /// tracekit's output of its first run on the JSON input.
    reference: PathBuf,
    /// The size of that output.
    output_size: u64,
}

impl Bench {
    /// The main, stage and threads tables, as Markdown.
    pub(super) fn main_tables(&self, trace: &Trace, runs: usize) -> anyhow::Result<String> {
        let environment = environment(&self.tracekit);
        let measured = self.main_runs(trace, runs)?;
        let tk_s = summarize(&measured.tracekit);
        let mut md = String::new();
        write_main_table(&mut md, trace, runs, &environment, &measured, &tk_s)?;
        write_main_findings(&mut md, &measured, &tk_s)?;

        let (stages, loading) = self.stage_table(trace, runs, tk_s.wall)?;
        md.push_str(&stages);
        md.push_str(&self.threads_table(trace, runs, &tk_s, &measured.reference, loading)?);
        Ok(md)
    }

    /// tracekit on the JSON and on the gzip, and the DevTools engine,
    /// alternating `runs` times; then the oracle's dump, once, untimed.
    fn main_runs(&self, trace: &Trace, runs: usize) -> anyhow::Result<MainRuns> {
        let mut tk: Vec<Run> = Vec::new();
        let mut dt: Vec<Run> = Vec::new();
        let mut tk_gz: Vec<Run> = Vec::new();
        let mut dt_failure: Option<String> = None;
        let mut identical_dt: Option<Result<(), u64>> = None;
        let mut identical_gz: Result<(), u64> = Ok(());
        let mut tk_stable: Result<(), u64> = Ok(());
        let reference = self.work.join("main-tracekit-first.out");
        for i in 0..runs {
            let (run, out_tk, stderr) = self.run(Tool::Tracekit, &trace.json, &[], "main-tracekit")?;
            if !run.ok() {
                bail!("tracekit failed on {}: {}", trace.json.display(), last_error(&stderr));
            }
            tk.push(run);
            if i == 0 {
                std::fs::copy(&out_tk, &reference)?;
            } else if tk_stable.is_ok() {
                tk_stable = same_bytes(&reference, &out_tk)?;
            }
            if self.devtools && dt_failure.is_none() {
                let (run, _, stderr) = self.run(Tool::DevtoolsPlain, &trace.json, &[], "main-devtools")?;
                if run.ok() {
                    dt.push(run);
                } else {
                    dt_failure = Some(last_error(&stderr));
                }
            }
            let (run, out_gz, stderr) = self.run(Tool::Tracekit, &trace.gz, &[], "main-tracekit-gz")?;
            if !run.ok() {
                bail!("tracekit failed on {}: {}", trace.gz.display(), last_error(&stderr));
            }
            tk_gz.push(run);
            if identical_gz.is_ok() {
                identical_gz = same_bytes(&reference, &out_gz)?;
            }
        }
        let output_size = reference.metadata()?.len();
        // The outputs compared: the DevTools engine's dump, made once by
        // the oracle (its dump is not part of what a user runs).
        if self.devtools && dt_failure.is_none() {
            let (run, out_dt, stderr) = self.run(Tool::Devtools, &trace.json, &[], "main-devtools-dump")?;
            identical_dt = Some(if run.ok() {
                same_bytes(&reference, &out_dt)?
            } else {
                bail!("the oracle failed on {}: {}", trace.json.display(), last_error(&stderr));
            });
        }
        Ok(MainRuns {
            tracekit: tk,
            devtools: dt,
            tracekit_gz: tk_gz,
            devtools_failure: dt_failure,
            identical_devtools: identical_dt,
            identical_gz,
            stable: tk_stable,
            reference,
            output_size,
        })
    }
}

/// The main table's heading, what it measures, and its rows; `tk_s`
/// summarizes tracekit's runs on the JSON input.
fn write_main_table(
    md: &mut String,
    trace: &Trace,
    runs: usize,
    environment: &str,
    measured: &MainRuns,
    tk_s: &Summary,
) -> anyhow::Result<()> {
    writeln!(md, "## tracekit vs the DevTools trace engine\n")?;
    writeln!(md, "{environment}\n")?;
    writeln!(
        md,
        "Input: a real trace recorded by `xtask/js/record.mjs --scenario kitchen-sink --scale {RECORD_SCALE}`: \
         `{}` ({} of JSON; {} gzipped). tracekit: `tracks --format conformance`, the sync tracks of \
         every thread written to a file ({} of output). DevTools: the engine as a user runs it \
         (`xtask/js/plain.mjs`: the file read into one string, `JSON.parse`, `Model.parse` with Meta, \
         Samples, Renderer and the handlers they need; no output), its tracks compared with tracekit's \
         through one untimed run of the conformance oracle (`xtask/js/oracle.mjs`). Runs alternate, \
         {runs} of each; times and peak RSS are medians (RSS: each child's own `ru_maxrss`). Page cache warm: each run's input is read just before it, as a kernel may page out file pages it sees as cold (DAMON does on the machine this was written on); before each run, `sync` writes the earlier runs' output back to disk, and each run writes a new file.\n",
        trace.json.display(),
        mb(trace.json_size),
        mb(trace.gz_size),
        mb(measured.output_size),
    )?;
    writeln!(
        md,
        "| program | input | wall time (median) | min – max | CPU time | peak RSS (median) | peak anon / file-backed¹ | throughput² |"
    )?;
    writeln!(md, "|---|---|---:|---:|---:|---:|---:|---:|")?;
    let row = |md: &mut String, name: &str, input: &str, s: &Summary| -> std::fmt::Result {
        writeln!(
            md,
            "| {name} | {input} | {} s | {} – {} s | {} s | {} | {} / {} | {:.0} MB/s |",
            secs(s.wall),
            secs(s.wall_min),
            secs(s.wall_max),
            secs(s.cpu),
            mb(s.max_rss),
            mb(s.peak_anon),
            mb(s.peak_file),
            trace.json_size as f64 / 1e6 / s.wall.as_secs_f64(),
        )
    };
    row(md, "tracekit", "JSON", tk_s)?;
    let dt_s = (!measured.devtools.is_empty()).then(|| summarize(&measured.devtools));
    match (&dt_s, &measured.devtools_failure) {
        (Some(s), _) => row(md, "DevTools engine (Node)", "JSON", s)?,
        (None, Some(f)) => writeln!(md, "| DevTools engine (Node) | JSON | fails: {} | | | | | |", escape(f))?,
        (None, None) => writeln!(
            md,
            "| DevTools engine (Node) | JSON | not run (`--no-devtools`) | | | | | |"
        )?,
    }
    row(md, "tracekit", "gzip", &summarize(&measured.tracekit_gz))?;
    writeln!(md)?;
    Ok(())
}

/// The main table's findings: speedup, memory, the cost of decompression,
/// the outputs compared; then its footnotes.
fn write_main_findings(md: &mut String, measured: &MainRuns, tk_s: &Summary) -> anyhow::Result<()> {
    let gz_s = summarize(&measured.tracekit_gz);
    let dt_s = (!measured.devtools.is_empty()).then(|| summarize(&measured.devtools));
    if let Some(d) = &dt_s {
        writeln!(
            md,
            "- **speedup** (DevTools time / tracekit time): **{:.1}×** (gzipped input: {:.1}×)",
            d.wall.as_secs_f64() / tk_s.wall.as_secs_f64(),
            d.wall.as_secs_f64() / gz_s.wall.as_secs_f64()
        )?;
        writeln!(
            md,
            "- **memory** (tracekit peak RSS / DevTools peak RSS): **{:.3}** (1/{:.1}; gzipped input: {:.3})",
            tk_s.max_rss as f64 / d.max_rss as f64,
            d.max_rss as f64 / tk_s.max_rss as f64,
            gz_s.max_rss as f64 / d.max_rss as f64,
        )?;
    }
    writeln!(
        md,
        "- decompression costs tracekit {} s (gzip median − JSON median)",
        secs_signed(gz_s.wall.as_secs_f64() - tk_s.wall.as_secs_f64())
    )?;
    let verdict = |r: &Result<(), u64>| match r {
        Ok(()) => "byte-identical".to_owned(),
        Err(at) => format!("**DIFFERENT** (first difference at byte {at})"),
    };
    match &measured.identical_devtools {
        Some(r) => writeln!(md, "- outputs, tracekit vs DevTools: {}", verdict(r))?,
        None => writeln!(
            md,
            "- outputs, tracekit vs DevTools: not compared (DevTools did not run)"
        )?,
    }
    writeln!(
        md,
        "- outputs, tracekit on gzip vs on JSON: {}",
        verdict(&measured.identical_gz)
    )?;
    writeln!(md, "- outputs, tracekit from run to run: {}", verdict(&measured.stable))?;
    writeln!(
        md,
        "\n¹ sampled every 5 ms from `/proc/PID/status` (`RssAnon` / `RssFile`): the heap vs the \
         pages of memory-mapped files (a mapped input counts in RSS). \
         ² uncompressed trace size / wall time, for both inputs. MB = 10⁶ bytes.\n"
    )?;
    Ok(())
}
