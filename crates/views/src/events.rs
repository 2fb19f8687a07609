//! The thread's event list that the views walk (section 1 of the spec):
//! the track's nodes that the panel draws ([`Visibility`]), each with its
//! id, its filters, its Summary category and, with grouping, its group and
//! Call Tree id, stably sorted by start ([`thread_events`]). The Summary
//! chooses its events with the same code, and can walk the same list.

use ahash::AHashMap;
use tracekit_engine::styles::{self, Category};
use tracekit_engine::support::{names, ViewArgs};
use tracekit_engine::{Analysis, CallFrame, NodeKind, Phase, Strings, Sym, ThreadTrack};

use crate::ids::{js_call_id, js_call_label, GroupedIds, Ids};
use crate::js::truthy;

/// An event of the thread list, as the views and the Summary see it: 40
/// bytes, as a thread's list is written once and read once per event, and
/// the main thread of a recording has half a million.
pub(crate) struct Ev {
    /// Start, µs.
    pub(crate) ts: f64,
    /// Start plus duration, µs (the start for an event without one).
    pub(crate) end: f64,
    /// Index into the ids.
    pub(crate) id: u32,
    /// Its id in the Call Tree: `id`, or with grouping `ID/GROUP` when its
    /// group is not empty.
    pub(crate) td_id: u32,
    /// Its group (an index into the group ids; 0 with no grouping).
    pub(crate) group: u32,
    /// A JS call's frame, or a received-data event's args.
    pub(crate) detail: Detail,
    /// Its Summary category.
    pub(crate) category: Category,
    /// [`Ev::LASTS`], [`Ev::TOP_LEVEL`], [`Ev::KEPT`], [`Ev::PASSED_OVER`].
    pub(crate) flags: u8,
}

/// What a few events of the list carry besides.
#[derive(Clone, Copy)]
pub(crate) enum Detail {
    None,
    /// A JS call: its frame (an index into the track's JS frames).
    Frame(u32),
    /// A received-data event: where its name and args are in the list
    /// [`thread_events`] returns beside the events.
    Received(u32),
}

impl Ev {
    /// It has a duration, and a JavaScript-truthy one (not 0 or NaN): it
    /// opens a level.
    const LASTS: u8 = 1;
    /// A top-level task (`RunTask` of category devtools.timeline).
    const TOP_LEVEL: u8 = 2;
    /// Kept by the views' filters (not `RunTask`; a visible type unless
    /// generic).
    const KEPT: u8 = 4;
    /// An async or flow phase, which the Summary's walk passes over.
    const PASSED_OVER: u8 = 8;

    /// An event starting at `ts` (µs) lasting `dur`, of no id or group,
    /// kept, scripting.
    pub(crate) fn new(ts: f64, dur: Option<f64>) -> Ev {
        Ev {
            ts,
            end: ts + dur.unwrap_or(0.0),
            id: 0,
            td_id: 0,
            group: 0,
            detail: Detail::None,
            category: Category::Scripting,
            flags: Ev::KEPT | if dur.is_some_and(truthy) { Ev::LASTS } else { 0 },
        }
    }

    /// This event with `flag` set or cleared.
    fn with(mut self, flag: u8, on: bool) -> Ev {
        if on {
            self.flags |= flag;
        } else {
            self.flags &= !flag;
        }
        self
    }

    /// It has a duration, and a JavaScript-truthy one (not 0 or NaN): it
    /// opens a level.
    pub(crate) fn lasts(&self) -> bool {
        self.flags & Ev::LASTS != 0
    }

    /// A top-level task (`RunTask` of category devtools.timeline): where
    /// the walks may start.
    pub(crate) fn top_level(&self) -> bool {
        self.flags & Ev::TOP_LEVEL != 0
    }

    /// Kept by the views' filters (not `RunTask`; a visible type unless
    /// generic).
    pub(crate) fn kept(&self) -> bool {
        self.flags & Ev::KEPT != 0
    }

    /// An async or flow phase, which the Summary's walk passes over.
    pub(crate) fn passed_over(&self) -> bool {
        self.flags & Ev::PASSED_OVER != 0
    }

    /// This event, with what its type makes of it.
    fn typed(self, ty: &EventType) -> Ev {
        self.for_summary(ty.category, ty.top_level, ty.passed_over)
            .with(Ev::KEPT, ty.kept)
    }

    /// This event, as the Summary's own list has it: of `category`, a
    /// top-level task or not, passed over or not.
    pub(crate) fn for_summary(self, category: Category, top_level: bool, passed_over: bool) -> Ev {
        Ev { category, ..self }
            .with(Ev::TOP_LEVEL, top_level)
            .with(Ev::PASSED_OVER, passed_over)
    }

    pub(crate) fn frame(&self) -> Option<u32> {
        match self.detail {
            Detail::Frame(frame) => Some(frame),
            _ => None,
        }
    }

    pub(crate) fn received(&self) -> Option<u32> {
        match self.detail {
            Detail::Received(at) => Some(at),
            _ => None,
        }
    }
}

const _: () = assert!(std::mem::size_of::<Ev>() == 40);

fn is_received_data(name: Sym) -> bool {
    matches!(
        name,
        names::RESOURCE_RECEIVED_DATA | names::RESOURCE_FINISH | names::RESOURCE_RECEIVE_RESPONSE
    )
}

/// Which trace events of a track the panel hands to its detail views (the
/// Call Tree, Bottom-Up and Summary): its `entryIsVisibleInTimeline`, with
/// the Styles lookups of the names seen so far cached.
pub(crate) struct Visibility<'a> {
    interner: &'a Strings,
    generic: bool,
    visible_type: AHashMap<Sym, bool>,
}

impl<'a> Visibility<'a> {
    pub(crate) fn new(analysis: &'a Analysis) -> Visibility<'a> {
        Visibility {
            interner: analysis.strings(),
            generic: analysis.is_generic(),
            visible_type: AHashMap::new(),
        }
    }

    /// Whether `name` has a Styles entry that is not hidden.
    fn visible_type(&mut self, name: Sym) -> bool {
        let interner = self.interner;
        *self
            .visible_type
            .entry(name)
            .or_insert_with(|| styles::is_visible_type(interner.resolve(name)))
    }

    /// Whether the panel draws the event (everything, in a generic trace).
    /// A JS call is always drawn.
    pub(crate) fn in_timeline(&mut self, name: Sym, cat_text: &str, ph: Phase) -> bool {
        if self.generic {
            return true;
        }
        styles::drawn_without_style(self.interner.resolve(name), cat_text, ph) || self.visible_type(name)
    }
}

/// A top-level task (`RunTask` of category devtools.timeline): where
/// DevTools' walk may start.
pub(crate) fn is_top_level_task(name: Sym, cat_text: &str) -> bool {
    name == names::RUN_TASK && cat_text.contains("disabled-by-default-devtools.timeline")
}

/// An async or flow phase, which the Summary's walk passes over.
pub(crate) fn passed_over(ph: Phase) -> bool {
    styles::is_async_phase(ph) || matches!(ph.0, b's' | b't' | b'f')
}

/// A thread's event list as it is made, sorted by start at the end,
/// stably, as JavaScript's sort by `a.ts - b.ts`: -0 equals 0, and a NaN
/// start (which JavaScript's comparator leaves unordered) goes last, so
/// that the order is total.
pub(crate) struct ByStart {
    events: Vec<Ev>,
    /// The sort key of the last event pushed.
    last: f64,
    /// The events came in order: a thread's nodes come in pre-order, so
    /// most often already sorted, and noting it as they come costs less
    /// than a pass over the list.
    in_order: bool,
}

impl ByStart {
    pub(crate) fn with_capacity(capacity: usize) -> ByStart {
        ByStart {
            events: Vec::with_capacity(capacity),
            last: f64::NEG_INFINITY,
            in_order: true,
        }
    }

    /// The sort key of a start.
    fn key(ts: f64) -> f64 {
        if ts.is_nan() {
            f64::INFINITY
        } else {
            ts + 0.0
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, ev: Ev) {
        let key = ByStart::key(ev.ts);
        self.in_order &= key.total_cmp(&self.last).is_ge();
        self.last = key;
        self.events.push(ev);
    }

    /// The list, sorted.
    pub(crate) fn sorted(self) -> Vec<Ev> {
        let mut events = self.events;
        if !self.in_order {
            events.sort_by(|a, b| ByStart::key(a.ts).total_cmp(&ByStart::key(b.ts)));
        }
        events
    }
}

/// What the views make of the trace events of one type (name, category
/// and phase), worked out at the first event of the type.
#[derive(Clone, Copy)]
struct EventType {
    /// Drawn by the panel ([`Visibility::in_timeline`]); the others are
    /// not in the list.
    in_timeline: bool,
    /// Kept by the filters (not `RunTask`; a visible type unless generic).
    kept: bool,
    /// A top-level task.
    top_level: bool,
    /// Its Summary category.
    category: Category,
    /// An async or flow phase (the Summary's walk passes over it).
    passed_over: bool,
    /// The id of its events, when their args do not change it (then it is
    /// their name).
    plain_id: Option<u32>,
}

impl EventType {
    /// What the views make of the events named `name` of category `cat`
    /// and phase `ph`; interns their name as their id if it is.
    fn new(
        visibility: &mut Visibility,
        ids: &mut Ids,
        name_ids: &mut AHashMap<Sym, u32>,
        (name, cat, ph): (Sym, Sym, Phase),
    ) -> EventType {
        let interner = visibility.interner;
        let generic = visibility.generic;
        let cat_text = interner.resolve(cat);
        let in_timeline = visibility.in_timeline(name, cat_text, ph);
        let kept = name != names::RUN_TASK
            && (generic
                || cat_text == "devtools.extension"
                || if cat_text.contains("blink.console") {
                    styles::is_visible_type("ConsoleTime")
                } else if cat_text.contains("blink.user_timing") {
                    styles::is_visible_type("UserTiming")
                } else {
                    visibility.visible_type(name)
                });
        let args_make_the_id = (name == names::TIME_STAMP && ph == Phase::INSTANT) || is_received_data(name);
        let plain_id = (in_timeline && !args_make_the_id).then(|| name_id(name_ids, ids, interner, name));
        EventType {
            in_timeline,
            kept,
            top_level: is_top_level_task(name, cat_text),
            category: styles::event_category(interner.resolve(name)),
            passed_over: passed_over(ph),
            plain_id,
        }
    }
}

/// The id of a plain event: its name, interned at its first event (and
/// kept per name in `name_ids`).
#[inline]
fn name_id(name_ids: &mut AHashMap<Sym, u32>, ids: &mut Ids, interner: &Strings, name: Sym) -> u32 {
    *name_ids
        .entry(name)
        .or_insert_with(|| ids.intern(interner.resolve(name).to_owned()))
}

/// The id of an event named `name` whose args may make it (`args`, read
/// from the event): `TimeStamp:NAME` for a time stamp with data,
/// `req:REQUEST_ID` for a received-data event, else its name.
#[inline]
fn id_from_args(
    ids: &mut Ids,
    name_ids: &mut AHashMap<Sym, u32>,
    interner: &Strings,
    name: Sym,
    args: Option<ViewArgs>,
) -> u32 {
    if name == names::TIME_STAMP && args.is_some_and(|a| a.has_data) {
        let a = args.unwrap_or_default();
        ids.intern(format!(
            "TimeStamp:{}",
            a.name.map_or("undefined", |n| interner.resolve(n))
        ))
    } else if is_received_data(name) {
        let a = args.unwrap_or_default();
        ids.intern(format!(
            "req:{}",
            a.request_id.map_or("undefined", |n| interner.resolve(n))
        ))
    } else {
        name_id(name_ids, ids, interner, name)
    }
}

/// The ids and group of the JS calls of `frame` (id, Call Tree id,
/// group), worked out at its first call.
fn ids_of_call(
    track: &ThreadTrack,
    interner: &Strings,
    ids: &mut Ids,
    grouped: &mut Option<GroupedIds<'_, '_>>,
    frame: u32,
) -> (u32, u32, u32) {
    let js = track.js_frames.get(frame as usize);
    let (s, label, call_frame) = match js {
        Some(js) => (
            js_call_id(&js.call_frame, interner),
            Some(js_call_label(&js.call_frame, interner)),
            Some(js.call_frame),
        ),
        None => ("f:?".to_owned(), None, None),
    };
    let id = ids.intern_labelled(s, label, call_frame);
    let (td_id, group) = match grouped {
        Some(g) => {
            // A call of no known function: as one without name or script.
            let call_frame = js.map_or(CallFrame::meta(names::EMPTY), |js| js.call_frame);
            let group = g.grouper.of_call(&call_frame);
            (g.call_tree_id(ids, id, group), group)
        }
        None => (id, 0),
    };
    (id, td_id, group)
}

/// The thread's event list (section 1 of the spec) with ids and filters,
/// and with `grouped`, each event's group and Call Tree id; and the args
/// of its received-data events (indexed by [`Ev::received`]).
pub(crate) fn thread_events(
    track: &ThreadTrack,
    visibility: &mut Visibility,
    ids: &mut Ids,
    mut grouped: Option<GroupedIds<'_, '_>>,
) -> (Vec<Ev>, Vec<(Sym, ViewArgs)>) {
    let interner = visibility.interner;
    // The ids and group of each function's JS calls, by frame; a frame
    // past the track's frames is of no known function, and all such
    // frames share the last slot.
    let unknown_frame = track.js_frames.len();
    let mut frame_ids: Vec<Option<(u32, u32, u32)>> = vec![None; unknown_frame + 1];
    // Per name, the id of a plain event (its name, interned at its first
    // event); per type, what the views make of it.
    let mut name_ids: AHashMap<Sym, u32> = AHashMap::new();
    let mut types: AHashMap<(Sym, Sym, Phase), EventType> = AHashMap::new();
    let mut events = ByStart::with_capacity(track.nodes.len());
    let mut received = Vec::new();
    for node in &track.nodes {
        let ts = node.ts().0;
        let dur = node.dur().map(|d| d.0);
        match node.kind() {
            NodeKind::Call { frame } => {
                // A JS call (ProfileCall): visible, a visible type, never a
                // task, scripting in the Summary (as `Ev::new` makes it).
                let slot = &mut frame_ids[(frame as usize).min(unknown_frame)];
                let (id, td_id, group) = match *slot {
                    Some(ids_of_frame) => ids_of_frame,
                    None => {
                        let ids_of_frame = ids_of_call(track, interner, ids, &mut grouped, frame);
                        *slot = Some(ids_of_frame);
                        ids_of_frame
                    }
                };
                events.push(Ev {
                    id,
                    td_id,
                    group,
                    detail: Detail::Frame(frame),
                    ..Ev::new(ts, dur)
                });
            }
            NodeKind::Event { name, cat, ph, event } => {
                let ty = *types
                    .entry((name, cat, ph))
                    .or_insert_with(|| EventType::new(visibility, ids, &mut name_ids, (name, cat, ph)));
                if !ty.in_timeline {
                    continue;
                }
                let (id, args) = match ty.plain_id {
                    Some(id) => (id, None),
                    None => {
                        let args = tracekit_engine::support::event_view_args(track, event).copied();
                        (id_from_args(ids, &mut name_ids, interner, name, args), args)
                    }
                };
                let (td_id, group) = match &mut grouped {
                    Some(g) => {
                        let group_args = if g.grouper.reads_args() {
                            tracekit_engine::support::event_group_args(track, event)
                        } else {
                            None
                        };
                        let group = g.grouper.of_event(name, cat, group_args);
                        (g.call_tree_id(ids, id, group), group)
                    }
                    None => (id, 0),
                };
                let detail = if is_received_data(name) {
                    received.push((name, args.unwrap_or_default()));
                    // One per event of a track, whose nodes are indexed by u32.
                    #[allow(clippy::cast_possible_truncation)]
                    let at = (received.len() - 1) as u32;
                    Detail::Received(at)
                } else {
                    Detail::None
                };
                events.push(
                    Ev {
                        id,
                        td_id,
                        group,
                        detail,
                        ..Ev::new(ts, dur)
                    }
                    .typed(&ty),
                );
            }
        }
    }
    (events.sorted(), received)
}
