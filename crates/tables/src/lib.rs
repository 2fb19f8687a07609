//! tracekit's tables: an [`Analysis`] as Apache Arrow record batches, one
//! table per kind of row ([`Table`]: `tracks`, `calls`, `samples`,
//! `threads`, `diagnostics`, and the page tables `requests`,
//! `navigations`, `layout_shifts`, `interactions`, `user_timings`,
//! `initiators`, `warnings`, `scripts`;
//! `docs/tables.md` is their schema), and their export to Parquet over
//! many traces at once ([`export`]).
//!
//! ```no_run
//! let bytes = std::fs::read("trace.json.gz").unwrap();
//! let analysis = tracekit::analyze_bytes(&bytes, &tracekit::AnalyzeOptions::default()).unwrap();
//! let tracks = tracekit_tables::Table::Tracks.build(&analysis, "trace.json.gz").unwrap();
//! println!("{} track nodes", tracks.num_rows());
//! ```
//!
//! Every table starts with a `trace` column, the name the caller gives the
//! trace (the CLI: the path as given), so that the tables of many traces
//! can be concatenated. The builders read the analysis only; the Arrow
//! arrays own copies of its strings. The page tables need the handlers'
//! data: an analysis made with
//! [`AnalyzeOptions::with_all_handlers`](tracekit::AnalyzeOptions::with_all_handlers)
//! ([`Table::needs_handlers`]; [`load_options`] adds it when a table
//! needs it).

mod build;
pub mod export;
mod page;
mod schema;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use tracekit::{Analysis, LoadError};

/// The tables, in the order `--tables` lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Table {
    /// One row per track node (trace event or JS call) of every thread.
    Tracks,
    /// The Call Tree (top-down) of every thread over the whole trace.
    Calls,
    /// One row per CPU sample of every thread with a profile.
    Samples,
    /// One row per thread with tracks.
    Threads,
    /// What was skipped, repaired or done differently while loading, and
    /// the error of a trace that could not be loaded.
    Diagnostics,
    /// One row per network request (`tracekit network`).
    Requests,
    /// One row per navigation of the main frame, with its metrics
    /// (`tracekit metrics`).
    Navigations,
    /// One row per layout shift, with its cluster.
    LayoutShifts,
    /// One row per interaction (`EventTiming`), with its phases.
    Interactions,
    /// One row per performance mark, measure, console timing and
    /// `console.timeStamp`.
    UserTimings,
    /// One row per event with an initiator: the event, its initiator and
    /// the kind of link.
    Initiators,
    /// One row per warning of an entry (long task, forced reflow, ...).
    Warnings,
    /// One row per script of V8's source rundown, with its source map.
    Scripts,
    /// One row per insight of each insight set (DevTools' verdicts).
    Insights,
}

impl Table {
    /// Every table.
    pub const ALL: [Table; 14] = [
        Table::Tracks,
        Table::Calls,
        Table::Samples,
        Table::Threads,
        Table::Diagnostics,
        Table::Requests,
        Table::Navigations,
        Table::LayoutShifts,
        Table::Interactions,
        Table::UserTimings,
        Table::Initiators,
        Table::Warnings,
        Table::Scripts,
        Table::Insights,
    ];

    /// The tables `tracekit export` writes by default: those of the
    /// tracks, not the page tables (which cost the page handlers' run).
    pub const DEFAULT: [Table; 5] = [
        Table::Tracks,
        Table::Calls,
        Table::Samples,
        Table::Threads,
        Table::Diagnostics,
    ];

    /// The page tables: made from the handlers' data, which the analysis
    /// must have gathered (`AnalyzeOptions::with_all_handlers(true)`).
    pub const PAGE: [Table; 9] = [
        Table::Requests,
        Table::Navigations,
        Table::LayoutShifts,
        Table::Interactions,
        Table::UserTimings,
        Table::Initiators,
        Table::Warnings,
        Table::Scripts,
        Table::Insights,
    ];

    /// Whether the table is made from the handlers' data (a page table).
    pub fn needs_handlers(self) -> bool {
        Table::PAGE.contains(&self)
    }

    /// The table's name: its Parquet file is `NAME.parquet`.
    pub fn name(self) -> &'static str {
        match self {
            Table::Tracks => "tracks",
            Table::Calls => "calls",
            Table::Samples => "samples",
            Table::Threads => "threads",
            Table::Diagnostics => "diagnostics",
            Table::Requests => "requests",
            Table::Navigations => "navigations",
            Table::LayoutShifts => "layout_shifts",
            Table::Interactions => "interactions",
            Table::UserTimings => "user_timings",
            Table::Initiators => "initiators",
            Table::Warnings => "warnings",
            Table::Scripts => "scripts",
            Table::Insights => "insights",
        }
    }

    /// The table named `name`.
    pub fn from_name(name: &str) -> Option<Table> {
        Table::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The table's Arrow schema (`docs/tables.md`).
    pub fn schema(self) -> SchemaRef {
        schema::of(self)
    }

    /// The rows of one loaded trace, named `trace` in the `trace` column.
    /// An error (reason `table too large`) when a column would hold more
    /// than 2 GiB of text, what one Arrow string array can index. A page
    /// table of a profile (no page) has no rows; of a Chrome trace loaded
    /// without the page handlers, it is an error (reason `page data not
    /// gathered`).
    pub fn build(self, analysis: &Analysis, trace: &str) -> Result<RecordBatch, TraceError> {
        self.build_within(analysis, trace, build::TEXT_LIMIT)
    }

    /// [`Table::build`], with at most `limit` bytes of text per column.
    pub(crate) fn build_within(
        self,
        analysis: &Analysis,
        trace: &str,
        limit: usize,
    ) -> Result<RecordBatch, TraceError> {
        let built = match self {
            Table::Tracks => build::tracks(analysis, trace, limit),
            Table::Calls => build::calls(analysis, trace, limit),
            Table::Samples => build::samples(analysis, trace, limit),
            Table::Threads => build::threads_table(analysis, trace, limit),
            Table::Diagnostics => build::diagnostics(analysis, trace, limit),
            Table::Requests => page::requests(analysis, trace, limit),
            Table::Navigations => page::navigations(analysis, trace, limit),
            Table::LayoutShifts => page::layout_shifts(analysis, trace, limit),
            Table::Interactions => page::interactions(analysis, trace, limit),
            Table::UserTimings => page::user_timings(analysis, trace, limit),
            Table::Initiators => page::initiators(analysis, trace, limit),
            Table::Warnings => page::warnings(analysis, trace, limit),
            Table::Scripts => page::scripts(analysis, trace, limit),
            Table::Insights => page::insights(analysis, trace, limit),
        };
        let error = match built {
            Ok(batch) => return Ok(batch),
            // A page table of a profile: no rows.
            Err(build::Unbuilt::NoPage) => return Ok(RecordBatch::new_empty(self.schema())),
            Err(build::Unbuilt::TooLarge(column)) => TraceError::other(
                trace,
                "table too large",
                format!(
                    "the {self} table's {column} column would hold more than {limit} bytes of text \
                     (an Arrow string array's limit)"
                ),
            ),
            Err(build::Unbuilt::Views(e)) => TraceError::other(trace, "views too large", e.to_string()),
            Err(build::Unbuilt::NotGathered) => TraceError::other(
                trace,
                "page data not gathered",
                format!("the {self} table needs the page handlers' data: load the trace with all handlers"),
            ),
        };
        Err(error)
    }

    /// The rows of a trace that could not be loaded: none, except for
    /// [`Table::Diagnostics`], where the error is one row (see
    /// [`error_row`]).
    pub fn build_failed(self, trace: &str, error: &TraceError) -> RecordBatch {
        match self {
            Table::Diagnostics => error_row(trace, error),
            _ => RecordBatch::new_empty(self.schema()),
        }
    }
}

impl std::fmt::Display for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a trace gave no tables: it could not be read, or not loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError {
    /// The trace's name, as in the `trace` column.
    pub trace: String,
    /// What kind of failure, in words (`diagnostics.reason`): `load error:
    /// io`, `load error: not a trace`, ...
    pub reason: String,
    /// What went wrong and where, one line (`byte 5312: ...`), without the
    /// trace's name.
    pub message: String,
    /// The load error's kind, when loading failed (`None` for reading).
    pub kind: Option<tracekit::ErrorKind>,
}

impl TraceError {
    /// The error of reading `trace` (opening the file, reading it).
    pub fn io(trace: &str, e: &std::io::Error) -> TraceError {
        TraceError {
            trace: trace.to_owned(),
            reason: "load error: io".to_owned(),
            message: e.to_string(),
            kind: None,
        }
    }

    /// The error of loading `trace`.
    pub fn load(trace: &str, e: &LoadError) -> TraceError {
        use tracekit::ErrorKind;
        let kind = match e.kind() {
            ErrorKind::Io => "io",
            ErrorKind::Gzip => "gzip",
            ErrorKind::Encoding => "encoding",
            ErrorKind::Empty => "empty",
            ErrorKind::NotATrace => "not a trace",
            ErrorKind::Unreadable => "unreadable",
            ErrorKind::TooManyNodes => "too many nodes",
            ErrorKind::TooManyStrings => "too many strings",
            _ => "other",
        };
        TraceError {
            trace: trace.to_owned(),
            reason: format!("load error: {kind}"),
            message: e.to_string(),
            kind: Some(e.kind()),
        }
    }

    /// An error of another kind (`reason`), as a `message`.
    pub fn other(trace: &str, reason: &str, message: impl Into<String>) -> TraceError {
        TraceError {
            trace: trace.to_owned(),
            reason: reason.to_owned(),
            message: message.into(),
            kind: None,
        }
    }
}

/// `TRACE: MESSAGE`: the line the `tracekit` command prints after its
/// `tracekit: ` prefix.
impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.trace, self.message)
    }
}

impl std::error::Error for TraceError {}

/// The `diagnostics` row of a trace that could not be loaded: kind
/// `error`, its reason, count 1, and the one-line message (`TRACE:
/// WHAT`) as the example.
pub fn error_row(trace: &str, error: &TraceError) -> RecordBatch {
    build::error_row(trace, error)
}

/// `options`, with the page handlers when one of `tables` needs them
/// ([`Table::needs_handlers`]): the options to load a trace for those
/// tables with, so that the other tables cost no more than they did.
pub fn load_options(options: &tracekit::AnalyzeOptions, tables: &[Table]) -> tracekit::AnalyzeOptions {
    if tables.iter().any(|t| t.needs_handlers()) {
        options.with_all_handlers(true)
    } else {
        *options
    }
}

/// Loads the trace file at `path` (gzipped or not), read in pieces.
pub fn load_file(
    path: &std::path::Path,
    name: &str,
    options: &tracekit::AnalyzeOptions,
) -> Result<Analysis, TraceError> {
    let mut file = std::fs::File::open(path).map_err(|e| TraceError::io(name, &e))?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(TraceError::other(name, "load error: io", "is a directory"));
    }
    let mut loader = tracekit::Loader::new(*options);
    loader
        .read_from(&mut file, |_| {})
        .map_err(|e| TraceError::load(name, &e))?;
    loader.finish().map_err(|e| TraceError::load(name, &e))
}

/// Loads a trace held in memory.
pub fn load_bytes(bytes: &[u8], name: &str, options: &tracekit::AnalyzeOptions) -> Result<Analysis, TraceError> {
    tracekit::analyze_bytes(bytes, options).map_err(|e| TraceError::load(name, &e))
}

#[cfg(test)]
mod tests;
