//! `tracekit summary`: the time per category of every thread, as the
//! DevTools Performance panel's Summary tab shows it.

use clap::ValueEnum;

use crate::args::{help, OutputArg, ProcessesArg, QueryArgs, TraceArg};
use crate::cli::Common;
use crate::error::CliError;
use crate::input::load_one;

#[derive(clap::Args)]
#[command(mut_args(help("window", WINDOW_HELP)))]
pub struct SummaryArgs {
    #[command(flatten)]
    trace: TraceArg,
    #[command(flatten)]
    output: OutputArg,
    /// What to print.
    #[arg(long, value_enum, default_value_t = SummaryFormat::Text)]
    format: SummaryFormat,
    #[command(flatten)]
    query: QueryArgs,
    #[command(flatten)]
    processes: ProcessesArg,
}

/// `--window` of `summary`.
const WINDOW_HELP: &str = "The selected range, in ms from the start of the trace: START..END, \
     START.. or ..END (default: the whole trace). It must not be empty";

/// The formats of `summary --format`.
#[derive(Clone, Copy, ValueEnum)]
enum SummaryFormat {
    /// A table per thread: each category's ms and percent of the total,
    /// largest first, then idle and the total.
    Text,
    /// The same as JSON, numbers unrounded (docs/views.md).
    Json,
    /// The dump compared with the DevTools engine's (xtask/js/summary.mjs).
    Conformance,
}

pub fn run(args: SummaryArgs, common: &Common) -> Result<(), CliError> {
    let options = args.processes.options(&common.options);
    let (input, analysis) = load_one(args.trace.path(), &options, common.quiet)?;
    let query = args
        .query
        .selection()
        .aggregated_query(&input, &analysis, "summarize")?;
    // The JSON forms are one line each; the text ends its own lines.
    let text = match args.format {
        SummaryFormat::Text => tracekit::views::summary::write_text(&analysis, &query),
        SummaryFormat::Json => tracekit::views::summary::write_json(&analysis, &query) + "\n",
        SummaryFormat::Conformance => tracekit::views::summary::summary_conformance(&analysis, &query) + "\n",
    };
    args.output.open().write(&text)
}
