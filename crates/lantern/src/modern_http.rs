//! What serving requests over HTTP/2 would save (DevTools' ModernHTTP
//! insight's estimate): the FCP's and the LCP's optimistic graphs
//! simulated again with the given URLs' requests multiplexed.

use ahash::AHashSet;

use crate::{LanternContext, LanternError, LanternRequest, NodeKind, Simulator, Subgraph};

/// The savings are rounded down to a multiple of this many ms.
const PRECISION: f64 = 10.0;

/// The FCP and LCP savings, ms (rounded down to a multiple of 10, and
/// negative when HTTP/2 is simulated to be slower), of serving every
/// request of the given URLs over HTTP/2: the URLs the insight flags
/// (each an HTTP/1.1 request's URL; a redirect hop is changed only when
/// its own URL is one of them).
pub fn modern_http_savings(context: &LanternContext, urls: &[&str]) -> Result<(f64, f64), LanternError> {
    let urls: AHashSet<&str> = urls.iter().copied().collect();
    let metrics = &context.metrics;
    let fcp = http2_savings(
        &urls,
        &context.simulator,
        &context.requests,
        &metrics.first_contentful_paint.optimistic_graph,
    )?;
    let lcp = http2_savings(
        &urls,
        &context.simulator,
        &context.requests,
        &metrics.largest_contentful_paint.optimistic_graph,
    )?;
    Ok((fcp, lcp))
}

/// How much sooner the graph `sub` ends with the requests of `urls`
/// served over HTTP/2 (only the graph's own requests matter: the
/// simulation reads no other).
fn http2_savings(
    urls: &AHashSet<&str>,
    simulator: &Simulator,
    requests: &[LanternRequest],
    sub: &Subgraph,
) -> Result<f64, LanternError> {
    let before = simulator.simulate(&sub.graph, requests)?;
    let mut changed = requests.to_vec();
    for node in sub.graph.walk(sub.graph.root) {
        let NodeKind::Network(n) = &sub.graph.nodes[node].kind else {
            continue;
        };
        let request = &mut changed[n.request];
        if urls.contains(request.url.as_str()) {
            "h2".clone_into(&mut request.protocol);
        }
    }
    let after = simulator.simulate(&sub.graph, &changed)?;
    let savings = before.time_in_ms - after.time_in_ms;
    Ok((savings / PRECISION).floor() * PRECISION)
}
