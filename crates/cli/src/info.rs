//! `tracekit info`: what each trace holds, and what was skipped while
//! loading it.

use std::path::PathBuf;

use crate::args::OutputArg;
use crate::cli::Common;
use crate::error::CliError;
use crate::input::{load, Input};

#[derive(clap::Args)]
pub struct InfoArgs {
    /// Chrome traces, .cpuprofile or JS Self-Profiling traces (gzipped or
    /// not); `-` reads standard input.
    #[arg(required = true, num_args = 1..)]
    traces: Vec<PathBuf>,
    #[command(flatten)]
    output: OutputArg,
}

/// Prints a section per input; an input that fails gets its error on
/// stderr, the others are still printed, and the status is 1.
pub fn run(args: InfoArgs, common: &Common) -> Result<(), CliError> {
    let mut out = args.output.open();
    let mut failed = false;
    let mut first = true;
    for path in &args.traces {
        match section(&Input::new(path), common) {
            Ok(text) => {
                out.write(if first { "" } else { "\n" })?;
                out.write(&text)?;
                first = false;
            }
            Err(e) => {
                eprintln!("tracekit: {e}");
                failed = true;
            }
        }
    }
    if failed {
        Err(CliError::AlreadyReported)
    } else {
        Ok(())
    }
}

/// `NAME: N bytes, gzip` and the summary of one input.
fn section(input: &Input, common: &Common) -> Result<String, CliError> {
    let options = common.options.with_all_processes(true).with_all_handlers(true);
    let loaded = load(input, &options, common.quiet).map_err(|error| CliError::Load {
        file: input.name(),
        error,
    })?;
    Ok(format!(
        "file: {} ({} bytes{})\n{}",
        input.name(),
        loaded.bytes,
        if loaded.gzip { ", gzip" } else { "" },
        tracekit::output::info(&loaded.analysis)
    ))
}
