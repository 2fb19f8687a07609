//! The web socket connections of a trace: the `WebSocket*` events of each
//! socket identifier, and the connection DevTools makes of them (from its
//! last `WebSocketCreate` to its last `WebSocketDestroy`, the trace's
//! bounds standing in for either when missing).

use tracekit_events::dump::{Dump, Object, Synthetic, SyntheticId, Value};
use tracekit_events::{names, DevTools, EventIndex, Id, Micros, Sym};
use tracekit_meta::Bounds;

use crate::value::JsValue;

/// Who opened a web socket: the `frame` or `workerId` of its first event
/// that names one.
#[derive(Debug, Clone, PartialEq)]
pub enum WebSocketOwner {
    /// A frame, by its id.
    Frame(JsValue),
    /// A worker, by its id.
    Worker(JsValue),
}

/// One web socket and its events.
#[derive(Debug, Clone)]
pub struct WebSocket {
    /// Its frame or worker.
    pub owner: WebSocketOwner,
    /// Its `identifier`, as its first event gives it.
    pub identifier: JsValue,
    /// Its events, in input order.
    pub events: Vec<WebSocketEvent>,
    /// The connection made of them (set when the handler finalizes).
    pub connection: Option<WebSocketConnection>,
}

/// A web socket event, as far as its connection reads it.
#[derive(Debug, Clone)]
pub struct WebSocketEvent {
    /// Its index in the input.
    pub index: EventIndex,
    /// Its name.
    pub name: Sym,
    /// Its category.
    pub cat: Sym,
    /// Its time.
    pub ts: Micros,
    /// Its process.
    pub pid: Id,
    /// Its thread.
    pub tid: Id,
    /// Its `s` (the scope of an instant event).
    pub s: JsValue,
    /// Its `args.data.identifier`.
    pub identifier: JsValue,
    /// Its `args.data.url`.
    pub url: JsValue,
}

/// A web socket's connection (DevTools' `SyntheticWebSocketConnection`).
#[derive(Debug, Clone)]
pub struct WebSocketConnection {
    /// The event it is made from: the last create, else the last destroy,
    /// else the first event (a position in [`WebSocket::events`]).
    pub main: usize,
    /// When it opened: the last create, else the start of the trace.
    pub ts: Micros,
    /// Until the last destroy, else the end of the trace.
    pub dur: Micros,
    /// Its URL: the last create's, `""` without one.
    pub url: JsValue,
}

impl WebSocket {
    pub(super) fn new(owner: WebSocketOwner, identifier: JsValue) -> WebSocket {
        WebSocket {
            owner,
            identifier,
            events: Vec::new(),
            connection: None,
        }
    }

    /// Makes the connection of the socket's events.
    pub(super) fn connect(&mut self, bounds: Bounds, devtools: DevTools) {
        let last = |name| self.events.iter().rposition(|e| e.name == name);
        let (start, end) = (last(names::WEB_SOCKET_CREATE), last(names::WEB_SOCKET_DESTROY));
        let main = start.or(end).unwrap_or(0);
        let Some(main_event) = self.events.get(main) else {
            return;
        };
        let ts = start.map_or(bounds.min, |i| self.events[i].ts);
        let end_ts = end.map_or(bounds.max, |i| self.events[i].ts);
        let empty = JsValue::Str(names::EMPTY);
        // DevTools 2026-06 took the main event's URL.
        let url = if devtools >= DevTools::V2026_10 {
            start.map_or(empty, |i| self.events[i].url.clone())
        } else {
            main_event.url.or_falsy(empty)
        };
        self.connection = Some(WebSocketConnection {
            main,
            ts,
            dur: end_ts - ts,
            url,
        });
    }

    /// This socket in the data conformance dump.
    pub(super) fn dump(&self, position: usize, dump: &mut Dump<'_>) -> Value {
        let mut object = Object::new()
            .with("webSocketIdentifier", self.identifier.dump())
            .with("events", Value::events(self.events.iter().map(|e| e.index)))
            .with(
                "syntheticConnection",
                Value::opt(self.dump_connection(position, dump), Value::Synthetic),
            );
        match &self.owner {
            WebSocketOwner::Frame(frame) => object.push("frame", frame.dump()),
            WebSocketOwner::Worker(worker) => object.push("workerId", worker.dump()),
        }
        object.into()
    }

    /// The connection's synthetic event.
    fn dump_connection(&self, position: usize, dump: &mut Dump<'_>) -> Option<SyntheticId> {
        let connection = self.connection.as_ref()?;
        let main = &self.events[connection.main];
        let id = dump.shared("SyntheticWebSocketConnection", position as u64, |_| {
            let data = Object::new()
                .with("identifier", main.identifier.dump())
                .with("priority", Value::str("Low"))
                .with("url", connection.url.dump());
            let fields = Object::new()
                .with("name", Value::str("SyntheticWebSocketConnection"))
                .with("cat", Value::Sym(main.cat))
                .with("ph", Value::str("X"))
                .with("ts", Value::Num(connection.ts.0))
                .with("dur", Value::Num(connection.dur.0))
                .with("pid", Value::id(main.pid))
                .with("tid", Value::id(main.tid))
                .with("s", main.s.dump())
                .with("rawSourceEvent", Value::Event(main.index))
                .with("_tag", Value::str("SyntheticEntryTag"))
                .with("args", Object::new().with("data", data.into()).into());
            Synthetic {
                name: "SyntheticWebSocketConnection".into(),
                pid: Value::id(main.pid),
                tid: Value::id(main.tid),
                ts: connection.ts.0,
                raw: Some(main.index),
                profile_call: None,
                fields: Some(fields.into()),
            }
        });
        Some(id)
    }
}
