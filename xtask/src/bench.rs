//! `cargo xtask bench`: tracekit against the DevTools trace engine on a big
//! real trace, on the same machine, in the same run.
//!
//! - Main table: `tracekit tracks FILE --format conformance` (release build)
//!   and the DevTools engine as a user runs it (`xtask/js/plain.mjs`: read,
//!   `JSON.parse`, `Model.parse` with Meta, Samples, Renderer and their
//!   dependencies), alternating, `--runs N` times each, on the uncompressed
//!   trace; tracekit's output must be byte-identical to the conformance
//!   oracle's dump (`xtask/js/oracle.mjs`, one untimed run). Median wall time and peak
//!   RSS (each child's own, from `wait4`), speedup and memory ratio;
//!   tracekit on the gzipped trace too.
//! - Handlers table (also `--handlers` alone): loading with every handler
//!   (`tracekit metrics`) against the DevTools engine with every handler
//!   (`plain.mjs --all-handlers`), beside the tracks alone and the whole
//!   data written (`tracekit data`); the data compared with DevTools' when
//!   the oracle's `devtools-data.mjs` is at hand.
//! - Diff table (also `--diff` alone): `tracekit diff BIG BIG` against
//!   loading the trace twice (`tracekit metrics`), and what measuring adds
//!   to the diff's loading in its `--timings`.
//! - Agent table (`--agent` alone, `--all` with the others): issue 34's
//!   scale figures, `tracekit agent summary` of a 700 MB trace against
//!   chrome-devtools-mcp's offline parse and summary, and the MCP server's
//!   answers from its cache.
//! - Stage table: tracekit's `--timings` table, per stage, with throughput;
//!   the loading alone also with `--threads 1`.
//! - Threads: tracekit's output with `--threads 1` and `--threads 2`, and
//!   two `--threads 1` runs at once (what the machine's two cores give two
//!   independent runs: the most `--threads 2` could be given).
//! - Scaling table (`--scaling` alone, `--all` with the others): traces of
//!   50 MB to 2 GB made by replicating the real one (see `replicate.rs`),
//!   tracekit on each and DevTools on those it can load.
//! - `--micro`: the criterion micro-benchmarks (`cargo bench -p tracekit-benches`).
//!
//! The real trace is `fixtures/big/kitchen-sink.json.gz` (about 200 MB of
//! JSON), recorded by `xtask/js/record.mjs` when missing (`--record` to
//! record it again), and decompressed next to it. The tables are printed as
//! Markdown and written to `<target dir>/bench-report.md`.

mod agent_table;
mod data_table;
mod diff_table;
mod format;
mod main_table;
mod measure;
pub(crate) mod replicate;
mod report;
mod runner;
mod scaling_table;
mod stage_table;
mod stages;
mod threads_table;
mod trace;
mod views;

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context};

use crate::node;
use report::write_report;
use runner::{build_tracekit, Bench};
use trace::ensure_trace;

/// Where the bench trace and the traces built from it are.
const BIG_DIR: &str = "fixtures/big";
/// The recorder's scenario, and the bench trace's file name.
const TRACE_NAME: &str = "kitchen-sink";
/// The recorder's scale for a trace of about 200 MB of JSON.
const RECORD_SCALE: &str = "34";
/// The scaling table's sizes unless `--sizes` says others.
const DEFAULT_SIZES_MB: &[u64] = &[50, 200, 500, 1000, 2000];

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Runs of each program in the main and stage tables (medians are reported).
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Record the big trace again even if fixtures/big/ has it.
    #[arg(long)]
    record: bool,
    /// Only the scaling table (traces of 50 MB to 2 GB built from the real one).
    #[arg(long)]
    scaling: bool,
    /// The main tables, the scaling, views and agent tables.
    #[arg(long, conflicts_with = "scaling")]
    all: bool,
    /// Only the aggregated views' table (tracekit's whole views beside
    /// DevTools' first levels); `--all` includes it.
    #[arg(long, conflicts_with = "scaling")]
    views: bool,
    /// Only the handlers table (loading with every handler against the
    /// DevTools engine with every handler); the main tables include it.
    #[arg(long, conflicts_with_all = ["scaling", "views"])]
    handlers: bool,
    /// Only the diff table (`tracekit diff` of the bench trace against
    /// itself, beside loading it twice); the main tables include it.
    #[arg(long, conflicts_with_all = ["scaling", "views"])]
    diff: bool,
    /// Only the agent table (`tracekit agent summary` of a 700 MB trace
    /// against chrome-devtools-mcp's, and `tracekit mcp`'s cached answers);
    /// `--all` includes it.
    #[arg(long, conflicts_with_all = ["scaling", "views"])]
    agent: bool,
    /// The depth of DevTools' views in the views table (expanding a node
    /// costs DevTools a walk of the thread).
    #[arg(long, default_value_t = 3)]
    devtools_views_depth: u32,
    /// Sizes of the scaling table, in MB (10^6 bytes).
    #[arg(long, value_delimiter = ',', default_values_t = DEFAULT_SIZES_MB.to_vec())]
    sizes: Vec<u64>,
    /// Runs of each program per size in the scaling table.
    #[arg(long, default_value_t = 3)]
    scaling_runs: usize,
    /// Leave the DevTools engine out (tracekit alone).
    #[arg(long)]
    no_devtools: bool,
    /// Run the criterion micro-benchmarks (`cargo bench -p tracekit-benches`) and nothing else.
    #[arg(long)]
    micro: bool,
}

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    if args.micro {
        return micro();
    }
    if args.runs == 0 || args.scaling_runs == 0 {
        bail!("--runs and --scaling-runs must be at least 1");
    }
    let trace = ensure_trace(args.record)?;
    if !args.no_devtools {
        node::ensure_packages()?;
    }
    let tracekit = build_tracekit()?;
    let target_dir = tracekit
        .parent()
        .and_then(Path::parent)
        .context("where is the target directory?")?
        .to_path_buf();
    let work = target_dir.join("bench");
    std::fs::create_dir_all(&work)?;
    let bench = Bench {
        tracekit,
        work,
        devtools: !args.no_devtools,
    };

    let mut sections: Vec<(&str, String)> = Vec::new();
    let main = !args.scaling && !args.views && !args.handlers && !args.diff && !args.agent;
    let scaling = args.scaling || args.all;
    let views = args.views || args.all;
    if main {
        let text = bench.main_tables(&trace, args.runs)?;
        print!("{text}");
        sections.push(("main", text));
    }
    if main || args.handlers {
        let text = bench.data_table(&trace, args.runs)?;
        print!("{text}");
        sections.push(("every handler", text));
    }
    if main || args.diff {
        let text = bench.diff_table(&trace, args.runs)?;
        print!("{text}");
        sections.push(("diff", text));
    }
    if args.agent || args.all {
        let text = bench.agent_table(&trace, args.runs)?;
        print!("{text}");
        sections.push(("agent", text));
    }
    if views {
        let text = bench.views_table(&trace, args.runs, args.devtools_views_depth)?;
        print!("{text}");
        sections.push(("views", text));
        let text = bench.after_loading_table(&trace, args.runs)?;
        print!("{text}");
        sections.push(("after loading", text));
    }
    if scaling {
        let text = bench.scaling_table(&trace, &args.sizes, args.scaling_runs)?;
        print!("{text}");
        sections.push(("scaling", text));
    }
    let report = target_dir.join("bench-report.md");
    write_report(&report, &sections)?;
    eprintln!("xtask: wrote {}", report.display());
    if sections.iter().any(|(_, text)| text.contains("**DIFFERENT**")) {
        bail!("some outputs differ (see the tables)");
    }
    Ok(())
}

fn micro() -> anyhow::Result<()> {
    eprintln!("xtask: running the criterion micro-benchmarks: cargo bench -p tracekit-benches");
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["bench", "-p", "tracekit-benches"])
        .status()
        .context("running cargo bench")?;
    if !status.success() {
        bail!("cargo bench -p tracekit-benches failed ({status})");
    }
    Ok(())
}
