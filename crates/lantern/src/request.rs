//! A navigation's network requests as Lantern sees them: one per request
//! of the NetworkRequests handler that started in the navigation's window,
//! and one more per redirect (DevTools folds a redirect chain into one
//! request; Lantern wants each hop), with times in milliseconds, and the
//! request that started each one where the trace tells it unambiguously.

use tracekit_engine::handlers::meta::Navigation;
use tracekit_engine::handlers::page::network::NetworkRequest;
use tracekit_engine::handlers::page::JsValue;
use tracekit_engine::{HandlerData, Strings, Sym};

use crate::LanternError;

/// Chrome's timing of a request (DevTools' `ResourceTiming`): `requestTime`
/// in seconds, the others in ms after it; `NaN` where the trace has none,
/// `-1` where the phase did not happen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResourceTiming {
    /// When the request started, s.
    pub request_time: f64,
    /// Proxy negotiation's start.
    pub proxy_start: f64,
    /// Its end.
    pub proxy_end: f64,
    /// The DNS lookup's start.
    pub dns_start: f64,
    /// Its end.
    pub dns_end: f64,
    /// The connection's setup's start (TCP, TLS included).
    pub connect_start: f64,
    /// Its end.
    pub connect_end: f64,
    /// The TLS handshake's start.
    pub ssl_start: f64,
    /// Its end.
    pub ssl_end: f64,
    /// When the request began to be sent.
    pub send_start: f64,
    /// When it was sent.
    pub send_end: f64,
    /// When the response's headers began to come in.
    pub receive_headers_start: f64,
    /// When they were in.
    pub receive_headers_end: f64,
}

/// What started a request.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Initiator {
    /// Its `type` (`parser`, `script`, `other`, ...).
    pub kind: String,
    /// Its `url`, when it has one.
    pub url: Option<String>,
    /// The URLs of the script's stack, outermost last, for a request a
    /// script made.
    pub stack_urls: Vec<String>,
}

/// One request as Lantern sees it. Times are in milliseconds on the
/// trace's clock.
#[derive(Debug, Clone, PartialEq)]
pub struct LanternRequest {
    /// The NetworkRequests handler's request it is (or a redirect of), by
    /// its index in [`NetworkRequests::requests`](tracekit_engine::NetworkRequests).
    pub request: usize,
    /// Its id (a redirect's has `:redirect` once more per hop).
    pub request_id: String,
    /// The connection it used.
    pub connection_id: f64,
    /// Whether that connection was open already.
    pub connection_reused: bool,
    /// Its URL.
    pub url: String,
    /// Its protocol (`http/1.1`, `h2`, ...).
    pub protocol: String,
    /// Its URL's scheme, host and origin.
    pub scheme: String,
    /// Its URL's host.
    pub host: String,
    /// Its URL's origin.
    pub origin: String,
    /// When the renderer asked for it.
    pub renderer_start_time: f64,
    /// When the network service took it.
    pub network_request_time: f64,
    /// When its response headers were in.
    pub response_headers_end_time: f64,
    /// When its last byte was in.
    pub network_end_time: f64,
    /// Bytes sent over the network.
    pub transfer_size: f64,
    /// Bytes of the body once decoded.
    pub resource_size: f64,
    /// Served from the disk cache.
    pub from_disk_cache: bool,
    /// Served from the memory cache.
    pub from_memory_cache: bool,
    /// A `<link rel=preload>`.
    pub is_link_preload: bool,
    /// It finished.
    pub finished: bool,
    /// It failed.
    pub failed: bool,
    /// Its HTTP status (`NaN`: none).
    pub status_code: f64,
    /// What started it.
    pub initiator: Initiator,
    /// Chrome's timing, when the trace has it.
    pub timing: Option<ResourceTiming>,
    /// Its resource type (`Document`, `Script`, `XHR`, ...).
    pub resource_type: Option<String>,
    /// Its MIME type.
    pub mime_type: String,
    /// Its priority.
    pub priority: String,
    /// Whether it blocks rendering (`renderBlocking`: `blocking`,
    /// `non_blocking`, ...), when the trace says it: `None` when neither
    /// its send nor a status change did (its priority then decides).
    pub render_blocking: Option<String>,
    /// The frame that made it.
    pub frame_id: Option<Sym>,
    /// A worker made it.
    pub from_worker: bool,
    /// The request (index in the list) that redirected to this one.
    pub redirect_source: Option<usize>,
    /// The request this one redirected to.
    pub redirect_destination: Option<usize>,
    /// The request that started this one, when the trace says which
    /// unambiguously.
    pub initiator_request: Option<usize>,
}

impl LanternRequest {
    /// Whether its type is this one.
    fn is_type(&self, kind: &str) -> bool {
        self.resource_type.as_deref() == Some(kind)
    }
}

/// The requests of `navigation` (of the main frame) as Lantern sees them,
/// or DevTools' error: no request in the trace, a navigation it cannot
/// place, a trace too old to have connection ids.
pub fn requests(
    data: &HandlerData,
    strings: &Strings,
    navigation: &Navigation,
) -> Result<Vec<LanternRequest>, LanternError> {
    let network = data.network_requests();
    if network.requests.is_empty() {
        return Err(LanternError::new("No network requests found in trace"));
    }
    let starts = data.meta().navigations.by_frame_id.get(&navigation.frame);
    let at = starts.and_then(|s| s.iter().position(|n| n.event == navigation.event));
    let (Some(starts), Some(at)) = (starts, at) else {
        return Err(LanternError::new("Could not find navigation start"));
    };
    let (start, end) = (starts[at].ts.0, starts.get(at + 1).map_or(f64::INFINITY, |n| n.ts.0));
    let mut out = Vec::new();
    for (i, request) in network.requests.iter().enumerate() {
        if request.ts.0 < start || request.ts.0 >= end {
            continue;
        }
        let Some(lantern) = convert(data, strings, i, request)? else {
            continue;
        };
        push_with_redirects(lantern, request, strings, &mut out);
    }
    link_initiators(&mut out);
    Ok(out)
}

/// One request, or `None` for one whose URL does not parse.
fn convert(
    data: &HandlerData,
    strings: &Strings,
    index: usize,
    request: &NetworkRequest,
) -> Result<Option<LanternRequest>, LanternError> {
    if request.has_response && matches!(request.connection_id, JsValue::Undefined) {
        return Err(LanternError::new("Trace is too old"));
    }
    let url_text = strings.resolve(request.url);
    let Ok(url) = url::Url::parse(url_text) else {
        return Ok(None);
    };
    let timing = timing_of(&request.timing);
    let synthetic = &request.timings;
    let network_request_time = match &timing {
        Some(t) => t.request_time * 1000.0,
        None => synthetic.download_start.0 / 1000.0,
    };
    let text = |v: &JsValue| v.as_sym().map(|s| strings.resolve(s).to_owned());
    let initiator = initiator_of(&request.initiator, &request.stack_trace);
    let fetch_type = raw_member(&request.initiator, "fetchType");
    let resource_type = match fetch_type.as_deref() {
        Some("xmlhttprequest") => Some("XHR".to_owned()),
        Some("fetch") => Some("Fetch".to_owned()),
        _ => text(&request.resource_type),
    };
    let resource_size = match &request.decoded_body_length {
        JsValue::Undefined | JsValue::Null => 0.0,
        v => v.to_number(strings),
    };
    // A worker's requests: DevTools also looks for the threads named as
    // workers among the window's events, whose names come at time 0 in
    // Chrome's traces, before any navigation: the Workers handler's threads
    // are what it finds.
    let from_worker = data.workers().worker_by_thread.contains_key(&Some(request.tid));
    Ok(Some(LanternRequest {
        request: index,
        request_id: strings.resolve(request.request_id.text).to_owned(),
        connection_id: match &request.connection_id {
            JsValue::Undefined | JsValue::Null => 0.0,
            v => v.to_number(strings),
        },
        connection_reused: match &request.connection_reused {
            JsValue::Undefined | JsValue::Null => false,
            v => v.is_truthy(),
        },
        url: url_text.to_owned(),
        protocol: text(&request.protocol).unwrap_or_default(),
        scheme: url.scheme().to_owned(),
        host: url.host_str().unwrap_or_default().to_owned(),
        origin: url.origin().ascii_serialization(),
        renderer_start_time: request.ts.0 / 1000.0,
        network_request_time,
        response_headers_end_time: synthetic.download_start.0 / 1000.0,
        network_end_time: synthetic.finish_time.0 / 1000.0,
        transfer_size: request.encoded_data_length.to_number(strings),
        resource_size,
        from_disk_cache: request.is_disk_cached,
        from_memory_cache: request.is_memory_cached,
        is_link_preload: request.is_link_preload.is_truthy(),
        finished: request.finished,
        failed: request.failed.is_truthy(),
        status_code: request.status_code.to_number(strings),
        initiator,
        timing,
        resource_type,
        mime_type: text(&request.mime_type).unwrap_or_default(),
        priority: text(&request.priority).unwrap_or_default(),
        render_blocking: render_blocking(request, strings),
        frame_id: request.frame.as_sym(),
        from_worker,
        redirect_source: None,
        redirect_destination: None,
        initiator_request: None,
    }))
}

/// The request's `renderBlocking` as Lantern keeps it: only when its send
/// had one or it is not the `non_blocking` the handler defaults to.
fn render_blocking(request: &NetworkRequest, strings: &Strings) -> Option<String> {
    let value = &request.render_blocking;
    let defaulted = value.as_sym().is_some_and(|s| strings.resolve(s) == "non_blocking");
    let explicit = !matches!(request.send_render_blocking, JsValue::Undefined) || !defaulted;
    explicit
        .then(|| value.as_sym().map(|s| strings.resolve(s).to_owned()))
        .flatten()
}

/// A member of a raw JSON object value, as a string.
fn raw_member(value: &JsValue, key: &str) -> Option<String> {
    let JsValue::Raw(text) = value else {
        return None;
    };
    let raw = tracekit_engine::support::json::member(text, key)?;
    tracekit_engine::support::json::as_str(raw).map(|s| s.into_owned())
}

/// One item of a request's `stackTrace`: a frame, whose URL alone is
/// read, or anything else (left out, as DevTools finds no URL in it).
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum StackItem {
    Frame {
        #[serde(default)]
        url: Option<String>,
    },
    Other(serde::de::IgnoredAny),
}

/// The initiator of a request: its `initiator` (`{type: other}` when
/// none), with the URLs of its stack trace when it has one.
fn initiator_of(initiator: &JsValue, stack_trace: &JsValue) -> Initiator {
    let mut out = Initiator {
        kind: raw_member(initiator, "type").unwrap_or_else(|| "other".to_owned()),
        url: raw_member(initiator, "url"),
        stack_urls: Vec::new(),
    };
    if let JsValue::Raw(frames) = stack_trace {
        if let Ok(items) = serde_json::from_str::<Vec<StackItem>>(frames) {
            let urls = items.into_iter().filter_map(|item| match item {
                StackItem::Frame { url } => url.filter(|u| !u.is_empty()),
                StackItem::Other(_) => None,
            });
            for url in urls {
                if !out.stack_urls.contains(&url) {
                    out.stack_urls.push(url);
                }
            }
        }
    }
    out
}

/// A timing field: a number, or anything else (taken as absent).
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Number {
    Is(f64),
    Not(serde::de::IgnoredAny),
}

/// Chrome's timing object as the trace writes it: each field a number,
/// or absent.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawTiming {
    request_time: Option<Number>,
    proxy_start: Option<Number>,
    proxy_end: Option<Number>,
    dns_start: Option<Number>,
    dns_end: Option<Number>,
    connect_start: Option<Number>,
    connect_end: Option<Number>,
    ssl_start: Option<Number>,
    ssl_end: Option<Number>,
    send_start: Option<Number>,
    send_end: Option<Number>,
    receive_headers_start: Option<Number>,
    receive_headers_end: Option<Number>,
}

/// Chrome's timing object, with the fields the trace leaves out as DevTools
/// fills them (`-1` for the headers' start, `NaN` for the others).
fn timing_of(timing: &JsValue) -> Option<ResourceTiming> {
    let JsValue::Raw(text) = timing else {
        return None;
    };
    // An object only (serde would read an array as the fields in order).
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let t: RawTiming = serde_json::from_str(text).ok()?;
    let number = |x: &Option<Number>| match x {
        Some(Number::Is(x)) => Some(*x),
        _ => None,
    };
    let get = |x: Option<Number>| number(&x).unwrap_or(f64::NAN);
    Some(ResourceTiming {
        request_time: get(t.request_time),
        proxy_start: get(t.proxy_start),
        proxy_end: get(t.proxy_end),
        dns_start: get(t.dns_start),
        dns_end: get(t.dns_end),
        connect_start: get(t.connect_start),
        connect_end: get(t.connect_end),
        ssl_start: get(t.ssl_start),
        ssl_end: get(t.ssl_end),
        send_start: get(t.send_start),
        send_end: get(t.send_end),
        receive_headers_start: number(&t.receive_headers_start).unwrap_or(-1.0),
        receive_headers_end: get(t.receive_headers_end),
    })
}

/// Adds a request, after one request per redirect hop before it (each a
/// copy of it with the hop's URL and times, status 302 and 400 bytes, as
/// DevTools makes them), chained to one another; the request itself then
/// starts when its last hop ends.
fn push_with_redirects(
    request: LanternRequest,
    raw: &NetworkRequest,
    strings: &Strings,
    out: &mut Vec<LanternRequest>,
) {
    let first = out.len();
    for redirect in &raw.redirects {
        let mut hop = request.clone();
        hop.network_request_time = redirect.ts.0 / 1000.0;
        hop.renderer_start_time = hop.network_request_time;
        hop.network_end_time = (redirect.ts.0 + redirect.dur.0) / 1000.0;
        hop.response_headers_end_time = hop.network_end_time;
        hop.timing = Some(ResourceTiming {
            request_time: hop.network_request_time / 1000.0,
            proxy_start: -1.0,
            proxy_end: -1.0,
            dns_start: -1.0,
            dns_end: -1.0,
            connect_start: -1.0,
            connect_end: -1.0,
            ssl_start: -1.0,
            ssl_end: -1.0,
            send_start: -1.0,
            send_end: -1.0,
            receive_headers_start: hop.response_headers_end_time - hop.network_request_time,
            receive_headers_end: hop.response_headers_end_time - hop.network_request_time,
        });
        hop.url = strings.resolve(redirect.url).to_owned();
        if let Ok(url) = url::Url::parse(&hop.url) {
            hop.scheme = url.scheme().to_owned();
            hop.host = url.host_str().unwrap_or_default().to_owned();
            hop.origin = url.origin().ascii_serialization();
        }
        hop.status_code = 302.0;
        hop.resource_type = None;
        hop.transfer_size = 400.0;
        out.push(hop);
    }
    let mut request = request;
    if let Some(last) = out.last().filter(|_| out.len() > first) {
        // The request itself starts when its last hop ends.
        request.renderer_start_time = last.network_end_time;
    }
    out.push(request);
    let chain = first..out.len();
    for i in chain.clone() {
        if i > first {
            out[i].redirect_source = Some(i - 1);
            out[i].request_id = format!("{}:redirect", out[i - 1].request_id);
        }
        if i + 1 < chain.end {
            out[i].redirect_destination = Some(i + 1);
        }
    }
}

/// The URL Lantern takes a request's initiator from: the initiator's
/// URL, else for a script's request the first URL of its stack.
fn initiator_url(request: &LanternRequest) -> Option<&str> {
    if let Some(url) = &request.initiator.url {
        return Some(url);
    }
    if request.initiator.kind == "script" {
        return request.initiator.stack_urls.first().map(String::as_str);
    }
    None
}

/// Sets each request's initiator request: its redirect source, else the
/// one request of its initiator's URL that could have started it (done,
/// not failed, its headers in before it started), narrowed as DevTools
/// narrows several candidates; none when still ambiguous.
fn link_initiators(requests: &mut [LanternRequest]) {
    let mut by_url: ahash::AHashMap<&str, Vec<usize>> = ahash::AHashMap::new();
    for (i, r) in requests.iter().enumerate() {
        by_url.entry(r.url.as_str()).or_default().push(i);
    }
    let chosen: Vec<Option<usize>> = (0..requests.len())
        .map(|i| choose_initiator(requests, i, &by_url))
        .collect();
    for (request, initiator) in requests.iter_mut().zip(chosen) {
        request.initiator_request = initiator;
    }
}

fn choose_initiator(
    requests: &[LanternRequest],
    i: usize,
    by_url: &ahash::AHashMap<&str, Vec<usize>>,
) -> Option<usize> {
    let request = &requests[i];
    if request.redirect_source.is_some() {
        return request.redirect_source;
    }
    // JavaScript's `getNetworkInitiators(request)[0]` is `undefined` when
    // there is none, and no request has that URL.
    let url = initiator_url(request)?;
    let mut candidates: Vec<usize> = by_url
        .get(url)
        .map(|c| {
            c.iter()
                .copied()
                .filter(|&c| {
                    let c = &requests[c];
                    c.response_headers_end_time <= request.renderer_start_time && c.finished && !c.failed
                })
                .collect()
        })
        .unwrap_or_default();
    let mut narrow = |keep: &dyn Fn(&LanternRequest) -> bool| {
        if candidates.len() > 1 {
            let kept: Vec<usize> = candidates.iter().copied().filter(|&c| keep(&requests[c])).collect();
            if !kept.is_empty() {
                candidates = kept;
            }
        }
    };
    narrow(&|c| !c.is_type("Other"));
    narrow(&|c| c.frame_id == request.frame_id);
    if request.initiator.kind == "parser" {
        narrow(&|c| c.is_type("Document"));
    }
    if candidates.len() > 1 {
        let preloads: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&c| requests[c].is_link_preload)
            .collect();
        if !preloads.is_empty() {
            let others: Vec<&LanternRequest> = candidates
                .iter()
                .map(|&c| &requests[c])
                .filter(|c| !c.is_link_preload)
                .collect();
            if !others.is_empty() && others.iter().all(|c| c.from_disk_cache || c.from_memory_cache) {
                candidates = preloads;
            }
        }
    }
    (candidates.len() == 1).then(|| candidates[0])
}
