//! From text to events: what kind of document this is, and its events.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use crate::diag::Diagnostics;
use crate::event::{Event, EventJson, Phase};
use crate::scan::{self, describe_byte, split_array, ArrayEnd, ArraySplit};
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

#[derive(Debug)]
pub struct TraceDocument<'a> {
    pub events: ArraySplit,
    /// The raw `metadata` object of the object form, if present.
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
            events: split_array(b, start),
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

fn detect_object(text: &str, open: usize) -> Result<Document<'_>, LoadError> {
    let b = text.as_bytes();
    let mut keys: Vec<(Cow<'_, str>, Range<usize>)> = Vec::new();
    let mut events: Option<ArraySplit> = None;
    let mut i = scan::skip_ws(b, open + 1);
    loop {
        if i >= b.len() {
            break;
        }
        if b[i] == b'}' {
            break;
        }
        if b[i] != b'"' {
            return Err(LoadError::at(
                i,
                format!("expected a key, found {}", describe_byte(b[i])),
            ));
        }
        let key_end = scan::skip_string(b, i).map_err(|e| LoadError::at(e.offset(), e.describe()))?;
        let key: Cow<'_, str> =
            serde_json::from_str(&text[i..key_end]).map_err(|e| LoadError::at(i, format!("invalid key: {e}")))?;
        i = scan::skip_ws(b, key_end);
        if i >= b.len() {
            break;
        }
        if b[i] != b':' {
            return Err(LoadError::at(i, format!("expected ':', found {}", describe_byte(b[i]))));
        }
        i = scan::skip_ws(b, i + 1);
        if key == "traceEvents" && b.get(i) == Some(&b'[') {
            let split = split_array(b, i);
            let after = match split.end {
                ArrayEnd::Closed { after } => Some(after),
                _ => None,
            };
            keys.push((key, i..after.unwrap_or(b.len())));
            events = Some(split);
            match after {
                Some(after) => i = after,
                // The rest of the file is lost with the end of the array.
                None => break,
            }
        } else {
            match scan::skip_value(b, i) {
                Ok(end) => {
                    keys.push((key, i..end));
                    i = end;
                }
                Err(scan::ScanError::UnexpectedEnd { .. }) if events.is_some() => break,
                Err(e) => return Err(LoadError::at(e.offset(), e.describe())),
            }
        }
        i = scan::skip_ws(b, i);
        if i < b.len() && b[i] == b',' {
            i = scan::skip_ws(b, i + 1);
        }
    }
    match events {
        Some(events) => {
            let metadata = keys
                .iter()
                .find(|(k, _)| k == "metadata")
                .map(|(_, r)| &text[r.clone()]);
            Ok(Document::Trace(TraceDocument { events, metadata }))
        }
        None => {
            if i >= b.len() {
                return Err(LoadError::at(
                    b.len(),
                    "unexpected end of input inside the top-level object",
                ));
            }
            Ok(Document::Object(keys))
        }
    }
}

/// Decodes every event of `doc`. Events that cannot be decoded are skipped
/// and counted in `diag`; a truncated or damaged array gives one warning.
pub fn parse_events<'a>(
    text: &'a str,
    doc: &TraceDocument<'a>,
    interner: &mut Interner,
    diag: &mut Diagnostics,
) -> Vec<Event<'a>> {
    let mut events = Vec::with_capacity(doc.events.elements.len());
    for (index, &(start, end)) in doc.events.elements.iter().enumerate() {
        if let Some(event) = parse_event(&text[start..end], index, start, interner, diag) {
            events.push(event);
        }
    }
    match &doc.events.end {
        ArrayEnd::Closed { .. } => {}
        ArrayEnd::Truncated { offset } => diag.warn(format!(
            "the trace is truncated: loading stopped at byte {offset}, after {} complete events",
            doc.events.elements.len()
        )),
        ArrayEnd::Damaged { offset, message } => diag.warn(format!(
            "the trace is damaged: loading stopped at byte {offset} ({message}), after {} complete events",
            doc.events.elements.len()
        )),
    }
    events
}

/// Decodes one event. `index` and `offset` only serve to name it in
/// diagnostics.
pub fn parse_event<'a>(
    json: &'a str,
    index: usize,
    offset: usize,
    interner: &mut Interner,
    diag: &mut Diagnostics,
) -> Option<Event<'a>> {
    let raw: EventJson<'a> = match serde_json::from_str(json) {
        Ok(raw) => raw,
        Err(e) => {
            diag.skip("event: not a valid event object", || {
                format!("event {index} at byte {offset}: {e}")
            });
            return None;
        }
    };
    let Some(name) = raw.name else {
        diag.skip("event: missing name", || format!("event {index} at byte {offset}"));
        diag.diverge("event-without-name", || format!("event {index} at byte {offset}"));
        return None;
    };
    let ph = raw.ph.map(|p| Phase::from_str(&p.0)).unwrap_or(Phase::OTHER);
    if raw.ts.as_ref().is_some_and(|n| n.was_string) || raw.dur.as_ref().is_some_and(|n| n.was_string) {
        diag.diverge("numeric-strings", || {
            format!("event {index} at byte {offset} writes its ts or dur as a string")
        });
    }
    let ts = match raw.ts.map(|n| n.value) {
        Some(ts) => ts,
        None if ph == Phase::METADATA => 0.0,
        None => {
            diag.skip("event: missing ts", || format!("event {index} at byte {offset}"));
            return None;
        }
    };
    Some(Event {
        name: interner.intern(&name.0),
        cat: raw.cat.map(|c| interner.intern(&c.0)).unwrap_or(crate::names::EMPTY),
        ph,
        ts,
        dur: raw.dur.map(|n| n.value),
        pid: raw.pid.map(|p| p.intern(interner)).unwrap_or(crate::Id::Missing),
        tid: raw.tid.map(|t| t.intern(interner)).unwrap_or(crate::Id::Missing),
        id: raw.id.map(|i| i.intern(interner)),
        args: raw.args,
    })
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
        let events = parse_events(text, &doc, &mut interner, &mut diag);
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
        let text = r#"{"metadata":{"a":1},"traceEvents":[{"name":"x","ph":"I","ts":5}]}"#;
        let Document::Trace(doc) = detect(text).unwrap() else {
            panic!()
        };
        assert_eq!(doc.metadata, Some(r#"{"a":1}"#));
        assert_eq!(doc.events.elements.len(), 1);
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
