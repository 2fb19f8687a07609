//! The options of `trace.tracks()`, `trace.tracksPacked()` and
//! `trace.callTree()`, checked as the CLI checks its arguments, and the
//! errors of a query that does not fit the trace, worded for JavaScript
//! (the CLI's messages name its flags; these name the options).

use tracekit::query::{thread_list, window_text, Filter, FilterError};
use tracekit::views::{GroupBy, GroupingError, ViewError};
use tracekit::{Analysis, Id};

/// The part of a trace a query selects, as the JS options give it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query {
    /// `thread`: a thread name (any case, or a unique part of one) or a tid.
    pub thread: Option<String>,
    /// `window`: ms from the start of the trace; an end left out (or
    /// infinite) is open.
    pub window: Option<(f64, f64)>,
    /// `maxDepth`: the number of levels shown (1: the roots only).
    pub max_depth: Option<u32>,
    /// `minDuration`: only nodes lasting at least this many ms.
    pub min_duration: Option<f64>,
}

impl Query {
    /// Checks the options as the CLI's argument parsers do: `window_start`
    /// and `window_end` are the window's ends (`None`, or an infinity, for
    /// an open end; both open means no window).
    pub fn new(
        thread: Option<String>,
        window_start: Option<f64>,
        window_end: Option<f64>,
        max_depth: Option<u32>,
        min_duration: Option<f64>,
    ) -> Result<Query, String> {
        if thread.as_deref().is_some_and(|t| t.trim().is_empty()) {
            return Err("thread: give a thread name, part of one, or a tid".into());
        }
        let start = window_start.unwrap_or(f64::NEG_INFINITY);
        let end = window_end.unwrap_or(f64::INFINITY);
        if start.is_nan() || end.is_nan() || start == f64::INFINITY || end == f64::NEG_INFINITY {
            return Err("window: expected [start, end] in milliseconds (an end may be null: open)".into());
        }
        if end < start {
            return Err(format!("window: the end ({end}) is before the start ({start})"));
        }
        let window = (start.is_finite() || end.is_finite()).then_some((start, end));
        if max_depth == Some(0) {
            return Err("maxDepth: 0 levels would show nothing: 1 shows the roots only".into());
        }
        if let Some(min) = min_duration {
            if !(min >= 0.0 && min.is_finite()) {
                return Err(format!(
                    "minDuration: expected a number of milliseconds >= 0, not {min}"
                ));
            }
        }
        Ok(Query {
            thread,
            window,
            max_depth,
            min_duration,
        })
    }

    /// The library's filter of the tracks (sequential formatting).
    pub fn filter(&self) -> Filter {
        Filter {
            thread: self.thread.clone(),
            window_ms: self.window,
            // N levels: depths 0 to N - 1.
            max_depth: self.max_depth.map(|n| n.saturating_sub(1)),
            min_duration_ms: self.min_duration,
            ..Filter::default()
        }
    }

    /// Checks the query against the trace (the thread exists, the window
    /// overlaps the trace, the threads selected were built) and returns
    /// the threads it selects, `None` for all.
    pub fn threads(&self, analysis: &Analysis) -> Result<Option<Vec<(Id, Id)>>, String> {
        self.filter().validate(analysis).map_err(|e| filter_error(&e))?;
        let Some(query) = &self.thread else {
            return Ok(None);
        };
        let found = analysis.find_threads(query).map_err(|e| filter_error(&e))?;
        Ok(Some(found.into_iter().map(|t| (t.pid(), t.tid())).collect()))
    }

    /// As [`Query::threads`], and the window must hold time to aggregate,
    /// as for `tracekit calltree`: an empty window, or a trace without
    /// timed events, is an error saying why.
    pub fn aggregated_threads(&self, analysis: &Analysis) -> Result<Option<Vec<(Id, Id)>>, String> {
        let threads = self.threads(analysis)?;
        let window = tracekit::views::Window::new(analysis.bounds(), self.window);
        if !window.is_finite() {
            return Err("the trace has no timed events, so no window to aggregate".into());
        }
        if window.end <= window.start {
            let lasts = analysis.bounds().range().to_millis().0;
            return Err(match self.window {
                Some(asked) => format!(
                    "the window {} ms is empty; the trace lasts 0..{lasts:.3} ms",
                    window_text(asked)
                ),
                None => format!("the trace lasts {lasts:.3} ms: no time to aggregate"),
            });
        }
        Ok(threads)
    }
}

/// The grouping `groupBy` names (`None`: no grouping), as `tracekit
/// calltree --group-by` names them.
pub fn group_by(name: Option<&str>) -> Result<GroupBy, String> {
    let Some(name) = name else {
        return Ok(GroupBy::None);
    };
    GroupBy::from_name(name).ok_or_else(|| {
        let names: Vec<String> = GroupBy::ALL.iter().map(|g| format!("'{}'", g.name())).collect();
        format!("groupBy: expected one of {}, not '{name}'", names.join(", "))
    })
}

/// The message of a grouping the trace was not loaded for, with the JS
/// option that loads what it reads.
pub fn grouping_error(e: &GroupingError) -> String {
    format!(
        "grouping by {} needs what the trace's events say of their URLs and frames: load with {{groupArgs: true}}",
        e.group_by().name()
    )
}

/// The message of views that cannot be computed, with the JS options
/// that change that.
pub fn view_error(e: &ViewError) -> String {
    match e {
        ViewError::Grouping(e) => grouping_error(e),
        ViewError::TooManyNodes { .. } => format!("{e}; query fewer levels with maxDepth"),
        e => e.to_string(),
    }
}

/// The message of a query that does not fit the trace: the CLI's, with
/// the options of the JS API where the CLI names its flags.
fn filter_error(e: &FilterError) -> String {
    match e {
        FilterError::NoThread { query, not_built, .. } if !not_built.is_empty() => format!(
            "no thread matches '{query}' in the processes DevTools shows; load with {{allProcesses: true}} for {}",
            thread_list(not_built)
        ),
        FilterError::OverNodeBudget { .. } => format!(
            "{e}; choose other threads with the thread option, or raise the Loader's maxNodes (about 100 bytes of memory each)"
        ),
        e => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_checked_as_the_cli_checks_its_arguments() {
        assert_eq!(Query::new(None, None, None, None, None), Ok(Query::default()));
        let open_end = Query::new(None, Some(5.0), Some(f64::INFINITY), None, None).unwrap();
        assert_eq!(open_end.window, Some((5.0, f64::INFINITY)));
        assert!(Query::new(None, Some(3.0), Some(2.0), None, None)
            .unwrap_err()
            .contains("before the start"));
        assert!(Query::new(None, Some(f64::NAN), None, None, None).is_err());
        assert!(Query::new(None, None, None, Some(0), None).is_err());
        assert!(Query::new(None, None, None, None, Some(-1.0)).is_err());
        assert!(Query::new(Some(" ".into()), None, None, None, None).is_err());
        assert_eq!(
            Query::new(None, None, None, Some(3), None).unwrap().filter().max_depth,
            Some(2)
        );
    }

    #[test]
    fn groupings_are_named_as_the_cli_names_them() {
        assert_eq!(group_by(None), Ok(GroupBy::None));
        assert_eq!(group_by(Some("subdomain")), Ok(GroupBy::Subdomain));
        assert_eq!(
            group_by(Some("third-party")).unwrap_err(),
            "groupBy: expected one of 'none', 'category', 'domain', 'subdomain', 'url', 'frame', not 'third-party'"
        );
    }

    #[test]
    fn errors_name_the_js_options() {
        let trace = br#"[{"name":"thread_name","ph":"M","pid":1,"tid":10,"args":{"name":"CrRendererMain"}},
{"name":"RunTask","ph":"X","pid":1,"tid":10,"ts":10,"dur":5}]"#;
        let analysis = tracekit::analyze_bytes(trace, &tracekit::AnalyzeOptions::default()).unwrap();
        let query = Query::new(Some("gpu".into()), None, None, None, None).unwrap();
        assert_eq!(
            query.threads(&analysis).unwrap_err(),
            "no thread matches 'gpu'; threads: CrRendererMain (tid 10)"
        );
        let empty = Query::new(None, Some(0.001), Some(0.001), None, None).unwrap();
        assert_eq!(
            empty.aggregated_threads(&analysis).unwrap_err(),
            "the window 0.001..0.001 ms is empty; the trace lasts 0..0.005 ms"
        );
    }
}
