//! The main frame's main thread, and its self time and received bytes per
//! third-party entity in a window, as DevTools' Bottom-Up view grouped by
//! entity counts them (the `summarizeByThirdParty` of its ThirdParties
//! extras): the thread's entries of a visible type walked in order, each
//! one's time in the window less that of the entries inside it going to
//! its row (its node id and its entity), the received-data events' sizes
//! to theirs; rows with neither time nor bytes dropped, then the rows
//! grouped by entity name in the order they were made.

use ahash::AHashMap;
use tracekit_engine::handlers::page::{Entity, EntityEvent, NetworkRequests};
use tracekit_engine::support::{event_view_args, js_call_id, names};
use tracekit_engine::{styles, Analysis, NodeKind, Strings, Sym, ThreadTrack, TrackNode};

use crate::sets::Context;

/// The main thread (`CrRendererMain`) of the first renderer process on the
/// main frame whose URL is not an `about:` or `chrome:` one.
pub(crate) fn main_frame_main_thread(analysis: &Analysis) -> Option<&ThreadTrack> {
    let strings = analysis.strings();
    let process = analysis.process_tracks().values().find(|p| {
        let url = p.url.map_or("", |u| strings.resolve(u));
        p.kept_by_devtools && p.is_on_main_frame && !url.starts_with("about:") && !url.starts_with("chrome:")
    })?;
    process
        .threads
        .values()
        .find(|t| t.name.as_deref() == Some("CrRendererMain"))
}

/// One entity's group of the Bottom-Up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct EntityGroup {
    /// The entity (that of the group's first row's event).
    pub entity: Entity,
    /// Its rows' self time, ms.
    pub self_ms: f64,
    /// Its rows' transfer size, bytes.
    pub transfer_size: f64,
}

/// What a row of the Bottom-Up is keyed by besides its entity: DevTools'
/// node id of the event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum NodeId {
    /// A JS call: its `f:NAME@LOCATION:LINE:COLUMN`, interned here.
    Call(u32),
    /// A received-data event: `req:` and its request id (`None`:
    /// `undefined`).
    Request(Option<Sym>),
    /// Any other event: its name.
    Name(Sym),
}

/// A JS frame's row key, and its row's index in the rows once made.
#[derive(Clone, Copy)]
struct CallRow {
    key: (NodeId, u32),
    row: Option<usize>,
}

/// A row: what it has gathered, and the node that made it.
struct Row {
    made_by: usize,
    group: u32,
    self_ms: f64,
    transfer_size: f64,
}

/// An entry of the walk that lasts, started and not yet ended.
struct Open {
    node: usize,
    row: (NodeId, u32),
    self_ms: f64,
}

/// The self time and transfer size of each entity on `track` in the set's
/// window; an error where DevTools throws (a received-data event without
/// `args.data`).
pub(crate) fn entity_self_times(
    cx: &Context<'_>,
    track: &ThreadTrack,
    network: &NetworkRequests,
) -> Result<Vec<EntityGroup>, String> {
    let strings = cx.analysis.strings();
    let nodes = entries(track);
    let entities = EntityOf::new(track, network);
    let mut walk = Walk::new(cx, track, &nodes, strings, &entities);
    walk.cache_hits()?;
    walk.run()?;
    Ok(walk.groups())
}

/// The thread's entries as DevTools lists them: its tree's nodes, and
/// the entries off the tree in their places.
fn entries(track: &ThreadTrack) -> Vec<&TrackNode> {
    let off_tree = track.entries_off_tree();
    let mut nodes = Vec::with_capacity(track.nodes.len() + off_tree.len());
    let mut off = off_tree.iter().peekable();
    for (at, node) in track.nodes.iter().enumerate() {
        while let Some((_, entry)) = off.next_if(|(before, _)| *before as usize <= at) {
            nodes.push(entry);
        }
        nodes.push(node);
    }
    nodes.extend(off.map(|(_, entry)| entry));
    nodes
}

/// The entity of an entry as DevTools' `entityByEvent` has it: the
/// NetworkRequests handler's for the events it mapped, else the track's.
struct EntityOf<'a> {
    track: &'a ThreadTrack,
    by_event: AHashMap<u32, Entity>,
}

impl<'a> EntityOf<'a> {
    fn new(track: &'a ThreadTrack, network: &NetworkRequests) -> EntityOf<'a> {
        let mut by_event: AHashMap<u32, Entity> = AHashMap::new();
        for (&entity, events) in &network.entities.events_by_entity {
            for e in events {
                if let EntityEvent::Event(index) = *e {
                    by_event.insert(index, entity);
                }
            }
        }
        EntityOf { track, by_event }
    }

    fn get(&self, node: &TrackNode) -> Option<Entity> {
        // (A begin/end pair is a new event in DevTools, which no request
        // has; its begin is never a request's event either.)
        if let NodeKind::Event { event, .. } = node.kind() {
            if let Some(&mapped) = self.by_event.get(&event) {
                return Some(mapped);
            }
        }
        self.track.entity_of(node)
    }
}

/// The walk over a thread's entries in a window, and the rows it makes.
struct Walk<'a> {
    track: &'a ThreadTrack,
    /// The thread's entries in DevTools' order: its nodes, and those off
    /// its tree in their places.
    nodes: &'a [&'a TrackNode],
    strings: &'a Strings,
    entities: &'a EntityOf<'a>,
    /// The window in ms, and in µs as DevTools converts it back.
    start_ms: f64,
    end_ms: f64,
    start_us: f64,
    end_us: f64,
    /// The JS calls' ids, interned.
    call_ids: AHashMap<String, u32>,
    /// Each JS frame's row key, once made, and its row's index once the
    /// row is (most entries are calls of a few thousand frames: their ids
    /// are not written again, nor their entities and rows looked up).
    call_of_frame: Vec<Option<CallRow>>,
    /// Whether JS calls are of a visible type.
    calls_visible: bool,
    /// The entities' names (the groups), interned; `""`: no entity.
    group_names: AHashMap<String, u32>,
    /// Each entity's interned name, once looked up.
    group_of_entity: AHashMap<Option<Entity>, u32>,
    /// The rows, in the order they were made.
    rows: indexmap::IndexMap<(NodeId, u32), Row, ahash::RandomState>,
    /// Whether the response of a received-data row came from the cache.
    cache_hit: AHashMap<(NodeId, u32), bool>,
    /// Whether events of this name and category are of a visible type.
    visible: AHashMap<(Sym, Sym), bool>,
}

impl<'a> Walk<'a> {
    fn new(
        cx: &Context<'_>,
        track: &'a ThreadTrack,
        nodes: &'a [&'a TrackNode],
        strings: &'a Strings,
        entities: &'a EntityOf<'a>,
    ) -> Walk<'a> {
        let start_ms = cx.bounds.min.0 / 1000.0;
        let end_ms = cx.bounds.max.0 / 1000.0;
        let end_us = end_ms * 1000.0;
        Walk {
            track,
            nodes,
            strings,
            entities,
            start_ms,
            end_ms,
            start_us: start_ms * 1000.0,
            end_us: if end_us == 0.0 || end_us.is_nan() {
                f64::INFINITY
            } else {
                end_us
            },
            call_ids: AHashMap::new(),
            call_of_frame: vec![None; track.js_frames.len()],
            calls_visible: styles::is_visible_type("ProfileCall"),
            group_names: AHashMap::new(),
            group_of_entity: AHashMap::new(),
            rows: indexmap::IndexMap::default(),
            cache_hit: AHashMap::new(),
            visible: AHashMap::new(),
        }
    }

    /// The row key of node `at`: its node id and its entity's name.
    fn key(&mut self, at: usize) -> Result<(NodeId, u32), String> {
        let node = &self.nodes[at];
        let id = match node.kind() {
            NodeKind::Call { frame } => {
                let frame = frame as usize;
                if let Some(call) = self.call_of_frame[frame] {
                    return Ok(call.key);
                }
                let call = js_call_id(&self.track.js_frames[frame].call_frame, self.strings);
                let next = u32::try_from(self.call_ids.len()).unwrap_or(u32::MAX);
                let id = NodeId::Call(*self.call_ids.entry(call).or_insert(next));
                // A call's entity is its frame's.
                let key = (id, self.group(at));
                self.call_of_frame[frame] = Some(CallRow { key, row: None });
                return Ok(key);
            }
            NodeKind::Event { name, event, .. } if is_received_data(name) => {
                let args = event_view_args(self.track, event).copied().unwrap_or_default();
                if !args.has_data {
                    return Err("Cannot read properties of undefined (reading 'requestId')".to_owned());
                }
                NodeId::Request(args.request_id)
            }
            NodeKind::Event { name, .. } => NodeId::Name(name),
        };
        Ok((id, self.group(at)))
    }

    /// The group of node `at`: its entity's interned name.
    fn group(&mut self, at: usize) -> u32 {
        let entity = self.entities.get(self.nodes[at]);
        if let Some(&group) = self.group_of_entity.get(&entity) {
            return group;
        }
        let name = entity.map_or("", |e| e.name(self.strings)).to_owned();
        let next = u32::try_from(self.group_names.len()).unwrap_or(u32::MAX);
        let group = *self.group_names.entry(name).or_insert(next);
        self.group_of_entity.insert(entity, group);
        group
    }

    /// Whether each request's response came from the cache, over the
    /// whole thread.
    fn cache_hits(&mut self) -> Result<(), String> {
        for at in 0..self.nodes.len() {
            if let NodeKind::Event { name, event, .. } = self.nodes[at].kind() {
                if name == names::RESOURCE_RECEIVE_RESPONSE {
                    let key = self.key(at)?;
                    let hit = event_view_args(self.track, event).is_some_and(|a| a.from_cache);
                    self.cache_hit.insert(key, hit);
                }
            }
        }
        Ok(())
    }

    /// DevTools' visible types filter: a console or user timing event by
    /// its category, any other by its name; a JS call is visible.
    fn is_visible(&mut self, at: usize) -> bool {
        let NodeKind::Event { name, cat, .. } = self.nodes[at].kind() else {
            return self.calls_visible;
        };
        let strings = self.strings;
        *self.visible.entry((name, cat)).or_insert_with(|| {
            let cat = strings.resolve(cat);
            if cat.contains("blink.console") {
                styles::is_visible_type("ConsoleTime")
            } else if cat.contains("blink.user_timing") {
                styles::is_visible_type("UserTiming")
            } else {
                styles::is_visible_type(strings.resolve(name))
            }
        })
    }

    /// Where the walk starts: the last node starting by the window's start,
    /// stepped back to a top-level task.
    fn start_index(&self) -> usize {
        let nodes = &self.nodes;
        let mut at = nodes.partition_point(|n| n.ts().0 <= self.start_us) as isize - 1;
        while at > 0 && !self.is_top_level(at as usize) {
            at -= 1;
        }
        at.max(0) as usize
    }

    fn is_top_level(&self, at: usize) -> bool {
        match self.nodes[at].kind() {
            NodeKind::Event { name, cat, .. } => {
                name == names::RUN_TASK
                    && self
                        .strings
                        .resolve(cat)
                        .contains("disabled-by-default-devtools.timeline")
            }
            NodeKind::Call { .. } => false,
        }
    }

    fn end_of(&self, at: usize) -> f64 {
        let n = &self.nodes[at];
        n.ts().0 + n.dur().map_or(0.0, |d| d.0)
    }

    fn run(&mut self) -> Result<(), String> {
        let mut stack: Vec<Open> = Vec::new();
        for at in self.start_index()..self.nodes.len() {
            let node = self.nodes[at];
            let (ts, end) = (node.ts().0, self.end_of(at));
            if end < self.start_us {
                continue;
            }
            if ts > self.end_us {
                break;
            }
            while let Some(top) = stack.last() {
                let top_end = self.end_of(top.node);
                if !(top_end != 0.0 && !top_end.is_nan() && top_end <= ts) {
                    break;
                }
                let open = stack.pop().expect("non-empty");
                self.end(open);
            }
            if !self.is_visible(at) {
                continue;
            }
            let dur = node.dur().map_or(0.0, |d| d.0);
            if dur != 0.0 && !dur.is_nan() {
                let clipped = (end / 1000.0).min(self.end_ms) - (ts / 1000.0).max(self.start_ms);
                if let Some(parent) = stack.last_mut() {
                    parent.self_ms -= clipped;
                }
                let row = self.key(at)?;
                stack.push(Open {
                    node: at,
                    row,
                    self_ms: clipped,
                });
            } else if let NodeKind::Event { name, event, .. } = node.kind() {
                if is_received_data(name) {
                    self.received(at, name, event)?;
                }
            }
        }
        while let Some(open) = stack.pop() {
            self.end(open);
        }
        Ok(())
    }

    /// Ends an entry: its self time goes to its row.
    fn end(&mut self, open: Open) {
        let frame = match self.nodes[open.node].kind() {
            NodeKind::Call { frame } => Some(frame as usize),
            NodeKind::Event { .. } => None,
        };
        let known = frame.and_then(|f| self.call_of_frame[f].and_then(|c| c.row));
        let index = known.unwrap_or_else(|| {
            let group = open.row.1;
            let entry = self.rows.entry(open.row);
            let index = entry.index();
            entry.or_insert(Row {
                made_by: open.node,
                group,
                self_ms: 0.0,
                transfer_size: 0.0,
            });
            if let Some(call) = frame.and_then(|f| self.call_of_frame[f].as_mut()) {
                call.row = Some(index);
            }
            index
        });
        // `|| 0`: a NaN time adds nothing.
        if !open.self_ms.is_nan() {
            self.rows[index].self_ms += open.self_ms;
        }
    }

    /// A received-data instant: its size goes to its row.
    fn received(&mut self, at: usize, name: Sym, event: u32) -> Result<(), String> {
        let key = self.key(at)?;
        let args = event_view_args(self.track, event).copied().unwrap_or_default();
        let size = args.encoded_data_length.unwrap_or(f64::NAN);
        let hit = self.cache_hit.get(&key).copied().unwrap_or(false);
        let row = self.rows.entry(key).or_insert(Row {
            made_by: at,
            group: key.1,
            self_ms: 0.0,
            transfer_size: 0.0,
        });
        if name == names::RESOURCE_RECEIVED_DATA {
            row.transfer_size = if hit { 0.0 } else { row.transfer_size + size };
        } else if name == names::RESOURCE_FINISH && size == 0.0 && hit {
            row.transfer_size = 0.0;
        } else if size > 0.0 {
            row.transfer_size = size;
        }
        Ok(())
    }

    /// The rows kept (some time or some bytes), grouped by entity name in
    /// the order they were made; the rows of no entity left out.
    fn groups(self) -> Vec<EntityGroup> {
        let empty_group = self.group_names.get("").copied();
        let mut groups: Vec<(u32, Option<Entity>, f64, f64)> = Vec::new();
        for row in self.rows.values() {
            if row.self_ms <= 0.0 && row.transfer_size <= 0.0 {
                continue;
            }
            match groups.iter_mut().find(|g| g.0 == row.group) {
                Some(g) => {
                    g.2 += row.self_ms;
                    g.3 += row.transfer_size;
                }
                None => groups.push((
                    row.group,
                    self.entities.get(self.nodes[row.made_by]),
                    row.self_ms,
                    row.transfer_size,
                )),
            }
        }
        groups
            .into_iter()
            .filter(|g| Some(g.0) != empty_group)
            .filter_map(|(_, entity, self_ms, transfer_size)| {
                Some(EntityGroup {
                    entity: entity?,
                    self_ms,
                    transfer_size,
                })
            })
            .collect()
    }
}

fn is_received_data(name: Sym) -> bool {
    matches!(
        name,
        names::RESOURCE_RECEIVED_DATA | names::RESOURCE_FINISH | names::RESOURCE_RECEIVE_RESPONSE
    )
}
