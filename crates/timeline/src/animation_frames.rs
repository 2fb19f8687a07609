//! The AnimationFrames handler (DevTools' `AnimationFramesHandler`): the
//! compositor's animation frames, each `AnimationFrame` begin paired with
//! the end of the same rank on its thread, and the
//! `AnimationFrame::Presentation` of its id.
//!
//! DevTools runs this handler only when its configuration's
//! `enableAnimationsFrameHandler` is set, which it is not by default (nor
//! in the Performance panel): so the handler of an analysis gathers
//! nothing, as DevTools' own, unless made with
//! [`AnimationFramesHandler::turned_on`].

use tracekit_events::dump::{Dump, Object, Synthetic, Value};
use tracekit_events::json::{as_f64, as_str, js_truthy, member};
use tracekit_events::{names, Context, Event, EventIndex, Handler, Id, Micros, Phase, Wants};

use crate::util::{spread_members, time_order};
use crate::Map;

/// The AnimationFrames handler (see the module documentation).
#[derive(Debug, Default)]
pub struct AnimationFramesHandler {
    on: bool,
    starts: Map<(Id, Id), Vec<FrameEvent>>,
    ends: Map<(Id, Id), Vec<FrameEvent>>,
    presentations: Map<String, EventIndex>,
}

#[derive(Debug, Clone)]
struct FrameEvent {
    event: EventIndex,
    ts: Micros,
    dur: Option<Micros>,
    pid: Id,
    tid: Id,
    /// A begin's `args.id`, as JavaScript prints it.
    id: Option<String>,
    /// A begin's text, which DevTools' synthetic frame copies.
    text: Box<str>,
}

/// One animation frame (DevTools' `SyntheticAnimationFrame`).
#[derive(Debug, Clone, PartialEq)]
pub struct AnimationFrame {
    /// Its begin event.
    pub begin: EventIndex,
    /// Its end event.
    pub end: EventIndex,
    /// When it began.
    pub ts: Micros,
    /// From its begin to its end.
    pub dur: Micros,
    /// Its process.
    pub pid: Id,
    /// Its thread.
    pub tid: Id,
    /// Its `AnimationFrame::Presentation` event, if one has its id.
    pub presentation: Option<EventIndex>,
    /// The begin's text, which DevTools' synthetic event copies.
    pub text: Box<str>,
}

/// The animation frames of a trace.
#[derive(Debug, Clone, Default)]
pub struct AnimationFrames {
    /// The frames, thread by thread, by time.
    pub frames: Vec<AnimationFrame>,
}

impl AnimationFramesHandler {
    /// A handler that gathers the frames (DevTools'
    /// `enableAnimationsFrameHandler` set).
    pub fn turned_on() -> Self {
        AnimationFramesHandler {
            on: true,
            ..Default::default()
        }
    }
}

impl Handler for AnimationFramesHandler {
    type Deps<'d> = ();
    type Data = AnimationFrames;

    const WANTS: Wants = Wants::Named(&[names::ANIMATION_FRAME, names::ANIMATION_FRAME_PRESENTATION]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, _cx: &mut Context) {
        if !self.on {
            return;
        }
        let id = event
            .args
            .and_then(|a| member(a, "id"))
            .filter(|i| js_truthy(i))
            .map(|raw| match (as_str(raw), as_f64(raw)) {
                (Some(s), _) => s.into_owned(),
                (None, Some(x)) => tracekit_events::jsnum::js_number_string(x),
                _ => raw.trim().to_owned(),
            });
        let frame = |text: Box<str>| FrameEvent {
            event: index,
            ts: event.ts,
            dur: event.dur,
            pid: event.pid,
            tid: event.tid,
            id: id.clone(),
            text,
        };
        let key = (event.pid, event.tid);
        if event.name == names::ANIMATION_FRAME && event.ph == Phase(b'b') {
            self.starts.entry(key).or_default().push(frame(event.text.into()));
        } else if event.name == names::ANIMATION_FRAME && event.ph == Phase(b'e') {
            self.ends.entry(key).or_default().push(frame(Box::default()));
        } else if event.name == names::ANIMATION_FRAME_PRESENTATION {
            if let Some(id) = id.clone() {
                self.presentations.insert(id, index);
            }
        }
    }

    fn finalize(mut self, (): (), _cx: &mut Context) -> AnimationFrames {
        let mut frames = Vec::new();
        for (key, starts) in &mut self.starts {
            let Some(ends) = self.ends.get_mut(key) else {
                continue;
            };
            starts.sort_by(|a, b| time_order((a.ts, a.dur), (b.ts, b.dur)));
            ends.sort_by(|a, b| time_order((a.ts, a.dur), (b.ts, b.dur)));
            for (start, end) in starts.iter().zip(ends.iter()) {
                frames.push(AnimationFrame {
                    begin: start.event,
                    end: end.event,
                    ts: start.ts,
                    dur: Micros(end.ts.0 - start.ts.0),
                    pid: start.pid,
                    tid: start.tid,
                    presentation: start.id.as_ref().and_then(|id| self.presentations.get(id).copied()),
                    text: start.text.clone(),
                });
            }
        }
        AnimationFrames { frames }
    }
}

impl AnimationFrames {
    /// This data in the data conformance dump (DevTools' map from frame to
    /// presentation is a `WeakMap`, which the dump writes as `{}`).
    pub fn dump(&self, dump: &mut Dump<'_>) -> Value {
        let list = self.frames.iter().map(|f| {
            let mut fields = Object::new();
            for (key, raw) in spread_members(&f.text) {
                if key != "dur" && key != "args" && key != "rawSourceEvent" {
                    fields.push(key, Value::Json(raw.into()));
                }
            }
            let data = Object::new()
                .with("beginEvent", Value::Event(f.begin))
                .with("endEvent", Value::Event(f.end));
            let fields = fields
                .with("rawSourceEvent", Value::Event(f.begin))
                .with("dur", Value::Num(f.dur.0))
                .with("args", Object::new().with("data", data.into()).into());
            let name = member(&f.text, "name")
                .and_then(as_str)
                .map_or_else(String::new, |n| n.into_owned());
            Value::Synthetic(dump.synthetic(Synthetic {
                name: name.into(),
                pid: Value::id(f.pid),
                tid: Value::id(f.tid),
                ts: f.ts.0,
                raw: Some(f.begin),
                profile_call: None,
                fields: Some(fields.into()),
            }))
        });
        Object::new()
            .with("animationFrames", Value::Array(list.collect()))
            .with("presentationForFrame", Object::new().into())
            .into()
    }
}
