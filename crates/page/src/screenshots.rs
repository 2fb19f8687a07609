//! The Screenshots handler (DevTools' `ScreenshotsHandler`): the page's
//! screenshots, from the legacy `Screenshot` snapshot events (those with
//! an `id`, each of which DevTools turns into a synthetic screenshot with
//! a data URI) and from the newer `Screenshot` events with a `source_id`.
//!
//! The images are decoded while loading into one buffer of JPEG bytes,
//! each screenshot its range of it: three quarters of the trace's base64
//! text, in one allocation. The base64 DevTools shows is made again from
//! the bytes when asked (a strict decoding takes only canonical base64, so
//! encoding the bytes gives the very text of the trace back).

use base64::Engine as _;
use tracekit_events::dump::{Dump, Object, Synthetic, Value};
use tracekit_events::json::{as_str, member};
use tracekit_events::{names, Context, Event, EventIndex, Handler, Id, Micros, Phase, Skip, Sym, Wants};

/// The prefix DevTools gives a screenshot's base64 image to make its data
/// URI.
pub const DATA_URI_PREFIX: &str = "data:image/jpg;base64,";

/// The base64 alphabet of the screenshots: RFC 4648's, padded, and
/// strict (no whitespace, no stray bits).
const BASE64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

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
    /// Its image (`args.snapshot`): read with [`Screenshots::jpeg`].
    pub image: ShotImage,
}

/// Where a screenshot's image is.
#[derive(Debug, Clone, PartialEq)]
pub enum ShotImage {
    /// A JPEG: its bytes' range in [`Screenshots::jpeg_bytes`].
    Jpeg(std::ops::Range<usize>),
    /// Not base64 (no picture can be made of it): the text as the trace
    /// has it, kept as DevTools keeps it (as JavaScript prints a value
    /// that is not a string: `undefined` when absent).
    NotBase64(Box<str>),
}

/// What the Screenshots handler found./// What the Screenshots handler found.
#[derive(Debug, Clone, Default)]
pub struct Screenshots {
    /// The legacy screenshots (snapshot events with an `id`), in input
    /// order: DevTools' synthetic screenshots.
    pub legacy: Vec<Screenshot>,
    /// The newer screenshots (with `args.source_id`), in input order.
    pub screenshots: Vec<Screenshot>,
    /// The JPEG bytes of every screenshot, one after the other.
    pub jpeg_bytes: Vec<u8>,
}

/// The Screenshots handler (see the module documentation).
#[derive(Debug, Default)]
pub struct ScreenshotsHandler {
    data: Screenshots,
    /// The screenshots whose image is not base64 (kept, as DevTools keeps
    /// them; no picture can be made of them): how many, and the first.
    not_base64: Option<(usize, EventIndex)>,
}

impl ScreenshotsHandler {
    /// Decodes a base64 image into the JPEG buffer.
    fn decode(&mut self, text: &str) -> ShotImage {
        let bytes = &mut self.data.jpeg_bytes;
        let start = bytes.len();
        match BASE64.decode_vec(text, bytes) {
            Ok(()) => ShotImage::Jpeg(start..bytes.len()),
            Err(_) => {
                bytes.truncate(start);
                ShotImage::NotBase64(text.into())
            }
        }
    }
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
        let image = match event.args.and_then(|a| member(a, "snapshot")) {
            None => ShotImage::NotBase64("undefined".into()),
            Some(raw) => match as_str(raw) {
                Some(text) => self.decode(&text),
                None => ShotImage::NotBase64(raw.into()),
            },
        };
        if matches!(image, ShotImage::NotBase64(_)) {
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
    /// A screenshot's JPEG (`None` for an image that is not base64).
    pub fn jpeg(&self, shot: &Screenshot) -> Option<&[u8]> {
        match &shot.image {
            ShotImage::Jpeg(range) => self.jpeg_bytes.get(range.clone()),
            ShotImage::NotBase64(_) => None,
        }
    }

    /// A screenshot's image as the trace has it: base64, or the text that
    /// is not.
    pub fn image_text(&self, shot: &Screenshot) -> String {
        match &shot.image {
            ShotImage::Jpeg(_) => BASE64.encode(self.jpeg(shot).unwrap_or_default()),
            ShotImage::NotBase64(text) => text.to_string(),
        }
    }

    /// A screenshot's image as a data URI, as DevTools gives it.
    pub fn data_uri(&self, shot: &Screenshot) -> String {
        format!("{DATA_URI_PREFIX}{}", self.image_text(shot))
    }

    /// The data URI as the dump writes it: a long one (the rule is over
    /// 1,000 UTF-16 units) as `$str:LENGTH:SHA1`, its base64 made again a
    /// block at a time, never the whole URI.
    fn data_uri_value(&self, shot: &Screenshot) -> Value {
        let jpeg = match &shot.image {
            ShotImage::Jpeg(_) => self.jpeg(shot).unwrap_or_default(),
            ShotImage::NotBase64(text) => {
                let length = DATA_URI_PREFIX.len() + text.encode_utf16().count();
                return long_string_value(length, [DATA_URI_PREFIX.as_bytes(), text.as_bytes()]);
            }
        };
        let length = DATA_URI_PREFIX.len() + jpeg.len().div_ceil(3) * 4;
        if length <= 1000 {
            return Value::str(self.data_uri(shot));
        }
        let mut sha1 = sha1_smol::Sha1::new();
        sha1.update(DATA_URI_PREFIX.as_bytes());
        // Whole 3-byte groups per block: the blocks' base64 joins up.
        let mut text = String::new();
        for block in jpeg.chunks(3 * 4096) {
            text.clear();
            BASE64.encode_string(block, &mut text);
            sha1.update(text.as_bytes());
        }
        Value::str(format!("$str:{length}:{}", sha1.digest()))
    }

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
                .with("args", Object::new().with("dataUri", self.data_uri_value(shot)).into())
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

/// A string of `length` UTF-16 units made of `parts` as the dump writes
/// it: whole up to 1,000 units, else `$str:LENGTH:SHA1`.
fn long_string_value<const N: usize>(length: usize, parts: [&[u8]; N]) -> Value {
    let text = || parts.iter().map(|p| String::from_utf8_lossy(p)).collect::<String>();
    if length <= 1000 {
        return Value::str(text());
    }
    let mut sha1 = sha1_smol::Sha1::new();
    for part in parts {
        sha1.update(part);
    }
    Value::str(format!("$str:{length}:{}", sha1.digest()))
}

#[cfg(test)]
mod tests;
