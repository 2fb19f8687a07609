//! The readable text of the views ([`write_text`]): an indented tree per
//! thread, and the line that names a thread in it and in messages.

use tracekit_engine::{Analysis, Id, ThreadTrack};

use crate::options::per_thread;
use crate::{GroupBy, View, ViewError, ViewOptions, Window};

/// A readable indented view of each thread `options` selects: one row per node, `SELF ms (PERCENT%)  TOTAL ms
/// (PERCENT%)  LABEL`, percents of the window, a group row labelled by its
/// kind and [`GroupBy::label`] (`category Scripting`, `domain
/// [unattributed]`); rows of depth < `max_depth`.
///
/// # Errors
///
/// As [`thread_views_to_depth`](crate::thread_views_to_depth).
pub fn write_text(analysis: &Analysis, view: View, options: &ViewOptions) -> Result<String, ViewError> {
    use std::fmt::Write;
    let (max_depth, group_by) = (options.query.levels(), options.group_by);
    let window = Window::of(analysis, &options.query);
    let span = window.length().0;
    let origin = analysis.bounds().min.to_millis();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}{}, window {:.3}..{:.3} ms from the trace start ({:.3} ms)",
        match view {
            View::TopDown => "Call Tree",
            View::BottomUp => "Bottom-Up",
        },
        match group_by {
            GroupBy::None => String::new(),
            other => format!(" grouped by {}", other.name()),
        },
        (window.start - origin).0,
        (window.end - origin).0,
        span
    );
    let percent = |x: f64| if span > 0.0 { x / span * 100.0 } else { 0.0 };
    let pieces = per_thread(analysis, options, window, |pid, tid, track, views| {
        let mut out = String::new();
        write_thread_heading(&mut out, analysis, pid, tid, track);
        let tree = match view {
            View::TopDown => &views.top_down,
            View::BottomUp => &views.bottom_up,
        };
        // A profile on its own: its samples are what the times come from.
        let samples = match (view, &views.samples) {
            (View::TopDown, Some(samples)) if analysis.kind() != tracekit_engine::InputKind::ChromeTrace => {
                Some(samples)
            }
            _ => None,
        };
        if let Some(samples) = samples {
            let _ = writeln!(
                out,
                "  {} samples in the window{}; columns: self, total, samples (self/total), function",
                samples.in_window,
                if samples.unattributed > 0 {
                    format!(" ({} in calls of no duration, in no node)", samples.unattributed)
                } else {
                    String::new()
                }
            );
        }
        let rows = views.rows(view, max_depth);
        if rows.is_empty() {
            out.push_str("  (empty)\n");
        }
        for (depth, node) in rows {
            let n = &tree.nodes[node as usize];
            for _ in 0..depth.min(MAX_INDENT) + 1 {
                out.push_str("  ");
            }
            if depth > MAX_INDENT {
                let _ = write!(out, "[depth {depth}] ");
            }
            let _ = write!(
                out,
                "{:.3} ms ({:.1}%)  {:.3} ms ({:.1}%)  ",
                n.self_ms,
                percent(n.self_ms),
                n.total_ms,
                percent(n.total_ms),
            );
            if let Some(samples) = samples {
                let _ = write!(out, "{}/{}  ", samples.own[node as usize], samples.total[node as usize]);
            }
            if n.is_group {
                // `category Scripting`, `domain [unattributed]`...
                let _ = write!(out, "{} ", group_by.name());
            }
            out.push_str(views.label(n));
            out.push('\n');
        }
        out
    })?;
    out.extend(pieces);
    Ok(out)
}

/// Deeper rows write their depth instead of indenting further.
const MAX_INDENT: u32 = 40;

/// `thread TID NAME (pid PID)`, a thread's first line in the text views.
pub(crate) fn write_thread_heading(out: &mut String, analysis: &Analysis, pid: Id, tid: Id, track: &ThreadTrack) {
    use std::fmt::Write;
    let strings = analysis.strings();
    let _ = writeln!(
        out,
        "thread {}{} (pid {})",
        tid.to_js_string(strings),
        track.name.as_ref().map(|n| format!(" {n}")).unwrap_or_default(),
        pid.to_js_string(strings)
    );
}

/// `thread TID NAME (pid PID)`: a thread in an error message.
pub(crate) fn thread_in_words(analysis: &Analysis, thread: &tracekit_engine::Thread<'_>) -> String {
    let mut out = String::new();
    write_thread_heading(&mut out, analysis, thread.pid(), thread.tid(), thread.track());
    out.trim_end().to_owned()
}
