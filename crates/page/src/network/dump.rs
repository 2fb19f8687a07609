//! The network requests in the data conformance dump, in the shape of
//! DevTools' `NetworkRequestsHandler` data; each request is one synthetic
//! event, shared with the other handlers' data that refer to it.

use tracekit_events::dump::{Dump, Object, Synthetic, SyntheticId, Value};
use tracekit_events::json::{as_str, object_members};
use tracekit_events::DevTools;

use super::{allowed, NetworkRequest, NetworkRequests, Redirect, RequestTimings};
use crate::args::ArgKey;
use crate::entities::{EntityEvent, ThreadNumber, TrackEntries, TrackEntry};
use crate::value::JsValue;

/// A request id as DevTools holds it: a string or a number.
fn id_value(key: ArgKey, dump: &Dump<'_>) -> Value {
    if key.is_number {
        Value::Num(dump.strings().resolve(key.text).parse().unwrap_or(f64::NAN))
    } else {
        Value::Sym(key.text)
    }
}

impl NetworkRequests {
    /// This data in the data conformance dump.
    pub fn dump(&self, dump: &mut Dump<'_>) -> Value {
        self.dump_with(&self.entities, &NoTracks, dump)
    }

    /// This data in the data conformance dump, with `entities` as its
    /// entity mappings: DevTools' Renderer handler adds its events to the
    /// very map this handler made, so the dump shows them here too once
    /// the Renderer's mappings (these, extended) are given, with the
    /// tracks their entries are on.
    pub fn dump_with(&self, entities: &crate::EntityMappings, tracks: &dyn TrackEntries, dump: &mut Dump<'_>) -> Value {
        let by_id = (0..self.requests.len())
            .map(|i| {
                (
                    id_value(self.requests[i].request_id, dump),
                    Value::Synthetic(self.dump_request(i, dump)),
                )
            })
            .collect();
        let by_time = (0..self.requests.len())
            .map(|i| Value::Synthetic(self.dump_request(i, dump)))
            .collect();
        let ids_by_url = self
            .ids_by_url
            .iter()
            .map(|(url, ids)| {
                (
                    Value::Sym(*url),
                    Value::Array(ids.iter().map(|&k| id_value(k, dump)).collect()),
                )
            })
            .collect();
        // DevTools 2026-10 keeps the initiators in a WeakMap, which has no
        // members to show.
        let initiators = if self.devtools >= DevTools::V2026_10 {
            Value::Object(Vec::new())
        } else {
            let rows = self.incomplete_initiator.iter().map(|&(initiated, initiator)| {
                let initiated = Value::Synthetic(self.dump_request(initiated as usize, dump));
                (initiated, Value::Synthetic(self.dump_request(initiator as usize, dump)))
            });
            Value::Map(rows.collect())
        };
        let web_sockets = self
            .web_sockets
            .iter()
            .enumerate()
            .map(|(i, w)| w.dump(i, dump))
            .collect();
        let entities = entities
            .events_by_entity
            .iter()
            .map(|(entity, events)| {
                let name = format!("entity:{}", entity.name(dump.strings()));
                let events = events
                    .iter()
                    .map(|e| match *e {
                        EntityEvent::Request(i) => Value::Synthetic(self.dump_request(i as usize, dump)),
                        EntityEvent::Event(index) => Value::Event(index),
                        EntityEvent::ProfileCall { .. } | EntityEvent::BeginEnd { .. } => {
                            track_entry_synthetic(*e, tracks, dump).map_or(Value::Null, Value::Synthetic)
                        }
                    })
                    .collect();
                (Value::str(name), Value::Array(events))
            })
            .collect();
        Object::new()
            .with("byId", Value::Map(by_id))
            .with("byTime", Value::Array(by_time))
            .with("requestIdsByURL", Value::Map(ids_by_url))
            .with("incompleteInitiator", initiators)
            .with("webSocket", Value::Array(web_sockets))
            .with(
                "linkPreconnectEvents",
                Value::events(self.link_preconnects.iter().copied()),
            )
            .with(
                "entityMappings",
                Object::new().with("eventsByEntity", Value::Map(entities)).into(),
            )
            .into()
    }

    /// The synthetic event of the `i`-th request, registered once in the
    /// dump: what other handlers' dumps refer to a request by.
    pub fn dump_request(&self, i: usize, dump: &mut Dump<'_>) -> SyntheticId {
        dump.shared("SyntheticNetworkRequest", i as u64, |d| {
            let request = &self.requests[i];
            Synthetic {
                name: "SyntheticNetworkRequest".into(),
                pid: Value::id(request.pid),
                tid: Value::id(request.tid),
                ts: request.ts.0,
                raw: Some(request.event),
                profile_call: None,
                fields: Some(self.request_fields(request, d)),
            }
        })
    }

    /// The synthetic event of Lantern's copy of the `i`-th request for
    /// redirect hop `hop` (a redirected request is copied, its source
    /// event with it, once per hop): the request's fields, its source
    /// event a copy too. Registered once per request and hop.
    pub fn dump_redirect_hop(&self, i: usize, hop: u32, dump: &mut Dump<'_>) -> SyntheticId {
        let key = ((i as u64) << 24) | u64::from(hop);
        dump.shared("SyntheticNetworkRequestRedirectHop", key, |d| {
            let request = &self.requests[i];
            let send = u32::try_from(i).ok().and_then(|at| self.redirected_sends.get(&at));
            let raw = match send {
                Some(send) => Value::Synthetic(d.synthetic(Synthetic {
                    name: "ResourceSendRequest".into(),
                    pid: Value::id(send.pid),
                    tid: Value::id(send.tid),
                    ts: send.ts.0,
                    raw: None,
                    profile_call: None,
                    fields: Some(Value::Json(send.text.clone())),
                })),
                None => Value::Event(request.event),
            };
            Synthetic {
                name: "SyntheticNetworkRequest".into(),
                pid: Value::id(request.pid),
                tid: Value::id(request.tid),
                ts: request.ts.0,
                raw: None,
                profile_call: None,
                fields: Some(self.request_fields_with_source(request, raw, d)),
            }
        })
    }

    /// A request's fields, as DevTools' synthetic event has them.
    fn request_fields(&self, r: &NetworkRequest, dump: &Dump<'_>) -> Value {
        self.request_fields_with_source(r, Value::Event(r.event), dump)
    }

    /// A request's fields with this `rawSourceEvent`.
    fn request_fields_with_source(&self, r: &NetworkRequest, raw: Value, dump: &Dump<'_>) -> Value {
        let shows_urls = self.devtools >= DevTools::V2026_10;
        let stack_trace = match &r.stack_trace {
            JsValue::Raw(stack) if shows_urls => shown_stack(stack, true),
            other => other.dump(),
        };
        let initiator = match (&r.initiator, &r.stack_trace) {
            (JsValue::Raw(initiator), JsValue::Raw(stack)) if r.initiator_has_stack => {
                super::lantern::initiator_with_stack(initiator, &shown_stack(stack, shows_urls))
            }
            (other, _) => other.dump(),
        };
        let data = Object::new()
            .with("syntheticData", synthetic_data(r))
            .with("decodedBodyLength", r.decoded_body_length.dump())
            .with("encodedDataLength", r.encoded_data_length.dump())
            .with("frame", r.frame.dump())
            .with("fromServiceWorker", r.from_service_worker.dump())
            .with("isLinkPreload", r.is_link_preload.dump())
            .with("mimeType", r.mime_type.dump())
            .with("priority", r.priority.dump())
            .with("initialPriority", r.initial_priority.dump())
            .with("protocol", r.protocol.dump())
            .with("redirects", Value::Array(r.redirects.iter().map(redirect).collect()))
            .with("renderBlocking", r.render_blocking.dump())
            .with("requestId", id_value(r.request_id, dump))
            .with("requestingFrameUrl", Value::Sym(r.requesting_frame_url))
            .with("requestMethod", r.request_method.dump())
            .with("resourceType", r.resource_type.dump())
            .with("statusCode", r.status_code.dump())
            .with("responseHeaders", r.response_headers.dump())
            .with("fetchPriorityHint", r.fetch_priority_hint.dump())
            .with("initiator", initiator)
            .with("stackTrace", stack_trace)
            .with("timing", r.timing.dump())
            .with("lrServerResponseTime", Value::Null)
            .with("url", Value::Sym(r.url))
            .with("failed", r.failed.dump())
            .with("finished", Value::Bool(r.finished))
            .with("hasResponse", Value::Bool(r.has_response))
            .with("connectionId", r.connection_id.dump())
            .with("connectionReused", r.connection_reused.dump());
        Object::new()
            .with("args", Object::new().with("data", data.into()).into())
            .with("cat", Value::str("loading"))
            .with("name", Value::str("SyntheticNetworkRequest"))
            .with("ph", Value::str("X"))
            .with("dur", Value::Num(r.dur.0))
            .with("tdur", Value::Num(r.dur.0))
            .with("ts", Value::Num(r.ts.0))
            .with("tts", Value::Num(r.ts.0))
            .with("pid", Value::id(r.pid))
            .with("tid", Value::id(r.tid))
            .with("rawSourceEvent", raw)
            .into()
    }
}

/// The key an entity event's synthetic event is shared under: the event
/// itself, hashed (two distinct events differ in their position or index).
fn shared_key(event: EntityEvent) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    event.hash(&mut hasher);
    hasher.finish()
}

/// The synthetic event of a track's entry that DevTools made (a
/// ProfileCall, or a begin/end pair made one complete event), registered
/// once whichever handler's data refers to it first; `None` for a request
/// or an input event (the request's synthetic event is its handler's), or
/// for an entry `tracks` do not have.
pub fn track_entry_synthetic(
    event: EntityEvent,
    tracks: &dyn TrackEntries,
    dump: &mut Dump<'_>,
) -> Option<SyntheticId> {
    match event {
        EntityEvent::ProfileCall {
            thread,
            position,
            sample,
        } => {
            let entry = tracks.entry(thread, position)?;
            Some(dump.shared("ProfileCall", shared_key(event), |_| Synthetic {
                name: "ProfileCall".into(),
                pid: Value::id(entry.pid),
                tid: Value::id(entry.tid),
                ts: entry.ts,
                raw: None,
                profile_call: Some((entry.node_id, sample.index().map_or(-1, i64::from))),
                fields: None,
            }))
        }
        EntityEvent::BeginEnd {
            thread, position, text, ..
        } => {
            let entry = tracks.entry(thread, position)?;
            Some(begin_end(event, entry, text, dump))
        }
        EntityEvent::Request(_) | EntityEvent::Event(_) => None,
    }
}

/// The tracks of a dump of the NetworkRequests handler's own data, whose
/// entity mappings name no track's entry.
struct NoTracks;

impl TrackEntries for NoTracks {
    fn entry(&self, _: ThreadNumber, _: u32) -> Option<TrackEntry> {
        None
    }
}

/// The complete event DevTools makes of a begin/end pair: the begin
/// event's members, with phase `X` and the pair's duration.
fn begin_end(event: EntityEvent, entry: TrackEntry, text: tracekit_events::Sym, dump: &mut Dump<'_>) -> SyntheticId {
    use tracekit_events::json::{as_f64, as_str, object_members};
    let text = dump.strings().resolve(text).to_owned();
    // `JSON.parse` keeps the last of repeated members.
    let mut members: Vec<(String, Value)> = Vec::new();
    for (key, value) in object_members(&text) {
        let value = match &*key {
            "ph" => Value::str("X"),
            "dur" => continue,
            _ => Value::Json(value.into()),
        };
        members.retain(|(k, _)| *k != key);
        members.push((key.into_owned(), value));
    }
    members.push(("dur".to_owned(), Value::Num(entry.dur)));
    let member = |key: &str| object_members(&text).filter(|(k, _)| k == key).last().map(|(_, v)| v);
    let name = member("name")
        .and_then(as_str)
        .map_or_else(String::new, |n| n.into_owned());
    let ts = member("ts").and_then(as_f64).unwrap_or(f64::NAN);
    let mut fields = Object::new();
    for (key, value) in members {
        fields.push(key, value);
    }
    dump.shared("BeginEnd", shared_key(event), |_| Synthetic {
        name: name.into(),
        pid: Value::id(entry.pid),
        tid: Value::id(entry.tid),
        ts,
        raw: None,
        profile_call: None,
        fields: Some(fields.into()),
    })
}

/// A stack trace as DevTools 2026-10 copies it (`hide`): each frame with
/// `url` `""` where its scheme is not allowed.
fn shown_stack(stack: &str, hide: bool) -> Value {
    let Ok(frames) = serde_json::from_str::<Vec<&serde_json::value::RawValue>>(stack) else {
        return Value::Json(stack.into());
    };
    let frames = frames.iter().map(|frame| {
        let mut object = Object::new();
        let mut url = Value::str("");
        for (key, value) in object_members(frame.get()) {
            if key == "url" {
                if let Some(u) = as_str(value).filter(|u| !hide || allowed(u)) {
                    url = Value::str(u.into_owned());
                }
            } else {
                object.push(key.into_owned(), Value::Json(value.into()));
            }
        }
        object.with("url", url).into()
    });
    Value::Array(frames.collect())
}

fn redirect(r: &Redirect) -> Value {
    Object::new()
        .with("url", Value::Sym(r.url))
        .with("priority", r.priority.dump())
        .with("requestMethod", r.request_method.dump())
        .with("ts", Value::Num(r.ts.0))
        .with("dur", Value::Num(r.dur.0))
        .into()
}

fn synthetic_data(r: &NetworkRequest) -> Value {
    let t: &RequestTimings = &r.timings;
    let disk_cached = r
        .disk_cached_value
        .as_ref()
        .map_or(Value::Bool(r.is_disk_cached), JsValue::dump);
    Object::new()
        .with("dnsLookup", Value::Num(t.dns_lookup.0))
        .with("download", Value::Num(t.download.0))
        .with("downloadStart", Value::Num(t.download_start.0))
        .with("finishTime", Value::Num(t.finish_time.0))
        .with("initialConnection", Value::Num(t.initial_connection.0))
        .with("isDiskCached", disk_cached)
        .with("isHttps", Value::Bool(r.is_https))
        .with("isMemoryCached", Value::Bool(r.is_memory_cached))
        .with("isPushedResource", Value::Bool(r.is_pushed_resource))
        .with("networkDuration", Value::Num(t.network_duration.0))
        .with("processingDuration", Value::Num(t.processing_duration.0))
        .with("proxyNegotiation", Value::Num(t.proxy_negotiation.0))
        .with("queueing", Value::Num(t.queueing.0))
        .with("redirectionDuration", Value::Num(t.redirection_duration.0))
        .with("requestSent", Value::Num(t.request_sent.0))
        .with("sendStartTime", Value::Num(t.send_start_time.0))
        .with("ssl", Value::Num(t.ssl.0))
        .with("stalled", Value::Num(t.stalled.0))
        .with("totalTime", Value::Num(t.total_time.0))
        .with("waiting", Value::Num(t.waiting.0))
        .with("serverResponseTime", Value::Num(t.server_response_time.0))
        .into()
}
