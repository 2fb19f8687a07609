//! The analysis of the forced reflow insight: the top function call that
//! forced layouts, and the call frames that did, each with its time.

use tracekit_engine::support::jsnum::js_number_string;
use tracekit_insights::forced_reflow::{CallFrameAt, ForcedReflow};

use super::{micros, Cx};

/// The name and URL a call frame's JSON text gives.
#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct FrameText {
    function_name: Option<String>,
    url: Option<String>,
}

/// A number or `undefined`, as a template literal writes it.
fn js_text(x: Option<f64>) -> String {
    x.map_or_else(|| "undefined".to_owned(), js_number_string)
}

/// `NAME @ URL:LINE:COLUMN` of a frame, `[unattributed]` without one.
fn frame_text(cx: &Cx<'_>, frame: Option<&CallFrameAt>) -> String {
    let Some(frame) = frame else {
        return cx.ui("unattributed").to_owned();
    };
    let (name, url, line, column) = match frame {
        CallFrameAt::Payload(f) => {
            let t: FrameText = serde_json::from_str(cx.strings.resolve(f.text)).unwrap_or_default();
            (t.function_name, t.url, js_text(f.line_number), js_text(f.column_number))
        }
        CallFrameAt::FunctionCall(f) => {
            let t: FrameText = serde_json::from_str(cx.strings.resolve(f.data)).unwrap_or_default();
            let (line, column) = (js_number_string(f.line_number), js_number_string(f.column_number));
            (t.function_name, t.url, line, column)
        }
        CallFrameAt::Profile { call_frame: f } => (
            Some(cx.strings.resolve(f.function_name).to_owned()),
            Some(cx.strings.resolve(f.url).to_owned()),
            js_text(f.line_number),
            js_text(f.column_number),
        ),
    };
    let name = name.filter(|n| !n.is_empty());
    let mut out = name.unwrap_or_else(|| cx.ui("anonymous").to_owned());
    match url.filter(|u| !u.is_empty()) {
        Some(url) => out += &format!(" @ {url}:{line}:{column}"),
        None => out += " @ unknown location",
    }
    out
}

/// The analysis.
pub(super) fn forced_reflow(cx: &Cx<'_>, f: &ForcedReflow) -> String {
    let mut out = format!("{}\n\n", cx.ui("description"));
    if f.top_level_function_call.is_none() && f.aggregated_bottom_up.is_empty() {
        return out + "The forced reflow checks revealed no problems.";
    }
    out += "The forced reflow checks revealed one or more problems.\n\n";
    match &f.top_level_function_call {
        Some(top) => {
            out += "The following is the top function call that caused forced reflow(s):\n\n";
            out += &format!(
                " - {}\n\n{}: {}\n",
                frame_text(cx, Some(&top.frame)),
                cx.ui("totalReflowTime"),
                micros(top.total_reflow_time)
            );
        }
        None => out += "No top-level functions causing forced reflows were identified.\n",
    }
    if f.aggregated_bottom_up.is_empty() {
        return out + "\nNo aggregated bottom-up causes of forced reflows were identified.";
    }
    out += &format!("\n{} (including total time):\n", cx.ui("reflowCallFrames"));
    for data in &f.aggregated_bottom_up {
        out += &format!(
            "\n - {} in {}",
            micros(data.total_time),
            frame_text(cx, data.frame.as_ref())
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_their_absence_are_written_as_javascript_does() {
        assert_eq!(js_text(Some(12.0)), "12");
        assert_eq!(js_text(None), "undefined");
    }
}
