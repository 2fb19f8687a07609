//! `tracekit calltree --format json`: both views of each selected thread
//! as flat lists of nodes in the order the text format prints them, each
//! node with its parent's position, its function's fields, its times and,
//! for a thread with a CPU profile, its sample counts (`docs/views.md`,
//! "The JSON format"). Flat rather than nested, so that a deep recursion
//! does not meet a JSON reader's nesting limit.

use tracekit_engine::support::jsnum::write_json_number;
use tracekit_engine::support::json::write_json_string;
use tracekit_engine::Analysis;

use crate::conformance::write_thread_keys;
use crate::options::per_thread;
use crate::{ThreadViews, Tree, View, ViewError, ViewOptions, Window};

/// The JSON document of the threads `options` selects, over its window,
/// depth and grouping. One line, no newline.
///
/// # Errors
///
/// As [`crate::thread_views_to_depth`].
pub fn calltree_json(analysis: &Analysis, options: &ViewOptions) -> Result<String, ViewError> {
    let max_depth = options.query.levels();
    let window = Window::of(analysis, &options.query);
    let mut out = String::from("{\"window\":{\"start\":");
    write_json_number(&mut out, window.start.0);
    out.push_str(",\"end\":");
    write_json_number(&mut out, window.end.0);
    out.push_str("},\"threads\":[");
    let pieces = per_thread(analysis, options, window, |pid, tid, track, views| {
        let mut out = String::from("{");
        write_thread_keys(&mut out, analysis, pid, tid, track);
        if let Some(samples) = &views.samples {
            out.push_str(",\"samples\":{\"inWindow\":");
            out.push_str(&samples.in_window.to_string());
            out.push_str(",\"attributed\":");
            out.push_str(&samples.total[0].to_string());
            out.push_str(",\"unattributed\":");
            out.push_str(&samples.unattributed.to_string());
            out.push('}');
        }
        out.push_str(",\"topDown\":");
        write_nodes(&mut out, analysis, views, View::TopDown, max_depth);
        out.push_str(",\"bottomUp\":");
        write_nodes(&mut out, analysis, views, View::BottomUp, max_depth);
        out.push('}');
        out
    })?;
    out.push_str(&pieces.join(","));
    out.push_str("]}");
    Ok(out)
}

/// One view's nodes: `[{"id","name","url","line","column","depth",
/// "parent","selfMs","totalMs"[,"samples","selfCount"]}, ...]`.
fn write_nodes(out: &mut String, analysis: &Analysis, views: &ThreadViews, view: View, max_depth: Option<u32>) {
    let interner = analysis.strings();
    let tree: &Tree = match view {
        View::TopDown => &views.top_down,
        View::BottomUp => &views.bottom_up,
    };
    let rows = views.rows(view, max_depth);
    // The position of the latest row at each depth: the parent of the
    // next row one level deeper.
    let mut last_at_depth: Vec<usize> = Vec::new();
    out.push('[');
    for (position, (depth, node)) in rows.into_iter().enumerate() {
        if position > 0 {
            out.push(',');
        }
        let depth_ix = depth as usize;
        last_at_depth.truncate(depth_ix);
        let parent = last_at_depth.last().copied();
        last_at_depth.push(position);
        let n = &tree.nodes[node as usize];
        out.push_str("{\"id\":");
        write_json_string(out, views.id(n));
        let frame = if n.is_group { None } else { views.frames[n.id as usize] };
        match frame {
            Some(frame) => {
                out.push_str(",\"name\":");
                write_json_string(out, interner.resolve(frame.function_name));
                out.push_str(",\"url\":");
                write_json_string(out, interner.resolve(frame.url));
                out.push_str(",\"line\":");
                write_optional_number(out, frame.line_number);
                out.push_str(",\"column\":");
                write_optional_number(out, frame.column_number);
            }
            None => {
                out.push_str(",\"name\":");
                write_json_string(out, views.label(n));
                out.push_str(",\"url\":null,\"line\":null,\"column\":null");
            }
        }
        if n.is_group {
            out.push_str(",\"group\":true");
        }
        out.push_str(",\"depth\":");
        out.push_str(&depth.to_string());
        out.push_str(",\"parent\":");
        match parent {
            Some(p) => out.push_str(&p.to_string()),
            None => out.push_str("null"),
        }
        out.push_str(",\"selfMs\":");
        write_json_number(out, n.self_ms);
        out.push_str(",\"totalMs\":");
        write_json_number(out, n.total_ms);
        if let (View::TopDown, Some(samples)) = (view, &views.samples) {
            out.push_str(",\"samples\":");
            out.push_str(&samples.total[node as usize].to_string());
            out.push_str(",\"selfCount\":");
            out.push_str(&samples.own[node as usize].to_string());
        }
        out.push('}');
    }
    out.push(']');
}

fn write_optional_number(out: &mut String, x: Option<f64>) {
    match x {
        Some(x) => write_json_number(out, x),
        None => out.push_str("null"),
    }
}
