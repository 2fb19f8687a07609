//! The Animations handler (DevTools' `AnimationHandler`): the page's
//! animations, from the `Animation` async events of the
//! `devtools.timeline` category, each begin paired with its end (or its
//! instants) by id.

use tracekit_events::dump::{Dump, Object, Synthetic, Value};
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
                            mine.extend(list.pop().map(|i| i.event));
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
                animations.push(pair(*key, begin, None, found.iter().map(|i| i.event).collect()));
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

fn pair(key: Sym, begin: &AsyncEvent, end: Option<&AsyncEvent>, instants: Vec<EventIndex>) -> Animation {
    let target = end.unwrap_or(begin);
    Animation {
        begin: begin.event,
        end: end.map(|e| e.event),
        instants,
        id: key,
        cat: target.cat,
        ph: target.ph,
        pid: target.pid,
        tid: target.tid,
        ts: begin.ts,
        dur: Micros(target.ts.0 - begin.ts.0),
    }
}

impl Animations {
    /// This data in the data conformance dump.
    pub fn dump(&self, dump: &mut Dump<'_>) -> Value {
        let list = self.animations.iter().map(|a| {
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
            Value::Synthetic(dump.synthetic(Synthetic {
                name: "Animation".into(),
                pid: Value::id(a.pid),
                tid: Value::id(a.tid),
                ts: a.ts.0,
                raw: Some(a.begin),
                profile_call: None,
                fields: Some(fields.into()),
            }))
        });
        Object::new().with("animations", Value::Array(list.collect())).into()
    }
}
