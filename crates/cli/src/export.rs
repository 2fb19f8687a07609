//! `tracekit export`: the tables of many traces as Parquet files.

use std::io::IsTerminal;
use std::path::PathBuf;

use tracekit_tables::export::{export, find_inputs, ExportOptions};

use crate::args::{value_enum_mirror, ProcessesArg, SourceMapsArg};
use crate::cli::Common;
use crate::error::CliError;
use crate::input::load_hint;

#[derive(clap::Args)]
pub struct ExportArgs {
    /// Traces (Chrome traces, .cpuprofile or JS Self-Profiling traces,
    /// gzipped or not), or directories: their `.json` and `.cpuprofile`
    /// files (`.gz` too), recursively.
    #[arg(required = true, num_args = 1.., value_name = "TRACE_OR_DIR")]
    traces: Vec<PathBuf>,
    /// The directory to write `TABLE.parquet` files to (made if needed;
    /// files of the same names are replaced).
    #[arg(long, value_name = "OUT_DIR")]
    parquet: PathBuf,
    /// The tables to write, separated by commas. The page tables
    /// (requests, navigations, layout_shifts, interactions, user_timings,
    /// initiators, warnings, scripts, insights) are not written by default: they
    /// load the page handlers too.
    #[arg(long, value_enum, value_delimiter = ',', default_values = ["tracks", "calls", "samples", "threads", "diagnostics"])]
    tables: Vec<TableName>,
    #[command(flatten)]
    processes: ProcessesArg,
    #[command(flatten)]
    source_maps: SourceMapsArg,
}

value_enum_mirror! {
    /// The tables of `export --tables`.
    enum TableName => tracekit_tables::Table {
        /// One row per track node (trace event or JS call).
        Tracks,
        /// The Call Tree of every thread (top-down, the whole trace).
        Calls,
        /// One row per CPU sample.
        Samples,
        /// One row per thread.
        Threads,
        /// What was skipped or repaired, and the traces that failed.
        Diagnostics,
        /// One row per network request (loads the page handlers).
        Requests,
        /// One row per main-frame navigation, with its metrics (loads the
        /// page handlers).
        Navigations,
        /// One row per layout shift (loads the page handlers).
        #[value(name = "layout_shifts")]
        LayoutShifts,
        /// One row per interaction (loads the page handlers).
        Interactions,
        /// One row per mark, measure, console timing and time stamp (loads
        /// the page handlers).
        #[value(name = "user_timings")]
        UserTimings,
        /// One row per event with an initiator, and its initiator (loads
        /// the page handlers).
        Initiators,
        /// One row per warning of an entry: long task, forced reflow, ...
        /// (loads the page handlers).
        Warnings,
        /// One row per script of V8's source rundown, with its source map
        /// (loads the page handlers).
        Scripts,
        /// One row per insight of each insight set: its state, savings,
        /// events (loads the page handlers; docs/insights.md).
        Insights,
    }
}

/// Exports the traces' tables; each trace that fails gets its line on
/// stderr as it is written, and the status is 1 if any did.
pub fn run(args: ExportArgs, common: &Common) -> Result<(), CliError> {
    let (inputs, unlisted) = find_inputs(&args.traces);
    for error in &unlisted {
        eprintln!("tracekit: {error}");
    }
    let mut options = ExportOptions::new().with_tables(args.tables.iter().map(|t| (*t).into()));
    // Each trace loads on one thread; `--threads` is how many load at once.
    options.analyze = args.source_maps.options(args.processes.options(&common.options));
    // Read once, applied to every trace after the maps it carries.
    options.source_maps = crate::sourcemaps::given(&args.source_maps)?;
    if let Some(jobs) = common.threads {
        options = options.with_jobs(jobs);
    }
    let bar = (!common.quiet && std::io::stderr().is_terminal() && inputs.len() > 1).then(|| {
        let bar = indicatif::ProgressBar::new(inputs.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} exporting {pos}/{len} traces, {msg} {wide_bar} {eta}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let (mut bytes, mut failed) = (0u64, 0usize);
    let summary = export(&inputs, &unlisted, &args.parquet, &options, |done| {
        bytes += done.file_bytes;
        let report = |e: &tracekit_tables::TraceError| {
            eprintln!("tracekit: {e}{}", e.kind.map_or("", load_hint));
        };
        if !common.quiet {
            let warn = || {
                for problem in done.source_map_problems {
                    eprintln!("tracekit: warning: {}: source maps: {problem}", done.input.name);
                }
            };
            match &bar {
                Some(bar) => bar.suspend(warn),
                None => warn(),
            }
        }
        if let Some(error) = done.error {
            failed += 1;
            match &bar {
                Some(bar) => bar.suspend(|| report(error)),
                None => report(error),
            }
        }
        if let Some(bar) = &bar {
            bar.set_message(format!("{} MB read, {failed} failed", bytes >> 20));
            bar.inc(1);
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let summary = summary.map_err(CliError::Export)?;
    if !common.quiet {
        let rows: Vec<String> = summary.rows.iter().map(|(t, n)| format!("{t} {n}")).collect();
        eprintln!(
            "tracekit: exported {} traces ({} failed) to {}: rows: {}",
            summary.traces,
            summary.failed.len(),
            args.parquet.display(),
            rows.join(", ")
        );
    }
    if summary.failed.is_empty() {
        Ok(())
    } else {
        Err(CliError::AlreadyReported)
    }
}
