//! The "relevant trace bounds" of an insight: the window around what the
//! Performance panel would draw over the timeline for it (the events it
//! outlines, the spans it breaks down), or the set's own bounds when it
//! draws nothing.

use std::cell::OnceCell;

use tracekit_engine::handlers::page::EntityEvent;
use tracekit_engine::handlers::page::JsValue;
use tracekit_engine::support::json::{as_f64, member};
use tracekit_engine::support::EventIndex;
use tracekit_engine::{Analysis, Bounds, HandlerData, NodeKind};
use tracekit_insights::{EventRef, Finding, Insight};

/// A window of the trace, µs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// Its start.
    pub min: f64,
    /// Its end.
    pub max: f64,
}

impl Window {
    fn span(ts: f64, dur: f64) -> Window {
        Window { min: ts, max: ts + dur }
    }
}

/// What the bounds are looked up in: the handlers' data, and the start
/// and duration of every input event on a track, indexed when first asked.
pub struct Spans<'a> {
    analysis: &'a Analysis,
    data: &'a HandlerData,
    by_event: OnceCell<Vec<(EventIndex, Window)>>,
}

impl<'a> Spans<'a> {
    /// Spans over `analysis`.
    pub fn new(analysis: &'a Analysis, data: &'a HandlerData) -> Spans<'a> {
        Spans {
            analysis,
            data,
            by_event: OnceCell::new(),
        }
    }

    /// The window of an input event drawn on a track.
    fn event(&self, index: EventIndex) -> Option<Window> {
        let spans = self.by_event.get_or_init(|| {
            let mut spans = Vec::new();
            for process in self.analysis.processes() {
                for thread in process.threads() {
                    for node in &thread.track().nodes {
                        if let NodeKind::Event { event, .. } = node.kind() {
                            let dur = node.dur().map_or(0.0, |d| d.0);
                            spans.push((event, Window::span(node.ts().0, dur)));
                        }
                    }
                }
            }
            // Sorted by event, stably: of an event on several nodes, the
            // first found is kept. (A list rather than a map: millions
            // of events on a big trace are sorted faster than hashed.)
            spans.sort_by_key(|&(event, _)| event);
            spans.dedup_by_key(|&mut (event, _)| event);
            spans
        });
        let at = spans.binary_search_by_key(&index, |&(event, _)| event).ok()?;
        Some(spans[at].1)
    }

    fn request(&self, at: usize) -> Option<Window> {
        let r = self.data.network_requests().requests.get(at)?;
        Some(Window::span(r.ts.0, r.dur.0))
    }

    fn entity_event(&self, e: EntityEvent) -> Option<Window> {
        match e {
            EntityEvent::Request(at) => self.request(at as usize),
            EntityEvent::Event(i) | EntityEvent::BeginEnd { begin: i, .. } => self.event(i),
            EntityEvent::ProfileCall { thread, position, .. } => {
                let thread = self.analysis.thread_by_number(thread)?;
                let node = thread.track().nodes.get(position as usize)?;
                Some(Window::span(node.ts().0, node.dur().map_or(0.0, |d| d.0)))
            }
        }
    }

    fn event_ref(&self, e: EventRef) -> Option<Window> {
        let data = self.data;
        match e {
            EventRef::Input(i) => self.event(i),
            EventRef::Request(at) => self.request(at),
            EventRef::Interaction(at) => {
                let i = data.user_interactions().interactions.get(at)?;
                Some(Window::span(i.ts.0, i.dur.0))
            }
            EventRef::LayoutShift(c, s) => {
                let shift = data.layout_shifts().clusters.get(c)?.shifts.get(s)?;
                Some(Window::span(shift.ts.0, shift.dur.map_or(0.0, |d| d.0)))
            }
            EventRef::LayoutShiftCluster(c) => {
                let c = data.layout_shifts().clusters.get(c)?;
                Some(Window::span(c.ts.0, c.dur.0))
            }
            EventRef::Animation(_) => None,
            // A hop of a redirect chain is drawn as its request.
            EventRef::RedirectHop(at, _) => self.request(at),
            EventRef::Entity(e) => self.entity_event(e),
        }
    }
}

/// The relevant bounds of `insight` of a set of bounds `set`.
pub fn insight_bounds(insight: &Insight, set: Bounds, spans: &Spans<'_>) -> Window {
    let windows = overlay_windows(insight, spans);
    combine(&windows).unwrap_or(Window {
        min: set.min.0,
        max: set.max.0,
    })
}

fn combine(windows: &[Window]) -> Option<Window> {
    let first = *windows.first()?;
    Some(windows[1..].iter().fold(first, |acc, w| Window {
        min: acc.min.min(w.min),
        max: acc.max.max(w.max),
    }))
}

/// The windows of what the panel draws for `insight`.
fn overlay_windows(insight: &Insight, spans: &Spans<'_>) -> Vec<Window> {
    let data = spans.data;
    let requests = |list: &mut dyn Iterator<Item = usize>| list.filter_map(|r| spans.request(r)).collect();
    match &insight.finding {
        Finding::CharacterSet(f) => requests(&mut f.document.iter().map(|d| d.request)),
        Finding::FontDisplay(f) => requests(&mut f.fonts.iter().map(|font| font.request)),
        Finding::DocumentLatency(f) => f.document.as_ref().map_or(Vec::new(), |d| document_windows(d, spans)),
        Finding::DomSize(f) => f
            .large_style_recalcs
            .iter()
            .chain(&f.large_layout_updates)
            .map(|u| Window::span(u.ts.0, u.dur.map_or(0.0, |d| d.0)))
            .collect(),
        Finding::ForcedReflow(f) => match &f.top_level_function_call {
            None => Vec::new(),
            Some(top) => top
                .events
                .iter()
                .filter_map(|&e| spans.event_ref(e))
                .chain(
                    f.aggregated_bottom_up
                        .iter()
                        .flat_map(|b| &b.related_events)
                        .filter_map(|&i| spans.event(i)),
                )
                .collect(),
        },
        Finding::InpBreakdown(f) => {
            let Some(i) = f.longest.and_then(|i| data.user_interactions().interactions.get(i)) else {
                return Vec::new();
            };
            let end = i.ts.0 + i.input_delay.0 + i.main_thread_handling.0 + i.presentation_delay.0;
            vec![
                Window::span(i.ts.0, i.input_delay.0),
                Window { min: i.ts.0, max: end },
                Window::span(i.ts.0, i.dur.0),
            ]
        }
        Finding::LcpBreakdown(f) => {
            let Some(lcp) = &f.lcp else { return Vec::new() };
            // DevTools draws the breakdown only with subparts and an LCP time.
            let (Some(Some(parts)), Some(_)) = (&lcp.subparts, lcp.ts_ms) else {
                return Vec::new();
            };
            let mut out: Vec<Window> = [
                Some(parts.ttfb),
                parts.load_delay,
                parts.load_duration,
                Some(parts.render_delay),
            ]
            .into_iter()
            .flatten()
            .map(|s| Window {
                min: s.min.0,
                max: s.max.0,
            })
            .collect();
            out.extend(lcp.request.and_then(|r| spans.request(r)));
            out
        }
        Finding::LcpDiscovery(f) => {
            let Some(image) = &f.image else { return Vec::new() };
            let Some(request) = spans.request(image.request) else {
                return Vec::new();
            };
            let Some(earliest) = image.earliest_discovery else {
                return Vec::new();
            };
            let delay = request.min - earliest;
            if delay == 0.0 || delay.is_nan() {
                return Vec::new();
            }
            vec![
                request,
                Window {
                    min: request.min - delay,
                    max: request.min,
                },
            ]
        }
        Finding::ClsCulprits(f) => cls_windows(f, data),
        Finding::ThirdParties(f) => f
            .summaries
            .iter()
            .filter(|s| f.first_party.as_ref().and_then(|p| p.entity.as_ref()) != Some(&s.entity))
            .flat_map(|s| s.events.iter())
            .filter_map(|&e| spans.entity_event(e))
            .filter(|w| w.max - w.min >= 1000.0)
            .collect(),
        Finding::Viewport(f) => {
            let interactions = &data.user_interactions().interactions;
            f.long_pointer_interactions
                .iter()
                .filter_map(|&i| interactions.get(i))
                .flat_map(|i| {
                    let delay = i.input_delay.0.min(300_000.0);
                    [Window::span(i.ts.0, delay), Window::span(i.ts.0, i.dur.0)]
                })
                .collect()
        }
        other => network_windows(other, spans),
    }
}

/// The windows of the insights about the page's requests: each request
/// the panel outlines.
fn network_windows(finding: &Finding, spans: &Spans<'_>) -> Vec<Window> {
    let data = spans.data;
    let requests = |list: &mut dyn Iterator<Item = usize>| list.filter_map(|r| spans.request(r)).collect();
    match finding {
        Finding::ModernHttp(f) => requests(&mut f.http1_requests.iter().copied()),
        Finding::RenderBlocking(f) => requests(&mut f.requests.iter().copied()),
        Finding::ImageDelivery(f) => requests(&mut f.images.iter().map(|i| i.request)),
        Finding::Cache(f) => requests(&mut f.requests.iter().map(|r| r.request)),
        Finding::LegacyJavaScript(f) => {
            let scripts = &data.scripts().scripts;
            requests(
                &mut f
                    .scripts
                    .iter()
                    .filter_map(|l| scripts.get(l.script)?.request.map(|r| r as usize)),
            )
        }
        Finding::NetworkDependencyTree(f) => {
            // Every request of the chains, depth first, as the panel
            // outlines them.
            fn walk(nodes: &[tracekit_insights::network_dependency_tree::CriticalNode], out: &mut Vec<EventRef>) {
                for node in nodes {
                    out.push(node.request);
                    walk(&node.children, out);
                }
            }
            let mut entries = Vec::new();
            walk(&f.root_nodes, &mut entries);
            entries.into_iter().filter_map(|e| spans.event_ref(e)).collect()
        }
        // Without source maps nothing is duplicated, so nothing is drawn.
        _ => Vec::new(),
    }
}

fn cls_windows(f: &tracekit_insights::cls_culprits::ClsCulprits, data: &HandlerData) -> Vec<Window> {
    let clusters = &data.layout_shifts().clusters;
    // The first of the highest score, as a stable sort puts it.
    let mut worst: Option<&tracekit_engine::LayoutShiftCluster> = None;
    for c in f.clusters.iter().filter_map(|&c| clusters.get(c)) {
        if worst.is_none_or(|w| c.cumulative_score > w.cumulative_score) {
            worst = Some(c);
        }
    }
    let Some(c) = worst else { return Vec::new() };
    let mut out = vec![Window::span(c.ts.0, c.dur.0)];
    out.extend(
        c.shifts
            .first()
            .map(|s| Window::span(s.ts.0, s.dur.map_or(0.0, |d| d.0))),
    );
    out
}

fn document_windows(d: &tracekit_insights::document_latency::LatencyDocument, spans: &Spans<'_>) -> Vec<Window> {
    let Some(request) = spans.data.network_requests().requests.get(d.request) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if d.redirect_duration != 0.0 && !d.redirect_duration.is_nan() {
        out.push(Window::span(request.ts.0, d.redirect_duration * 1000.0));
    }
    if d.server_response_time > 600.0 {
        // DevTools places this span at the request's send end as written
        // (ms from the request's start), not on the trace's clock.
        let send_end = match &request.timing {
            JsValue::Raw(timing) => member(timing, "sendEnd").and_then(as_f64).unwrap_or(0.0),
            _ => 0.0,
        };
        out.push(Window::span(send_end * 1000.0, d.server_response_time * 1000.0));
    }
    if d.uncompressed_response_bytes != 0.0 && !d.uncompressed_response_bytes.is_nan() {
        let t = &request.timings;
        out.push(Window::span(t.download_start.0, t.download.0));
    }
    out.push(Window::span(request.ts.0, request.dur.0));
    out
}
