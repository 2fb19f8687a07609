//! What sending fewer bytes would save (DevTools' insights'
//! `metricSavingsForWastedBytes`): the FCP's and the LCP's optimistic
//! graphs simulated again with the requests' wasted bytes taken off.

use crate::simulation::{js_max, js_round};
use crate::{LanternError, LanternRequest, Metrics, Simulator, Subgraph};

/// Savings are rounded to this many ms.
const GRAPH_SAVINGS_PRECISION: f64 = 50.0;

/// The FCP and LCP savings, ms, of not downloading `wasted` bytes
/// (by request: its index in the NetworkRequests handler's requests, as
/// [`LanternRequest::request`]); 0 and 0 when nothing is wasted.
pub fn metric_savings_for_wasted_bytes(
    wasted: &[(usize, f64)],
    simulator: &Simulator,
    requests: &[LanternRequest],
    metrics: &Metrics,
) -> Result<(f64, f64), LanternError> {
    if wasted.is_empty() {
        return Ok((0.0, 0.0));
    }
    let fcp = savings_for_wasted_bytes(
        wasted,
        simulator,
        requests,
        &metrics.first_contentful_paint.optimistic_graph,
    )?;
    let lcp = savings_for_wasted_bytes(
        wasted,
        simulator,
        requests,
        &metrics.largest_contentful_paint.optimistic_graph,
    )?;
    Ok((fcp, lcp))
}

/// How much sooner the graph `sub` ends with the `wasted` bytes of its
/// requests (the last hop of a redirect chain only) taken off, ms to the
/// nearest 50.
pub fn savings_for_wasted_bytes(
    wasted: &[(usize, f64)],
    simulator: &Simulator,
    requests: &[LanternRequest],
    sub: &Subgraph,
) -> Result<f64, LanternError> {
    let before = simulator.simulate(&sub.graph, requests)?;
    let mut lighter = requests.to_vec();
    for node in sub.graph.walk(sub.graph.root) {
        let crate::NodeKind::Network(n) = &sub.graph.nodes[node].kind else {
            continue;
        };
        let request = &mut lighter[n.request];
        if request.redirect_destination.is_some() {
            continue;
        }
        let bytes = wasted.iter().find(|(r, _)| *r == request.request).map(|(_, b)| *b);
        let Some(bytes) = bytes.filter(|b| *b != 0.0 && !b.is_nan()) else {
            continue;
        };
        request.transfer_size = js_max(request.transfer_size - bytes, 0.0);
    }
    let after = simulator.simulate(&sub.graph, &lighter)?;
    let savings = before.time_in_ms - after.time_in_ms;
    Ok(js_round(savings / GRAPH_SAVINGS_PRECISION) * GRAPH_SAVINGS_PRECISION)
}
