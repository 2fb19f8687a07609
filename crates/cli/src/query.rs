//! What the command line selects of a trace (`--thread`, `--window`,
//! `--max-depth`, `--min-duration`, whichever a command has), as the
//! library's one [`Query`], checked against the trace with the command's
//! words for its errors.

use tracekit::query::{Query, QueryError, Window};
use tracekit::{Analysis, Millis};

use crate::args::{DepthArg, MinDurationArg, NodeArgs, ThreadArg, WindowArg};
use crate::error::CliError;
use crate::input::Input;

/// The selection of a command, as parsed (each value already checked by
/// its parser, with the library's messages).
pub struct Selection {
    thread: Option<String>,
    window: Option<Window>,
    levels: Option<u32>,
    min_duration: Option<Millis>,
}

impl Selection {
    /// The threads and window chosen.
    pub fn new(thread: ThreadArg, window: WindowArg) -> Selection {
        Selection {
            thread: thread.thread,
            window: window.window,
            levels: None,
            min_duration: None,
        }
    }

    /// With the levels chosen.
    pub fn with_depth(self, depth: DepthArg) -> Selection {
        Selection {
            levels: depth.max_depth,
            ..self
        }
    }

    /// With the shortest duration chosen.
    pub fn with_min_duration(self, min_duration: MinDurationArg) -> Selection {
        Selection {
            min_duration: min_duration.min_duration,
            ..self
        }
    }

    /// With the levels and shortest duration chosen.
    pub fn with_nodes(self, nodes: NodeArgs) -> Selection {
        self.with_depth(nodes.depth).with_min_duration(nodes.min_duration)
    }

    /// `--window` as given.
    pub fn window(&self) -> Option<Window> {
        self.window
    }

    /// `--thread` as given.
    pub fn thread(&self) -> Option<&str> {
        self.thread.as_deref()
    }

    /// The library's query, checked against the trace: an error names the
    /// input and says what would fit.
    pub fn query(&self, input: &Input, analysis: &Analysis) -> Result<Query, CliError> {
        let at_input = |error: QueryError| CliError::Query {
            file: input.name(),
            error,
        };
        let query =
            Query::from_parts(self.thread.clone(), self.window, self.levels, self.min_duration).map_err(at_input)?;
        query.validate(analysis).map_err(at_input)?;
        Ok(query)
    }

    /// The query of the aggregated views: checked, and its window must
    /// hold time for the views (`what` they would do with it: "aggregate",
    /// "summarize").
    pub fn aggregated_query(&self, input: &Input, analysis: &Analysis, what: &str) -> Result<Query, CliError> {
        let query = self.query(input, analysis)?;
        tracekit::views::Window::with_time(analysis, &query, what).map_err(|message| CliError::NoWindowTime {
            file: input.name(),
            message,
        })?;
        Ok(query)
    }
}

/// Says on stderr (unless `quiet`) which threads the node filters
/// (`--window`, `--max-depth`, `--min-duration`) left with nothing to
/// show, so that none vanishes without a word, in one line: `tracekit:
/// note: FILE: --min-duration 50 leaves nothing of thread 7 CrRendererMain
/// (pid 3)`.
pub fn report_hidden(input: &Input, analysis: &Analysis, query: &Query, quiet: bool) {
    if quiet || query.keeps_every_node() {
        return;
    }
    let origin = analysis.bounds().min;
    let kept = query.kept_threads(analysis);
    let strings = analysis.strings();
    let mut filters = Vec::new();
    if let Some(window) = query.window() {
        filters.push(format!("--window {window}"));
    }
    if let Some(levels) = query.levels() {
        filters.push(format!("--max-depth {levels}"));
    }
    if let Some(min) = query.min_duration() {
        filters.push(format!("--min-duration {}", min.0));
    }
    let hidden: Vec<String> = analysis
        .threads()
        .filter(|t| kept.as_ref().is_none_or(|k| k.contains(&(t.pid(), t.tid()))))
        .filter(|t| !t.track().nodes.is_empty() && query.nodes(t.track(), origin).next().is_none())
        .map(|t| {
            format!(
                "thread {}{} (pid {})",
                t.tid().to_js_string(strings),
                t.name().map(|n| format!(" {n}")).unwrap_or_default(),
                t.pid().to_js_string(strings)
            )
        })
        .collect();
    if !hidden.is_empty() {
        eprintln!(
            "tracekit: note: {}: {} leaves nothing of {}",
            input.name(),
            filters.join(" "),
            hidden.join(", ")
        );
    }
}
