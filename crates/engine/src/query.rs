//! Which part of an analysis a caller asks for: the threads (by name or
//! tid), a window of time, the depth and the shortest duration kept; the
//! checks of a query against an analysis, with one set of messages.

use tracekit_events::{Id, Micros, Millis, Parallelism};
use tracekit_renderer::{ThreadTrack, TrackNode};

use crate::engine::Analysis;

/// Which part of the tracks to print: the options of `tracekit tracks`.
///
/// ```
/// use tracekit::output::text;
/// use tracekit::query::Filter;
/// let trace = br#"[
/// {"name":"thread_name","ph":"M","pid":1,"tid":10,"args":{"name":"CrRendererMain"}},
/// {"name":"RunTask","ph":"X","ts":1000,"dur":5000,"pid":1,"tid":10},
/// {"name":"Layout","ph":"X","ts":2000,"dur":50,"pid":1,"tid":10}]"#;
/// let analysis = tracekit::analyze_bytes(trace, &tracekit::AnalyzeOptions::default())?;
/// let filter = Filter {
///     thread: Some("CrRendererMain".into()),
///     min_duration_ms: Some(1.0),
///     ..Filter::default()
/// };
/// filter.validate(&analysis).expect("the thread exists");
/// let out = text(&analysis, &filter);
/// assert!(out.contains("RunTask  @0.000 +5.000 self 4.950") && !out.contains("Layout"), "{out}");
/// # Ok::<(), tracekit::LoadError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only the threads this names (see [`Analysis::find_threads`]): a thread name,
    /// matched case-insensitively, exactly or else by a substring of a
    /// single name, or a tid as printed. Check it with [`Filter::validate`]:
    /// a query that matches no thread, or threads of several names, keeps
    /// no thread.
    pub thread: Option<String>,
    /// Only nodes overlapping this window, in milliseconds from the start of
    /// the trace; an end may be infinite (an open range).
    pub window_ms: Option<(f64, f64)>,
    /// Only nodes at most this deep (roots are at depth 0).
    pub max_depth: Option<u32>,
    /// Only nodes lasting at least this long, in milliseconds.
    pub min_duration_ms: Option<f64>,
    /// How the text of large tracks is formatted: [`Parallelism::Rayon`]
    /// formats pieces of a track on all cores (same output).
    pub parallelism: Parallelism,
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

/// Why a [`Filter`] cannot be used on an analysis.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum FilterError {
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
    /// A thread the filter keeps was not built: its tracks would have more
    /// nodes than [`crate::AnalyzeOptions::max_nodes`] allows.
    OverNodeBudget {
        /// The thread.
        thread: ThreadRef,
        /// How many nodes it would have, at least.
        count: usize,
    },
    /// The window does not overlap the trace, which lasts `duration_ms`.
    WindowOutsideTrace {
        /// The window asked for, in ms from the start of the trace (an
        /// open end is infinite).
        window_ms: (f64, f64),
        /// How long the trace lasts, in ms.
        duration_ms: f64,
    },
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

/// A window as `START..END` in ms, an open end left empty.
pub fn window_text((start, end): (f64, f64)) -> String {
    let end_text = |x: f64| if x.is_finite() { format!("{x}") } else { String::new() };
    format!("{}..{}", end_text(start), end_text(end))
}

impl std::fmt::Display for FilterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FilterError::NoThread { query, threads, .. } if threads.is_empty() => {
                write!(f, "no thread matches '{query}'; the trace has no thread with tracks")
            }
            FilterError::NoThread { query, threads, .. } => {
                write!(f, "no thread matches '{query}'; threads: {}", thread_list(threads))
            }
            FilterError::AmbiguousThread { query, matches } => write!(
                f,
                "'{query}' matches threads of several names: {}; give the whole name or the tid",
                thread_list(matches)
            ),
            FilterError::OverNodeBudget { thread, count } => write!(
                f,
                "the tracks of {thread} have more nodes than the budget allows (at least {count})"
            ),
            FilterError::WindowOutsideTrace { window_ms, duration_ms } => write!(
                f,
                "the window {} ms lies outside the trace (0..{:.3} ms)",
                window_text(*window_ms),
                // Through µs, as the formats print times.
                Millis(*duration_ms).to_micros().to_millis().0
            ),
        }
    }
}

impl std::error::Error for FilterError {}

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

/// The threads with tracks that `query` names (see [`Filter::thread`]).
pub fn find_threads(analysis: &Analysis, query: &str) -> Result<Vec<ThreadRef>, FilterError> {
    let threads = threads(analysis);
    match match_threads(query, &threads) {
        Ok(found) => Ok(found),
        Err(matches) if !matches.is_empty() => Err(FilterError::AmbiguousThread {
            query: query.to_owned(),
            matches,
        }),
        Err(_) => Err(FilterError::NoThread {
            query: query.to_owned(),
            not_built: match_threads(query, &threads_not_built(analysis)).unwrap_or_default(),
            threads,
        }),
    }
}

impl Filter {
    /// Checks the filter against an analysis: the thread query names
    /// threads (see [`Analysis::find_threads`]), and the window overlaps the trace.
    pub fn validate(&self, analysis: &Analysis) -> Result<(), FilterError> {
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
                return Err(FilterError::OverNodeBudget { thread, count });
            }
        }
        if let Some((start, end)) = self.window_ms {
            let duration = analysis.bounds.range().to_millis().0;
            if duration.is_finite() && (end < 0.0 || start > duration) {
                return Err(FilterError::WindowOutsideTrace {
                    window_ms: (start, end),
                    duration_ms: duration,
                });
            }
        }
        Ok(())
    }

    /// The threads kept: `None` for all of them.
    pub fn kept_threads(&self, analysis: &Analysis) -> Option<Vec<(Id, Id)>> {
        let query = self.thread.as_ref()?;
        let found = find_threads(analysis, query).unwrap_or_default();
        Some(found.into_iter().map(|t| (t.pid, t.tid)).collect())
    }

    /// Whether every node of a kept thread is kept.
    pub fn keeps_every_node(&self) -> bool {
        self.window_ms.is_none() && self.max_depth.is_none() && self.min_duration_ms.is_none()
    }

    fn keeps_node(&self, node: &TrackNode, origin: Micros) -> bool {
        if self.max_depth.is_some_and(|max| node.depth() > max) {
            return false;
        }
        let dur = node.dur().unwrap_or(Micros::ZERO);
        if self.min_duration_ms.is_some_and(|min| dur < Millis(min).to_micros()) {
            return false;
        }
        if let Some((start, end)) = self.window_ms {
            let (s, e) = (
                (node.ts() - origin).to_millis().0,
                (node.ts() + dur - origin).to_millis().0,
            );
            if e < start || s > end {
                return false;
            }
        }
        true
    }

    /// The nodes of a track this filter keeps: a node left out takes its
    /// subtree with it.
    pub fn nodes<'t>(&'t self, track: &'t ThreadTrack, origin: Micros) -> impl Iterator<Item = &'t TrackNode> + 't {
        let mut hidden_below: Option<u32> = None;
        track.nodes.iter().filter(move |node| {
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
mod tests {
    use super::*;

    fn analysis() -> Analysis {
        let trace = br#"[
{"name":"thread_name","ph":"M","pid":1,"tid":10,"args":{"name":"CrRendererMain"}},
{"name":"thread_name","ph":"M","pid":1,"tid":11,"args":{"name":"Compositor"}},
{"name":"thread_name","ph":"M","pid":1,"tid":12,"args":{"name":"CompositorTileWorker"}},
{"name":"RunTask","ph":"X","pid":1,"tid":10,"ts":10,"dur":5},
{"name":"RunTask","ph":"X","pid":1,"tid":11,"ts":10,"dur":5},
{"name":"RunTask","ph":"X","pid":1,"tid":12,"ts":10,"dur":5}]"#;
        crate::analyze_bytes(trace, &crate::AnalyzeOptions::default()).unwrap()
    }

    fn tids(found: Result<Vec<ThreadRef>, FilterError>) -> Vec<String> {
        found.unwrap().into_iter().map(|t| t.tid_text).collect()
    }

    #[test]
    fn thread_queries() {
        let a = analysis();
        // An exact name wins over the names it is part of.
        assert_eq!(tids(find_threads(&a, "compositor")), ["11"]);
        assert_eq!(tids(find_threads(&a, "tile")), ["12"]);
        assert_eq!(tids(find_threads(&a, "12")), ["12"]);
        assert_eq!(
            find_threads(&a, "comp").unwrap_err().to_string(),
            "'comp' matches threads of several names: Compositor (tid 11), CompositorTileWorker (tid 12); give the whole name or the tid"
        );
        let none = Filter {
            thread: Some("gpu".into()),
            ..Filter::default()
        };
        assert_eq!(
            none.validate(&a).unwrap_err().to_string(),
            "no thread matches 'gpu'; threads: CrRendererMain (tid 10), Compositor (tid 11), CompositorTileWorker (tid 12)"
        );
        // The formats keep no thread for a query that matches none.
        assert!(none.kept_threads(&a) == Some(Vec::new()));
    }
}
