//! `tracekit summary`: the time per category of every thread, as the
//! DevTools Performance panel's Summary tab shows it.

use clap::ValueEnum;

use crate::args::{help, OutputArg, ProcessesArg, QueryArgs, TracesArg};
use crate::cli::Common;
use crate::error::CliError;
use crate::input::load_one;

#[derive(clap::Args)]
#[command(mut_args(help("window", WINDOW_HELP)))]
pub struct SummaryArgs {
    #[command(flatten)]
    traces: TracesArg,
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
    let mut out = args.output.clone().open();
    let headed = matches!(args.format, SummaryFormat::Text);
    args.traces.each(&mut out, headed, |path, out, head| {
        let text = section(&args, path, common)?;
        out.write(&(head.to_owned() + &text))
    })
}

/// The Summary of one trace, as the format asks.
fn section(args: &SummaryArgs, path: &std::path::Path, common: &Common) -> Result<String, CliError> {
    let options = args.processes.options(&common.options);
    let (input, analysis) = load_one(path, &options, common.quiet)?;
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
    Ok(text)
}
