//! What the command line selects of a trace (`--thread`, `--window`,
//! `--max-depth`, `--min-duration`, whichever a command has), and the one
//! place it becomes the library's query: [`Query::filter`] for the tracks
//! and the exports, [`Query::view_options`] (or [`Query::view_window`]) and
//! [`Query::threads`] for the aggregated views.

use tracekit::query::Filter;
use tracekit::views::ViewOptions;
use tracekit::{Analysis, Id, Parallelism};

use crate::args::{DepthArg, MinDurationArg, ThreadArg, WindowArg};
use crate::error::CliError;
use crate::input::Input;

/// The selection of a command, as parsed.
pub struct Query {
    /// `--thread`: a name, part of one, or a tid.
    pub thread: Option<String>,
    /// `--window`, in ms from the start of the trace; an end may be
    /// infinite.
    pub window: Option<(f64, f64)>,
    /// `--max-depth`: the levels kept (1: the roots only).
    pub max_depth: Option<u32>,
    /// `--min-duration`, in ms.
    pub min_duration: Option<f64>,
}

impl Query {
    /// The threads and window chosen.
    pub fn new(thread: ThreadArg, window: WindowArg) -> Query {
        Query {
            thread: thread.thread,
            window: window.window,
            max_depth: None,
            min_duration: None,
        }
    }

    /// With the levels chosen.
    pub fn with_depth(self, depth: DepthArg) -> Query {
        Query {
            max_depth: depth.max_depth,
            ..self
        }
    }

    /// With the shortest duration chosen.
    pub fn with_min_duration(self, min_duration: MinDurationArg) -> Query {
        Query {
            min_duration: min_duration.min_duration,
            ..self
        }
    }

    /// The library's query, checked against the trace: an error names the
    /// input and says what would fit.
    pub fn filter(&self, input: &Input, analysis: &Analysis, parallelism: Parallelism) -> Result<Filter, CliError> {
        let filter = Filter {
            thread: self.thread.clone(),
            window_ms: self.window,
            // N levels: depths 0 to N - 1.
            max_depth: self.max_depth.map(|n| n.saturating_sub(1)),
            min_duration_ms: self.min_duration,
            parallelism,
        };
        filter.validate(analysis).map_err(|error| CliError::Query {
            file: input.name(),
            error,
        })?;
        Ok(filter)
    }

    /// Checks `--thread` and `--window` against the trace, for the
    /// aggregated views (which take the threads and window, not a filter).
    pub fn check(&self, input: &Input, analysis: &Analysis) -> Result<(), CliError> {
        self.filter(input, analysis, Parallelism::default()).map(drop)
    }

    /// The options of the Call Tree and Bottom-Up, for the threads
    /// [`Query::threads`] found.
    pub fn view_options<'a>(&self, threads: Option<&'a [(Id, Id)]>) -> ViewOptions<'a> {
        ViewOptions::new()
            .threads(threads)
            .window(self.view_window())
            // N levels: the views count them as `--max-depth` does.
            .max_depth(self.max_depth)
    }

    /// The window of the aggregated views: `None` for the whole trace.
    pub fn view_window(&self) -> Option<(f64, f64)> {
        self.window.filter(|(a, b)| a.is_finite() || b.is_finite())
    }

    /// The threads `--thread` names (`None`: all), for the aggregated
    /// views.
    pub fn threads(&self, input: &Input, analysis: &Analysis) -> Result<Option<Vec<(Id, Id)>>, CliError> {
        let Some(query) = &self.thread else {
            return Ok(None);
        };
        let found = analysis.find_threads(query).map_err(|error| CliError::Query {
            file: input.name(),
            error,
        })?;
        Ok(Some(found.into_iter().map(|t| (t.pid(), t.tid())).collect()))
    }

    /// The aggregated views of no time are all zeros (or NaN percents): an
    /// empty window, or a trace without timed events, is an error saying
    /// why. `what` is what the command would do with the time
    /// ("summarize").
    pub fn check_window_has_time(
        &self,
        input: &Input,
        analysis: &Analysis,
        what: &'static str,
    ) -> Result<(), CliError> {
        let window = tracekit::views::Window::new(analysis.bounds(), self.view_window());
        if !window.is_finite() {
            return Err(CliError::NoTimedEvents {
                file: input.name(),
                what,
            });
        }
        if window.end <= window.start {
            let lasts_ms = analysis.bounds().range().to_millis().0;
            return Err(match self.window {
                Some(window) => CliError::EmptyWindow {
                    file: input.name(),
                    window,
                    lasts_ms,
                },
                None => CliError::NoTime {
                    file: input.name(),
                    lasts_ms,
                    what,
                },
            });
        }
        Ok(())
    }
}
