//! The Animations handler (DevTools' `AnimationHandler`): the page's
//! animations, from the `Animation` async events of the
//! `devtools.timeline` category, each begin paired with its end (or its
//! instants) by id.

use tracekit_events::dump::{Dump, Object, Synthetic, SyntheticId, Value};
use tracekit_events::json::{as_f64, as_str, js_truthy, member};
use tracekit_events::{names, Context, Event, EventIndex, Handler, Id, Micros, Phase, Sym, Wants};

use crate::util::time_order;
use crate::Map;

/// The Animations handler (see the module documentation).
#[derive(Debug, Default)]
pub struct AnimationsHandler {
    events: Vec<AsyncEvent>,
}

/// An `Animation` event as read.
#[derive(Debug, Clone)]
struct AsyncEvent {
    event: EventIndex,
    ts: Micros,
    dur: Option<Micros>,
    pid: Id,
    tid: Id,
    cat: Sym,
    ph: Phase,
    /// `CAT:ID:NAME`, `None` when the event has no id.
    key: Option<Sym>,
    /// Its `args.data.displayName` (a begin's), or its compositing failure
    /// (an instant's).
    args: EventArgs,
}

/// What an animation's begin or instant says in its `args.data`.
#[derive(Debug, Clone, Default)]
struct EventArgs {
    display_name: Option<Box<str>>,
    failure: Option<CompositeFailure>,
}

/// Why an instant of an animation could not run on the compositor: its
/// `args.data.compositeFailed` and `unsupportedProperties`.
#[derive(Debug, Clone, PartialEq)]
pub struct CompositeFailure {
    /// The failure reasons' bit mask, `None` when falsy (no failure).
    pub mask: Option<i32>,
    /// The properties it could not animate there, as JSON (absent: `None`).
    pub unsupported_properties: Option<Box<str>>,
}

/// One animation (DevTools' `SyntheticAnimationPair`).
#[derive(Debug, Clone, PartialEq)]
pub struct Animation {
    /// Its begin event.
    pub begin: EventIndex,
    /// Its end event (`None`: it has only instants).
    pub end: Option<EventIndex>,
    /// Its instant events.
    pub instants: Vec<EventIndex>,
    /// The id that paired them: `CAT:ID:NAME`.
    pub id: Sym,
    /// The category of its end (else of its begin).
    pub cat: Sym,
    /// The phase of its end (else of its begin).
    pub ph: Phase,
    /// Its end's process (else its begin's).
    pub pid: Id,
    /// Its end's thread (else its begin's).
    pub tid: Id,
    /// When it began.
    pub ts: Micros,
    /// From its begin to its end (else its begin: 0).
    pub dur: Micros,
    /// Its begin's `args.data.displayName`, as JSON (absent: `None`).
    pub display_name: Option<Box<str>>,
    /// The compositing failure of each instant, parallel to `instants`.
    pub failures: Vec<CompositeFailure>,
}

/// The animations of a trace.
#[derive(Debug, Clone, Default)]
pub struct Animations {
    /// The animations, by time.
    pub animations: Vec<Animation>,
}

impl Handler for AnimationsHandler {
    type Deps<'d> = ();
    type Data = Animations;

    const WANTS: Wants = Wants::Named(&[names::ANIMATION]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let cat = member(event.text, "cat").and_then(as_str);
        if !cat.as_deref().is_some_and(|c| c.contains("devtools.timeline")) {
            return;
        }
        let key = async_id(event.text).map(|id| {
            cx.interner
                .intern(&format!("{}:{id}:Animation", cat.unwrap_or_default()))
        });
        self.events.push(AsyncEvent {
            event: index,
            ts: event.ts,
            dur: event.dur,
            pid: event.pid,
            tid: event.tid,
            cat: event.cat,
            ph: event.ph,
            key,
            args: read_args(event),
        });
    }

    fn finalize(mut self, (): (), _cx: &mut Context) -> Animations {
        self.events.sort_by(|a, b| time_order((a.ts, a.dur), (b.ts, b.dur)));
        let mut animations: Vec<Animation> = Vec::new();
        let mut begins: Map<Sym, Vec<&AsyncEvent>> = Map::default();
        let mut instants: Map<Sym, Vec<&AsyncEvent>> = Map::default();
        for e in &self.events {
            let Some(key) = e.key else {
                continue;
            };
            match e.ph.0 {
                b'b' => begins.entry(key).or_default().push(e),
                b'n' => instants.entry(key).or_default().push(e),
                b'e' => {
                    let Some(begin) = begins.get_mut(&key).and_then(Vec::pop) else {
                        continue;
                    };
                    let mut mine = Vec::new();
                    if let Some(list) = instants.get_mut(&key) {
                        // DevTools looks at the first instant and takes from the last.
                        while list.first().is_some_and(|i| i.ts.0 >= begin.ts.0) {
                            mine.extend(list.pop());
                        }
                    }
                    animations.push(pair(key, begin, Some(e), mine));
                }
                _ => {}
            }
        }
        for (key, list) in &mut begins {
            let Some(begin) = list.pop() else {
                continue;
            };
            if let Some(found) = instants.get(key).filter(|l| !l.is_empty()) {
                animations.push(pair(*key, begin, None, found.clone()));
            }
        }
        animations.retain(|a| a.dur.0 >= 0.0);
        animations.sort_by(|a, b| time_order((a.ts, Some(a.dur)), (b.ts, Some(b.dur))));
        Animations { animations }
    }
}

/// The id DevTools pairs async events by: `id`, else `id2.global`, else
/// `id2.local`, as JavaScript prints it; `None` when falsy.
fn async_id(text: &str) -> Option<String> {
    let present = |raw: &&str| raw.trim() != "null";
    let id2 = member(text, "id2");
    let raw = member(text, "id")
        .filter(present)
        .or_else(|| id2.and_then(|i| member(i, "global")).filter(present))
        .or_else(|| id2.and_then(|i| member(i, "local")).filter(present))?;
    if !js_truthy(raw) {
        return None;
    }
    match (as_str(raw), as_f64(raw)) {
        (Some(s), _) => Some(s.into_owned()),
        (None, Some(x)) => Some(tracekit_events::jsnum::js_number_string(x)),
        _ => Some(raw.trim().to_owned()),
    }
}

/// What the layout shift culprits read of an event's `args.data`.
fn read_args(event: &Event<'_>) -> EventArgs {
    let data = event.args.and_then(|a| member(a, "data"));
    let get = |key: &str| data.and_then(|d| member(d, key));
    match event.ph.0 {
        b'b' => EventArgs {
            display_name: get("displayName").map(|n| n.trim().into()),
            failure: None,
        },
        b'n' => {
            let mask = get("compositeFailed").filter(|m| js_truthy(m));
            EventArgs {
                display_name: None,
                failure: Some(CompositeFailure {
                    mask: mask.map(|m| to_int32(as_f64(m).unwrap_or(f64::NAN))),
                    unsupported_properties: get("unsupportedProperties").map(|p| p.trim().into()),
                }),
            }
        }
        _ => EventArgs::default(),
    }
}

/// JavaScript's ToInt32, as its bitwise operators convert a number.
fn to_int32(x: f64) -> i32 {
    if !x.is_finite() {
        return 0;
    }
    // In [0, 2^32): exact as a u32, whose bits are the i32's.
    let m = x.trunc().rem_euclid(4_294_967_296.0);
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let bits = m as u32;
    i32::from_ne_bytes(bits.to_ne_bytes())
}

fn pair(key: Sym, begin: &AsyncEvent, end: Option<&AsyncEvent>, instants: Vec<&AsyncEvent>) -> Animation {
    let target = end.unwrap_or(begin);
    let failures = instants
        .iter()
        .map(|i| {
            i.args.failure.clone().unwrap_or(CompositeFailure {
                mask: None,
                unsupported_properties: None,
            })
        })
        .collect();
    Animation {
        begin: begin.event,
        end: end.map(|e| e.event),
        id: key,
        cat: target.cat,
        ph: target.ph,
        pid: target.pid,
        tid: target.tid,
        ts: begin.ts,
        dur: Micros(target.ts.0 - begin.ts.0),
        display_name: begin.args.display_name.clone(),
        instants: instants.iter().map(|i| i.event).collect(),
        failures,
    }
}

impl Animations {
    /// This data in the data conformance dump.
    pub fn dump(&self, dump: &mut Dump<'_>) -> Value {
        let list = (0..self.animations.len()).map(|at| Value::Synthetic(self.dump_animation(at, dump)));
        Object::new().with("animations", Value::Array(list.collect())).into()
    }

    /// The animation at `at` as its synthetic event, registered once.
    pub fn dump_animation(&self, at: usize, dump: &mut Dump<'_>) -> SyntheticId {
        dump.shared("Animation", at as u64, |_| {
            let a = &self.animations[at];
            let data = Object::new()
                .with("beginEvent", Value::Event(a.begin))
                .with("endEvent", Value::opt(a.end, Value::Event))
                .with("instantEvents", Value::events(a.instants.iter().copied()));
            let fields = Object::new()
                .with("rawSourceEvent", Value::Event(a.begin))
                .with("cat", Value::Sym(a.cat))
                .with("ph", Value::str(char::from(a.ph.0).to_string()))
                .with("pid", Value::id(a.pid))
                .with("tid", Value::id(a.tid))
                .with("id", Value::Sym(a.id))
                .with("name", Value::str("Animation"))
                .with("dur", Value::Num(a.dur.0))
                .with("ts", Value::Num(a.ts.0))
                .with("args", Object::new().with("data", data.into()).into());
            Synthetic {
                name: "Animation".into(),
                pid: Value::id(a.pid),
                tid: Value::id(a.tid),
                ts: a.ts.0,
                raw: Some(a.begin),
                profile_call: None,
                fields: Some(fields.into()),
            }
        })
    }
}
