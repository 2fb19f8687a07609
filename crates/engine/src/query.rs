//! Which part of an analysis a caller asks for ([`Query`]): the threads
//! (by name or tid), a window of time, the levels and the shortest
//! duration kept; the checks of its values and of a query against an
//! analysis, with one set of messages ([`QueryError`]).
//!
//! The front ends (the CLI, the wasm and Python bindings) build a
//! [`Query`] from their flags or options and map a [`QueryError`] of a
//! value to their own name for it ([`QueryError::field`]); the CLI's
//! `START..END` text is read by [`Window::parse`].

use std::fmt;

use tracekit_events::{Id, Micros, Millis};
use tracekit_renderer::{ThreadTrack, TrackNode};

use crate::engine::Analysis;

/// A window of time in ms from the start of the trace; an open end is an
/// infinity (`-inf` for the start, `+inf` for the end). Its ends are
/// numbers and in order: see [`Window::new`].
///
/// ```
/// use tracekit::query::Window;
/// use tracekit::Millis;
/// let window = Window::parse("100..")?;
/// assert_eq!((window.start(), window.end()), (Millis(100.0), Millis(f64::INFINITY)));
/// assert_eq!(window.to_string(), "100..");
/// assert_eq!(Window::parse("3..2").unwrap_err().to_string(), "END (2) is before START (3)");
/// # Ok::<(), tracekit::query::QueryError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    start: Millis,
    end: Millis,
}

impl Window {
    /// The window from `start` to `end`, in ms from the start of the
    /// trace; `-inf` for `start` or `+inf` for `end` is an open end.
    ///
    /// # Errors
    ///
    /// [`QueryError::NotMillis`] for a NaN, a start at `+inf` or an end at
    /// `-inf`; [`QueryError::WindowReversed`] when the end is before the
    /// start.
    pub fn new(start: Millis, end: Millis) -> Result<Window, QueryError> {
        for (x, bad) in [(start, f64::INFINITY), (end, f64::NEG_INFINITY)] {
            if x.0.is_nan() || x.0 == bad {
                return Err(QueryError::NotMillis { text: x.0.to_string() });
            }
        }
        if end < start {
            return Err(QueryError::WindowReversed { start, end });
        }
        Ok(Window { start, end })
    }

    /// [`Window::new`] with `None` for an open end.
    ///
    /// # Errors
    ///
    /// As [`Window::new`].
    pub fn from_ends(start: Option<Millis>, end: Option<Millis>) -> Result<Window, QueryError> {
        Window::new(
            start.unwrap_or(Millis(f64::NEG_INFINITY)),
            end.unwrap_or(Millis(f64::INFINITY)),
        )
    }

    /// Reads `START..END`, `START..` or `..END` (ms from the start of the
    /// trace, or with a unit as [`parse_millis`] reads it: `1.2s..2s`;
    /// spaces allowed around each), as `--window` takes it.
    ///
    /// # Errors
    ///
    /// [`QueryError::WindowSyntax`] for text of another shape (or `..`),
    /// [`QueryError::NotMillis`] for an end that is not a finite number,
    /// [`QueryError::WindowBeforeTrace`] for a START below 0,
    /// [`QueryError::WindowTextReversed`] when END is before START.
    pub fn parse(text: &str) -> Result<Window, QueryError> {
        let (a, b) = text.split_once("..").ok_or(QueryError::WindowSyntax)?;
        if a.trim().is_empty() && b.trim().is_empty() {
            return Err(QueryError::WindowSyntax);
        }
        let end_at = |text: &str, open: f64| {
            if text.trim().is_empty() {
                Ok(Millis(open))
            } else {
                parse_millis(text)
            }
        };
        let start = end_at(a, f64::NEG_INFINITY)?;
        let end = end_at(b, f64::INFINITY)?;
        if start < Millis::ZERO && start.is_finite() {
            return Err(QueryError::WindowBeforeTrace {
                start: a.trim().to_owned(),
            });
        }
        if end < start {
            return Err(QueryError::WindowTextReversed {
                start: a.trim().to_owned(),
                end: b.trim().to_owned(),
            });
        }
        Ok(Window { start, end })
    }

    /// The start, in ms from the start of the trace (`-inf`: open).
    pub fn start(self) -> Millis {
        self.start
    }

    /// The end, in ms from the start of the trace (`+inf`: open).
    pub fn end(self) -> Millis {
        self.end
    }

    /// Whether both ends are open: the window is the whole trace.
    pub fn is_everything(self) -> bool {
        !self.start.is_finite() && !self.end.is_finite()
    }
}

impl fmt::Display for Window {
    /// `START..END` in ms, an open end left empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let end = |x: Millis| {
            if x.is_finite() {
                format!("{}", x.0)
            } else {
                String::new()
            }
        };
        write!(f, "{}..{}", end(self.start), end(self.end))
    }
}

/// A finite number of ms, as the CLI reads one (spaces allowed around it):
/// a plain number is ms; `ms`, `s`, `us` or `µs` after it says its unit
/// (`1.2s`, `1200ms`).
///
/// # Errors
///
/// [`QueryError::NotMillis`], naming the text as given.
pub fn parse_millis(text: &str) -> Result<Millis, QueryError> {
    let trimmed = text.trim();
    // The longest suffix first: `ms` before `s`.
    let (number, scale) = [("ms", 1.0), ("us", 1e-3), ("µs", 1e-3), ("s", 1e3)]
        .iter()
        .find_map(|(unit, scale)| trimmed.strip_suffix(unit).map(|n| (n.trim_end(), *scale)))
        .unwrap_or((trimmed, 1.0));
    match number.parse::<f64>() {
        Ok(x) if x.is_finite() && !number.is_empty() => Ok(Millis(x * scale)),
        _ => Err(QueryError::NotMillis { text: text.to_owned() }),
    }
}

/// Which part of an analysis a caller asks for: the threads a name or tid
/// names, a window of time, the first levels of each tree and the nodes
/// lasting at least a duration; the default is everything. Its values are
/// checked once, as it is built ([`Query::with_thread`] and the others, or
/// [`Query::from_parts`]); [`Query::validate`] checks it against an
/// analysis.
///
/// The tracks' formats and the exports keep the nodes it keeps
/// ([`Query::nodes`]); the views (Call Tree, Bottom-Up, Summary) read its
/// threads and window, and the views of the call tree its levels.
///
/// ```
/// use tracekit::output::text;
/// use tracekit::query::Query;
/// use tracekit::Millis;
/// let trace = br#"[
/// {"name":"thread_name","ph":"M","pid":1,"tid":10,"args":{"name":"CrRendererMain"}},
/// {"name":"RunTask","ph":"X","ts":1000,"dur":5000,"pid":1,"tid":10},
/// {"name":"Layout","ph":"X","ts":2000,"dur":50,"pid":1,"tid":10}]"#;
/// let analysis = tracekit::analyze_bytes(trace, &tracekit::AnalyzeOptions::default())?;
/// let query = Query::new().with_thread("CrRendererMain")?.with_min_duration(Millis(1.0))?;
/// query.validate(&analysis).expect("the thread exists");
/// let out = text(&analysis, &query);
/// assert!(out.contains("RunTask  @0.000 +5.000 self 4.950") && !out.contains("Layout"), "{out}");
/// assert_eq!(Query::new().with_levels(0).unwrap_err().to_string(), "0 levels would show nothing: 1 shows the roots only");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query {
    thread: Option<String>,
    window: Option<Window>,
    levels: Option<u32>,
    min_duration: Option<Millis>,
}

/// The part of a [`Query`] a value is for, so that a front end names it
/// as its flag or option (`--max-depth`, `maxDepth`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Field {
    /// [`Query::thread`].
    Thread,
    /// [`Query::window`].
    Window,
    /// [`Query::levels`].
    Levels,
    /// [`Query::min_duration`].
    MinDuration,
}

impl Query {
    /// Everything: every thread, the whole trace, every level, every node.
    pub fn new() -> Query {
        Query::default()
    }

    /// A query of each part given (`None`: everything), checked as the
    /// `with_` methods check them.
    ///
    /// # Errors
    ///
    /// The first value that is not one (see [`QueryError::field`]).
    pub fn from_parts(
        thread: Option<String>,
        window: Option<Window>,
        levels: Option<u32>,
        min_duration: Option<Millis>,
    ) -> Result<Query, QueryError> {
        let mut query = Query::new();
        if let Some(thread) = thread {
            query = query.with_thread(thread)?;
        }
        if let Some(window) = window {
            query = query.with_window(window);
        }
        if let Some(levels) = levels {
            query = query.with_levels(levels)?;
        }
        if let Some(min) = min_duration {
            query = query.with_min_duration(min)?;
        }
        Ok(query)
    }

    /// Only the threads `thread` names (see [`Analysis::find_threads`]):
    /// a thread name, matched case-insensitively, exactly or else by a
    /// substring of a single name, or a tid as printed. A query that
    /// matches no thread, or threads of several names, fails
    /// [`Query::validate`] and keeps no thread.
    ///
    /// # Errors
    ///
    /// [`QueryError::EmptyThread`] for an empty or blank name.
    pub fn with_thread(mut self, thread: impl Into<String>) -> Result<Query, QueryError> {
        let thread = thread.into();
        if thread.trim().is_empty() {
            return Err(QueryError::EmptyThread);
        }
        self.thread = Some(thread);
        Ok(self)
    }

    /// Only nodes overlapping `window`; a window open at both ends is the
    /// whole trace (no window).
    pub fn with_window(mut self, window: Window) -> Query {
        self.window = (!window.is_everything()).then_some(window);
        self
    }

    /// Only the first `levels` levels of each tree (1: the roots only).
    ///
    /// # Errors
    ///
    /// [`QueryError::NoLevels`] for 0.
    pub fn with_levels(mut self, levels: u32) -> Result<Query, QueryError> {
        if levels == 0 {
            return Err(QueryError::NoLevels);
        }
        self.levels = Some(levels);
        Ok(self)
    }

    /// Only nodes lasting at least `min`.
    ///
    /// # Errors
    ///
    /// [`QueryError::NotMillis`] for a NaN or an infinity,
    /// [`QueryError::NegativeDuration`] below 0.
    pub fn with_min_duration(mut self, min: Millis) -> Result<Query, QueryError> {
        if !min.is_finite() {
            return Err(QueryError::NotMillis {
                text: min.0.to_string(),
            });
        }
        if min.0 < 0.0 {
            return Err(QueryError::NegativeDuration {
                text: min.0.to_string(),
            });
        }
        self.min_duration = Some(min);
        Ok(self)
    }

    /// Reads a number of levels, as `--max-depth` takes it.
    ///
    /// # Errors
    ///
    /// [`QueryError::NotLevels`] for text that is not a whole number,
    /// [`QueryError::NoLevels`] for 0.
    pub fn parse_levels(text: &str) -> Result<u32, QueryError> {
        match text.trim().parse::<u32>() {
            Ok(0) => Err(QueryError::NoLevels),
            Ok(n) => Ok(n),
            Err(_) => Err(QueryError::NotLevels { text: text.to_owned() }),
        }
    }

    /// Reads a duration in ms, as `--min-duration` takes it.
    ///
    /// # Errors
    ///
    /// [`QueryError::NotMillis`], or [`QueryError::NegativeDuration`] below
    /// 0, naming the text as given.
    pub fn parse_min_duration(text: &str) -> Result<Millis, QueryError> {
        match parse_millis(text)? {
            x if x.0 >= 0.0 => Ok(x),
            _ => Err(QueryError::NegativeDuration { text: text.to_owned() }),
        }
    }

    /// Reads a thread query, as `--thread` takes it.
    ///
    /// # Errors
    ///
    /// [`QueryError::EmptyThread`] for an empty or blank name.
    pub fn parse_thread(text: &str) -> Result<String, QueryError> {
        Query::new().with_thread(text).map(|q| q.thread.unwrap_or_default())
    }

    /// The thread query, if any.
    pub fn thread(&self) -> Option<&str> {
        self.thread.as_deref()
    }

    /// The window, in ms from the start of the trace (`None`: the whole
    /// trace).
    pub fn window(&self) -> Option<Window> {
        self.window
    }

    /// The number of levels kept (1: the roots only; `None`: all).
    pub fn levels(&self) -> Option<u32> {
        self.levels
    }

    /// The shortest duration kept (`None`: every node).
    pub fn min_duration(&self) -> Option<Millis> {
        self.min_duration
    }
}

/// A thread with tracks, as thread matching and its errors name it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ThreadRef {
    /// Its process.
    pub pid: Id,
    /// The thread.
    pub tid: Id,
    /// The tid as the formats print it.
    pub tid_text: String,
    /// Its name, as the formats print it (`None` without metadata).
    pub name: Option<String>,
}

impl ThreadRef {
    /// The thread `tid` of process `pid`, printed as `tid_text`, named
    /// `name`.
    pub fn new(pid: Id, tid: Id, tid_text: String, name: Option<String>) -> ThreadRef {
        ThreadRef {
            pid,
            tid,
            tid_text,
            name,
        }
    }
}

impl std::fmt::Display for ThreadRef {
    /// `CrRendererMain (tid 123)`, or `tid 123` for a thread without a name.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.name {
            // A thread without a name in its metadata is named by its tid.
            Some(name) if !name.is_empty() && *name != self.tid_text => write!(f, "{name} (tid {})", self.tid_text),
            _ => write!(f, "tid {}", self.tid_text),
        }
    }
}

/// Why a [`Query`] cannot be made, or cannot be used on an analysis: one
/// set of messages for every front end. A value's message does not name
/// the flag or option it came from: a front end prefixes its own name for
/// [`QueryError::field`] (clap does for the CLI's flags).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum QueryError {
    /// The thread query is empty or blank.
    EmptyThread,
    /// A window's text is not `START..END`, `START..` or `..END`.
    WindowSyntax,
    /// Not a (finite) number of milliseconds, as given.
    NotMillis {
        /// The text or number given.
        text: String,
    },
    /// A window whose end is before its start.
    WindowReversed {
        /// The start given.
        start: Millis,
        /// The end given.
        end: Millis,
    },
    /// A window's text (`START..END`) whose END is before its START.
    WindowTextReversed {
        /// START as written.
        start: String,
        /// END as written.
        end: String,
    },
    /// A window's text whose START is before the trace's start (below 0).
    WindowBeforeTrace {
        /// START as written.
        start: String,
    },
    /// A bare tid that threads of several processes have.
    AmbiguousTid {
        /// What was asked for.
        query: String,
        /// The threads with that tid, each with its pid as printed.
        matches: Vec<(String, ThreadRef)>,
    },
    /// 0 levels.
    NoLevels,
    /// Not a whole number of levels, as given.
    NotLevels {
        /// The text given.
        text: String,
    },
    /// A negative minimum duration, as given.
    NegativeDuration {
        /// The text or number given.
        text: String,
    },
    /// No thread with tracks matches the query. `threads` are those that
    /// exist; `not_built` are threads that match it in processes that
    /// were not built (DevTools drops them: load with
    /// [`crate::AnalyzeOptions::all_processes`]).
    NoThread {
        /// What was asked for.
        query: String,
        /// The threads with tracks.
        threads: Vec<ThreadRef>,
        /// Matching threads of processes that were not built.
        not_built: Vec<ThreadRef>,
    },
    /// The query is a substring of the names of several threads.
    AmbiguousThread {
        /// What was asked for.
        query: String,
        /// The threads whose names hold it.
        matches: Vec<ThreadRef>,
    },
    /// A thread the query keeps was not built: its tracks would have more
    /// nodes than [`crate::AnalyzeOptions::max_nodes`] allows.
    OverNodeBudget {
        /// The thread.
        thread: ThreadRef,
        /// How many nodes it would have, at least.
        count: usize,
    },
    /// The window does not overlap the trace, which lasts `duration`.
    WindowOutsideTrace {
        /// The window asked for.
        window: Window,
        /// How long the trace lasts.
        duration: Millis,
    },
}

impl QueryError {
    /// The part of the query a value's error is about, for the front end
    /// to name it; `None` for the checks against an analysis, whose
    /// messages stand alone.
    pub fn field(&self) -> Option<Field> {
        match self {
            QueryError::EmptyThread => Some(Field::Thread),
            QueryError::WindowSyntax
            | QueryError::NotMillis { .. }
            | QueryError::WindowReversed { .. }
            | QueryError::WindowTextReversed { .. }
            | QueryError::WindowBeforeTrace { .. } => Some(Field::Window),
            QueryError::NoLevels | QueryError::NotLevels { .. } => Some(Field::Levels),
            QueryError::NegativeDuration { .. } => Some(Field::MinDuration),
            QueryError::NoThread { .. }
            | QueryError::AmbiguousThread { .. }
            | QueryError::AmbiguousTid { .. }
            | QueryError::OverNodeBudget { .. }
            | QueryError::WindowOutsideTrace { .. } => None,
        }
    }
}

/// A list of threads as `A (tid 1), B (tids 2, 3), tid 4`: threads of
/// the same name together, in order of first appearance.
pub fn thread_list(threads: &[ThreadRef]) -> String {
    let mut groups: Vec<(Option<&str>, Vec<&ThreadRef>)> = Vec::new();
    for thread in threads {
        let name = Some(thread.name.as_deref().unwrap_or_default()).filter(|n| !n.is_empty() && *n != thread.tid_text);
        match groups.iter_mut().find(|(n, _)| name.is_some() && *n == name) {
            Some((_, members)) => members.push(thread),
            None => groups.push((name, vec![thread])),
        }
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|(name, members)| match (name, members.as_slice()) {
            (None, [one, ..]) => one.to_string(),
            (Some(_), [one]) => one.to_string(),
            (Some(name), members) => {
                let tids: Vec<&str> = members.iter().map(|t| t.tid_text.as_str()).collect();
                format!("{name} (tids {})", tids.join(", "))
            }
            (None, []) => String::new(),
        })
        .collect();
    parts.join(", ")
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryError::EmptyThread => f.write_str("give a thread name, part of one, or a tid"),
            QueryError::WindowSyntax => f.write_str("expected START..END, START.. or ..END (milliseconds)"),
            QueryError::NotMillis { text } => write!(f, "not a number of milliseconds: '{text}'"),
            QueryError::WindowReversed { start, end } => {
                write!(f, "the end ({}) is before the start ({})", end.0, start.0)
            }
            QueryError::WindowTextReversed { start, end } => write!(f, "END ({end}) is before START ({start})"),
            QueryError::WindowBeforeTrace { start } => write!(
                f,
                "START ({start}) is before the trace's start: times count from it, so START is 0 or more"
            ),
            QueryError::AmbiguousTid { query, matches } => {
                let choices: Vec<String> = matches
                    .iter()
                    .map(
                        |(pid, t)| match t.name.as_deref().filter(|n| !n.is_empty() && *n != t.tid_text) {
                            Some(name) => format!("{pid}:{} {name}", t.tid_text),
                            None => format!("{pid}:{}", t.tid_text),
                        },
                    )
                    .collect();
                write!(
                    f,
                    "tid {query} is a thread of several processes: give PID:TID, one of {}",
                    choices.join(", ")
                )
            }
            QueryError::NoLevels => f.write_str("0 levels would show nothing: 1 shows the roots only"),
            QueryError::NotLevels { text } => write!(f, "not a number of levels: '{text}'"),
            QueryError::NegativeDuration { text } => write!(f, "a duration cannot be negative: '{text}'"),
            QueryError::NoThread { query, threads, .. } if threads.is_empty() => {
                write!(f, "no thread matches '{query}'; the trace has no thread with tracks")
            }
            QueryError::NoThread { query, threads, .. } => {
                write!(f, "no thread matches '{query}'; threads: {}", thread_list(threads))
            }
            QueryError::AmbiguousThread { query, matches } => write!(
                f,
                "'{query}' matches threads of several names: {}; give the whole name, the tid or PID:TID",
                thread_list(matches)
            ),
            QueryError::OverNodeBudget { thread, count } => write!(
                f,
                "the tracks of {thread} have more nodes than the budget allows (at least {count})"
            ),
            QueryError::WindowOutsideTrace { window, duration } => write!(
                f,
                "the window {window} ms lies outside the trace (0..{:.3} ms)",
                // Through µs, as the formats print times.
                duration.to_micros().to_millis().0
            ),
        }
    }
}

impl std::error::Error for QueryError {}

/// Every thread with tracks, in the order the formats print them.
pub fn threads(analysis: &Analysis) -> Vec<ThreadRef> {
    let interner = &analysis.strings;
    analysis
        .process_tracks()
        .iter()
        .flat_map(|(pid, process)| {
            process.threads.iter().map(move |(tid, track)| ThreadRef {
                pid: *pid,
                tid: *tid,
                tid_text: tid.to_js_string(interner),
                name: track.name.clone(),
            })
        })
        .collect()
}

/// The threads in the trace's metadata whose process has no tracks
/// (DevTools drops it and it was not built).
fn threads_not_built(analysis: &Analysis) -> Vec<ThreadRef> {
    let Some(meta) = analysis.meta() else {
        return Vec::new();
    };
    let interner = &analysis.strings;
    let mut out = Vec::new();
    for (pid, threads) in &meta.threads_in_process {
        if analysis.processes.contains_key(pid) {
            continue;
        }
        for (tid, name) in threads {
            out.push(ThreadRef {
                pid: *pid,
                tid: *tid,
                tid_text: tid.to_js_string(interner),
                name: name.map(|n| interner.resolve(n).to_owned()),
            });
        }
    }
    out
}

/// The threads of `candidates` that `query` names: those whose name is
/// the query (ignoring case) or whose tid is printed as the query; if
/// none, those whose name contains the query (ignoring case), provided
/// they all have the same name. `Err(matches)`: threads of several names
/// match (empty when none does).
fn match_threads(query: &str, candidates: &[ThreadRef]) -> Result<Vec<ThreadRef>, Vec<ThreadRef>> {
    let wanted = query.trim().to_lowercase();
    let lower = |t: &ThreadRef| t.name.as_deref().map(str::to_lowercase);
    let exact: Vec<ThreadRef> = candidates
        .iter()
        .filter(|t| lower(t).as_deref() == Some(wanted.as_str()) || t.tid_text == query.trim())
        .cloned()
        .collect();
    if !exact.is_empty() {
        return Ok(exact);
    }
    let partial: Vec<ThreadRef> = candidates
        .iter()
        .filter(|t| lower(t).is_some_and(|name| name.contains(&wanted)))
        .cloned()
        .collect();
    let first = partial.first().and_then(lower);
    if !partial.is_empty() && partial.iter().all(|t| lower(t) == first) {
        Ok(partial)
    } else {
        Err(partial)
    }
}

/// The threads with tracks that `query` names (see [`Query::with_thread`]):
/// `PID:TID` names one thread; a bare tid that threads of several
/// processes have is an error listing them as `PID:TID`.
pub fn find_threads(analysis: &Analysis, query: &str) -> Result<Vec<ThreadRef>, QueryError> {
    let threads = threads(analysis);
    let pid_text = |t: &ThreadRef| t.pid.to_js_string(&analysis.strings);
    if let Some((pid, tid)) = query.trim().split_once(':') {
        let (pid, tid) = (pid.trim(), tid.trim());
        let found: Vec<ThreadRef> = threads
            .iter()
            .filter(|t| t.tid_text == tid && pid_text(t) == pid)
            .cloned()
            .collect();
        if !found.is_empty() {
            return Ok(found);
        }
    }
    let by_tid: Vec<&ThreadRef> = threads.iter().filter(|t| t.tid_text == query.trim()).collect();
    if by_tid.len() > 1 {
        return Err(QueryError::AmbiguousTid {
            query: query.trim().to_owned(),
            matches: by_tid.into_iter().map(|t| (pid_text(t), t.clone())).collect(),
        });
    }
    match match_threads(query, &threads) {
        Ok(found) => Ok(found),
        Err(matches) if !matches.is_empty() => Err(QueryError::AmbiguousThread {
            query: query.to_owned(),
            matches,
        }),
        Err(_) => Err(QueryError::NoThread {
            query: query.to_owned(),
            not_built: match_threads(query, &threads_not_built(analysis)).unwrap_or_default(),
            threads,
        }),
    }
}

impl Query {
    /// Checks the query against an analysis: the thread query names
    /// threads (see [`Analysis::find_threads`]) that were built, and the
    /// window overlaps the trace.
    ///
    /// # Errors
    ///
    /// [`QueryError::NoThread`], [`QueryError::AmbiguousThread`],
    /// [`QueryError::OverNodeBudget`], [`QueryError::WindowOutsideTrace`].
    pub fn validate(&self, analysis: &Analysis) -> Result<(), QueryError> {
        let kept = match &self.thread {
            Some(query) => find_threads(analysis, query)?,
            None => threads(analysis),
        };
        for thread in kept {
            let track = analysis
                .processes
                .get(&thread.pid)
                .and_then(|p| p.threads.get(&thread.tid));
            if let Some(count) = track.and_then(|t| t.over_budget) {
                return Err(QueryError::OverNodeBudget { thread, count });
            }
        }
        if let Some(window) = self.window {
            let duration = analysis.bounds.range().to_millis();
            if duration.is_finite() && (window.end < Millis::ZERO || window.start > duration) {
                return Err(QueryError::WindowOutsideTrace { window, duration });
            }
        }
        Ok(())
    }

    /// The threads kept, as `(pid, tid)`: `None` for all of them (a thread
    /// query that names none keeps none).
    pub fn kept_threads(&self, analysis: &Analysis) -> Option<Vec<(Id, Id)>> {
        let query = self.thread.as_ref()?;
        let found = find_threads(analysis, query).unwrap_or_default();
        Some(found.into_iter().map(|t| (t.pid, t.tid)).collect())
    }

    /// Whether every node of a kept thread is kept.
    pub fn keeps_every_node(&self) -> bool {
        self.window.is_none() && self.levels.is_none() && self.min_duration.is_none()
    }

    fn keeps_node(&self, node: &TrackNode, origin: Micros) -> bool {
        // N levels: depths 0 to N - 1.
        if self.levels.is_some_and(|levels| node.depth() >= levels) {
            return false;
        }
        let dur = node.dur().unwrap_or(Micros::ZERO);
        if self.min_duration.is_some_and(|min| dur < min.to_micros()) {
            return false;
        }
        if let Some(Window { start, end }) = self.window {
            let (s, e) = ((node.ts() - origin).to_millis(), (node.ts() + dur - origin).to_millis());
            if e < start || s > end {
                return false;
            }
        }
        true
    }

    /// The nodes of a track this query keeps: a node left out takes its
    /// subtree with it. `origin` is the start of the trace.
    pub fn nodes<'t>(&'t self, track: &'t ThreadTrack, origin: Micros) -> impl Iterator<Item = &'t TrackNode> + 't {
        self.positioned_nodes(track, origin).map(|(_, node)| node)
    }

    /// [`Query::nodes`], each with its position among the track's nodes.
    pub fn positioned_nodes<'t>(
        &'t self,
        track: &'t ThreadTrack,
        origin: Micros,
    ) -> impl Iterator<Item = (usize, &'t TrackNode)> + 't {
        let mut hidden_below: Option<u32> = None;
        track.nodes.iter().enumerate().filter(move |(_, node)| {
            if let Some(depth) = hidden_below {
                if node.depth() > depth {
                    return false;
                }
                hidden_below = None;
            }
            if self.keeps_node(node, origin) {
                true
            } else {
                hidden_below = Some(node.depth());
                false
            }
        })
    }
}

#[cfg(test)]
mod tests;
