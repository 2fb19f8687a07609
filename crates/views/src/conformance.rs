//! The "calltree conformance" dump ([`calltree_conformance`]): the one
//! line of `xtask/js/calltree.mjs` that the goldens hold, and the pieces
//! of it that the other dumps share (thread keys, rounded window).

use tracekit_engine::support::jsnum::{round3, write_json_number};
use tracekit_engine::support::json::write_json_string;
use tracekit_engine::{Analysis, Id, ThreadTrack};

use crate::options::per_thread;
use crate::tree::preorder;
use crate::{ThreadViews, Tree, ViewError, ViewOptions, Window};

/// The "calltree conformance" dump: exactly what `xtask/js/calltree.mjs`
/// prints from the DevTools engine (one line, no newline), for the threads,
/// window (ms from the trace start), depth and grouping of `options`
/// (`calltree.mjs --group-by`: group nodes are rows of depth 0, with their
/// group id).
///
/// # Errors
///
/// As [`thread_views_to_depth`](crate::thread_views_to_depth).
pub fn calltree_conformance(analysis: &Analysis, options: &ViewOptions) -> Result<String, ViewError> {
    let window = Window::of(analysis, &options.query);
    let levels = options.query.levels();
    let pieces = per_thread(analysis, options, window, |pid, tid, track, views| {
        let mut out = String::from("{");
        write_thread_keys(&mut out, analysis, pid, tid, track);
        out.push_str(",\"topDown\":[");
        write_rows(&mut out, views, &views.top_down, levels);
        out.push_str("],\"bottomUp\":[");
        write_rows(&mut out, views, &views.bottom_up, levels);
        out.push_str("]}");
        out
    })?;
    let mut out = String::from("{\"threads\":[");
    out.push_str(&pieces.join(","));
    out.push_str("],");
    write_rounded_window(&mut out, window);
    out.push('}');
    Ok(out)
}

/// The rows of `tree` in the dump, `[depth,id,self,total]`, siblings by
/// id (as UTF-16, JavaScript's order).
fn write_rows(out: &mut String, views: &ThreadViews, tree: &Tree, max_depth: Option<u32>) {
    let rows = preorder(tree, max_depth, |a, b| {
        views.id(a).encode_utf16().cmp(views.id(b).encode_utf16())
    });
    for (i, (depth, node)) in rows.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let n = &tree.nodes[node as usize];
        out.push('[');
        out.push_str(&depth.to_string());
        out.push(',');
        write_json_string(out, views.id(n));
        out.push(',');
        write_json_number(out, round3(n.self_ms));
        out.push(',');
        write_json_number(out, round3(n.total_ms));
        out.push(']');
    }
}

/// `"pid":…,"tid":…,"name":…` of a thread in the views' dumps.
pub(crate) fn write_thread_keys(out: &mut String, analysis: &Analysis, pid: Id, tid: Id, track: &ThreadTrack) {
    out.push_str("\"pid\":");
    pid.write_json(out, analysis.strings());
    out.push_str(",\"tid\":");
    tid.write_json(out, analysis.strings());
    out.push_str(",\"name\":");
    match &track.name {
        Some(name) => write_json_string(out, name),
        None => out.push_str("null"),
    }
}

/// `"window":{"start":…,"end":…}` in absolute ms rounded to 3 decimals,
/// as the conformance dumps write it.
pub(crate) fn write_rounded_window(out: &mut String, window: Window) {
    out.push_str("\"window\":{\"start\":");
    write_json_number(out, round3(window.start.0));
    out.push_str(",\"end\":");
    write_json_number(out, round3(window.end.0));
    out.push('}');
}
