//! What fixing an insight would save, as DevTools estimates it with
//! Lantern on the set's navigation: the FCP and LCP of the page simulated
//! again with fewer bytes. Without a Lantern context (no navigation, or a
//! page Lantern cannot simulate) there is no estimate, as in DevTools.

use crate::model::MetricSavings;
use crate::sets::Context;

/// The FCP and LCP savings of not downloading `wasted` bytes (by request:
/// its index in the NetworkRequests handler's requests; a request listed
/// twice counts with its last bytes, as DevTools' map by request id
/// keeps them); `None` without a Lantern context; a simulation that fails
/// is the insight's error.
pub(crate) fn wasted_bytes_savings(
    cx: &Context<'_>,
    wasted: impl IntoIterator<Item = (usize, f64)>,
) -> Result<Option<MetricSavings>, String> {
    let Some(lantern) = cx.lantern() else {
        return Ok(None);
    };
    let mut by_request: Vec<(usize, f64)> = Vec::new();
    for (request, bytes) in wasted {
        match by_request.iter_mut().find(|(r, _)| *r == request) {
            Some(kept) => kept.1 = bytes,
            None => by_request.push((request, bytes)),
        }
    }
    let (fcp, lcp) = tracekit_lantern::metric_savings_for_wasted_bytes(
        &by_request,
        &lantern.simulator,
        &lantern.requests,
        &lantern.metrics,
    )
    .map_err(|e| e.to_string())?;
    Ok(Some(MetricSavings {
        fcp: Some(fcp),
        lcp: Some(lcp),
        ..MetricSavings::default()
    }))
}
