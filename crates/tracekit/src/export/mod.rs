//! The files other tools and people read (`docs/exports.md`): the sync
//! tracks handed to speedscope, pprof, Perfetto, flame graph tools and
//! d3-flame-graph, so that each of them shows DevTools' merged JS and
//! trace event tracks rather than building its own; and the flame chart
//! page ([`chart`], `docs/chart.md`).
//!
//! Two shapes of export are made from the same walk of a thread's nodes
//! (those a [`Filter`] keeps, in pre-order):
//!
//! - *timelines*, where each node is a call with a start and an end
//!   ([`speedscope()`], [`perfetto()`]): the nodes are written as nested
//!   open and close steps (`Steps`);
//! - *aggregates*, where calls along the same stack are summed
//!   ([`folded()`], [`d3()`], [`pprof()`]): the nodes are merged into a
//!   tree of distinct stacks (`stacks::StackTree`) with their self and total
//!   time.
//!
//! Every export keeps each thread's self time: the self times a viewer
//! computes from it add up to those of the tracks (a test checks it on
//! the recorded fixtures). Functions take an [`Analysis`] and a
//! [`Filter`] and return the file's bytes; they do no I/O.

pub mod chart;
mod d3;
mod folded;
mod perfetto;
mod pprof;
mod speedscope;
mod stacks;

use std::fmt::Write as _;

use indexmap::IndexMap;
use tracekit_events::{Id, Micros, Strings, Sym};
use tracekit_renderer::{NodeKind, ProcessTracks, ThreadTrack, TrackNode};

use crate::engine::Analysis;
use crate::output::Filter;

pub use d3::d3;
pub use folded::{folded, folded_bottom_up};
pub use perfetto::perfetto;
pub use pprof::pprof;
pub use speedscope::speedscope;

/// An export format, for front ends that choose one by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// speedscope's JSON file format ([`speedscope()`]).
    Speedscope,
    /// pprof's gzipped `profile.proto` ([`pprof()`]).
    Pprof,
    /// A Perfetto protobuf trace ([`perfetto()`]).
    Perfetto,
    /// Folded stacks, as flamegraph.pl and inferno read them ([`folded()`]).
    Folded,
    /// d3-flame-graph's JSON ([`d3()`]).
    D3,
}

impl Format {
    /// The export of `analysis` in this format, as the file's bytes.
    pub fn export(self, analysis: &Analysis, filter: &Filter) -> Vec<u8> {
        match self {
            Format::Speedscope => speedscope(analysis, filter).into_bytes(),
            Format::Pprof => pprof(analysis, filter),
            Format::Perfetto => perfetto(analysis, filter),
            Format::Folded => folded(analysis, filter).into_bytes(),
            Format::D3 => d3(analysis, filter).into_bytes(),
        }
    }

    /// Whether the format is binary (not text).
    pub fn is_binary(self) -> bool {
        matches!(self, Format::Pprof | Format::Perfetto)
    }
}

/// A thread the filter keeps, with its kept nodes and the names the
/// exports give it and its process.
pub(crate) struct KeptThread<'a> {
    pub pid: Id,
    pub tid: Id,
    pub process: &'a ProcessTracks,
    pub track: &'a ThreadTrack,
    /// Its process's name as the exports show it: `Renderer (pid 12)
    /// http://a.test/`, `pid 12` when nothing more is known.
    pub process_label: String,
    /// `CrRendererMain (tid 13)`, or `tid 13` without a name.
    pub thread_label: String,
    /// The nodes the filter keeps, in pre-order (a node's parent is kept
    /// whenever it is).
    pub nodes: Vec<&'a TrackNode>,
    /// The filter's window in the trace's clock (µs), if any: times are
    /// clipped to it, as DevTools' views clip them to a selection.
    pub window: Option<(Micros, Micros)>,
}

impl KeptThread<'_> {
    /// A time clipped to the window.
    pub fn clip(&self, t: Micros) -> Micros {
        match self.window {
            Some((start, end)) => t.max(start).min(end),
            None => t,
        }
    }
}

/// The threads with nodes that `filter` keeps, in the order of the other
/// formats (DevTools' order of processes, then of their threads).
pub(crate) fn kept_threads<'a>(analysis: &'a Analysis, filter: &'a Filter) -> Vec<KeptThread<'a>> {
    let interner = &analysis.strings;
    let origin = origin(analysis);
    let kept = filter.kept_threads(analysis);
    let window = filter.window_ms.map(|(start, end)| {
        let at = |ms: f64| origin + tracekit_events::Millis(ms).to_micros();
        (at(start), at(end))
    });
    let mut out = Vec::new();
    for (pid, process) in &analysis.processes {
        for (tid, track) in &process.threads {
            if kept.as_ref().is_some_and(|k| !k.contains(&(*pid, *tid))) {
                continue;
            }
            let nodes: Vec<&TrackNode> = filter.nodes(track, origin).collect();
            if nodes.is_empty() {
                continue;
            }
            let thread = crate::output::ThreadRef {
                pid: *pid,
                tid: *tid,
                tid_text: tid.to_js_string(interner),
                name: track.name.clone(),
            };
            out.push(KeptThread {
                pid: *pid,
                tid: *tid,
                process,
                track,
                process_label: process_label(analysis, *pid, process),
                thread_label: thread.to_string(),
                nodes,
                window,
            });
        }
    }
    out
}

/// `Renderer (pid 12) http://a.test/`: the process's name, pid and URL,
/// each when known.
fn process_label(analysis: &Analysis, pid: Id, process: &ProcessTracks) -> String {
    let interner = &analysis.strings;
    let pid_text = pid.to_js_string(interner);
    let mut label = match analysis.process_name(pid) {
        Some(name) => format!("{name} (pid {pid_text})"),
        None => format!("pid {pid_text}"),
    };
    if let Some(url) = process.url.map(|u| interner.resolve(u)).filter(|u| !u.is_empty()) {
        let _ = write!(label, " {url}");
    }
    label
}

/// The time the exports count from: the start of the trace (the zero of
/// DevTools' ruler), or 0 when the trace has no bounds.
pub(crate) fn origin(analysis: &Analysis) -> Micros {
    if analysis.bounds.min.is_finite() {
        analysis.bounds.min
    } else {
        Micros::ZERO
    }
}

/// What tells two frames apart: an event by its name, a JS function by
/// its name and where it is (as DevTools' views tell functions apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum FrameKey {
    Event {
        name: Sym,
    },
    Js {
        function: Sym,
        url: Sym,
        /// 1-based, as DevTools shows it; `None` when unknown.
        line: Option<u64>,
        column: Option<u64>,
    },
    /// A JS call whose function is missing from its profile.
    UnknownJs,
}

impl FrameKey {
    /// The frame of a node.
    pub fn of(track: &ThreadTrack, node: &TrackNode) -> FrameKey {
        match (&node.kind(), track.js_frame(&node.kind())) {
            (NodeKind::Event { name, .. }, _) => FrameKey::Event { name: *name },
            (NodeKind::Call { .. }, Some(js)) => FrameKey::Js {
                function: js.call_frame.function_name,
                url: js.call_frame.url,
                line: one_based(js.call_frame.line_number),
                column: one_based(js.call_frame.column_number),
            },
            (NodeKind::Call { .. }, None) => FrameKey::UnknownJs,
        }
    }

    /// The name shown for the frame: the event's name, the function's
    /// name or `(anonymous)`.
    pub fn name(self, interner: &Strings) -> &str {
        match self {
            FrameKey::Event { name } => match interner.resolve(name) {
                "" => "(unnamed event)",
                name => name,
            },
            FrameKey::Js { function, .. } => match interner.resolve(function) {
                "" => "(anonymous)",
                name => name,
            },
            FrameKey::UnknownJs => "(unknown JS function)",
        }
    }

    /// The script's URL of a JS frame (empty for events and scripts
    /// without one).
    pub fn url(self, interner: &Strings) -> &str {
        match self {
            FrameKey::Js { url, .. } => interner.resolve(url),
            _ => "",
        }
    }

    /// `URL:LINE:COLUMN` of a JS frame, 1-based, each part when known;
    /// empty when none is.
    pub fn location(self, interner: &Strings) -> String {
        let FrameKey::Js { url, line, column, .. } = self else {
            return String::new();
        };
        let mut out = interner.resolve(url).to_owned();
        if let Some(line) = line {
            let _ = write!(out, ":{line}");
            if let Some(column) = column {
                let _ = write!(out, ":{column}");
            }
        }
        out
    }

    /// The name and location in one string (`work http://a.test/x.js:3:9`),
    /// which tells functions of the same name apart in aggregated views.
    pub fn label(self, interner: &Strings) -> String {
        let location = self.location(interner);
        let name = self.name(interner);
        if location.is_empty() {
            name.to_owned()
        } else {
            format!("{name} {location}")
        }
    }
}

/// A 0-based line or column of a profile as the 1-based one DevTools
/// shows; `None` for an unknown (negative) or unusable one.
fn one_based(x: Option<f64>) -> Option<u64> {
    // Lines and columns of real scripts are far below 2^53.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    x.filter(|x| x.is_finite() && *x >= 0.0 && *x < 9e15)
        .map(|x| x as u64 + 1)
}

/// The distinct frames of an export, numbered in order of first use.
#[derive(Default)]
pub(crate) struct Frames {
    index: IndexMap<FrameKey, (), ahash::RandomState>,
}

impl Frames {
    /// The number of a frame, given it on first use.
    pub fn index(&mut self, key: FrameKey) -> u32 {
        let (index, _) = self.index.insert_full(key, ());
        // A frame per track node at most, and a thread has fewer than
        // u32::MAX nodes (the renderer indexes them with u32).
        #[allow(clippy::cast_possible_truncation)]
        let index = index as u32;
        index
    }

    /// The frames in order of their numbers.
    pub fn keys(&self) -> impl Iterator<Item = FrameKey> + '_ {
        self.index.keys().copied()
    }

    /// How many frames there are.
    pub fn len(&self) -> usize {
        self.index.len()
    }
}

/// One step of a timeline: a node opens or closes, at a time in
/// microseconds.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step<'a> {
    Open(&'a TrackNode, Micros),
    Close(&'a TrackNode, Micros),
}

/// The nodes of a thread as properly nested open and close steps, in
/// time order, clipped to the window. Each node closes at its end, except when that would come
/// before a time already stepped past (a node a profile left open, with
/// no duration, but children): then it closes there, so that the steps
/// never go back in time and children close inside their parents, as
/// timeline viewers require.
pub(crate) struct Steps<'a, 'n> {
    thread: &'n KeptThread<'a>,
    nodes: std::slice::Iter<'n, &'a TrackNode>,
    /// The open nodes, with their ends.
    open: Vec<(&'a TrackNode, Micros)>,
    /// The next node to open, once the nodes it is not inside are closed.
    pending: Option<&'a TrackNode>,
    /// The latest time stepped to.
    now: Micros,
}

impl<'a, 'n> Steps<'a, 'n> {
    /// The steps of a thread's kept nodes, times clipped to its window.
    pub fn new(thread: &'n KeptThread<'a>) -> Self {
        Steps {
            thread,
            nodes: thread.nodes.iter(),
            open: Vec::new(),
            pending: None,
            now: Micros(f64::NEG_INFINITY),
        }
    }
}

impl<'a> Iterator for Steps<'a, '_> {
    type Item = Step<'a>;

    fn next(&mut self) -> Option<Step<'a>> {
        if self.pending.is_none() {
            self.pending = self.nodes.next().copied();
        }
        // The nodes a node is not inside are those open as deep as it or
        // deeper; all of them when there is no node left.
        let deepest_kept = self.pending.map_or(0, |n| n.depth() as usize);
        if self.open.len() > deepest_kept {
            let (node, end) = self.open.pop().expect("more open nodes than kept");
            self.now = self.now.max(end);
            return Some(Step::Close(node, self.now));
        }
        let node = self.pending.take()?;
        self.now = self.now.max(self.thread.clip(node.ts()));
        let end = self.thread.clip(node.ts() + node.dur().unwrap_or(Micros::ZERO));
        self.open.push((node, end));
        Some(Step::Open(node, self.now))
    }
}

/// Turns values into whole units so that their running sum is always the
/// exact running sum rounded: each value is off by less than one unit, and
/// a thread's values add up to its exact total, rounded.
#[derive(Default)]
pub(crate) struct RoundedSum {
    exact: f64,
    given: i64,
}

impl RoundedSum {
    /// `x` (in the units to round to) as a whole number of them.
    pub fn take(&mut self, x: f64) -> i64 {
        self.exact += x.max(0.0);
        // Self times of a trace add up to far less than 2^63 units.
        #[allow(clippy::cast_possible_truncation)]
        let total = self.exact.round() as i64;
        let value = total - self.given;
        self.given = total;
        value
    }
}

#[cfg(test)]
mod tests;
