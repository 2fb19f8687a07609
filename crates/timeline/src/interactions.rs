//! The UserInteractions handler (DevTools' `UserInteractionsHandler`): the
//! page's interactions (clicks, taps, key presses) from the `EventTiming`
//! begin and end pairs Chrome writes for them, each cut into input delay,
//! processing and presentation delay; those nested in another of the same
//! kind left out of a second list; the longest; those over 200 ms; and the
//! `BeginCommitCompositorFrame` and `ParseMetaViewport` events (their frame
//! and, for the former, whether the page was optimized for mobile: what the
//! Viewport insight reads).

use tracekit_events::dump::{Dump, Object, Synthetic, Value};
use tracekit_events::json::{as_f64, as_str, js_truthy, member, member_path};
use tracekit_events::{names, Context, Event, EventIndex, Handler, Id, Micros, Phase, Skip, Sym, Wants};
use tracekit_meta::MetaData;

use crate::stand_in::{Navigation, Navigations};
use crate::util::{js_number, nearest_from_end, time_order};
use crate::Map;

/// An interaction longer than this is slow: 200 ms.
pub const LONG_INTERACTION_THRESHOLD: Micros = Micros(200_000.0);

/// The UserInteractions handler (see the module documentation).
#[derive(Debug, Default)]
pub struct UserInteractionsHandler {
    data: UserInteractions,
    /// The `EventTiming` begins of interactions, and every end, in input
    /// order.
    begins: Vec<Timing>,
    ends: Vec<Timing>,
}

/// An `EventTiming` event as read.
#[derive(Debug)]
struct Timing {
    event: EventIndex,
    ts: Micros,
    dur: Option<Micros>,
    id: Option<Id>,
    pid: Id,
    tid: Id,
    cat: Sym,
    ph: Phase,
    /// For a begin: what the interaction needs of its args.
    begin: Option<BeginArgs>,
}

#[derive(Debug)]
struct BeginArgs {
    kind: Option<Sym>,
    interaction_id: f64,
    time_stamp: f64,
    processing_start: f64,
    processing_end: f64,
    frame: Option<Sym>,
}

/// One interaction (DevTools' `SyntheticInteraction`).
#[derive(Debug, Clone, PartialEq)]
pub struct Interaction {
    /// Its `EventTiming` begin event.
    pub begin: EventIndex,
    /// Its `EventTiming` end event.
    pub end: EventIndex,
    /// The begin's category.
    pub cat: Sym,
    /// The begin's phase.
    pub ph: Phase,
    /// Its process.
    pub pid: Id,
    /// Its thread.
    pub tid: Id,
    /// When the input happened.
    pub ts: Micros,
    /// From the input to the next paint.
    pub dur: Micros,
    /// When its end event happened.
    pub end_ts: Micros,
    /// When the event handlers started, on the trace's clock.
    pub processing_start: Micros,
    /// When they ended.
    pub processing_end: Micros,
    /// From the input to the handlers' start.
    pub input_delay: Micros,
    /// The handlers' time.
    pub main_thread_handling: Micros,
    /// From the handlers' end to the paint.
    pub presentation_delay: Micros,
    /// Its DOM event type (`click`, `keydown`...).
    pub kind: Sym,
    /// Its interaction id.
    pub interaction_id: f64,
    /// Its frame (`None`: the begin named none).
    pub frame: Option<Sym>,
    /// The navigation of that frame it came after, by id.
    pub navigation_id: Option<Sym>,
}

/// The DOM event types of a pointer interaction (DevTools'
/// `categoryOfInteraction` files the others as keyboard or other).
pub const POINTER_EVENT_TYPES: &[&str] = &[
    "pointerdown",
    "touchstart",
    "pointerup",
    "touchend",
    "mousedown",
    "mouseup",
    "click",
];

/// The DOM event types of a keyboard interaction.
pub const KEYBOARD_EVENT_TYPES: &[&str] = &["keydown", "keypress", "keyup"];

/// A `BeginCommitCompositorFrame` or `ParseMetaViewport` event: when, and
/// of which frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameEvent {
    /// The event.
    pub event: EventIndex,
    /// When it happened.
    pub ts: Micros,
    /// How long it lasted (zero when it says none).
    pub dur: Micros,
    /// Its frame (`args.frame` of a commit, `args.data.frame` of a viewport
    /// tag parsed; `None`: not a string).
    pub frame: Option<Sym>,
    /// For a commit: whether its `args.is_mobile_optimized` is truthy (a
    /// page whose viewport suits a phone, so taps are not delayed).
    pub is_mobile_optimized: bool,
    /// For a viewport tag parsed: its `args.data.content` when a string
    /// (what the tag says, which DevTools' AI texts quote).
    pub content: Option<Sym>,
}

/// The interactions of a trace.
#[derive(Debug, Clone, Default)]
pub struct UserInteractions {
    /// The `BeginCommitCompositorFrame` events, in input order.
    pub begin_commit_compositor_frame_events: Vec<FrameEvent>,
    /// The `ParseMetaViewport` events, in input order.
    pub parse_meta_viewport_events: Vec<FrameEvent>,
    /// Every interaction, by time.
    pub interactions: Vec<Interaction>,
    /// The interactions not nested in another of their kind (pointer,
    /// keyboard, other) that ends at the same time, as indexes in
    /// `interactions`, by time.
    pub without_nesting: Vec<usize>,
    /// The longest of those.
    pub longest: Option<usize>,
}

impl UserInteractions {
    /// The interactions longer than [`LONG_INTERACTION_THRESHOLD`], as
    /// indexes in `interactions`.
    pub fn over_threshold(&self) -> impl Iterator<Item = usize> + '_ {
        let slow = |(i, x): (usize, &Interaction)| (x.dur.0 > LONG_INTERACTION_THRESHOLD.0).then_some(i);
        self.interactions.iter().enumerate().filter_map(slow)
    }
}

impl Handler for UserInteractionsHandler {
    type Deps<'d> = &'d MetaData;
    type Data = UserInteractions;

    const WANTS: Wants = Wants::Named(&[
        names::BEGIN_COMMIT_COMPOSITOR_FRAME,
        names::PARSE_META_VIEWPORT,
        names::EVENT_TIMING,
    ]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        if event.name == names::BEGIN_COMMIT_COMPOSITOR_FRAME {
            let frame_event = frame_event(index, event, &["frame"], cx);
            self.data.begin_commit_compositor_frame_events.push(frame_event);
        } else if event.name == names::PARSE_META_VIEWPORT {
            let frame_event = frame_event(index, event, &["data", "frame"], cx);
            self.data.parse_meta_viewport_events.push(frame_event);
        } else if event.name == names::EVENT_TIMING {
            self.timing(index, event, cx);
        }
    }

    fn finalize(self, meta: &MetaData, cx: &mut Context) -> UserInteractions {
        let UserInteractionsHandler { mut data, begins, ends } = self;
        let navigations = Navigations::of(meta);
        let merged = merge_ordered(&begins, &ends);
        let mut open: Map<Option<Id>, Vec<&Timing>> = Map::default();
        for timing in merged {
            if timing.ph == Phase(b'b') {
                open.entry(timing.id).or_default().push(timing);
                continue;
            }
            let Some(begin) = open.get_mut(&timing.id).and_then(Vec::pop) else {
                continue;
            };
            let Some(interaction) = interaction(begin, timing, &navigations.by_frame) else {
                continue;
            };
            data.interactions.push(interaction);
        }
        data.interactions
            .sort_by(|a, b| time_order((a.ts, Some(a.dur)), (b.ts, Some(b.dur))));
        data.without_nesting = remove_nested(&mut data.interactions, cx);
        for &i in &data.without_nesting {
            if data
                .longest
                .is_none_or(|l| data.interactions[l].dur.0 < data.interactions[i].dur.0)
            {
                data.longest = Some(i);
            }
        }
        data
    }
}

impl UserInteractionsHandler {
    fn timing(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let timing = |begin| Timing {
            event: index,
            ts: event.ts,
            dur: event.dur,
            id: event.id,
            pid: event.pid,
            tid: event.tid,
            cat: event.cat,
            ph: event.ph,
            begin,
        };
        if event.ph == Phase(b'e') {
            self.ends.push(timing(None));
            return;
        }
        let args = event.args.unwrap_or("{}");
        let Some(data) = member(args, "data").filter(|d| js_truthy(d)) else {
            return;
        };
        if event.ph != Phase(b'b') {
            return;
        }
        let number = |key: &str| js_number(member(data, key));
        let raw_id = member(data, "interactionId");
        if number("duration") < 1.0 || raw_id.is_none() || number("interactionId") == 0.0 {
            return;
        }
        let kind = member(data, "type");
        let kind_sym = kind.and_then(as_str).map(|s| cx.interner.intern(&s));
        let unreadable_kind = kind.is_some_and(|k| js_truthy(k) && as_str(k).is_none());
        if unreadable_kind || raw_id.is_some_and(|r| js_truthy(r) && as_f64(r).is_none()) {
            cx.diagnostics.skip(Skip::TimelineUnreadableInteraction, || {
                format!("EventTiming (event #{index}) whose type or interactionId is {kind:?}, {raw_id:?}")
            });
            return;
        }
        let frame = [member(args, "frame"), member(data, "frame")]
            .into_iter()
            .flatten()
            .find(|f| f.trim() != "null")
            .and_then(as_str)
            .map(|s| cx.interner.intern(&s));
        self.begins.push(timing(Some(BeginArgs {
            kind: kind_sym,
            interaction_id: number("interactionId"),
            time_stamp: number("timeStamp"),
            processing_start: number("processingStart"),
            processing_end: number("processingEnd"),
            frame,
        })));
    }
}

/// What is kept of a commit or a viewport tag parsed: its frame at `path`
/// in its args.
fn frame_event(index: EventIndex, event: &Event<'_>, path: &[&str], cx: &mut Context) -> FrameEvent {
    let args = event.args.unwrap_or("{}");
    let frame = member_path(args, path).and_then(as_str).map(|s| cx.interner.intern(&s));
    FrameEvent {
        event: index,
        ts: event.ts,
        dur: event.dur.unwrap_or(Micros(0.0)),
        frame,
        is_mobile_optimized: member(args, "is_mobile_optimized").is_some_and(js_truthy),
        content: (member_path(args, &["data", "content"]).and_then(as_str)).map(|s| cx.interner.intern(&s)),
    }
}

/// DevTools' `mergeOrdered` of two lists by its time order (each taken as
/// it is, sorted or not).
fn merge_ordered<'a>(a: &'a [Timing], b: &'a [Timing]) -> Vec<&'a Timing> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(a.len() + b.len());
    while i < a.len() && j < b.len() {
        let order = time_order((a[i].ts, a[i].dur), (b[j].ts, b[j].dur));
        out.push(if order.is_le() { &a[i] } else { &b[j] });
        if order.is_le() {
            i += 1;
        }
        if order.is_ge() {
            j += 1;
        }
    }
    out.extend(&a[i..]);
    out.extend(&b[j..]);
    out
}

/// The interaction of a begin and its end, if the begin has every field
/// it needs (each truthy).
fn interaction(begin: &Timing, end: &Timing, by_frame: &Map<Option<Sym>, Vec<Navigation>>) -> Option<Interaction> {
    let args = begin.begin.as_ref()?;
    let truthy = |x: f64| x != 0.0 && !x.is_nan();
    let kind = args.kind.filter(|&k| k != names::EMPTY)?;
    if !(truthy(args.interaction_id)
        && truthy(args.time_stamp)
        && truthy(args.processing_start)
        && truthy(args.processing_end))
    {
        return None;
    }
    let start = Micros(args.processing_start * 1000.0 - args.time_stamp * 1000.0 + begin.ts.0);
    let end_of_processing = Micros((args.processing_end * 1000.0 - args.time_stamp * 1000.0) + begin.ts.0);
    let navigation_id = args.frame.and_then(|frame| {
        let navs = by_frame.get(&Some(frame))?;
        let i = nearest_from_end(navs.len(), |i| navs[i].ts.0 <= begin.ts.0)?;
        navs[i].navigation_id
    });
    let mut x = Interaction {
        begin: begin.event,
        end: end.event,
        cat: begin.cat,
        ph: begin.ph,
        pid: begin.pid,
        tid: begin.tid,
        ts: begin.ts,
        dur: Micros(end.ts.0 - begin.ts.0),
        end_ts: end.ts,
        processing_start: start,
        processing_end: end_of_processing,
        input_delay: Micros(-1.0),
        main_thread_handling: Micros(-1.0),
        presentation_delay: Micros(-1.0),
        kind,
        interaction_id: args.interaction_id,
        frame: args.frame,
        navigation_id,
    };
    x.write_timespans();
    Some(x)
}

impl Interaction {
    /// Sets the three parts from the processing times (DevTools'
    /// `writeSyntheticTimespans`).
    fn write_timespans(&mut self) {
        self.input_delay = Micros(self.processing_start.0 - self.ts.0);
        self.main_thread_handling = Micros(self.processing_end.0 - self.processing_start.0);
        self.presentation_delay = Micros(self.end_ts.0 - self.processing_end.0);
    }
}

/// The interactions not nested in another of their kind that ends at the
/// same time, by time (DevTools' `removeNestedInteractionsAndSetProcessingTime`):
/// of those that end together, the earliest is kept (of two as early with
/// the same interaction id, the one with the longer processing), and its
/// processing widened to theirs.
fn remove_nested(xs: &mut [Interaction], cx: &mut Context) -> Vec<usize> {
    let pointer: Vec<Sym> = POINTER_EVENT_TYPES.iter().map(|s| cx.interner.intern(s)).collect();
    let keyboard: Vec<Sym> = KEYBOARD_EVENT_TYPES.iter().map(|s| cx.interner.intern(s)).collect();
    let mut by_category: [Map<u64, usize>; 3] = Default::default();
    for i in 0..xs.len() {
        let category = if pointer.contains(&xs[i].kind) {
            0
        } else if keyboard.contains(&xs[i].kind) {
            1
        } else {
            2
        };
        let end = (xs[i].ts.0 + xs[i].dur.0 + 0.0).to_bits();
        let Some(&e) = by_category[category].get(&end) else {
            by_category[category].insert(end, i);
            continue;
        };
        let processing = |x: &Interaction| x.processing_end.0 - x.processing_start.0;
        let earlier = xs[i].ts.0 < xs[e].ts.0;
        let as_early_with_longer_processing = xs[i].ts.0 == xs[e].ts.0
            && xs[i].interaction_id == xs[e].interaction_id
            && processing(&xs[i]) > processing(&xs[e]);
        if earlier || as_early_with_longer_processing {
            by_category[category].insert(end, i);
        }
        if xs[i].processing_start.0 < xs[e].processing_start.0 {
            xs[e].processing_start = xs[i].processing_start;
            xs[e].write_timespans();
        }
        if xs[i].processing_end.0 > xs[e].processing_end.0 {
            xs[e].processing_end = xs[i].processing_end;
            xs[e].write_timespans();
        }
    }
    let mut kept: Vec<usize> = by_category.iter().flat_map(|m| m.values().copied()).collect();
    kept.sort_by(|&a, &b| xs[a].ts.0.total_cmp(&xs[b].ts.0));
    kept
}

impl UserInteractions {
    /// The interaction at `at` in the data conformance dump: one synthetic
    /// event, shared by the handlers that refer to it (the Warnings
    /// handler's long interactions).
    pub fn dump_interaction(&self, at: usize, dump: &mut Dump<'_>) -> Value {
        let x = &self.interactions[at];
        Value::Synthetic(dump.shared("UserInteraction", at as u64, |_| synthetic(x)))
    }

    /// This data in the data conformance dump.
    pub fn dump(&self, dump: &mut Dump<'_>) -> Value {
        let ids: Vec<Value> = (0..self.interactions.len())
            .map(|at| self.dump_interaction(at, dump))
            .collect();
        let pick = |i: usize| ids[i].clone();
        Object::new()
            .with(
                "beginCommitCompositorFrameEvents",
                Value::events(self.begin_commit_compositor_frame_events.iter().map(|e| e.event)),
            )
            .with(
                "parseMetaViewportEvents",
                Value::events(self.parse_meta_viewport_events.iter().map(|e| e.event)),
            )
            .with("interactionEvents", Value::Array(ids.clone()))
            .with(
                "interactionEventsWithNoNesting",
                Value::Array(self.without_nesting.iter().map(|&i| pick(i)).collect()),
            )
            .with("longestInteractionEvent", Value::opt(self.longest, pick))
            .with(
                "interactionsOverThreshold",
                Value::Set(self.over_threshold().map(pick).collect()),
            )
            .into()
    }
}

fn synthetic(x: &Interaction) -> Synthetic {
    let data = Object::new()
        .with("beginEvent", Value::Event(x.begin))
        .with("endEvent", Value::Event(x.end))
        .with("frame", x.frame.map_or(Value::str(""), Value::Sym))
        .with("navigationId", Value::opt(x.navigation_id, Value::Sym));
    let fields = Object::new()
        .with("rawSourceEvent", Value::Event(x.begin))
        .with("cat", Value::Sym(x.cat))
        .with("name", Value::str("EventTiming"))
        .with("pid", Value::id(x.pid))
        .with("tid", Value::id(x.tid))
        .with("ph", Value::str(char::from(x.ph.0).to_string()))
        .with("processingStart", Value::Num(x.processing_start.0))
        .with("processingEnd", Value::Num(x.processing_end.0))
        .with("inputDelay", Value::Num(x.input_delay.0))
        .with("mainThreadHandling", Value::Num(x.main_thread_handling.0))
        .with("presentationDelay", Value::Num(x.presentation_delay.0))
        .with("args", Object::new().with("data", data.into()).into())
        .with("ts", Value::Num(x.ts.0))
        .with("dur", Value::Num(x.dur.0))
        .with("type", Value::Sym(x.kind))
        .with("interactionId", Value::Num(x.interaction_id));
    Synthetic {
        name: "EventTiming".into(),
        pid: Value::id(x.pid),
        tid: Value::id(x.tid),
        ts: x.ts.0,
        raw: Some(x.begin),
        profile_call: None,
        fields: Some(fields.into()),
    }
}
