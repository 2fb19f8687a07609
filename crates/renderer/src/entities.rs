//! The third-party entities of the tracks' entries, as DevTools' Renderer
//! handler adds them to the NetworkRequests handler's entity mappings once
//! each thread's tree is built: every entry of the tree (trace events and
//! JS calls, in the tree's order) that has a URL goes to the entity of that
//! URL, unless the NetworkRequests handler mapped it already. Only done
//! with [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers):
//! the URLs of the trace events are read while loading ([`entity_url_value`], [`entity_url_of`]),
//! the entities of each function and URL resolved when the tracks are
//! built ([`ThreadEntities`]), and the entries gathered in DevTools' order
//! only when asked, by [`entity_mappings`].

use tracekit_events::bits::Bits;
use tracekit_events::prepared::ArgsSpan;
use tracekit_events::{DevTools, Event, Id, Interner, Phase, Sym};
use tracekit_page::args::{non_empty, own_url_value, RawArgs, RawData};
use tracekit_page::{
    CallSample, Entity, EntityEvent, EntityMappings, NetworkRequests, ThreadNumber, TrackEntries, TrackEntry,
};

use crate::integrator::FROM_TRACE_ID;
use crate::{Map, NodeKind, ProcessTracks, ThreadTrack, TrackNode};

/// What the entities need of a trace event that has a URL, kept while
/// loading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EntityUrl {
    /// The event's index.
    pub event: u32,
    /// Its URL, as `getNonResolvedURL` finds it in the event's own args.
    pub url: Sym,
    /// For a begin event: its whole text, interned (DevTools maps the
    /// complete event it makes of the pair, written from the begin's
    /// members).
    pub begin_text: Option<Sym>,
}

/// The raw value of `event`'s args that is its URL for its entity (see
/// [`own_url_value`]), found without the interner: what can be looked for
/// on any core, kept as its place in the args.
pub(crate) fn entity_url_value(event: &Event<'_>, devtools: DevTools) -> Option<ArgsSpan> {
    let ph = match event.ph {
        Phase::BEGIN => Phase::COMPLETE,
        Phase::COMPLETE | Phase::INSTANT => event.ph,
        _ => return None,
    };
    let raw = event.args.filter(|a| crate::view_args::may_hold_url(a))?;
    let args = RawArgs::of(raw)?;
    let data = RawData::of(args.data);
    let value = own_url_value(event.name, ph, Some(&args), data.as_ref(), devtools)?;
    Some(ArgsSpan::of(raw, value))
}

/// The URL of a complete, instant or begin event (`None`: none, or
/// another phase), read as DevTools 2026-10 reads it when it has no
/// handler data to look into, from the raw value [`entity_url_value`]
/// found.
pub(crate) fn entity_url_of(
    index: u32,
    event: &Event<'_>,
    value: Option<&str>,
    interner: &mut Interner,
) -> Option<EntityUrl> {
    let url = non_empty(value, interner)?;
    let begin_text = (event.ph == Phase::BEGIN).then(|| interner.intern(event.text));
    Some(EntityUrl {
        event: index,
        url,
        begin_text,
    })
}

/// What a thread keeps for its entries' entities (empty without all
/// handlers): the entity of each of its functions and of each of its trace
/// events' URLs, resolved once per distinct URL when the tracks are built;
/// which entries they go to is found only when asked ([`entity_mappings`]),
/// so that loading neither walks the trees again nor keeps an entry per
/// node.
#[derive(Debug, Clone, Default)]
pub(crate) struct ThreadEntities {
    /// The sample index of each JS call node, in node order
    /// ([`FROM_TRACE_ID`] when its stack came from a trace event).
    pub call_samples: Vec<u32>,
    /// The entity of each of the thread's functions, by function index.
    pub frame_entities: Vec<Option<Entity>>,
    /// The URLs of the thread's trace events (sorted by event index), each
    /// with its entity.
    pub urls: Vec<(EntityUrl, Option<Entity>)>,
    /// The entries the tree leaves out, each with the number of nodes
    /// before it in the entries' order ([`crate::ThreadTrack::entries_off_tree`]).
    pub off_tree: Vec<(u32, TrackNode)>,
}

impl ThreadEntities {
    /// Resolves the entities of a thread's functions and event URLs;
    /// `by_url` remembers each URL's entity across threads.
    pub(crate) fn resolve(
        call_samples: Vec<u32>,
        frames: &[crate::JsFrame],
        urls: Vec<EntityUrl>,
        by_url: &mut ahash::AHashMap<Sym, Option<Entity>>,
        interner: &mut Interner,
    ) -> ThreadEntities {
        let mut entity_of = |url: Sym| {
            if url == tracekit_events::names::EMPTY {
                return None;
            }
            *by_url.entry(url).or_insert_with(|| {
                let text = interner.resolve(url).to_owned();
                Entity::for_url(&text, interner)
            })
        };
        ThreadEntities {
            call_samples,
            frame_entities: frames.iter().map(|f| entity_of(f.call_frame.url)).collect(),
            urls: urls.into_iter().map(|u| (u, entity_of(u.url))).collect(),
            off_tree: Vec::new(),
        }
    }

    /// Adds to `counts` about how many of the thread's entries each
    /// entity has (exactly, unless an event is on several nodes): its
    /// functions' calls, and its events with a URL.
    fn count_entries(&self, nodes: &[TrackNode], counts: &mut ahash::AHashMap<Entity, usize>) {
        let mut calls_of_frame = vec![0usize; self.frame_entities.len()];
        for node in nodes {
            if let NodeKind::Call { frame } = node.kind() {
                if let Some(calls) = calls_of_frame.get_mut(frame as usize) {
                    *calls += 1;
                }
            }
        }
        let frames = self.frame_entities.iter().zip(calls_of_frame);
        let calls = frames.filter_map(|(entity, calls)| Some(((*entity)?, calls)));
        let events = self.urls.iter().filter_map(|(_, entity)| Some(((*entity)?, 1)));
        for (entity, n) in calls.chain(events) {
            *counts.entry(entity).or_default() += n;
        }
    }

    /// The entities of a thread's entries, in its tree's order.
    fn of_entries<'a>(
        &'a self,
        thread: ThreadNumber,
        nodes: &'a [TrackNode],
    ) -> impl Iterator<Item = (Entity, EntityEvent)> + 'a {
        let mut calls = self.call_samples.iter();
        // The events with a URL, as bits by event index: most events have
        // none, and the bit spares them the search of the list.
        let with_url: Bits = self.urls.iter().map(|(u, _)| u.event as usize).collect();
        nodes.iter().enumerate().filter_map(move |(position, node)| {
            let position = u32::try_from(position).unwrap_or(u32::MAX);
            match node.kind() {
                NodeKind::Call { frame } => {
                    let sample = calls.next().copied().unwrap_or(FROM_TRACE_ID);
                    let entity = (*self.frame_entities.get(frame as usize)?)?;
                    let sample = CallSample::new((sample != FROM_TRACE_ID).then_some(sample));
                    Some((
                        entity,
                        EntityEvent::ProfileCall {
                            thread,
                            position,
                            sample,
                        },
                    ))
                }
                NodeKind::Event { event, .. } => {
                    if !with_url.contains(event as usize) {
                        return None;
                    }
                    let at = self.urls.binary_search_by_key(&event, |(u, _)| u.event).ok()?;
                    let (found, entity) = self.urls[at];
                    let event = match found.begin_text {
                        None => EntityEvent::Event(event),
                        Some(text) => EntityEvent::BeginEnd {
                            thread,
                            position,
                            begin: event,
                            text,
                        },
                    };
                    Some((entity?, event))
                }
            }
        })
    }
}

/// The tracks of every process with their threads numbered (see
/// [`ThreadNumber`]): what the entries an [`EntityEvent`] names by place
/// are read from.
#[derive(Debug, Clone, Copy)]
pub struct NumberedThreads<'a>(pub &'a Map<Id, ProcessTracks>);

impl<'a> NumberedThreads<'a> {
    /// The number of a process's thread.
    pub fn number(&self, pid: Id, tid: Id) -> Option<ThreadNumber> {
        let (at, _, process) = self.0.get_full(&pid)?;
        let before: usize = self.0.values().take(at).map(|p| p.threads.len()).sum();
        let number = before + process.threads.get_index_of(&tid)?;
        u32::try_from(number).ok().map(ThreadNumber)
    }

    /// The thread of a number: its process and thread ids and its track.
    pub fn thread(&self, number: ThreadNumber) -> Option<(Id, Id, &'a ThreadTrack)> {
        let mut left = number.0 as usize;
        for (&pid, process) in self.0 {
            match process.threads.get_index(left) {
                Some((&tid, track)) => return Some((pid, tid, track)),
                None => left -= process.threads.len(),
            }
        }
        None
    }

    /// Every thread in order, with its number, its process and thread
    /// ids, and its process.
    pub fn numbered(&self) -> impl Iterator<Item = (ThreadNumber, (Id, Id), &'a ProcessTracks, &'a ThreadTrack)> + 'a {
        let threads = (self.0.iter()).flat_map(|(&pid, p)| p.threads.iter().map(move |(&tid, t)| ((pid, tid), p, t)));
        (0..=u32::MAX)
            .zip(threads)
            .map(|(n, (ids, p, t))| (ThreadNumber(n), ids, p, t))
    }
}

impl TrackEntries for NumberedThreads<'_> {
    fn entry(&self, thread: ThreadNumber, position: u32) -> Option<TrackEntry> {
        let (pid, tid, track) = self.thread(thread)?;
        let node = track.nodes.get(position as usize)?;
        Some(TrackEntry {
            pid,
            tid,
            ts: node.ts().0,
            dur: node.dur().unwrap_or_default().0,
            node_id: track.js_frame(&node.kind()).map_or(0, |f| f.node_id),
        })
    }
}

/// The NetworkRequests handler's entity mappings, completed with the
/// entities of the tracks' entries as DevTools' Renderer handler completes
/// them: thread by thread, in the tracks' order, each entry once (those the
/// network requests mapped already are left). Processes DevTools drops
/// are left out. Empty additions unless the tracks were built with
/// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers).
pub fn entity_mappings(processes: &Map<Id, ProcessTracks>, network: &NetworkRequests) -> EntityMappings {
    let mut mappings = network.entities.clone();
    let kept = || processes.iter().filter(|(_, p)| p.kept_by_devtools);
    // Each entity's entries counted first, so that its list is made once
    // at its size (a big trace's lists reach every JS call: grown step by
    // step, they were copied as they grew and held twice while they were).
    let mut counts: ahash::AHashMap<Entity, usize> = ahash::AHashMap::new();
    for (_, process) in kept() {
        for thread in process.threads.values() {
            thread.entities.count_entries(&thread.nodes, &mut counts);
        }
    }
    for (entity, count) in counts {
        mappings.reserve(entity, count);
    }
    let numbered = NumberedThreads(processes).numbered();
    for (number, _, _, thread) in numbered.filter(|(_, _, process, _)| process.kept_by_devtools) {
        let mut entries = thread.entities.of_entries(number, &thread.nodes).peekable();
        // Added by runs of one entity, each run's list looked up once, and
        // the run streamed into it: a run can be most of a thread's JS
        // calls, and gathered first it was tens of MB of garbage.
        while let Some((entity, first)) = entries.next() {
            let rest = std::iter::from_fn(|| entries.next_if(|(e, _)| *e == entity).map(|(_, event)| event));
            mappings.add_each_once(entity, std::iter::once(first).chain(rest));
        }
    }
    mappings
}

impl crate::ThreadTrack {
    /// The entries DevTools keeps in the thread's entries but not in its
    /// tree (they overlap their parent's end), each with the number of
    /// [`ThreadTrack::nodes`](crate::ThreadTrack) before it in the entries'
    /// order, which is the nodes' order; empty without
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers).
    pub fn entries_off_tree(&self) -> &[(u32, TrackNode)] {
        &self.entities.off_tree
    }

    /// The entity of a node of the thread (or of an entry off its tree)
    /// from its own URL: that of a JS call's script, or of the URL in a
    /// trace event's own args (`None`: no URL, or no entity for it; always
    /// `None` without
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    /// An input event that the NetworkRequests handler mapped keeps that
    /// handler's entity in DevTools: the caller looks there first.
    pub fn entity_of(&self, node: &TrackNode) -> Option<Entity> {
        let own = &self.entities;
        match node.kind() {
            NodeKind::Call { frame } => own.frame_entities.get(frame as usize).copied().flatten(),
            NodeKind::Event { event, .. } => own
                .urls
                .binary_search_by_key(&event, |(u, _)| u.event)
                .ok()
                .and_then(|at| own.urls[at].1),
        }
    }
}
