//! The typed, borrowed trace event, and the one-pass reader of an event
//! object that makes it.

use std::borrow::Cow;

use crate::scan::{self, ScanError};

use crate::jsnum::write_js_number;
use crate::sym::{Interner, Strings, Sym};
use crate::units::Micros;

/// The `ph` field of a trace event: one ASCII character (the byte as
/// written; any single-byte `ph` is kept, not only the ones named here).
///
/// ```
/// # use tracekit_events::Phase;
/// assert_eq!(Phase::from_str("X"), Phase::COMPLETE);
/// assert_eq!(char::from(Phase::INSTANT.0), 'I');
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Phase(pub u8);

impl Phase {
    /// `B`: the beginning of a duration event, closed by an [`Phase::END`]
    /// on the same thread.
    pub const BEGIN: Phase = Phase(b'B');
    /// `E`: the end of the duration event last begun on the thread.
    pub const END: Phase = Phase(b'E');
    /// `X`: a complete event, its duration in `dur`.
    pub const COMPLETE: Phase = Phase(b'X');
    /// `I`: an instant event (no duration).
    pub const INSTANT: Phase = Phase(b'I');
    /// `P`: a sample event (`Profile` and `ProfileChunk` are written so).
    pub const SAMPLE: Phase = Phase(b'P');
    /// `M`: a metadata event (`thread_name`, `process_name`, ...), which
    /// may have no `ts`.
    pub const METADATA: Phase = Phase(b'M');
    /// A missing `ph`, or one that is not a single character.
    pub const OTHER: Phase = Phase(0);

    /// The phase a `ph` string names: its byte if it is one byte long,
    /// else [`Phase::OTHER`]. Infallible, hence not [`std::str::FromStr`].
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(s: &str) -> Phase {
        match s.as_bytes() {
            [c] => Phase(*c),
            _ => Phase::OTHER,
        }
    }
}

/// A process, thread or event id as the trace spells it: a number, a
/// string, or nothing. It compares with the numbers the trace and the
/// outputs print:
///
/// ```
/// # use tracekit_events::Id;
/// let pid = Id::num(19383.0);
/// assert_eq!(pid, 19383);
/// assert_eq!(pid, Id::from(19383));
/// assert_eq!(pid.as_u64(), Some(19383));
/// assert_eq!(format!("{pid:?}"), "Id(19383)");
/// ```
///
/// As in JavaScript, whose `Map`s key DevTools' tracks by value and type,
/// `1` and `1.0` are the same id, `-0` is `0`, and the string `"1"` is
/// another id, never equal to a number (its text is
/// [`Strings::resolve`]`(id.as_sym()?)`). The order ([`Ord`]) is only a
/// fixed one (missing, then numbers, then strings), for sorting.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(IdValue);

#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum IdValue {
    /// Absent from the event (JavaScript's `undefined`).
    Missing,
    /// A number, as the bits of the double (with -0 folded into 0), so
    /// that ids can be hashed and compared as JavaScript keys them.
    Num(u64),
    /// A string, interned.
    Str(Sym),
}

impl Id {
    /// The id of an event that has none (JavaScript's `undefined`).
    pub const MISSING: Id = Id(IdValue::Missing);

    /// The id of the number `x`, with -0 folded into 0 so that the two are
    /// one key, as they are in a JavaScript `Map`.
    pub fn num(x: f64) -> Id {
        let x = if x == 0.0 { 0.0 } else { x };
        Id(IdValue::Num(x.to_bits()))
    }

    /// The id of a string, interned in the trace's [`Strings`].
    pub fn str(sym: Sym) -> Id {
        Id(IdValue::Str(sym))
    }

    /// Whether the event gave no id.
    pub fn is_missing(self) -> bool {
        self.0 == IdValue::Missing
    }

    /// The number, if the id is one.
    pub fn as_f64(self) -> Option<f64> {
        match self.0 {
            IdValue::Num(bits) => Some(f64::from_bits(bits)),
            _ => None,
        }
    }

    /// The number, if the id is a whole number from 0 to 2^53 (which every
    /// pid and tid Chrome writes is).
    pub fn as_u64(self) -> Option<u64> {
        let x = self.as_f64()?;
        // Whole and within 0..=2^53: exact as a u64.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        (x.fract() == 0.0 && (0.0..=9_007_199_254_740_992.0).contains(&x)).then_some(x as u64)
    }

    /// The string's symbol, if the id is a string.
    pub fn as_sym(self) -> Option<Sym> {
        match self.0 {
            IdValue::Str(sym) => Some(sym),
            _ => None,
        }
    }

    /// Writes the id as a JSON value (`null` when missing).
    pub fn write_json(self, out: &mut String, strings: &Strings) {
        match self.0 {
            IdValue::Missing => out.push_str("null"),
            IdValue::Num(bits) => crate::jsnum::write_json_number(out, f64::from_bits(bits)),
            IdValue::Str(sym) => crate::json::write_json_string(out, strings.resolve(sym)),
        }
    }

    /// The id as JavaScript's template strings print it (`${tid}`), which
    /// is how the outputs print it: `19383`, `undefined` when missing, a
    /// string as it is.
    pub fn to_js_string(self, strings: &Strings) -> String {
        match self.0 {
            IdValue::Missing => "undefined".to_owned(),
            IdValue::Num(bits) => {
                let mut s = String::new();
                write_js_number(&mut s, f64::from_bits(bits));
                s
            }
            IdValue::Str(sym) => strings.resolve(sym).to_owned(),
        }
    }
}

impl From<u64> for Id {
    /// The id of a number (above 2^53, the nearest double, as JavaScript
    /// reads it).
    fn from(x: u64) -> Id {
        // As JSON.parse reads a number: the nearest double.
        #[allow(clippy::cast_precision_loss)]
        Id::num(x as f64)
    }
}

impl PartialEq<u64> for Id {
    fn eq(&self, other: &u64) -> bool {
        *self == Id::from(*other)
    }
}

impl PartialEq<Id> for u64 {
    fn eq(&self, other: &Id) -> bool {
        other == self
    }
}

impl std::fmt::Debug for Id {
    /// `Id(19383)`, `Id(Sym(42))` for a string, `Id(missing)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IdValue::Missing => f.write_str("Id(missing)"),
            IdValue::Num(bits) => {
                let mut s = String::new();
                write_js_number(&mut s, f64::from_bits(bits));
                write!(f, "Id({s})")
            }
            IdValue::Str(sym) => write!(f, "Id({sym:?})"),
        }
    }
}

/// One trace event, borrowing its `args` from the input buffer. Only the
/// fields the engine reads are decoded; `args` stays raw JSON text (as
/// found by the scanner, decoded with serde by the handlers that need it).
#[derive(Copy, Clone, Debug)]
pub struct Event<'a> {
    /// `name`, interned. Every event has one: an object without a name is
    /// skipped (and counted) before it becomes an `Event`.
    pub name: Sym,
    /// `cat`, interned; [`crate::names::EMPTY`] when absent.
    pub cat: Sym,
    /// `ph`; [`Phase::OTHER`] when absent or not one character.
    pub ph: Phase,
    /// When it happened. Only metadata events may lack a `ts` (they get 0);
    /// any other event without one is skipped.
    pub ts: Micros,
    /// How long it lasted (`X` events).
    pub dur: Option<Micros>,
    /// The process, [`Id::MISSING`] when absent.
    pub pid: Id,
    /// The thread, [`Id::MISSING`] when absent.
    pub tid: Id,
    /// The event's own `id` (e.g. a `Profile`'s, which its `ProfileChunk`s
    /// repeat), when it has one.
    pub id: Option<Id>,
    /// The raw JSON text of `args`; `None` when absent or `null`.
    pub args: Option<&'a str>,
    /// The sample trace id in `args`, read while decoding (in parallel)
    /// for the events the Renderer handler keeps (`B`, `X`, `I`).
    pub sample_trace_id: Option<crate::SampleTraceId>,
    /// The whole event object's text, for the few handlers that copy a
    /// member the fields above leave out (`s`, `tts`, `id2`, ...).
    pub text: &'a str,
}

/// The fields of one event object as written, before interning.
#[derive(Default)]
pub(crate) struct RawEvent<'a> {
    pub name: Option<Cow<'a, str>>,
    pub cat: Option<Cow<'a, str>>,
    pub ph: Option<Cow<'a, str>>,
    pub ts: Option<Number>,
    pub dur: Option<Number>,
    pub pid: Option<IdJson<'a>>,
    pub tid: Option<IdJson<'a>>,
    pub id: Option<IdJson<'a>>,
    pub args: Option<&'a str>,
}

/// A number, or a string holding one (some tools write `"ts":"123"`).
pub(crate) struct Number {
    pub value: f64,
    pub was_string: bool,
}

/// A pid, tid or id: a number or a string.
pub(crate) enum IdJson<'a> {
    Num(f64),
    Str(Cow<'a, str>),
}

impl IdJson<'_> {
    pub(crate) fn intern(&self, interner: &mut Interner) -> Id {
        match self {
            IdJson::Num(x) => Id::num(*x),
            IdJson::Str(s) => Id::str(interner.intern(s)),
        }
    }
}

/// Why an event object could not be read.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The input ended inside the object.
    End,
    /// Something else is wrong at `offset`.
    Bad { offset: usize, message: String },
}

fn bad(offset: usize, message: impl Into<String>) -> ReadError {
    ReadError::Bad {
        offset,
        message: message.into(),
    }
}

impl From<ScanError> for ReadError {
    fn from(e: ScanError) -> Self {
        match e {
            ScanError::UnexpectedEnd { .. } => ReadError::End,
            ScanError::Unexpected { offset, .. } => bad(offset, e.describe()),
        }
    }
}

/// The string at `i` (its opening quote), borrowed unless it has escapes,
/// and the offset past it.
fn read_string(text: &str, i: usize) -> Result<(Cow<'_, str>, usize), ReadError> {
    // A one-character ASCII string (`"ph":"X"`), without a search.
    if let [b'"', c, b'"', ..] = text.as_bytes()[i..] {
        if c.is_ascii() && c != b'"' && c != b'\\' {
            return Ok((Cow::Borrowed(&text[i + 1..i + 2]), i + 3));
        }
    }
    let (end, escaped) = scan::scan_string(text.as_bytes(), i)?;
    if !escaped {
        return Ok((Cow::Borrowed(&text[i + 1..end - 1]), end));
    }
    match serde_json::from_str::<String>(&text[i..end]) {
        Ok(s) => Ok((Cow::Owned(s), end)),
        Err(e) => Err(bad(i, format!("invalid string: {e}"))),
    }
}

fn scalar_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && scan::is_scalar_byte(b[i]) {
        i += 1;
    }
    i
}

fn is_null(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'n') {
        return None;
    }
    let end = scalar_end(b, i);
    (&b[i..end] == b"null").then_some(end)
}

/// The integer of at most 15 digits that `b` starts with, and how many
/// digits it has: most numbers of a trace are such integers (timestamps,
/// durations, ids), exact as doubles, read without the general float
/// parser. `None` when `b` starts with no digit or with more than 15.
#[inline]
fn leading_integer(b: &[u8]) -> Option<(f64, usize)> {
    let mut value = 0u64;
    let mut digits = 0;
    // A 16th digit is read only to refuse the number (below 2^64 still).
    for &d in b.iter().take(16) {
        if !d.is_ascii_digit() {
            break;
        }
        value = value * 10 + u64::from(d - b'0');
        digits += 1;
    }
    #[allow(clippy::cast_precision_loss)] // below 10^15: exact
    (1..=15).contains(&digits).then_some((value as f64, digits))
}

/// A number's text, with no whitespace around it (a scalar as the
/// scanner cuts it, or a string's content already trimmed).
fn parse_number(t: &str) -> Option<f64> {
    let digits = t.as_bytes();
    match leading_integer(digits) {
        Some((value, n)) if n == digits.len() => return Some(value),
        _ => {}
    }
    match digits.first() {
        Some(b'-' | b'0'..=b'9') => t.parse::<f64>().ok().filter(|x| x.is_finite()),
        _ => None,
    }
}

fn read_number(text: &str, i: usize, key: &str) -> Result<(Option<Number>, usize), ReadError> {
    let b = text.as_bytes();
    if let Some(end) = is_null(b, i) {
        return Ok((None, end));
    }
    if b[i] == b'"' {
        let (s, end) = read_string(text, i)?;
        // As JavaScript's `Number(string)`, whitespace around is allowed.
        return match parse_number(s.trim()) {
            Some(value) => Ok((
                Some(Number {
                    value,
                    was_string: true,
                }),
                end,
            )),
            None => Err(bad(
                i,
                format!("invalid type: string {s:?} for {key}, expected a number"),
            )),
        };
    }
    match plain_number(text, i)? {
        Some((value, end)) => Ok((
            Some(Number {
                value,
                was_string: false,
            }),
            end,
        )),
        None => Err(bad(i, format!("invalid value for {key}, expected a number"))),
    }
}

/// The number written at `i` (not in a string) and the offset past it;
/// `None` when what is there is not a number. The usual number is read in
/// the one pass that finds its end; anything else is cut out and parsed.
fn plain_number(text: &str, i: usize) -> Result<Option<(f64, usize)>, ReadError> {
    let b = text.as_bytes();
    if let Some((value, digits)) = leading_integer(&b[i..]) {
        let end = i + digits;
        if b.get(end).is_some_and(|&c| !scan::is_scalar_byte(c)) {
            return Ok(Some((value, end)));
        }
    }
    let end = scalar_end(b, i);
    if end == b.len() {
        return Err(ReadError::End);
    }
    Ok(parse_number(&text[i..end]).map(|value| (value, end)))
}

fn read_text<'a>(text: &'a str, i: usize, key: &str) -> Result<(Option<Cow<'a, str>>, usize), ReadError> {
    let b = text.as_bytes();
    if let Some(end) = is_null(b, i) {
        return Ok((None, end));
    }
    if b[i] != b'"' {
        return Err(bad(i, format!("invalid type for {key}, expected a string")));
    }
    let (s, end) = read_string(text, i)?;
    Ok((Some(s), end))
}

fn read_id<'a>(text: &'a str, i: usize, key: &str) -> Result<(Option<IdJson<'a>>, usize), ReadError> {
    let b = text.as_bytes();
    if let Some(end) = is_null(b, i) {
        return Ok((None, end));
    }
    if b[i] == b'"' {
        let (s, end) = read_string(text, i)?;
        return Ok((Some(IdJson::Str(s)), end));
    }
    match plain_number(text, i)? {
        Some((x, end)) => Ok((Some(IdJson::Num(x)), end)),
        None => Err(bad(i, format!("invalid type for {key}, expected a number or a string"))),
    }
}

/// The key whose opening quote is at `i` and the offset past its closing
/// quote, when it is one of the keys Chrome writes in every event, spelt
/// plainly. Told apart by their bytes, they need neither a search for the
/// closing quote nor a copy; any other key is read by [`read_string`].
fn common_key(b: &[u8], i: usize) -> Option<(Cow<'static, str>, usize)> {
    let rest = b.get(i + 1..)?;
    let is = |key: &'static str| {
        let k = key.as_bytes();
        (rest.len() > k.len() && rest[k.len()] == b'"' && rest.starts_with(k))
            .then(|| (Cow::Borrowed(key), i + k.len() + 2))
    };
    // By the first letter, so that a key is compared with one or two.
    match rest.first()? {
        b'n' => is("name"),
        b'c' => is("cat"),
        b'p' => is("ph").or_else(|| is("pid")),
        b't' => is("ts")
            .or_else(|| is("tid"))
            .or_else(|| is("tts"))
            .or_else(|| is("tdur")),
        b'd' => is("dur"),
        b'i' => is("id").or_else(|| is("id2")),
        b'a' => is("args"),
        b'b' => is("bp"),
        _ => None,
    }
}

/// Reads the event object whose `{` is at `start`, in one pass: the fields
/// the engine uses are decoded, `args` is kept as raw text, anything else
/// is skipped. A repeated key keeps its last value, as `JSON.parse` does.
/// Returns the event and the offset just past the object.
pub(crate) fn read_event_object(text: &str, start: usize) -> Result<(RawEvent<'_>, usize), ReadError> {
    let b = text.as_bytes();
    let mut event = RawEvent::default();
    let mut i = scan::skip_ws(b, start + 1);
    if i < b.len() && b[i] == b'}' {
        return Ok((event, i + 1));
    }
    loop {
        if i >= b.len() {
            return Err(ReadError::End);
        }
        if b[i] != b'"' {
            return Err(bad(i, format!("expected a key, found {}", scan::describe_byte(b[i]))));
        }
        let (key, after_key) = match common_key(b, i) {
            Some(found) => found,
            None => read_string(text, i)?,
        };
        i = scan::skip_ws(b, after_key);
        if i >= b.len() {
            return Err(ReadError::End);
        }
        if b[i] != b':' {
            return Err(bad(i, format!("expected ':', found {}", scan::describe_byte(b[i]))));
        }
        i = scan::skip_ws(b, i + 1);
        if i >= b.len() {
            return Err(ReadError::End);
        }
        // Reads a field's value into the event; evaluates to the offset
        // past it.
        macro_rules! field {
            ($read:ident, $name:ident) => {{
                let (value, end) = $read(text, i, stringify!($name))?;
                event.$name = value;
                end
            }};
        }
        i = match key.as_ref() {
            "name" => field!(read_text, name),
            "cat" => field!(read_text, cat),
            "ph" => field!(read_text, ph),
            "ts" => field!(read_number, ts),
            "dur" => field!(read_number, dur),
            "pid" => field!(read_id, pid),
            "tid" => field!(read_id, tid),
            "id" => field!(read_id, id),
            "args" => {
                let end = scan::skip_value(b, i)?;
                event.args = if is_null(b, i).is_some() {
                    None
                } else {
                    Some(&text[i..end])
                };
                end
            }
            _ => scan::skip_value(b, i)?,
        };
        i = scan::skip_ws(b, i);
        if i >= b.len() {
            return Err(ReadError::End);
        }
        match b[i] {
            b',' => i = scan::skip_ws(b, i + 1),
            b'}' => return Ok((event, i + 1)),
            c => {
                return Err(bad(
                    i,
                    format!("expected ',' or '}}', found {}", scan::describe_byte(c)),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fields read, as text: (name, cat, ph, ts, args).
    type Fields = (
        Option<String>,
        Option<String>,
        Option<String>,
        Option<f64>,
        Option<String>,
    );

    fn fields(text: &str) -> Fields {
        let (event, end) = read_event_object(text, 0).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        assert_eq!(end, text.len(), "{text}");
        (
            event.name.map(Cow::into_owned),
            event.cat.map(Cow::into_owned),
            event.ph.map(Cow::into_owned),
            event.ts.map(|n| n.value),
            event.args.map(str::to_owned),
        )
    }

    /// A number read in the one pass of the usual integers is the number
    /// cut out and parsed; anything longer or other takes that path.
    #[test]
    fn integers_read_in_one_pass_are_the_numbers_parsed() {
        let whole = |t: &str| {
            let end = scalar_end(t.as_bytes(), 0);
            if end == t.len() {
                return Err(ReadError::End);
            }
            Ok((parse_number(&t[..end]), end))
        };
        for t in [
            "0,",
            "7}",
            "123 ",
            "000123]",
            "331534010,",
            "123456789012345,",
            "1234567890123456,",
            "99999999999999999999,",
            "12.5,",
            "-3,",
            "1e3,",
            "12a,",
            "12",
            "0x1f,",
        ] {
            let read = read_number(t, 0, "ts").map(|(n, end)| (n.map(|n| (n.value, n.was_string)), end));
            match whole(t) {
                Ok((Some(value), end)) => assert_eq!(read.ok(), Some((Some((value, false)), end)), "{t}"),
                Ok((None, _)) => assert!(read.is_err(), "{t}"),
                Err(_) => assert!(matches!(read, Err(ReadError::End)), "{t}"),
            }
        }
    }

    #[test]
    fn keys_and_short_strings_are_read_whatever_their_spelling() {
        let full = |name: &str, ph: &str| {
            (
                Some(name.to_owned()),
                Some("c".to_owned()),
                Some(ph.to_owned()),
                Some(5.0),
                None,
            )
        };
        assert_eq!(fields(r#"{"name":"a","cat":"c","ph":"X","ts":5}"#), full("a", "X"));
        // Keys with escapes, and keys that begin like the common ones.
        assert_eq!(
            fields(r#"{"n\u0061me":"a","nam":1,"names":2,"cat":"c","t":3,"tsx":4,"p":5,"ph":"X","ts":5}"#),
            full("a", "X")
        );
        // One-character strings, and strings that look like one.
        assert_eq!(fields(r#"{"name":"a","cat":"c","ph":"\"","ts":5}"#), full("a", "\""));
        assert_eq!(fields(r#"{"name":"a","cat":"c","ph":"","ts":5}"#), full("a", ""));
        assert_eq!(fields(r#"{"name":"a","cat":"c","ph":"é","ts":5}"#), full("a", "é"));
        assert_eq!(fields(r#"{"name":"\\","cat":"c","ph":"XY","ts":5}"#), full("\\", "XY"));
        // The last of a repeated key wins, common or not.
        assert_eq!(
            fields(r#"{"name":"b","n\u0061me":"a","cat":"c","ph":"I","ph":"X","ts":5,"args":{"x":[1]}}"#),
            (
                Some("a".into()),
                Some("c".into()),
                Some("X".into()),
                Some(5.0),
                Some(r#"{"x":[1]}"#.into())
            )
        );
    }
}
