//! The options of `trace.tracks()`, `trace.tracksPacked()`,
//! `trace.callTree()` and `trace.chart()` as the library's
//! [`Query`], checked by the library as the CLI's flags are (the
//! messages name the JS options where the CLI's name its flags), and
//! the errors of a query that does not fit the trace, worded for
//! JavaScript.

use tracekit::query::{thread_list, Field, Query, QueryError, Window};
use tracekit::views::{GroupBy, GroupingError, ViewError};
use tracekit::{Analysis, Millis};

/// The library's query from the JS options: `thread` (a thread name, any
/// case, or a unique part of one, or a tid), the window's ends
/// `window_start` and `window_end` (ms from the start of the trace;
/// `None`, or an infinity, for an open end; both open: no window),
/// `max_depth` (the number of levels shown, 1: the roots only) and
/// `min_duration` (ms).
///
/// # Errors
///
/// The library's message of the first option that is not one, after the
/// option's name.
pub fn query(
    thread: Option<String>,
    window_start: Option<f64>,
    window_end: Option<f64>,
    max_depth: Option<u32>,
    min_duration: Option<f64>,
) -> Result<Query, String> {
    // In the order of the CLI's flags: the first option that is not one
    // is the one named.
    let mut query = Query::new();
    if let Some(thread) = thread {
        query = query.with_thread(thread).map_err(|e| option_error(&e))?;
    }
    let window = Window::from_ends(window_start.map(Millis), window_end.map(Millis)).map_err(|e| option_error(&e))?;
    query = query.with_window(window);
    if let Some(levels) = max_depth {
        query = query.with_levels(levels).map_err(|e| option_error(&e))?;
    }
    if let Some(min) = min_duration {
        query = query.with_min_duration(Millis(min)).map_err(|e| option_error(&e))?;
    }
    Ok(query)
}

/// The message of an option that is not one: the library's, after the
/// name of the JS option.
fn option_error(e: &QueryError) -> String {
    let option = match e.field() {
        Some(Field::Thread) => "thread",
        Some(Field::Window) => "window",
        Some(Field::Levels) => "maxDepth",
        Some(Field::MinDuration) => "minDuration",
        _ => return e.to_string(),
    };
    format!("{option}: {e}")
}

/// Checks the query against the trace (the thread exists, the window
/// overlaps the trace, the threads selected were built).
pub fn check(query: &Query, analysis: &Analysis) -> Result<(), String> {
    query.validate(analysis).map_err(|e| query_error(&e))
}

/// As [`check`], and the window must hold time to aggregate, as for
/// `tracekit calltree`: an empty window, or a trace without timed events,
/// is an error saying why.
pub fn check_aggregated(query: &Query, analysis: &Analysis) -> Result<(), String> {
    check(query, analysis)?;
    tracekit::views::Window::with_time(analysis, query, "aggregate")?;
    Ok(())
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
fn query_error(e: &QueryError) -> String {
    match e {
        QueryError::NoThread { query, not_built, .. } if !not_built.is_empty() => format!(
            "no thread matches '{query}' in the processes DevTools shows; load with {{allProcesses: true}} for {}",
            thread_list(not_built)
        ),
        QueryError::OverNodeBudget { .. } => format!(
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
        assert_eq!(query(None, None, None, None, None), Ok(Query::new()));
        let open_end = query(None, Some(5.0), Some(f64::INFINITY), None, None).unwrap();
        assert_eq!(
            open_end.window(),
            Some(Window::new(Millis(5.0), Millis(f64::INFINITY)).unwrap())
        );
        assert_eq!(
            query(None, Some(3.0), Some(2.0), None, None).unwrap_err(),
            "window: the end (2) is before the start (3)"
        );
        assert!(query(None, Some(f64::NAN), None, None, None).is_err());
        assert_eq!(
            query(None, None, None, Some(0), None).unwrap_err(),
            "maxDepth: 0 levels would show nothing: 1 shows the roots only"
        );
        assert_eq!(
            query(None, None, None, None, Some(-1.0)).unwrap_err(),
            "minDuration: a duration cannot be negative: '-1'"
        );
        assert_eq!(
            query(Some(" ".into()), None, None, None, None).unwrap_err(),
            "thread: give a thread name, part of one, or a tid"
        );
        assert_eq!(query(None, None, None, Some(3), None).unwrap().levels(), Some(3));
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
        let gpu = query(Some("gpu".into()), None, None, None, None).unwrap();
        assert_eq!(
            check(&gpu, &analysis).unwrap_err(),
            "no thread matches 'gpu'; threads: CrRendererMain (tid 10)"
        );
        let empty = query(None, Some(0.001), Some(0.001), None, None).unwrap();
        assert_eq!(
            check_aggregated(&empty, &analysis).unwrap_err(),
            "the window 0.001..0.001 ms is empty; the trace lasts 0..0.005 ms"
        );
    }
}
