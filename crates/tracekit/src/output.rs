//! The ways tracks are printed: the conformance dump (compared with the
//! DevTools oracle), a readable indented tree for people and snapshot
//! tests, and a JSON document for viewers (see `docs/json-format.md`).

use std::fmt::Write;
use std::io;

use tracekit_events::jsnum::{round3, write_js_number, write_json_number, write_json_number_round3};
use tracekit_events::json::write_json_string;
use tracekit_events::Id;
use tracekit_events::{Micros, Millis, Parallelism};
use tracekit_renderer::{JsFrame, NodeKind, ProcessTracks, ThreadTrack, TrackNode};

use crate::engine::Analysis;
use crate::loader::InputKind;

/// Which part of the tracks to print: the options of `tracekit tracks`.
///
/// ```
/// use tracekit::output::{text, Filter};
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
                "the window {} ms lies outside the trace (0..{} ms)",
                window_text(*window_ms),
                ms(Millis(*duration_ms).to_micros())
            ),
        }
    }
}

impl std::error::Error for FilterError {}

/// Every thread with tracks, in the order the formats print them.
pub(crate) fn threads(analysis: &Analysis) -> Vec<ThreadRef> {
    let interner = &analysis.strings;
    processes(analysis)
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
    let Some(meta) = &analysis.meta else {
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
pub(crate) fn find_threads(analysis: &Analysis, query: &str) -> Result<Vec<ThreadRef>, FilterError> {
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
    pub(crate) fn kept_threads(&self, analysis: &Analysis) -> Option<Vec<(Id, Id)>> {
        let query = self.thread.as_ref()?;
        let found = find_threads(analysis, query).unwrap_or_default();
        Some(found.into_iter().map(|t| (t.pid, t.tid)).collect())
    }

    /// Whether every node of a kept thread is kept.
    pub(crate) fn keeps_every_node(&self) -> bool {
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

/// Hands the text built so far to the writer once it is large, so that
/// output of any size takes little memory.
fn flush_if_large(out: &mut String, w: &mut dyn io::Write) -> io::Result<()> {
    if out.len() >= 1 << 20 {
        w.write_all(out.as_bytes())?;
        out.clear();
    }
    Ok(())
}

/// Runs a writer-based format into a string.
fn to_string(write: impl FnOnce(&mut dyn io::Write) -> io::Result<()>) -> String {
    let mut bytes = Vec::new();
    write(&mut bytes).expect("writing to memory cannot fail");
    String::from_utf8(bytes).expect("the formats write UTF-8")
}

/// The processes to print: those DevTools keeps, or all that were built.
fn processes(analysis: &Analysis) -> impl Iterator<Item = (&Id, &ProcessTracks)> {
    analysis.processes.iter()
}

/// A time in µs as the JSON formats write it: rounded to the nanosecond
/// (3 decimals), as DevTools' own dumps round. The tracks' times are sums
/// and differences of doubles (a node's self time is its duration less
/// its children's), whose last bits are noise (`8800.000001986973`): a
/// nanosecond is finer than any trace's clock, so rounding loses nothing.
pub(crate) fn push_number(out: &mut String, x: f64) {
    write_json_number_round3(out, x);
}

/// The conformance dump: exactly what `xtask/js/oracle.mjs` prints from the
/// DevTools engine, one line.
pub fn conformance(analysis: &Analysis) -> String {
    to_string(|w| write_conformance(analysis, &Filter::default(), w))
}

/// Writes [`conformance`] to `w` in pieces of about a megabyte (so that a
/// large dump is never held whole), keeping only what `filter` keeps.
pub fn write_conformance(analysis: &Analysis, filter: &Filter, w: &mut dyn io::Write) -> io::Result<()> {
    let interner = &analysis.strings;
    let mut out = String::with_capacity(1 << 21);
    out.push_str("{\"processes\":");
    write_processes(
        &mut out,
        w,
        analysis,
        filter,
        "entries",
        false,
        // The label of each JS frame, escaped once: a frame is the label of
        // thousands of calls.
        |track| {
            let mut label = String::new();
            track
                .js_frames
                .iter()
                .map(|frame| {
                    label.clear();
                    frame.call_frame.write_label(&mut label, interner);
                    let mut escaped = String::with_capacity(label.len() + 2);
                    write_json_string(&mut escaped, &label);
                    escaped
                })
                .collect::<Vec<String>>()
        },
        |out, js_labels, _, node| {
            out.push('[');
            out.push_str(itoa::Buffer::new().format(node.depth()));
            out.push(',');
            match node.kind() {
                NodeKind::Event { name, .. } => write_json_string(out, interner.resolve(name)),
                NodeKind::Call { frame } => match js_labels.get(frame as usize) {
                    Some(label) => out.push_str(label),
                    None => write_json_string(out, "js:?"),
                },
            }
            write_node_times(out, node, [",", ",", ","]);
            out.push(']');
        },
    )?;
    out.push_str(",\"bounds\":{\"min\":");
    push_number(&mut out, analysis.bounds.min.0);
    out.push_str(",\"max\":");
    push_number(&mut out, analysis.bounds.max.0);
    out.push_str("}}\n");
    w.write_all(out.as_bytes())
}

/// A node's start, duration (0 when it has none) and self time (`null`
/// when it has none), rounded to the nanosecond, each after its prefix:
/// the times of both the conformance dump and the tracks JSON.
fn write_node_times(out: &mut String, node: &TrackNode, prefixes: [&str; 3]) {
    out.push_str(prefixes[0]);
    push_number(out, node.ts().0);
    out.push_str(prefixes[1]);
    push_number(out, node.dur().unwrap_or(Micros::ZERO).0);
    out.push_str(prefixes[2]);
    match node.self_time() {
        Some(s) => push_number(out, s.0),
        None => out.push_str("null"),
    }
}

/// Writes the `processes` array shared by the JSON formats: each process
/// with its threads, each thread with its nodes under `nodes_key`, each
/// node written by `write_node`, given what `prepare` made of its thread
/// once. What `out` holds is written first; what follows the array is
/// left in `out`.
///
/// The array is laid out first as [`Segment`]s, then formatted: with
/// [`Parallelism::Rayon`] and every node kept, on all cores, a few at a
/// time, while this thread writes them in order
/// ([`crate::in_order::write_in_order`]); else one after the other, in
/// pieces of about a megabyte.
#[allow(clippy::too_many_arguments)]
fn write_processes<P: Sync>(
    out: &mut String,
    w: &mut dyn io::Write,
    analysis: &Analysis,
    filter: &Filter,
    nodes_key: &str,
    with_kept_flag: bool,
    prepare: impl Fn(&ThreadTrack) -> P,
    write_node: impl Fn(&mut String, &P, &ThreadTrack, &TrackNode) + Sync,
) -> io::Result<()> {
    let Layout {
        tracks,
        segments,
        after,
    } = lay_out_processes(analysis, filter, nodes_key, with_kept_flag);
    let prepared: Vec<P> = tracks.iter().map(|track| prepare(track)).collect();
    let origin = analysis.bounds.min;
    let format =
        |out: &mut String, segment: &Segment, flush: &mut dyn FnMut(&mut String) -> io::Result<()>| -> io::Result<()> {
            out.push_str(&segment.before);
            let (track, prepared, range) = (tracks[segment.track], &prepared[segment.track], segment.nodes.clone());
            if filter.keeps_every_node() {
                for (i, node) in track.nodes[range.clone()].iter().enumerate() {
                    if range.start + i > 0 {
                        out.push(',');
                    }
                    write_node(out, prepared, track, node);
                    flush(out)?;
                }
            } else {
                for (i, node) in filter.nodes(track, origin).enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_node(out, prepared, track, node);
                    flush(out)?;
                }
            }
            Ok(())
        };
    if filter.parallelism == Parallelism::Rayon && filter.keeps_every_node() {
        w.write_all(out.as_bytes())?;
        out.clear();
        crate::in_order::write_in_order(&segments, Parallelism::Rayon, w, |segment| {
            // Room for nodes of 96 bytes (the bench trace's conformance dump
            // averages 90): what is not written is never touched.
            let mut text = String::with_capacity(segment.before.len() + segment.nodes.len() * 96);
            // A segment is small: nothing to flush on the way.
            let _ = format(&mut text, segment, &mut |_| Ok(()));
            text
        })?;
    } else {
        for segment in &segments {
            format(out, segment, &mut |out| flush_if_large(out, w))?;
        }
    }
    out.push_str(&after);
    Ok(())
}

/// Nodes formatted as one piece on the pool: about a megabyte of text.
const SEGMENT_NODES: usize = 1 << 14;

/// The `processes` array, laid out: the tracks written, in order; the
/// array as segments; and the text after the last segment.
struct Layout<'a> {
    tracks: Vec<&'a ThreadTrack>,
    segments: Vec<Segment>,
    after: String,
}

/// A stretch of the `processes` array: the text before some nodes of a
/// track (the end of the track before, the headers of the processes and
/// threads that start here), then those nodes.
struct Segment {
    /// The text before the nodes.
    before: String,
    /// The track the nodes are of: its place in [`Layout::tracks`].
    track: usize,
    /// Which of its nodes, before the filter (a filtered track is one
    /// segment).
    nodes: std::ops::Range<usize>,
}

/// The `processes` array as segments, in order. A track whose every node
/// is kept is cut every [`SEGMENT_NODES`] nodes.
fn lay_out_processes<'a>(analysis: &'a Analysis, filter: &Filter, nodes_key: &str, with_kept_flag: bool) -> Layout<'a> {
    let interner = &analysis.strings;
    let kept = filter.kept_threads(analysis);
    let (mut tracks, mut segments) = (Vec::new(), Vec::new());
    let mut text = String::from("[");
    for (pi, (pid, process)) in processes(analysis).enumerate() {
        if pi > 0 {
            text.push(',');
        }
        text.push_str("{\"pid\":");
        pid.write_json(&mut text, interner);
        text.push_str(",\"url\":");
        match process.url {
            Some(url) => write_json_string(&mut text, interner.resolve(url)),
            None => text.push_str("null"),
        }
        let _ = write!(text, ",\"isOnMainFrame\":{}", process.is_on_main_frame);
        if with_kept_flag {
            let _ = write!(text, ",\"keptByDevTools\":{}", process.kept_by_devtools);
        }
        text.push_str(",\"threads\":[");
        let mut first_thread = true;
        for (tid, track) in &process.threads {
            if kept.as_ref().is_some_and(|k| !k.contains(&(*pid, *tid))) {
                continue;
            }
            if !first_thread {
                text.push(',');
            }
            first_thread = false;
            text.push_str("{\"tid\":");
            tid.write_json(&mut text, interner);
            text.push_str(",\"name\":");
            match &track.name {
                Some(name) => write_json_string(&mut text, name),
                None => text.push_str("null"),
            }
            let _ = write!(text, ",\"{nodes_key}\":[");
            // A track whose every node is kept is cut every SEGMENT_NODES
            // nodes; a filtered one (what it keeps is known only as it is
            // walked) is one segment, as is a track with no node.
            let len = track.nodes.len();
            let step = if filter.keeps_every_node() {
                SEGMENT_NODES
            } else {
                len.max(1)
            };
            let mut start = 0;
            loop {
                let end = (start + step).min(len);
                segments.push(Segment {
                    before: std::mem::take(&mut text),
                    track: tracks.len(),
                    nodes: start..end,
                });
                start = end;
                if start == len {
                    break;
                }
            }
            tracks.push(track);
            text.push_str("]}");
        }
        text.push_str("]}");
    }
    text.push(']');
    Layout {
        tracks,
        segments,
        after: text,
    }
}

/// The deepest level the text format shows by indentation alone.
const MAX_INDENT: u32 = 40;

fn ms(x: Micros) -> String {
    format!("{:.3}", x.to_millis().0)
}

/// A readable, stable, diff-friendly indented tree: times in milliseconds
/// from the start of the trace.
pub fn text(analysis: &Analysis, filter: &Filter) -> String {
    to_string(|w| write_text(analysis, filter, w))
}

/// Writes [`text`] to `w`, in pieces of about a megabyte.
pub fn write_text(analysis: &Analysis, filter: &Filter, w: &mut dyn io::Write) -> io::Result<()> {
    let interner = &analysis.strings;
    let origin = if analysis.bounds.min.is_finite() {
        analysis.bounds.min
    } else {
        Micros::ZERO
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "trace: {:?}, {} ms long, times in ms from {} µs",
        analysis.kind,
        if analysis.bounds.range().is_finite() {
            ms(analysis.bounds.range())
        } else {
            "?".into()
        },
        tracekit_events::jsnum::js_number_string(round3(origin.0)),
    );
    let kept = filter.kept_threads(analysis);
    for (pid, process) in processes(analysis) {
        // With a thread query, or filters of nodes, a thread is printed
        // only when it has nodes to show, and a process only when one of
        // its threads is.
        let shows = |tid: &Id, track: &ThreadTrack| {
            kept.as_ref().is_none_or(|k| k.contains(&(*pid, *tid)))
                && (filter.keeps_every_node() || filter.nodes(track, origin).next().is_some())
        };
        let filtered = kept.is_some() || !filter.keeps_every_node();
        if filtered && !process.threads.iter().any(|(tid, track)| shows(tid, track)) {
            continue;
        }
        process_line(&mut out, analysis, *pid, process);
        for (tid, track) in &process.threads {
            if !shows(tid, track) {
                continue;
            }
            let _ = writeln!(
                out,
                "  thread {}{}",
                tid.to_js_string(interner),
                track.name.as_ref().map(|n| format!(" {n}")).unwrap_or_default()
            );
            for node in filter.nodes(track, origin) {
                // Indentation shows the depth up to a point; deeper, the
                // depth is written out, so that a line's length does not
                // grow with the stack (200,000 frames deep is real).
                for _ in 0..node.depth().min(MAX_INDENT) + 2 {
                    out.push_str("  ");
                }
                if node.depth() > MAX_INDENT {
                    let _ = write!(out, "[depth {}] ", node.depth());
                }
                match (&node.kind(), track.js_frame(&node.kind())) {
                    (NodeKind::Event { name, .. }, _) => out.push_str(interner.resolve(*name)),
                    (NodeKind::Call { .. }, None) => out.push_str("js ?"),
                    (NodeKind::Call { .. }, Some(js)) => {
                        let frame = &js.call_frame;
                        let name = interner.resolve(frame.function_name);
                        out.push_str("js ");
                        out.push_str(if name.is_empty() { "(anonymous)" } else { name });
                        write_js_location(
                            &mut out,
                            interner.resolve(frame.url),
                            frame.line_number,
                            frame.column_number,
                        );
                    }
                }
                let _ = write!(
                    out,
                    "  @{} +{}",
                    ms(node.ts() - origin),
                    ms(node.dur().unwrap_or(Micros::ZERO))
                );
                if let Some(s) = node.self_time() {
                    let _ = write!(out, " self {}", ms(s));
                }
                out.push('\n');
                flush_if_large(&mut out, w)?;
            }
        }
    }
    w.write_all(out.as_bytes())
}

/// ` URL:LINE:COLUMN` with the line and column counted from 1, as DevTools
/// shows them (profiles count from 0); an unknown (negative) line or
/// column is left out, and so is the whole location when nothing is known.
pub fn write_js_location(out: &mut String, url: &str, line: Option<f64>, column: Option<f64>) {
    let one_based = |x: Option<f64>| x.filter(|x| x.is_finite() && *x >= 0.0).map(|x| x + 1.0);
    let (line, column) = (one_based(line), one_based(column));
    if url.is_empty() && line.is_none() {
        return;
    }
    out.push(' ');
    out.push_str(url);
    if let Some(line) = line {
        out.push(':');
        write_js_number(out, line);
        if let Some(column) = column {
            out.push(':');
            write_js_number(out, column);
        }
    }
}

/// The process line of the text format: `process PID [NAME] [URL] [main
/// frame] [not shown by DevTools]`.
fn process_line(out: &mut String, analysis: &Analysis, pid: Id, process: &ProcessTracks) {
    let interner = &analysis.strings;
    let _ = write!(out, "process {}", pid.to_js_string(interner));
    if let Some(name) = analysis.process_name(pid) {
        let _ = write!(out, " {name}");
    }
    if let Some(url) = process.url {
        let _ = write!(out, " {}", interner.resolve(url));
    }
    if process.is_on_main_frame {
        out.push_str(" [main frame]");
    }
    if !process.kept_by_devtools {
        out.push_str(" [not shown by DevTools]");
    }
    out.push('\n');
}

/// The JSON document for viewers, one line; `docs/json-format.md` is its
/// schema.
pub fn json(analysis: &Analysis, filter: &Filter) -> String {
    to_string(|w| write_json(analysis, filter, w))
}

/// Writes [`json()`] to `w`, in pieces of about a megabyte.
pub fn write_json(analysis: &Analysis, filter: &Filter, w: &mut dyn io::Write) -> io::Result<()> {
    let interner = &analysis.strings;
    let mut out = String::with_capacity(1 << 21);
    out.push_str("{\"format\":\"tracekit-tracks\",\"version\":1,\"input\":");
    write_json_string(&mut out, &format!("{:?}", analysis.kind));
    out.push_str(",\"bounds\":{\"min\":");
    push_number(&mut out, analysis.bounds.min.0);
    out.push_str(",\"max\":");
    push_number(&mut out, analysis.bounds.max.0);
    out.push_str("},\"processes\":");
    write_processes(
        &mut out,
        w,
        analysis,
        filter,
        "nodes",
        true,
        |_| (),
        |out, _, track, node| {
            out.push_str("{\"depth\":");
            out.push_str(itoa::Buffer::new().format(node.depth()));
            match (&node.kind(), track.js_frame(&node.kind())) {
                (NodeKind::Event { name, cat, ph, .. }, _) => {
                    out.push_str(",\"type\":\"event\",\"name\":");
                    write_json_string(out, interner.resolve(*name));
                    out.push_str(",\"cat\":");
                    write_json_string(out, interner.resolve(*cat));
                    out.push_str(",\"ph\":");
                    write_json_string(out, &(ph.0 as char).to_string());
                }
                (NodeKind::Call { .. }, None) => out.push_str(",\"type\":\"js\""),
                (
                    NodeKind::Call { .. },
                    Some(JsFrame {
                        call_frame: frame,
                        node_id,
                        ..
                    }),
                ) => {
                    out.push_str(",\"type\":\"js\",\"functionName\":");
                    write_json_string(out, interner.resolve(frame.function_name));
                    out.push_str(",\"url\":");
                    write_json_string(out, interner.resolve(frame.url));
                    out.push_str(",\"scriptId\":");
                    write_json_string(out, interner.resolve(frame.script_id));
                    out.push_str(",\"lineNumber\":");
                    write_json_number(out, frame.line_number.unwrap_or(f64::NAN));
                    out.push_str(",\"columnNumber\":");
                    write_json_number(out, frame.column_number.unwrap_or(f64::NAN));
                    let _ = write!(out, ",\"nodeId\":{node_id}");
                }
            }
            write_node_times(out, node, [",\"ts\":", ",\"dur\":", ",\"self\":"]);
            out.push('}');
        },
    )?;
    out.push_str(",\"diagnostics\":");
    diagnostics_json(&mut out, &analysis.diagnostics.0);
    out.push_str("}\n");
    w.write_all(out.as_bytes())
}

fn diagnostics_json(out: &mut String, diag: &tracekit_events::Diagnostics) {
    out.push_str("{\"warnings\":[");
    for (i, w) in diag.warnings.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_json_string(out, w);
    }
    out.push_str("],\"skipped\":[");
    for (i, (reason, record)) in diag.skipped.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"reason\":");
        write_json_string(out, reason.as_str());
        let _ = write!(out, ",\"count\":{},\"firstExample\":", record.count);
        write_json_string(out, &record.first_example);
        out.push('}');
    }
    out.push_str("]}");
}

/// The diagnostics as lines of text: the input line, then
/// [`diagnostics`].
pub fn stats(analysis: &Analysis) -> String {
    let mut out = stats_without_warnings(analysis);
    let at = out.find('\n').map_or(out.len(), |i| i + 1);
    out.insert_str(at, &warning_lines(analysis));
    out
}

/// [`stats`] without its warnings, for a front end that prints them on
/// their own (`tracks --stats`).
pub fn stats_without_warnings(analysis: &Analysis) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "input: {:?}, {} events", analysis.kind, analysis.event_count);
    out.push_str(&repairs(analysis));
    out
}

fn warning_lines(analysis: &Analysis) -> String {
    analysis
        .diagnostics
        .warnings()
        .map(|w| format!("warning: {w}\n"))
        .collect()
}

/// What was skipped, repaired or done differently from DevTools while
/// loading, as lines of text: `warning: ...` (each once), `diverges from
/// DevTools: ...`, `skipped N x REASON (first: EXAMPLE)` or `skipped:
/// nothing`.
pub fn diagnostics(analysis: &Analysis) -> String {
    warning_lines(analysis) + &repairs(analysis)
}

/// The divergences and skips of [`diagnostics`].
fn repairs(analysis: &Analysis) -> String {
    let mut out = String::new();
    let d = &analysis.diagnostics.0;
    for (name, example) in &d.divergences {
        let _ = writeln!(
            out,
            "diverges from DevTools: {name} ({example}); see docs/divergences.md"
        );
    }
    if d.skipped.is_empty() {
        out.push_str("skipped: nothing\n");
    }
    for (reason, record) in &d.skipped {
        let _ = writeln!(
            out,
            "skipped {} x {reason} (first: {})",
            record.count, record.first_example
        );
    }
    out
}

/// `1 node`, `2 nodes`.
fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// What the input is, in words.
pub fn kind_name(kind: InputKind) -> &'static str {
    match kind {
        InputKind::ChromeTrace => "Chrome trace",
        InputKind::CpuProfile => "CPU profile",
        InputKind::SelfProfiling => "JS Self-Profiling trace",
    }
}

/// What an analysis holds, for people (`tracekit info`): the input's kind,
/// duration and events; each process with its name, URL and whether
/// DevTools shows it; each of its threads with tracks, with the number of
/// nodes of its tree (trace events and JS calls) and the samples of its
/// CPU profile; then [`diagnostics`]. Load with
/// [`crate::AnalyzeOptions::all_processes`] to see every process.
pub fn info(analysis: &Analysis) -> String {
    let interner = &analysis.strings;
    let mut out = String::new();
    let duration = analysis.bounds.range();
    let _ = writeln!(
        out,
        "input: {}, {} ms, {} events, {} bytes of JSON",
        kind_name(analysis.kind),
        if duration.is_finite() { ms(duration) } else { "?".into() },
        analysis.event_count,
        analysis.input_bytes
    );
    for (pid, process) in processes(analysis) {
        process_line(&mut out, analysis, *pid, process);
        for (tid, track) in &process.threads {
            let calls = track
                .nodes
                .iter()
                .filter(|n| matches!(n.kind(), NodeKind::Call { .. }))
                .count();
            let name = track.name.as_ref().map(|n| format!(" {n}")).unwrap_or_default();
            match track.over_budget {
                Some(at_least) => {
                    let _ = write!(
                        out,
                        "  thread {}{name}: not built, at least {} (over the budget), ",
                        tid.to_js_string(interner),
                        count(at_least, "node")
                    );
                }
                None => {
                    let _ = write!(
                        out,
                        "  thread {}{name}: {} ({}, {}), ",
                        tid.to_js_string(interner),
                        count(track.nodes.len(), "node"),
                        count(track.nodes.len() - calls, "event"),
                        count(calls, "JS call")
                    );
                }
            }
            let samples = analysis.profile_samples.get(pid).and_then(|t| t.get(tid));
            match samples {
                Some(n) => {
                    let _ = writeln!(out, "CPU profile of {}", count(*n, "sample"));
                }
                None => out.push_str("no CPU profile\n"),
            }
        }
    }
    if let Some(meta) = &analysis.meta {
        for (pid, name) in &meta.process_names {
            if !analysis.processes.contains_key(pid) {
                let _ = writeln!(
                    out,
                    "process {} {}: no tracks",
                    pid.to_js_string(interner),
                    interner.resolve(*name)
                );
            }
        }
    }
    out.push_str(&diagnostics(analysis));
    out
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
        assert!(!text(&a, &none).contains("RunTask"));
    }
}
