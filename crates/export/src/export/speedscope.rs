//! speedscope's file format (`https://www.speedscope.app/file-format-schema.json`):
//! one *evented* profile per thread, its calls opened and closed as the
//! sync tracks nest them, so that speedscope's Time Order view shows what
//! the Performance panel shows.

use std::io;

use tracekit_engine::support::jsnum::{round3, write_json_number, write_json_number_round3};
use tracekit_engine::support::json::write_json_string;
use tracekit_engine::{Micros, Parallelism};

use super::timeline::{timeline, Piece, Steps};
use super::{origin, timeline_bytes, write_timeline, FrameKey, Frames, KeptThread};
use crate::in_order::write_in_order;
use tracekit_engine::query::Query;
use tracekit_engine::Analysis;

/// The speedscope JSON of the threads `query` keeps: a profile per
/// thread, named `THREAD in PROCESS` (`CrRendererMain (tid 2) in
/// Renderer (pid 1) http://a.test/`), in microseconds from the start of the
/// trace (to the nanosecond), every profile spanning the whole trace (so that their times
/// line up); a frame per event name and per JS function (with its file,
/// line and column, 1-based). The profile shown first is the main frame's
/// main thread, else the thread with the most calls.
pub fn speedscope(analysis: &Analysis, query: &Query, parallelism: Parallelism) -> String {
    String::from_utf8(speedscope_bytes(analysis, query, parallelism)).expect("JSON text is UTF-8")
}

/// [`speedscope()`]'s file as bytes.
pub(crate) fn speedscope_bytes(analysis: &Analysis, query: &Query, parallelism: Parallelism) -> Vec<u8> {
    // About 40 bytes an event, two events a node.
    timeline_bytes(analysis, query, parallelism, 96, write_threads)
}

/// Writes [`speedscope()`]'s file to `w`, piece by piece as it is made
/// (on all cores with [`Parallelism::Rayon`]; the bytes are the same).
pub fn write_speedscope(
    analysis: &Analysis,
    query: &Query,
    parallelism: Parallelism,
    w: &mut dyn io::Write,
) -> io::Result<()> {
    write_timeline(analysis, query, parallelism, w, write_threads)
}

fn write_threads(
    analysis: &Analysis,
    threads: &[KeptThread<'_>],
    parallelism: Parallelism,
    w: &mut dyn io::Write,
) -> io::Result<()> {
    let interner = analysis.strings();
    // The frames come first in the file: numbered in order of first use,
    // which is the order of the nodes (a frame is first used when a node
    // opens), before the profiles are written, while the pieces are cut.
    let number_frames = || {
        let mut frames = Frames::default();
        let node_frames: Vec<Vec<u32>> = threads
            .iter()
            .map(|thread| {
                let mut frames = frames.of_thread(thread.track);
                thread.nodes.iter().map(|node| frames.index(node)).collect()
            })
            .collect();
        (frames, node_frames)
    };
    let ((frames, node_frames), timeline) = parallelism.join(number_frames, || timeline(threads));
    let mut head = String::with_capacity(frames.len() * 64 + 256);
    head.push_str("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":");
    write_json_string(&mut head, &format!("tracekit {}", env!("CARGO_PKG_VERSION")));
    head.push_str(",\"name\":");
    write_json_string(&mut head, crate::output::kind_name(analysis.kind()));
    head.push_str(",\"activeProfileIndex\":");
    head.push_str(itoa::Buffer::new().format(first_shown(threads)));
    head.push_str(",\"shared\":{\"frames\":[");
    for (i, key) in frames.keys().enumerate() {
        if i > 0 {
            head.push(',');
        }
        head.push_str("{\"name\":");
        write_json_string(&mut head, key.name(interner));
        if let FrameKey::Js { line, column, .. } = key {
            if !key.url(interner).is_empty() {
                head.push_str(",\"file\":");
                write_json_string(&mut head, key.url(interner));
            }
            for (field, value) in [("line", line), ("col", column)] {
                if let Some(value) = value {
                    head.push_str(",\"");
                    head.push_str(field);
                    head.push_str("\":");
                    head.push_str(itoa::Buffer::new().format(value));
                }
            }
        }
        head.push('}');
    }
    head.push_str("]},\"profiles\":[");
    w.write_all(head.as_bytes())?;

    let range = analysis.bounds().range();
    let profiles = Profiles {
        threads,
        node_frames: &node_frames,
        origin: origin(analysis),
        range: if range.is_finite() { round3(range.0) } else { 0.0 },
        spans: timeline.spans,
    };
    write_in_order(&timeline.pieces, parallelism, w, |piece| {
        // About 40 bytes a step, two steps a node.
        let mut out = String::with_capacity(piece.nodes.len() * 96);
        profiles.write_piece(&mut out, piece);
        out
    })?;
    w.write_all(b"]}\n")
}

/// What the threads' evented profiles are written from.
struct Profiles<'t, 'a> {
    threads: &'t [KeptThread<'a>],
    /// For each thread, each kept node's frame.
    node_frames: &'t [Vec<u32>],
    /// The time that is 0 in the file.
    origin: Micros,
    /// The trace's duration in µs, rounded to the nanosecond.
    range: f64,
    /// For each thread, the times of its first and last steps.
    spans: Vec<(Micros, Micros)>,
}

impl Profiles<'_, '_> {
    /// A piece of a thread's profile: its opening with the thread's first
    /// piece, the piece's events, its end with the thread's last piece.
    fn write_piece(&self, out: &mut String, piece: &Piece) {
        let thread = &self.threads[piece.thread];
        let frames = &self.node_frames[piece.thread];
        if piece.is_first() {
            if piece.thread > 0 {
                out.push(',');
            }
            out.push_str("{\"type\":\"evented\",\"name\":");
            write_json_string(out, &format!("{} in {}", thread.thread_label, thread.process_label));
            out.push_str(",\"unit\":\"microseconds\",\"events\":[");
        }
        for (i, step) in Steps::of_piece(thread, piece).enumerate() {
            if i > 0 || !piece.is_first() {
                out.push(',');
            }
            out.push_str(if step.opens {
                "{\"type\":\"O\",\"frame\":"
            } else {
                "{\"type\":\"C\",\"frame\":"
            });
            out.push_str(itoa::Buffer::new().format(frames[step.kept]));
            // To the nanosecond, the precision of trace timestamps, without
            // the noise of the subtraction.
            out.push_str(",\"at\":");
            write_json_number_round3(out, (step.at - self.origin).0);
            out.push('}');
        }
        if piece.is_last(self.threads) {
            // speedscope counts from startValue and refuses to go back in
            // time: a thread's calls before the trace's start (there are
            // some) widen its span. Steps never go back in time: the first
            // and last are the earliest and latest (rounding keeps their
            // order).
            let (first, last) = self.spans[piece.thread];
            out.push_str("],\"startValue\":");
            write_json_number(out, round3((first - self.origin).0).min(0.0));
            out.push_str(",\"endValue\":");
            write_json_number(out, round3((last - self.origin).0).max(self.range));
            out.push('}');
        }
    }
}

/// The profile speedscope opens on: the first main thread
/// (`CrRendererMain`) of a process that rendered the main frame, else the
/// thread with the most calls.
fn first_shown(threads: &[KeptThread<'_>]) -> usize {
    let main = threads
        .iter()
        .position(|t| t.process.is_on_main_frame && t.track.name.as_deref() == Some("CrRendererMain"));
    main.unwrap_or_else(|| {
        let most = threads
            .iter()
            .enumerate()
            .max_by_key(|(i, t)| (t.nodes.len(), std::cmp::Reverse(*i)));
        most.map_or(0, |(i, _)| i)
    })
}
