//! `cargo xtask`: the measuring stick of tracekit.
//!
//! - `record`: records real traces of our workload pages with Chromium.
//! - `oracle`: runs the DevTools trace engine on the fixtures and writes
//!   its conformance dumps (the goldens) to `fixtures/expected/`.
//! - `conformance`: compares tracekit with the goldens, or with the live
//!   oracle on every trace of a corpus.
//! - `bench`: tracekit against the DevTools engine on a large trace.
//! - `wasm`: builds the npm package `tracekit` (WebAssembly, crates/wasm).
//!
//! The Node side lives in `xtask/js/` (npm packages pinned by its lockfile).

mod bench;
mod conformance;
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
        /// Only these scenarios (main-thread, worker, iframe, navigation, kitchen-sink).
        #[arg(long)]
        scenario: Vec<String>,
        /// Multiply the workload (for benchmark traces).
        #[arg(long)]
        scale: Option<f64>,
    },
    /// Write the DevTools engine's conformance dumps of the fixtures to fixtures/expected/:
    /// the tracks of every fixture, and the views of fixtures/expected/calltree/index.txt.
    Oracle {
        /// Only the fixtures whose path contains this text.
        #[arg(long)]
        only: Option<String>,
    },
    /// Compare tracekit with the DevTools engine.
    Conformance {
        /// Compare on every trace under DIR, running the oracle live.
        #[arg(long)]
        corpus: Option<PathBuf>,
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
        Command::Oracle { only } => {
            node::ensure_packages()?;
            let only = only.unwrap_or_default();
            for (dir, out) in conformance::FIXTURE_SETS {
                let mut files = conformance::fixture_files(Path::new(dir))?;
                files.retain(|f| f.to_string_lossy().contains(&only));
                if files.is_empty() {
                    continue;
                }
                std::fs::create_dir_all(out)?;
                let mut args: Vec<String> = vec!["xtask/js/oracle.mjs".into(), "--out-dir".into(), out.to_string()];
                args.extend(files.iter().map(|f| f.display().to_string()));
                // Some fixtures are refused by the oracle on purpose (documented divergences).
                if let Err(e) = node::run_node(&args) {
                    eprintln!("xtask: the oracle failed on some fixtures ({e}); see above");
                }
            }
            conformance::write_views_goldens(&only)
        }
        Command::Conformance { corpus } => match corpus {
            Some(dir) => conformance::corpus(&dir),
            None => conformance::fixtures(),
        },
        Command::Bench(args) => bench::run(args),
        Command::Wasm(args) => wasm::run(args),
        Command::Variants(args) => variants::run(&args),
    }
}
