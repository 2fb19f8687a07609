//! The command line: the global options, the subcommands, and what every
//! subcommand takes from the global options ([`Common`]).

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tracekit::{AnalyzeOptions, DevTools, Parallelism};

use crate::agent::AgentArgs;
use crate::calltree::CalltreeArgs;
use crate::chart::ChartArgs;
use crate::convert::ConvertArgs;
use crate::data::DataArgs;
use crate::diff::DiffArgs;
use crate::error::CliError;
use crate::export::ExportArgs;
use crate::flamegraph::FlamegraphArgs;
use crate::info::InfoArgs;
use crate::insights::InsightsArgs;
use crate::mcp::McpArgs;
use crate::metrics::MetricsArgs;
use crate::network::NetworkArgs;
use crate::summary::SummaryArgs;
use crate::tracks::TracksArgs;

const AFTER_HELP: &str = "\
Exit status: 0 on success; 1 when an input cannot be read or used, or the \
output cannot be written (one line on stderr: `tracekit: FILE: WHAT`); 2 \
when the command line is wrong; 3 when `diff` finds a change past a `--fail-on` threshold.";

/// `tracekit --version`: the version and the DevTools engine followed by
/// default (a test checks it names [`DevTools::LATEST`]).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (answers as DevTools 2026-10: devtools-frontend f7e7785 (chrome-devtools-mcp 1.11.0); \
     --devtools 2026-06: @paulirish/trace_engine 0.0.65)"
);

#[derive(Parser)]
#[command(
    name = "tracekit",
    version = VERSION,
    about = "Sync tracks of Chrome performance traces and JavaScript CPU profiles",
    after_help = AFTER_HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Print how long each stage took, on stderr.
    #[arg(long, global = true, display_order = 100)]
    pub timings: bool,
    /// Print no warning and no progress bar (errors are still printed).
    #[arg(short, long, global = true, display_order = 100)]
    quiet: bool,
    /// The most track nodes one thread may have (about 100 bytes of memory
    /// each), and the most nodes of a thread's Bottom-Up in `calltree`; a
    /// thread with more is an error rather than gigabytes.
    #[arg(long, global = true, value_name = "N", default_value_t = tracekit::DEFAULT_MAX_NODES, display_order = 100)]
    max_nodes: usize,
    /// Worker threads for loading and per-thread work (default: all cores;
    /// 1: no extra thread); for `export`, the traces loaded at once. The
    /// output is the same whatever the number.
    #[arg(long, global = true, value_name = "N", display_order = 100)]
    threads: Option<usize>,
    /// The DevTools engine whose answers to give where engines differ:
    /// 2026-10 (today's Performance panel, as in chrome-devtools-mcp
    /// 1.11.0) or 2026-06 (@paulirish/trace_engine 0.0.65, as in
    /// Lighthouse 13.5). See docs/devtools-versions.md.
    #[arg(
        long,
        global = true,
        value_name = "VERSION",
        default_value = DevTools::LATEST.name(),
        value_parser = crate::args::devtools_parser(),
        display_order = 100
    )]
    devtools: DevTools,
}

#[derive(Subcommand)]
pub enum Command {
    /// Print the call tree of every thread (the DevTools Performance panel's tracks).
    Tracks(TracksArgs),
    /// Print what each trace holds (processes, threads, their tracks and
    /// profiles) and what was skipped while loading it.
    Info(InfoArgs),
    /// Print the Call Tree (top-down) or the Bottom-Up of every thread, as
    /// the DevTools Performance panel's tree views aggregate it (no
    /// grouping; docs/views.md).
    Calltree(CalltreeArgs),
    /// Print the Summary of every thread: the time per category
    /// (Scripting, Rendering, ...), idle and total, over the trace or a
    /// window, as the DevTools Performance panel's Summary tab shows it
    /// for a selected thread (docs/views.md).
    Summary(SummaryArgs),
    /// Print the metrics of each navigation of the main frame: FCP, LCP
    /// and what it painted, DCL, load, CLS and its worst cluster, INP and
    /// its interaction, rated as DevTools rates them.
    Metrics(MetricsArgs),
    /// Print the network requests of a trace: when each started, its
    /// phases, size, status, priority, whether it blocked rendering, what
    /// started it, its URL.
    Network(NetworkArgs),
    /// Print DevTools' insights of a trace, a set per navigation: what to
    /// fix (LCP and INP broken down, layout shift culprits, ...), the
    /// failing ones first, with what each found and the events involved
    /// (docs/insights.md).
    Insights(InsightsArgs),
    /// Print the texts chrome-devtools-mcp gives an AI agent about a
    /// trace, byte for byte: its performance summary (docs/agent.md).
    #[command(subcommand_required = true)]
    Agent(AgentArgs),
    /// Print the data of DevTools' 27 handlers (network, metrics, layout
    /// shifts, interactions, initiators, warnings, scripts, ...) as one
    /// JSON document, or of those named with --handler (docs/data.md).
    Data(DataArgs),
    /// Write a flame chart of the tracks: one self-contained HTML file
    /// (no request leaves it) that draws them as the DevTools Performance
    /// panel does, a lane per thread, with zoom, pan, tooltips and search
    /// (docs/chart.md).
    Chart(ChartArgs),
    /// Write the tracks in a format another tool reads: speedscope,
    /// pprof, Perfetto, folded stacks or d3-flame-graph JSON
    /// (docs/exports.md).
    Convert(ConvertArgs),
    /// Draw a flame graph (SVG) of the calls of every thread, merged by
    /// stack, widths their self and total times; `--bottom-up` draws the
    /// callers of each function as an icicle.
    Flamegraph(FlamegraphArgs),
    /// Write the tables of many traces as Parquet files, one per table
    /// (tracks, calls, samples, threads, diagnostics; with `--tables`,
    /// the page's requests, navigations, layout_shifts, interactions,
    /// user_timings; docs/tables.md),
    /// loading traces in parallel. A trace that cannot be loaded is
    /// reported and counted in `diagnostics`, and the others are still
    /// exported; the exit status is 1 if any failed.
    Export(ExportArgs),
    /// Compare two traces, or two sets of runs, and tell what changed,
    /// with statistics that tell a change from noise (docs/diff.md).
    ///
    /// `tracekit diff BASE NEW`, or `--base A1 A2 ... --new B1 B2 ...`
    /// for several runs per side: per thread role, the change of each
    /// function's and event's self and total time, of the Summary's
    /// categories and of the page metrics, sorted by what moved most;
    /// with several runs,
    /// medians, Hodges-Lehmann intervals, Mann-Whitney p-values
    /// (Benjamini-Hochberg) and Cliff's delta, only significant changes
    /// reported as changes. Exit status 3 when a `--fail-on` threshold is
    /// crossed.
    Diff(DiffArgs),
    /// Serve AI agents: a Model Context Protocol server over stdio whose
    /// tools read trace files under the roots (the call tree, the
    /// network requests, ...), each answer within a budget of tokens
    /// (docs/mcp.md).
    Mcp(McpArgs),
    /// Print a completion script for a shell.
    ///
    /// For bash: `tracekit completions bash >
    /// ~/.local/share/bash-completion/completions/tracekit`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print a man page (roff): tracekit(1), or that of a subcommand.
    ///
    /// Read one with `tracekit man tracks | man -l -`.
    Man {
        /// The subcommand whose page to print.
        #[arg(value_parser = ["tracks", "info", "calltree", "summary", "metrics", "network", "insights", "data", "chart", "convert", "flamegraph", "export", "diff", "completions", "man"])]
        subcommand: Option<String>,
    },
}

/// Parses the command line. Help and version go to stdout (status 0); an
/// error is clap's message with `tracekit: ` for its `error: `, status 2.
pub fn parse() -> Result<Cli, ExitCode> {
    let parsed = Cli::try_parse().and_then(|cli| match &cli.command {
        Command::Tracks(args) => match args.usage_error() {
            Some(message) => {
                use clap::CommandFactory;
                let mut command = Cli::command();
                command.build();
                let tracks = command.find_subcommand_mut("tracks").expect("the tracks subcommand");
                Err(tracks.error(clap::error::ErrorKind::ArgumentConflict, message))
            }
            None => Ok(cli),
        },
        _ => Ok(cli),
    });
    match parsed {
        Ok(cli) => Ok(cli),
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            Err(ExitCode::SUCCESS)
        }
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            Err(ExitCode::from(2))
        }
        Err(e) if e.kind() == clap::error::ErrorKind::InvalidSubcommand && given_a_file_for_a_command(&e) => {
            let file = e
                .get(clap::error::ContextKind::InvalidSubcommand)
                .map(ToString::to_string);
            let file = file.unwrap_or_default();
            eprintln!("tracekit: {file}: a command comes first; to see what the trace holds: tracekit info {file}");
            Err(ExitCode::from(2))
        }
        Err(e) => {
            let text = e.render().to_string();
            let text = text.strip_prefix("error: ").unwrap_or(&text);
            eprint!("tracekit: {text}");
            Err(ExitCode::from(2))
        }
    }
}

/// Whether the word clap took for a subcommand is a file: a user who gave
/// a trace without saying what to do with it.
fn given_a_file_for_a_command(e: &clap::Error) -> bool {
    match e.get(clap::error::ContextKind::InvalidSubcommand) {
        Some(clap::error::ContextValue::String(word)) => std::path::Path::new(word).is_file(),
        _ => false,
    }
}

/// What every subcommand takes from the global options.
pub struct Common {
    pub quiet: bool,
    /// `--threads`, as given.
    pub threads: Option<usize>,
    /// The options every load starts from: `--max-nodes`, `--threads` and
    /// `--devtools`.
    pub options: AnalyzeOptions,
}

/// The stack of each of the pool's threads: the command runs on one of
/// them (see `main::run`), so they get the main thread's usual 8 MiB
/// rather than the 2 MiB of a spawned thread.
const POOL_STACK: usize = 8 << 20;

/// The pool a command runs on for `--threads` (`None`: all cores), or
/// `None` for `--threads 1`: everything on the caller's thread.
pub fn pool(threads: Option<usize>) -> Result<Option<rayon::ThreadPool>, CliError> {
    match threads {
        Some(0 | 1) => Ok(None),
        threads => rayon::ThreadPoolBuilder::new()
            .stack_size(POOL_STACK)
            // Without `--threads`, 0: rayon's default, all cores.
            .num_threads(threads.unwrap_or(0))
            .build()
            .map(Some)
            .map_err(|error| CliError::Threads { threads, error }),
    }
}

impl Common {
    /// The global options, and the pool the command runs on (`None` for
    /// `--threads 1`: everything on this thread).
    pub fn new(cli: &Cli) -> Result<(Common, Option<rayon::ThreadPool>), CliError> {
        let pool = pool(cli.threads)?;
        let parallelism = if pool.is_some() {
            Parallelism::Rayon
        } else {
            Parallelism::Sequential
        };
        let options = AnalyzeOptions::default()
            .with_parallelism(parallelism)
            .with_max_nodes(cli.max_nodes)
            .with_devtools(cli.devtools);
        let common = Common {
            quiet: cli.quiet,
            threads: cli.threads,
            options,
        };
        Ok((common, pool))
    }
}
