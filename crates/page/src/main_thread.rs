//! The MainThreadEvents handler (no DevTools handler: what Lantern's
//! `collectMainThreadEvents` reads of the raw trace): every event of the
//! main thread of the main frame's renderers, in input order, kept in a
//! compact typed form (its time, and for the few events the page
//! dependency graph reads, their kind and the args it reads), since the
//! trace's text is gone once loaded.
//!
//! Which thread that is depends on the navigations and thread names, known
//! only once the whole trace is read: while loading, every thread's events
//! are kept (16 bytes an event, a little more for the events read), and
//! `finalize` keeps those of the chosen threads alone. Gathered with
//! [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)
//! only.

use tracekit_events::json::{array_items, as_f64, as_str, js_truthy, member, members};
use tracekit_events::prepared::{ArgsSpan, Prepared, PreparedChunk};
use tracekit_events::{names, AnalyzeOptions, Context, Event, EventIndex, Handler, Id, Interner, Micros, Sym};
use tracekit_meta::MetaData;

/// The value of [`MainThreadEvent::detail`] for an event of no interest
/// beyond its time.
const NO_DETAIL: u32 = u32::MAX;

/// One event of the main thread.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MainThreadEvent {
    /// Its position in the input.
    pub event: EventIndex,
    /// Its `ts`.
    pub ts: Micros,
    /// Its detail's index in [`MainThreadEvents::details`], or `u32::MAX`
    /// (read it with [`MainThreadEvents::detail`]).
    pub detail: u32,
}

/// What the page dependency graph reads of an event, beyond its time.
#[derive(Debug, Clone, PartialEq)]
pub enum EventDetail {
    /// A task the scheduler ran (`RunTask` or an older name of it): a CPU
    /// node of the graph when its duration is not 0.
    Task {
        /// Its `dur` (0 when absent).
        dur: Micros,
        /// Its thread (Lantern names a task by its thread and time).
        tid: Id,
    },
    /// A `Layout`.
    Layout,
    /// A `Paint`.
    Paint,
    /// A `ParseHTML`.
    ParseHtml,
    /// An event that ties its task to a request or another task (its
    /// `args.data` present, as Lantern reads no other).
    Link(Box<LinkArgs>),
}

/// What an event that ties its task to others says (`args.data`).
#[derive(Debug, Clone, PartialEq)]
pub struct LinkArgs {
    /// Which kind of tie.
    pub kind: LinkKind,
    /// `frame`, when a string.
    pub frame: Option<Sym>,
    /// `url` (`styleSheetUrl` for a style sheet), when a non-empty string.
    pub url: Option<Sym>,
    /// `requestId` (a `ResourceSendRequest`'s), when a string.
    pub request_id: Option<Sym>,
    /// The non-empty URLs of `stackTrace`'s frames, in order.
    pub stack_urls: Vec<Sym>,
    /// `timerId` for a timer, `scriptId` for a module.
    pub key: JsKey,
    /// `readyState` is the number 4 (an XHR done).
    pub done: bool,
}

/// The events that tie a task to others, by what Lantern does with them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    /// `TimerInstall`.
    TimerInstall,
    /// `TimerFire`.
    TimerFire,
    /// `InvalidateLayout` or `ScheduleStyleRecalculation`.
    Invalidate,
    /// `EvaluateScript` or `v8.evaluateModule`.
    EvaluateScript,
    /// `ModuleEvaluated`.
    ModuleEvaluated,
    /// `XHRReadyStateChange`.
    XhrReadyStateChange,
    /// `FunctionCall` or `v8.compile`.
    FunctionCall,
    /// `v8.compileModule`: as a function call, and it names a module's
    /// URL by its script id.
    CompileModule,
    /// `ParseAuthorStyleSheet`.
    ParseStyleSheet,
    /// `ResourceSendRequest`.
    SendRequest,
}

/// A JavaScript value as a `Map` key (timer and script ids).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JsKey {
    /// Absent.
    Undefined,
    /// A number (its bits, `-0` as `0`).
    Number(u64),
    /// A string.
    Text(Sym),
    /// Anything else: equal to no other key.
    Other,
}

/// The main thread's events (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct MainThreadEvents {
    /// Every event of the chosen threads, in input order.
    pub events: Vec<MainThreadEvent>,
    /// The details of those that have one.
    pub details: Vec<EventDetail>,
}

impl MainThreadEvents {
    /// An event's detail, when it has one.
    pub fn detail(&self, event: &MainThreadEvent) -> Option<&EventDetail> {
        (event.detail != NO_DETAIL).then(|| &self.details[event.detail as usize])
    }
}

/// The MainThreadEvents handler (see the module documentation).
#[derive(Debug, Default)]
pub struct MainThreadEventsHandler {
    /// Every thread's events so far.
    threads: Vec<Vec<MainThreadEvent>>,
    /// Each thread's place in `threads`, by process and thread.
    thread_at: ahash::AHashMap<(Id, Id), usize>,
    /// The thread of the last event and its place (events come in runs of
    /// one thread).
    last: Option<((Id, Id), usize)>,
    /// The details of all of them.
    details: Vec<EventDetail>,
    /// The args of the linking events handed over last, walked on all
    /// cores.
    prepared_links: Prepared<RawLink<ArgsSpan>>,
}

fn link_kind(name: Sym) -> Option<LinkKind> {
    Some(match name {
        names::TIMER_INSTALL => LinkKind::TimerInstall,
        names::TIMER_FIRE => LinkKind::TimerFire,
        names::INVALIDATE_LAYOUT | names::SCHEDULE_STYLE_RECALCULATION => LinkKind::Invalidate,
        names::EVALUATE_SCRIPT | names::EVALUATE_MODULE => LinkKind::EvaluateScript,
        names::MODULE_EVALUATED => LinkKind::ModuleEvaluated,
        names::XHR_READY_STATE_CHANGE => LinkKind::XhrReadyStateChange,
        names::FUNCTION_CALL | names::V8_COMPILE => LinkKind::FunctionCall,
        names::V8_COMPILE_MODULE => LinkKind::CompileModule,
        names::PARSE_AUTHOR_STYLE_SHEET => LinkKind::ParseStyleSheet,
        names::RESOURCE_SEND_REQUEST => LinkKind::SendRequest,
        _ => return None,
    })
}

/// Whether Lantern takes an event of this name for a task of the
/// scheduler.
pub fn is_scheduled_task(name: Sym) -> bool {
    matches!(
        name,
        names::RUN_TASK
            | names::THREAD_CONTROLLER_RUN_TASK
            | names::THREAD_CONTROLLER_DO_WORK
            | names::TASK_QUEUE_MANAGER_PROCESS_TASK
    )
}

/// A member's raw value as a string, interned; `None` when absent or not
/// a string (or empty, with `non_empty`).
fn string_value(raw: Option<&str>, non_empty: bool, interner: &mut Interner) -> Option<Sym> {
    let text = as_str(raw?)?;
    (!non_empty || !text.is_empty()).then(|| interner.intern(&text))
}

fn key_of(raw: Option<&str>, interner: &mut Interner) -> JsKey {
    let Some(raw) = raw else {
        return JsKey::Undefined;
    };
    if let Some(x) = as_f64(raw) {
        return JsKey::Number(if x == 0.0 { 0 } else { x.to_bits() });
    }
    match as_str(raw) {
        Some(text) => JsKey::Text(interner.intern(&text)),
        None => JsKey::Other,
    }
}

/// The members of a linking event's `args.data` that make its
/// [`LinkArgs`], each an `S`: the raw JSON text, or its place in the args
/// ([`ArgsSpan`]) while the walk done on another core waits for the
/// interning.
#[derive(Debug)]
struct RawLink<S> {
    kind: LinkKind,
    frame: Option<S>,
    url: Option<S>,
    request_id: Option<S>,
    /// `timerId` or `scriptId`, for the kinds keyed by one.
    key: Option<S>,
    /// The `url` member of each of `stackTrace`'s items that has one.
    stack_urls: Vec<S>,
    done: bool,
}

impl<S> RawLink<S> {
    fn map<T>(self, mut f: impl FnMut(S) -> T) -> RawLink<T> {
        RawLink {
            kind: self.kind,
            frame: self.frame.map(&mut f),
            url: self.url.map(&mut f),
            request_id: self.request_id.map(&mut f),
            key: self.key.map(&mut f),
            stack_urls: self.stack_urls.into_iter().map(f).collect(),
            done: self.done,
        }
    }
}

impl RawLink<ArgsSpan> {
    /// The members of a linking event's `args.data`, kept as their places
    /// in the args; `None` for another event, or when its `data` is absent
    /// or falsy (Lantern skips the event).
    fn read(event: &Event<'_>) -> Option<RawLink<ArgsSpan>> {
        let kind = link_kind(event.name)?;
        let args = event.args?;
        let link = RawLink::of(kind, member(args, "data"))?;
        Some(link.map(|part| ArgsSpan::of(args, part)))
    }
}

impl RawLink<&str> {
    /// The members of `data`, `None` when it is absent or falsy (Lantern
    /// skips the event).
    fn of(kind: LinkKind, data: Option<&str>) -> Option<RawLink<&str>> {
        let data = data.filter(|d| js_truthy(d))?;
        let url_key = if kind == LinkKind::ParseStyleSheet {
            "styleSheetUrl"
        } else {
            "url"
        };
        let key_member = match kind {
            LinkKind::TimerInstall | LinkKind::TimerFire => "timerId",
            LinkKind::ModuleEvaluated | LinkKind::CompileModule => "scriptId",
            _ => "",
        };
        // One pass over `data` for every member read.
        let [frame, url, request_id, stack, ready_state, key] = members(
            data,
            ["frame", url_key, "requestId", "stackTrace", "readyState", key_member],
        )
        .unwrap_or([None; 6]);
        Some(RawLink {
            kind,
            frame,
            url,
            request_id,
            key: key.filter(|_| !key_member.is_empty()),
            stack_urls: stack
                .into_iter()
                .flat_map(array_items)
                .filter_map(|item| member(item, "url"))
                .collect(),
            done: ready_state.and_then(as_f64) == Some(4.0),
        })
    }

    /// The args, the members' values interned. A stack item whose `url` is
    /// not a string, or is empty, has none.
    fn interned(self, interner: &mut Interner) -> LinkArgs {
        let key = key_of(self.key, interner);
        let stack_urls = self
            .stack_urls
            .into_iter()
            .filter_map(as_str)
            .filter(|url| !url.is_empty())
            .map(|url| interner.intern(&url))
            .collect();
        LinkArgs {
            kind: self.kind,
            frame: string_value(self.frame, false, interner),
            url: string_value(self.url, true, interner),
            request_id: string_value(self.request_id, false, interner),
            stack_urls,
            key,
            done: self.done,
        }
    }
}

impl MainThreadEventsHandler {
    fn detail_of(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) -> Option<EventDetail> {
        let name = event.name;
        if is_scheduled_task(name) {
            // No duration counts as none: Lantern makes no node of it, but
            // it still tells that the thread has tasks.
            let dur = event.dur.filter(|d| !d.0.is_nan()).unwrap_or(Micros(0.0));
            return Some(EventDetail::Task { dur, tid: event.tid });
        }
        match name {
            names::LAYOUT => Some(EventDetail::Layout),
            names::PAINT => Some(EventDetail::Paint),
            names::PARSE_HTML => Some(EventDetail::ParseHtml),
            _ => {
                let raw = self.prepared_links.take_or_read(index, event, RawLink::read)?;
                let link = raw.map(|span| span.in_args(event)).interned(&mut cx.interner);
                Some(EventDetail::Link(Box::new(link)))
            }
        }
    }
}

impl Handler for MainThreadEventsHandler {
    type Deps<'d> = &'d MetaData;
    type Data = MainThreadEvents;

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    /// Walks the args of the linking events, most of this handler's work,
    /// on all cores.
    fn prepare(events: &[Event<'_>], _: &AnalyzeOptions) -> Option<PreparedChunk> {
        Some(Prepared::of_chunk(events, RawLink::read))
    }

    fn take_prepared(&mut self, first: EventIndex, prepared: PreparedChunk) {
        self.prepared_links.set(first, prepared);
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let detail = match self.detail_of(index, event, cx) {
            Some(d) => {
                self.details.push(d);
                u32::try_from(self.details.len() - 1).unwrap_or(NO_DETAIL)
            }
            None => NO_DETAIL,
        };
        let key = (event.pid, event.tid);
        let at = match self.last {
            Some((last, at)) if last == key => at,
            _ => {
                let count = self.threads.len();
                let at = *self.thread_at.entry(key).or_insert(count);
                if at == count {
                    self.threads.push(Vec::new());
                }
                self.last = Some((key, at));
                at
            }
        };
        self.threads[at].push(MainThreadEvent {
            event: index,
            ts: event.ts,
            detail,
        });
    }

    fn finalize(mut self, meta: &MetaData, cx: &mut Context) -> MainThreadEvents {
        let mut chosen: Vec<Vec<MainThreadEvent>> = Vec::new();
        for (pid, tid) in main_threads(meta, &cx.interner) {
            if let Some(&at) = self.thread_at.get(&(pid, tid)) {
                chosen.push(std::mem::take(&mut self.threads[at]));
            }
        }
        // Each thread's list is in input order: one (the usual case) is
        // taken as it is, not copied.
        let mut events = if chosen.len() == 1 {
            chosen.pop().unwrap_or_default()
        } else {
            // Sized at once, and sorted in place: two threads' events are
            // most of a big trace's, and a list grown step by step, or a
            // stable sort's buffer, would be garbage of their size. Event
            // indices are unique: the unstable sort gives the one order.
            let mut events: Vec<MainThreadEvent> = Vec::with_capacity(chosen.iter().map(Vec::len).sum());
            events.extend(chosen.into_iter().flatten());
            events.sort_unstable_by_key(|e| e.event);
            events
        };
        let mut details = Vec::with_capacity(events.iter().filter(|e| e.detail != NO_DETAIL).count());
        for e in &mut events {
            if e.detail != NO_DETAIL {
                details.push(std::mem::replace(
                    &mut self.details[e.detail as usize],
                    EventDetail::Layout,
                ));
                e.detail = u32::try_from(details.len() - 1).unwrap_or(NO_DETAIL);
            }
        }
        MainThreadEvents { events, details }
    }
}

/// The main thread of each process of the main frame (of its navigations,
/// or else the top-level renderers): its first thread named
/// `CrRendererMain`, or else its first named `CrBrowserMain` (Chrome run
/// as a single process).
fn main_threads(meta: &MetaData, interner: &Interner) -> Vec<(Id, Id)> {
    let mut pids: Vec<Id> = Vec::new();
    if meta.navigations.main_frame.is_empty() {
        pids.extend(meta.top_level_renderer_ids.iter().copied());
    } else {
        for nav in &meta.navigations.main_frame {
            if !pids.contains(&nav.pid) {
                pids.push(nav.pid);
            }
        }
    }
    let mut out = Vec::new();
    for pid in pids {
        let Some(threads) = meta.threads_in_process.get(&pid) else {
            continue;
        };
        let named = |wanted: &str| {
            threads
                .iter()
                .find(|(_, name)| name.is_some_and(|n| interner.resolve(n) == wanted))
                .map(|(tid, _)| *tid)
        };
        if let Some(tid) = named("CrRendererMain").or_else(|| named("CrBrowserMain")) {
            out.push((pid, tid));
        }
    }
    out
}

#[cfg(test)]
mod tests;
