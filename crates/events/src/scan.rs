//! A structural JSON scanner: finds where values start and end without
//! decoding them. It splits the top-level event array into one byte range
//! per event (so that events can be parsed independently, in parallel, and
//! a damaged event does not take the others with it), and it tells a
//! truncated file from a corrupt one. It never recurses, so no input depth
//! can overflow the stack.

use memchr::memchr2;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanError {
    /// The input ended inside a value.
    UnexpectedEnd { offset: usize },
    /// A byte that cannot stand where it stands.
    Unexpected { offset: usize, found: u8 },
}

impl ScanError {
    pub fn offset(&self) -> usize {
        match *self {
            ScanError::UnexpectedEnd { offset } | ScanError::Unexpected { offset, .. } => offset,
        }
    }

    pub fn describe(&self) -> String {
        match *self {
            ScanError::UnexpectedEnd { .. } => "unexpected end of input".to_owned(),
            ScanError::Unexpected { found, .. } => format!("unexpected {}", describe_byte(found)),
        }
    }
}

pub fn describe_byte(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("character '{}'", b as char)
    } else {
        format!("byte 0x{b:02x}")
    }
}

#[inline]
pub fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// `i` is at an opening quote; returns the offset just past the closing one.
pub fn skip_string(b: &[u8], i: usize) -> Result<usize, ScanError> {
    let mut j = i + 1;
    loop {
        match memchr2(b'"', b'\\', &b[j.min(b.len())..]) {
            None => return Err(ScanError::UnexpectedEnd { offset: b.len() }),
            Some(k) => {
                let at = j + k;
                if b[at] == b'"' {
                    return Ok(at + 1);
                }
                // A backslash escapes the next byte, whatever it is.
                j = at + 2;
                if j > b.len() {
                    return Err(ScanError::UnexpectedEnd { offset: b.len() });
                }
            }
        }
    }
}

#[inline]
fn is_scalar_byte(c: u8) -> bool {
    !matches!(
        c,
        b',' | b']' | b'}' | b':' | b' ' | b'\t' | b'\n' | b'\r' | b'"' | b'[' | b'{'
    )
}

/// Skips one JSON value starting at or after `start` (leading whitespace is
/// skipped) and returns the offset just past it. Nesting is tracked on the
/// heap. Scalars are not validated: serde does that when the value is
/// decoded.
pub fn skip_value(b: &[u8], start: usize) -> Result<usize, ScanError> {
    let mut i = skip_ws(b, start);
    let mut closers: Vec<u8> = Vec::new();
    loop {
        if i >= b.len() {
            return Err(ScanError::UnexpectedEnd { offset: b.len() });
        }
        match b[i] {
            b'"' => i = skip_string(b, i)?,
            b'{' => {
                closers.push(b'}');
                i += 1;
            }
            b'[' => {
                closers.push(b']');
                i += 1;
            }
            c @ (b'}' | b']') => {
                if closers.pop() != Some(c) {
                    return Err(ScanError::Unexpected { offset: i, found: c });
                }
                i += 1;
            }
            c @ (b',' | b':') => {
                if closers.is_empty() {
                    return Err(ScanError::Unexpected { offset: i, found: c });
                }
                i = skip_ws(b, i + 1);
                continue;
            }
            b' ' | b'\t' | b'\n' | b'\r' => {
                i = skip_ws(b, i);
                continue;
            }
            c => {
                let s = i;
                while i < b.len() && is_scalar_byte(b[i]) {
                    i += 1;
                }
                if i == s {
                    return Err(ScanError::Unexpected { offset: i, found: c });
                }
                if i == b.len() && !closers.is_empty() {
                    return Err(ScanError::UnexpectedEnd { offset: b.len() });
                }
            }
        }
        if closers.is_empty() {
            return Ok(i);
        }
        i = skip_ws(b, i);
    }
}

/// How the scan of an array ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArrayEnd {
    /// The closing `]` was found; the offset is just past it.
    Closed { after: usize },
    /// The input ended before the array did (the trace event format allows
    /// the closing `]` to be missing). `offset` is where the first
    /// incomplete element starts, or the end of the input.
    Truncated { offset: usize },
    /// Bytes that cannot continue the array: loading stops there.
    Damaged { offset: usize, message: String },
}

/// The elements of one JSON array, as byte ranges of the input.
#[derive(Debug, Clone)]
pub struct ArraySplit {
    pub elements: Vec<(usize, usize)>,
    pub end: ArrayEnd,
}

/// Splits the array whose `[` is at `open` into its elements.
pub fn split_array(b: &[u8], open: usize) -> ArraySplit {
    debug_assert_eq!(b.get(open), Some(&b'['));
    let mut elements = Vec::new();
    let mut i = open + 1;
    let end = loop {
        i = skip_ws(b, i);
        if i >= b.len() {
            break ArrayEnd::Truncated { offset: b.len() };
        }
        if b[i] == b']' {
            // Also accepts a trailing comma before the bracket.
            break ArrayEnd::Closed { after: i + 1 };
        }
        let start = i;
        match skip_value(b, i) {
            Ok(end) => {
                elements.push((start, end));
                i = skip_ws(b, end);
                if i >= b.len() {
                    break ArrayEnd::Truncated { offset: b.len() };
                }
                match b[i] {
                    b',' => i += 1,
                    b']' => break ArrayEnd::Closed { after: i + 1 },
                    c => {
                        break ArrayEnd::Damaged {
                            offset: i,
                            message: format!("expected ',' or ']' after an event, found {}", describe_byte(c)),
                        }
                    }
                }
            }
            Err(ScanError::UnexpectedEnd { .. }) => break ArrayEnd::Truncated { offset: start },
            Err(e) => {
                break ArrayEnd::Damaged {
                    offset: e.offset(),
                    message: e.describe(),
                }
            }
        }
    };
    ArraySplit { elements, end }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts<'a>(src: &'a str, split: &ArraySplit) -> Vec<&'a str> {
        split.elements.iter().map(|&(s, e)| &src[s..e]).collect()
    }

    #[test]
    fn splits_a_closed_array() {
        let src = r#"[ {"a":[1,{"b":"x]}"}]}, 2 ,"s\"]" ]"#;
        let split = split_array(src.as_bytes(), 0);
        assert_eq!(texts(src, &split), vec![r#"{"a":[1,{"b":"x]}"}]}"#, "2", r#""s\"]""#]);
        assert_eq!(split.end, ArrayEnd::Closed { after: src.len() });
    }

    #[test]
    fn accepts_a_trailing_comma_and_a_missing_bracket() {
        let src = "[{\"a\":1},\n{\"a\":2},\n";
        let split = split_array(src.as_bytes(), 0);
        assert_eq!(split.elements.len(), 2);
        assert_eq!(split.end, ArrayEnd::Truncated { offset: src.len() });
    }

    #[test]
    fn stops_before_an_event_cut_in_the_middle() {
        let src = r#"[{"a":1},{"a":"#;
        let split = split_array(src.as_bytes(), 0);
        assert_eq!(split.elements.len(), 1);
        assert_eq!(split.end, ArrayEnd::Truncated { offset: 9 });
    }

    #[test]
    fn reports_damage_with_its_offset() {
        let src = r#"[{"a":1}}"#;
        let split = split_array(src.as_bytes(), 0);
        assert_eq!(split.elements.len(), 1);
        assert!(matches!(split.end, ArrayEnd::Damaged { offset: 8, .. }));
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        let depth = 200_000;
        let src = format!("[{}{}]", "[".repeat(depth), "]".repeat(depth));
        let split = split_array(src.as_bytes(), 0);
        assert_eq!(split.elements.len(), 1);
        let cut = &src[..depth];
        assert_eq!(split_array(cut.as_bytes(), 0).end, ArrayEnd::Truncated { offset: 1 });
    }
}
