//! The largest paint handlers: LargestTextPaint (DevTools'
//! `LargestTextPaintHandler`: the last `LargestTextPaint::Candidate` of
//! each DOM node) and LargestImagePaint (DevTools'
//! `LargestImagePaintHandler`: the network request of the image that each
//! navigation's largest contentful paint painted).

use tracekit_events::dump::{Dump, Object, Value};
use tracekit_events::json::{as_f64, as_str, js_truthy, member};
use tracekit_events::{names, Context, Event, EventIndex, Handler, Id, Micros, Sym, Wants};

use crate::metrics::{MetricName, PageLoadEvent, PageLoadMetrics};
use crate::network::NetworkRequests;
use crate::Map;

/// The DOM node id of a candidate's `args.data` (`DOMNodeId`), as
/// DevTools keys its maps by it.
fn dom_node_id(data: &str, cx: &mut Context) -> Id {
    match member(data, "DOMNodeId") {
        Some(raw) => match as_f64(raw) {
            Some(x) => Id::num(x),
            None => as_str(raw).map_or(Id::MISSING, |s| Id::str(cx.interner.intern(&s))),
        },
        None => Id::MISSING,
    }
}

/// The LargestTextPaint handler (see the module documentation).
#[derive(Debug, Default)]
pub struct LargestTextPaintHandler {
    data: LargestTextPaint,
}

/// The last `LargestTextPaint::Candidate` of each DOM node.
#[derive(Debug, Clone, Default)]
pub struct LargestTextPaint {
    /// The candidate event by DOM node id, in the order the nodes were
    /// first seen.
    pub by_dom_node: Map<Id, EventIndex>,
}

impl Handler for LargestTextPaintHandler {
    type Deps<'d> = ();
    type Data = LargestTextPaint;

    const WANTS: Wants = Wants::Named(&[names::LARGEST_TEXT_PAINT_CANDIDATE]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let Some(data) = event.args.and_then(|a| member(a, "data")).filter(|d| js_truthy(d)) else {
            return;
        };
        let node = dom_node_id(data, cx);
        self.data.by_dom_node.insert(node, index);
    }

    fn finalize(self, (): (), _cx: &mut Context) -> LargestTextPaint {
        self.data
    }
}

impl LargestTextPaint {
    /// This data in the data conformance dump. DevTools' data is the map
    /// itself, which the dump's spreading of the data into an object
    /// empties: `{}`.
    pub fn dump(&self, _dump: &mut Dump<'_>) -> Value {
        Object::new().into()
    }
}

/// The image a navigation's largest contentful paint painted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LcpImage {
    /// The navigation's id.
    pub navigation_id: Option<Sym>,
    /// When the navigation started: the request must start at or after.
    pub start: Micros,
    /// When the image was painted: the request must start before.
    pub end: Micros,
    /// The image's URL.
    pub url: Sym,
}

/// The network requests, in time order, as the LCP request lookup reads
/// them: the NetworkRequests handler's synthetic requests (DevTools'
/// `byTime`).
pub trait RequestsByTime {
    /// How many requests there are.
    fn request_count(&self) -> usize;
    /// When the request at `position` started.
    fn request_ts(&self, position: usize) -> Micros;
    /// Whether the request at `position` is for `url`, or was redirected
    /// from it.
    fn request_has_url(&self, position: usize, url: Sym) -> bool;
}

/// The request of each LCP image: the first request in time order that
/// starts in the image's window (from its navigation to its paint) and
/// is for its URL or was redirected from it; by navigation id, as
/// positions in `requests`.
pub fn lcp_request_lookup(images: &[LcpImage], requests: &impl RequestsByTime) -> Map<Option<Sym>, usize> {
    let mut found = Map::default();
    for image in images {
        for position in 0..requests.request_count() {
            let ts = requests.request_ts(position);
            if ts < image.start {
                continue;
            }
            if ts >= image.end {
                break;
            }
            if requests.request_has_url(position, image.url) {
                found.insert(image.navigation_id, position);
                break;
            }
        }
    }
    found
}

/// The NetworkRequests handler's requests, in its `byTime` order.
impl RequestsByTime for NetworkRequests {
    fn request_count(&self) -> usize {
        self.requests.len()
    }

    fn request_ts(&self, position: usize) -> Micros {
        self.requests[position].ts
    }

    fn request_has_url(&self, position: usize, url: Sym) -> bool {
        let request = &self.requests[position];
        request.url == url || request.redirects.iter().any(|r| r.url == url)
    }
}

/// The LargestImagePaint handler (see the module documentation).
#[derive(Debug, Default)]
pub struct LargestImagePaintHandler {
    /// The last `LargestImagePaint::Candidate` of each DOM node, by
    /// process: its time and image URL.
    paints: Map<Id, Map<Id, (Micros, Option<Sym>)>>,
}

/// What the LargestImagePaint handler found.
#[derive(Debug, Clone, Default)]
pub struct LargestImagePaint {
    /// The image each navigation's LCP painted, when it painted one.
    pub lcp_images: Vec<LcpImage>,
    /// The request of the LCP image by navigation id, as a position in
    /// the network requests in time order.
    pub lcp_request_by_navigation: Map<Option<Sym>, usize>,
}

impl Handler for LargestImagePaintHandler {
    type Deps<'d> = (&'d PageLoadMetrics, &'d NetworkRequests);
    type Data = LargestImagePaint;

    const WANTS: Wants = Wants::Named(&[names::LARGEST_IMAGE_PAINT_CANDIDATE]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, _index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let Some(data) = event.args.and_then(|a| member(a, "data")).filter(|d| js_truthy(d)) else {
            return;
        };
        let node = dom_node_id(data, cx);
        let url = member(data, "imageUrl")
            .and_then(as_str)
            .filter(|u| !u.is_empty())
            .map(|u| cx.interner.intern(&u));
        self.paints.entry(event.pid).or_default().insert(node, (event.ts, url));
    }

    fn finalize(
        self,
        (metrics, requests): (&PageLoadMetrics, &NetworkRequests),
        _cx: &mut Context,
    ) -> LargestImagePaint {
        let lcp_images = self.lcp_images(metrics);
        let lcp_request_by_navigation = lcp_request_lookup(&lcp_images, requests);
        LargestImagePaint {
            lcp_images,
            lcp_request_by_navigation,
        }
    }
}

impl LargestImagePaintHandler {
    /// The image of each navigation's LCP, in the order of the
    /// navigations by id.
    fn lcp_images(&self, metrics: &PageLoadMetrics) -> Vec<LcpImage> {
        let mut images = Vec::new();
        for (id, navigation) in &metrics.navigations.by_id {
            let score = metrics
                .metric_scores_by_frame
                .get(&navigation.frame)
                .and_then(|navigations| navigations.get(&navigation.event))
                .and_then(|scores| scores.get(&MetricName::LargestContentfulPaint));
            let Some(PageLoadEvent::Input(event)) = score.map(|s| s.event) else {
                continue;
            };
            let Some(candidate) = metrics.lcp_candidates.get(&event) else {
                continue;
            };
            if candidate.node_id.as_f64().is_none_or(|n| n == 0.0 || n.is_nan()) {
                continue;
            }
            let paint = self
                .paints
                .get(&candidate.pid)
                .and_then(|nodes| nodes.get(&candidate.node_id));
            let Some(&(end, Some(url))) = paint else {
                continue;
            };
            images.push(LcpImage {
                navigation_id: *id,
                start: navigation.ts,
                end,
                url,
            });
        }
        images
    }
}

impl LargestImagePaint {
    /// This data in the data conformance dump; `request` gives the dump
    /// of the network request at a position of the requests in time order
    /// (the NetworkRequests handler's synthetic request).
    pub fn dump(&self, dump: &mut Dump<'_>, mut request: impl FnMut(usize, &mut Dump<'_>) -> Value) -> Value {
        let rows = self
            .lcp_request_by_navigation
            .iter()
            .map(|(id, position)| (Value::opt(*id, Value::Sym), request(*position, dump)))
            .collect();
        Object::new().with("lcpRequestByNavigationId", Value::Map(rows)).into()
    }
}

#[cfg(test)]
mod tests;
