//! The page's tracks of an analysis: what the chart draws above the
//! threads ([`PageTracks`]), made from the handlers' data (network
//! requests, frames, screenshots, user timings, page-load metrics,
//! interactions, layout shifts, the GPU's tasks, memory counters,
//! extension tracks and markers).

use tracekit_engine::handlers::page::extensions::Payload;
use tracekit_engine::handlers::page::metrics::MetricName;
use tracekit_engine::handlers::page::JsValue;
use tracekit_engine::support::jsnum::js_number_string;
use tracekit_engine::support::json::{as_str, member};
use tracekit_engine::{Analysis, HandlerData, Micros, Strings};

use super::extension_color;
use super::page::{
    ExtensionEntry, ExtensionMarker, ExtensionSubTrack, ExtensionTrack, Frame, FrameState, GpuTask, Interaction,
    InteractionKind, LayoutShift, LayoutShiftCluster, MarkerKind, MemorySample, NetworkRequest, PageLoadMarker,
    PageTracks, ResourceKind, Screenshot, Timing, TimingKind,
};

/// The page's tracks of `analysis`; `None` when it has no page data (a
/// profile, or an analysis made without
/// [`AnalyzeOptions::all_handlers`](tracekit_engine::AnalyzeOptions::all_handlers)).
pub fn page_tracks(analysis: &Analysis) -> Option<PageTracks> {
    if !analysis.has_all_handlers() {
        return None;
    }
    let data = analysis.handlers()?;
    Some(PageTracks {
        network: network(analysis, data),
        frames: frames(data),
        screenshots: screenshots(data),
        timings: timings(analysis, data),
        markers: markers(data),
        interactions: interactions(analysis, data),
        layout_shifts: layout_shifts(data),
        gpu: gpu(data),
        memory: memory(analysis, data),
        extensions: extensions(analysis, data),
        extension_markers: extension_markers(analysis, data),
    })
}

fn gpu(data: &HandlerData) -> Vec<GpuTask> {
    data.gpu()
        .main_thread_task_times
        .iter()
        .map(|t| GpuTask {
            start: t.ts,
            dur: t.dur,
        })
        .collect()
}

/// The memory counters of the main frame's renderer, as the panel graphs
/// those of the renderer it shows first; without one, of the process with
/// the most.
fn memory(analysis: &Analysis, data: &HandlerData) -> Vec<MemorySample> {
    let by_process = &data.memory().values_by_process;
    let main = analysis
        .process_tracks()
        .iter()
        .filter(|(pid, p)| p.is_on_main_frame && by_process.contains_key(*pid))
        .map(|(pid, _)| *pid)
        .next();
    let counters = match main {
        Some(pid) => by_process.get(&pid),
        None => by_process.values().max_by_key(|c| c.len()),
    };
    counters
        .into_iter()
        .flatten()
        .map(|c| MemorySample {
            time: c.ts,
            js_heap: c.js_heap_size_used,
            documents: c.documents,
            nodes: c.nodes,
            listeners: c.js_event_listeners,
        })
        .collect()
}

/// `String(value)`, as the panel names a track or a group.
fn js_string(value: &JsValue, strings: &Strings) -> String {
    match value {
        JsValue::Undefined => "undefined".to_owned(),
        JsValue::Null => "null".to_owned(),
        JsValue::Bool(b) => b.to_string(),
        JsValue::Num(x) => js_number_string(*x),
        JsValue::Str(s) => strings.resolve(*s).to_owned(),
        JsValue::Raw(text) if text.trim_start().starts_with('[') => text.to_string(),
        JsValue::Raw(_) => "[object Object]".to_owned(),
    }
}

/// An entry's colour name and tooltip, from its `devtools` payload.
fn payload_style(payload: &Payload, strings: &Strings) -> (&'static str, Option<String>) {
    match payload {
        Payload::Detail { json, .. } => {
            let text = |key: &str| member(json, key).and_then(as_str).map(|s| s.into_owned());
            (extension_color(text("color").as_deref()), text("tooltipText"))
        }
        Payload::TimeStamp { color, .. } => (extension_color(Some(strings.resolve(*color))), None),
    }
}

fn extensions(analysis: &Analysis, data: &HandlerData) -> Vec<ExtensionTrack> {
    let strings = analysis.strings();
    let ext = data.extension_trace_data();
    let mut depth = vec![None; ext.entries.len()];
    for node in &ext.nodes {
        if let Some(d) = depth.get_mut(node.entry) {
            *d = Some(node.depth);
        }
    }
    ext.tracks
        .iter()
        .map(|track| ExtensionTrack {
            name: js_string(&track.name, strings),
            group: track.is_track_group,
            tracks: track
                .entries_by_track
                .iter()
                .map(|(name, entries)| ExtensionSubTrack {
                    name: strings.resolve(*name).to_owned(),
                    entries: entries
                        .iter()
                        .filter_map(|&at| {
                            let e = ext.entries.get(at)?;
                            let (color, tooltip) = payload_style(&e.payload, strings);
                            Some(ExtensionEntry {
                                name: strings.resolve(e.name).to_owned(),
                                start: e.ts,
                                dur: e.dur.unwrap_or(Micros::ZERO),
                                color: color.to_owned(),
                                depth: depth[at],
                                tooltip,
                            })
                        })
                        .collect(),
                })
                .collect(),
        })
        .collect()
}

fn extension_markers(analysis: &Analysis, data: &HandlerData) -> Vec<ExtensionMarker> {
    let strings = analysis.strings();
    data.extension_trace_data()
        .markers
        .iter()
        .map(|m| ExtensionMarker {
            name: strings.resolve(m.name).to_owned(),
            time: m.ts,
            color: payload_style(&m.payload, strings).0.to_owned(),
        })
        .collect()
}

fn network(analysis: &Analysis, data: &HandlerData) -> Vec<NetworkRequest> {
    let strings = analysis.strings();
    let text = |v: &tracekit_engine::handlers::page::JsValue| v.as_sym().map(|s| strings.resolve(s).to_owned());
    let bytes = |x: Option<f64>| x.and_then(whole);
    data.network_requests()
        .requests
        .iter()
        .map(|r| {
            let t = &r.timings;
            let end = r.ts + r.dur;
            let clamp = |x: Micros| Micros(x.0.clamp(r.ts.0, end.0));
            let mime = text(&r.mime_type).unwrap_or_default();
            NetworkRequest {
                url: strings.resolve(r.url).to_owned(),
                kind: ResourceKind::of(text(&r.resource_type).as_deref(), &mime),
                priority: text(&r.priority).unwrap_or_default(),
                initial_priority: text(&r.initial_priority),
                status: r
                    .status_code
                    .as_f64()
                    .and_then(whole)
                    .and_then(|s| u16::try_from(s).ok()),
                mime_type: mime,
                transfer_size: bytes(r.encoded_data_length.as_f64()),
                decoded_size: bytes(r.decoded_body_length.as_f64()),
                render_blocking: matches!(text(&r.render_blocking).as_deref(), Some(b) if b != "non_blocking"),
                from_cache: r.is_memory_cached || r.is_disk_cached,
                start: r.ts,
                send_start: clamp(t.send_start_time),
                download_start: clamp(t.download_start),
                finish: clamp(t.finish_time),
                end,
            }
        })
        .collect()
}

fn frames(data: &HandlerData) -> Vec<Frame> {
    data.frames()
        .frames
        .iter()
        .map(|f| Frame {
            start: f.start,
            end: f.end,
            state: if f.dropped {
                FrameState::Dropped
            } else if f.idle {
                FrameState::Idle
            } else if f.partial {
                FrameState::Partial
            } else {
                FrameState::Good
            },
        })
        .collect()
}

fn screenshots(data: &HandlerData) -> Vec<Screenshot> {
    let shots = data.screenshots();
    let list = if shots.screenshots.is_empty() {
        &shots.legacy
    } else {
        &shots.screenshots
    };
    list.iter()
        .filter_map(|s| {
            // A screenshot that is not base64 has no picture (the
            // Screenshots handler said so when loading).
            let jpeg = shots.jpeg(s)?.to_vec();
            Some(Screenshot { time: s.ts, jpeg })
        })
        .collect()
}

fn timings(analysis: &Analysis, data: &HandlerData) -> Vec<Timing> {
    let strings = analysis.strings();
    let timings = data.user_timings();
    let of = |kind: TimingKind, t: &tracekit_engine::handlers::page::user_timings::UserTiming| Timing {
        kind,
        name: strings.resolve(t.name).to_owned(),
        start: t.ts,
        dur: t.dur,
    };
    // A measure with a `devtools` payload goes on its extension track
    // instead, as in the panel.
    let ext = data.extension_trace_data();
    let extension: ahash::AHashSet<u32> = ext.entries.iter().chain(&ext.markers).map(|e| e.source_event).collect();
    let mut out: Vec<Timing> = timings
        .performance_measures
        .iter()
        .filter(|t| !extension.contains(&t.begin))
        .map(|t| of(TimingKind::Measure, t))
        .collect();
    out.extend(timings.console_timings.iter().map(|t| of(TimingKind::ConsoleTime, t)));
    out
}

fn markers(data: &HandlerData) -> Vec<PageLoadMarker> {
    let meta = data.meta();
    let metrics = data.page_load_metrics();
    let mut out = Vec::new();
    let Some(by_navigation) = metrics.metric_scores_by_frame.get(&meta.main_frame_id) else {
        return out;
    };
    let navigations = meta.navigations.by_frame_id.get(&meta.main_frame_id);
    for (navigation, scores) in by_navigation {
        // A metric's time counts from its navigation.
        let Some(start) = navigations.and_then(|navs| navs.iter().find(|n| n.event == *navigation)) else {
            continue;
        };
        for score in scores.values() {
            let kind = match score.metric {
                MetricName::FirstPaint => MarkerKind::FirstPaint,
                MetricName::FirstContentfulPaint => MarkerKind::FirstContentfulPaint,
                MetricName::LargestContentfulPaint => MarkerKind::LargestContentfulPaint,
                MetricName::DomContentLoaded => MarkerKind::DomContentLoaded,
                MetricName::Load => MarkerKind::Load,
                _ => continue,
            };
            out.push(PageLoadMarker {
                kind,
                time: start.ts + score.timing,
            });
        }
    }
    out
}

fn interactions(analysis: &Analysis, data: &HandlerData) -> Vec<Interaction> {
    let strings = analysis.strings();
    let interactions = data.user_interactions();
    interactions
        .without_nesting
        .iter()
        .map(|&i| &interactions.interactions[i])
        .map(|i| {
            let event_type = strings.resolve(i.kind).to_owned();
            let kind = match event_type.as_str() {
                "keydown" | "keypress" | "keyup" => InteractionKind::Keyboard,
                t if t.starts_with("pointer") || t.starts_with("mouse") || t == "click" || t == "tap" => {
                    InteractionKind::Pointer
                }
                _ => InteractionKind::Other,
            };
            Interaction {
                kind,
                event_type,
                interaction_id: whole(i.interaction_id).unwrap_or(0),
                start: i.ts,
                processing_start: i.processing_start,
                processing_end: i.processing_end,
                end: i.ts + i.dur,
            }
        })
        .collect()
}

fn layout_shifts(data: &HandlerData) -> Vec<LayoutShiftCluster> {
    data.layout_shifts()
        .clusters
        .iter()
        .map(|c| LayoutShiftCluster {
            start: c.window.min,
            end: c.window.max,
            score: c.cumulative_score,
            shifts: c
                .shifts
                .iter()
                .map(|s| LayoutShift {
                    time: s.ts,
                    score: s.weighted_score_delta,
                })
                .collect(),
        })
        .collect()
}

/// A count or an id the trace writes as a number, when it is a whole
/// number from 0 to 2^53 (what a double holds exactly).
fn whole(x: f64) -> Option<u64> {
    if !(0.0..=9_007_199_254_740_992.0).contains(&x) {
        return None;
    }
    // In range and rounded down: exact.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Some(x.floor() as u64)
}
