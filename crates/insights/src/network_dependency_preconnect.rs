//! The Network dependency tree insight's preconnects: the origins the page
//! asked to preconnect to (its `<link rel=preconnect>` elements, the
//! `Link` header of its document), and the origins of the requests the LCP
//! waited for that a preconnect would have sped up, by how much (the
//! connection's round trips, as Lantern's simulator has them, or the time
//! between the document's end and the request's DNS lookup, if less).

use tracekit_engine::handlers::page::{JsValue, NetworkRequest};
use tracekit_engine::support::dump::{Object, Value};
use tracekit_engine::Sym;
use tracekit_lantern::NodeKind;

use super::{navigation_key, number_member};
use crate::sets::Context;

/// Requests that start this long after the document's end (ms) find the
/// socket a preconnect opened closed (Chrome keeps an unused socket 10 s;
/// 5 s more of margin).
const SOCKET_MAX_IDLE_MS: f64 = 15_000.0;

/// A preconnect saving less than this (ms) is not worth suggesting.
const IGNORE_THRESHOLD_MS: f64 = 50.0;

/// Preconnects worth suggesting at most.
const MAX_CANDIDATES: usize = 4;

/// An origin worth preconnecting to.
#[derive(Debug, Clone, PartialEq)]
pub struct PreconnectCandidate {
    /// The origin (as DevTools' `ParsedURL` writes it).
    pub origin: String,
    /// The time a preconnect would have saved its first request, ms.
    pub wasted_ms: f64,
}

/// Where the page asked to preconnect.
#[derive(Debug, Clone, PartialEq)]
pub enum PreconnectSource {
    /// A `<link rel=preconnect>` element (a `LinkPreconnect` event).
    Dom {
        /// The element's `node_id`.
        node_id: JsValue,
        /// Its frame.
        frame: JsValue,
    },
    /// A `Link` header of the navigation's document.
    ResponseHeader {
        /// The part of the header that asks for it.
        header_text: String,
        /// The document request, by index in
        /// [`NetworkRequests::requests`](tracekit_engine::NetworkRequests).
        request: usize,
    },
}

/// An origin the page asked to preconnect to.
#[derive(Debug, Clone, PartialEq)]
pub struct PreconnectedOrigin {
    /// The URL asked for.
    pub url: String,
    /// No request of the set went to its origin.
    pub unused: bool,
    /// Its origin is a candidate all the same: the preconnect was likely
    /// not used for a `crossorigin` mismatch.
    pub crossorigin: bool,
    /// Where the page asked for it.
    pub source: PreconnectSource,
}

/// The origin of a URL as DevTools' `ParsedURL.securityOrigin` writes it:
/// the scheme in lower case, `://`, and the host and port as written
/// (`data:` for a data URL).
pub(crate) fn security_origin(url: &str) -> String {
    let Some(colon) = url.find(':') else {
        return String::new();
    };
    let scheme = url[..colon].to_ascii_lowercase();
    if scheme == "data" {
        return "data:".to_owned();
    }
    let rest = &url[colon + 1..];
    let authority = rest.strip_prefix("//").map_or("", |r| {
        let end = r.find(['/', '?', '#']).unwrap_or(r.len());
        let authority = &r[..end];
        authority.rfind('@').map_or(authority, |at| &authority[at + 1..])
    });
    format!("{scheme}://{authority}")
}

/// The scheme of a URL as `ParsedURL` reads it (lower case).
fn scheme(url: &str) -> String {
    url.split(':').next().unwrap_or_default().to_ascii_lowercase()
}

/// The response's timing member `key`, when a number.
fn timing(request: &NetworkRequest, key: &str) -> Option<f64> {
    match &request.timing {
        JsValue::Raw(text) => number_member(text, key),
        _ => None,
    }
}

/// A timing member as JavaScript reads it: `NaN` when absent.
fn timing_or_nan(request: &NetworkRequest, key: &str) -> f64 {
    timing(request, key).unwrap_or(f64::NAN)
}

/// Whether the request's timing says how it connected.
fn has_valid_timing(request: &NetworkRequest) -> bool {
    request.timing.is_truthy()
        && timing(request, "connectEnd").is_some_and(|t| t >= 0.0)
        && timing(request, "connectStart").is_some_and(|t| t >= 0.0)
}

/// Whether the request found its origin's connection open already.
fn already_connected(request: &NetworkRequest) -> bool {
    if !request.timing.is_truthy() {
        return false;
    }
    let [dns_start, dns_end, connect_start, connect_end] =
        ["dnsStart", "dnsEnd", "connectStart", "connectEnd"].map(|k| timing_or_nan(request, k));
    if [dns_start, dns_end, connect_start, connect_end] == [-1.0; 4] {
        return true;
    }
    dns_end - dns_start == 0.0 && connect_end - connect_start == 0.0
}

/// The request that started `at`, as far as the NetworkRequests handler
/// tells (DevTools also follows a request made in an async task back to
/// the script that scheduled it; tracekit does not yet).
fn initiator_of(cx: &Context<'_>, at: usize) -> Option<usize> {
    let network = cx.data.network_requests();
    (network.incomplete_initiator.iter())
        .rfind(|(initiated, _)| *initiated as usize == at)
        .map(|&(_, initiator)| initiator as usize)
}

/// The origins worth preconnecting to, from the set's requests (by index,
/// by start time): none without a Lantern context or a document request.
pub(crate) fn candidates(cx: &Context<'_>, context_requests: &[usize]) -> Result<Vec<PreconnectCandidate>, String> {
    let Some(lantern) = cx.lantern() else {
        return Ok(Vec::new());
    };
    let network = cx.data.network_requests();
    let Some(document_at) = navigation_key(cx)
        .and_then(|k| network.by_id.get(&k))
        .map(|&at| at as usize)
    else {
        return Ok(Vec::new());
    };
    let document = &network.requests[document_at];
    let strings = cx.analysis.strings();
    let lcp_graph = &lantern.metrics.largest_contentful_paint.pessimistic_graph.graph;
    let lcp_urls: ahash::AHashSet<&str> = lcp_graph
        .walk(lcp_graph.root)
        .into_iter()
        .filter_map(|n| match &lcp_graph.nodes[n].kind {
            NodeKind::Network(n) => Some(lantern.requests[n.request].url.as_str()),
            NodeKind::Cpu(_) => None,
        })
        .collect();
    let parse = |url: Sym| {
        let text = strings.resolve(url);
        url::Url::parse(text).map_err(|_| format!("Failed to construct 'URL': Invalid URL ({text})"))
    };
    let mut by_origin: Vec<(String, Vec<usize>)> = Vec::new();
    for &at in context_requests {
        let request = &network.requests[at];
        if !has_valid_timing(request) || initiator_of(cx, at) == Some(document_at) {
            continue;
        }
        let origin = parse(request.url)?.origin();
        if !origin.is_tuple() {
            continue;
        }
        let origin = origin.ascii_serialization();
        if origin == parse(document.url)?.origin().ascii_serialization() {
            continue;
        }
        if !lcp_urls.contains(strings.resolve(request.url)) || already_connected(request) {
            continue;
        }
        let since_document_end = (request.timings.send_start_time.0 - document.timings.finish_time.0).max(0.0);
        if since_document_end / 1000.0 >= SOCKET_MAX_IDLE_MS {
            continue;
        }
        match by_origin.iter_mut().find(|(o, _)| *o == origin) {
            Some((_, list)) => list.push(at),
            None => by_origin.push((origin, vec![at])),
        }
    }
    let mut candidates = Vec::new();
    for (_, requests) in &by_origin {
        let first = &network.requests[requests[0]];
        let url = strings.resolve(first.url);
        let origin = security_origin(url);
        let additional = (lantern.simulator.additional_rtt_by_origin.iter())
            .find(|(o, _)| *o == origin)
            .map_or(0.0, |(_, rtt)| *rtt);
        let mut connection = lantern.simulator.rtt + additional;
        // A TLS connection takes two round trips at least.
        if scheme(url) == "https" {
            connection *= 2.0;
        }
        let to_dns_start = first.timings.send_start_time.0 - document.timings.finish_time.0
            + timing_or_nan(first, "dnsStart") * 1000.0;
        let wasted_ms = js_min(connection, to_dns_start / 1000.0);
        if wasted_ms < IGNORE_THRESHOLD_MS {
            continue;
        }
        candidates.push(PreconnectCandidate { origin, wasted_ms });
    }
    candidates.sort_by(|a, b| {
        (b.wasted_ms - a.wasted_ms)
            .partial_cmp(&0.0)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    candidates.truncate(MAX_CANDIDATES);
    Ok(candidates)
}

/// JavaScript's `Math.min` of two numbers (`NaN` if either is).
fn js_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

/// The origins the page asked to preconnect to: its `<link
/// rel=preconnect>` elements, then its document's `Link` headers.
pub(crate) fn preconnected(
    cx: &Context<'_>,
    context_requests: &[usize],
    candidates: &[PreconnectCandidate],
) -> Vec<PreconnectedOrigin> {
    let network = cx.data.network_requests();
    let strings = cx.analysis.strings();
    let origins_requested: Vec<String> = context_requests
        .iter()
        .map(|&at| security_origin(strings.resolve(network.requests[at].url)))
        .collect();
    let judged = |url: String, source: PreconnectSource| {
        let origin = security_origin(&url);
        PreconnectedOrigin {
            unused: !origins_requested.contains(&origin),
            crossorigin: candidates.iter().any(|c| c.origin == origin),
            url,
            source,
        }
    };
    let mut out = Vec::new();
    for link in &network.link_preconnect_args {
        let url = link
            .url
            .as_sym()
            .map_or_else(String::new, |u| strings.resolve(u).to_owned());
        let source = PreconnectSource::Dom {
            node_id: link.node_id.clone(),
            frame: link.frame.clone(),
        };
        out.push(judged(url, source));
    }
    let Some(document_at) = navigation_key(cx)
        .and_then(|k| network.by_id.get(&k))
        .map(|&at| at as usize)
    else {
        return out;
    };
    for header in network.requests[document_at].response_header_list() {
        if !header.name.eq_ignore_ascii_case("link") {
            continue;
        }
        for (url, header_text) in preconnects_of_link_header(&header.value) {
            let source = PreconnectSource::ResponseHeader {
                header_text,
                request: document_at,
            };
            out.push(judged(url, source));
        }
    }
    out
}

/// The preconnects of a `Link` header's value: each part (up to the comma
/// after its `>`) that starts with `<URL>` and has `rel=preconnect` among
/// its parameters, as (URL, the part's text).
pub(crate) fn preconnects_of_link_header(value: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < value.len() {
        let Some(url_end) = value[i..].find('>').map(|e| i + e) else {
            break;
        };
        let part_end = value[url_end..].find(',').map_or(value.len(), |c| url_end + c);
        let part = &value[i..part_end];
        i = part_end + 1;
        if let Some(found) = preconnect_of_part(js_trim(part)) {
            out.push(found);
        }
    }
    out
}

/// One part of a `Link` header, trimmed: its URL and text when it asks
/// for a preconnect.
fn preconnect_of_part(part: &str) -> Option<(String, String)> {
    if !part.starts_with('<') {
        return None;
    }
    let url_end = part.find('>')?;
    let url = js_trim(&part[1..url_end]);
    if url.is_empty() {
        return None;
    }
    let params = js_trim(&part[url_end + 1..]);
    for param in params.split(';').map(js_trim).filter(|p| !p.is_empty()) {
        let Some(eq) = param.find('=') else {
            continue;
        };
        let name = js_trim(&param[..eq]).to_lowercase();
        let mut value = js_trim(&param[eq + 1..]);
        if value.len() >= 2 && value.starts_with('"') && value.ends_with('"') {
            value = &value[1..value.len() - 1];
        } else if value == "\"" {
            value = "";
        }
        if name == "rel" && value == "preconnect" {
            return Some((url.to_owned(), part.to_owned()));
        }
    }
    None
}

/// JavaScript's `trim`: white space and line terminators off both ends.
fn js_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
}

impl PreconnectCandidate {
    /// The candidate in the dump.
    pub(crate) fn value(&self) -> Value {
        Object::new()
            .with("origin", Value::str(self.origin.clone()))
            .with("wastedMs", Value::Num(self.wasted_ms))
            .into()
    }
}

impl PreconnectedOrigin {
    /// The origin in the dump.
    pub(crate) fn value(&self, cx: &mut crate::DumpCx<'_, '_>) -> Value {
        let mut object = Object::new();
        match &self.source {
            PreconnectSource::Dom { node_id, frame } => {
                object = object.with_some(
                    "node_id",
                    (!matches!(node_id, JsValue::Undefined)).then(|| node_id.dump()),
                );
                object = object.with_some("frame", (!matches!(frame, JsValue::Undefined)).then(|| frame.dump()));
                object.push("url", Value::str(self.url.clone()));
                object.push("source", Value::str("DOM"));
            }
            PreconnectSource::ResponseHeader { header_text, request } => {
                object.push("url", Value::str(self.url.clone()));
                object.push("headerText", Value::str(header_text.clone()));
                let request = cx.event(crate::EventRef::Request(*request));
                object.push("request", request);
                object.push("source", Value::str("ResponseHeader"));
            }
        }
        object.push("unused", Value::Bool(self.unused));
        object.push("crossorigin", Value::Bool(self.crossorigin));
        object.into()
    }
}
