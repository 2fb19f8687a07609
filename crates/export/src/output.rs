//! The ways tracks are printed: the conformance dump (compared with the
//! DevTools oracle), a readable indented tree for people and snapshot
//! tests, and a JSON document for viewers (see `docs/json-format.md`).

use std::fmt::Write;
use std::io;

use tracekit_engine::support::jsnum::{round3, write_json_number, write_json_number_round3};
use tracekit_engine::support::json::write_json_string;
use tracekit_engine::Id;
use tracekit_engine::{JsFrame, NodeKind, ProcessTracks, ThreadTrack, TrackNode};
use tracekit_engine::{Micros, Parallelism};

use tracekit_engine::query::Query;
use tracekit_engine::{Analysis, InputKind};

use crate::detail::{node_detail, Urls};
use crate::page::Why;
use tracekit_engine::support::is_recording_overhead;

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
    analysis.process_tracks().iter()
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
    to_string(|w| write_conformance(analysis, &Query::new(), Parallelism::Sequential, w))
}

/// Writes [`conformance`] to `w` in pieces of about a megabyte (so that a
/// large dump is never held whole), keeping only what `query` keeps;
/// formatted on all cores with [`Parallelism::Rayon`] (the same bytes).
pub fn write_conformance(
    analysis: &Analysis,
    query: &Query,
    parallelism: Parallelism,
    w: &mut dyn io::Write,
) -> io::Result<()> {
    let interner = analysis.strings();
    let mut out = String::with_capacity(1 << 21);
    out.push_str("{\"processes\":");
    write_processes(
        &mut out,
        w,
        analysis,
        query,
        parallelism,
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
    push_number(&mut out, analysis.bounds().min.0);
    out.push_str(",\"max\":");
    push_number(&mut out, analysis.bounds().max.0);
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
/// `parallelism` [`Parallelism::Rayon`] and every node kept, on all cores, a few at a
/// time, while this thread writes them in order
/// ([`crate::in_order::write_in_order`]); else one after the other, in
/// pieces of about a megabyte.
#[allow(clippy::too_many_arguments)]
fn write_processes<P: Sync>(
    out: &mut String,
    w: &mut dyn io::Write,
    analysis: &Analysis,
    query: &Query,
    parallelism: Parallelism,
    nodes_key: &str,
    with_kept_flag: bool,
    prepare: impl Fn(&ThreadTrack) -> P,
    write_node: impl Fn(&mut String, &P, &ThreadTrack, &TrackNode) + Sync,
) -> io::Result<()> {
    let Layout {
        tracks,
        segments,
        after,
    } = lay_out_processes(analysis, query, nodes_key, with_kept_flag);
    let prepared: Vec<P> = tracks.iter().map(|track| prepare(track)).collect();
    let origin = analysis.bounds().min;
    let format =
        |out: &mut String, segment: &Segment, flush: &mut dyn FnMut(&mut String) -> io::Result<()>| -> io::Result<()> {
            out.push_str(&segment.before);
            let (track, prepared, range) = (tracks[segment.track], &prepared[segment.track], segment.nodes.clone());
            if query.keeps_every_node() {
                for (i, node) in track.nodes[range.clone()].iter().enumerate() {
                    if range.start + i > 0 {
                        out.push(',');
                    }
                    write_node(out, prepared, track, node);
                    flush(out)?;
                }
            } else {
                for (i, node) in query.nodes(track, origin).enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_node(out, prepared, track, node);
                    flush(out)?;
                }
            }
            Ok(())
        };
    if parallelism == Parallelism::Rayon && query.keeps_every_node() {
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
fn lay_out_processes<'a>(analysis: &'a Analysis, query: &Query, nodes_key: &str, with_kept_flag: bool) -> Layout<'a> {
    let interner = analysis.strings();
    let kept = query.kept_threads(analysis);
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
            let step = if query.keeps_every_node() {
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
pub fn text(analysis: &Analysis, query: &Query) -> String {
    to_string(|w| write_text(analysis, query, w))
}

/// Writes [`text`] to `w`, in pieces of about a megabyte.
pub fn write_text(analysis: &Analysis, query: &Query, w: &mut dyn io::Write) -> io::Result<()> {
    write_text_why(analysis, query, None, w)
}

/// [`write_text`], each event's line ended with its warnings when `why`
/// is given (`tracks --why`): ` [long task]`, ` [forced reflow]`...
pub fn write_text_why(analysis: &Analysis, query: &Query, why: Option<&Why>, w: &mut dyn io::Write) -> io::Result<()> {
    let options = TextOptions { why, full_urls: true };
    write_text_with(analysis, query, &options, w)
}

/// How the text format writes its lines.
#[derive(Debug, Clone, Copy, Default)]
pub struct TextOptions<'a> {
    /// End each event's line with its warnings (`tracks --why`).
    pub why: Option<&'a Why>,
    /// Write URLs whole; else short (`app.js:1:19`, with its host when it
    /// is not the process' own: [`tracekit_engine::support::short_url`]),
    /// the process line giving the process' URL whole.
    pub full_urls: bool,
}

/// [`write_text`] as `options` ask. Each line of an event that the
/// panel's summary tells apart from others of its name says how (its URL,
/// type, timer or function: [`crate::detail`]) when the analysis kept
/// their args ([`tracekit_engine::AnalyzeOptions::details`]); the
/// recording's own work that lasts ends with ` [recording overhead]`.
pub fn write_text_with(
    analysis: &Analysis,
    query: &Query,
    options: &TextOptions<'_>,
    w: &mut dyn io::Write,
) -> io::Result<()> {
    let why = options.why;
    let interner = analysis.strings();
    let origin = if analysis.bounds().min.is_finite() {
        analysis.bounds().min
    } else {
        Micros::ZERO
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "trace: {:?}, {} ms long, times in ms from {} µs",
        analysis.kind(),
        if analysis.bounds().range().is_finite() {
            ms(analysis.bounds().range())
        } else {
            "?".into()
        },
        tracekit_engine::support::jsnum::js_number_string(round3(origin.0)),
    );
    let kept = query.kept_threads(analysis);
    for (pid, process) in processes(analysis) {
        // With a thread query, or filters of nodes, a thread is printed
        // only when it has nodes to show, and a process only when one of
        // its threads is.
        let shows = |tid: &Id, track: &ThreadTrack| {
            kept.as_ref().is_none_or(|k| k.contains(&(*pid, *tid)))
                && (query.keeps_every_node() || query.nodes(track, origin).next().is_some())
        };
        let filtered = kept.is_some() || !query.keeps_every_node();
        if filtered && !process.threads.iter().any(|(tid, track)| shows(tid, track)) {
            continue;
        }
        process_line(&mut out, analysis, *pid, process);
        let urls = if options.full_urls {
            Urls::Full
        } else {
            Urls::Short(process.url.map(|u| interner.resolve(u)))
        };
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
            for node in query.nodes(track, origin) {
                // Indentation shows the depth up to a point; deeper, the
                // depth is written out, so that a line's length does not
                // grow with the stack (200,000 frames deep is real).
                for _ in 0..node.depth().min(MAX_INDENT) + 2 {
                    out.push_str("  ");
                }
                if node.depth() > MAX_INDENT {
                    let _ = write!(out, "[depth {}] ", node.depth());
                }
                let mut overhead = false;
                match (&node.kind(), track.js_frame(&node.kind())) {
                    (kind @ NodeKind::Event { name, .. }, _) => {
                        let name = interner.resolve(*name);
                        out.push_str(name);
                        if let Some(detail) = node_detail(track, kind, name, urls) {
                            out.push(' ');
                            out.push_str(&detail);
                        }
                        // Work that takes time: an instant is nobody's slowest work.
                        overhead = is_recording_overhead(name) && node.dur().is_some_and(|d| d > Micros::ZERO);
                    }
                    (NodeKind::Call { .. }, None) => out.push_str("js ?"),
                    (NodeKind::Call { .. }, Some(js)) => {
                        let frame = &js.call_frame;
                        let name = interner.resolve(frame.function_name);
                        out.push_str("js ");
                        out.push_str(if name.is_empty() { "(anonymous)" } else { name });
                        write_js_location(
                            &mut out,
                            &urls.write(interner.resolve(frame.url)),
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
                if overhead {
                    out.push_str(" [recording overhead]");
                }
                if let Some(why) = why {
                    why.write_text(&mut out, node);
                }
                out.push('\n');
                flush_if_large(&mut out, w)?;
            }
        }
    }
    w.write_all(out.as_bytes())
}

pub use tracekit_engine::support::write_js_location;

/// The process line of the text format: `process PID [NAME] [URL] [main
/// frame] [not shown by DevTools]`.
fn process_line(out: &mut String, analysis: &Analysis, pid: Id, process: &ProcessTracks) {
    let interner = analysis.strings();
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
pub fn json(analysis: &Analysis, query: &Query) -> String {
    to_string(|w| write_json(analysis, query, Parallelism::Sequential, w))
}

/// Writes [`json()`] to `w`, in pieces of about a megabyte; formatted on
/// all cores with [`Parallelism::Rayon`] (the same bytes).
pub fn write_json(
    analysis: &Analysis,
    query: &Query,
    parallelism: Parallelism,
    w: &mut dyn io::Write,
) -> io::Result<()> {
    write_json_why(analysis, query, parallelism, None, w)
}

/// [`write_json`], with each node's `initiator` and `warnings` when `why`
/// is given and the node has them (`tracks --why`; `docs/json-format.md`).
pub fn write_json_why(
    analysis: &Analysis,
    query: &Query,
    parallelism: Parallelism,
    why: Option<&Why>,
    w: &mut dyn io::Write,
) -> io::Result<()> {
    let interner = analysis.strings();
    let mut out = String::with_capacity(1 << 21);
    out.push_str("{\"format\":\"tracekit-tracks\",\"version\":1,\"input\":");
    write_json_string(&mut out, &format!("{:?}", analysis.kind()));
    out.push_str(",\"bounds\":{\"min\":");
    push_number(&mut out, analysis.bounds().min.0);
    out.push_str(",\"max\":");
    push_number(&mut out, analysis.bounds().max.0);
    out.push_str("},\"processes\":");
    write_processes(
        &mut out,
        w,
        analysis,
        query,
        parallelism,
        "nodes",
        true,
        |_| (),
        |out, _, track, node| {
            out.push_str("{\"depth\":");
            out.push_str(itoa::Buffer::new().format(node.depth()));
            match (&node.kind(), track.js_frame(&node.kind())) {
                (kind @ NodeKind::Event { name, cat, ph, .. }, _) => {
                    let name = interner.resolve(*name);
                    out.push_str(",\"type\":\"event\",\"name\":");
                    write_json_string(out, name);
                    out.push_str(",\"cat\":");
                    write_json_string(out, interner.resolve(*cat));
                    out.push_str(",\"ph\":");
                    write_json_string(out, &(ph.0 as char).to_string());
                    if let Some(detail) = node_detail(track, kind, name, Urls::Full) {
                        out.push_str(",\"detail\":");
                        write_json_string(out, &detail);
                    }
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
            if let Some(why) = why {
                why.write_json(out, node, analysis);
            }
            out.push('}');
        },
    )?;
    out.push_str(",\"diagnostics\":");
    diagnostics_json(&mut out, analysis.diagnostics().raw());
    out.push_str("}\n");
    w.write_all(out.as_bytes())
}

fn diagnostics_json(out: &mut String, diag: &tracekit_engine::support::RawDiagnostics) {
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
    let _ = writeln!(out, "input: {:?}, {} events", analysis.kind(), analysis.event_count());
    out.push_str(&repairs(analysis));
    out
}

fn warning_lines(analysis: &Analysis) -> String {
    analysis
        .diagnostics()
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
    let d = &analysis.diagnostics().raw();
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
    kind.name()
}

/// What an analysis holds, for people (`tracekit info`): the input's kind,
/// duration and events; each process with its name, URL and whether
/// DevTools shows it; each of its threads with tracks, with the number of
/// nodes of its tree (trace events and JS calls) and the samples of its
/// CPU profile; then [`diagnostics`]. Load with
/// [`tracekit_engine::AnalyzeOptions::all_processes`] to see every process.
pub fn info(analysis: &Analysis) -> String {
    let interner = analysis.strings();
    let mut out = String::new();
    let duration = analysis.bounds().range();
    let _ = writeln!(
        out,
        "input: {}, {} ms, {} events, {} bytes of JSON",
        kind_name(analysis.kind()),
        if duration.is_finite() { ms(duration) } else { "?".into() },
        analysis.event_count(),
        analysis.input_bytes()
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
            let samples = analysis.profile_samples(*pid, *tid);
            match samples {
                Some(n) => {
                    let _ = writeln!(out, "CPU profile of {}", count(n, "sample"));
                }
                None => out.push_str("no CPU profile\n"),
            }
        }
    }
    if let Some(meta) = analysis.meta() {
        for (pid, name) in &meta.process_names {
            if !analysis.process_tracks().contains_key(pid) {
                let _ = writeln!(
                    out,
                    "process {} {}: no tracks",
                    pid.to_js_string(interner),
                    interner.resolve(*name)
                );
            }
        }
    }
    if let Some(page) = crate::page::info_text(analysis) {
        out.push_str(&page);
    }
    out.push_str(&diagnostics(analysis));
    out
}
