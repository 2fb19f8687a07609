//! The PageFrames handler (DevTools' `PageFramesHandler`): the frames of
//! the page as `TracingStartedInBrowser` lists them, each with the URL and
//! name its later `CommitLoad` gives.

use tracekit_events::dump::{Dump, Value};
use tracekit_events::json::{as_str, js_truthy, member, object_members, write_json_string};
use tracekit_events::{names, Context, Event, EventIndex, Handler, Sym, Wants};

use crate::{args, FrameInfo, Map};

/// The PageFrames handler (see the module documentation).
#[derive(Debug, Default)]
pub struct PageFramesHandler {
    data: PageFrames,
}

/// The frames of the page.
#[derive(Debug, Clone, Default)]
pub struct PageFrames {
    /// Each frame by its id (`None`: the frame object gave no string id),
    /// in the order `TracingStartedInBrowser` listed them. Its
    /// [`FrameInfo::object`] is the object DevTools holds: the trace's own,
    /// or, after a `CommitLoad`, a copy with that event's `url` (when
    /// truthy) and `name`.
    pub frames: Map<Option<Sym>, FrameInfo>,
}

impl Handler for PageFramesHandler {
    type Deps<'d> = ();
    type Data = PageFrames;

    const WANTS: Wants = Wants::Named(&[names::TRACING_STARTED_IN_BROWSER, names::COMMIT_LOAD]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, _index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        if event.name == names::TRACING_STARTED_IN_BROWSER {
            // The Meta handler counts the frames it cannot read.
            for (frame, raw) in args::tracing_started_frames(event, None).unwrap_or_default() {
                let info = crate::frame_info(&frame, raw, &mut cx.interner, true);
                self.data.frames.insert(info.frame, info);
            }
            return;
        }
        let Some(data) = event.args.and_then(|a| member(a, "data")).filter(|d| js_truthy(d)) else {
            return;
        };
        let key = match member(data, "frame") {
            None => None,
            Some(raw) => match as_str(raw).and_then(|f| cx.interner.lookup(&f)) {
                Some(sym) => Some(sym),
                None => return,
            },
        };
        let Some(frame) = self.data.frames.get_mut(&key) else {
            return;
        };
        let old = frame.object.as_deref().unwrap_or("{}");
        let url = match member(data, "url").filter(|u| js_truthy(u)) {
            Some(raw) => {
                frame.url = as_str(raw).map(|u| cx.interner.intern(&u));
                raw
            }
            None => member(old, "url").unwrap_or("null"),
        };
        let name = member(data, "name").unwrap_or("null");
        frame.name = as_str(name).map(|n| cx.interner.intern(&n));
        frame.object = Some(with_url_and_name(old, url, name));
    }

    fn finalize(self, (): (), _cx: &mut Context) -> PageFrames {
        self.data
    }
}

/// The JSON object `old` with its `url` and `name` set to these raw
/// values (a copy, as DevTools spreads the frame into a new object).
fn with_url_and_name(old: &str, url: &str, name: &str) -> Box<str> {
    let mut out = String::from("{");
    for (key, value) in object_members(old).filter(|(k, _)| k != "url" && k != "name") {
        write_json_string(&mut out, &key);
        out.push(':');
        out.push_str(value);
        out.push(',');
    }
    out.push_str("\"url\":");
    out.push_str(url);
    out.push_str(",\"name\":");
    out.push_str(name);
    out.push('}');
    out.into()
}

impl PageFrames {
    /// This data in the data conformance dump.
    pub fn dump(&self, _dump: &mut Dump<'_>) -> Value {
        let frames = self
            .frames
            .iter()
            .map(|(id, frame)| (Value::opt(*id, Value::Sym), crate::dump::frame_object(frame)));
        tracekit_events::dump::Object::new()
            .with("frames", Value::Map(frames.collect()))
            .into()
    }
}
