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
