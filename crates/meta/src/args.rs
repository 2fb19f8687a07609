//! The few `args` shapes the Meta handler reads, decoded on demand.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use tracekit_events::json::{as_f64, member};
use tracekit_events::{Diagnostics, Event, Id, Interner, Skip, Strings, Sym};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FrameJson<'a> {
    #[serde(borrow)]
    pub frame: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "string_or_none")]
    pub url: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "string_or_none")]
    pub name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub parent: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "number_or_none")]
    pub process_id: Option<f64>,
    #[serde(borrow)]
    pub is_outermost_main_frame: Option<&'a RawValue>,
    #[serde(borrow)]
    pub is_in_primary_main_frame: Option<&'a RawValue>,
}

/// Accepts any value, keeping it only if it is a string.
fn string_or_none<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Cow<'de, str>>, D::Error> {
    let raw: &'de RawValue = Deserialize::deserialize(d)?;
    Ok(serde_json::from_str::<Cow<'de, str>>(raw.get()).ok())
}

/// Accepts any value, keeping it only if it is a number.
fn number_or_none<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let raw: &'de RawValue = Deserialize::deserialize(d)?;
    Ok(serde_json::from_str::<f64>(raw.get()).ok())
}

#[derive(Deserialize)]
struct TracingStartedArgs<'a> {
    #[serde(borrow)]
    data: Option<TracingStartedData<'a>>,
}

#[derive(Deserialize)]
struct TracingStartedData<'a> {
    #[serde(borrow)]
    frames: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize)]
struct DataArgs<'a> {
    #[serde(borrow)]
    data: Option<&'a RawValue>,
}

#[derive(Deserialize)]
pub(crate) struct CommitLoadData<'a> {
    #[serde(borrow)]
    pub frame: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "string_or_none")]
    pub url: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "string_or_none")]
    pub name: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct NameArgs<'a> {
    #[serde(borrow, default, deserialize_with = "string_or_none")]
    name: Option<Cow<'a, str>>,
}

fn decode<'a, T: Deserialize<'a>>(event: &Event<'a>, unreadable: Skip, diag: &mut Diagnostics) -> Option<T> {
    let text = event.args?;
    match serde_json::from_str(text) {
        Ok(v) => Some(v),
        Err(e) => {
            diag.skip(unreadable, || format!("at ts {}: {e}", event.ts.0));
            None
        }
    }
}

/// A frame object: what it says, and its JSON text.
pub(crate) type Frame<'a> = (FrameJson<'a>, &'a RawValue);

fn read_frame<'a>(raw: &'a RawValue) -> Result<Frame<'a>, serde_json::Error> {
    Ok((serde_json::from_str(raw.get())?, raw))
}

/// The frames of a `TracingStartedInBrowser` event; `None` when the event
/// has no `args.data` (old Chrome versions), which DevTools refuses.
/// Counted as unreadable when `diag` is given.
pub(crate) fn tracing_started_frames<'a>(event: &Event<'a>, diag: Option<&mut Diagnostics>) -> Option<Vec<Frame<'a>>> {
    let unreadable = |diag: Option<&mut Diagnostics>, e: serde_json::Error| {
        if let Some(diag) = diag {
            diag.skip(Skip::MetaUnreadableTracingStarted, || {
                format!("at ts {}: {e}", event.ts.0)
            });
        }
    };
    let args: TracingStartedArgs<'a> = match serde_json::from_str(event.args?) {
        Ok(args) => args,
        Err(e) => {
            unreadable(diag, e);
            return None;
        }
    };
    let frames = args.data?.frames.unwrap_or_default();
    match frames.into_iter().map(read_frame).collect() {
        Ok(frames) => Some(frames),
        Err(e) => {
            unreadable(diag, e);
            None
        }
    }
}

/// `args.data` of an event, when present and not `null`.
fn data<'a>(event: &Event<'a>, unreadable: Skip, diag: &mut Diagnostics) -> Option<&'a RawValue> {
    decode::<DataArgs<'a>>(event, unreadable, diag)?.data
}

pub(crate) fn frame_committed<'a>(event: &Event<'a>, diag: &mut Diagnostics) -> Option<Frame<'a>> {
    let raw = data(event, Skip::MetaUnreadableFrameCommitted, diag)?;
    match read_frame(raw) {
        Ok(frame) => Some(frame),
        Err(e) => {
            diag.skip(Skip::MetaUnreadableFrameCommitted, || {
                format!("at ts {}: {e}", event.ts.0)
            });
            None
        }
    }
}

/// `args.data` of a `CommitLoad`, and its JSON text.
pub(crate) fn commit_load<'a>(event: &Event<'a>, diag: &mut Diagnostics) -> Option<(CommitLoadData<'a>, &'a str)> {
    let raw = data(event, Skip::MetaUnreadableCommitLoad, diag)?;
    match serde_json::from_str(raw.get()) {
        Ok(data) => Some((data, raw.get())),
        Err(e) => {
            diag.skip(Skip::MetaUnreadableCommitLoad, || format!("at ts {}: {e}", event.ts.0));
            None
        }
    }
}

/// The frame object DevTools makes of a `CommitLoad`'s `data` (its
/// `frame`, `name` and `url`, and the event's pid as `processId`), as
/// JSON text; a member the event lacks is `null`, as the dump writes
/// JavaScript's `undefined`.
pub(crate) fn commit_load_object(data: &str, pid: Id, strings: &Strings) -> Box<str> {
    let mut out = String::from("{\"processId\":");
    pid.write_json(&mut out, strings);
    for key in ["frame", "name", "url"] {
        out.push_str(",\"");
        out.push_str(key);
        out.push_str("\":");
        out.push_str(member(data, key).unwrap_or("null"));
    }
    out.push('}');
    out.into()
}

/// Whether the DevTools engine throws on this `thread_name` or
/// `process_name` event (`thread` tells which): it reads `args.name`
/// whatever `args` is (and so throws on absent or `null` args), and calls
/// `args.name?.startsWith` on a thread's name (and so throws on a name
/// that is not a string, `null` or absent).
pub(crate) fn name_metadata_breaks_devtools(event: &Event<'_>, thread: bool) -> bool {
    let Some(args) = event.args else {
        return true;
    };
    if !thread {
        return false;
    }
    // JavaScript keeps the last of duplicate keys.
    let name = tracekit_events::json::object_members(args)
        .filter(|(key, _)| key == "name")
        .last();
    name.is_some_and(|(_, value)| {
        let value = value.trim();
        !value.starts_with('"') && value != "null"
    })
}

/// `args.name` of a `thread_name` or `process_name` event, if a string.
pub(crate) fn name_arg(event: &Event<'_>, interner: &mut Interner) -> Option<Sym> {
    let args: NameArgs<'_> = serde_json::from_str(event.args?).ok()?;
    args.name.map(|n| interner.intern(&n))
}

/// The viewport and the device pixel ratio of a
/// `PaintTimingVisualizer::Viewport` event: `args.data.viewport_rect`'s
/// items 0, 1, 2 and 5 (x, y, width, height), and `args.data.dpr`.
pub(crate) fn viewport(event: &Event<'_>) -> Option<(crate::ViewportRect, Option<f64>)> {
    let data = member(event.args?, "data")?;
    let items: Vec<&RawValue> = serde_json::from_str(member(data, "viewport_rect")?).ok()?;
    let at = |i: usize| items.get(i).and_then(|raw| as_f64(raw.get()));
    let rect = crate::ViewportRect {
        x: at(0)?,
        y: at(1)?,
        width: at(2)?,
        height: at(5)?,
    };
    Some((rect, member(data, "dpr").and_then(as_f64)))
}
