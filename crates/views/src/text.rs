//! The readable text of the views ([`write_text`]): an indented tree per
//! thread, and the line that names a thread in it and in messages.

use tracekit_engine::{Analysis, Id, ThreadTrack};

use crate::options::per_thread;
use crate::{GroupBy, TextRows, View, ViewError, ViewOptions, Window};

/// A readable indented view of each thread `options` selects: a header
/// row naming the columns, then one row per node, `SELF ms (PERCENT%)
/// TOTAL ms (PERCENT%)  LABEL`, percents of the window, a group row
/// labelled by its kind and [`GroupBy::label`] (`category Scripting`,
/// `domain [unattributed]`); rows of depth < `max_depth`, and those
/// [`ViewOptions::text`] keeps (the first N, the longest; URLs short or
/// whole). The recording's own work ends with ` [recording overhead]`.
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
        let rows = kept_rows(views.rows(view, max_depth), tree, &options.text);
        if rows.is_empty() {
            out.push_str("  (empty)\n");
        } else if samples.is_none() {
            out.push_str("  self ms (%)  total ms (%)  name\n");
        }
        let home = analysis
            .process_tracks()
            .get(&pid)
            .and_then(|p| p.url)
            .map(|u| analysis.strings().resolve(u));
        let (shown, all) = (rows.len().min(options.text.top.unwrap_or(usize::MAX)), rows.len());
        for &(depth, node) in &rows[..shown] {
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
            write_label(&mut out, analysis, views, n, home, options.text.full_urls);
            out.push('\n');
        }
        if shown < all {
            let _ = writeln!(out, "  ({} more rows)", all - shown);
        }
        out
    })?;
    out.extend(pieces);
    Ok(out)
}

/// The rows whose total is at least [`TextRows::min_total`], a row left
/// out taking the deeper rows after it along.
fn kept_rows(rows: Vec<(u32, u32)>, tree: &crate::Tree, text: &TextRows) -> Vec<(u32, u32)> {
    let Some(min) = text.min_total else {
        return rows;
    };
    let mut hidden_below: Option<u32> = None;
    rows.into_iter()
        .filter(|&(depth, node)| {
            if hidden_below.is_some_and(|d| depth > d) {
                return false;
            }
            hidden_below = None;
            let keep = tree.nodes[node as usize].total_ms >= min.0;
            if !keep {
                hidden_below = Some(depth);
            }
            keep
        })
        .collect()
}

/// A row's label: a JS call's with its URL short (unless `full_urls`,
/// the host left out when it is `home`'s), the recording's own work
/// tagged.
fn write_label(
    out: &mut String,
    analysis: &Analysis,
    views: &crate::ThreadViews,
    node: &crate::TreeNode,
    home: Option<&str>,
    full_urls: bool,
) {
    let frame = if node.is_group {
        None
    } else {
        views.frames[node.id as usize]
    };
    match frame {
        Some(frame) if !full_urls => {
            let strings = analysis.strings();
            let name = strings.resolve(frame.function_name);
            out.push_str("js ");
            out.push_str(if name.is_empty() { "(anonymous)" } else { name });
            let url = tracekit_engine::support::short_url(strings.resolve(frame.url), home);
            tracekit_engine::support::write_js_location(out, &url, frame.line_number, frame.column_number);
        }
        _ => {
            let label = views.label(node);
            out.push_str(label);
            if frame.is_none() && !node.is_group && tracekit_engine::support::is_recording_overhead(label) {
                out.push_str(" [recording overhead]");
            }
        }
    }
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
