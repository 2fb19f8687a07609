//! The usual `ProfileChunk` args (Chrome's keys, integer arrays) read
//! without serde's visitors: their number arrays (samples, time deltas,
//! lines, columns), most of a chunk's text, are read a byte at a time.
//! Anything unusual (a key with escapes or given twice, a `null`, a
//! fraction, an integer too long, malformed text, an unknown object) is
//! `None`, and the caller reads the chunk with `serde_json` instead: what
//! is accepted, what it means and the message of what is not all stay
//! serde's.

use serde::de::IgnoredAny;
use tracekit_events::json::{member_at, MemberAt};
use tracekit_events::scan::{skip_value, skip_ws};

use super::{ChunkNode, ParsedChunk, TraceIds};

/// The chunk's args, when they are usual.
pub(super) fn parse(text: &str) -> Option<ParsedChunk> {
    let mut chunk = ParsedChunk {
        nodes: Vec::new(),
        samples: Vec::new(),
        time_deltas: Vec::new(),
        trace_ids: None,
        source: None,
    };
    let b = text.as_bytes();
    let end = walk_object(text, skip_ws(b, 0), |key, value| match key {
        "data" => walk_object(text, value, |key, value| match key {
            "cpuProfile" => walk_object(text, value, |key, value| match key {
                "nodes" => {
                    let (nodes, end) = with_serde::<Vec<ChunkNode>>(text, value)?;
                    chunk.nodes = nodes;
                    Some(end)
                }
                "samples" => {
                    chunk.samples.reserve_exact(count_numbers(b, value));
                    int_array(b, value, 18, |id| chunk.samples.push(id))
                }
                "trace_ids" => {
                    let (ids, end) = with_serde::<TraceIds>(text, value)?;
                    chunk.trace_ids = Some(ids.0);
                    Some(end)
                }
                _ => ignored(text, value),
            }),
            "timeDeltas" => {
                // Integers of at most 15 digits: exact as doubles, as
                // serde makes them.
                chunk.time_deltas.reserve_exact(count_numbers(b, value));
                int_array(b, value, 15, |delta| chunk.time_deltas.push(delta as f64))
            }
            // Not kept: only checked, as serde checks what it skips.
            "lines" | "columns" => digits_array(b, value).or_else(|| int_array(b, value, 18, |_| {})),
            "source" => {
                let (source, end) = with_serde::<String>(text, value)?;
                chunk.source = Some(source);
                Some(end)
            }
            _ => ignored(text, value),
        }),
        _ => ignored(text, value),
    })?;
    (skip_ws(b, end) == b.len()).then_some(chunk)
}

/// Walks the members of the object at `open`: `read` reads the value of
/// a key at an offset and returns the offset past it. Returns the offset
/// past the object; `None` when `read` does, or when the object is
/// unusual (not an object, a key with escapes or given twice, a comma
/// missing or one too many).
fn walk_object<'t>(text: &'t str, open: usize, mut read: impl FnMut(&'t str, usize) -> Option<usize>) -> Option<usize> {
    let b = text.as_bytes();
    if b.get(open) != Some(&b'{') {
        return None;
    }
    let mut i = skip_ws(b, open + 1);
    if b.get(i) == Some(&b'}') {
        return Some(i + 1);
    }
    let mut seen: Vec<&str> = Vec::new();
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let MemberAt::Key {
            key: std::borrow::Cow::Borrowed(key),
            value,
        } = member_at(text, i)
        else {
            return None;
        };
        if seen.contains(&key) || !as_serde_reads(key) {
            return None;
        }
        seen.push(key);
        let end = read(key, value)?;
        let j = skip_ws(b, end);
        match b.get(j) {
            Some(b',') => i = skip_ws(b, j + 1),
            Some(b'}') => return Some(j + 1),
            _ => return None,
        }
    }
}

/// How many numbers the array at `start` holds (its commas, plus one),
/// counted before it is read so that its list is made at its size at
/// once: grown as it was read, a list was copied at each doubling. A hint
/// only: [`int_array`] checks the array.
fn count_numbers(b: &[u8], start: usize) -> usize {
    let rest = b.get(start..).unwrap_or_default();
    let end = memchr::memchr(b']', rest).unwrap_or(rest.len());
    rest[..end].iter().filter(|&&c| c == b',').count() + 1
}

/// A JSON array of integers (no sign on a zero, no fraction, no exponent,
/// no leading zero, at most `max_digits` digits) at `start`, each handed
/// to `push`; the offset past the array.
fn int_array(b: &[u8], start: usize, max_digits: usize, mut push: impl FnMut(i64)) -> Option<usize> {
    if b.get(start) != Some(&b'[') {
        return None;
    }
    let mut i = skip_ws(b, start + 1);
    if b.get(i) == Some(&b']') {
        return Some(i + 1);
    }
    loop {
        let negative = b.get(i) == Some(&b'-');
        let first = i + usize::from(negative);
        let mut j = first;
        let mut value: i64 = 0;
        while let Some(&d @ b'0'..=b'9') = b.get(j) {
            if j - first == max_digits {
                return None;
            }
            value = value * 10 + i64::from(d - b'0');
            j += 1;
        }
        let digits = j - first;
        let leading_zero = digits > 1 && b[first] == b'0';
        if digits == 0 || leading_zero || (negative && value == 0) || matches!(b.get(j), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        push(if negative { -value } else { value });
        i = skip_ws(b, j);
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1),
            Some(b']') => return Some(i + 1),
            _ => return None,
        }
    }
}

/// Whether serde reads a key as [`member_at`] does: it refuses control
/// characters written as they are, which the scanner lets through.
fn as_serde_reads(key: &str) -> bool {
    !key.bytes().any(|c| c < 0x20)
}

/// The offset past the array at `start` when it is written the plainest
/// way: digits and commas only, no empty element, no leading zero (as
/// Chrome writes `lines` and `columns`); such an array is one serde
/// accepts. `None` otherwise ([`int_array`] then checks it). Unlike
/// [`int_array`], no value is made: every byte is looked at the same way,
/// without a branch, which the compiler turns into vector code.
fn digits_array(b: &[u8], start: usize) -> Option<usize> {
    if b.get(start) != Some(&b'[') {
        return None;
    }
    let rest = &b[start + 1..];
    let body = &rest[..memchr::memchr(b']', rest)?];
    let end = start + body.len() + 2;
    if body.is_empty() {
        return Some(end);
    }
    // Each byte with the two before it (`[` before the first): an element
    // starts after `[` or `,`, with a digit, and not with a 0 followed by
    // more digits.
    let is_digit = |c: u8| c.wrapping_sub(b'0') < 10;
    let starts = |c: u8| c == b',' || c == b'[';
    let bad = |before2: u8, before: u8, c: u8| {
        !(is_digit(c) || c == b',') | (c == b',' && starts(before)) | (is_digit(c) && before == b'0' && starts(before2))
    };
    let mut wrong = bad(0, b'[', body[0]) | (body.len() > 1 && bad(b'[', body[0], body[1]));
    wrong |= body.windows(3).fold(false, |wrong, w| wrong | bad(w[0], w[1], w[2]));
    wrong |= body[body.len() - 1] == b',';
    (!wrong).then_some(end)
}

/// The value at `start` read by serde on its own, and the offset past it.
fn with_serde<'t, T: serde::Deserialize<'t>>(text: &'t str, start: usize) -> Option<(T, usize)> {
    let end = skip_value(text.as_bytes(), start).ok()?;
    Some((serde_json::from_str(&text[start..end]).ok()?, end))
}

/// A member serde would skip: a scalar, checked as serde checks it (an
/// object or array, rare here, is unusual).
fn ignored(text: &str, start: usize) -> Option<usize> {
    if matches!(text.as_bytes().get(start), Some(b'{' | b'[')) {
        return None;
    }
    with_serde::<IgnoredAny>(text, start).map(|(_, end)| end)
}

#[cfg(test)]
mod tests {
    use super::super::parse_with_serde;

    /// A chunk as Chrome writes them, with every key it uses.
    const USUAL: &str = r#"{"data":{"cpuProfile":{"nodes":[{"callFrame":{"codeType":"JS","functionName":"f","scriptId":5,"url":"a.js","lineNumber":4,"columnNumber":1},"id":2,"parent":1}],"samples":[2,1,-3,0],"trace_ids":{"7":2}},"timeDeltas":[10,-2,0,123456789012345],"lines":[1,0],"columns":[3,4],"source":"Internal","endTime":12.5}}"#;

    /// What the fast reading makes of `text`, if anything, is what serde
    /// makes of it.
    fn agrees(text: &str) -> bool {
        let fast = super::parse(text);
        let taken = fast.is_some();
        if let Some(fast) = fast {
            assert_eq!(
                format!("{:?}", Ok::<_, String>(fast)),
                format!("{:?}", parse_with_serde(text)),
                "{text}"
            );
        }
        taken
    }

    #[test]
    fn a_node_keeps_its_code_type() {
        let mut interner = tracekit_events::Interner::default();
        let mut chunk = super::parse(USUAL).expect("a usual chunk");
        let nodes = chunk.take_nodes(&mut interner);
        let code_type = nodes[0].call_frame.code_type.map(|c| interner.resolve(c).to_owned());
        assert_eq!(code_type.as_deref(), Some("JS"));
        let mut without =
            super::parse(r#"{"data":{"cpuProfile":{"nodes":[{"callFrame":{"functionName":"f"},"id":1}]}}}"#)
                .expect("a usual chunk");
        assert_eq!(without.take_nodes(&mut interner)[0].call_frame.code_type, None);
    }

    #[test]
    fn usual_chunks_are_read_without_serde() {
        for text in [
            USUAL,
            "{}",
            r#"{"data":{}}"#,
            r#" { "data" : { "cpuProfile" : { "samples" : [ 1 , 2 ] } , "timeDeltas" : [ 5 , 6 ] } } "#,
        ] {
            assert!(agrees(text), "{text}");
        }
    }

    #[test]
    fn unusual_chunks_are_left_to_serde() {
        for text in [
            r#"{"data":null}"#,
            r#"{"data":{"cpuProfile":null}}"#,
            r#"{"data":{"timeDeltas":[1.5]}}"#,
            r#"{"data":{"timeDeltas":[1e3]}}"#,
            r#"{"data":{"timeDeltas":[-0]}}"#,
            r#"{"data":{"timeDeltas":[1234567890123456]}}"#,
            r#"{"data":{"cpuProfile":{"samples":[01]}}}"#,
            r#"{"data":{"cpuProfile":{"samples":[1,]}}}"#,
            r#"{"data":{"cpuProfile":{"samples":[1],"samples":[2]}}}"#,
            r#"{"data":{"cpuProfile":{"sam\u0070les":[1]}}}"#,
            r#"{"data":{"lines":[1,"x"]}}"#,
            r#"{"data":{"other":{"x":1}}}"#,
            r#"{"data":{"timeDeltas":[1]},}"#,
            r#"{"data":{"timeDeltas":[1]} "x":1}"#,
            "{\"data\":{\"x\u{1}y\":1}}",
        ] {
            assert!(!agrees(text), "{text}");
        }
    }

    /// Integers of 1 to 20 digits (leading 1, 9 or 0, with and without a
    /// minus), after other numbers or first: read as serde reads them,
    /// or left to it.
    #[test]
    fn integers_of_any_length_read_as_serde_reads_them() {
        let mut taken = 0;
        for digits in 1..=20u8 {
            for lead in [b'1', b'9', b'0'] {
                let number: String = std::iter::once(char::from(lead))
                    .chain((1..digits).map(|k| char::from(b'0' + k * 7 % 10)))
                    .collect();
                for sign in ["", "-"] {
                    for before in 0..9 {
                        let ones = "1,".repeat(before);
                        let text = format!(
                            r#"{{"data":{{"cpuProfile":{{"samples":[{ones}{sign}{number},{sign}{number}]}},"timeDeltas":[{ones}{sign}{number}]}}}}"#
                        );
                        taken += usize::from(agrees(&text));
                    }
                }
            }
        }
        // Taken: up to 15 digits (the time deltas' limit), leading 1 or 9
        // with either sign, and the lone zero.
        assert_eq!(taken, 15 * 2 * 2 * 9 + 9);
    }

    /// Every array of up to six bytes of digits, commas, minus signs and
    /// spaces: the plain ones are taken by the quick check, exactly those
    /// `int_array` takes without a sign or a space, at the same end.
    #[test]
    fn plain_digit_arrays_are_checked_as_int_array_checks_them() {
        let alphabet = [b'0', b'1', b'9', b',', b'-', b' '];
        let mut plain = 0;
        for len in 0..=6u32 {
            for mut code in 0..alphabet.len().pow(len) {
                let mut text = vec![b'['];
                for _ in 0..len {
                    text.push(alphabet[code % alphabet.len()]);
                    code /= alphabet.len();
                }
                text.extend_from_slice(b"],1]");
                let quick = super::digits_array(&text, 0);
                let full = super::int_array(&text, 0, 18, |_| {});
                let signless = !text[..len as usize + 1].contains(&b'-') && !text.contains(&b' ');
                assert_eq!(quick, full.filter(|_| signless), "{}", String::from_utf8_lossy(&text));
                plain += usize::from(quick.is_some());
            }
        }
        assert!(plain > 1000, "{plain}");
    }

    /// Every text one byte away from a usual chunk (a byte left out, or
    /// replaced by one that matters to JSON): the fast reading takes it
    /// only to make what serde makes.
    #[test]
    fn near_usual_chunks_read_as_serde_reads_them() {
        let mut taken = 0;
        for at in 0..USUAL.len() {
            let mut texts = vec![format!("{}{}", &USUAL[..at], &USUAL[at + 1..])];
            for c in [",", "]", "}", "[", "{", "\"", "0", "-", ".", " ", "x", "n", ":"] {
                texts.push(format!("{}{c}{}", &USUAL[..at], &USUAL[at + 1..]));
            }
            for text in texts {
                taken += usize::from(agrees(&text));
            }
        }
        assert!(taken > 100, "the fast reading takes some of them: {taken}");
    }
}
