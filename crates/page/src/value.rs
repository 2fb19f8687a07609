//! A member of an event's args that DevTools copies as it is into the
//! data it makes ([`JsValue`]): kept compact, with JavaScript's view of it
//! (`undefined` when absent, truthiness, `??`, `Number()`), so that the
//! data reads the trace's values whatever their type.

use tracekit_events::dump::Value;
use tracekit_events::json::{as_f64, as_str};
use tracekit_events::{names, Interner, Strings, Sym};

/// A JSON value of the input, as DevTools holds it.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum JsValue {
    /// Absent (JavaScript's `undefined`).
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
    /// An object or an array: its JSON text.
    Raw(Box<str>),
}

impl JsValue {
    /// The value of a raw JSON text (`None`: absent).
    pub fn read(raw: Option<&str>, interner: &mut Interner) -> JsValue {
        let Some(raw) = raw.map(str::trim) else {
            return JsValue::Undefined;
        };
        match raw {
            "null" => JsValue::Null,
            "true" => JsValue::Bool(true),
            "false" => JsValue::Bool(false),
            _ => {
                if let Some(s) = as_str(raw) {
                    JsValue::Str(interner.intern(&s))
                } else if let Some(x) = as_f64(raw) {
                    JsValue::Num(x)
                } else {
                    JsValue::Raw(raw.into())
                }
            }
        }
    }

    /// Whether it is `null` or `undefined`.
    pub fn is_nullish(&self) -> bool {
        matches!(self, JsValue::Undefined | JsValue::Null)
    }

    /// JavaScript truthiness.
    pub fn is_truthy(&self) -> bool {
        match self {
            JsValue::Undefined | JsValue::Null => false,
            JsValue::Bool(b) => *b,
            JsValue::Num(x) => *x != 0.0 && !x.is_nan(),
            JsValue::Str(s) => *s != names::EMPTY,
            JsValue::Raw(_) => true,
        }
    }

    /// `self ?? other`.
    pub fn or(&self, other: JsValue) -> JsValue {
        if self.is_nullish() {
            other
        } else {
            self.clone()
        }
    }

    /// `self || other`.
    pub fn or_falsy(&self, other: JsValue) -> JsValue {
        if self.is_truthy() {
            self.clone()
        } else {
            other
        }
    }

    /// The string, when it is one.
    pub fn as_sym(&self) -> Option<Sym> {
        match self {
            JsValue::Str(s) => Some(*s),
            _ => None,
        }
    }

    /// The number, when it is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            JsValue::Num(x) => Some(*x),
            _ => None,
        }
    }

    /// The boolean, when it is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            JsValue::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// JavaScript's `Number(value)` (an object or array: `NaN`).
    pub fn to_number(&self, strings: &Strings) -> f64 {
        match self {
            JsValue::Undefined | JsValue::Raw(_) => f64::NAN,
            JsValue::Null => 0.0,
            JsValue::Bool(b) => f64::from(u8::from(*b)),
            JsValue::Num(x) => *x,
            JsValue::Str(s) => {
                let text = strings.resolve(*s).trim();
                if text.is_empty() {
                    0.0
                } else {
                    text.parse().unwrap_or(f64::NAN)
                }
            }
        }
    }

    /// The value in the data conformance dump (`undefined` as `null`).
    pub fn dump(&self) -> Value {
        match self {
            JsValue::Undefined | JsValue::Null => Value::Null,
            JsValue::Bool(b) => Value::Bool(*b),
            JsValue::Num(x) => Value::Num(*x),
            JsValue::Str(s) => Value::Sym(*s),
            JsValue::Raw(text) => Value::Json(text.clone()),
        }
    }
}

pub use tracekit_events::json::js_number;

/// JavaScript truthiness of a JSON value parsed whole (the few details
/// that DevTools reads with `JSON.parse`): not `null`, `false`, `0`, `NaN`
/// or `""`.
pub(crate) fn json_truthy(value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::Null => false,
        serde_json::Value::Bool(b) => *b,
        serde_json::Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
        serde_json::Value::String(s) => !s.is_empty(),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_keep_javascripts_view() {
        let mut interner = Interner::new();
        let empty = JsValue::read(Some("\"\""), &mut interner);
        assert!(!empty.is_truthy() && !empty.is_nullish());
        assert_eq!(
            JsValue::read(None, &mut interner).or(JsValue::Num(1.0)),
            JsValue::Num(1.0)
        );
        assert_eq!(JsValue::read(Some("null"), &mut interner).dump(), Value::Null);
        assert_eq!(
            JsValue::read(Some("{\"a\":1}"), &mut interner),
            JsValue::Raw("{\"a\":1}".into())
        );
        assert_eq!(js_number(Some("null")), 0.0);
        assert!(js_number(None).is_nan());
        assert_eq!(js_number(Some("\" 5 \"")), 5.0);
    }
}
