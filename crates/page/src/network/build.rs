//! Making the requests of the gathered events, as DevTools' handler
//! finalizes: each kept request with every phase of its timing, its
//! entity, and who initiated it; then the web socket connections.

use tracekit_events::json::member;
use tracekit_events::{names, Context, DevTools, EventIndex, Interner, Micros, Skip, Sym};
use tracekit_meta::MetaData;

use super::gather::{Kind, RequestEvents, SendRequest, Timing};
use super::{
    allowed, NetworkRequest, NetworkRequests, NetworkRequestsHandler, Redirect, RedirectedSend, RequestTimings,
};
use crate::args::ArgKey;
use crate::entities::{Entity, EntityEvent};
use crate::value::JsValue;
use crate::Map;

const SECONDS_TO_MICROS: f64 = 1_000_000.0;
const MILLIS_TO_MICROS: f64 = 1000.0;

/// The full depth's data of the handler's events.
pub(super) fn build(handler: NetworkRequestsHandler, meta: &MetaData, cx: &mut Context) -> NetworkRequests {
    let devtools = cx.options.devtools;
    let mut data = NetworkRequests {
        devtools,
        link_preconnects: handler.link_preconnects,
        link_preconnect_args: handler.link_preconnect_args,
        ..NetworkRequests::default()
    };
    let mut initiated_by_url: Map<Sym, Vec<u32>> = Map::default();
    let mut unfinished: Option<(usize, Sym)> = None;
    for (key, events) in handler.requests {
        if events.sends.is_empty() {
            // DevTools makes no request of events without a send.
            let first = events
                .finish
                .as_ref()
                .map(|f| f.index)
                .or(events.received_data.first().copied());
            cx.diagnostics.skip(Skip::NetworkRequestWithoutSend, || {
                let id = cx.interner.resolve(key.text);
                match first {
                    Some(index) => format!("request {id} (event #{index}) has no ResourceSendRequest"),
                    None => format!("request {id} has no ResourceSendRequest"),
                }
            });
            continue;
        }
        let Some(request) = make_request(key, &events, meta, cx) else {
            continue;
        };
        if !request.finished {
            let (count, _) = unfinished.get_or_insert((0, request.url));
            *count += 1;
        }
        let position = u32::try_from(data.requests.len()).unwrap_or(u32::MAX);
        data.urls.insert(key, request.url);
        data.by_id.insert(key, position);
        data.ids_by_url.entry(request.url).or_default().push(key);
        let url = cx.interner.resolve(request.url).to_owned();
        if let Some(entity) = Entity::for_url(&url, &mut cx.interner) {
            let events = request.events.iter().map(|&e| EntityEvent::Event(e));
            data.entities
                .add(entity, std::iter::once(EntityEvent::Request(position)).chain(events));
        }
        if let Some(initiator) = initiator_url(&request, devtools, &mut cx.interner) {
            initiated_by_url.entry(initiator).or_default().push(position);
        }
        if let Some(send) = events.sends.last().filter(|_| events.sends.len() > 1) {
            if let Some(text) = &send.text {
                let send = RedirectedSend {
                    text: text.clone(),
                    ts: send.ts,
                    pid: send.pid,
                    tid: send.tid,
                };
                data.redirected_sends.insert(position, send);
            }
        }
        data.requests.push(request);
    }
    let mut initiators: Map<u32, u32> = Map::default();
    for (position, request) in data.requests.iter().enumerate() {
        for &initiated in initiated_by_url.get(&request.url).into_iter().flatten() {
            initiators.insert(initiated, u32::try_from(position).unwrap_or(u32::MAX));
        }
    }
    data.incomplete_initiator = initiators.into_iter().collect();
    data.web_sockets = handler.web_sockets.into_values().collect();
    for socket in &mut data.web_sockets {
        socket.connect(meta.bounds, devtools);
    }
    add_simulation_stacks(&mut data, meta, cx);
    if let Some((count, first)) = unfinished {
        // Kept, as DevTools keeps them (the trace ended first, or the
        // request was cancelled): said once, with the first.
        cx.diagnostics.warn(format!(
            "{count} network request{} never finished (kept, unfinished; first: {})",
            if count == 1 { "" } else { "s" },
            cx.interner.resolve(first)
        ));
    }
    data
}

/// The initiator stacks DevTools' page-load simulation gives requests
/// (see [`NetworkRequests::add_simulation_initiator_stacks`]): it runs once
/// per insight set, over the requests of each main-frame navigation's
/// window (from the navigation to the frame's next one).
fn add_simulation_stacks(data: &mut NetworkRequests, meta: &MetaData, cx: &Context) {
    if data.requests.is_empty() {
        return;
    }
    let mut navigations: Vec<_> = meta
        .navigations
        .main_frame
        .iter()
        .filter(|n| n.frame.is_some() && n.navigation_id.is_some())
        .collect();
    navigations.sort_by(|a, b| a.ts.0.total_cmp(&b.ts.0));
    for navigation in navigations {
        let Some(of_frame) = meta.navigations.by_frame_id.get(&navigation.frame) else {
            continue;
        };
        let Some(at) = of_frame.iter().position(|n| n.event == navigation.event) else {
            continue;
        };
        let end = of_frame.get(at + 1).map_or(Micros(f64::INFINITY), |n| n.ts);
        data.add_simulation_initiator_stacks(navigation.ts, end, &cx.interner);
    }
}

/// The URL a request says started it: its initiator's, or its stack's
/// top frame's (as the request shows it: `""`, so none, for a scheme
/// DevTools 2026-10 hides).
fn initiator_url(request: &NetworkRequest, devtools: DevTools, interner: &mut Interner) -> Option<Sym> {
    if let JsValue::Raw(initiator) = &request.initiator {
        let url = JsValue::read(member(initiator, "url"), interner);
        if url.is_truthy() {
            return url.as_sym();
        }
    }
    let JsValue::Raw(stack) = &request.stack_trace else {
        return None;
    };
    let frames = serde_json::from_str::<Vec<&serde_json::value::RawValue>>(stack).ok()?;
    let url = member(frames.first()?.get(), "url").and_then(tracekit_events::json::as_str)?;
    let shown = devtools < DevTools::V2026_10 || allowed(&url);
    (shown && !url.is_empty()).then(|| interner.intern(&url))
}

/// The request of one id's events, if DevTools keeps it.
fn make_request(key: ArgKey, events: &RequestEvents, meta: &MetaData, cx: &mut Context) -> Option<NetworkRequest> {
    let (first, last) = (events.sends.first()?, events.sends.last()?);
    let devtools = cx.options.devtools;
    let interner = &mut cx.interner;
    let Some(url) = last.url.as_sym() else {
        cx.diagnostics.skip(Skip::NetworkRequestWithoutUrl, || {
            format!("ResourceSendRequest #{} whose url is not a string", last.index)
        });
        return None;
    };
    let url_text = interner.resolve(url);
    if url_text.starts_with("data:") {
        return None;
    }
    let scheme_url = if devtools >= DevTools::V2026_10 {
        url_text
    } else {
        first.url.as_sym().map_or("", |u| interner.resolve(u))
    };
    if !allowed(scheme_url) {
        return None;
    }
    let is_https = url_text.get(..6).is_some_and(|s| s.eq_ignore_ascii_case("https:"));
    let redirects = redirects(events, devtools, interner);
    let (timings, dur) = timings(events, interner);
    let response = events.response.as_ref();
    let finish = events.finish.as_ref();
    let is_pushed_resource = finish.is_none_or(|f| !matches!(f.encoded_data_length, JsValue::Num(x) if x == 0.0));
    let from_sw = response.map(|r| r.from_service_worker.clone()).unwrap_or_default();
    let (is_disk_cached, disk_cached_value) = match response {
        None => (false, None),
        Some(r) if !r.from_cache.is_truthy() => (false, r.from_cache.as_bool().is_none().then(|| r.from_cache.clone())),
        Some(r) => (!r.from_service_worker.is_truthy() && !is_pushed_resource, None),
    };
    let is_memory_cached = events.mark_as_cached.is_some();
    let timing = if is_memory_cached {
        JsValue::Undefined
    } else {
        response.map(|r| r.timing.clone()).unwrap_or_default()
    };
    let str_value = |s: &str, interner: &mut Interner| JsValue::Str(interner.intern(s));
    let preload = events.preload_status.last().map(|p| p.1.clone()).unwrap_or_default();
    let non_blocking = str_value("non_blocking", interner);
    let from_response =
        |f: fn(&super::gather::Response) -> &JsValue| response.map(|r| f(r).clone()).unwrap_or_default();
    Some(NetworkRequest {
        request_id: key,
        event: last.index,
        pid: last.pid,
        tid: last.tid,
        ts: timings.start,
        dur,
        url,
        timings: timings.phases,
        is_disk_cached,
        disk_cached_value,
        is_https,
        is_memory_cached,
        is_pushed_resource,
        initial_priority: last.priority.clone(),
        priority: events
            .change_priority
            .as_ref()
            .map_or_else(|| last.priority.clone(), |c| c.1.clone()),
        render_blocking: preload.or(last.render_blocking.or(non_blocking)),
        send_render_blocking: last.render_blocking.clone(),
        frame: last.frame.clone(),
        requesting_frame_url: frame_url_at(&last.frame, last.ts, meta).unwrap_or(names::EMPTY),
        request_method: last.request_method.clone(),
        resource_type: last.resource_type.or(str_value("Other", interner)),
        fetch_priority_hint: last.fetch_priority_hint.or(str_value("auto", interner)),
        is_link_preload: last.is_link_preload.or_falsy(JsValue::Bool(false)),
        initiator: last.initiator.clone(),
        initiator_has_stack: false,
        stack_trace: last.stack_trace.clone(),
        from_service_worker: from_sw,
        mime_type: from_response(|r| &r.mime_type).or(JsValue::Str(names::EMPTY)),
        protocol: from_response(|r| &r.protocol).or(str_value("unknown", interner)),
        status_code: from_response(|r| &r.status_code).or(JsValue::Num(0.0)),
        response_headers: from_response(|r| &r.headers).or(JsValue::Null),
        timing,
        connection_id: from_response(|r| &r.connection_id),
        connection_reused: from_response(|r| &r.connection_reused),
        encoded_data_length: finish.map_or(JsValue::Num(0.0), |f| f.encoded_data_length.clone()),
        decoded_body_length: finish.map_or(JsValue::Num(0.0), |f| f.decoded_body_length.clone()),
        failed: finish
            .map(|f| f.did_fail.clone())
            .unwrap_or_default()
            .or(JsValue::Bool(false)),
        finished: finish.is_some(),
        has_response: response.is_some(),
        redirects,
        events: entity_events(events),
    })
}

/// The redirects: each send before the last, timed by the will-sends
/// when there are both of a pair.
fn redirects(events: &RequestEvents, devtools: DevTools, interner: &mut Interner) -> Vec<Redirect> {
    let sends: &[SendRequest] = &events.sends;
    let wills = &events.will_sends;
    sends
        .windows(2)
        .enumerate()
        .map(|(i, pair)| {
            let (send, next) = (&pair[0], &pair[1]);
            let (ts, dur) = match (wills.get(i), wills.get(i + 1)) {
                (Some(will), Some(next_will)) => (will.1, next_will.1 - will.1),
                _ => (send.ts, next.ts - send.ts),
            };
            let url = send.url.as_sym().unwrap_or(names::EMPTY);
            // DevTools 2026-06 showed every URL.
            let shown = devtools < DevTools::V2026_10 || allowed(interner.resolve(url));
            Redirect {
                url: if shown { url } else { names::EMPTY },
                priority: send.priority.clone(),
                request_method: send.request_method.clone(),
                ts,
                dur,
            }
        })
        .collect()
}

/// A request's start and the phases of its timing.
struct Timings {
    start: Micros,
    phases: RequestTimings,
}

/// The phases of a request's timing, and its duration.
fn timings(events: &RequestEvents, interner: &Interner) -> (Timings, Micros) {
    let (first, last) = (&events.sends[0], &events.sends[events.sends.len() - 1]);
    let start = events.will_sends.first().map_or(first.ts.0, |w| w.1 .0);
    let end_redirect = events.will_sends.last().map_or(last.ts.0, |w| w.1 .0);
    let end = events.finish.as_ref().map_or(end_redirect, |f| f.ts.0);
    let finish_time = match &events.finish {
        Some(f) if f.finish_time.is_truthy() => f.finish_time.to_number(interner) * SECONDS_TO_MICROS,
        _ => end,
    };
    let or = |x: f64, y: f64| if x == 0.0 || x.is_nan() { y } else { x };
    let response_ts = events.response.as_ref().map(|r| r.ts.0);
    let timing: Option<Timing> = if events.mark_as_cached.is_some() {
        None
    } else {
        events.response.as_ref().and_then(|r| r.timing_numbers)
    };
    let network_duration = timing.map_or(0.0, |_| or(finish_time, end_redirect) - end_redirect);
    let processing_duration = end - or(finish_time, end);
    let phases = match timing {
        Some(t) => {
            let queueing = t.request_time * SECONDS_TO_MICROS - end_redirect;
            let stalled = [
                t.dns_start * MILLIS_TO_MICROS,
                t.connect_start * MILLIS_TO_MICROS,
                t.send_start * MILLIS_TO_MICROS,
                response_ts.map_or(0.0, |ts| ts - end_redirect),
            ]
            .into_iter()
            .find(|&x| x > 0.0)
            .unwrap_or(0.0);
            let download_start = t.request_time * SECONDS_TO_MICROS + t.receive_headers_end * MILLIS_TO_MICROS;
            let ms = |a: f64, b: f64| Micros((a - b) * MILLIS_TO_MICROS);
            RequestTimings {
                dns_lookup: ms(t.dns_end, t.dns_start),
                download: Micros(or(finish_time, download_start) - download_start),
                download_start: Micros(download_start),
                initial_connection: ms(t.connect_end, t.connect_start),
                proxy_negotiation: ms(t.proxy_end, t.proxy_start),
                queueing: Micros(if queueing < 0.0 { 0.0 } else { queueing }),
                request_sent: ms(t.send_end, t.send_start),
                send_start_time: Micros(t.request_time * SECONDS_TO_MICROS + t.send_start * MILLIS_TO_MICROS),
                ssl: ms(t.ssl_end, t.ssl_start),
                stalled: Micros(stalled),
                waiting: ms(t.receive_headers_end, t.send_end),
                server_response_time: ms(t.receive_headers_start.unwrap_or(t.receive_headers_end), t.send_end),
                ..RequestTimings::default()
            }
        }
        None => RequestTimings {
            download: Micros(response_ts.map_or(0.0, |ts| end - ts)),
            download_start: Micros(start),
            send_start_time: Micros(start),
            stalled: Micros(response_ts.map_or(0.0, |ts| ts - start)),
            ..RequestTimings::default()
        },
    };
    let phases = RequestTimings {
        finish_time: Micros(finish_time),
        network_duration: Micros(network_duration),
        processing_duration: Micros(processing_duration),
        redirection_duration: Micros(end_redirect - start),
        total_time: Micros(network_duration + processing_duration),
        ..phases
    };
    (
        Timings {
            start: Micros(start),
            phases,
        },
        Micros(end - start),
    )
}

/// The URL of a frame at a time: that of the first window of a process
/// rendering it that holds the time.
fn frame_url_at(frame: &JsValue, time: Micros, meta: &MetaData) -> Option<Sym> {
    let key = match frame {
        JsValue::Str(s) => Some(*s),
        JsValue::Undefined => None,
        _ => return None,
    };
    let processes = meta.renderer_processes_by_frame.get(&key)?;
    let window = processes.values().flatten().find(|w| !(w.min > time || w.max < time))?;
    window.frame.url.filter(|&u| u != names::EMPTY)
}

/// A request's events of the input, by kind in the order first seen.
fn entity_events(events: &RequestEvents) -> Vec<EventIndex> {
    let mut out = Vec::new();
    for kind in &events.order {
        match kind {
            Kind::ChangePriority => out.extend(events.change_priority.as_ref().map(|c| c.0)),
            Kind::WillSend => out.extend(events.will_sends.iter().map(|w| w.0)),
            Kind::Send => out.extend(events.sends.iter().map(|s| s.index)),
            Kind::Response => out.extend(events.response.as_ref().map(|r| r.index)),
            Kind::ReceivedData => out.extend(events.received_data.iter().copied()),
            Kind::Finish => out.extend(events.finish.as_ref().map(|f| f.index)),
            Kind::MarkAsCached => out.extend(events.mark_as_cached),
            Kind::PreloadStatus => out.extend(events.preload_status.iter().map(|p| p.0)),
        }
    }
    out
}
