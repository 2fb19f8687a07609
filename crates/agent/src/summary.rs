//! The performance summary chrome-devtools-mcp hands an agent when a
//! trace is recorded: the page and the trace's bounds, each insight set
//! with its lab metrics and the insights worth a look (their bounds,
//! savings and questions to ask), the extension API's custom tracks, and
//! the description of the call tree and network request formats the
//! other answers use.

use tracekit_engine::support::jsnum::js_number_string;
use tracekit_engine::{Analysis, HandlerData};
use tracekit_insights::{Insight, InsightSet, InsightSets};

use crate::bounds::{insight_bounds, Spans, Window};
use crate::crux::{field_metrics, FieldMetrics, FieldValue, Metadata, Scope};
use crate::keys::EventKey;
use crate::metrics::{set_metrics, SetMetrics};
use crate::questions::{description_is_known, questions};
use crate::units::{bytes, js_round, micros, to_fixed};

/// The formats of the call trees and request lists, fixed text.
const FORMATS: &str = include_str!("formats.txt");

/// What the recording was made under: the server passes its own CPU
/// throttling (1 when it emulates none) and its network condition's name.
#[derive(Debug, Clone, PartialEq)]
pub struct Throttling {
    /// The CPU slowdown; `None` or 0 writes "none".
    pub cpu: Option<f64>,
    /// The network condition's name; `None` takes the trace's own
    /// metadata, "none" without one.
    pub network: Option<String>,
}

impl Default for Throttling {
    /// A live server without emulation: CPU 1x, the trace's network.
    fn default() -> Throttling {
        Throttling {
            cpu: Some(1.0),
            network: None,
        }
    }
}

/// The throttling a trace's `metadata` records.
#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct FileMetadata {
    network_throttling: Option<Box<serde_json::value::RawValue>>,
}

/// The summary of a trace (`getTraceSummary`), without the tool's line
/// before it; `sets` are the analysis' insight sets.
pub fn trace_summary(analysis: &Analysis, sets: &InsightSets, throttling: &Throttling) -> String {
    let mut parts: Vec<String> = Vec::new();
    let strings = analysis.strings();
    let data = analysis.handlers();
    let meta = analysis.meta();
    let url = meta.and_then(|m| m.main_frame_url).map_or("", |u| strings.resolve(u));
    parts.push(format!("URL: {url}"));
    if let Some(meta) = meta {
        parts.push(format!(
            "Trace bounds: {}",
            bounds_text(meta.bounds.min.0, meta.bounds.max.0)
        ));
    }
    let cpu = throttling.cpu.filter(|&c| c != 0.0 && !c.is_nan());
    parts.push(format!(
        "CPU throttling: {}",
        cpu.map_or("none".to_owned(), |c| format!("{}x", js_number_string(c)))
    ));
    parts.push(format!("Network throttling: {}", network_text(analysis, throttling)));
    parts.push("\n# Available insight sets\n".to_owned());
    parts.push(SETS_INTRO.to_owned());
    if let Some(data) = data {
        let spans = Spans::new(analysis, data);
        for set in &sets.sets {
            set_text(&mut parts, set, analysis, data, &spans);
        }
        custom_tracks(&mut parts, analysis, data);
    }
    format!(
        "## Summary of Performance trace findings:\n{}\n\n## Details on call tree & network request formats:\n{FORMATS}",
        parts.join("\n")
    )
}

const SETS_INTRO: &str = "The following is a list of insight sets. An insight set covers a specific part of the trace, split by navigations. The insights within each insight set are specific to that part of the trace. Be sure to consider the insight set id and bounds when calling functions. If no specific insight set or navigation is mentioned, assume the user is referring to the first one.";

fn network_text(analysis: &Analysis, throttling: &Throttling) -> String {
    if let Some(name) = &throttling.network {
        return name.clone();
    }
    let file: FileMetadata = analysis
        .metadata()
        .and_then(|m| serde_json::from_str(m).ok())
        .unwrap_or_default();
    // `networkThrottling ?? 'none'`, written as JavaScript's `String()`.
    match file.network_throttling.as_deref().map(|raw| raw.get().trim()) {
        None | Some("null") => "none".to_owned(),
        Some(raw) => tracekit_engine::handlers::page::extensions::js_string(Some(raw)),
    }
}

/// `{min: Nµs, max: Nµs}`.
pub(crate) fn bounds_text(min: f64, max: f64) -> String {
    format!("{{min: {}µs, max: {}µs}}", js_number_string(min), js_number_string(max))
}

/// `(eventKey: K, ts: N)`.
fn event_text(key: EventKey, ts: f64) -> String {
    format!("(eventKey: {key}, ts: {})", js_number_string(ts))
}

fn set_text(parts: &mut Vec<String>, set: &InsightSet, analysis: &Analysis, data: &HandlerData, spans: &Spans<'_>) {
    let metrics = set_metrics(set, data, analysis.strings());
    parts.push(format!("\n## insight set id: {}\n", set.id));
    parts.push(format!("URL: {}", set.url));
    parts.push(format!("Bounds: {}", bounds_text(set.bounds.min.0, set.bounds.max.0)));
    metrics_text(parts, &metrics);
    let meta = Metadata::read(analysis.metadata());
    let desktop = Scope {
        page: "url",
        device: "DESKTOP",
    };
    match field_metrics(&meta, &set.url, Some(desktop))
        .filter(|f| f.lcp.is_some() || f.inp.is_some() || f.cls.is_some())
    {
        Some(field) => field_text(parts, &field),
        None => parts.push("Metrics (field / real users): n/a – no data for this page in CrUX".to_owned()),
    }
    parts.push("Available insights:".to_owned());
    let weights = crate::order::weights(field_metrics(&meta, &set.url, None));
    for insight in crate::order::ordered(set, &metrics, weights) {
        if insight.state == tracekit_insights::State::Pass || !description_is_known(insight.ui().key) {
            continue;
        }
        let window = insight_bounds(insight, set.bounds, spans);
        parts.push(format!("  - {}", insight_lines(insight, window).join("\n    ")));
    }
}

fn metrics_text(parts: &mut Vec<String>, m: &SetMetrics) {
    // DevTools always has a CLS (0 without shifts), so never writes "n/a".
    parts.push("Metrics (lab / observed):".to_owned());
    if let Some(lcp) = &m.lcp {
        let node = lcp.node_id.as_ref().map_or(String::new(), |n| format!(", nodeId: {n}"));
        parts.push(format!(
            "  - LCP: {} ms, event: {}{node}",
            js_number_string(js_round(lcp.ms)),
            event_text(EventKey::Raw(lcp.event), lcp.ts)
        ));
        if let Some(s) = &lcp.subparts {
            let part = |p: tracekit_insights::lcp_breakdown::Subpart| {
                format!(
                    "{}, bounds: {}",
                    micros(p.max.0 - p.min.0),
                    bounds_text(p.min.0, p.max.0)
                )
            };
            parts.push("  - LCP breakdown:".to_owned());
            parts.push(format!("    - TTFB: {}", part(s.ttfb)));
            if let Some(p) = s.load_delay {
                parts.push(format!("    - Load delay: {}", part(p)));
            }
            if let Some(p) = s.load_duration {
                parts.push(format!("    - Load duration: {}", part(p)));
            }
            parts.push(format!("    - Render delay: {}", part(s.render_delay)));
        }
    }
    if let Some(inp) = &m.inp {
        parts.push(format!(
            "  - INP: {} ms, event: {}",
            js_number_string(js_round(inp.dur / 1000.0)),
            event_text(EventKey::Synthetic(inp.begin), inp.ts)
        ));
    }
    let event = m.cls_event.map_or(String::new(), |(source, ts)| {
        format!(", event: {}", event_text(EventKey::Synthetic(source), ts))
    });
    parts.push(format!("  - CLS: {}{event}", to_fixed(m.cls_score, 2)));
}

/// The field metrics' lines, and what they are.
fn field_text(parts: &mut Vec<String>, f: &FieldMetrics) {
    let time = |v: FieldValue| {
        format!(
            "{} ms (scope: {})",
            js_number_string(js_round(v.value / 1000.0)),
            v.page_scope
        )
    };
    parts.push("Metrics (field / real users):".to_owned());
    if let Some(lcp) = f.lcp {
        parts.push(format!("  - LCP: {}", time(lcp)));
        if f.ttfb.is_some() || f.load_delay.is_some() || f.load_duration.is_some() || f.render_delay.is_some() {
            parts.push("  - LCP breakdown:".to_owned());
            let subparts = [
                ("TTFB", f.ttfb),
                ("Load delay", f.load_delay),
                ("Load duration", f.load_duration),
                ("Render delay", f.render_delay),
            ];
            for (name, v) in subparts {
                if let Some(v) = v {
                    parts.push(format!("    - {name}: {}", time(v)));
                }
            }
        }
    }
    if let Some(inp) = f.inp {
        parts.push(format!("  - INP: {}", time(inp)));
    }
    if let Some(cls) = f.cls {
        parts.push(format!(
            "  - CLS: {} (scope: {})",
            to_fixed(cls.value, 2),
            cls.page_scope
        ));
    }
    parts.extend(FIELD_NOTES.iter().map(|l| (*l).to_owned()));
}

const FIELD_NOTES: &[&str] = &[
    "  - The above data is from CrUX–Chrome User Experience Report. It's how the page performs for real users.",
    "  - The values shown above are the p75 measure of all real Chrome users",
    "  - The scope indicates if the data came from the entire origin, or a specific url",
    "  - Lab metrics describe how this specific page load performed, while field metrics are an aggregation of results from real-world users. Best practice is to prioritize metrics that are bad in field data. Lab metrics may be better or worse than fields metrics depending on the developer's machine, network, or the actions performed while tracing.",
];

fn insight_lines(insight: &Insight, window: Window) -> Vec<String> {
    let ui = insight.ui();
    let mut lines = vec![
        format!("insight name: {}", ui.key),
        format!("description: {}", ui.description),
        format!("relevant trace bounds: {}", bounds_text(window.min, window.max)),
    ];
    let savings = savings_text(insight);
    if !savings.is_empty() {
        lines.push(format!("estimated metric savings: {savings}"));
    }
    if let Some(wasted) = insight.wasted_bytes.filter(|&w| w != 0.0 && !w.is_nan()) {
        lines.push(format!("estimated wasted bytes: {}", bytes(wasted)));
    }
    for q in questions(ui.key) {
        lines.push(format!("example question: {q}"));
    }
    lines
}

/// The savings as `FCP 10 ms, LCP 120 ms`, in the order the insights set
/// their keys.
pub(crate) fn savings_text(insight: &Insight) -> String {
    let Some(s) = insight.metric_savings else {
        return String::new();
    };
    let ms = |name: &str, v: f64| format!("{name} {} ms", js_number_string(js_round(v)));
    [
        s.fcp.map(|v| ms("FCP", v)),
        s.lcp.map(|v| ms("LCP", v)),
        s.tbt.map(|v| ms("TBT", v)),
        s.cls.map(|v| format!("CLS {}", to_fixed(v, 2))),
        s.inp.map(|v| ms("INP", v)),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(", ")
}

fn custom_tracks(parts: &mut Vec<String>, analysis: &Analysis, data: &HandlerData) {
    let tracks = &data.extension_trace_data().tracks;
    if tracks.is_empty() {
        return;
    }
    let strings = analysis.strings();
    parts.push("\n# Custom tracks\n".to_owned());
    parts.push("The following is a list of custom tracks or track groups from the extensibility API.".to_owned());
    for track in tracks {
        let name = js_string(&track.name, strings);
        if track.is_track_group {
            parts.push(format!("\n## Group: {name}\n"));
            let names: Vec<&str> = track
                .entries_by_track
                .iter()
                .map(|(n, _)| strings.resolve(*n))
                .collect();
            for track_name in js_key_order(names) {
                parts.push(format!("  - Track: {track_name}"));
            }
        } else {
            parts.push(format!("\n## Track: {name}\n"));
        }
    }
}

/// A value as a JavaScript template literal writes it.
fn js_string(value: &tracekit_engine::handlers::page::JsValue, strings: &tracekit_engine::Strings) -> String {
    use tracekit_engine::handlers::page::JsValue;
    match value {
        JsValue::Undefined => "undefined".to_owned(),
        JsValue::Null => "null".to_owned(),
        JsValue::Bool(b) => b.to_string(),
        JsValue::Num(x) => js_number_string(*x),
        JsValue::Str(s) => strings.resolve(*s).to_owned(),
        // An object or array kept as its JSON text.
        JsValue::Raw(r) => match r.trim_start().as_bytes().first() {
            Some(b'{') => "[object Object]".to_owned(),
            Some(b'[') => array_text(r),
            _ => r.to_string(),
        },
    }
}

/// An array as `String(array)` writes it, for arrays of strings, numbers,
/// booleans and nulls (what a track's name could be); other arrays as
/// their JSON text.
fn array_text(raw: &str) -> String {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Item {
        Null(()),
        Bool(bool),
        Num(f64),
        Str(String),
    }
    match serde_json::from_str::<Vec<Item>>(raw) {
        Ok(items) => items
            .into_iter()
            .map(|i| match i {
                Item::Null(()) => String::new(),
                Item::Bool(b) => b.to_string(),
                Item::Num(x) => js_number_string(x),
                Item::Str(s) => s,
            })
            .collect::<Vec<_>>()
            .join(","),
        Err(_) => raw.to_owned(),
    }
}

/// Keys in the order `Object.keys` gives them: array indices first, in
/// ascending order, then the others as inserted.
fn js_key_order(keys: Vec<&str>) -> Vec<&str> {
    let index = |k: &str| k.parse::<u32>().ok().filter(|&n| n != u32::MAX && n.to_string() == k);
    let mut indices: Vec<(u32, &str)> = keys.iter().filter_map(|k| index(k).map(|n| (n, *k))).collect();
    indices.sort_unstable();
    let mut out: Vec<&str> = indices.into_iter().map(|(_, k)| k).collect();
    out.extend(keys.into_iter().filter(|k| index(k).is_none()));
    out
}
