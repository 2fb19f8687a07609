//! The files other tools and people read (`docs/exports.md`): the sync
//! tracks handed to speedscope, pprof, Perfetto, flame graph tools and
//! d3-flame-graph, so that each of them shows DevTools' merged JS and
//! trace event tracks rather than building its own; and the flame chart
//! page ([`chart`], `docs/chart.md`).
//!
//! Two shapes of export are made from the same walk of a thread's nodes
//! (those a [`Query`] keeps, in pre-order):
//!
//! - *timelines*, where each node is a call with a start and an end
//!   ([`speedscope()`], [`perfetto()`]): the nodes are written as nested
//!   open and close steps (`timeline::Steps`), in pieces that are
//!   written on all cores with [`Parallelism::Rayon`]
//!   and joined in order;
//! - *aggregates*, where calls along the same stack are summed
//!   ([`folded()`], [`d3()`], [`pprof()`]): the nodes are merged into a
//!   tree of distinct stacks (`stacks::StackTree`) with their self and total
//!   time.
//!
//! Every export keeps each thread's self time: the self times a viewer
//! computes from it add up to those of the tracks (a test checks it on
//! the recorded fixtures). Functions take an [`Analysis`], a [`Query`]
//! and a [`Parallelism`] (the bytes are the same whatever it is) and
//! return the file's bytes; they do no I/O, but
//! [`Format::write`] writes the file to a writer it is handed, piece by
//! piece.

pub mod chart;
mod d3;
mod folded;
mod perfetto;
mod pprof;
mod speedscope;
mod stacks;
mod timeline;

use std::fmt::Write as _;
use std::io;

use indexmap::IndexMap;
use tracekit_engine::{Id, Micros, Strings, Sym};
use tracekit_engine::{NodeKind, ProcessTracks, ThreadTrack, TrackNode};

use tracekit_engine::query::Query;
use tracekit_engine::Analysis;
use tracekit_engine::Parallelism;

pub use d3::d3;
pub use folded::{folded, folded_bottom_up, folded_to_draw};
pub use perfetto::{perfetto, write_perfetto};
pub use pprof::pprof;
pub use speedscope::{speedscope, write_speedscope};

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
    pub fn export(self, analysis: &Analysis, query: &Query, parallelism: Parallelism) -> Vec<u8> {
        match self {
            Format::Speedscope => speedscope::speedscope_bytes(analysis, query, parallelism),
            Format::Pprof => pprof(analysis, query, parallelism),
            Format::Perfetto => perfetto(analysis, query, parallelism),
            Format::Folded => folded(analysis, query, parallelism).into_bytes(),
            Format::D3 => d3(analysis, query, parallelism).into_bytes(),
        }
    }

    /// Writes the export of `analysis` in this format to `w`: the bytes of
    /// [`Format::export`]. The timelines (speedscope, Perfetto) are
    /// written piece by piece as they are made, on all cores with
    /// `parallelism` [`Parallelism::Rayon`], so that the
    /// whole file is never held at once; the other formats are made whole
    /// first.
    pub fn write(
        self,
        analysis: &Analysis,
        query: &Query,
        parallelism: Parallelism,
        w: &mut dyn io::Write,
    ) -> io::Result<()> {
        match self {
            Format::Speedscope => write_speedscope(analysis, query, parallelism, w),
            Format::Perfetto => write_perfetto(analysis, query, parallelism, w),
            Format::Pprof | Format::Folded | Format::D3 => w.write_all(&self.export(analysis, query, parallelism)),
        }
    }

    /// Whether the format is binary (not text).
    pub fn is_binary(self) -> bool {
        matches!(self, Format::Pprof | Format::Perfetto)
    }
}

/// How a timeline export (speedscope, Perfetto) writes the threads it is
/// given to `w`, piece by piece as it makes them, on all cores with
/// [`Parallelism::Rayon`].
pub(crate) type WriteThreads = fn(&Analysis, &[KeptThread<'_>], Parallelism, &mut dyn io::Write) -> io::Result<()>;

/// A timeline export of the threads `query` keeps, written to `w`.
pub(crate) fn write_timeline(
    analysis: &Analysis,
    query: &Query,
    parallelism: Parallelism,
    w: &mut dyn io::Write,
    write_threads: WriteThreads,
) -> io::Result<()> {
    write_threads(analysis, &kept_threads(analysis, query), parallelism, w)
}

/// A timeline export of the threads `query` keeps, as bytes, in a list
/// with room for `bytes_per_node` bytes a kept node taken at once: grown
/// by doubling, the bench trace's 95 MB timelines were copied again at
/// each size, into fresh pages each time. Natively, room not used is never
/// touched; in WebAssembly it is memory, but less than doubling's old and
/// new lists at once.
pub(crate) fn timeline_bytes(
    analysis: &Analysis,
    query: &Query,
    parallelism: Parallelism,
    bytes_per_node: usize,
    write_threads: WriteThreads,
) -> Vec<u8> {
    let threads = kept_threads(analysis, query);
    let nodes: usize = threads.iter().map(|t| t.nodes.len()).sum();
    let mut out = Vec::with_capacity(nodes.saturating_mul(bytes_per_node));
    write_threads(analysis, &threads, parallelism, &mut out).expect("a Vec takes any bytes");
    out
}

/// A thread the query keeps, with its kept nodes and the names the
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
    /// The nodes the query keeps, in pre-order (a node's parent is kept
    /// whenever it is).
    pub nodes: Vec<&'a TrackNode>,
    /// The query's window in the trace's clock (µs), if any: times are
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

/// The threads with nodes that `query` keeps, in the order of the other
/// formats (DevTools' order of processes, then of their threads).
pub(crate) fn kept_threads<'a>(analysis: &'a Analysis, query: &'a Query) -> Vec<KeptThread<'a>> {
    let interner = analysis.strings();
    let origin = origin(analysis);
    let kept = query.kept_threads(analysis);
    let window = query
        .window()
        .map(|window| (origin + window.start().to_micros(), origin + window.end().to_micros()));
    let mut out = Vec::new();
    for (pid, process) in analysis.process_tracks() {
        for (tid, track) in &process.threads {
            if kept.as_ref().is_some_and(|k| !k.contains(&(*pid, *tid))) {
                continue;
            }
            let nodes: Vec<&TrackNode> = query.nodes(track, origin).collect();
            if nodes.is_empty() {
                continue;
            }
            let thread =
                tracekit_engine::query::ThreadRef::new(*pid, *tid, tid.to_js_string(interner), track.name.clone());
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
    let interner = analysis.strings();
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
    if analysis.bounds().min.is_finite() {
        analysis.bounds().min
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
    /// The number of each event name's frame, by the name's [`Sym`]
    /// ([`NO_FRAME`] before its first use): most nodes are events of a
    /// few names, found here without hashing.
    by_event_name: Vec<u32>,
}

/// No frame number given yet.
const NO_FRAME: u32 = u32::MAX;

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

    /// The numbering of a thread's nodes' frames.
    pub fn of_thread<'f>(&'f mut self, track: &'f ThreadTrack) -> ThreadFrames<'f> {
        ThreadFrames {
            frames: self,
            track,
            by_js_frame: vec![NO_FRAME; track.js_frames.len()],
        }
    }

    /// The frame of a number.
    pub fn key(&self, index: u32) -> FrameKey {
        *self.index.get_index(index as usize).expect("a frame's number").0
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

/// The frame numbers of one thread's nodes: those of [`Frames`], found
/// for most nodes by their event name or JS function (a profile node's
/// index) in a table, without making and hashing their [`FrameKey`].
pub(crate) struct ThreadFrames<'f> {
    frames: &'f mut Frames,
    track: &'f ThreadTrack,
    /// The number of each of the thread's JS functions' frames, by index
    /// into its `js_frames` ([`NO_FRAME`] before its first use).
    by_js_frame: Vec<u32>,
}

impl ThreadFrames<'_> {
    /// The frame of a number.
    pub fn key(&self, index: u32) -> FrameKey {
        self.frames.key(index)
    }

    /// The number of a node's frame, given it on first use.
    pub fn index(&mut self, node: &TrackNode) -> u32 {
        match node.kind() {
            NodeKind::Event { name, .. } => {
                let at = name.0 as usize;
                if at >= self.frames.by_event_name.len() {
                    self.frames.by_event_name.resize(at + 1, NO_FRAME);
                }
                if self.frames.by_event_name[at] == NO_FRAME {
                    self.frames.by_event_name[at] = self.frames.index(FrameKey::of(self.track, node));
                }
                self.frames.by_event_name[at]
            }
            NodeKind::Call { frame } => {
                let at = frame as usize;
                match self.by_js_frame.get(at) {
                    Some(&NO_FRAME) => {
                        let index = self.frames.index(FrameKey::of(self.track, node));
                        self.by_js_frame[at] = index;
                        index
                    }
                    Some(&index) => index,
                    // Not a function of the thread's profile.
                    None => self.frames.index(FrameKey::UnknownJs),
                }
            }
        }
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
