//! The Screenshots handler (DevTools' `ScreenshotsHandler`): the page's
//! screenshots, from the legacy `Screenshot` snapshot events (those with
//! an `id`, each of which DevTools turns into a synthetic screenshot with
//! a data URI) and from the newer `Screenshot` events with a `source_id`.

use tracekit_events::dump::{Dump, Object, Synthetic, Value};
use tracekit_events::json::{as_str, member};
use tracekit_events::{names, Context, Event, EventIndex, Handler, Id, Micros, Phase, Skip, Sym, Wants};

/// The prefix DevTools gives a screenshot's base64 image to make its data
/// URI.
pub const DATA_URI_PREFIX: &str = "data:image/jpg;base64,";

/// One screenshot.
#[derive(Debug, Clone, PartialEq)]
pub struct Screenshot {
    /// The `Screenshot` event.
    pub event: EventIndex,
    /// When it was taken.
    pub ts: Micros,
    /// Its process.
    pub pid: Id,
    /// Its thread.
    pub tid: Id,
    /// Its category.
    pub cat: Sym,
    /// Its phase.
    pub ph: Phase,
    /// The image, base64-encoded JPEG (`args.snapshot`; as JavaScript
    /// prints a value that is not a string: `undefined` when absent).
    pub image: Box<str>,
}

impl Screenshot {
    /// The image's data URI, as DevTools gives it.
    pub fn data_uri(&self) -> String {
        let mut uri = String::with_capacity(DATA_URI_PREFIX.len() + self.image.len());
        uri.push_str(DATA_URI_PREFIX);
        uri.push_str(&self.image);
        uri
    }

    /// The data URI as the dump writes it: a long one (the rule is over
    /// 1,000 UTF-16 units) as `$str:LENGTH:SHA1`, computed from the image
    /// without making the URI.
    fn data_uri_value(&self) -> Value {
        let length = DATA_URI_PREFIX.len() + self.image.encode_utf16().count();
        if length <= 1000 {
            return Value::str(self.data_uri());
        }
        let mut sha1 = sha1_smol::Sha1::new();
        sha1.update(DATA_URI_PREFIX.as_bytes());
        sha1.update(self.image.as_bytes());
        Value::str(format!("$str:{length}:{}", sha1.digest()))
    }
}

/// What the Screenshots handler found.
#[derive(Debug, Clone, Default)]
pub struct Screenshots {
    /// The legacy screenshots (snapshot events with an `id`), in input
    /// order: DevTools' synthetic screenshots.
    pub legacy: Vec<Screenshot>,
    /// The newer screenshots (with `args.source_id`), in input order.
    pub screenshots: Vec<Screenshot>,
}

/// The Screenshots handler (see the module documentation).
#[derive(Debug, Default)]
pub struct ScreenshotsHandler {
    data: Screenshots,
    /// The screenshots whose image is not base64 (kept, as DevTools keeps
    /// them; no picture can be made of them): how many, and the first.
    not_base64: Option<(usize, EventIndex)>,
}

/// Whether `text` is base64 (RFC 4648's alphabet, padded to a multiple of
/// 4), as a screenshot's JPEG must be.
fn is_base64(text: &str) -> bool {
    let body = text.trim_end_matches('=');
    text.len().is_multiple_of(4)
        && text.len() - body.len() <= 2
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

impl Handler for ScreenshotsHandler {
    type Deps<'d> = ();
    type Data = Screenshots;

    const WANTS: Wants = Wants::Named(&[names::SCREENSHOT]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let legacy = member(event.text, "id").is_some();
        if !legacy && event.args.and_then(|a| member(a, "source_id")).is_none() {
            return;
        }
        if legacy && event.args.is_none() {
            cx.diagnostics
                .skip(Skip::ScreenshotWithoutArgs, || format!("Screenshot (event #{index})"));
            return;
        }
        let image: Box<str> = match event.args.and_then(|a| member(a, "snapshot")) {
            None => "undefined".into(),
            Some(raw) => match as_str(raw) {
                Some(text) => text.into(),
                None => raw.into(),
            },
        };
        if !is_base64(&image) {
            let (count, _) = self.not_base64.get_or_insert((0, index));
            *count += 1;
        }
        let screenshot = Screenshot {
            event: index,
            ts: event.ts,
            pid: event.pid,
            tid: event.tid,
            cat: event.cat,
            ph: event.ph,
            image,
        };
        if legacy {
            self.data.legacy.push(screenshot);
        } else {
            self.data.screenshots.push(screenshot);
        }
    }

    fn finalize(self, (): (), cx: &mut Context) -> Screenshots {
        if let Some((count, first)) = self.not_base64 {
            cx.diagnostics.warn(format!(
                "{count} screenshot{} whose image is not base64 (kept, as DevTools keeps them; first: event #{first})",
                if count == 1 { "" } else { "s" }
            ));
        }
        self.data
    }
}

impl Screenshots {
    /// The legacy screenshot at `position` of [`Screenshots::legacy`] in
    /// the data conformance dump: one synthetic event, registered once
    /// (`Dump::shared("Screenshot", event index)`) for every handler that
    /// refers to it.
    pub fn dump_legacy(&self, position: usize, dump: &mut Dump<'_>) -> Value {
        let Some(shot) = self.legacy.get(position) else {
            return Value::Null;
        };
        let id = dump.shared("Screenshot", u64::from(shot.event), |_| {
            let mut fields = Object::new()
                .with("args", Object::new().with("dataUri", shot.data_uri_value()).into())
                .with("cat", Value::Sym(shot.cat))
                .with("name", Value::str("Screenshot"))
                .with("pid", Value::id(shot.pid))
                .with("rawSourceEvent", Value::Event(shot.event))
                .with("tid", Value::id(shot.tid))
                .with("ts", Value::Num(shot.ts.0));
            if shot.ph != Phase::OTHER {
                fields.push("ph", Value::str(char::from(shot.ph.0).to_string()));
            }
            Synthetic {
                name: "Screenshot".into(),
                pid: Value::id(shot.pid),
                tid: Value::id(shot.tid),
                ts: shot.ts.0,
                raw: Some(shot.event),
                profile_call: None,
                fields: Some(fields.into()),
            }
        });
        Value::Synthetic(id)
    }

    /// This data in the data conformance dump (`null` for an empty list,
    /// as DevTools gives it).
    pub fn dump(&self, dump: &mut Dump<'_>) -> Value {
        let legacy = if self.legacy.is_empty() {
            Value::Null
        } else {
            Value::Array((0..self.legacy.len()).map(|i| self.dump_legacy(i, dump)).collect())
        };
        let screenshots = if self.screenshots.is_empty() {
            Value::Null
        } else {
            Value::events(self.screenshots.iter().map(|s| s.event))
        };
        Object::new()
            .with("legacySyntheticScreenshots", legacy)
            .with("screenshots", screenshots)
            .into()
    }
}

#[cfg(test)]
mod tests;
