//! `tracekit metrics`: the metrics of each navigation of the main frame
//! (FCP, LCP and what it painted, DCL, load, CLS and its worst cluster,
//! INP and its interaction).

use clap::ValueEnum;

use crate::args::{OutputArg, TracesArg};
use crate::cli::Common;
use crate::error::CliError;
use crate::input::load_one;

#[derive(clap::Args)]
pub struct MetricsArgs {
    #[command(flatten)]
    traces: TracesArg,
    #[command(flatten)]
    output: OutputArg,
    /// What to print.
    #[arg(long, value_enum, default_value_t = MetricsFormat::Text)]
    format: MetricsFormat,
}

/// The formats of `metrics --format`.
#[derive(Clone, Copy, ValueEnum)]
enum MetricsFormat {
    /// A block per navigation: each metric, its value and rating.
    Text,
    /// An array of navigations with their metrics, times in ms
    /// (docs/data.md).
    Json,
}

pub fn run(args: MetricsArgs, common: &Common) -> Result<(), CliError> {
    let mut out = args.output.clone().open();
    let headed = matches!(args.format, MetricsFormat::Text);
    args.traces.each(&mut out, headed, |path, out, head| {
        let text = section(&args, path, common)?;
        out.write(&(head.to_owned() + &text))
    })
}

/// The section of one trace, as the format asks.
fn section(args: &MetricsArgs, path: &std::path::Path, common: &Common) -> Result<String, CliError> {
    let options = common.options.with_all_handlers(true);
    let (input, analysis) = load_one(path, &options, common.quiet)?;
    let error = |message: String| CliError::Data {
        file: input.name(),
        message,
    };
    let rows = tracekit::page::navigations(&analysis).map_err(|e| error(e.to_string()))?;
    const NONE: &str = "the trace has no navigation of the main frame (no navigationStart event): no page load metrics";
    if rows.is_empty() {
        if matches!(args.format, MetricsFormat::Text) {
            return Err(error(NONE.to_owned()));
        }
        // JSON gives its empty array, and says why on stderr.
        if !common.quiet {
            eprintln!("tracekit: warning: {}: {NONE}", input.name());
        }
    }
    let text = match args.format {
        MetricsFormat::Text => tracekit::page::navigations_text(&rows),
        MetricsFormat::Json => tracekit::page::navigations_json(&rows) + "\n",
    };
    Ok(text)
}
