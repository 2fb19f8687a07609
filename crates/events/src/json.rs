//! Small JSON helpers on raw text: writing a string as `JSON.stringify`
//! does (for every output), and reading an object's members or a value's
//! JavaScript truthiness without decoding what is not needed.

/// Appends `s` as a JSON string literal, escaped as `JSON.stringify` does.
pub fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    while let Some(i) = first_to_escape(bytes, start) {
        let b = bytes[i];
        out.push_str(&s[start..i]);
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                use std::fmt::Write;
                let _ = write!(out, "\\u{:04x}", b);
            }
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// Whether `JSON.stringify` escapes this byte: `"`, `\` and the control
/// characters (every other byte of UTF-8 text is written as it is).
fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// The first byte at or after `from` that needs escaping. Eight bytes at a
/// time: most strings (names, URLs) need none, and a byte-by-byte loop
/// was the largest part of writing a dump.
fn first_to_escape(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    // Non-zero exactly when some byte of `v` is below `n` (n <= 0x80).
    let has_below = |v: u64, n: u8| v.wrapping_sub(ONES * u64::from(n)) & !v & HIGHS;
    let mut i = from;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let v = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let quote = v ^ (ONES * u64::from(b'"'));
        let backslash = v ^ (ONES * u64::from(b'\\'));
        if has_below(v, 0x20) | has_below(quote, 1) | has_below(backslash, 1) != 0 {
            if let Some(at) = chunk.iter().position(|&b| needs_escape(b)) {
                return Some(i + at);
            }
        }
        i += 8;
    }
    bytes[i.min(bytes.len())..]
        .iter()
        .position(|&b| needs_escape(b))
        .map(|at| i + at)
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_like_json_stringify() {
        let mut s = String::new();
        super::write_json_string(&mut s, "a\"b\\c\nd\u{1}é");
        assert_eq!(s, "\"a\\\"b\\\\c\\nd\\u0001é\"");
    }

    /// The same as `serde_json` (which escapes as `JSON.stringify` does)
    /// for every special byte at every position of strings of up to 20
    /// bytes, so that the eight-byte scan misses none.
    #[test]
    fn escapes_every_special_byte_at_every_position() {
        let specials: Vec<char> = (0u8..0x20)
            .map(char::from)
            .chain(['"', '\\', '\u{7f}', 'é', '€'])
            .collect();
        for len in 0..20 {
            for at in 0..len.max(1) {
                for &c in &specials {
                    let text: String = (0..len).map(|i| if i == at { c } else { 'a' }).collect();
                    let mut ours = String::new();
                    super::write_json_string(&mut ours, &text);
                    assert_eq!(ours, serde_json::to_string(&text).unwrap(), "{text:?}");
                }
            }
        }
    }
}

/// JavaScript truthiness of a raw JSON value: `false`, `null`, `0` and `""`
/// are false, everything else (objects and arrays included) is true.
pub fn js_truthy(raw: &str) -> bool {
    match raw.trim() {
        "false" | "null" | "\"\"" => false,
        t => match t.as_bytes().first() {
            Some(b'-' | b'0'..=b'9') => t.parse::<f64>().map_or(true, |x| x != 0.0 && !x.is_nan()),
            _ => true,
        },
    }
}

/// What stands at a position inside a JSON object, where a member (or the
/// comma before one) may start. This is the one "key: value" reader of
/// tracekit: the tokenizer's top level, the keys after the event array and
/// the members of `args` all go through it.
#[derive(Debug)]
pub enum MemberAt<'a> {
    /// A member: its key, and where its value starts (after whitespace).
    Key {
        /// The key, unescaped.
        key: std::borrow::Cow<'a, str>,
        /// Offset of the first byte of the value.
        value: usize,
    },
    /// The object closes: the offset just past its `}`.
    Closed {
        /// Offset just past the `}`.
        after: usize,
    },
    /// The text ends before the key and its colon do.
    NeedMore,
    /// Something that cannot stand in an object, at this offset.
    Bad {
        /// Offset of the offending byte.
        offset: usize,
        /// What is wrong.
        message: String,
    },
}

/// Reads the member key at `i` in an object (skipping whitespace and one
/// comma before it); the caller skips or reads the value.
pub fn member_at(text: &str, i: usize) -> MemberAt<'_> {
    use crate::scan::{describe_byte, scan_string, skip_ws};
    let b = text.as_bytes();
    let mut i = skip_ws(b, i);
    if b.get(i) == Some(&b',') {
        i = skip_ws(b, i + 1);
    }
    let Some(&first) = b.get(i) else {
        return MemberAt::NeedMore;
    };
    if first == b'}' {
        return MemberAt::Closed { after: i + 1 };
    }
    if first != b'"' {
        return MemberAt::Bad {
            offset: i,
            message: format!("expected a key, found {}", describe_byte(first)),
        };
    }
    let Ok((key_end, escaped)) = scan_string(b, i) else {
        return MemberAt::NeedMore;
    };
    let key = if escaped {
        match serde_json::from_str::<String>(&text[i..key_end]) {
            Ok(s) => std::borrow::Cow::Owned(s),
            Err(e) => {
                return MemberAt::Bad {
                    offset: i,
                    message: format!("invalid key: {e}"),
                }
            }
        }
    } else {
        std::borrow::Cow::Borrowed(&text[i + 1..key_end - 1])
    };
    let colon = skip_ws(b, key_end);
    match b.get(colon) {
        None => return MemberAt::NeedMore,
        Some(b':') => {}
        Some(&c) => {
            return MemberAt::Bad {
                offset: colon,
                message: format!("expected ':', found {}", describe_byte(c)),
            }
        }
    }
    let value = skip_ws(b, colon + 1);
    if value >= b.len() {
        return MemberAt::NeedMore;
    }
    MemberAt::Key { key, value }
}

/// The members of the JSON object `text`, in order, as (key, raw value
/// text), found with the structural scanner: nothing is decoded but the
/// keys. Stops early on malformed input.
pub fn object_members(text: &str) -> ObjectMembers<'_> {
    let b = text.as_bytes();
    let start = crate::scan::skip_ws(b, 0);
    let at = (b.get(start) == Some(&b'{')).then_some(start + 1);
    ObjectMembers { text, at }
}

/// The raw text of the member `key` of the JSON object `text` (the last
/// one, as `JSON.parse` keeps it); `None` when `text` is not an object or
/// has no such member.
pub fn member<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    object_members(text).filter(|(k, _)| k == key).last().map(|(_, v)| v)
}

/// The raw values of the members `keys` of the JSON object `text`, found
/// in one pass (`found[i]` is the last member `keys[i]`, as `JSON.parse`
/// keeps it), or `None` when `text` is not an object (or is malformed).
/// Values are skipped with the structural scanner, not decoded, so that
/// large ones nobody reads (stack traces) cost one quick pass.
pub fn members<'a, const N: usize>(text: &'a str, keys: [&str; N]) -> Option<[Option<&'a str>; N]> {
    let (found, closed) = member_ranges(text, keys)?;
    closed.then(|| found.map(|range| range.map(|r| &text[r])))
}

/// Where the members `keys` of the JSON object `text` are (the last of
/// each), as [`member`] finds them: up to where the object stops being
/// readable, with whether it closed there. `None` when `text` is not an
/// object.
pub(crate) fn member_ranges<const N: usize>(
    text: &str,
    keys: [&str; N],
) -> Option<([Option<std::ops::Range<usize>>; N], bool)> {
    let mut found = [const { None }; N];
    let b = text.as_bytes();
    let open = crate::scan::skip_ws(b, 0);
    if b.get(open) != Some(&b'{') {
        return None;
    }
    let mut i = open + 1;
    loop {
        match member_at(text, i) {
            MemberAt::Key { key, value } => {
                let Ok(end) = crate::scan::skip_value(b, value) else {
                    return Some((found, false));
                };
                if let Some(at) = keys.iter().position(|k| *k == key) {
                    found[at] = Some(value..end);
                }
                i = end;
            }
            MemberAt::Closed { .. } => return Some((found, true)),
            MemberAt::NeedMore | MemberAt::Bad { .. } => return Some((found, false)),
        }
    }
}

/// The items of the JSON array `text`, in order, as raw text, found with
/// the structural scanner: nothing is decoded. Stops early on malformed
/// input; nothing when `text` is not an array.
pub fn array_items(text: &str) -> ArrayItems<'_> {
    let b = text.as_bytes();
    let start = crate::scan::skip_ws(b, 0);
    let at = (b.get(start) == Some(&b'[')).then_some(start + 1);
    ArrayItems { text, at }
}

/// The raw text at `path` in nested JSON objects (`["data", "frame"]` reads
/// `text.data.frame`).
pub fn member_path<'a>(text: &'a str, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(text, |at, key| member(at, key))
}

/// The raw value as a string, when it is one.
pub fn as_str(raw: &str) -> Option<std::borrow::Cow<'_, str>> {
    let raw = raw.trim();
    if !raw.starts_with('"') {
        return None;
    }
    if !raw.contains('\\') {
        return raw.get(1..raw.len() - 1).map(std::borrow::Cow::Borrowed);
    }
    serde_json::from_str::<String>(raw).ok().map(std::borrow::Cow::Owned)
}

/// The raw value as a number, when it is one.
pub fn as_f64(raw: &str) -> Option<f64> {
    let raw = raw.trim();
    match raw.as_bytes().first() {
        Some(b'-' | b'0'..=b'9') => raw.parse().ok(),
        _ => None,
    }
}

/// JavaScript's `Number(value)` of a raw JSON member (absent: `NaN`),
/// for the numbers DevTools computes with.
pub fn js_number(raw: Option<&str>) -> f64 {
    let Some(raw) = raw.map(str::trim) else {
        return f64::NAN;
    };
    match raw {
        "null" | "false" => 0.0,
        "true" => 1.0,
        _ => {
            if let Some(x) = as_f64(raw) {
                x
            } else if let Some(s) = as_str(raw) {
                let s = s.trim();
                if s.is_empty() {
                    0.0
                } else {
                    s.parse().unwrap_or(f64::NAN)
                }
            } else if raw == "[]" {
                0.0
            } else {
                f64::NAN
            }
        }
    }
}

/// The iterator of [`object_members`].
pub struct ObjectMembers<'a> {
    text: &'a str,
    at: Option<usize>,
}

impl<'a> Iterator for ObjectMembers<'a> {
    type Item = (std::borrow::Cow<'a, str>, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        let MemberAt::Key { key, value } = member_at(self.text, self.at.take()?) else {
            return None;
        };
        let end = crate::scan::skip_value(self.text.as_bytes(), value).ok()?;
        self.at = Some(end);
        Some((key, &self.text[value..end]))
    }
}

/// The iterator of [`array_items`].
pub struct ArrayItems<'a> {
    text: &'a str,
    at: Option<usize>,
}

impl<'a> Iterator for ArrayItems<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        use crate::scan::{skip_value, skip_ws};
        let b = self.text.as_bytes();
        let start = skip_ws(b, self.at.take()?);
        if b.get(start).is_none_or(|&c| c == b']' || c == b',') {
            return None;
        }
        let end = skip_value(b, start).ok()?;
        // The next item only after a comma: anything else ends the array.
        let after = skip_ws(b, end);
        if b.get(after) == Some(&b',') {
            self.at = Some(after + 1);
        }
        Some(&self.text[start..end])
    }
}

#[cfg(test)]
mod member_tests {
    #[test]
    fn lists_members_without_decoding_them() {
        let members: Vec<(String, &str)> = super::object_members(r#" {"a": [1, {"x":2}] , "b\"c":"s" ,"d":null}"#)
            .map(|(k, v)| (k.into_owned(), v))
            .collect();
        assert_eq!(
            members,
            vec![
                ("a".into(), r#"[1, {"x":2}]"#),
                ("b\"c".into(), r#""s""#),
                ("d".into(), "null")
            ]
        );
        assert_eq!(super::object_members("[1]").count(), 0);
    }

    #[test]
    fn finds_several_members_in_one_pass_the_last_of_a_repeated_key() {
        let found = super::members(r#"{"a": [1, {"d":2}], "b": 1, "d": "x", "b": 2}"#, ["a", "d", "z", "b"]);
        assert_eq!(found, Some([Some(r#"[1, {"d":2}]"#), Some(r#""x""#), None, Some("2")]));
        assert_eq!(super::members(" { } ", ["a"]), Some([None]));
        assert_eq!(super::members("[1]", ["a"]), None);
        assert_eq!(super::members(r#"{"a": 1, "b" 2}"#, ["a"]), None);
    }

    #[test]
    fn lists_array_items_without_decoding_them() {
        let items: Vec<&str> = super::array_items(r#" [ {"url": "a,]"} , 2,[3, 4] ,"s"]"#).collect();
        assert_eq!(items, vec![r#"{"url": "a,]"}"#, "2", "[3, 4]", r#""s""#]);
        assert_eq!(super::array_items("[]").count(), 0);
        assert_eq!(super::array_items(" [ ] ").count(), 0);
        assert_eq!(super::array_items(r#"{"a":1}"#).count(), 0);
        // Malformed: what comes before the fault.
        assert_eq!(super::array_items("[1, ").collect::<Vec<_>>(), vec!["1"]);
    }

    #[test]
    fn arrays_are_read_item_by_item() {
        let array_items = |text| super::array_items(text).collect::<Vec<_>>();
        assert_eq!(
            array_items(r#" [1, {"a":[2]} ,"x"]"#),
            vec!["1", r#"{"a":[2]}"#, "\"x\""]
        );
        assert!(array_items("{}").is_empty());
        assert_eq!(array_items("[1 2]"), vec!["1"]);
        assert_eq!(array_items("[1,"), vec!["1"]);
    }
}
