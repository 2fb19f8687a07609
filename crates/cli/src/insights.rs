//! `tracekit insights`: DevTools' insights of a trace, a set per
//! navigation, as the Performance panel's Insights sidebar gives them.

use clap::ValueEnum;

use crate::args::{OutputArg, TraceArg};
use crate::cli::Common;
use crate::error::CliError;
use crate::input::load_one;

#[derive(clap::Args)]
pub struct InsightsArgs {
    #[command(flatten)]
    trace: TraceArg,
    #[command(flatten)]
    output: OutputArg,
    /// What to print.
    #[arg(long, value_enum, default_value_t = InsightsFormat::Text)]
    format: InsightsFormat,
}

/// The formats of `insights --format`.
#[derive(Clone, Copy, ValueEnum)]
enum InsightsFormat {
    /// A block per set: the failing insights first, each with what it
    /// found, its estimated savings and its events, then those that passed.
    Text,
    /// The insight sets of `data --format json`: every field, numbers as
    /// they are (docs/insights.md).
    Json,
    /// The insight sets of `data --format conformance`, the part of the
    /// dump compared with DevTools'.
    Conformance,
}

pub fn run(args: InsightsArgs, common: &Common) -> Result<(), CliError> {
    let options = common.options.with_all_handlers(true);
    let (input, analysis) = load_one(args.trace.path(), &options, common.quiet)?;
    let error = |message: String| CliError::Data {
        file: input.name(),
        message,
    };
    let sets = tracekit::insights::compute_with(&analysis, options.parallelism).map_err(|e| error(e.to_string()))?;
    const NONE: &str = "no insight set: DevTools makes none for this trace (no URL for its main frame)";
    if sets.sets.is_empty() {
        if matches!(args.format, InsightsFormat::Text) {
            return Err(error(NONE.to_owned()));
        }
        // JSON gives its document with no set, and says why on stderr.
        if !common.quiet {
            eprintln!("tracekit: warning: {}: {NONE}", input.name());
        }
    }
    let text = match args.format {
        InsightsFormat::Text => tracekit::insights::sets_text(&sets, &analysis),
        InsightsFormat::Json | InsightsFormat::Conformance => {
            let conformance = matches!(args.format, InsightsFormat::Conformance);
            tracekit::insights::sets_document(&analysis, &sets, conformance).map_err(|e| error(e.to_string()))? + "\n"
        }
    };
    args.output.open().write(&text)
}
