//! Gathering the events of each network request, web socket and link
//! preconnect at the full depth, keeping only the members of their
//! `args.data` that the requests are made of.

use tracekit_events::json::{member, object_members};
use tracekit_events::{names, Context, Event, EventIndex, Id, Interner, Micros, Skip};

use super::websocket::{WebSocket, WebSocketEvent, WebSocketOwner};
use super::NetworkRequestsHandler;
use crate::args::ArgKey;
use crate::value::{js_number, JsValue};

/// The kinds of events of a request, as DevTools files them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    ChangePriority,
    WillSend,
    Send,
    Response,
    ReceivedData,
    Finish,
    MarkAsCached,
    PreloadStatus,
}

/// The events of one request id.
#[derive(Debug, Default)]
pub(super) struct RequestEvents {
    /// The kinds in the order first seen (DevTools' object member order).
    pub order: Vec<Kind>,
    /// The last `ResourceChangePriority` and its `priority`.
    pub change_priority: Option<(EventIndex, JsValue)>,
    /// The `ResourceWillSendRequest`s.
    pub will_sends: Vec<(EventIndex, Micros)>,
    /// The `ResourceSendRequest`s.
    pub sends: Vec<SendRequest>,
    /// The last `ResourceReceiveResponse`.
    pub response: Option<Response>,
    /// The `ResourceReceivedData`s.
    pub received_data: Vec<EventIndex>,
    /// The last `ResourceFinish`.
    pub finish: Option<Finish>,
    /// The last `ResourceMarkAsCached`.
    pub mark_as_cached: Option<EventIndex>,
    /// The `PreloadRenderBlockingStatusChange`s and their `renderBlocking`.
    pub preload_status: Vec<(EventIndex, JsValue)>,
}

/// A `ResourceSendRequest`.
#[derive(Debug)]
pub(super) struct SendRequest {
    pub index: EventIndex,
    pub ts: Micros,
    pub pid: Id,
    pub tid: Id,
    pub url: JsValue,
    pub priority: JsValue,
    pub request_method: JsValue,
    pub frame: JsValue,
    pub render_blocking: JsValue,
    /// The whole event's JSON text, kept for a send after the first (the
    /// last send of a redirected request, which Lantern copies per hop).
    pub text: Option<Box<str>>,
    pub is_link_preload: JsValue,
    pub resource_type: JsValue,
    pub fetch_priority_hint: JsValue,
    pub initiator: JsValue,
    pub stack_trace: JsValue,
}

/// A `ResourceReceiveResponse`.
#[derive(Debug)]
pub(super) struct Response {
    pub index: EventIndex,
    pub ts: Micros,
    pub from_cache: JsValue,
    pub from_service_worker: JsValue,
    pub mime_type: JsValue,
    pub protocol: JsValue,
    pub status_code: JsValue,
    pub headers: JsValue,
    pub connection_id: JsValue,
    pub connection_reused: JsValue,
    pub timing: JsValue,
    /// The numbers of `timing`, when it is truthy.
    pub timing_numbers: Option<Timing>,
}

/// The numbers of a response's `timing`, as `Number()` gives them.
#[derive(Debug, Clone, Copy)]
pub(super) struct Timing {
    pub request_time: f64,
    pub dns_start: f64,
    pub dns_end: f64,
    pub connect_start: f64,
    pub connect_end: f64,
    pub ssl_start: f64,
    pub ssl_end: f64,
    pub proxy_start: f64,
    pub proxy_end: f64,
    pub send_start: f64,
    pub send_end: f64,
    /// `None` when absent or `null`.
    pub receive_headers_start: Option<f64>,
    pub receive_headers_end: f64,
}

/// A `ResourceFinish`.
#[derive(Debug)]
pub(super) struct Finish {
    pub index: EventIndex,
    pub ts: Micros,
    pub encoded_data_length: JsValue,
    pub decoded_body_length: JsValue,
    pub finish_time: JsValue,
    pub did_fail: JsValue,
}

/// The members `keys` of a JSON object's text (the last of each).
fn pick<'a, const N: usize>(object: &'a str, keys: [&str; N]) -> [Option<&'a str>; N] {
    let mut found = [None; N];
    for (key, value) in object_members(object) {
        if let Some(at) = keys.iter().position(|k| *k == key) {
            found[at] = Some(value);
        }
    }
    found
}

impl NetworkRequestsHandler {
    /// Files one event at the full depth.
    pub(super) fn gather(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        if event.name == names::LINK_PRECONNECT {
            self.link_preconnects.push(index);
            let data = event.args.and_then(|a| member(a, "data"));
            let [node_id, frame, url] = data.map_or([None; 3], |d| pick(d, ["node_id", "frame", "url"]));
            let interner = &mut cx.interner;
            self.link_preconnect_args.push(super::LinkPreconnect {
                node_id: JsValue::read(node_id, interner),
                frame: JsValue::read(frame, interner),
                url: JsValue::read(url, interner),
            });
            return;
        }
        let Some(data) = event.args.and_then(|a| member(a, "data")) else {
            cx.diagnostics.skip(Skip::NetworkUnreadableEvent, || {
                format!("event #{index} ({}) without args.data", cx.interner.resolve(event.name))
            });
            return;
        };
        if is_web_socket(event) {
            self.on_web_socket(index, event, data, cx);
            return;
        }
        let Some(key) = ArgKey::of(member(data, "requestId"), &mut cx.interner) else {
            cx.diagnostics.skip(Skip::NetworkUnreadableEvent, || {
                format!("event #{index} whose args.data.requestId is not a string or a number")
            });
            return;
        };
        let interner = &mut cx.interner;
        let request = self.requests.entry(key).or_default();
        let kind = match event.name {
            names::RESOURCE_CHANGE_PRIORITY => {
                request.change_priority = Some((index, JsValue::read(member(data, "priority"), interner)));
                Kind::ChangePriority
            }
            names::RESOURCE_WILL_SEND_REQUEST => {
                request.will_sends.push((index, event.ts));
                Kind::WillSend
            }
            names::RESOURCE_SEND_REQUEST => {
                let mut send = send_request(index, event, data, interner);
                if !request.sends.is_empty() {
                    send.text = Some(event.text.into());
                }
                request.sends.push(send);
                Kind::Send
            }
            names::RESOURCE_RECEIVE_RESPONSE => {
                request.response = Some(response(index, event, data, interner));
                Kind::Response
            }
            names::RESOURCE_RECEIVED_DATA => {
                request.received_data.push(index);
                Kind::ReceivedData
            }
            names::RESOURCE_FINISH => {
                request.finish = Some(finish(index, event, data, interner));
                Kind::Finish
            }
            names::RESOURCE_MARK_AS_CACHED => {
                request.mark_as_cached = Some(index);
                Kind::MarkAsCached
            }
            _ => {
                let blocking = JsValue::read(member(data, "renderBlocking"), interner);
                request.preload_status.push((index, blocking));
                Kind::PreloadStatus
            }
        };
        if !request.order.contains(&kind) {
            request.order.push(kind);
        }
    }

    /// Files a web socket event under its identifier, if its socket is
    /// known or it names a frame or worker.
    fn on_web_socket(&mut self, index: EventIndex, event: &Event<'_>, data: &str, cx: &mut Context) {
        let interner = &mut cx.interner;
        let [identifier, frame, worker, url] = pick(data, ["identifier", "frame", "workerId", "url"]);
        let Some(key) = ArgKey::of(identifier, interner) else {
            cx.diagnostics.skip(Skip::NetworkUnreadableEvent, || {
                format!("web socket event #{index} whose identifier is not a string or a number")
            });
            return;
        };
        let identifier = JsValue::read(identifier, interner);
        if !self.web_sockets.contains_key(&key) {
            let (frame, worker) = (JsValue::read(frame, interner), JsValue::read(worker, interner));
            let owner = if frame.is_truthy() {
                WebSocketOwner::Frame(frame)
            } else if worker.is_truthy() {
                WebSocketOwner::Worker(worker)
            } else {
                return;
            };
            self.web_sockets.insert(key, WebSocket::new(owner, identifier.clone()));
        }
        let s = member(event.text, "s");
        let socket_event = WebSocketEvent {
            index,
            name: event.name,
            cat: event.cat,
            ts: event.ts,
            pid: event.pid,
            tid: event.tid,
            s: JsValue::read(s, interner),
            identifier,
            url: JsValue::read(url, interner),
        };
        if let Some(socket) = self.web_sockets.get_mut(&key) {
            socket.events.push(socket_event);
        }
    }
}

/// Whether an event is one of the web socket events DevTools files.
fn is_web_socket(event: &Event<'_>) -> bool {
    matches!(
        event.name,
        names::WEB_SOCKET_CREATE
            | names::WEB_SOCKET_SEND_HANDSHAKE_REQUEST
            | names::WEB_SOCKET_RECEIVE_HANDSHAKE_RESPONSE
            | names::WEB_SOCKET_DESTROY
            | names::WEB_SOCKET_SEND
            | names::WEB_SOCKET_RECEIVE
    )
}

fn send_request(index: EventIndex, event: &Event<'_>, data: &str, interner: &mut Interner) -> SendRequest {
    let [url, priority, method, frame, blocking, preload, resource_type, hint, initiator, stack] = pick(
        data,
        [
            "url",
            "priority",
            "requestMethod",
            "frame",
            "renderBlocking",
            "isLinkPreload",
            "resourceType",
            "fetchPriorityHint",
            "initiator",
            "stackTrace",
        ],
    );
    let mut read = |raw| JsValue::read(raw, interner);
    SendRequest {
        index,
        ts: event.ts,
        pid: event.pid,
        tid: event.tid,
        url: read(url),
        priority: read(priority),
        request_method: read(method),
        frame: read(frame),
        render_blocking: read(blocking),
        is_link_preload: read(preload),
        resource_type: read(resource_type),
        fetch_priority_hint: read(hint),
        initiator: read(initiator),
        stack_trace: read(stack),
        text: None,
    }
}

fn response(index: EventIndex, event: &Event<'_>, data: &str, interner: &mut Interner) -> Response {
    let [from_cache, from_sw, mime, protocol, status, headers, connection_id, reused, timing] = pick(
        data,
        [
            "fromCache",
            "fromServiceWorker",
            "mimeType",
            "protocol",
            "statusCode",
            "headers",
            "connectionId",
            "connectionReused",
            "timing",
        ],
    );
    let mut read = |raw| JsValue::read(raw, interner);
    let timing_value = read(timing);
    let timing_numbers = timing_value.is_truthy().then(|| timing_of(timing.unwrap_or("null")));
    Response {
        index,
        ts: event.ts,
        from_cache: read(from_cache),
        from_service_worker: read(from_sw),
        mime_type: read(mime),
        protocol: read(protocol),
        status_code: read(status),
        headers: read(headers),
        connection_id: read(connection_id),
        connection_reused: read(reused),
        timing: timing_value,
        timing_numbers,
    }
}

/// The numbers of a `timing` value (members of anything but an object
/// are absent: `NaN`).
fn timing_of(raw: &str) -> Timing {
    let [rt, dns_s, dns_e, con_s, con_e, ssl_s, ssl_e, proxy_s, proxy_e, send_s, send_e, rh_s, rh_e] = pick(
        raw,
        [
            "requestTime",
            "dnsStart",
            "dnsEnd",
            "connectStart",
            "connectEnd",
            "sslStart",
            "sslEnd",
            "proxyStart",
            "proxyEnd",
            "sendStart",
            "sendEnd",
            "receiveHeadersStart",
            "receiveHeadersEnd",
        ],
    );
    Timing {
        request_time: js_number(rt),
        dns_start: js_number(dns_s),
        dns_end: js_number(dns_e),
        connect_start: js_number(con_s),
        connect_end: js_number(con_e),
        ssl_start: js_number(ssl_s),
        ssl_end: js_number(ssl_e),
        proxy_start: js_number(proxy_s),
        proxy_end: js_number(proxy_e),
        send_start: js_number(send_s),
        send_end: js_number(send_e),
        receive_headers_start: rh_s.filter(|r| r.trim() != "null").map(|r| js_number(Some(r))),
        receive_headers_end: js_number(rh_e),
    }
}

fn finish(index: EventIndex, event: &Event<'_>, data: &str, interner: &mut Interner) -> Finish {
    let [encoded, decoded, finish_time, did_fail] = pick(
        data,
        ["encodedDataLength", "decodedBodyLength", "finishTime", "didFail"],
    );
    let mut read = |raw| JsValue::read(raw, interner);
    Finish {
        index,
        ts: event.ts,
        encoded_data_length: read(encoded),
        decoded_body_length: read(decoded),
        finish_time: read(finish_time),
        did_fail: read(did_fail),
    }
}
