//! The analyses of the insights about the navigation's LCP: its
//! breakdown, its image's discovery and the document's latency, each
//! opening with what the LCP was (its time, its element, its request).

use tracekit_engine::support::jsnum::js_number_string;
use tracekit_insights::document_latency::DocumentLatency;
use tracekit_insights::lcp_breakdown::{Lcp, LcpBreakdown, Subpart};
use tracekit_insights::lcp_discovery::LcpDiscovery;
use tracekit_insights::Finding;

use super::Cx;
use crate::units::{millis, to_fixed};

/// The set's LCP, as its LCP breakdown found it.
fn set_lcp<'a>(cx: &Cx<'a>) -> Option<&'a Lcp> {
    cx.set.computed().find_map(|i| match &i.finding {
        Finding::LcpBreakdown(f) => f.lcp.as_ref(),
        _ => None,
    })
}

/// `PASSED` or `FAILED`.
fn verdict(passed: bool) -> &'static str {
    if passed {
        "PASSED"
    } else {
        "FAILED"
    }
}

/// What every LCP insight says first: the LCP's time, its element and,
/// for an image, its request in full; empty without a navigation or an
/// LCP.
fn lcp_context(cx: &Cx<'_>) -> String {
    if cx.set.navigation.is_none() || cx.set.frame_id.is_none() {
        return String::new();
    }
    let Some(lcp) = set_lcp(cx) else {
        return String::new();
    };
    let candidate = cx.data.page_load_metrics().lcp_candidates.get(&lcp.event);
    let element = match candidate.and_then(|c| c.node_name.map(|n| (c, n))) {
        Some((c, name)) => {
            let id = if let Some(x) = c.node_id.as_f64() {
                js_number_string(x)
            } else {
                c.node_id
                    .as_sym()
                    .map_or("undefined".to_owned(), |s| cx.strings.resolve(s).to_owned())
            };
            format!("The LCP element ({}, nodeId: {id})", cx.strings.resolve(name))
        }
        None => "The LCP element".to_owned(),
    };
    let mut parts = vec![format!(
        "The Largest Contentful Paint (LCP) time for this navigation was {}.",
        millis(lcp.ms)
    )];
    let requests = cx.requests();
    match lcp.request.and_then(|r| requests.get(r)) {
        Some(r) => {
            parts.push(format!(
                "{element} is an image fetched from {}.",
                requests.url_and_key(r)
            ));
            parts.push(requests.verbose(r, Some("LCP resource network request")));
        }
        None => parts.push(format!("{element} is text and was not fetched from the network.")),
    }
    parts.join("\n")
}

/// The DocumentLatency insight's analysis.
pub(super) fn document_latency(cx: &Cx<'_>, f: &DocumentLatency) -> String {
    let Some(d) = &f.document else {
        return String::new();
    };
    let requests = cx.requests();
    let Some(r) = requests.get(d.request) else {
        return String::new();
    };
    format!(
        "{}\n\n{}\n\nThe result of the checks for this insight are:\n- The request was not redirected: {}\n- Server responded quickly: {}\n- Compression was applied: {}",
        lcp_context(cx),
        requests.verbose(r, Some("Document network request")),
        verdict(d.redirect_duration == 0.0),
        verdict(d.server_response_time <= 600.0),
        verdict(d.uncompressed_response_bytes == 0.0)
    )
}

/// The LCPBreakdown insight's analysis.
pub(super) fn lcp_breakdown(cx: &Cx<'_>, f: &LcpBreakdown) -> String {
    let Some(lcp) = &f.lcp else {
        return String::new();
    };
    let Some(Some(parts)) = lcp.subparts else {
        return String::new();
    };
    if lcp.ms == 0.0 || lcp.ms.is_nan() {
        return String::new();
    }
    let named: Vec<(&str, Subpart)> = [
        ("timeToFirstByte", Some(parts.ttfb)),
        ("resourceLoadDelay", parts.load_delay),
        ("resourceLoadDuration", parts.load_duration),
        ("elementRenderDelay", Some(parts.render_delay)),
    ]
    .into_iter()
    .filter_map(|(name, part)| part.map(|p| (name, p)))
    .collect();
    let lines: Vec<String> = (named.iter())
        .map(|(name, part)| {
            let ms = (part.max.0 - part.min.0) / 1000.0;
            format!(
                "- {}: {} ({}% of total LCP time)",
                cx.ui(name),
                millis(ms),
                to_fixed(ms / lcp.ms * 100.0, 1)
            )
        })
        .collect();
    format!(
        "{}\n\nWe can break this time down into the {} subparts that combine to make the LCP time:\n\n{}",
        lcp_context(cx),
        named.len(),
        lines.join("\n")
    )
}

/// The LCPDiscovery insight's analysis.
pub(super) fn lcp_discovery(cx: &Cx<'_>, f: &LcpDiscovery) -> String {
    let (Some(_), Some(image)) = (f.lcp_event, &f.image) else {
        return String::new();
    };
    if image.earliest_discovery.is_none_or(|t| t == 0.0) {
        return String::new();
    }
    let preload = image.link_preload.is_truthy();
    let priority = if image.priority_hinted {
        cx.ui("fetchPriorityApplied")
    } else if preload {
        cx.ui("fetchPriorityShouldBeAppliedToImagePreload")
    } else {
        cx.ui("fetchPriorityShouldBeApplied")
    };
    let checks = [
        (priority, image.priority_hinted),
        (cx.ui("lazyLoadNotApplied"), !image.lazy || preload),
        (cx.ui("requestDiscoverable"), preload || image.initiated_by_document),
    ];
    let lines: Vec<String> = checks.iter().map(|(n, p)| format!("- {n}: {}", verdict(*p))).collect();
    format!(
        "{}\n\nThe result of the checks for this insight are:\n{}",
        lcp_context(cx),
        lines.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_pass_or_fail() {
        assert_eq!(verdict(true), "PASSED");
        assert_eq!(verdict(false), "FAILED");
    }
}
