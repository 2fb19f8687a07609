//! What deferring the render-blocking requests would save (DevTools'
//! RenderBlocking insight's estimate): each request's download time in
//! the FCP's optimistic simulation, and how much sooner that graph ends
//! without those requests and everything that waits for them.

use ahash::{AHashMap, AHashSet};

use crate::simulation::{js_max, js_round};
use crate::{LanternContext, LanternError, NodeKind, NodeTiming};

/// A request downloaded faster than this (ms) is not counted: it may not
/// have blocked at all (a stylesheet preloaded and applied on load looks
/// blocking), and matters little anyway.
const MINIMUM_WASTED_MS: f64 = 50.0;

/// The RenderBlocking insight's savings.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderBlockingSavings {
    /// FCP saved, ms (rounded).
    pub fcp: f64,
    /// LCP saved, ms: the FCP's, unless the LCP is an image (then 0).
    pub lcp: f64,
    /// Each render-blocking request's download time, ms (rounded), by
    /// request id, in the order of the requests given: those downloaded
    /// in at least 50 ms only (the insight's `requestIdToWastedMs`).
    pub wasted_ms: Vec<(String, f64)>,
}

/// A request of the FCP's optimistic graph: its node there, and its
/// download time, ms, with its redirects'.
struct Downloaded {
    node: usize,
    duration: f64,
}

/// The savings of deferring the requests of `request_ids` (the trace's
/// request ids, as the insight lists its render-blocking requests, in
/// the order it found them); `lcp_is_image` when the navigation's LCP
/// painted an image (the request deferred then is taken not to delay it).
/// Requests the FCP's optimistic graph does not have are left out.
pub fn render_blocking_savings(
    context: &LanternContext,
    request_ids: &[&str],
    lcp_is_image: bool,
) -> Result<RenderBlockingSavings, LanternError> {
    let downloads = downloads_by_request_id(context);
    let fcp = &context.metrics.first_contentful_paint.optimistic_graph.graph;
    let mut wasted_ms: Vec<(String, f64)> = Vec::new();
    let mut deferred: AHashSet<&str> = AHashSet::new();
    for &id in request_ids {
        let Some(download) = downloads.get(id) else {
            continue;
        };
        let node = &fcp.nodes[download.node];
        if let NodeKind::Network(n) = &node.kind {
            for hop in redirects(context, n.request) {
                deferred.insert(&context.requests[hop].request_id);
            }
        }
        for dependent in fcp.walk(download.node) {
            deferred.insert(&fcp.nodes[dependent].id);
        }
        let ms = js_round(download.duration);
        // (An unknown time is kept, as DevTools keeps it.)
        if ms < MINIMUM_WASTED_MS {
            continue;
        }
        match wasted_ms.iter_mut().find(|(r, _)| r == id) {
            Some(entry) => entry.1 = ms,
            None => wasted_ms.push((id.to_owned(), ms)),
        }
    }
    let mut savings = RenderBlockingSavings {
        fcp: 0.0,
        lcp: 0.0,
        wasted_ms,
    };
    if !savings.wasted_ms.is_empty() {
        savings.fcp = fcp_savings(context, &deferred)?;
        if !lcp_is_image {
            savings.lcp = savings.fcp;
        }
    }
    Ok(savings)
}

/// The requests a request was redirected from, first hop first (by index
/// in the context's requests).
fn redirects(context: &LanternContext, request: usize) -> Vec<usize> {
    let mut hops = Vec::new();
    let mut at = context.requests[request].redirect_source;
    while let Some(hop) = at {
        hops.push(hop);
        at = context.requests[hop].redirect_source;
    }
    hops.reverse();
    hops
}

/// The requests of the FCP's optimistic simulation by the trace's request
/// id (a redirect chain's under its last request, with the hops' download
/// times added to its own).
fn downloads_by_request_id(context: &LanternContext) -> AHashMap<&str, Downloaded> {
    let fcp = &context.metrics.first_contentful_paint;
    let sub = &fcp.optimistic_graph;
    // The estimate's timings are of nodes of the whole graph; the walk of
    // dependents is of the optimistic graph's, matched by id.
    let copy_by_id: AHashMap<&str, usize> = sub
        .graph
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect();
    let timings = &fcp.optimistic.node_timings;
    let mut by_node_id: AHashMap<&str, &NodeTiming> = AHashMap::new();
    for t in timings {
        by_node_id.insert(context.graph.nodes[t.node].id.as_str(), t);
    }
    let mut out = AHashMap::new();
    for t in timings {
        let node = &context.graph.nodes[t.node];
        let NodeKind::Network(n) = &node.kind else {
            continue;
        };
        let request = &context.requests[n.request];
        if request.redirect_destination.is_some() {
            continue;
        }
        let hops = redirects(context, n.request);
        let mut duration = t.duration();
        for &hop in &hops {
            if let Some(timing) = by_node_id.get(context.requests[hop].request_id.as_str()) {
                duration += timing.duration();
            }
        }
        // The trace's id is the chain's first request's (the others have
        // `:redirect` appended).
        let id = hops
            .first()
            .map_or(request, |&h| &context.requests[h])
            .request_id
            .as_str();
        let Some(&copy) = copy_by_id.get(node.id.as_str()) else {
            continue;
        };
        out.insert(id, Downloaded { node: copy, duration });
    }
    out
}

/// How much sooner (ms, rounded, at least 0) the FCP's optimistic graph
/// ends without the `deferred` nodes (by id).
fn fcp_savings(context: &LanternContext, deferred: &AHashSet<&str>) -> Result<f64, LanternError> {
    let (simulator, requests) = (&context.simulator, &context.requests);
    let graph = &context.metrics.first_contentful_paint.optimistic_graph.graph;
    let before = simulator
        .simulate(graph, requests)?
        .node_timings
        .iter()
        .fold(f64::NEG_INFINITY, |max, t| js_max(max, t.end));
    let minimal = graph.clone_keeping(graph.root, |n| !deferred.contains(n.id.as_str()))?;
    let root = &minimal.graph.nodes[minimal.graph.root];
    let NodeKind::Network(n) = &root.kind else {
        return Err(LanternError::new("minimalFCPGraph not a NetworkNode"));
    };
    // A root request of unknown size is simulated as sending nothing.
    let after = if requests[n.request].transfer_size.is_nan() {
        let mut sized = requests.clone();
        sized[n.request].transfer_size = 0.0;
        simulator.simulate(&minimal.graph, &sized)?
    } else {
        simulator.simulate(&minimal.graph, requests)?
    };
    Ok(js_round(js_max(before - after.time_in_ms, 0.0)))
}
