//! The third-party entities of the tracks' entries, as DevTools' Renderer
//! handler adds them to the NetworkRequests handler's entity mappings once
//! each thread's tree is built: every entry of the tree (trace events and
//! JS calls, in the tree's order) that has a URL goes to the entity of that
//! URL, unless the NetworkRequests handler mapped it already. Only done
//! with [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers):
//! the URLs of the trace events are read while loading ([`entity_url`]),
//! the entities found when the tracks are built ([`thread_entities`]) and
//! gathered in DevTools' order by [`entity_mappings`].

use tracekit_events::{Context, DevTools, Event, Id, Interner, Phase, Sym};
use tracekit_page::args::{own_url, RawArgs, RawData};
use tracekit_page::{Entity, EntityEvent, EntityMappings, NetworkRequests};

use crate::integrator::FROM_TRACE_ID;
use crate::{Map, NodeKind, ProcessTracks, TrackNode};

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

/// The URL of a complete, instant or begin event (`None`: none, or
/// another phase), read as DevTools 2026-10 reads it when it has no
/// handler data to look into.
pub(crate) fn entity_url(
    index: u32,
    event: &Event<'_>,
    devtools: DevTools,
    interner: &mut Interner,
) -> Option<EntityUrl> {
    let ph = match event.ph {
        Phase::BEGIN => Phase::COMPLETE,
        Phase::COMPLETE | Phase::INSTANT => event.ph,
        _ => return None,
    };
    let raw = event.args.filter(|a| crate::view_args::may_hold_group_args(a))?;
    let args = RawArgs::of(raw)?;
    let data = RawData::of(args.data);
    let url = own_url(event.name, ph, Some(&args), data.as_ref(), devtools, interner)?;
    let begin_text = (event.ph == Phase::BEGIN).then(|| interner.intern(event.text));
    Some(EntityUrl {
        event: index,
        url,
        begin_text,
    })
}

/// The entities of one thread's entries, in its tree's order (none
/// without all handlers): `built` are its track's nodes, functions and
/// the sample index of each of its JS call nodes (in node order), `urls`
/// the URLs of its trace events (sorted by event index). `by_url`
/// remembers each URL's entity across threads.
pub(crate) fn thread_entities(
    (pid, tid): (Id, Id),
    (nodes, frames, call_samples): (&[TrackNode], &[crate::JsFrame], &[u32]),
    urls: &[EntityUrl],
    by_url: &mut ahash::AHashMap<Sym, Option<Entity>>,
    cx: &mut Context,
) -> Vec<(Entity, EntityEvent)> {
    if !cx.options.all_handlers {
        return Vec::new();
    }
    let interner = &mut cx.interner;
    let mut out = Vec::new();
    let mut calls = call_samples.iter();
    for (position, node) in nodes.iter().enumerate() {
        let (url, event) = match node.kind() {
            NodeKind::Call { frame } => {
                let sample = calls.next().copied().unwrap_or(FROM_TRACE_ID);
                let Some(js) = frames.get(frame as usize) else {
                    continue;
                };
                let event = EntityEvent::ProfileCall {
                    pid,
                    tid,
                    position: u32::try_from(position).unwrap_or(u32::MAX),
                    ts_bits: node.ts().0.to_bits(),
                    node_id: js.node_id,
                    sample_index: (sample != FROM_TRACE_ID).then_some(sample),
                };
                (js.call_frame.url, event)
            }
            NodeKind::Event { event, .. } => {
                let Ok(at) = urls.binary_search_by_key(&event, |u| u.event) else {
                    continue;
                };
                let found = urls[at];
                let event = match found.begin_text {
                    None => EntityEvent::Event(event),
                    Some(text) => EntityEvent::BeginEnd {
                        pid,
                        tid,
                        begin: event,
                        text,
                        dur_bits: node.dur().unwrap_or_default().0.to_bits(),
                    },
                };
                (found.url, event)
            }
        };
        if url == tracekit_events::names::EMPTY {
            continue;
        }
        let entity = *by_url.entry(url).or_insert_with(|| {
            let text = interner.resolve(url).to_owned();
            Entity::for_url(&text, interner)
        });
        if let Some(entity) = entity {
            out.push((entity, event));
        }
    }
    out
}

/// The NetworkRequests handler's entity mappings, completed with the
/// entities of the tracks' entries as DevTools' Renderer handler completes
/// them: thread by thread, in the tracks' order, each entry once (those the
/// network requests mapped already are left). Processes DevTools drops
/// are left out. Empty additions unless the tracks were built with
/// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers).
pub fn entity_mappings(processes: &Map<Id, ProcessTracks>, network: &NetworkRequests) -> EntityMappings {
    let mut mappings = network.entities.clone();
    for process in processes.values().filter(|p| p.kept_by_devtools) {
        for thread in process.threads.values() {
            for &(entity, event) in &thread.entities {
                mappings.add_once(entity, event);
            }
        }
    }
    mappings
}
