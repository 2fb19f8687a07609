//! The typed, borrowed trace event.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde_json::value::RawValue;

use crate::jsnum::write_js_number;
use crate::sym::{Interner, Sym};

/// The `ph` field of a trace event: one ASCII character.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Phase(pub u8);

impl Phase {
    pub const BEGIN: Phase = Phase(b'B');
    pub const END: Phase = Phase(b'E');
    pub const COMPLETE: Phase = Phase(b'X');
    pub const INSTANT: Phase = Phase(b'I');
    pub const SAMPLE: Phase = Phase(b'P');
    pub const METADATA: Phase = Phase(b'M');
    /// A missing `ph`, or one that is not a single character.
    pub const OTHER: Phase = Phase(0);

    pub fn from_str(s: &str) -> Phase {
        match s.as_bytes() {
            [c] => Phase(*c),
            _ => Phase::OTHER,
        }
    }
}

/// A process, thread, or event id as the trace spells it. JavaScript keys
/// maps by value and type, so `1` and `1.0` are the same id and `"1"` is
/// another one; so are they here.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Id {
    /// Absent from the event (JavaScript's `undefined`).
    Missing,
    /// A number, stored as the bits of the double (with -0 folded into 0).
    Num(u64),
    Str(Sym),
}

impl Id {
    pub fn num(x: f64) -> Id {
        let x = if x == 0.0 { 0.0 } else { x };
        Id::Num(x.to_bits())
    }

    pub fn as_f64(self) -> Option<f64> {
        match self {
            Id::Num(bits) => Some(f64::from_bits(bits)),
            _ => None,
        }
    }

    /// Writes the id as a JSON value (`null` when missing).
    pub fn write_json(self, out: &mut String, interner: &Interner) {
        match self {
            Id::Missing => out.push_str("null"),
            Id::Num(bits) => crate::jsnum::write_json_number(out, f64::from_bits(bits)),
            Id::Str(sym) => crate::json::write_json_string(out, interner.resolve(sym)),
        }
    }

    /// The id as JavaScript's template strings print it (`${tid}`).
    pub fn to_js_string(self, interner: &Interner) -> String {
        match self {
            Id::Missing => "undefined".to_owned(),
            Id::Num(bits) => {
                let mut s = String::new();
                write_js_number(&mut s, f64::from_bits(bits));
                s
            }
            Id::Str(sym) => interner.resolve(sym).to_owned(),
        }
    }
}

/// One trace event, borrowing its `args` from the input buffer. Only the
/// fields the engine reads are decoded; `args` stays raw JSON until a
/// handler asks for it.
#[derive(Copy, Clone, Debug)]
pub struct Event<'a> {
    pub name: Sym,
    pub cat: Sym,
    pub ph: Phase,
    pub ts: f64,
    pub dur: Option<f64>,
    pub pid: Id,
    pub tid: Id,
    pub id: Option<Id>,
    pub args: Option<&'a RawValue>,
}

impl<'a> Event<'a> {
    /// The raw `args` text, or `""` when the event has none.
    pub fn args_text(&self) -> &'a str {
        self.args.map(RawValue::get).unwrap_or("")
    }
}

/// The JSON shape of an event, as serde reads it. Strings borrow from the
/// input unless they contain escapes.
#[derive(serde::Deserialize)]
pub(crate) struct EventJson<'a> {
    #[serde(borrow)]
    pub name: Option<JsonStr<'a>>,
    #[serde(borrow)]
    pub cat: Option<JsonStr<'a>>,
    #[serde(borrow)]
    pub ph: Option<JsonStr<'a>>,
    pub ts: Option<Number>,
    pub dur: Option<Number>,
    #[serde(borrow)]
    pub pid: Option<IdJson<'a>>,
    #[serde(borrow)]
    pub tid: Option<IdJson<'a>>,
    #[serde(borrow)]
    pub id: Option<IdJson<'a>>,
    #[serde(borrow)]
    pub args: Option<&'a RawValue>,
}

/// A JSON string that borrows from the input when it has no escapes.
pub(crate) struct JsonStr<'a>(pub std::borrow::Cow<'a, str>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for JsonStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = JsonStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(JsonStr(v.into()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(JsonStr(v.to_owned().into()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(JsonStr(v.into()))
            }
        }
        d.deserialize_str(V)
    }
}

/// A number, or a string holding one (some tools write `"ts":"123"`).
pub(crate) struct Number {
    pub value: f64,
    pub was_string: bool,
}

impl<'de> serde::Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Number;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Number, E> {
                Ok(Number {
                    value: v as f64,
                    was_string: false,
                })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Number, E> {
                Ok(Number {
                    value: v as f64,
                    was_string: false,
                })
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Number, E> {
                Ok(Number {
                    value: v,
                    was_string: false,
                })
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Number, E> {
                match v.trim().parse::<f64>() {
                    Ok(value) if value.is_finite() => Ok(Number {
                        value,
                        was_string: true,
                    }),
                    _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// A pid, tid or id: a number or a string.
pub(crate) enum IdJson<'a> {
    Num(f64),
    Str(std::borrow::Cow<'a, str>),
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for IdJson<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = IdJson<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number or a string")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(IdJson::Num(v as f64))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(IdJson::Num(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(IdJson::Num(v))
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(IdJson::Str(v.into()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(IdJson::Str(v.to_owned().into()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(IdJson::Str(v.into()))
            }
        }
        d.deserialize_any(V)
    }
}

impl IdJson<'_> {
    pub(crate) fn intern(&self, interner: &mut Interner) -> Id {
        match self {
            IdJson::Num(x) => Id::num(*x),
            IdJson::Str(s) => Id::Str(interner.intern(s)),
        }
    }
}
