//! Small JSON writing helpers shared by every output.

/// Appends `s` as a JSON string literal, escaped as `JSON.stringify` does.
pub fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let escape: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            0..=0x1f => None,
            _ => continue,
        };
        out.push_str(&s[start..i]);
        match escape {
            Some(e) => out.push_str(e),
            None => {
                use std::fmt::Write;
                let _ = write!(out, "\\u{:04x}", b);
            }
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_like_json_stringify() {
        let mut s = String::new();
        super::write_json_string(&mut s, "a\"b\\c\nd\u{1}é");
        assert_eq!(s, "\"a\\\"b\\\\c\\nd\\u0001é\"");
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

/// The members of the JSON object `text`, in order, as (key, raw value
/// text), found with the structural scanner: nothing is decoded but the
/// keys. Stops early on malformed input.
pub fn object_members(text: &str) -> ObjectMembers<'_> {
    let b = text.as_bytes();
    let start = crate::scan::skip_ws(b, 0);
    let at = if b.get(start) == Some(&b'{') {
        Some(start + 1)
    } else {
        None
    };
    ObjectMembers { text, at }
}

pub struct ObjectMembers<'a> {
    text: &'a str,
    at: Option<usize>,
}

impl<'a> Iterator for ObjectMembers<'a> {
    type Item = (std::borrow::Cow<'a, str>, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        use crate::scan::{scan_string, skip_value, skip_ws};
        let b = self.text.as_bytes();
        let mut i = skip_ws(b, self.at.take()?);
        if b.get(i) == Some(&b',') {
            i = skip_ws(b, i + 1);
        }
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let (key_end, escaped) = scan_string(b, i).ok()?;
        let key = if escaped {
            std::borrow::Cow::Owned(serde_json::from_str::<String>(&self.text[i..key_end]).ok()?)
        } else {
            std::borrow::Cow::Borrowed(&self.text[i + 1..key_end - 1])
        };
        let colon = skip_ws(b, key_end);
        if b.get(colon) != Some(&b':') {
            return None;
        }
        let value = skip_ws(b, colon + 1);
        let end = skip_value(b, value).ok()?;
        self.at = Some(end);
        Some((key, &self.text[value..end]))
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
}
