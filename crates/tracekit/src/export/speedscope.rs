//! speedscope's file format (`https://www.speedscope.app/file-format-schema.json`):
//! one *evented* profile per thread, its calls opened and closed as the
//! sync tracks nest them, so that speedscope's Time Order view shows what
//! the Performance panel shows.

use tracekit_events::jsnum::{round3, write_json_number};
use tracekit_events::json::write_json_string;
use tracekit_events::Micros;

use super::{kept_threads, origin, FrameKey, Frames, KeptThread, Step, Steps};
use crate::engine::Analysis;
use crate::output::Filter;

/// The speedscope JSON of the threads `filter` keeps: a profile per
/// thread, named `THREAD in PROCESS` (`CrRendererMain (tid 2) in
/// Renderer (pid 1) http://a.test/`), in microseconds from the start of the
/// trace (to the nanosecond), every profile spanning the whole trace (so that their times
/// line up); a frame per event name and per JS function (with its file,
/// line and column, 1-based). The profile shown first is the main frame's
/// main thread, else the thread with the most calls.
pub fn speedscope(analysis: &Analysis, filter: &Filter) -> String {
    let interner = &analysis.strings;
    let origin = origin(analysis);
    let range = analysis.bounds.range();
    let range = if range.is_finite() { round3(range.0) } else { 0.0 };
    let threads = kept_threads(analysis, filter);
    let mut frames = Frames::default();
    // Room for every event at once (about 40 bytes each, two a node):
    // grown by doubling, the bench trace's 99 MB were copied again at each
    // size, into fresh pages each time. Natively, room not used is never
    // touched; in WebAssembly it is memory, but less than doubling's old
    // and new lists at once.
    let nodes: usize = threads.iter().map(|t| t.nodes.len()).sum();
    let mut profiles = String::with_capacity(nodes.saturating_mul(96));
    for (i, thread) in threads.iter().enumerate() {
        if i > 0 {
            profiles.push(',');
        }
        write_profile(&mut profiles, thread, &mut frames, origin, range);
    }
    let mut out = String::with_capacity(frames.len() * 64 + 256);
    out.push_str("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":");
    write_json_string(&mut out, &format!("tracekit {}", env!("CARGO_PKG_VERSION")));
    out.push_str(",\"name\":");
    write_json_string(&mut out, crate::output::kind_name(analysis.kind));
    out.push_str(",\"activeProfileIndex\":");
    out.push_str(itoa::Buffer::new().format(first_shown(&threads)));
    out.push_str(",\"shared\":{\"frames\":[");
    for (i, key) in frames.keys().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"name\":");
        write_json_string(&mut out, key.name(interner));
        if let FrameKey::Js { line, column, .. } = key {
            if !key.url(interner).is_empty() {
                out.push_str(",\"file\":");
                write_json_string(&mut out, key.url(interner));
            }
            for (field, value) in [("line", line), ("col", column)] {
                if let Some(value) = value {
                    out.push_str(",\"");
                    out.push_str(field);
                    out.push_str("\":");
                    out.push_str(itoa::Buffer::new().format(value));
                }
            }
        }
        out.push('}');
    }
    out.push_str("]},\"profiles\":[");
    // The frames go first, though known last: moved in before the
    // profiles, in their list's spare room, rather than the profiles
    // copied after them into a new one.
    profiles.push_str("]}\n");
    profiles.insert_str(0, &out);
    profiles
}

/// One thread's evented profile.
fn write_profile(out: &mut String, thread: &KeptThread<'_>, frames: &mut Frames, origin: Micros, range: f64) {
    out.push_str("{\"type\":\"evented\",\"name\":");
    write_json_string(out, &format!("{} in {}", thread.thread_label, thread.process_label));
    out.push_str(",\"unit\":\"microseconds\",\"events\":[");
    // speedscope counts from startValue and refuses to go back in time:
    // a thread's calls before the trace's start (there are some) widen its
    // span.
    let (mut first, mut last) = (0.0_f64, range);
    for (i, step) in Steps::new(thread).enumerate() {
        if i > 0 {
            out.push(',');
        }
        let (kind, node, at) = match step {
            Step::Open(node, at) => ("O", node, at),
            Step::Close(node, at) => ("C", node, at),
        };
        // To the nanosecond, the precision of trace timestamps, without the
        // noise of the subtraction (rounding keeps the order of times).
        let at = round3((at - origin).0);
        (first, last) = (first.min(at), last.max(at));
        out.push_str("{\"type\":\"");
        out.push_str(kind);
        out.push_str("\",\"frame\":");
        out.push_str(itoa::Buffer::new().format(frames.index(FrameKey::of(thread.track, node))));
        out.push_str(",\"at\":");
        write_json_number(out, at);
        out.push('}');
    }
    out.push_str("],\"startValue\":");
    write_json_number(out, first);
    out.push_str(",\"endValue\":");
    write_json_number(out, last);
    out.push('}');
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
