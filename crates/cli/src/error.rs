//! Why a command fails, and the one line each failure prints.
//!
//! Every [`CliError`] but [`CliError::AlreadyReported`] is printed once, by
//! `main`, as `tracekit: {error}`, and the status is 1. The messages name
//! the input first (`FILE: WHAT`) when one is concerned.

use std::fmt;
use std::io;
use std::path::PathBuf;

use tracekit::query::QueryError;
use tracekit::views::ViewError;

use crate::input::InputError;

/// Why a command failed.
#[derive(Debug)]
pub enum CliError {
    /// The worker threads could not be started (`threads`: `--threads`, as
    /// given).
    Threads {
        threads: Option<usize>,
        error: rayon::ThreadPoolBuildError,
    },
    /// An input could not be read or loaded. `file` is the input as
    /// messages name it ([`crate::input::Input::name`]), as in the
    /// variants below.
    Load { file: String, error: InputError },
    /// `--thread` or `--window` does not fit the trace, or a thread kept
    /// has more nodes than `--max-nodes`.
    Query { file: String, error: QueryError },
    /// The Call Tree or Bottom-Up could not be built.
    View { file: String, error: ViewError },
    /// An aggregated view of a trace without timed events; `what` is what
    /// the command would do with the time ("summarize").

    /// The views of a window without time: an empty window, or a trace
    /// without timed events (the library's message).
    NoWindowTime { file: String, message: String },
    /// The handlers' data could not be written (the library's message).
    Data { file: String, message: String },
    /// The flame graph would have no frame.
    NothingToDraw { file: String },
    /// inferno could not draw the flame graph.
    Draw { file: String, error: io::Error },
    /// A binary format (`convert --to`) would be written to a terminal.
    BinaryToTerminal { format: String },
    /// The chart (HTML) would be written to a terminal.
    ChartToTerminal,
    /// The `-o` file could not be created.
    CreateOutput { path: PathBuf, error: io::Error },
    /// The output could not be written (`path`: `None` for standard
    /// output).
    WriteOutput { path: Option<PathBuf>, error: io::Error },
    /// The tables could not be exported (the library's message).
    Export(String),
    /// Two sides that cannot be compared (`diff`; the library's message).
    Diff(String),
    /// The MCP server cannot start or serve (`mcp`).
    Mcp(String),
    /// `diff --fail-on`: the thresholds crossed, with the changes that
    /// crossed them. Exit status 3.
    ThresholdCrossed(String),
    /// `man` of a subcommand that does not exist.
    NoSubcommand(String),
    /// The man page could not be rendered.
    Man(io::Error),
    /// A `--source-maps` file or directory could not be read.
    SourceMaps { path: PathBuf, error: io::Error },
    /// The errors were printed as they came (`info`, `export`): the status
    /// is 1, with nothing more to say.
    AlreadyReported,
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Threads {
                threads: Some(n),
                error,
            } => write!(f, "starting {n} threads: {error}"),
            CliError::Threads { threads: None, error } => write!(f, "starting the worker threads: {error}"),
            CliError::Load { file, error } => write!(f, "{file}: {error}"),
            CliError::Query { file, error } => {
                write!(f, "{file}: ")?;
                query_error(f, error)
            }
            CliError::View { file, error } => match error {
                ViewError::TooManyNodes { .. } => write!(
                    f,
                    "{file}: {error}; build fewer levels with --max-depth, or raise --max-nodes"
                ),
                // The analysis was loaded with what the grouping reads: not met.
                error => write!(f, "{file}: {error}"),
            },
            CliError::NoWindowTime { file, message } => write!(f, "{file}: {message}"),
            CliError::Data { file, message } => write!(f, "{file}: {message}"),
            CliError::NothingToDraw { file } => write!(
                f,
                "{file}: nothing to draw: no call has self time in the threads and window chosen"
            ),
            CliError::Draw { file, error } => write!(f, "{file}: drawing the flame graph: {error}"),
            CliError::BinaryToTerminal { format } => {
                write!(f, "the {format} format is binary: give -o FILE, or redirect the output")
            }
            CliError::ChartToTerminal => {
                f.write_str("the chart is an HTML file: give -o FILE, or redirect standard output")
            }
            CliError::CreateOutput { path, error } => {
                write!(f, "{}: cannot create the output file: {error}", path.display())
            }
            CliError::WriteOutput {
                path: Some(path),
                error,
            } => {
                write!(f, "{}: writing the output: {error}", path.display())
            }
            CliError::WriteOutput { path: None, error } => write!(f, "writing the output: {error}"),
            CliError::Export(message) => f.write_str(message),
            CliError::Diff(message) | CliError::Mcp(message) => f.write_str(message),
            CliError::ThresholdCrossed(what) => write!(f, "threshold crossed: {what}"),
            CliError::NoSubcommand(name) => write!(f, "no subcommand {name}"),
            CliError::Man(error) => write!(f, "writing the man page: {error}"),
            CliError::SourceMaps { path, error } => {
                write!(f, "{}: cannot read the source maps: {error}", path.display())
            }
            CliError::AlreadyReported => f.write_str("the errors above"),
        }
    }
}

/// The message of a query that does not fit the trace, with the option
/// that would make it fit.
fn query_error(f: &mut fmt::Formatter<'_>, error: &QueryError) -> fmt::Result {
    match error {
        QueryError::NoThread { query, not_built, .. } if !not_built.is_empty() => write!(
            f,
            "no thread matches '{query}' in the processes DevTools shows; add --all-processes for {}",
            tracekit::query::thread_list(not_built)
        ),
        QueryError::OverNodeBudget { .. } => write!(
            f,
            "{error}; choose other threads with --thread, or raise the limit with --max-nodes (about 100 bytes of memory each)"
        ),
        error => write!(f, "{error}"),
    }
}
