//! The `tracekit` command: reads a file or standard input in pieces, hands
//! its bytes to the library, prints the tracks. All I/O of tracekit is here.
//!
//! Messages: an error is one line on stderr, `tracekit: FILE: WHAT` (or
//! `tracekit: WHAT` when no file is concerned), a warning `tracekit:
//! warning: FILE: WHAT`, each once. Exit status: 0 on success, 1 when an
//! input cannot be read or used or the output cannot be written, 2 when
//! the command line is wrong: clap's message with `tracekit: ` for its
//! `error: `, and clap's status. (ripgrep gives 2 for every error, as its
//! 1 means "no match"; tracekit has no such outcome.)
//!
//! The modules: `cli` (the command line and the global options), `args`
//! (the options several subcommands share, and their parsers), `query`
//! (the selection of `--thread`, `--window`... as the library's query),
//! `input` (reading and loading), `output` (`-o`), `error` (the messages),
//! `timings` (`--timings`), and a module per subcommand.

use std::process::ExitCode;

mod agent;
mod args;
mod calltree;
mod chart;
mod cli;
mod convert;
mod data;
mod diff;
mod error;
mod export;
mod flamegraph;
mod info;
mod input;
mod insights;
mod man;
mod mcp;
mod metrics;
mod network;
mod output;
mod query;
mod sourcemaps;
mod summary;
mod timings;
mod tracks;

use cli::{Cli, Command, Common};
use error::CliError;

/// jemalloc for the command, with the settings of `.cargo/config.toml`:
/// glibc's allocator kept a big trace's freed loading buffers in the
/// process while its tracks were built (2 GB trace: peak RSS 1.33 GB
/// against about 0.9 GB), and the bench trace loads a tenth faster. The library
/// leaves the allocator to its users.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tracekit_alloc::Jemalloc = tracekit_alloc::Jemalloc;

fn main() -> ExitCode {
    // The engine gives jemalloc's freed pages back between its phases
    // (tracekit_alloc): main runs once, so this is the one registration.
    #[cfg(not(target_env = "msvc"))]
    let _ = tracekit::memory::set_release(tracekit_alloc::release_freed_pages);
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let report = cli.timings.then(|| {
        use tracing_subscriber::layer::SubscriberExt;
        let (layer, report) = timings::layer();
        let subscriber = tracing_subscriber::registry().with(layer);
        // Nothing else sets one: this cannot fail.
        let _ = tracing::subscriber::set_global_default(subscriber);
        report
    });
    let result = run(cli);
    if let Some(report) = report {
        eprint!("{}", report.table());
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::AlreadyReported) => ExitCode::FAILURE,
        Err(error @ CliError::ThresholdCrossed(_)) => {
            eprintln!("tracekit: {error}");
            ExitCode::from(3)
        }
        Err(error) => {
            eprintln!("tracekit: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the command, on one of the pool's threads when there is a pool.
/// The command's own work (reading the input ahead while the pool decodes
/// a block, writing the output while the pool formats the next part) then
/// takes a pool thread while it runs and lends it to the pool while it
/// waits. From a thread of its own beside the pool, it was one thread
/// more than the cores: on two cores, the reading thread took a core from
/// a worker that had work left, and the other core, whose worker had
/// none, stayed idle for 1 to 3 ms at each block until the kernel moved
/// the waiting worker over (`perf sched`: 22 to 52 core-ms idle per run
/// on the bench trace, against 15). Bench trace, `--threads 2`, 15 runs
/// alternating: loading alone 222 -> 203 ms.
fn run(cli: Cli) -> Result<(), CliError> {
    let (common, pool) = Common::new(&cli)?;
    on_pool(pool.as_ref(), || dispatch(cli.command, &common))
}

/// Runs `work` on one of `pool`'s threads, or on this thread without one.
fn on_pool<R: Send>(pool: Option<&rayon::ThreadPool>, work: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// Runs the subcommand.
fn dispatch(command: Command, common: &Common) -> Result<(), CliError> {
    match command {
        Command::Tracks(args) => tracks::run(args, common),
        Command::Info(args) => info::run(args, common),
        Command::Calltree(args) => calltree::run(args, common),
        Command::Summary(args) => summary::run(args, common),
        Command::Data(args) => data::run(args, common),
        Command::Network(args) => network::run(args, common),
        Command::Metrics(args) => metrics::run(args, common),
        Command::Insights(args) => insights::run(args, common),
        Command::Agent(args) => agent::run(args, common),
        Command::Chart(args) => chart::run(args, common),
        Command::Convert(args) => convert::run(args, common),
        Command::Flamegraph(args) => flamegraph::run(args, common),
        Command::Export(args) => export::run(args, common),
        Command::Diff(args) => diff::run(args, common),
        Command::Mcp(args) => mcp::run(args),
        Command::Completions { shell } => man::completions(shell),
        Command::Man { subcommand } => man::man(subcommand),
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};
    use tracekit::Parallelism;

    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    /// The help of a shared option, as a subcommand words it.
    fn help_of(subcommand: &str, option: &str) -> String {
        let command = Cli::command();
        let sub = command.find_subcommand(subcommand).expect(subcommand);
        let arg = sub.get_arguments().find(|a| a.get_id() == option).expect(option);
        arg.get_help().expect("a help").to_string()
    }

    /// `-o` and `--window` are declared once, and worded by the commands
    /// that do something of their own with them.
    #[test]
    fn shared_options_keep_the_wording_of_each_command() {
        let plain_output = "Write the output to this file instead of standard output";
        for sub in ["tracks", "info", "calltree", "summary"] {
            assert_eq!(help_of(sub, "output"), plain_output, "{sub}");
        }
        assert!(help_of("convert", "output").ends_with("(binary formats are not written to a terminal)"));
        assert!(help_of("flamegraph", "output").starts_with("Write the SVG (or the folded stacks)"));
        assert!(help_of("chart", "output").ends_with("which must not be a terminal)"));
        assert!(help_of("tracks", "window").starts_with("Only nodes overlapping this window"));
        assert!(help_of("calltree", "window").ends_with("Times are clipped to it"));
        assert!(help_of("summary", "window").ends_with("It must not be empty"));
        for sub in ["convert", "flamegraph"] {
            assert_eq!(help_of(sub, "window"), args::CLIPPED_WINDOW_HELP, "{sub}");
        }
        assert!(help_of("chart", "window").ends_with("the chart opens on it"));
    }

    /// The shared options mean the same and are accepted by every command
    /// they apply to; the commands that print a section per trace take
    /// several, as `info` does.
    #[test]
    fn every_command_takes_the_shared_options() {
        let nodes = [
            "--thread",
            "1:2",
            "--window",
            "1.2s..2s",
            "--max-depth",
            "2",
            "--min-duration",
            "5ms",
        ];
        let all = [&["--all-processes", "-o", "out"][..], &nodes[..]].concat();
        let window = [
            "--all-processes",
            "-o",
            "out",
            "--thread",
            "main",
            "--window",
            "1200ms..",
        ];
        for (command, options, several) in [
            ("tracks", &all[..], true),
            ("calltree", &all[..], true),
            ("chart", &all[..], false),
            ("convert", &all[..], false),
            ("flamegraph", &all[..], false),
            ("summary", &window[..], true),
            ("metrics", &["-o", "out"][..], true),
            ("network", &["-o", "out"][..], true),
        ] {
            let mut args = vec!["tracekit", command, "a.json"];
            if several {
                args.push("b.json");
            }
            args.extend(options);
            if command == "convert" {
                args.extend(["--to", "folded"]);
            }
            if let Err(e) = Cli::try_parse_from(&args) {
                panic!("{args:?}: {e}");
            }
        }
    }

    /// `--threads N` makes a pool of N threads, which the command runs on;
    /// `--threads 1`, none: everything on the calling thread.
    #[test]
    fn the_command_runs_on_the_pool_it_loads_with() {
        let cli = Cli::try_parse_from(["tracekit", "--threads", "3", "info", "t.json"]).unwrap();
        let (common, pool) = Common::new(&cli).unwrap();
        assert!(matches!(common.options.parallelism, Parallelism::Rayon));
        let pool = pool.expect("a pool for --threads 3");
        assert_eq!(on_pool(Some(&pool), rayon::current_num_threads), 3);
        assert!(on_pool(Some(&pool), rayon::current_thread_index).is_some());

        let cli = Cli::try_parse_from(["tracekit", "--threads", "1", "info", "t.json"]).unwrap();
        let (common, pool) = Common::new(&cli).unwrap();
        assert!(matches!(common.options.parallelism, Parallelism::Sequential));
        assert!(pool.is_none());
        assert!(on_pool(None, rayon::current_thread_index).is_none());
    }
}
