//! From bytes to a parsed trace: gzip, text encoding, and which of the
//! supported inputs this is (told by content, never by file name).

use std::borrow::Cow;
use std::io::Read;

use tracekit_cpuprofile::{parse_profile_json, self_profiling::parse_self_profile, RawProfile};
use tracekit_events::{detect, parse_events, Diagnostics, Document, Event, Interner, LoadError, Parallelism};

/// What the input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A Chrome trace (trace event format): an array of events, or an
    /// object with `traceEvents`.
    ChromeTrace,
    /// A V8 CPU profile (`.cpuprofile`, `Profiler.Profile`, legacy `head`).
    CpuProfile,
    /// What the JS Self-Profiling API's `Profiler.stop()` returns.
    SelfProfiling,
}

/// The input as text, after decompression.
pub struct Decoded<'b> {
    pub text: Cow<'b, str>,
    pub gzipped: bool,
    pub diagnostics: Diagnostics,
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Decompresses gzip (told by its magic bytes) and checks the text
/// encoding. A gzip stream cut short keeps what it held, with a warning.
pub fn decode(bytes: &[u8]) -> Result<Decoded<'_>, LoadError> {
    let mut diagnostics = Diagnostics::default();
    let gzipped = bytes.starts_with(&GZIP_MAGIC);
    let raw: Cow<'_, [u8]> = if gzipped {
        let _span = tracing::info_span!("decompress").entered();
        let mut out = Vec::with_capacity(bytes.len().saturating_mul(8));
        let mut decoder = flate2::read::MultiGzDecoder::new(bytes);
        if let Err(e) = decoder.read_to_end(&mut out) {
            if e.kind() == std::io::ErrorKind::UnexpectedEof && !out.is_empty() {
                diagnostics.warn(format!(
                    "the gzip stream is cut short: kept the {} bytes it held",
                    out.len()
                ));
            } else {
                return Err(LoadError::new(format!(
                    "corrupt gzip stream (after {} decompressed bytes): {e}",
                    out.len()
                )));
            }
        }
        Cow::Owned(out)
    } else {
        Cow::Borrowed(bytes)
    };
    let text = match raw {
        Cow::Borrowed(b) => Cow::Borrowed(checked_utf8(b, &mut diagnostics)?),
        Cow::Owned(v) => Cow::Owned(checked_utf8(&v, &mut diagnostics)?.to_owned()),
    };
    let text = match text {
        Cow::Borrowed(s) => Cow::Borrowed(s.strip_prefix('\u{feff}').unwrap_or(s)),
        Cow::Owned(s) => match s.strip_prefix('\u{feff}') {
            Some(rest) => Cow::Owned(rest.to_owned()),
            None => Cow::Owned(s),
        },
    };
    Ok(Decoded {
        text,
        gzipped,
        diagnostics,
    })
}

/// The UTF-8 text of `bytes`: a character cut by the end of the file is
/// dropped (the file is truncated); invalid bytes elsewhere are an error.
fn checked_utf8<'b>(bytes: &'b [u8], diag: &mut Diagnostics) -> Result<&'b str, LoadError> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(e) if e.error_len().is_none() => {
            // Cut inside a multi-byte character: only the end is lost.
            diag.warn(format!(
                "the input ends inside a UTF-8 character at byte {}",
                e.valid_up_to()
            ));
            Ok(std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default())
        }
        Err(e) => Err(LoadError::at(
            e.valid_up_to(),
            "invalid UTF-8: not a JSON trace or profile".to_owned(),
        )),
    }
}

/// A parsed input. Events borrow from the text.
pub struct Trace<'a> {
    pub kind: InputKind,
    pub events: Vec<Event<'a>>,
    /// The raw `metadata` object of a trace in object form.
    pub metadata: Option<&'a str>,
    /// The profile, for a CPU profile or Self-Profiling input.
    pub profile: Option<RawProfile>,
    pub interner: Interner,
    pub diagnostics: Diagnostics,
}

/// Parses decoded text: detects what it is and decodes its events or its
/// profile. With [`Parallelism::Rayon`], events are decoded on all cores.
pub fn parse(text: &str, parallelism: Parallelism) -> Result<Trace<'_>, LoadError> {
    let _span = tracing::info_span!("parse").entered();
    let mut interner = Interner::new();
    let mut diagnostics = Diagnostics::default();
    let document = {
        let _span = tracing::info_span!("scan").entered();
        detect(text)?
    };
    match document {
        Document::Trace(doc) => {
            let parsed = parse_events(text, &doc, parallelism, &mut interner, &mut diagnostics);
            if parsed.events.is_empty() {
                if let tracekit_events::scan::ArrayEnd::Damaged { offset, message } = &parsed.end {
                    return Err(LoadError::at(*offset, message.clone()));
                }
            }
            Ok(Trace {
                kind: InputKind::ChromeTrace,
                events: parsed.events,
                metadata: parsed.metadata,
                profile: None,
                interner,
                diagnostics,
            })
        }
        Document::Object(keys) => {
            let has = |k: &str| keys.iter().any(|(key, _)| key == k);
            let (kind, profile) = if has("nodes") || has("head") {
                let profile =
                    parse_profile_json(text, &mut interner).map_err(|e| json_error(text, e, "CPU profile"))?;
                (InputKind::CpuProfile, profile)
            } else if has("frames") && has("stacks") && has("samples") {
                let profile = parse_self_profile(text, &mut interner, &mut diagnostics)
                    .map_err(|e| json_error(text, e, "JS Self-Profiling trace"))?;
                (InputKind::SelfProfiling, profile)
            } else {
                let found: Vec<&str> = keys.iter().take(5).map(|(k, _)| k.as_ref()).collect();
                return Err(LoadError::new(format!(
                    "not a trace or profile: a JSON object without traceEvents, nodes or frames/stacks/samples (keys: {})",
                    if found.is_empty() { "none".to_owned() } else { found.join(", ") }
                )));
            };
            Ok(Trace {
                kind,
                events: Vec::new(),
                metadata: None,
                profile: Some(profile),
                interner,
                diagnostics,
            })
        }
    }
}

/// A serde error with the byte offset of its line and column.
fn json_error(text: &str, e: serde_json::Error, what: &str) -> LoadError {
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i + 1 == e.line() {
            offset += e.column().saturating_sub(1);
            break;
        }
        offset += line.len();
    }
    let message = e.to_string();
    let message = message.split(" at line ").next().unwrap_or(&message);
    LoadError::at(offset, format!("invalid {what}: {message}"))
}
