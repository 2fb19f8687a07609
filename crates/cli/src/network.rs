//! `tracekit network`: the network requests of a trace, as a table or
//! JSON.

use clap::ValueEnum;

use crate::args::{OutputArg, TracesArg};
use crate::cli::Common;
use crate::error::CliError;
use crate::input::load_one;

#[derive(clap::Args)]
pub struct NetworkArgs {
    #[command(flatten)]
    traces: TracesArg,
    #[command(flatten)]
    output: OutputArg,
    /// What to print.
    #[arg(long, value_enum, default_value_t = NetworkFormat::Text)]
    format: NetworkFormat,
}

/// The formats of `network --format`.
#[derive(Clone, Copy, ValueEnum)]
enum NetworkFormat {
    /// A table: start, duration and phases (ms), size, status, priority,
    /// render blocking, initiator, URL.
    Text,
    /// An array of requests, every field, times in ms (docs/data.md).
    Json,
}

pub fn run(args: NetworkArgs, common: &Common) -> Result<(), CliError> {
    let mut out = args.output.clone().open();
    let headed = matches!(args.format, NetworkFormat::Text);
    args.traces.each(&mut out, headed, |path, out, head| {
        let text = section(&args, path, common)?;
        out.write(&(head.to_owned() + &text))
    })
}

/// The section of one trace, as the format asks.
fn section(args: &NetworkArgs, path: &std::path::Path, common: &Common) -> Result<String, CliError> {
    let options = common.options.with_all_handlers(true);
    let (input, analysis) = load_one(path, &options, common.quiet)?;
    let rows = tracekit::page::requests(&analysis).map_err(|error| CliError::Data {
        file: input.name(),
        message: error.to_string(),
    })?;
    const NONE: &str = "the trace has no network requests (no ResourceSendRequest event)";
    if rows.is_empty() {
        if matches!(args.format, NetworkFormat::Text) {
            return Err(CliError::Data {
                file: input.name(),
                message: NONE.to_owned(),
            });
        }
        // JSON gives its empty array, and says why on stderr.
        if !common.quiet {
            eprintln!("tracekit: warning: {}: {NONE}", input.name());
        }
    }
    let text = match args.format {
        NetworkFormat::Text => tracekit::page::requests_text(&rows),
        NetworkFormat::Json => tracekit::page::requests_json(&rows) + "\n",
    };
    Ok(text)
}
