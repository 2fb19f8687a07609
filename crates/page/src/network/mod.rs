//! The NetworkRequests handler (DevTools' `NetworkRequestsHandler`): one
//! network request per request id, made from its `ResourceWillSendRequest`,
//! `ResourceSendRequest`, `ResourceReceiveResponse`, `ResourceReceivedData`,
//! `ResourceFinish`, `ResourceChangePriority`, `ResourceMarkAsCached` and
//! `PreloadRenderBlockingStatusChange` events, with every phase of its
//! timing; the web socket connections; the `LinkPreconnect` events; and
//! the third-party entity of each request.
//!
//! It runs in two depths. With [`AnalyzeOptions::all_handlers`] it makes
//! all of that ([`NetworkRequests::requests`] and the rest). With only
//! [`AnalyzeOptions::group_args`] (the aggregated views' grouping by URL,
//! which looks events up by their `args.data.requestId`), it keeps only the
//! URL of each request, from its `ResourceSendRequest` events, so that
//! the tracks and views pay for no more. Either way, DevTools keeps a
//! request whose last URL is not a `data:` URL and has an allowed scheme
//! (the first URL's scheme, in DevTools 2026-06), under that last URL.
//!
//! DevTools' adjustments for Lightrider (Lighthouse's hosted runner, on
//! only when its global flag is set) are not made: sizes and timings are
//! the trace's, and `lrServerResponseTime` is always absent.

mod build;
mod dump;
mod gather;
mod headers;
mod lantern;
#[cfg(test)]
mod tests;
mod websocket;

use tracekit_events::{names, AnalyzeOptions, Context, DevTools, Event, EventIndex, Handler, Id, Micros, Sym, Wants};
use tracekit_meta::MetaData;

use crate::args::ArgKey;
use crate::entities::EntityMappings;
use crate::value::JsValue;
use crate::Map;

pub use dump::track_entry_synthetic;
pub use headers::Header;
pub use websocket::{WebSocket, WebSocketEvent, WebSocketOwner};

/// The schemes a request's URL must have for DevTools to keep it.
const ALLOWED_SCHEMES: [&str; 5] = ["blob:", "file:", "filesystem:", "http:", "https:"];

/// Whether DevTools keeps a URL (or, in a redirect, shows it).
fn allowed(url: &str) -> bool {
    ALLOWED_SCHEMES.iter().any(|p| url.starts_with(p))
}

/// The NetworkRequests handler (see the module documentation).
#[derive(Debug, Default)]
pub struct NetworkRequestsHandler {
    /// The URL-only depth: the URLs of each request's
    /// `ResourceSendRequest`s, the first and the last (`None`: not a
    /// string).
    send_requests: Map<ArgKey, (Option<Sym>, Option<Sym>)>,
    /// The full depth: the events of each request, by request id.
    requests: Map<ArgKey, gather::RequestEvents>,
    /// The web socket events, by web socket identifier.
    web_sockets: Map<ArgKey, WebSocket>,
    /// The `LinkPreconnect` events.
    link_preconnects: Vec<EventIndex>,
    /// What each `LinkPreconnect` event says.
    link_preconnect_args: Vec<LinkPreconnect>,
}

/// The network requests of a trace.
#[derive(Debug, Clone, Default)]
pub struct NetworkRequests {
    /// The URL of each request kept, by request id (both depths).
    urls: Map<ArgKey, Sym>,
    /// The requests, in the order DevTools makes them (the order their
    /// ids first appear); empty at the URL-only depth.
    pub requests: Vec<NetworkRequest>,
    /// The position in [`NetworkRequests::requests`] of each request id.
    pub by_id: Map<ArgKey, u32>,
    /// The ids of the requests of each URL, in request order.
    pub ids_by_url: Map<Sym, Vec<ArgKey>>,
    /// Which request started each request, as far as the events' initiator
    /// URLs tell (DevTools' `incompleteInitiator`): (initiated, initiator),
    /// by position, in the order found.
    pub incomplete_initiator: Vec<(u32, u32)>,
    /// The web socket connections, in the order first seen.
    pub web_sockets: Vec<WebSocket>,
    /// The `LinkPreconnect` events.
    pub link_preconnects: Vec<EventIndex>,
    /// What each of [`NetworkRequests::link_preconnects`] says (for the
    /// Network dependency tree insight's preconnected origins).
    pub link_preconnect_args: Vec<LinkPreconnect>,
    /// The last send of each request that was redirected, by position in
    /// [`NetworkRequests::requests`]: Lantern copies the request (its
    /// source event with it) for each redirect hop, and the Network
    /// dependency tree insight shows those copies.
    pub redirected_sends: Map<u32, RedirectedSend>,
    /// The third-party entity of each request and its events (the
    /// Renderer handler's events are not in it).
    pub entities: EntityMappings,
    /// The engine followed (the dump's shape differs by engine).
    devtools: DevTools,
}

/// What a `LinkPreconnect` event says (`args.data`).
#[derive(Debug, Clone, Default)]
pub struct LinkPreconnect {
    /// The `<link>` element's `node_id`.
    pub node_id: JsValue,
    /// Its frame.
    pub frame: JsValue,
    /// The URL preconnected to.
    pub url: JsValue,
}

/// The last `ResourceSendRequest` of a redirected request, as the trace
/// has it.
#[derive(Debug, Clone)]
pub struct RedirectedSend {
    /// The event's JSON text.
    pub text: Box<str>,
    /// Its time, process and thread.
    pub ts: Micros,
    /// Its process.
    pub pid: Id,
    /// Its thread.
    pub tid: Id,
}

/// One network request (DevTools' `SyntheticNetworkRequest`). Values
/// copied from the trace's events are [`JsValue`]s, as the trace gives
/// them; those DevTools computes are typed.
#[derive(Debug, Clone)]
pub struct NetworkRequest {
    /// The request id.
    pub request_id: ArgKey,
    /// The last `ResourceSendRequest` (the synthetic event's source).
    pub event: EventIndex,
    /// Its process.
    pub pid: Id,
    /// Its thread.
    pub tid: Id,
    /// When it started: its first `ResourceWillSendRequest`, or else its
    /// first `ResourceSendRequest`.
    pub ts: Micros,
    /// Until its `ResourceFinish` (or its last send, if none).
    pub dur: Micros,
    /// Its last URL.
    pub url: Sym,
    /// The phases of its timing.
    pub timings: RequestTimings,
    /// Served from the disk cache (and not pushed, nor by a service
    /// worker).
    pub is_disk_cached: bool,
    /// DevTools' value when it is not a boolean (the response's falsy
    /// `fromCache` as it is).
    pub(crate) disk_cached_value: Option<JsValue>,
    /// An `https:` URL.
    pub is_https: bool,
    /// Served from the memory cache (`ResourceMarkAsCached`).
    pub is_memory_cached: bool,
    /// Its `ResourceFinish` has a nonzero (or no) `encodedDataLength`, or
    /// it has none.
    pub is_pushed_resource: bool,
    /// The last send's `args.data`: `priority` (the initial priority).
    pub initial_priority: JsValue,
    /// The priority after the last `ResourceChangePriority`, else the
    /// initial one.
    pub priority: JsValue,
    /// The last `PreloadRenderBlockingStatusChange`'s `renderBlocking`, or
    /// else the last send's, or else `non_blocking`.
    pub render_blocking: JsValue,
    /// The last send's own `renderBlocking` (undefined when it has none):
    /// Lantern trusts [`NetworkRequest::render_blocking`] only when the
    /// send or a status change said something.
    pub send_render_blocking: JsValue,
    /// The last send's `frame`.
    pub frame: JsValue,
    /// The URL of the frame at the time of the last send, `""` if unknown.
    pub requesting_frame_url: Sym,
    /// The last send's `requestMethod`.
    pub request_method: JsValue,
    /// The last send's `resourceType`, else `Other`.
    pub resource_type: JsValue,
    /// The last send's `fetchPriorityHint`, else `auto`.
    pub fetch_priority_hint: JsValue,
    /// The last send's `isLinkPreload` if truthy, else `false`.
    pub is_link_preload: JsValue,
    /// The last send's `initiator`.
    pub initiator: JsValue,
    /// Whether DevTools' page load simulation gave the initiator the
    /// request's stack trace as its `stack`
    /// ([`NetworkRequests::add_simulation_initiator_stacks`]).
    pub initiator_has_stack: bool,
    /// The last send's `stackTrace` (frames whose URL has a scheme
    /// DevTools does not allow show `""`).
    pub stack_trace: JsValue,
    /// The response's `fromServiceWorker`.
    pub from_service_worker: JsValue,
    /// The response's `mimeType`, else `""`.
    pub mime_type: JsValue,
    /// The response's `protocol`, else `unknown`.
    pub protocol: JsValue,
    /// The response's `statusCode`, else 0.
    pub status_code: JsValue,
    /// The response's `headers`, else `null`.
    pub response_headers: JsValue,
    /// The response's `timing` (none for a memory-cached request).
    pub timing: JsValue,
    /// The response's `connectionId`.
    pub connection_id: JsValue,
    /// The response's `connectionReused`.
    pub connection_reused: JsValue,
    /// The finish's `encodedDataLength` (0 without a finish).
    pub encoded_data_length: JsValue,
    /// The finish's `decodedBodyLength` (0 without a finish).
    pub decoded_body_length: JsValue,
    /// The finish's `didFail`, else `false`.
    pub failed: JsValue,
    /// Whether it has a `ResourceFinish`.
    pub finished: bool,
    /// Whether it has a `ResourceReceiveResponse`.
    pub has_response: bool,
    /// The redirects before its last send.
    pub redirects: Vec<Redirect>,
    /// Its events of the input, as DevTools lists them under its entity
    /// (by kind, kinds in the order first seen).
    pub events: Vec<EventIndex>,
}

/// The phases of a request's timing (DevTools' `syntheticData`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RequestTimings {
    /// DNS lookup.
    pub dns_lookup: Micros,
    /// Receiving the body.
    pub download: Micros,
    /// When the headers were received.
    pub download_start: Micros,
    /// When the network stack finished.
    pub finish_time: Micros,
    /// Connecting.
    pub initial_connection: Micros,
    /// On the network, from the last send.
    pub network_duration: Micros,
    /// From the finish time to the finish event.
    pub processing_duration: Micros,
    /// Proxy negotiation.
    pub proxy_negotiation: Micros,
    /// Queued before the request.
    pub queueing: Micros,
    /// The redirects.
    pub redirection_duration: Micros,
    /// Sending the request.
    pub request_sent: Micros,
    /// When the request was sent.
    pub send_start_time: Micros,
    /// TLS.
    pub ssl: Micros,
    /// Stalled before it started.
    pub stalled: Micros,
    /// Network and processing.
    pub total_time: Micros,
    /// From sent to the end of the headers.
    pub waiting: Micros,
    /// From sent to the first byte of the headers.
    pub server_response_time: Micros,
}

/// A redirect of a request: one of its sends before the last.
#[derive(Debug, Clone)]
pub struct Redirect {
    /// Its URL (`""` when its scheme is not allowed).
    pub url: Sym,
    /// Its `priority`.
    pub priority: JsValue,
    /// Its `requestMethod`.
    pub request_method: JsValue,
    /// When it started.
    pub ts: Micros,
    /// Until the next send.
    pub dur: Micros,
}

impl NetworkRequests {
    /// The URL of the request with this id, if DevTools keeps the request.
    pub fn url(&self, request_id: ArgKey) -> Option<Sym> {
        self.urls.get(&request_id).copied()
    }

    /// How many requests are kept.
    pub fn len(&self) -> usize {
        self.urls.len()
    }

    /// Whether no request is kept.
    pub fn is_empty(&self) -> bool {
        self.urls.is_empty()
    }

    /// The request with this id (at the full depth).
    pub fn by_id(&self, request_id: ArgKey) -> Option<&NetworkRequest> {
        self.requests.get(*self.by_id.get(&request_id)? as usize)
    }
}

impl Handler for NetworkRequestsHandler {
    type Deps<'d> = &'d MetaData;
    type Data = NetworkRequests;

    const WANTS: Wants = Wants::Named(&[
        names::RESOURCE_SEND_REQUEST,
        names::RESOURCE_WILL_SEND_REQUEST,
        names::RESOURCE_RECEIVE_RESPONSE,
        names::RESOURCE_RECEIVED_DATA,
        names::RESOURCE_FINISH,
        names::RESOURCE_CHANGE_PRIORITY,
        names::RESOURCE_MARK_AS_CACHED,
        names::PRELOAD_RENDER_BLOCKING_STATUS_CHANGE,
        names::WEB_SOCKET_CREATE,
        names::WEB_SOCKET_SEND_HANDSHAKE_REQUEST,
        names::WEB_SOCKET_RECEIVE_HANDSHAKE_RESPONSE,
        names::WEB_SOCKET_DESTROY,
        names::WEB_SOCKET_SEND,
        names::WEB_SOCKET_RECEIVE,
        names::LINK_PRECONNECT,
    ]);

    /// The URLs are gathered when the analysis keeps the group args, the
    /// whole with every handler.
    fn enabled(options: &AnalyzeOptions) -> bool {
        options.group_args || options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        if cx.options.all_handlers {
            self.gather(index, event, cx);
        } else if event.name == names::RESOURCE_SEND_REQUEST {
            self.on_send_request_url(event, cx);
        }
    }

    fn finalize(self, meta: &MetaData, cx: &mut Context) -> NetworkRequests {
        if cx.options.all_handlers {
            return build::build(self, meta, cx);
        }
        let strings = &cx.interner;
        let first_scheme = cx.options.devtools < DevTools::V2026_10;
        let mut urls = Map::default();
        for (key, (first, last)) in self.send_requests {
            let (Some(first), Some(last)) = (first, last) else {
                continue;
            };
            let last_text = strings.resolve(last);
            let scheme_of = if first_scheme {
                strings.resolve(first)
            } else {
                last_text
            };
            if !last_text.starts_with("data:") && allowed(scheme_of) {
                urls.insert(key, last);
            }
        }
        NetworkRequests {
            urls,
            devtools: cx.options.devtools,
            ..NetworkRequests::default()
        }
    }
}

impl NetworkRequestsHandler {
    /// The URL-only depth: keeps a `ResourceSendRequest`'s URL under its
    /// request id.
    fn on_send_request_url(&mut self, event: &Event<'_>, cx: &mut Context) {
        use crate::args::{string, RawArgs, RawData};
        let interner = &mut cx.interner;
        let args = event.args.and_then(RawArgs::of);
        let data = RawData::of(args.as_ref().and_then(|a| a.data));
        if let Some(key) = data.as_ref().and_then(|d| ArgKey::of(d.request_id, interner)) {
            let url = data.as_ref().and_then(|d| string(d.url)).map(|u| interner.intern(&u));
            self.send_requests.entry(key).or_insert((url, url)).1 = url;
        }
    }
}
