//! The few values of `args` the frame model compares, kept as JavaScript
//! compares them: `===` between values read from different events.

use tracekit_events::json::{as_f64, as_str};
use tracekit_events::{EventIndex, Interner, Sym};

/// A scalar read from an event's `args`, as JavaScript holds it, for the
/// ids the frame model matches (`layerTreeId`, `frameSeqId`, `frameId`,
/// `layerId`). Two values are equal exactly when JavaScript's `===` says
/// so (and `Map` keys them alike): numbers by value (`-0` is `0`), strings
/// by text, and an object or array only with itself (JSON has no `NaN`).
#[derive(Debug, Clone, Copy, Default)]
pub enum ArgValue {
    /// Absent (`undefined`).
    #[default]
    Undefined,
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number.
    Num(f64),
    /// A string, interned.
    Str(Sym),
    /// An object or an array: its JSON text, interned, and the event it
    /// was read from (its identity: no other value is `===` to it).
    Other {
        /// The raw JSON text.
        text: Sym,
        /// The index of the event whose args hold it.
        event: EventIndex,
    },
}

impl PartialEq for ArgValue {
    fn eq(&self, other: &ArgValue) -> bool {
        match (self, other) {
            (ArgValue::Undefined, ArgValue::Undefined) | (ArgValue::Null, ArgValue::Null) => true,
            (ArgValue::Bool(a), ArgValue::Bool(b)) => a == b,
            (ArgValue::Num(a), ArgValue::Num(b)) => a == b,
            (ArgValue::Str(a), ArgValue::Str(b)) => a == b,
            (ArgValue::Other { text: a, event: x }, ArgValue::Other { text: b, event: y }) => a == b && x == y,
            _ => false,
        }
    }
}

impl Eq for ArgValue {}

impl std::hash::Hash for ArgValue {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            ArgValue::Undefined | ArgValue::Null => {}
            ArgValue::Bool(b) => b.hash(state),
            // -0 and 0 are one key, as they are equal.
            ArgValue::Num(x) => (if *x == 0.0 { 0.0f64 } else { *x }).to_bits().hash(state),
            ArgValue::Str(s) => s.hash(state),
            ArgValue::Other { text, event } => (text, event).hash(state),
        }
    }
}

impl ArgValue {
    /// The value of the raw JSON text `raw` (`None`: absent), read from
    /// event `event`.
    pub fn read(raw: Option<&str>, event: EventIndex, interner: &mut Interner) -> ArgValue {
        let Some(raw) = raw.map(str::trim) else {
            return ArgValue::Undefined;
        };
        match raw {
            "null" => ArgValue::Null,
            "true" => ArgValue::Bool(true),
            "false" => ArgValue::Bool(false),
            _ => {
                if let Some(x) = as_f64(raw) {
                    ArgValue::Num(x)
                } else if let Some(s) = as_str(raw) {
                    ArgValue::Str(interner.intern(&s))
                } else {
                    ArgValue::Other {
                        text: interner.intern(raw),
                        event,
                    }
                }
            }
        }
    }

    /// JavaScript's truthiness of the value.
    pub fn is_truthy(self, interner: &Interner) -> bool {
        match self {
            ArgValue::Undefined | ArgValue::Null => false,
            ArgValue::Bool(b) => b,
            ArgValue::Num(x) => x != 0.0 && !x.is_nan(),
            ArgValue::Str(s) => !interner.resolve(s).is_empty(),
            ArgValue::Other { .. } => true,
        }
    }

    /// The value as a property key (`String(value)`), interned: what a
    /// plain object keys a member by.
    pub fn property_key(self, interner: &mut Interner) -> Sym {
        match self {
            ArgValue::Undefined => interner.intern("undefined"),
            ArgValue::Null => interner.intern("null"),
            ArgValue::Bool(b) => interner.intern(if b { "true" } else { "false" }),
            ArgValue::Num(x) => interner.intern(&tracekit_events::jsnum::js_number_string(x)),
            ArgValue::Str(s) => s,
            ArgValue::Other { text, .. } => {
                if interner.resolve(text).starts_with('[') {
                    // An array's String() joins its items: its JSON text,
                    // unbracketed, is close enough for the numbers and
                    // strings ids are made of.
                    let inner = interner
                        .resolve(text)
                        .trim_matches(|c| c == '[' || c == ']')
                        .replace('"', "");
                    interner.intern(&inner)
                } else {
                    interner.intern("[object Object]")
                }
            }
        }
    }
}

/// JavaScript's `Number(s)` of a string: decimal (with an optional sign,
/// exponent, `Infinity`), `0x`, `0o` and `0b` integers, whitespace around
/// ignored, the empty string 0, anything else `NaN`.
pub fn js_string_to_number(s: &str) -> f64 {
    let t = s.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if t.is_empty() {
        return 0.0;
    }
    let radix = match t.get(..2) {
        Some("0x" | "0X") => Some(16),
        Some("0o" | "0O") => Some(8),
        Some("0b" | "0B") => Some(2),
        _ => None,
    };
    if let Some(radix) = radix {
        let digits = &t[2..];
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return f64::NAN;
        }
        return digits.chars().fold(0.0, |n, c| {
            n * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
        });
    }
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    if unsigned == "Infinity" {
        return if t.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    // Rust's parser also takes "inf" and "nan", which JavaScript does not.
    let decimal = unsigned
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    if !decimal || !unsigned.bytes().next().is_some_and(|b| b.is_ascii_digit() || b == b'.') {
        return f64::NAN;
    }
    t.parse().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_of_a_string_is_javascripts() {
        assert_eq!(js_string_to_number("0x1f"), 31.0);
        assert_eq!(js_string_to_number(" 12 "), 12.0);
        assert_eq!(js_string_to_number(""), 0.0);
        assert_eq!(js_string_to_number("-1.5e2"), -150.0);
        assert_eq!(js_string_to_number("-Infinity"), f64::NEG_INFINITY);
        for nan in ["inf", "NaN", "0x", "-0x1", "1a", "e5", "."] {
            assert!(js_string_to_number(nan).is_nan(), "{nan}");
        }
    }

    #[test]
    fn values_compare_as_javascripts_strict_equality() {
        let mut interner = Interner::new();
        let mut read = |raw: Option<&str>, event| ArgValue::read(raw, event, &mut interner);
        assert_eq!(read(Some("1"), 0), read(Some("1.0"), 1));
        assert_eq!(read(Some("-0"), 0), read(Some("0"), 1));
        assert_ne!(read(Some("1"), 0), read(Some("\"1\""), 1));
        assert_ne!(read(None, 0), read(Some("null"), 1));
        assert_ne!(read(Some("{}"), 0), read(Some("{}"), 1));
        assert_eq!(read(Some("{}"), 3), read(Some("{}"), 3));
    }
}
