//! `cargo xtask`: the measuring stick of tracekit.
//!
//! - `record`: records real traces of our workload pages with Chromium.
//! - `oracle`: runs a DevTools trace engine on the fixtures and writes
//!   its conformance dumps (the goldens) to `fixtures/expected/NAME/`.
//! - `conformance`: compares tracekit with the goldens, or with the live
//!   oracle on every trace of a corpus.
//! - `bench`: tracekit against the DevTools engine on a large trace.
//! - `wasm`: builds the npm package `tracekit` (WebAssembly, crates/wasm).
//!
//! The Node side lives in `xtask/js/` (npm packages pinned by its lockfile).

mod agent;
mod agent_activity;
mod bench;
mod conformance;
mod data;
mod insights;
mod lantern;
mod lantern_metrics;
mod lantern_savings;
mod node;
mod variants;
mod wasm;

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Record the fixture traces (installs Chromium and the npm packages if missing).
    Record {
        /// Where to write the traces.
        #[arg(long, default_value = "fixtures/traces")]
        out: PathBuf,
        /// Only these scenarios (main-thread, worker, iframe, navigation, kitchen-sink, page-load,
        /// page-load-mobile, causes, legacy-css, bundles, initiators).
        #[arg(long)]
        scenario: Vec<String>,
        /// Multiply the workload (for benchmark traces).
        #[arg(long)]
        scale: Option<f64>,
    },
    /// Write a DevTools engine's conformance dumps of the fixtures to fixtures/expected/NAME/
    /// (NAME: the tracekit behaviour that follows the engine, 2026-10 or 2026-06): the tracks
    /// of every fixture, and the views of its calltree/index.txt and summary/index.txt.
    Oracle {
        /// Only the fixtures whose path contains this text.
        #[arg(long)]
        only: Option<String>,
        /// The DevTools engine to run.
        #[arg(long, value_enum, default_value_t)]
        engine: node::Engine,
        /// Write the handlers' data goldens instead (fixtures/expected/NAME/data/), with the
        /// oracle's devtools-data.mjs (TRACEKIT_ORACLE, default ../shared/oracle).
        #[arg(long)]
        data: bool,
        /// Write the insight sets' goldens instead (fixtures/expected/NAME/insights/).
        #[arg(long, conflicts_with = "data")]
        insights: bool,
        /// Write Lantern's goldens instead (fixtures/expected/NAME/lantern/: its requests,
        /// network analysis, graph and metrics, from xtask/js/lantern.mjs --graph).
        #[arg(long, conflicts_with_all = ["data", "insights"])]
        lantern: bool,
        /// Write the goldens of the texts chrome-devtools-mcp gives an agent instead
        /// (fixtures/expected/NAME/agent/: each fixture's summary, from the oracle's
        /// mcp-summary.mjs; its main thread activity, from xtask/js/activity.mjs).
        #[arg(long, conflicts_with_all = ["data", "insights", "lantern"])]
        agent: bool,
    },
    /// Compare tracekit with the DevTools engine.
    Conformance {
        /// Compare on every trace under DIR, running the oracle live.
        #[arg(long)]
        corpus: Option<PathBuf>,
        /// The DevTools engine to compare with (tracekit follows the same one).
        #[arg(long, value_enum, default_value_t)]
        engine: node::Engine,
        /// Compare the handlers' data (tracekit data) instead of the tracks and views.
        #[arg(long)]
        data: bool,
        /// Compare the insight sets (tracekit insights), with a table per insight.
        #[arg(long, conflicts_with = "data")]
        insights: bool,
        /// Compare Lantern's requests, network analysis and graphs, its metrics and the
        /// ModernHTTP and RenderBlocking savings (with --corpus: run xtask/js/lantern.mjs and
        /// lantern-insight-savings.mjs live; without: `cargo test -p tracekit-conformance --test lantern`).
        #[arg(long, conflicts_with_all = ["data", "insights"], requires = "corpus")]
        lantern: bool,
    },
    /// Benchmark tracekit against the DevTools engine.
    Bench(bench::BenchArgs),
    /// Build the npm package `tracekit` (WebAssembly; installs the toolchain and
    /// wasm-bindgen-cli if missing).
    Wasm(wasm::WasmArgs),
    /// Write many varied traces made from the recorded fixtures (other
    /// pids, times and sizes), to measure `tracekit export` on a batch.
    Variants(variants::VariantsArgs),
}

/// The workspace root (xtask runs from anywhere inside it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask is inside the workspace")
        .to_path_buf()
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    std::env::set_current_dir(root())?;
    match cli.command {
        Command::Record { out, scenario, scale } => {
            node::ensure_chromium()?;
            node::ensure_packages()?;
            let mut args: Vec<String> = vec!["xtask/js/record.mjs".into(), "--out".into(), out.display().to_string()];
            for s in scenario {
                args.extend(["--scenario".into(), s]);
            }
            if let Some(scale) = scale {
                args.extend(["--scale".into(), scale.to_string()]);
            }
            node::run_node(&args)
        }
        Command::Oracle {
            only,
            engine,
            data,
            insights,
            lantern,
            agent,
        } => {
            if agent {
                let only = only.unwrap_or_default();
                agent::write_goldens(engine, &only)?;
                return agent_activity::write_goldens(engine, &only);
            }
            if lantern {
                node::ensure_packages()?;
                return lantern::write_goldens(engine, &only.unwrap_or_default());
            }
            if insights {
                return insights::write_goldens(engine, &only.unwrap_or_default());
            }
            if data {
                return data::write_goldens(engine, &only.unwrap_or_default());
            }
            node::ensure_packages()?;
            conformance::write_goldens(engine, &only.unwrap_or_default())
        }
        Command::Conformance {
            corpus: Some(dir),
            engine,
            lantern: true,
            ..
        } => {
            node::ensure_packages()?;
            lantern::corpus(engine, &dir)?;
            lantern_metrics::corpus(engine, &dir)?;
            lantern_savings::corpus(engine, &dir)
        }
        Command::Conformance {
            corpus,
            engine,
            insights: true,
            ..
        } => match corpus {
            Some(dir) => insights::corpus(engine, &dir),
            None => insights::fixtures(engine),
        },
        Command::Conformance {
            corpus, engine, data, ..
        } => match (corpus, data) {
            (Some(dir), true) => data::corpus(engine, &dir),
            (None, true) => data::fixtures(engine),
            (Some(dir), false) => conformance::corpus(engine, &dir),
            (None, false) => conformance::fixtures(engine),
        },
        Command::Bench(args) => bench::run(args),
        Command::Wasm(args) => wasm::run(args),
        Command::Variants(args) => variants::run(&args),
    }
}
