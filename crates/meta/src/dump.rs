//! The Meta handler's data in the data conformance dump, in the shape of
//! DevTools' `MetaHandlerData` (its `config` left out).

use tracekit_events::dump::{Dump, Object, Value};
use tracekit_events::{Id, Micros, Sym};

use crate::{FrameInfo, MetaData, Navigation};

/// DevTools' id for "none": `-1`.
fn id_or_minus_one(id: Option<Id>) -> Value {
    id.map_or(Value::Num(-1.0), Value::id)
}

fn sym(s: Option<Sym>) -> Value {
    Value::opt(s, Value::Sym)
}

/// A string DevTools starts as `''`.
fn sym_or_empty(s: Option<Sym>) -> Value {
    s.map_or(Value::str(""), Value::Sym)
}

/// The frame object (`null` when it was not kept).
pub(crate) fn frame_object(frame: &FrameInfo) -> Value {
    frame.object.as_ref().map_or(Value::Null, |o| Value::Json(o.clone()))
}

fn window(min: Micros, max: Micros) -> Value {
    Object::new()
        .with("min", Value::Num(min.0))
        .with("max", Value::Num(max.0))
        .with("range", Value::Num((max - min).0))
        .into()
}

fn navigations<'a>(list: impl IntoIterator<Item = &'a Navigation>) -> Value {
    Value::events(list.into_iter().map(|n| n.event))
}

impl MetaData {
    /// This data in the data conformance dump.
    pub fn dump(&self, _dump: &mut Dump<'_>) -> Value {
        let nav = &self.navigations;
        let renderers = self.renderer_processes_by_frame.iter().map(|(frame, by_process)| {
            let by_process = by_process.iter().map(|(pid, windows)| {
                let windows = windows.iter().map(|w| {
                    Object::new()
                        .with("frame", frame_object(&w.frame))
                        .with("window", window(w.min, w.max))
                        .into()
                });
                (Value::id(*pid), Value::Array(windows.collect()))
            });
            (sym(*frame), Value::Map(by_process.collect()))
        });
        let frames = self.frame_by_process_id.iter().map(|(pid, frames)| {
            let frames = frames.iter().map(|(id, frame)| (sym(*id), frame_object(frame)));
            (Value::id(*pid), Value::Map(frames.collect()))
        });
        let threads = self.thread_name_events.iter().map(|(pid, threads)| {
            let threads = threads
                .iter()
                .map(|(tid, event)| (Value::id(*tid), Value::Event(*event)));
            (Value::id(*pid), Value::Map(threads.collect()))
        });
        let viewport = self.viewport_rect.map(|r| {
            Object::new()
                .with("x", Value::Num(r.x))
                .with("y", Value::Num(r.y))
                .with("width", Value::Num(r.width))
                .with("height", Value::Num(r.height))
                .into()
        });
        // A main frame found without a URL has DevTools' `undefined` one.
        let main_frame_url = match (self.main_frame_id, self.main_frame_url) {
            (Some(_), None) => Value::Null,
            (_, url) => sym_or_empty(url),
        };
        Object::new()
            .with("traceBounds", window(self.bounds.min, self.bounds.max))
            .with("browserProcessId", id_or_minus_one(self.browser_process_id))
            .with("browserThreadId", id_or_minus_one(self.browser_thread_id))
            .with("gpuProcessId", id_or_minus_one(self.gpu_process_id))
            .with("gpuThreadId", Value::opt(self.gpu_thread_id, Value::id))
            .with("mainFrameId", sym_or_empty(self.main_frame_id))
            .with("mainFrameURL", main_frame_url)
            .with("mainFrameNavigations", navigations(&nav.main_frame))
            .with(
                "navigationsByFrameId",
                Value::Map(
                    nav.by_frame_id
                        .iter()
                        .map(|(f, list)| (sym(*f), navigations(list)))
                        .collect(),
                ),
            )
            .with(
                "navigationsByNavigationId",
                Value::Map(
                    nav.by_navigation_id
                        .iter()
                        .map(|(id, n)| (sym(*id), Value::Event(n.event)))
                        .collect(),
                ),
            )
            .with(
                "finalDisplayUrlByNavigationId",
                Value::Map(
                    nav.final_display_url
                        .iter()
                        .map(|(id, url)| (sym(*id), sym(*url)))
                        .collect(),
                ),
            )
            .with(
                "softNavigationsById",
                Value::Map(
                    nav.soft_by_id
                        .iter()
                        .map(|(id, n)| (Value::id(*id), Value::Event(n.event)))
                        .collect(),
                ),
            )
            .with("frameByProcessId", Value::Map(frames.collect()))
            .with("rendererProcessesByFrame", Value::Map(renderers.collect()))
            .with(
                "topLevelRendererIds",
                Value::Set(self.top_level_renderer_ids.iter().map(|p| Value::id(*p)).collect()),
            )
            .with("threadsInProcess", Value::Map(threads.collect()))
            .with(
                "processNames",
                Value::Map(
                    self.process_name_events
                        .iter()
                        .map(|(pid, event)| (Value::id(*pid), Value::Event(*event)))
                        .collect(),
                ),
            )
            .with("traceIsGeneric", Value::Bool(self.trace_is_generic))
            .with("viewportRect", viewport.unwrap_or(Value::Null))
            .with("devicePixelRatio", Value::opt(self.device_pixel_ratio, Value::Num))
            .into()
    }
}
