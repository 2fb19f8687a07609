//! Why things happened, as rows for people and tables: the initiator of
//! each event ([`initiators`]: a timer's install before its fire, a
//! `requestAnimationFrame` before its callback, the invalidation before
//! the layout it forced...), the problems the panel flags on an entry
//! ([`warnings`]: long tasks, forced reflows...), and what `tracekit
//! tracks --why` adds to a node ([`Why`]). Built from the Initiators,
//! AsyncJSCalls, Flows and Warnings handlers' data, with each event they
//! name found on the tracks.
//!
//! An event on no track (of a process DevTools does not show, or of a
//! kind the tracks leave out) is still listed, with what is known of it:
//! its index in the trace, and its thread and times when the data has
//! them ([`EntryFacts`]).

use ahash::{AHashMap, AHashSet};
use tracekit_engine::handlers::page::{EntityEvent, TrackEntries};
use tracekit_engine::handlers::timeline::warnings::Flagged;
use tracekit_engine::support::jsnum::round3;
use tracekit_engine::support::json::write_json_string;
use tracekit_engine::{Analysis, HandlerData, Id, Micros, Millis, NodeKind, TrackNode, Warning};

use super::{JsonObject, PageError};

/// An event a row names, and what is known of it. An event of the input
/// on no track is known by its index alone (and its thread and times when
/// the data has them); a JS call made of CPU samples has no index.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct EntryFacts {
    /// Its index among the trace's events (`#N` in `tracekit data`);
    /// `None` for a JS call made of CPU samples.
    pub event: Option<u32>,
    /// Its name as `tracekit tracks` prints it (a JS call: its function's
    /// name).
    pub name: Option<String>,
    /// Its process.
    pub pid: Option<Id>,
    /// Its thread.
    pub tid: Option<Id>,
    /// Its thread's name.
    pub thread: Option<String>,
    /// Its position among its thread's track nodes (in pre-order, before
    /// any filter: the index of `Thread::node`, and of the unfiltered
    /// `nodes` of `tracks --format json`); `None` when it is on no track.
    pub node: Option<u32>,
    /// When it started, in ms from the start of the trace.
    pub start: Option<Millis>,
    /// How long it lasted, in ms (`None` for an instant).
    pub dur: Option<Millis>,
}

impl EntryFacts {
    /// Whether the event is on a thread's track.
    pub fn is_on_track(&self) -> bool {
        self.node.is_some()
    }

    /// `NAME @START` (or `event #N`), for people.
    pub fn label(&self) -> String {
        let name = match (&self.name, self.event) {
            (Some(name), _) => name.clone(),
            (None, Some(i)) => format!("event #{i}"),
            (None, None) => "?".to_owned(),
        };
        match self.start {
            Some(start) => format!("{name} @{:.3}", start.0),
            None => name,
        }
    }
}

/// The kind of link between an event and its initiator, as far as it can
/// be told from the events' names and the data that made the link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum LinkKind {
    /// A timer's install (`TimerInstall`, `setTimeout`) before its fire.
    Timer,
    /// A `requestAnimationFrame` before its callback.
    AnimationFrame,
    /// A `requestIdleCallback` before its callback.
    IdleCallback,
    /// A `scheduler.postTask` before its run or abort.
    PostTask,
    /// A web socket's creation before its handshake, messages and end.
    WebSocket,
    /// A `ScheduleStyleRecalculation` before the recalculation.
    StyleRecalc,
    /// The invalidation (`InvalidateLayout`, or the style recalculation's
    /// initiator) before the layout it made necessary.
    LayoutInvalidation,
    /// A flow (`ph` `s`, `t`, `f`) from one event to the next.
    Flow,
    /// An async JS call: the JS call that scheduled a task before the task
    /// run's entry point (a promise, `queueMicrotask`, a
    /// `console.createTask` task...).
    AsyncCall,
}

impl LinkKind {
    /// Its name in the outputs: `timer`, `animation frame`, `idle
    /// callback`, `post task`, `web socket`, `style recalc`, `layout
    /// invalidation`, `flow`, `async call`.
    pub const fn name(self) -> &'static str {
        match self {
            LinkKind::Timer => "timer",
            LinkKind::AnimationFrame => "animation frame",
            LinkKind::IdleCallback => "idle callback",
            LinkKind::PostTask => "post task",
            LinkKind::WebSocket => "web socket",
            LinkKind::StyleRecalc => "style recalc",
            LinkKind::LayoutInvalidation => "layout invalidation",
            LinkKind::Flow => "flow",
            LinkKind::AsyncCall => "async call",
        }
    }
}

/// An event and its initiator (DevTools draws an arrow from the second to
/// the first).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct InitiatorRow {
    /// The initiated event.
    pub event: EntryFacts,
    /// The event that initiated it.
    pub initiator: EntryFacts,
    /// How the two are linked, when it can be told.
    pub kind: Option<LinkKind>,
    /// For an async call, the task's name as V8 gives it
    /// (`requestAnimationFrame`, `setTimeout`, `Promise.then`...).
    pub task: Option<String>,
}

/// Where the events of a set are on the tracks.
struct Locator<'a> {
    analysis: &'a Analysis,
    /// Each event found: its process, thread and position.
    at: AHashMap<u32, (Id, Id, u32)>,
}

/// The event index by which an entry is found on the tracks.
fn index_of(entry: EntityEvent) -> Option<u32> {
    match entry {
        EntityEvent::Event(i) | EntityEvent::BeginEnd { begin: i, .. } => Some(i),
        _ => None,
    }
}

impl<'a> Locator<'a> {
    /// Finds the events of `wanted` on the tracks, in one walk of every
    /// node.
    fn new(analysis: &'a Analysis, wanted: &AHashSet<u32>) -> Locator<'a> {
        let mut at = AHashMap::with_capacity(wanted.len());
        if !wanted.is_empty() {
            for (pid, process) in analysis.process_tracks() {
                for (tid, track) in &process.threads {
                    for (position, node) in track.nodes.iter().enumerate() {
                        if let NodeKind::Event { event, .. } = node.kind() {
                            if wanted.contains(&event) {
                                let position = u32::try_from(position).unwrap_or(u32::MAX);
                                at.entry(event).or_insert((*pid, *tid, position));
                            }
                        }
                    }
                }
            }
        }
        Locator { analysis, at }
    }

    fn ms(&self, t: Micros) -> Millis {
        (t - self.analysis.bounds().min).to_millis()
    }

    /// The facts of the node at `position` of a thread, if there is one.
    fn node_facts(&self, pid: Id, tid: Id, position: u32, event: Option<u32>) -> Option<EntryFacts> {
        let thread = self.analysis.thread(pid, tid)?;
        let node = thread.node(position as usize)?;
        Some(EntryFacts {
            event,
            name: Some(node.name().to_owned()),
            pid: Some(pid),
            tid: Some(tid),
            thread: thread.name().map(str::to_owned),
            node: Some(position),
            start: Some(self.ms(node.start())),
            dur: node.raw().dur().map(Micros::to_millis),
        })
    }

    /// What is known of an entry of the handlers' data.
    fn facts(&self, entry: EntityEvent) -> EntryFacts {
        if let Some((pid, tid, position)) = index_of(entry).and_then(|i| self.at.get(&i)) {
            if let Some(facts) = self.node_facts(*pid, *tid, *position, index_of(entry)) {
                return facts;
            }
        }
        match entry {
            EntityEvent::ProfileCall { thread, position, .. } => {
                let threads = self.analysis.numbered_threads();
                let facts = threads
                    .thread(thread)
                    .and_then(|(pid, tid, _)| self.node_facts(pid, tid, position, None));
                facts.unwrap_or_default()
            }
            EntityEvent::BeginEnd {
                thread,
                position,
                begin,
                ..
            } => {
                let entry = self.analysis.numbered_threads().entry(thread, position);
                EntryFacts {
                    event: Some(begin),
                    pid: entry.map(|e| e.pid),
                    tid: entry.map(|e| e.tid),
                    dur: entry.map(|e| Micros(e.dur).to_millis()),
                    ..EntryFacts::default()
                }
            }
            EntityEvent::Request(i) => self.request_facts(i),
            EntityEvent::Event(i) => EntryFacts {
                event: Some(i),
                ..EntryFacts::default()
            },
        }
    }

    /// A network request's synthetic event.
    fn request_facts(&self, i: u32) -> EntryFacts {
        let data = self.analysis.handlers();
        let Some(r) = data.and_then(|d| d.network_requests().requests.get(i as usize)) else {
            return EntryFacts::default();
        };
        EntryFacts {
            event: Some(r.event),
            name: Some("SyntheticNetworkRequest".to_owned()),
            pid: Some(r.pid),
            tid: Some(r.tid),
            start: Some(self.ms(r.ts)),
            dur: Some(r.dur.to_millis()),
            ..EntryFacts::default()
        }
    }
}

/// The links whose kind the names alone do not tell: the flows' and the
/// async calls'.
struct Links {
    flows: AHashSet<(u32, u32)>,
    /// (entry point, scheduler) of each async call.
    async_calls: AHashSet<(EntityEvent, EntityEvent)>,
}

impl Links {
    fn new(data: &HandlerData) -> Links {
        let flows = data
            .flows()
            .flows
            .iter()
            .flat_map(|flow| flow.windows(2).map(|pair| (pair[1], pair[0])))
            .collect();
        let async_calls = data
            .async_js_calls()
            .scheduler_to_run_entry_points
            .iter()
            .flat_map(|(scheduler, entries)| entries.iter().map(move |e| (*e, *scheduler)))
            .collect();
        Links { flows, async_calls }
    }

    /// The kind of the link from `initiator` to `event`, and the task of
    /// an async call. The handler links the async calls last, the flows
    /// before them, the rest while reading the trace: the last link of an
    /// event is its initiator, so they are told apart in that order.
    fn kind(
        &self,
        data: &HandlerData,
        analysis: &Analysis,
        (event, initiator): (EntityEvent, EntityEvent),
        names: (Option<&str>, Option<&str>),
    ) -> (Option<LinkKind>, Option<String>) {
        if self.async_calls.contains(&(event, initiator)) {
            let task = data
                .async_js_calls()
                .run_entry_point_to_scheduler
                .get(&event)
                .and_then(|s| s.task_name)
                .map(|t| analysis.strings().resolve(t).to_owned());
            let kind = match task.as_deref() {
                Some("requestAnimationFrame") => LinkKind::AnimationFrame,
                Some("setTimeout" | "setInterval") => LinkKind::Timer,
                Some("requestIdleCallback") => LinkKind::IdleCallback,
                _ => LinkKind::AsyncCall,
            };
            return (Some(kind), task);
        }
        if let (EntityEvent::Event(e), EntityEvent::Event(i)) = (event, initiator) {
            if self.flows.contains(&(e, i)) {
                return (Some(LinkKind::Flow), None);
            }
        }
        let kind = names
            .0
            .and_then(kind_of_initiated)
            .or_else(|| names.1.and_then(kind_of_initiator));
        (kind, None)
    }
}

/// The kind of link an initiated event's name tells.
fn kind_of_initiated(name: &str) -> Option<LinkKind> {
    Some(match name {
        "TimerFire" => LinkKind::Timer,
        "FireIdleCallback" => LinkKind::IdleCallback,
        "RunPostTaskCallback" | "AbortPostTaskCallback" => LinkKind::PostTask,
        "UpdateLayoutTree" => LinkKind::StyleRecalc,
        "Layout" => LinkKind::LayoutInvalidation,
        _ if name.starts_with("WebSocket") => LinkKind::WebSocket,
        _ => return None,
    })
}

/// The kind of link an initiator's name tells (a `ScheduleStyleRecalculation`
/// may initiate a recalculation or a layout: it tells nothing).
fn kind_of_initiator(name: &str) -> Option<LinkKind> {
    Some(match name {
        "TimerInstall" => LinkKind::Timer,
        "RequestIdleCallback" => LinkKind::IdleCallback,
        "SchedulePostTaskCallback" => LinkKind::PostTask,
        "WebSocketCreate" => LinkKind::WebSocket,
        "InvalidateLayout" => LinkKind::LayoutInvalidation,
        _ => return None,
    })
}

/// Sorts rows by the start of `key`'s event (unknown last), then by its
/// index.
fn by_start<T>(rows: &mut [T], key: impl Fn(&T) -> &EntryFacts) {
    rows.sort_by(|a, b| {
        let (a, b) = (key(a), key(b));
        let start = |f: &EntryFacts| f.start.map_or(f64::INFINITY, |s| s.0);
        start(a).total_cmp(&start(b)).then(a.event.cmp(&b.event))
    });
}

/// The initiator of every event that has one (DevTools' Initiators
/// handler), by the start of the initiated event.
pub fn initiators(analysis: &Analysis) -> Result<Vec<InitiatorRow>, PageError> {
    let data = super::handlers(analysis)?;
    let links = data.initiators();
    let pairs: Vec<(EntityEvent, EntityEvent)> = links
        .event_to_initiator
        .iter()
        .filter_map(|(e, i)| Some((links.entry(*e)?, links.entry(*i)?)))
        .collect();
    let wanted = pairs
        .iter()
        .flat_map(|(e, i)| [index_of(*e), index_of(*i)])
        .flatten()
        .collect();
    let locator = Locator::new(analysis, &wanted);
    let kinds = Links::new(data);
    let mut rows: Vec<InitiatorRow> = pairs
        .into_iter()
        .map(|(e, i)| {
            let (event, initiator) = (locator.facts(e), locator.facts(i));
            let names = (event.name.as_deref(), initiator.name.as_deref());
            let (kind, task) = kinds.kind(data, analysis, (e, i), names);
            InitiatorRow {
                event,
                initiator,
                kind,
                task,
            }
        })
        .collect();
    by_start(&mut rows, |r| &r.event);
    Ok(rows)
}

/// The panel's words for a warning: `long task`, `forced reflow`, `idle
/// callback over time`, `long interaction` (what `tracks` prints in
/// brackets).
pub const fn warning_label(warning: Warning) -> &'static str {
    match warning {
        Warning::LongTask => "long task",
        Warning::IdleCallbackOverTime => "idle callback over time",
        Warning::ForcedReflow => "forced reflow",
        Warning::LongInteraction => "long interaction",
    }
}

/// A problem the panel flags on an entry (DevTools' Warnings handler).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct WarningRow {
    /// The problem ([`Warning::name`]: DevTools' name; [`warning_label`]:
    /// the panel's words).
    pub warning: Warning,
    /// The entry flagged: an event of the tracks, or an interaction (its
    /// `EventTiming` begin event, named `EventTiming`).
    pub entry: EntryFacts,
    /// For an interaction, its DOM event type (`click`, `keydown`...).
    pub interaction_type: Option<String>,
}

/// Every warning of every entry, by the entry's start, an entry's warnings
/// in the order they were found.
pub fn warnings(analysis: &Analysis) -> Result<Vec<WarningRow>, PageError> {
    let data = super::handlers(analysis)?;
    let per_event = &data.warnings().per_event;
    let wanted = per_event
        .keys()
        .filter_map(|f| match f {
            Flagged::Event(i) => Some(*i),
            Flagged::Interaction(_) => None,
        })
        .collect();
    let locator = Locator::new(analysis, &wanted);
    let interactions = &data.user_interactions().interactions;
    let mut rows = Vec::new();
    for (flagged, kinds) in per_event {
        let (entry, interaction_type) = match *flagged {
            Flagged::Event(i) => (locator.facts(EntityEvent::Event(i)), None),
            Flagged::Interaction(k) => match interactions.get(k) {
                Some(x) => (
                    EntryFacts {
                        event: Some(x.begin),
                        name: Some("EventTiming".to_owned()),
                        pid: Some(x.pid),
                        tid: Some(x.tid),
                        thread: analysis.thread(x.pid, x.tid).and_then(|t| t.name()).map(str::to_owned),
                        node: None,
                        start: Some(locator.ms(x.ts)),
                        dur: Some(x.dur.to_millis()),
                    },
                    Some(analysis.strings().resolve(x.kind).to_owned()),
                ),
                None => (EntryFacts::default(), None),
            },
        };
        rows.extend(kinds.iter().map(|&warning| WarningRow {
            warning,
            entry: entry.clone(),
            interaction_type: interaction_type.clone(),
        }));
    }
    by_start(&mut rows, |r| &r.entry);
    Ok(rows)
}

/// What `tracekit tracks --why` adds to the nodes of the tracks: each
/// event's warnings and initiator, by the event's index.
#[derive(Debug, Clone, Default)]
pub struct Why {
    warnings: AHashMap<u32, Vec<Warning>>,
    initiators: AHashMap<u32, InitiatorRow>,
}

impl Why {
    /// Gathers the warnings and initiators of the analysis' events.
    pub fn new(analysis: &Analysis) -> Result<Why, PageError> {
        let mut why = Why::default();
        for row in warnings(analysis)? {
            if let (Some(i), true) = (row.entry.event, row.entry.is_on_track()) {
                why.warnings.entry(i).or_default().push(row.warning);
            }
        }
        for row in initiators(analysis)? {
            if let (Some(i), true) = (row.event.event, row.event.is_on_track()) {
                why.initiators.insert(i, row);
            }
        }
        Ok(why)
    }

    /// The event index of a node (`None` for a JS call).
    fn event(node: &TrackNode) -> Option<u32> {
        match node.kind() {
            NodeKind::Event { event, .. } => Some(event),
            NodeKind::Call { .. } => None,
        }
    }

    /// The warnings of a node, in the order they were found.
    pub fn warnings(&self, node: &TrackNode) -> &[Warning] {
        Why::event(node)
            .and_then(|i| self.warnings.get(&i))
            .map_or(&[], Vec::as_slice)
    }

    /// The initiator of a node, if it has one.
    pub fn initiator(&self, node: &TrackNode) -> Option<&InitiatorRow> {
        self.initiators.get(&Why::event(node)?)
    }

    /// Appends a node's warnings to its text line: ` [long task]`...
    pub(crate) fn write_text(&self, out: &mut String, node: &TrackNode) {
        for warning in self.warnings(node) {
            out.push_str(" [");
            out.push_str(warning_label(*warning));
            out.push(']');
        }
    }

    /// Appends a node's `initiator` and `warnings` members to its JSON
    /// object, when it has them.
    pub(crate) fn write_json(&self, out: &mut String, node: &TrackNode, analysis: &Analysis) {
        if let Some(row) = self.initiator(node) {
            out.push_str(",\"initiator\":");
            write_entry_json(out, &row.initiator, analysis, |o| {
                o.str("kind", row.kind.map(LinkKind::name));
            });
        }
        let warnings = self.warnings(node);
        if !warnings.is_empty() {
            out.push_str(",\"warnings\":[");
            for (i, w) in warnings.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(out, w.name());
            }
            out.push(']');
        }
    }
}

/// An entry as a JSON object: `event`, `name`, `pid`, `tid`, `node`,
/// `ts` (µs of the trace's clock) and `dur` (µs), each `null` when
/// unknown, then what `more` writes.
fn write_entry_json(out: &mut String, e: &EntryFacts, analysis: &Analysis, more: impl FnOnce(&mut JsonObject<'_>)) {
    let origin = analysis.bounds().min;
    let mut o = JsonObject::new(out);
    o.num("event", e.event.map(f64::from));
    o.str("name", e.name.as_deref());
    for (key, id) in [("pid", e.pid), ("tid", e.tid)] {
        o.key(key);
        match id {
            Some(id) => id.write_json(o.out, analysis.strings()),
            None => o.out.push_str("null"),
        }
    }
    o.num("node", e.node.map(f64::from));
    o.num("ts", e.start.map(|s| round3(origin.0 + s.0 * 1000.0)));
    o.num("dur", e.dur.map(|d| round3(d.0 * 1000.0)));
    more(&mut o);
    o.close();
}

/// The initiators as JSON (`Trace.initiators()`): an array of
/// `{event, initiator, kind, task}`, each event an object of `event`,
/// `name`, `pid`, `tid`, `node`, `ts` (µs of the trace's clock) and `dur`
/// (µs), each `null` when unknown.
pub fn initiators_json(rows: &[InitiatorRow], analysis: &Analysis) -> String {
    let mut out = String::from("[");
    for (i, r) in rows.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let mut o = JsonObject::new(&mut out);
        o.key("event");
        write_entry_json(o.out, &r.event, analysis, |_| {});
        o.key("initiator");
        write_entry_json(o.out, &r.initiator, analysis, |_| {});
        o.str("kind", r.kind.map(LinkKind::name));
        o.str("task", r.task.as_deref());
        o.close();
    }
    out.push(']');
    out
}

/// The warnings as JSON (`Trace.warnings()`): an array of `{warning,
/// label, entry, interactionType}`, `warning` DevTools' name
/// (`LONG_TASK`), `label` the panel's words (`long task`).
pub fn warnings_json(rows: &[WarningRow], analysis: &Analysis) -> String {
    let mut out = String::from("[");
    for (i, r) in rows.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let mut o = JsonObject::new(&mut out);
        o.str("warning", Some(r.warning.name()));
        o.str("label", Some(warning_label(r.warning)));
        o.key("entry");
        write_entry_json(o.out, &r.entry, analysis, |_| {});
        o.str("interactionType", r.interaction_type.as_deref());
        o.close();
    }
    out.push(']');
    out
}

/// The `warnings:` line of `tracekit info`: how many of each kind, in
/// DevTools' order of kinds (`warnings: none` without any).
pub(super) fn warnings_info(out: &mut String, data: &HandlerData) {
    let mut kinds: Vec<(Warning, usize)> = data
        .warnings()
        .per_warning
        .iter()
        .map(|(w, flagged)| (*w, flagged.len()))
        .collect();
    kinds.sort();
    out.push_str("  warnings: ");
    if kinds.is_empty() {
        out.push_str("none");
    }
    for (i, (warning, n)) in kinds.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let label = match (*n, warning) {
            (1, _) => warning_label(*warning),
            (_, Warning::LongTask) => "long tasks",
            (_, Warning::IdleCallbackOverTime) => "idle callbacks over time",
            (_, Warning::ForcedReflow) => "forced reflows",
            (_, Warning::LongInteraction) => "long interactions",
        };
        out.push_str(&format!("{n} {label}"));
    }
    out.push('\n');
}
