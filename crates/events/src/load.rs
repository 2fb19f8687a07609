//! From text to events: what kind of document this is, and its events.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use crate::diag::Diagnostics;
use crate::event::{read_event_object, Event, Phase, RawEvent, ReadError};
use crate::scan::{self, describe_byte, ArrayEnd};
use crate::sym::Interner;

/// A load failure: what is wrong and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// Byte offset in the (decompressed) input, when known.
    pub offset: Option<usize>,
    pub message: String,
}

impl LoadError {
    pub fn at(offset: usize, message: impl Into<String>) -> Self {
        LoadError {
            offset: Some(offset),
            message: message.into(),
        }
    }

    pub fn new(message: impl Into<String>) -> Self {
        LoadError {
            offset: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(offset) => write!(f, "byte {offset}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for LoadError {}

/// The top-level shape of a JSON document.
#[derive(Debug)]
pub enum Document<'a> {
    /// A Chrome trace: a bare array of events, or an object with `traceEvents`.
    Trace(TraceDocument<'a>),
    /// Any other JSON object (a CPU profile, a JS Self-Profiling trace, ...):
    /// its top-level keys, for the caller to tell apart.
    Object(Vec<(Cow<'a, str>, Range<usize>)>),
}

/// Where a trace's events are. The event array itself is scanned by
/// [`parse_events`].
#[derive(Debug)]
pub struct TraceDocument<'a> {
    /// Offset of the `[` of the event array.
    pub events_open: usize,
    /// The trace is an object (`{"traceEvents": [...], ...}`): keys may
    /// follow the array.
    pub object_form: bool,
    /// The raw `metadata` object, if it came before `traceEvents`.
    pub metadata: Option<&'a str>,
}

/// Reads the top-level structure of `text`.
pub fn detect(text: &str) -> Result<Document<'_>, LoadError> {
    let b = text.as_bytes();
    let start = scan::skip_ws(b, 0);
    if start >= b.len() {
        return Err(LoadError::new(if b.is_empty() {
            "empty file".to_owned()
        } else {
            "file holds only whitespace".to_owned()
        }));
    }
    match b[start] {
        b'[' => Ok(Document::Trace(TraceDocument {
            events_open: start,
            object_form: false,
            metadata: None,
        })),
        b'{' => detect_object(text, start),
        c => Err(LoadError::at(
            start,
            format!(
                "not a trace or profile: expected '[' or '{{', found {}",
                describe_byte(c)
            ),
        )),
    }
}

/// One key of an object: its name and where its value is. `i` is at the
/// key's opening quote; returns the offset just past the value.
fn object_entry<'a>(text: &'a str, i: usize) -> Result<(Cow<'a, str>, usize), LoadError> {
    let b = text.as_bytes();
    if b[i] != b'"' {
        return Err(LoadError::at(
            i,
            format!("expected a key, found {}", describe_byte(b[i])),
        ));
    }
    let key_end = scan::skip_string(b, i).map_err(|e| LoadError::at(e.offset(), e.describe()))?;
    let key: Cow<'_, str> =
        serde_json::from_str(&text[i..key_end]).map_err(|e| LoadError::at(i, format!("invalid key: {e}")))?;
    let colon = scan::skip_ws(b, key_end);
    if colon >= b.len() {
        return Err(LoadError::at(b.len(), "unexpected end of input"));
    }
    if b[colon] != b':' {
        return Err(LoadError::at(
            colon,
            format!("expected ':', found {}", describe_byte(b[colon])),
        ));
    }
    Ok((key, scan::skip_ws(b, colon + 1)))
}

fn detect_object(text: &str, open: usize) -> Result<Document<'_>, LoadError> {
    let b = text.as_bytes();
    let mut keys: Vec<(Cow<'_, str>, Range<usize>)> = Vec::new();
    let mut i = scan::skip_ws(b, open + 1);
    while i < b.len() && b[i] != b'}' {
        let (key, value) = object_entry(text, i)?;
        if key == "traceEvents" && b.get(value) == Some(&b'[') {
            let metadata = keys
                .iter()
                .find(|(k, _)| k == "metadata")
                .map(|(_, r)| &text[r.clone()]);
            return Ok(Document::Trace(TraceDocument {
                events_open: value,
                object_form: true,
                metadata,
            }));
        }
        let end = scan::skip_value(b, value).map_err(|e| LoadError::at(e.offset(), e.describe()))?;
        keys.push((key, value..end));
        i = scan::skip_ws(b, end);
        if i < b.len() && b[i] == b',' {
            i = scan::skip_ws(b, i + 1);
        }
    }
    if i >= b.len() {
        return Err(LoadError::at(
            b.len(),
            "unexpected end of input inside the top-level object",
        ));
    }
    Ok(Document::Object(keys))
}

/// How per-chunk work runs. Only [`Parallelism::Rayon`] starts threads
/// (rayon's global pool); the result is the same either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Parallelism {
    #[default]
    Sequential,
    Rayon,
}

/// What one block of an event array held.
pub struct EventBlock<'a> {
    pub events: Vec<Event<'a>>,
    /// Where the scan stopped, in the block's text: the next event (or the
    /// whitespace before it) starts there. The caller keeps the text from
    /// there for the next block.
    pub resume: usize,
    /// How the array ended, if it did in this block. Offsets are absolute.
    pub end: Option<ArrayEnd>,
}

/// What one worker found between two event boundaries.
struct Chunk<'a> {
    start: usize,
    events: Vec<Event<'a>>,
    interner: Interner,
    diag: Diagnostics,
    /// Where the next event starts, when the array did not end here.
    stop: usize,
    end: Option<ArrayEnd>,
}

/// Scans and decodes the events from `start` (an event boundary) until
/// the next event would start at or after `limit`, or the array ends, or
/// the text does. Unless `at_end` (of the whole input), an event is taken
/// only once the separator after it is in the text, so that the next
/// block starts cleanly; `base` is the absolute offset of `text`.
fn scan_chunk(text: &str, start: usize, limit: usize, at_end: bool, base: usize, mut interner: Interner) -> Chunk<'_> {
    let b = text.as_bytes();
    let mut diag = Diagnostics::default();
    let mut pending = Diagnostics::default();
    let mut events = Vec::new();
    let mut i = start;
    let mut stop;
    let end = loop {
        i = scan::skip_ws(b, i);
        stop = i;
        if i >= b.len() {
            break at_end.then_some(ArrayEnd::Truncated { offset: base + b.len() });
        }
        if b[i] == b']' {
            // Also accepts a trailing comma before the bracket.
            break Some(ArrayEnd::Closed { after: base + i + 1 });
        }
        if i >= limit {
            break None;
        }
        let element = i;
        match read_element(text, element, base, &mut interner, &mut pending) {
            Ok((event, after)) => {
                let next = scan::skip_ws(b, after);
                if next >= b.len() && !at_end {
                    // The separator is in the next block: so is this event.
                    break None;
                }
                events.extend(event);
                if !pending.skipped.is_empty() || !pending.divergences.is_empty() {
                    diag.merge(std::mem::take(&mut pending));
                }
                i = next;
                if i >= b.len() {
                    stop = i;
                    break Some(ArrayEnd::Truncated { offset: base + b.len() });
                }
                match b[i] {
                    b',' => i += 1,
                    b']' => break Some(ArrayEnd::Closed { after: base + i + 1 }),
                    c => {
                        break Some(ArrayEnd::Damaged {
                            offset: base + i,
                            message: format!("expected ',' or ']' after an event, found {}", describe_byte(c)),
                        })
                    }
                }
            }
            Err(scan::ScanError::UnexpectedEnd { .. }) => {
                break at_end.then_some(ArrayEnd::Truncated { offset: base + element });
            }
            Err(e) => {
                break Some(ArrayEnd::Damaged {
                    offset: base + e.offset(),
                    message: e.describe(),
                })
            }
        }
    };
    Chunk {
        start,
        events,
        interner,
        diag,
        stop,
        end,
    }
}

/// A likely event boundary at or after `from` and before `to`: an object
/// that follows a comma, preferably at the start of a line (Chrome writes
/// one event per line). It may be wrong (an object in a list inside an
/// event): the merge checks every boundary and rescans where it was.
fn guess_boundary(b: &[u8], from: usize, to: usize) -> Option<usize> {
    let follows_comma = |j: usize| {
        let mut k = j;
        while k > 0 && matches!(b[k - 1], b' ' | b'\t' | b'\n' | b'\r') {
            k -= 1;
        }
        k > 0 && b[k - 1] == b','
    };
    let window = to.min(from.saturating_add(1 << 20));
    let mut at = from;
    while let Some(nl) = memchr::memchr(b'\n', &b[at..window]) {
        let j = scan::skip_ws(b, at + nl);
        if j < to && b[j] == b'{' && follows_comma(j) {
            return Some(j);
        }
        at = at + nl + 1;
    }
    let mut at = from;
    while let Some(k) = memchr::memchr(b'{', &b[at..to]) {
        let j = at + k;
        if follows_comma(j) {
            return Some(j);
        }
        at = j + 1;
    }
    None
}

/// A stretch of an event array, scanned and decoded (possibly on several
/// cores) but not yet stitched: names are still interned per chunk. Making
/// it needs no shared state, so it can run while the handlers take the
/// stretch before it.
pub struct ScannedBlock<'a> {
    chunks: Vec<Chunk<'a>>,
    /// Where the scan stopped in the text: the next event (or the
    /// whitespace before it) starts there.
    pub resume: usize,
    /// How the array ended, if it did in this stretch. Offsets are absolute.
    pub end: Option<ArrayEnd>,
}

/// Scans and decodes the events of an event array found in `text` from
/// `start` (just after the `[`, or where the previous stretch resumed)
/// until the next event would start at or after `limit`, the array ends,
/// or the text does. Events that cannot be decoded are skipped and counted.
/// With [`Parallelism::Rayon`] a large stretch is cut into chunks at guessed
/// event boundaries and decoded on all cores; every guessed boundary is
/// checked against the chunk before it (and the stretch scanned again from
/// there when wrong), so the result is a sequential scan's. `at_end` says
/// the input ends with `text`; `base` is the absolute offset of `text`.
pub fn scan_event_block<'a>(
    text: &'a str,
    start: usize,
    limit: usize,
    at_end: bool,
    base: usize,
    parallelism: Parallelism,
) -> ScannedBlock<'a> {
    let b = text.as_bytes();
    let workers = match parallelism {
        Parallelism::Sequential => 1,
        Parallelism::Rayon => rayon::current_num_threads(),
    };
    let stop_at = limit.min(b.len());
    let len = stop_at.saturating_sub(start);
    let pieces = if workers > 1 && len > (4 << 20) { workers * 4 } else { 1 };
    let mut starts = vec![start];
    for k in 1..pieces {
        let from = start + len * k / pieces;
        let to = start + len * (k + 1) / pieces;
        let after_last = starts.last().map_or(start, |s| s + 1);
        if let Some(s) = guess_boundary(b, from.max(after_last), to) {
            starts.push(s);
        }
    }
    let limits: Vec<usize> = starts.iter().skip(1).copied().chain(std::iter::once(limit)).collect();
    let chunks: Vec<Chunk<'a>> = if starts.len() == 1 {
        vec![scan_chunk(text, start, limit, at_end, base, Interner::new())]
    } else {
        use rayon::prelude::*;
        starts
            .par_iter()
            .zip(limits.par_iter())
            .map(|(&s, &l)| scan_chunk(text, s, l, at_end, base, Interner::new()))
            .collect()
    };

    // A chunk counts only if it starts where the one before stopped;
    // otherwise that stretch is scanned again from there.
    let mut kept = Vec::with_capacity(chunks.len());
    let mut resume = start;
    let mut end: Option<ArrayEnd> = None;
    for (index, chunk) in chunks.into_iter().enumerate() {
        let chunk_limit = limits[index];
        if resume >= chunk_limit {
            // An event of the chunk before ran past this whole chunk.
            continue;
        }
        let chunk = if chunk.start == resume {
            chunk
        } else {
            scan_chunk(text, resume, chunk_limit, at_end, base, Interner::new())
        };
        resume = chunk.stop;
        end = chunk.end.clone();
        let stopped_early = chunk.stop < chunk_limit;
        kept.push(chunk);
        if end.is_some() || stopped_early {
            // The array ended, or the text did (before the limit).
            break;
        }
    }
    ScannedBlock {
        chunks: kept,
        resume,
        end,
    }
}

impl<'a> ScannedBlock<'a> {
    /// The events, in order, with their names interned in `interner`.
    pub fn into_events(self, interner: &mut Interner, diag: &mut Diagnostics) -> Vec<Event<'a>> {
        let total: usize = self.chunks.iter().map(|c| c.events.len()).sum();
        let mut events: Vec<Event<'a>> = Vec::with_capacity(total);
        for chunk in self.chunks {
            let remap: Vec<crate::Sym> = (0..chunk.interner.len() as u32)
                .map(|i| interner.intern(chunk.interner.resolve(crate::Sym(i))))
                .collect();
            let sym = |s: crate::Sym| remap[s.0 as usize];
            let id = |v: crate::Id| match v {
                crate::Id::Str(s) => crate::Id::Str(sym(s)),
                other => other,
            };
            events.extend(chunk.events.into_iter().map(|e| Event {
                name: sym(e.name),
                cat: sym(e.cat),
                pid: id(e.pid),
                tid: id(e.tid),
                id: e.id.map(id),
                sample_trace_id: e.sample_trace_id.map(|t| match t {
                    crate::SampleTraceId::Str(s) => crate::SampleTraceId::Str(sym(s)),
                    other => other,
                }),
                ..e
            }));
            diag.merge(chunk.diag);
        }
        events
    }
}

/// [`scan_event_block`] to the end of `text`, stitched.
pub fn parse_event_block<'a>(
    text: &'a str,
    start: usize,
    at_end: bool,
    base: usize,
    parallelism: Parallelism,
    interner: &mut Interner,
    diag: &mut Diagnostics,
) -> EventBlock<'a> {
    let scanned = scan_event_block(text, start, usize::MAX, at_end, base, parallelism);
    let (resume, end) = (scanned.resume, scanned.end.clone());
    EventBlock {
        events: scanned.into_events(interner, diag),
        resume,
        end,
    }
}

/// All the events of a trace held in one text, and how its array ended.
pub struct ParsedEvents<'a> {
    pub events: Vec<Event<'a>>,
    pub end: ArrayEnd,
    /// The raw `metadata` object of the object form.
    pub metadata: Option<&'a str>,
}

/// Decodes every event of `doc`, whose text is all of `text`; a truncated
/// or damaged array gives one warning.
pub fn parse_events<'a>(
    text: &'a str,
    doc: &TraceDocument<'a>,
    parallelism: Parallelism,
    interner: &mut Interner,
    diag: &mut Diagnostics,
) -> ParsedEvents<'a> {
    let block = parse_event_block(text, doc.events_open + 1, true, 0, parallelism, interner, diag);
    let end = block.end.unwrap_or(ArrayEnd::Truncated { offset: text.len() });
    if let Some(warning) = array_end_warning(&end, block.events.len()) {
        diag.warn(warning);
    }
    let mut metadata = doc.metadata;
    if let (true, None, ArrayEnd::Closed { after }) = (doc.object_form, metadata, &end) {
        metadata = metadata_after(text, *after, diag);
    }
    ParsedEvents {
        events: block.events,
        end,
        metadata,
    }
}

/// The warning for an event array that did not close.
pub fn array_end_warning(end: &ArrayEnd, events: usize) -> Option<String> {
    match end {
        ArrayEnd::Closed { .. } => None,
        ArrayEnd::Truncated { offset } => Some(format!(
            "the trace is truncated: loading stopped at byte {offset}, after {events} events"
        )),
        ArrayEnd::Damaged { offset, message } => Some(format!(
            "the trace is damaged: loading stopped at byte {offset} ({message}), after {events} events"
        )),
    }
}

/// Reads the keys that follow `traceEvents` in the object form, for
/// `metadata`. `after` is just past the event array. Damage there costs no
/// event: it is only a warning.
pub fn metadata_after<'a>(text: &'a str, after: usize, diag: &mut Diagnostics) -> Option<&'a str> {
    let b = text.as_bytes();
    let mut i = scan::skip_ws(b, after);
    let mut metadata = None;
    while i < b.len() && b[i] == b',' {
        i = scan::skip_ws(b, i + 1);
        if i >= b.len() || b[i] == b'}' {
            break;
        }
        let parsed = object_entry(text, i).and_then(|(key, value)| {
            let end = scan::skip_value(b, value).map_err(|e| LoadError::at(e.offset(), e.describe()))?;
            Ok((key, value, end))
        });
        match parsed {
            Ok((key, value, end)) => {
                if key == "metadata" {
                    metadata = Some(&text[value..end]);
                }
                i = scan::skip_ws(b, end);
            }
            Err(e) => {
                diag.warn(format!(
                    "after the events, the trace object is damaged ({e}): its other keys are ignored"
                ));
                return metadata;
            }
        }
    }
    metadata
}

/// Decodes one event from its raw fields. `offset` (where it starts in the
/// input) only serves to name it in diagnostics.
fn finish_event<'a>(
    raw: RawEvent<'a>,
    offset: usize,
    interner: &mut Interner,
    diag: &mut Diagnostics,
) -> Option<Event<'a>> {
    if raw.ts.as_ref().is_some_and(|n| n.was_string) || raw.dur.as_ref().is_some_and(|n| n.was_string) {
        diag.diverge("numeric-strings", || {
            format!("event at byte {offset} writes its ts or dur as a string")
        });
    }
    let Some(name) = raw.name else {
        diag.skip("event: missing name", || format!("event at byte {offset}"));
        diag.diverge("event-without-name", || format!("event at byte {offset}"));
        return None;
    };
    let ph = raw.ph.map(|p| Phase::from_str(&p)).unwrap_or(Phase::OTHER);
    let ts = match raw.ts.map(|n| n.value) {
        Some(ts) => ts,
        None if ph == Phase::METADATA => 0.0,
        None => {
            diag.skip("event: missing ts", || format!("event at byte {offset}"));
            return None;
        }
    };
    Some(Event {
        name: interner.intern(&name),
        cat: raw.cat.map(|c| interner.intern(&c)).unwrap_or(crate::names::EMPTY),
        ph,
        ts,
        dur: raw.dur.map(|n| n.value),
        pid: raw.pid.map(|p| p.intern(interner)).unwrap_or(crate::Id::Missing),
        tid: raw.tid.map(|t| t.intern(interner)).unwrap_or(crate::Id::Missing),
        id: raw.id.map(|i| i.intern(interner)),
        sample_trace_id: match (ph, raw.args) {
            (Phase::BEGIN | Phase::COMPLETE | Phase::INSTANT, Some(args)) => {
                crate::trace_id::sample_trace_id(args, interner)
            }
            _ => None,
        },
        args: raw.args,
    })
}

/// Reads the array element at `start`: an event, or something skipped and
/// counted. Returns the event (if any) and the offset past the element.
fn read_element<'a>(
    text: &'a str,
    start: usize,
    base: usize,
    interner: &mut Interner,
    diag: &mut Diagnostics,
) -> Result<(Option<Event<'a>>, usize), scan::ScanError> {
    let b = text.as_bytes();
    let problem = if b[start] == b'{' {
        match read_event_object(text, start) {
            Ok((raw, end)) => return Ok((finish_event(raw, base + start, interner, diag), end)),
            Err(ReadError::End) => return Err(scan::ScanError::UnexpectedEnd { offset: b.len() }),
            Err(ReadError::Bad { offset, message }) => format!("at byte {}: {message}", base + offset),
        }
    } else {
        "not an object".to_owned()
    };
    let end = scan::skip_value(b, start)?;
    diag.skip("event: not a valid event object", || {
        format!("event at byte {}: {problem}", base + start)
    });
    Ok((None, end))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{names, Id};

    fn load(text: &str) -> (Vec<Event<'_>>, Interner, Diagnostics) {
        let mut interner = Interner::new();
        let mut diag = Diagnostics::default();
        let Document::Trace(doc) = detect(text).unwrap() else {
            panic!("not a trace")
        };
        let events = parse_events(text, &doc, Parallelism::Sequential, &mut interner, &mut diag).events;
        (events, interner, diag)
    }

    #[test]
    fn reads_both_trace_forms() {
        let (events, _, diag) = load(r#"[{"name":"RunTask","ph":"X","ts":1,"dur":2,"pid":1,"tid":"a"}]"#);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].name, names::RUN_TASK);
        assert_eq!(events[0].pid, Id::num(1.0));
        assert!(matches!(events[0].tid, Id::Str(_)));
        assert!(diag.warnings.is_empty());
        for text in [
            r#"{"metadata":{"a":1},"traceEvents":[{"name":"x","ph":"I","ts":5}]}"#,
            r#"{"traceEvents":[{"name":"x","ph":"I","ts":5}],"other":[1,2],"metadata":{"a":1}}"#,
        ] {
            let Document::Trace(doc) = detect(text).unwrap() else {
                panic!()
            };
            let mut interner = Interner::new();
            let mut diag = Diagnostics::default();
            let parsed = parse_events(text, &doc, Parallelism::Sequential, &mut interner, &mut diag);
            assert_eq!(parsed.metadata, Some(r#"{"a":1}"#));
            assert_eq!(parsed.events.len(), 1);
        }
    }

    #[test]
    fn skips_and_counts_bad_events() {
        let (events, _, diag) =
            load(r#"[{"ph":"X","ts":1},{"name":"a","ts":"x"},{"name":"b","ph":"X"},5,{"name":"ok","ph":"M"}]"#);
        assert_eq!(events.len(), 1);
        assert_eq!(diag.skipped["event: missing name"].count, 1);
        assert_eq!(diag.skipped["event: not a valid event object"].count, 2);
        assert_eq!(diag.skipped["event: missing ts"].count, 1);
    }

    #[test]
    fn warns_about_truncation() {
        let (events, _, diag) = load(r#"[{"name":"a","ph":"I","ts":1},{"name":"b","ph":"I","#);
        assert_eq!(events.len(), 1);
        assert_eq!(diag.warnings.len(), 1);
        assert!(diag.warnings[0].contains("byte 30"), "{}", diag.warnings[0]);
    }

    #[test]
    fn parallel_parsing_gives_the_sequential_result() {
        // Lines that look like event boundaries but are not (objects in a
        // list inside an event) must not fool the chunking.
        let mut text = String::from("[\n");
        for i in 0..60_000 {
            if i % 7 == 0 {
                text.push_str(&format!("{{\"name\":\"n{}\",\"ph\":\"X\",\"ts\":{i},\"pid\":\"p{}\",\"args\":{{\"l\":[\n{{\"a\":1}},\n{{\"b\":2}}]}}}},\n", i % 13, i % 3));
            } else {
                text.push_str(&format!(
                    "{{\"name\":\"n{}\",\"ph\":\"X\",\"ts\":{i},\"tid\":{}}},\n",
                    i % 11,
                    i % 5
                ));
            }
        }
        text.push_str("{\"name\":\"last\",\"ts\":1}]");
        let doc = match detect(&text).unwrap() {
            Document::Trace(doc) => doc,
            _ => panic!(),
        };
        let run = |p: Parallelism| {
            let mut interner = Interner::new();
            let mut diag = Diagnostics::default();
            let parsed = parse_events(&text, &doc, p, &mut interner, &mut diag);
            let names: Vec<(String, f64, String)> = parsed
                .events
                .iter()
                .map(|e| {
                    (
                        interner.resolve(e.name).to_owned(),
                        e.ts,
                        format!("{:?}", e.pid.to_js_string(&interner)),
                    )
                })
                .collect();
            (names, parsed.end, diag)
        };
        let sequential = run(Parallelism::Sequential);
        let parallel = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap()
            .install(|| run(Parallelism::Rayon));
        assert_eq!(sequential.0.len(), 60_001);
        assert_eq!(sequential.0, parallel.0);
        assert_eq!(sequential.1, parallel.1);
        assert_eq!(sequential.2, parallel.2);
    }

    #[test]
    fn accepts_a_trailing_comma_and_a_missing_bracket() {
        let (events, _, diag) = load("[{\"name\":\"a\",\"ts\":1},\n{\"name\":\"b\",\"ts\":2},\n");
        assert_eq!(events.len(), 2);
        assert_eq!(diag.warnings.len(), 1);
        let (events, _, diag) = load("[{\"name\":\"a\",\"ts\":1},]");
        assert_eq!(events.len(), 1);
        assert!(diag.warnings.is_empty());
    }

    #[test]
    fn stops_at_damage_and_says_where() {
        let (events, _, diag) = load(r#"[{"name":"a","ts":1}}"#);
        assert_eq!(events.len(), 1);
        assert_eq!(
            diag.warnings,
            vec!["the trace is damaged: loading stopped at byte 20 (expected ',' or ']' after an event, found character '}'), after 1 events"]
        );
    }

    #[test]
    fn deeply_nested_values_load_without_recursion() {
        let depth = 200_000;
        let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let text = format!("[{{\"name\":\"a\",\"ts\":1,\"x\":{nested},\"args\":{nested}}}]");
        let (events, _, diag) = load(&text);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].args.map(str::len), Some(2 * depth));
        assert!(diag.skipped.is_empty());
    }

    #[test]
    fn rejects_what_is_not_a_trace() {
        assert_eq!(detect("").unwrap_err().message, "empty file");
        assert_eq!(detect("  \n").unwrap_err().message, "file holds only whitespace");
        let err = detect("hello").unwrap_err();
        assert_eq!(
            err.to_string(),
            "byte 0: not a trace or profile: expected '[' or '{', found character 'h'"
        );
        assert!(matches!(detect(r#"{"nodes":[]}"#).unwrap(), Document::Object(_)));
        assert_eq!(detect(r#"{"nodes":[1,"#).unwrap_err().offset, Some(12));
    }
}
