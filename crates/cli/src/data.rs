//! `tracekit data`: the data of DevTools' handlers (navigations, network
//! requests, metrics, layout shifts, interactions, user timings, workers,
//! ...) as one JSON document.

use clap::ValueEnum;

use crate::args::{OutputArg, TraceArg};
use crate::cli::Common;
use crate::error::CliError;
use crate::input::load_one;

#[derive(clap::Args)]
pub struct DataArgs {
    #[command(flatten)]
    trace: TraceArg,
    #[command(flatten)]
    output: OutputArg,
    /// Only this handler's data, by its DevTools name (Workers, ...);
    /// may be given several times. Default: every handler.
    #[arg(long = "handler", value_name = "NAME", value_parser = handler_name)]
    handlers: Vec<String>,
    /// What to print.
    #[arg(long, value_enum, default_value_t = DataFormat::Json)]
    format: DataFormat,
}

/// The formats of `data --format`.
#[derive(Clone, Copy, ValueEnum)]
enum DataFormat {
    /// The data conformance dump: each handler's data as DevTools holds
    /// it, input events as `#INDEX`, the events the handlers made under
    /// `synthetic` (docs/data.md); compared with the DevTools engine's.
    Conformance,
    /// The same document with every number and string as it is (not
    /// rounded to 0.001, screenshots not hashed), for programs.
    Json,
}

/// A handler name the dump knows, or clap's error listing them.
fn handler_name(name: &str) -> Result<String, String> {
    if tracekit::data::HANDLERS.contains(&name) {
        Ok(name.to_owned())
    } else {
        Err(format!("handlers: {}", tracekit::data::HANDLERS.join(", ")))
    }
}

pub fn run(args: DataArgs, common: &Common) -> Result<(), CliError> {
    let options = common.options.with_all_handlers(true);
    let (input, analysis) = load_one(args.trace.path(), &options, common.quiet)?;
    let only: Vec<&str> = args.handlers.iter().map(String::as_str).collect();
    let text = match args.format {
        DataFormat::Conformance => tracekit::insights::data_conformance(&analysis, &only),
        DataFormat::Json => tracekit::insights::data_json(&analysis, &only),
    }
    .map_err(|error| CliError::Data {
        file: input.name(),
        message: error.to_string(),
    })?;
    args.output.open().write(&(text + "\n"))
}
