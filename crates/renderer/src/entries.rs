//! The events of each process and thread as they come, for the tracks:
//! every complete, instant and begin/end event kept as a small [`Entry`]
//! (a begin/end pair, as DevTools pairs them across threads, is one
//! complete entry), with the few args the aggregated views and their
//! grouping read.

use tracekit_events::{
    names, AnalyzeOptions, Diagnostics, Event, EventIndex, Id, Interner, Micros, Phase, SampleTraceId, Sym,
};

use crate::entities::{entity_url_of, entity_url_value, EntityUrl};
use crate::integrator::TraceEntry;
use crate::timeline::Span;
use crate::view_args::{self, PendingGroupArgs, ViewArgs};
use crate::{DomUpdate, DomUpdateKind, Map, RendererHandler};

/// A trace event of a thread, in the Renderer handler's list. Begin/end
/// pairs are one complete entry. Its optional duration and sample trace
/// id are stored as plain values beside a byte of flags (40 bytes, not
/// 56): a big trace holds millions of entries at once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    pub ts: Micros,
    /// See [`Entry::dur`].
    dur: Micros,
    /// The sample trace id: a number's bits, or a string's `Sym` (see
    /// [`Entry::trace_id`]).
    trace_id: u64,
    pub name: Sym,
    pub cat: Sym,
    /// Index of the source event in the input.
    pub event: u32,
    /// `X` for a begin/end pair, else the event's own.
    pub ph: Phase,
    /// [`HAS_DUR_FLAG`], and which sample trace id there is
    /// ([`TRACE_ID_NUM`], [`TRACE_ID_STR`], or neither).
    flags: u8,
}

const _: () = assert!(std::mem::size_of::<Entry>() == 40);

/// An [`Entry`]'s flags: it has a duration; its sample trace id is a
/// number; it is a string.
const HAS_DUR_FLAG: u8 = 1;
const TRACE_ID_NUM: u8 = 2;
const TRACE_ID_STR: u8 = 4;

impl Entry {
    pub(crate) fn new(
        ts: Micros,
        dur: Option<Micros>,
        name: Sym,
        cat: Sym,
        ph: Phase,
        event: u32,
        trace_id: Option<SampleTraceId>,
    ) -> Entry {
        let (trace_id, id_flag) = match trace_id {
            None => (0, 0),
            Some(SampleTraceId::Num(x)) => (x.to_bits(), TRACE_ID_NUM),
            Some(SampleTraceId::Str(s)) => (u64::from(s.0), TRACE_ID_STR),
        };
        Entry {
            ts,
            dur: dur.unwrap_or(Micros::ZERO),
            trace_id,
            name,
            cat,
            event,
            ph,
            flags: if dur.is_some() { HAS_DUR_FLAG } else { 0 } | id_flag,
        }
    }

    /// `dur` for `X`, the end's time less the begin's for a `B`/`E` pair
    /// (0 while unmatched), `None` for instants without one.
    pub fn dur(&self) -> Option<Micros> {
        (self.flags & HAS_DUR_FLAG != 0).then_some(self.dur)
    }

    pub(crate) fn set_dur(&mut self, dur: Micros) {
        self.dur = dur;
        self.flags |= HAS_DUR_FLAG;
    }

    /// The sample trace id in the event's args.
    pub fn trace_id(&self) -> Option<SampleTraceId> {
        if self.flags & TRACE_ID_NUM != 0 {
            Some(SampleTraceId::Num(f64::from_bits(self.trace_id)))
        } else if self.flags & TRACE_ID_STR != 0 {
            // Made from a `Sym`'s `u32` in `new`.
            #[allow(clippy::cast_possible_truncation)]
            Some(SampleTraceId::Str(Sym(self.trace_id as u32)))
        } else {
            None
        }
    }
}

impl TraceEntry for Entry {
    fn span(&self) -> Span {
        Span {
            ts: self.ts.0,
            dur: self.dur().map(|d| d.0),
            is_profile_call: false,
        }
    }
    fn name(&self) -> Sym {
        self.name
    }
    fn ph(&self) -> Phase {
        self.ph
    }
    fn sample_trace_id(&self) -> Option<SampleTraceId> {
        self.trace_id()
    }
}

/// A thread's entries and the args kept of them, in the order they came.
#[derive(Debug, Default)]
pub(crate) struct ThreadEntries {
    pub(crate) entries: Vec<Entry>,
    /// The aggregated views' few args of some entries, by event index.
    pub(crate) view_args: Vec<(u32, ViewArgs)>,
    /// What grouping needs of some entries, by event index.
    pub(crate) group_args: Vec<(u32, PendingGroupArgs)>,
    /// The URLs of the entries that have one, for their entities, by
    /// event index.
    pub(crate) entity_urls: Vec<EntityUrl>,
    /// The raw `args.data` of the entries whose lines say what they are,
    /// by event index ([`crate::event_details`]).
    pub(crate) details: Vec<(u32, Box<str>)>,
    /// Its layouts and style recalculations (with all handlers).
    pub(crate) dom_updates: Vec<DomUpdate>,
}

/// A process' threads, in the order they were first seen.
#[derive(Debug, Default)]
pub(crate) struct ProcessEntries {
    pub(crate) threads: Map<Id, ThreadEntries>,
}

impl RendererHandler {
    pub(crate) fn thread(&mut self, pid: Id, tid: Id) -> &mut ThreadEntries {
        let (process, thread) = match self.last_thread {
            Some((p, t, process, thread)) if p == pid && t == tid => (process, thread),
            _ => {
                let process = self.processes.entry(pid);
                let process_index = process.index();
                let thread = process.or_default().threads.entry(tid);
                let thread_index = thread.index();
                thread.or_default();
                self.last_thread = Some((pid, tid, process_index, thread_index));
                (process_index, thread_index)
            }
        };
        &mut self.processes[process].threads[thread]
    }

    /// Takes one event. Nothing of it is kept by reference: the caller may
    /// free the text it came from. As `options` ask, it also keeps what
    /// grouping needs ([`AnalyzeOptions::group_args`]), as the DevTools
    /// engine given reads it; the entries' URLs for their entities (with
    /// [`AnalyzeOptions::all_handlers`]), as that engine reads them; the
    /// raw `args.data` of the events whose lines say what they are
    /// ([`AnalyzeOptions::details`]).
    ///
    /// `layout_begin`: a `Layout`'s `args.beginData`, which other handlers
    /// read too (from [`tracekit_events::Context::args_member`]).
    pub(crate) fn on_event(
        &mut self,
        index: EventIndex,
        event: &Event<'_>,
        layout_begin: Option<&str>,
        options: &AnalyzeOptions,
        interner: &mut Interner,
        diag: &mut Diagnostics,
    ) {
        let group_args = options.group_args.then_some(options.devtools);
        let entity_urls = options.all_handlers.then_some(options.devtools);
        let details = options.details;
        if let Some(devtools) = entity_urls {
            let value = self
                .prepared_urls
                .take_or_read(index, event, |e| entity_url_value(e, devtools));
            if let Some(url) = entity_url_of(index, event, value.map(|v| v.in_args(event)), interner) {
                self.thread(event.pid, event.tid).entity_urls.push(url);
            }
            if let Some(update) = dom_update(index, event, layout_begin) {
                self.thread(event.pid, event.tid).dom_updates.push(update);
            }
        }
        if matches!(event.ph, Phase::BEGIN | Phase::COMPLETE | Phase::INSTANT) {
            if let Some(args) = ViewArgs::of(event, interner) {
                self.thread(event.pid, event.tid).view_args.push((index, args));
            }
        }
        if let Some(devtools) = group_args {
            if let Some(args) = view_args::pending_group_args(index, event, devtools, interner) {
                self.thread(event.pid, event.tid).group_args.push((index, args));
            }
        }
        if details && matches!(event.ph, Phase::BEGIN | Phase::COMPLETE | Phase::INSTANT) {
            if let Some(data) = detail_data(event) {
                self.thread(event.pid, event.tid).details.push((index, data.into()));
            }
        }
        match event.ph {
            Phase::BEGIN => {
                let trace_id = event.sample_trace_id;
                let thread = self.thread(event.pid, event.tid);
                thread.entries.push(Entry::new(
                    event.ts,
                    Some(Micros::ZERO),
                    event.name,
                    event.cat,
                    Phase::COMPLETE,
                    index,
                    trace_id,
                ));
                let at = thread.entries.len() - 1;
                self.open_begins.push((event.pid, event.tid, at));
            }
            Phase::END => {
                self.thread(event.pid, event.tid);
                let Some((pid, tid, at)) = self.open_begins.pop() else {
                    diag.skip(tracekit_events::Skip::RendererEndWithoutBegin, || {
                        format!("event {index} at ts {}", event.ts.0)
                    });
                    return;
                };
                let begin = &mut self.processes[&pid].threads[&tid].entries[at];
                if begin.name != event.name || begin.cat != event.cat {
                    diag.skip(tracekit_events::Skip::RendererMismatchedEnd, || {
                        format!("event {index} at ts {}", event.ts.0)
                    });
                    return;
                }
                begin.set_dur(event.ts - begin.ts);
            }
            Phase::COMPLETE | Phase::INSTANT => {
                let trace_id = event.sample_trace_id;
                self.thread(event.pid, event.tid).entries.push(Entry::new(
                    event.ts, event.dur, event.name, event.cat, event.ph, index, trace_id,
                ));
            }
            _ => {}
        }
    }
}

/// The raw `args.data` of an event whose line says what it is (its URL,
/// type, timer or function; `args.beginData` for `ParseHTML`): `None` for
/// the other events, and for one without it. Only the text is found
/// here; it is read when printed.
fn detail_data<'a>(event: &Event<'a>) -> Option<&'a str> {
    use tracekit_events::names;
    if !matches!(
        event.name,
        names::EVALUATE_SCRIPT
            | names::PARSE_HTML
            | names::EVENT_DISPATCH
            | names::RESOURCE_SEND_REQUEST
            | names::TIMER_FIRE
            | names::FUNCTION_CALL
            | names::UPDATE_LAYOUT_TREE
            | names::LAYOUT
    ) {
        return None;
    }
    // A style recalculation's and a layout's stack trace is in their
    // `beginData` (the agent's call trees point at its top frame).
    let key = if matches!(
        event.name,
        names::PARSE_HTML | names::UPDATE_LAYOUT_TREE | names::LAYOUT
    ) {
        "beginData"
    } else {
        "data"
    };
    let data = tracekit_events::json::member(event.args?, key)?;
    data.starts_with('{').then_some(data)
}

/// A layout or style recalculation, with its size; `None` for any other
/// event, and for begins and ends (DevTools pairs those into entries
/// only). `layout_begin`: a layout's `args.beginData`.
fn dom_update(index: EventIndex, event: &Event<'_>, layout_begin: Option<&str>) -> Option<DomUpdate> {
    use tracekit_events::json::{as_f64, member, members};
    if matches!(event.ph, Phase::BEGIN | Phase::END) {
        return None;
    }
    let args = event.args.unwrap_or("{}");
    let (kind, size, total) = if event.name == names::LAYOUT {
        // A `beginData` that is no object has neither.
        let [size, total] = members(layout_begin?, ["dirtyObjects", "totalObjects"]).unwrap_or_default();
        (DomUpdateKind::Layout, size, total)
    } else if event.name == names::UPDATE_LAYOUT_TREE {
        (DomUpdateKind::RecalcStyle, member(args, "elementCount"), None)
    } else {
        return None;
    };
    Some(DomUpdate {
        event: index,
        kind,
        ts: event.ts,
        dur: event.dur,
        size: size.and_then(as_f64),
        total: total.and_then(as_f64),
    })
}
