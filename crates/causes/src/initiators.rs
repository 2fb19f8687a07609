//! The Initiators handler (DevTools' `InitiatorsHandler`): the event that
//! initiated each event, and the events each initiated. An event has one
//! initiator (the last one found); an initiator may have many events.
//! The links, in the order they are found:
//!
//! - while reading the trace: a `TimerFire` to the last `TimerInstall` of
//!   its timer id, a `FireIdleCallback` to the last `RequestIdleCallback`
//!   of its id, a `RunPostTaskCallback` or `AbortPostTaskCallback` to the
//!   last `SchedulePostTaskCallback` of its task id, a web socket's
//!   handshake, transfer and destroy events to the last `WebSocketCreate`
//!   of its identifier; an `UpdateLayoutTree` to its frame's last
//!   `ScheduleStyleRecalculation`; a `Layout` to its frame's pending
//!   invalidation: the frame's last `InvalidateLayout` since its last
//!   layout, or, when the first one of them falls within the frame's last
//!   `UpdateLayoutTree`, that recalculation's initiator;
//! - then each flow, each event to the one before it;
//! - then each async JS call, each run's JS entry point to the JS call
//!   that scheduled it ([`crate::AsyncJsCalls`]).
//!
//! Ids and frames are compared as JavaScript's `Map` compares keys.

use crate::async_calls::entry_value;
use tracekit_events::dump::{Dump, Object, Value};
use tracekit_events::json::member;
use tracekit_events::{names, ArgsKey, Context, Event, EventIndex, Handler, Interner, Micros, Phase, Skip, Wants};
use tracekit_page::args::ArgKey;
use tracekit_page::{EntityEvent, TrackEntries};

use crate::{AsyncJsCalls, Flows, Map};

/// An event the links name: an event of the input, or one DevTools made
/// (a JS call of a track, a begin/end pair), by its place in
/// [`Initiators::made`]. Eight bytes: a trace's flows can link a hundred
/// thousand events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryRef {
    /// An event of the input, by its index.
    Event(EventIndex),
    /// An event DevTools made: an index into [`Initiators::made`].
    Made(u32),
}

/// The initiators of a trace.
#[derive(Debug, Clone, Default)]
pub struct Initiators {
    /// Each initiated event, with its initiator.
    pub event_to_initiator: Map<EntryRef, EntryRef>,
    /// Each initiator, with the events it initiated, in the order the
    /// links were found (an event linked twice is there twice).
    pub initiator_to_events: Map<EntryRef, Vec<EntryRef>>,
    /// The events DevTools made that the links name
    /// ([`EntryRef::Made`]).
    pub made: Vec<EntityEvent>,
}

impl Initiators {
    /// The event an [`EntryRef`] names.
    pub fn entry(&self, entry: EntryRef) -> Option<EntityEvent> {
        match entry {
            EntryRef::Event(index) => Some(EntityEvent::Event(index)),
            EntryRef::Made(i) => self.made.get(i as usize).copied(),
        }
    }

    fn link(&mut self, event: EntryRef, initiator: EntryRef) {
        self.event_to_initiator.insert(event, initiator);
        self.initiator_to_events.entry(initiator).or_default().push(event);
    }

    /// This data in the data conformance dump. DevTools keeps both maps in
    /// weak maps, which its dump cannot list: written `{}` there, and in
    /// full by `tracekit data --format json` ([`Value::Weak`]). `tracks`:
    /// those the entries are on.
    pub fn dump(&self, tracks: &dyn TrackEntries, dump: &mut Dump<'_>) -> Value {
        let entry =
            |e: EntryRef, dump: &mut Dump<'_>| self.entry(e).map_or(Value::Null, |e| entry_value(e, tracks, dump));
        let to_initiator = self
            .event_to_initiator
            .iter()
            .map(|(&event, &initiator)| (entry(event, dump), entry(initiator, dump)))
            .collect();
        let to_events = self
            .initiator_to_events
            .iter()
            .map(|(&initiator, events)| {
                let events = events.iter().map(|&e| entry(e, dump)).collect();
                (entry(initiator, dump), Value::Array(events))
            })
            .collect();
        Object::new()
            .with("eventToInitiator", Value::Weak(Box::new(Value::Map(to_initiator))))
            .with("initiatorToEvents", Value::Weak(Box::new(Value::Map(to_events))))
            .into()
    }
}

/// A value of the trace used as a key of DevTools' maps (an id, a frame),
/// compared as JavaScript's `Map` compares keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    /// A string or a number.
    Value(ArgKey),
    /// Absent.
    Undefined,
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// An object or an array: a new object, equal to no other key.
    Object(EventIndex),
}

impl Key {
    fn of(raw: Option<&str>, index: EventIndex, interner: &mut Interner) -> Key {
        let Some(raw) = raw.map(str::trim) else {
            return Key::Undefined;
        };
        match raw {
            "null" => Key::Null,
            "true" => Key::Bool(true),
            "false" => Key::Bool(false),
            _ => ArgKey::of(Some(raw), interner).map_or(Key::Object(index), Key::Value),
        }
    }
}

/// The Initiators handler (see the module documentation).
#[derive(Debug, Default)]
pub struct InitiatorsHandler {
    data: Initiators,
    /// Each frame's last `ScheduleStyleRecalculation`.
    last_schedule_style_recalc: ahash::AHashMap<Key, EventIndex>,
    /// Each frame's last `UpdateLayoutTree` with `beginData`: its index
    /// and end.
    last_recalc: ahash::AHashMap<Key, (EventIndex, Micros)>,
    /// Each frame's pending layout invalidation.
    last_invalidation: ahash::AHashMap<Key, EventIndex>,
    /// The last installing, requesting, creating or scheduling event of
    /// each timer, idle callback, web socket and post task callback id.
    by_id: ahash::AHashMap<(IdKind, Key), EventIndex>,
}

/// The kinds of ids an initiator is found by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum IdKind {
    Timer,
    IdleCallback,
    WebSocket,
    PostTask,
}

/// What an event is to the handler.
enum Role {
    /// It starts an id of this kind (`args.data.MEMBER`).
    Starts(IdKind, &'static str),
    /// It is initiated by the start of its id.
    Initiated(IdKind, &'static str),
}

fn role(event: &Event<'_>) -> Option<Role> {
    let complete = event.ph == Phase::COMPLETE;
    Some(match event.name {
        names::TIMER_INSTALL => Role::Starts(IdKind::Timer, "timerId"),
        names::TIMER_FIRE if complete => Role::Initiated(IdKind::Timer, "timerId"),
        names::REQUEST_IDLE_CALLBACK => Role::Starts(IdKind::IdleCallback, "id"),
        names::FIRE_IDLE_CALLBACK if complete => Role::Initiated(IdKind::IdleCallback, "id"),
        names::WEB_SOCKET_CREATE => Role::Starts(IdKind::WebSocket, "identifier"),
        names::WEB_SOCKET_SEND_HANDSHAKE_REQUEST
        | names::WEB_SOCKET_RECEIVE_HANDSHAKE_RESPONSE
        | names::WEB_SOCKET_DESTROY
        | names::WEB_SOCKET_SEND
        | names::WEB_SOCKET_RECEIVE => Role::Initiated(IdKind::WebSocket, "identifier"),
        names::SCHEDULE_POST_TASK_CALLBACK => Role::Starts(IdKind::PostTask, "taskId"),
        names::RUN_POST_TASK_CALLBACK | names::ABORT_POST_TASK_CALLBACK if complete => {
            Role::Initiated(IdKind::PostTask, "taskId")
        }
        _ => return None,
    })
}

/// `args.data.NAME` of event `index`; `Err` when `args.data` is absent
/// or `null` (DevTools throws reading it).
fn arg_of<'e>(index: EventIndex, event: &Event<'e>, cx: &mut Context, name: &str) -> Result<Option<&'e str>, ()> {
    let data = cx.args_member(index, event, ArgsKey::Data).ok_or(())?;
    if data.trim() == "null" {
        return Err(());
    }
    Ok(member(data, name))
}

/// [`arg_of`] `frame`, which the Invalidations handler reads too: found
/// once for both ([`Context::args_member_frame`]).
fn data_frame<'e>(index: EventIndex, event: &Event<'e>, cx: &mut Context) -> Result<Option<&'e str>, ()> {
    let data = cx.args_member(index, event, ArgsKey::Data).ok_or(())?;
    if data.trim() == "null" {
        return Err(());
    }
    Ok(cx.args_member_frame(index, event, ArgsKey::Data))
}

impl Handler for InitiatorsHandler {
    type Deps<'d> = (&'d Flows, &'d AsyncJsCalls);
    type Data = Initiators;

    const WANTS: Wants = Wants::Named(&[
        names::SCHEDULE_STYLE_RECALCULATION,
        names::UPDATE_LAYOUT_TREE,
        names::INVALIDATE_LAYOUT,
        names::LAYOUT,
        names::TIMER_INSTALL,
        names::TIMER_FIRE,
        names::REQUEST_IDLE_CALLBACK,
        names::FIRE_IDLE_CALLBACK,
        names::WEB_SOCKET_CREATE,
        names::WEB_SOCKET_SEND_HANDSHAKE_REQUEST,
        names::WEB_SOCKET_RECEIVE_HANDSHAKE_RESPONSE,
        names::WEB_SOCKET_DESTROY,
        names::WEB_SOCKET_SEND,
        names::WEB_SOCKET_RECEIVE,
        names::SCHEDULE_POST_TASK_CALLBACK,
        names::RUN_POST_TASK_CALLBACK,
        names::ABORT_POST_TASK_CALLBACK,
    ]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let read = match event.name {
            names::SCHEDULE_STYLE_RECALCULATION
            | names::UPDATE_LAYOUT_TREE
            | names::INVALIDATE_LAYOUT
            | names::LAYOUT => self.on_style_or_layout(index, event, cx),
            _ => self.on_id_event(index, event, cx),
        };
        if read.is_err() {
            cx.diagnostics.skip(Skip::InitiatorsUnreadableEvent, || {
                format!("{} (event {index})", cx.interner.resolve(event.name))
            });
        }
    }

    fn finalize(mut self, (flows, async_calls): Self::Deps<'_>, _cx: &mut Context) -> Initiators {
        for flow in &flows.flows {
            for pair in flow.windows(2) {
                self.data.link(EntryRef::Event(pair[1]), EntryRef::Event(pair[0]));
            }
        }
        let mut made: ahash::AHashMap<EntityEvent, EntryRef> = ahash::AHashMap::default();
        let data = &mut self.data;
        let mut entry_ref = |entry: EntityEvent| match entry {
            EntityEvent::Event(index) => EntryRef::Event(index),
            other => *made.entry(other).or_insert_with(|| {
                data.made.push(other);
                EntryRef::Made(u32::try_from(data.made.len() - 1).unwrap_or(u32::MAX))
            }),
        };
        let mut links = Vec::new();
        for (caller, entries) in &async_calls.scheduler_to_run_entry_points {
            let caller = entry_ref(*caller);
            links.extend(entries.iter().map(|e| (entry_ref(*e), caller)));
        }
        for (event, initiator) in links {
            self.data.link(event, initiator);
        }
        self.data
    }
}

impl InitiatorsHandler {
    /// A timer, idle callback, web socket or post task event.
    fn on_id_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) -> Result<(), ()> {
        let Some(role) = role(event) else {
            return Ok(());
        };
        match role {
            Role::Starts(kind, member) => {
                let key = Key::of(arg_of(index, event, cx, member)?, index, &mut cx.interner);
                self.by_id.insert((kind, key), index);
            }
            Role::Initiated(kind, member) => {
                let key = Key::of(arg_of(index, event, cx, member)?, index, &mut cx.interner);
                match self.by_id.get(&(kind, key)) {
                    Some(&start) => self.data.link(EntryRef::Event(index), EntryRef::Event(start)),
                    None => cx.diagnostics.skip(Skip::InitiatorsMissingInitiator, || {
                        format!("{} (event {index})", cx.interner.resolve(event.name))
                    }),
                }
            }
        }
        Ok(())
    }

    /// A style recalculation or layout, scheduled or invalidated, or made.
    fn on_style_or_layout(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) -> Result<(), ()> {
        let frame = |cx: &mut Context| -> Result<Key, ()> {
            Ok(Key::of(data_frame(index, event, cx)?, index, &mut cx.interner))
        };
        match event.name {
            names::SCHEDULE_STYLE_RECALCULATION => {
                let frame = frame(cx)?;
                self.last_schedule_style_recalc.insert(frame, index);
            }
            names::UPDATE_LAYOUT_TREE => {
                event.args.ok_or(())?;
                // `beginData` read once: truthy, so an object's `frame`.
                let begin_data = cx.args_member(index, event, ArgsKey::BeginData);
                if !begin_data.is_some_and(tracekit_events::json::js_truthy) {
                    return Ok(());
                }
                let frame = cx.args_member_frame(index, event, ArgsKey::BeginData);
                let frame = Key::of(frame, index, &mut cx.interner);
                let end = event.ts + event.dur.unwrap_or(Micros::ZERO);
                self.last_recalc.insert(frame, (index, end));
                if let Some(&scheduled) = self.last_schedule_style_recalc.get(&frame) {
                    self.data.link(EntryRef::Event(index), EntryRef::Event(scheduled));
                }
            }
            names::INVALIDATE_LAYOUT => {
                let frame = frame(cx)?;
                let mut initiator = index;
                if !self.last_invalidation.contains_key(&frame) {
                    if let Some(&(recalc, end)) = self.last_recalc.get(&frame) {
                        let recalc_initiator = self.data.event_to_initiator.get(&EntryRef::Event(recalc));
                        if let Some(&EntryRef::Event(by)) = recalc_initiator {
                            if end.0 != 0.0 && !end.0.is_nan() && end.0 > event.ts.0 {
                                initiator = by;
                            }
                        }
                    }
                }
                self.last_invalidation.insert(frame, initiator);
            }
            _ => {
                // A `Layout` is one only with `args.beginData`.
                let Some(begin_data) = cx.args_member(index, event, ArgsKey::BeginData) else {
                    return Ok(());
                };
                if begin_data.trim() == "null" {
                    return Err(());
                }
                let frame = cx.args_member_frame(index, event, ArgsKey::BeginData);
                let frame = Key::of(frame, index, &mut cx.interner);
                if let Some(invalidation) = self.last_invalidation.remove(&frame) {
                    self.data.link(EntryRef::Event(index), EntryRef::Event(invalidation));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
