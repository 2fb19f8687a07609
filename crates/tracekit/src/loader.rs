//! Loading: bytes in, tracks out. The input is told apart by content
//! (gzip by its magic bytes; a Chrome trace, a CPU profile or a JS
//! Self-Profiling trace by its JSON), and a Chrome trace is decoded and
//! handed to the handlers block by block as the bytes arrive, so that
//! neither the whole text nor all the events are ever held at once, and
//! gzip is inflated while parsing.

use std::io::{Read, Write};

use tracekit_cpuprofile::{parse_profile_json, self_profiling::parse_self_profile};
use tracekit_events::scan::{self, ArrayEnd};
use tracekit_events::{
    array_end_warning, detect, metadata_after, scan_event_block, Diagnostics, Document, Interner, LoadError,
    Parallelism,
};

use crate::engine::{analyze_profile, Analysis, AnalyzeOptions, TraceHandlers};

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

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Text is decoded in blocks of at least this size (except the last).
const BLOCK: usize = 16 << 20;

/// Within a block, the stretch the handlers take while the next is scanned.
const STRETCH: usize = 4 << 20;

/// Loads one input, fed in pieces of any size:
///
/// ```
/// let mut loader = tracekit::Loader::new(tracekit::AnalyzeOptions::default());
/// loader.push(br#"[{"name":"RunTask","ph":"X","ts":1,"dur":5,"pid":1,"tid":1},"#).unwrap();
/// loader.push(br#"{"name":"Layout","ph":"X","ts":2,"dur":1,"pid":1,"tid":1}]"#).unwrap();
/// let analysis = loader.finish().unwrap();
/// assert_eq!(analysis.event_count, 2);
/// ```
pub struct Loader {
    state: Source,
    gzip: GzipCheck,
}

/// What the loader keeps to judge a gzip stream that does not end well.
#[derive(Default)]
struct GzipCheck {
    /// The last 8 bytes of compressed input: the trailer, if complete.
    tail: [u8; 8],
    compressed: usize,
    /// Bytes came after the end of the gzip stream; they are ignored.
    trailing_from: Option<usize>,
}

impl GzipCheck {
    fn saw(&mut self, bytes: &[u8]) {
        for &b in bytes.iter().rev().take(8).collect::<Vec<_>>().iter().rev() {
            self.tail.copy_within(1.., 0);
            self.tail[7] = *b;
        }
        self.compressed += bytes.len();
    }
}

enum Source {
    /// Fewer than two bytes seen: gzip or not is still unknown.
    Unknown(Vec<u8>, Box<Text>),
    Plain(Box<Text>),
    Gzip(Box<flate2::write::MultiGzDecoder<Text>>),
}

impl Loader {
    pub fn new(options: AnalyzeOptions) -> Self {
        Loader {
            state: Source::Unknown(Vec::new(), Box::new(Text::new(options))),
            gzip: GzipCheck::default(),
        }
    }

    /// Feeds the next bytes of the input (compressed or not).
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), LoadError> {
        if let Source::Unknown(head, text) = &mut self.state {
            head.extend_from_slice(bytes);
            if head.len() < 2 {
                return Ok(());
            }
            let head = std::mem::take(head);
            let text = std::mem::replace(text, Box::new(Text::new(AnalyzeOptions::default())));
            self.state = if head.starts_with(&GZIP_MAGIC) {
                Source::Gzip(Box::new(flate2::write::MultiGzDecoder::new(*text)))
            } else {
                Source::Plain(text)
            };
            return self.push(&head);
        }
        match &mut self.state {
            Source::Plain(text) => text.append(bytes),
            Source::Gzip(decoder) => {
                let _span = tracing::info_span!("decompress+parse").entered();
                if self.gzip.trailing_from.is_some() {
                    return Ok(());
                }
                let at = self.gzip.compressed;
                self.gzip.saw(bytes);
                if let Err(e) = decoder.write_all(bytes) {
                    if let Some(error) = decoder.get_mut().error.take() {
                        return Err(error);
                    }
                    // After a whole stream, bytes that are not another one
                    // (zeros padding a download, say) are left, as gzip -d
                    // leaves them.
                    if decoder.get_ref().total() > 0 && e.to_string().contains("invalid gzip header") {
                        self.gzip.trailing_from = Some(at);
                        return Ok(());
                    }
                    return Err(gzip_error(&e, decoder.get_ref()));
                }
                Ok(())
            }
            Source::Unknown(..) => Ok(()),
        }
    }

    /// Reads the rest of the input from `reader`, calling `progress` with
    /// the number of bytes of each piece read. This is the one place where
    /// the library reads (from the caller's reader): plain text is read
    /// straight into the loader's buffer, without an extra copy.
    pub fn read_from(&mut self, reader: &mut impl Read, mut progress: impl FnMut(usize)) -> Result<(), LoadError> {
        const PIECE: u64 = 8 << 20;
        let io = |e: std::io::Error| LoadError::new(format!("reading the input: {e}"));
        let mut piece = Vec::new();
        loop {
            if let Source::Plain(text) = &mut self.state {
                let before = text.buf.len();
                let n = reader.by_ref().take(PIECE).read_to_end(&mut text.buf).map_err(io)?;
                debug_assert_eq!(text.buf.len(), before + n);
                if n == 0 {
                    return Ok(());
                }
                text.total += n;
                text.maybe_step()?;
                progress(n);
                continue;
            }
            piece.clear();
            let n = reader.by_ref().take(PIECE).read_to_end(&mut piece).map_err(io)?;
            if n == 0 {
                return Ok(());
            }
            self.push(&piece)?;
            progress(n);
        }
    }

    /// Ends the input and builds the tracks.
    pub fn finish(self) -> Result<Analysis, LoadError> {
        let text = match self.state {
            Source::Unknown(head, mut text) => {
                text.append(&head)?;
                *text
            }
            Source::Plain(text) => *text,
            Source::Gzip(mut decoder) => {
                let check = &self.gzip;
                let finished = match check.trailing_from {
                    Some(_) => {
                        decoder
                            .get_mut()
                            .diag
                            .warn("bytes after the end of the gzip stream were ignored");
                        Ok(())
                    }
                    None => decoder.try_finish(),
                };
                if let Err(e) = finished {
                    if let Some(error) = decoder.get_mut().error.take() {
                        return Err(error);
                    }
                    let text = decoder.get_mut();
                    let kept = text.total();
                    if kept == 0 {
                        return Err(LoadError::new(
                            "corrupt gzip stream (after 0 decompressed bytes): cut short before any text",
                        ));
                    }
                    // A whole trailer whose checksum or length disagrees
                    // with the data, or a stream cut before its end.
                    let crc = u32::from_le_bytes(check.tail[..4].try_into().unwrap_or_default());
                    let size = u32::from_le_bytes(check.tail[4..].try_into().unwrap_or_default());
                    if check.compressed >= 18 && (crc == text.crc.clone().finalize() || size == kept as u32) {
                        text.diag.warn(format!(
                            "the gzip stream's checksum does not match its data: kept the {kept} bytes it held"
                        ));
                    } else if e.kind() == std::io::ErrorKind::UnexpectedEof || e.to_string().contains("checksum") {
                        text.diag
                            .warn(format!("the gzip stream is cut short: kept the {kept} bytes it held"));
                    } else {
                        return Err(gzip_error(&e, text));
                    }
                }
                // The decoder gives its writer back only by finishing again,
                // which a cut stream fails: take it out instead.
                std::mem::replace(decoder.get_mut(), Text::new(AnalyzeOptions::default()))
            }
        };
        text.finish()
    }
}

fn gzip_error(e: &std::io::Error, text: &Text) -> LoadError {
    LoadError::new(format!(
        "corrupt gzip stream (after {} decompressed bytes): {e}",
        text.total()
    ))
}

/// Loads a whole input held in memory. A plain text input is decoded in
/// place, without a copy.
pub fn analyze_bytes(bytes: &[u8], options: &AnalyzeOptions) -> Result<Analysis, LoadError> {
    if bytes.starts_with(&GZIP_MAGIC) {
        let mut loader = Loader::new(*options);
        for piece in bytes.chunks(1 << 20) {
            loader.push(piece)?;
        }
        return loader.finish();
    }
    let mut text = Text::new(*options);
    let valid = utf8_prefix(bytes, 0, true, &mut text.diag)?;
    text.total = bytes.len();
    text.advance(valid, true)?;
    text.finish_with(valid)
}

/// Where the decoding of the text stands.
enum Stage {
    /// Only whitespace so far.
    Start,
    /// Inside a top-level object, before any `traceEvents`: `next` is where
    /// the next key starts.
    Object { next: usize },
    /// In the event array: `next` is where the next event starts.
    Events { object_form: bool, next: usize },
    /// After the event array of an object: kept for `metadata`.
    Trailer { after: usize },
    /// A JSON document that is not a stream of events: kept whole.
    Whole,
    /// Nothing more to read.
    Done,
}

/// The text side of the loader. Positions are absolute offsets in the
/// decompressed input; `buf` holds the text from `base` on.
struct Text {
    options: AnalyzeOptions,
    buf: Vec<u8>,
    base: usize,
    total: usize,
    stage: Stage,
    metadata: Option<String>,
    end: Option<ArrayEnd>,
    events: usize,
    handlers: TraceHandlers,
    interner: Interner,
    diag: Diagnostics,
    /// An error met while the gzip decoder was writing to us.
    error: Option<LoadError>,
    /// CRC-32 of the text, to check a gzip trailer.
    crc: crc32fast::Hasher,
    /// Buffer size at which the next step is taken.
    step_at: usize,
}

impl Text {
    fn new(options: AnalyzeOptions) -> Self {
        Text {
            options,
            buf: Vec::new(),
            base: 0,
            total: 0,
            stage: Stage::Start,
            metadata: None,
            end: None,
            events: 0,
            handlers: TraceHandlers::default(),
            interner: Interner::new(),
            diag: Diagnostics::default(),
            error: None,
            crc: crc32fast::Hasher::new(),
            step_at: BLOCK,
        }
    }

    fn total(&self) -> usize {
        self.total
    }

    /// Takes more text, and decodes what it can once enough has come.
    fn append(&mut self, bytes: &[u8]) -> Result<(), LoadError> {
        self.crc.update(bytes);
        self.buf.extend_from_slice(bytes);
        self.total += bytes.len();
        self.maybe_step()
    }

    /// Decodes once enough text has come. When a step can take nothing
    /// (a document that is not a stream of events, or one event larger
    /// than a block), the next waits until the buffer has doubled, so that
    /// the text is scanned a bounded number of times in all.
    fn maybe_step(&mut self) -> Result<(), LoadError> {
        if self.buf.len() < self.step_at {
            return Ok(());
        }
        let before = self.base;
        self.step(false)?;
        self.step_at = if self.base == before { self.buf.len() * 2 } else { BLOCK };
        Ok(())
    }

    /// Decodes what the buffer holds, then drops the text no longer needed.
    fn step(&mut self, at_end: bool) -> Result<(), LoadError> {
        let buf = std::mem::take(&mut self.buf);
        let result = (|| {
            let valid = utf8_prefix(&buf, self.base, at_end, &mut self.diag)?;
            self.advance(valid, at_end)
        })();
        self.buf = buf;
        let keep_from = result?;
        self.buf.drain(..keep_from - self.base);
        self.base = keep_from;
        Ok(())
    }

    /// Runs the stages over `text` (which starts at `self.base`); returns
    /// the absolute offset from which text must be kept.
    fn advance(&mut self, text: &str, at_end: bool) -> Result<usize, LoadError> {
        let base = self.base;
        let b = text.as_bytes();
        let local = |at: usize| at - base;
        loop {
            match self.stage {
                Stage::Start => {
                    let mut i = scan::skip_ws(b, 0);
                    if base == 0 && text.starts_with('\u{feff}') {
                        i = scan::skip_ws(b, 3);
                    }
                    if i >= b.len() {
                        return Ok(base + b.len());
                    }
                    match b[i] {
                        b'[' => {
                            self.stage = Stage::Events {
                                object_form: false,
                                next: base + i + 1,
                            }
                        }
                        b'{' => self.stage = Stage::Object { next: base + i + 1 },
                        c => {
                            return Err(LoadError::at(
                                base + i,
                                format!(
                                    "not a trace or profile: expected '[' or '{{', found {}",
                                    scan::describe_byte(c)
                                ),
                            ))
                        }
                    }
                }
                Stage::Object { next } => match object_key(text, local(next)) {
                    KeyScan::NeedMore if !at_end => return Ok(base),
                    KeyScan::NeedMore | KeyScan::NotATrace => self.stage = Stage::Whole,
                    KeyScan::Key { name, value, end } => {
                        if name == "traceEvents" && b[value] == b'[' {
                            self.stage = Stage::Events {
                                object_form: true,
                                next: base + value + 1,
                            };
                            continue;
                        }
                        if name == "metadata" {
                            self.metadata = Some(text[value..end].to_owned());
                        }
                        self.stage = Stage::Object { next: base + end };
                    }
                },
                Stage::Events { object_form, next } => {
                    if !at_end && b.len() - local(next) < BLOCK {
                        return Ok(next);
                    }
                    let (resume, end) = self.decode_events(text, local(next), at_end);
                    let resume = base + resume;
                    match end {
                        None if at_end => {
                            self.end = Some(ArrayEnd::Truncated { offset: base + b.len() });
                            self.stage = Stage::Done;
                        }
                        None => {
                            self.stage = Stage::Events {
                                object_form,
                                next: resume,
                            };
                            return Ok(resume);
                        }
                        Some(ArrayEnd::Closed { after }) if object_form => {
                            self.end = Some(ArrayEnd::Closed { after });
                            self.stage = Stage::Trailer { after };
                        }
                        Some(end) => {
                            self.end = Some(end);
                            self.stage = Stage::Done;
                        }
                    }
                }
                Stage::Trailer { after } => return Ok(after),
                Stage::Whole => return Ok(base),
                Stage::Done => return Ok(base + b.len()),
            }
        }
    }

    /// Decodes the events of `text` from `start`, in stretches: the
    /// handlers take one stretch while the next is scanned (on another
    /// core). Returns where the scan stopped (in `text`) and how the array
    /// ended, if it did.
    fn decode_events(&mut self, text: &str, start: usize, at_end: bool) -> (usize, Option<ArrayEnd>) {
        let base = self.base;
        let parallelism = self.options.parallelism;
        let (handlers, interner, diag) = (&mut self.handlers, &mut self.interner, &mut self.diag);
        let mut decoded = 0;
        let scan = |from: usize| {
            let limit = if text.len() - from > 2 * STRETCH {
                from + STRETCH
            } else {
                usize::MAX
            };
            let _span = tracing::info_span!("parse").entered();
            (scan_event_block(text, from, limit, at_end, base, parallelism), limit)
        };
        let mut in_flight = Some(scan(start));
        let mut outcome = (start, None);
        while let Some((block, limit)) = in_flight.take() {
            let more = block.end.is_none() && block.resume >= limit;
            outcome = (block.resume, block.end.clone());
            let next_from = more.then_some(block.resume);
            let handle = || {
                let _span = tracing::info_span!("handlers").entered();
                let events = block.into_events(interner, diag);
                handlers.handle(&events, interner, diag);
                events.len()
            };
            let (count, next) = match parallelism {
                Parallelism::Rayon => rayon::join(handle, || next_from.map(scan)),
                Parallelism::Sequential => (handle(), next_from.map(scan)),
            };
            decoded += count;
            in_flight = next;
        }
        self.events += decoded;
        outcome
    }

    fn finish(mut self) -> Result<Analysis, LoadError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.step(true)?;
        let buf = std::mem::take(&mut self.buf);
        // `step` warned already of a character cut by the end of the input.
        let valid = match std::str::from_utf8(&buf) {
            Ok(text) => text.len(),
            Err(e) => e.valid_up_to(),
        };
        let text = std::str::from_utf8(&buf[..valid]).unwrap_or_default();
        self.finish_with(text)
    }

    /// Builds the analysis; `text` is what was kept (from `self.base`).
    fn finish_with(mut self, text: &str) -> Result<Analysis, LoadError> {
        let input_bytes = self.total;
        match self.stage {
            Stage::Start => Err(LoadError::new(if input_bytes == 0 {
                "empty file"
            } else {
                "file holds only whitespace"
            })),
            Stage::Whole => {
                let (kind, profile) = whole_document(text, &mut self.interner, &mut self.diag)?;
                Ok(analyze_profile(kind, profile, self.interner, self.diag, input_bytes))
            }
            Stage::Object { .. } => Err(LoadError::at(
                input_bytes,
                "unexpected end of input inside the top-level object",
            )),
            Stage::Events { .. } | Stage::Trailer { .. } | Stage::Done => {
                let end = self.end.take().unwrap_or(ArrayEnd::Truncated { offset: input_bytes });
                if self.events == 0 {
                    // Nothing could be loaded: not a trace, whatever its start.
                    match &end {
                        ArrayEnd::Damaged { offset, message } => return Err(LoadError::at(*offset, message.clone())),
                        ArrayEnd::Truncated { offset } => {
                            return Err(LoadError::at(*offset, "the trace is truncated before its first event"))
                        }
                        ArrayEnd::Closed { .. } if self.diag.total_skipped() > 0 => {
                            let count = self.diag.total_skipped();
                            let (reason, record) = self
                                .diag
                                .skipped
                                .iter()
                                .next()
                                .map_or(("", ""), |(r, k)| (r.as_str(), k.first_example.as_str()));
                            return Err(LoadError::new(format!(
                                "no event could be read: {count} skipped (first: {reason}: {record})"
                            )));
                        }
                        ArrayEnd::Closed { .. } => {}
                    }
                }
                if let Some(warning) = array_end_warning(&end, self.events) {
                    self.diag.warn(warning);
                }
                if let (Stage::Trailer { after }, None) = (&self.stage, &self.metadata) {
                    let trailer = &text[after - self.base..];
                    self.metadata = metadata_after(trailer, 0, &mut self.diag).map(str::to_owned);
                }
                Ok(self
                    .handlers
                    .finish(self.interner, self.diag, &self.options, self.metadata, input_bytes))
            }
        }
    }
}

impl Write for Text {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        match self.append(bytes) {
            Ok(()) => Ok(bytes.len()),
            Err(e) => {
                self.error = Some(e);
                Err(std::io::Error::other("load error"))
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The valid UTF-8 text at the start of `bytes` (which start at absolute
/// offset `base`): a character cut by the end of the buffer waits for the
/// next bytes, or, at the end of the input, is dropped with a warning.
fn utf8_prefix<'b>(bytes: &'b [u8], base: usize, at_end: bool, diag: &mut Diagnostics) -> Result<&'b str, LoadError> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(e) if e.error_len().is_none() => {
            if at_end {
                diag.warn(format!(
                    "the input ends inside a UTF-8 character at byte {}",
                    base + e.valid_up_to()
                ));
            }
            Ok(std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default())
        }
        Err(e) => Err(LoadError::at(
            base + e.valid_up_to(),
            "invalid UTF-8: not a JSON trace or profile",
        )),
    }
}

enum KeyScan<'a> {
    Key {
        name: std::borrow::Cow<'a, str>,
        value: usize,
        end: usize,
    },
    /// The text ends before the key's value does.
    NeedMore,
    /// The object closed, or is malformed: not a trace.
    NotATrace,
}

/// The key of a top-level object at `i` (or the comma before it).
fn object_key(text: &str, i: usize) -> KeyScan<'_> {
    let b = text.as_bytes();
    let mut i = scan::skip_ws(b, i);
    if i < b.len() && b[i] == b',' {
        i = scan::skip_ws(b, i + 1);
    }
    if i >= b.len() {
        return KeyScan::NeedMore;
    }
    if b[i] != b'"' {
        return KeyScan::NotATrace;
    }
    let Ok((key_end, escaped)) = scan::scan_string(b, i) else {
        return KeyScan::NeedMore;
    };
    let name = if escaped {
        match serde_json::from_str::<String>(&text[i..key_end]) {
            Ok(s) => std::borrow::Cow::Owned(s),
            Err(_) => return KeyScan::NotATrace,
        }
    } else {
        std::borrow::Cow::Borrowed(&text[i + 1..key_end - 1])
    };
    let colon = scan::skip_ws(b, key_end);
    if colon >= b.len() {
        return KeyScan::NeedMore;
    }
    if b[colon] != b':' {
        return KeyScan::NotATrace;
    }
    let value = scan::skip_ws(b, colon + 1);
    if value >= b.len() {
        return KeyScan::NeedMore;
    }
    if name == "traceEvents" && b[value] == b'[' {
        return KeyScan::Key {
            name,
            value,
            end: value,
        };
    }
    match scan::skip_value(b, value) {
        Ok(end) => KeyScan::Key { name, value, end },
        Err(scan::ScanError::UnexpectedEnd { .. }) => KeyScan::NeedMore,
        Err(_) => KeyScan::NotATrace,
    }
}

/// A document that is not a stream of events: a CPU profile or a
/// Self-Profiling trace, or else the error that says what is wrong.
fn whole_document(
    text: &str,
    interner: &mut Interner,
    diag: &mut Diagnostics,
) -> Result<(InputKind, tracekit_cpuprofile::RawProfile), LoadError> {
    let keys = match detect(text)? {
        Document::Object(keys) => keys,
        Document::Trace(_) => return Err(LoadError::new("a trace whose event array could not be read")),
    };
    let has = |k: &str| keys.iter().any(|(key, _)| key == k);
    if let Some((_, range)) = keys.iter().find(|(key, _)| key == "traceEvents") {
        let found = text[range.clone()]
            .chars()
            .next()
            .map_or("nothing".to_owned(), |c| format!("'{c}'"));
        return Err(LoadError::at(
            range.start,
            format!("traceEvents is not an array of events (it starts with {found})"),
        ));
    }
    if has("nodes") || has("head") {
        let profile = parse_profile_json(text, interner).map_err(|e| json_error(text, e, "CPU profile"))?;
        Ok((InputKind::CpuProfile, profile))
    } else if has("frames") && has("stacks") && has("samples") {
        let profile =
            parse_self_profile(text, interner, diag).map_err(|e| json_error(text, e, "JS Self-Profiling trace"))?;
        Ok((InputKind::SelfProfiling, profile))
    } else {
        let found: Vec<&str> = keys.iter().take(5).map(|(k, _)| k.as_ref()).collect();
        Err(LoadError::new(format!(
            "not a trace or profile: a JSON object without traceEvents, nodes or frames/stacks/samples (keys: {})",
            if found.is_empty() {
                "none".to_owned()
            } else {
                found.join(", ")
            }
        )))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn dump(analysis: &Analysis) -> String {
        crate::output::conformance(analysis)
    }

    #[test]
    fn pieces_of_any_size_give_the_same_tracks() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/handwritten");
        for name in [
            "truncate.json",
            "devtools-recording.json",
            "trace-ids.json",
            "truncated.json",
            "node.cpuprofile",
        ] {
            let bytes = std::fs::read(root.join(name)).unwrap();
            let whole = dump(&analyze_bytes(&bytes, &AnalyzeOptions::default()).unwrap());
            for piece in [1, 7, 64] {
                let mut loader = Loader::new(AnalyzeOptions::default());
                for p in bytes.chunks(piece) {
                    loader.push(p).unwrap();
                }
                assert_eq!(dump(&loader.finish().unwrap()), whole, "{name} in pieces of {piece}");
            }
        }
    }

    #[test]
    fn reading_from_a_reader_gives_the_same_tracks() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/handwritten");
        for name in ["devtools-recording.json", "truncated.json", "legacy.cpuprofile"] {
            let bytes = std::fs::read(root.join(name)).unwrap();
            let whole = dump(&analyze_bytes(&bytes, &AnalyzeOptions::default()).unwrap());
            let mut loader = Loader::new(AnalyzeOptions::default());
            let mut read = 0;
            loader
                .read_from(&mut std::io::Cursor::new(&bytes), |n| read += n)
                .unwrap();
            assert_eq!(read, bytes.len());
            assert_eq!(dump(&loader.finish().unwrap()), whole, "{name}");
        }
    }

    #[test]
    fn gzip_is_inflated_while_parsing() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/handwritten");
        let bytes = std::fs::read(root.join("devtools-recording.json")).unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&bytes).unwrap();
        let gz = gz.finish().unwrap();
        let plain = analyze_bytes(&bytes, &AnalyzeOptions::default()).unwrap();
        let zipped = analyze_bytes(&gz, &AnalyzeOptions::default()).unwrap();
        assert_eq!(dump(&plain), dump(&zipped));
        assert_eq!(
            zipped.metadata.as_deref(),
            Some(r#"{"source":"tracekit handwritten fixture"}"#)
        );
        let cut = analyze_bytes(&gz[..gz.len() / 2], &AnalyzeOptions::default()).unwrap();
        assert!(
            cut.diagnostics
                .warnings
                .iter()
                .any(|w| w.contains("gzip stream is cut short")),
            "{:?}",
            cut.diagnostics.warnings
        );
    }
}
