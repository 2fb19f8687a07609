//! The analysis of the layout shift culprits insight: the worst cluster
//! of shifts, and each of its shifts with the elements it moved and what
//! may have caused it (injected iframes, web fonts, animations not
//! composited, unsized images).

use tracekit_engine::handlers::timeline::layout_shifts::RawKey;
use tracekit_engine::support::jsnum::js_number_string;
use tracekit_insights::cls_culprits::{ClsCulprits, ShiftCauses, FAILURE_REASONS};

use super::{micros, Cx};
use crate::units::{millis, to_fixed};

/// The part of a layout shift event the analysis reads.
#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct ShiftEvent {
    args: Option<ShiftArgs>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct ShiftArgs {
    data: Option<ShiftData>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct ShiftData {
    impacted_nodes: Option<Vec<ImpactedNode>>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct ImpactedNode {
    debug_name: Option<String>,
}

/// The names of the elements a shift moved, from its event's text.
fn impacted_names(text: &str) -> Vec<String> {
    let event: ShiftEvent = serde_json::from_str(text).unwrap_or_default();
    (event.args.and_then(|a| a.data).and_then(|d| d.impacted_nodes))
        .unwrap_or_default()
        .into_iter()
        .filter_map(|n| n.debug_name)
        .collect()
}

/// The analysis.
pub(super) fn cls_culprits(cx: &Cx<'_>, f: &ClsCulprits) -> String {
    let shifts = cx.data.layout_shifts();
    let Some((w, cluster)) = f.worst_cluster.and_then(|w| shifts.clusters.get(w).map(|c| (w, c))) else {
        return "No layout shifts were found.".to_owned();
    };
    let base = cx.data.meta().bounds.min.0;
    let formatted: Vec<String> = (cluster.shifts.iter().enumerate())
        .map(|(i, shift)| {
            let causes = (f.shifts.iter())
                .find(|(at, _)| at.cluster == w && at.shift == i)
                .map(|(_, c)| c);
            let names = impacted_names(&shift.text);
            let impacted = if names.is_empty() {
                String::new()
            } else {
                format!("\n- Impacted elements:\n  - {}\n", names.join("\n  - "))
            };
            format!(
                "### Layout shift {}:{impacted}\n- Start time: {}\n- Score: {}\n{}",
                i + 1,
                millis((shift.ts.0 - base) / 1000.0),
                to_fixed(shift.weighted_score_delta, 4),
                root_causes(cx, causes)
            )
        })
        .collect();
    format!(
        "The worst layout shift cluster was the cluster that started at {} and ended at {}, with a duration of {}.\nThe score for this cluster is {}.\n\nLayout shifts in this cluster:\n{}",
        micros(cluster.ts.0 - base),
        micros(cluster.ts.0 + cluster.dur.0 - base),
        micros(cluster.dur.0),
        to_fixed(cluster.cumulative_score, 4),
        formatted.join("\n")
    )
}

/// A JSON string's value (`None` for anything else).
fn json_string(raw: &str) -> Option<String> {
    serde_json::from_str::<String>(raw).ok()
}

fn root_causes(cx: &Cx<'_>, causes: Option<&ShiftCauses>) -> String {
    let mut lines: Vec<String> = Vec::new();
    if let Some(c) = causes {
        let requests = cx.requests();
        for iframe in &c.iframes {
            lines.push(format!(
                "- An iframe (id: {}, url: {} was injected into the page)",
                cx.strings.resolve(iframe.frame),
                iframe.url.map_or("unknown", |u| cx.strings.resolve(u))
            ));
        }
        for r in c.web_fonts.iter().filter_map(|&r| requests.get(r)) {
            lines.push(format!(
                "- A font that was loaded over the network: {}.",
                requests.url_and_key(r)
            ));
        }
        for failure in &c.animations {
            animation_lines(cx, failure.animation, failure.instant, &mut lines);
        }
        for image in &c.unsized_images {
            lines.push(unsized_image_line(cx, image.unsized_image, image.paint_image));
        }
    }
    if lines.is_empty() {
        "- No potential root causes identified".to_owned()
    } else {
        format!("- Potential root causes:\n  {}", lines.join("\n"))
    }
}

fn animation_lines(cx: &Cx<'_>, animation: usize, instant: usize, lines: &mut Vec<String>) {
    let Some(a) = cx.data.animations().animations.get(animation) else {
        return;
    };
    let name = a
        .display_name
        .as_deref()
        .and_then(json_string)
        .filter(|n| !n.is_empty());
    lines.push("- A non-composited animation:".to_owned());
    lines.push(format!(
        "- non-composited animation: `{}`",
        name.as_deref().unwrap_or("(unnamed)")
    ));
    let mut info = Vec::new();
    if let Some(n) = &name {
        info.push(format!("Animation name: {n}"));
    }
    let failure = a.failures.get(instant);
    if let Some(props) = failure.and_then(|f| f.unsupported_properties.as_deref()) {
        let props: Vec<String> = serde_json::from_str(props).unwrap_or_default();
        info.push("Unsupported CSS properties:".to_owned());
        info.push(format!("- {}", props.join(", ")));
    }
    let mask = failure.and_then(|f| f.mask).unwrap_or(0);
    let reasons: Vec<&str> = (FAILURE_REASONS.iter())
        .filter(|(bit, _)| mask & (1 << bit) != 0)
        .map(|(_, name)| *name)
        .collect();
    info.push("Failure reasons:".to_owned());
    info.push(format!("  - {}", reasons.join(", ")));
    let info: Vec<String> = info.iter().map(|l| format!("    {l}")).collect();
    lines.push(info.join("\n"));
}

fn unsized_image_line(cx: &Cx<'_>, unsized_image: usize, paint_image: usize) -> String {
    let shifts = cx.data.layout_shifts();
    let event = shifts.paint_image_events.get(paint_image).copied();
    let paint = event.and_then(|e| (cx.data.image_painting().paint_images.iter()).find(|p| p.event == e));
    let url = paint
        .and_then(|p| p.url)
        .map(|u| cx.strings.resolve(u))
        .filter(|u| !u.is_empty());
    let name = paint
        .and_then(|p| p.node_name)
        .map_or("undefined", |n| cx.strings.resolve(n));
    let extra = match url {
        Some(url) => {
            let requests = cx.requests();
            let network = cx.data.network_requests();
            let mut by_time: Vec<usize> = (0..network.requests.len()).collect();
            by_time.sort_by(|&a, &b| network.requests[a].ts.0.total_cmp(&network.requests[b].ts.0));
            let found = by_time
                .into_iter()
                .filter_map(|i| requests.get(i))
                .find(|r| requests.url(r) == url);
            format!("url: {}", found.map_or(url.to_owned(), |r| requests.url_and_key(r)))
        }
        None => {
            let node = shifts.causes.unsized_images.get(unsized_image).map(|u| &u.node_id);
            let id = match node {
                Some(RawKey::Num(x)) => js_number_string(*x),
                Some(RawKey::Text(t)) => json_string(t).unwrap_or_else(|| t.to_string()),
                _ => "undefined".to_owned(),
            };
            format!("id: {id}")
        }
    };
    format!("- An unsized image ({name}) ({extra}).")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impacted_nodes_are_named_by_their_debug_names() {
        let text =
            r#"{"args":{"data":{"impacted_nodes":[{"debug_name":"DIV"},{"node_id":3},{"debug_name":"P id='a'"}]}}}"#;
        assert_eq!(impacted_names(text), ["DIV", "P id='a'"]);
        assert!(impacted_names(r#"{"args":{}}"#).is_empty());
    }
}
