//! Decoding `samples` and `stackFrames`: typed, borrowed from the input,
//! and tolerant of what real files hold (an odd value is kept as such, so
//! that one field never fails the whole list).

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use tracekit_events::jsnum::js_number_string;
use tracekit_events::{Id, Interner};

/// Decodes on a heap-grown stack, so that deeply nested values in fields
/// nobody reads can neither overflow nor fail the input.
pub(super) fn decode<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, serde_json::Error> {
    let mut json = serde_json::Deserializer::from_str(text);
    json.disable_recursion_limit();
    let value = T::deserialize(serde_stacker::Deserializer::new(&mut json))?;
    json.end()?;
    Ok(value)
}

/// A JSON value where a scalar is expected, as written. Anything else is
/// read over and kept as `Other`, so that one odd field never fails the
/// whole list.
#[derive(Debug)]
pub(super) enum Scalar<'a> {
    Null,
    Num(f64),
    Str(Cow<'a, str>),
    Other,
}

impl<'de> Deserialize<'de> for Scalar<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Scalar<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Other)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Num(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Num(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Num(v))
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Str(Cow::Owned(v)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Null)
            }
            fn visit_none<E: de::Error>(self) -> Result<Scalar<'de>, E> {
                Ok(Scalar::Null)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Scalar<'de>, A::Error> {
                drain_seq(seq)?;
                Ok(Scalar::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Scalar<'de>, A::Error> {
                drain_map(map)?;
                Ok(Scalar::Other)
            }
        }
        d.deserialize_any(V)
    }
}

fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

/// A string holding a number, read as the event reader reads `"ts": "123"`.
fn parse_number(s: &str) -> Option<f64> {
    let t = s.trim();
    match t.as_bytes().first() {
        Some(b'-' | b'0'..=b'9') => t.parse::<f64>().ok().filter(|x| x.is_finite()),
        _ => None,
    }
}

impl Scalar<'_> {
    /// A number, or a string holding one.
    pub(super) fn number(&self) -> Option<f64> {
        match self {
            Scalar::Num(x) => Some(*x).filter(|x| x.is_finite()),
            Scalar::Str(s) => parse_number(s),
            _ => None,
        }
    }

    /// A pid or tid, built as the event reader builds them.
    pub(super) fn id(&self, interner: &mut Interner) -> Option<Id> {
        match self {
            Scalar::Num(x) if x.is_finite() => Some(Id::num(*x)),
            Scalar::Str(s) => Some(Id::str(interner.intern(s))),
            _ => None,
        }
    }

    /// The property key JavaScript would look up (`stackFrames[sf]`).
    pub(super) fn key(&self) -> Option<Cow<'_, str>> {
        match self {
            Scalar::Num(x) => Some(Cow::Owned(js_number_string(*x))),
            Scalar::Str(s) => Some(Cow::Borrowed(s.as_ref())),
            _ => None,
        }
    }

    /// A string, or a number as JavaScript prints it.
    pub(super) fn text(&self) -> Option<Cow<'_, str>> {
        self.key()
    }
}

/// A map key, borrowed from the input unless it has escapes (serde's own
/// `Cow<str>` always copies it).
pub struct MapKey<'a>(pub Cow<'a, str>);

impl<'de> Deserialize<'de> for MapKey<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MapKey<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<MapKey<'de>, E> {
                Ok(MapKey(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<MapKey<'de>, E> {
                Ok(MapKey(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<MapKey<'de>, E> {
                Ok(MapKey(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// The fields of an object the conversion reads; the others are read over.
/// A repeated key keeps its last value, as `JSON.parse` does.
pub(super) trait Fields<'de>: Default {
    /// Reads the value of `key` if it is one of the fields; returns whether
    /// it did.
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error>;
}

/// An object's fields, or `None` when the value is not an object.
pub(super) struct Object<T>(pub(super) Option<T>);

impl<'de, T: Fields<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Fields<'de>> Visitor<'de> for V<T> {
            type Value = Object<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Object<T>, A::Error> {
                let mut fields = T::default();
                while let Some(key) = map.next_key::<MapKey<'de>>()? {
                    if !fields.field(&key.0, &mut map)? {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(Object(Some(fields)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Object<T>, A::Error> {
                drain_seq(seq)?;
                Ok(Object(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Object<T>, E> {
                Ok(Object(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Object<T>, E> {
                Ok(Object(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Object<T>, E> {
                Ok(Object(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Object<T>, E> {
                Ok(Object(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Object<T>, E> {
                Ok(Object(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Object<T>, E> {
                Ok(Object(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Object<T>, E> {
                Ok(Object(None))
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// One entry of `samples`.
#[derive(Default)]
pub(super) struct SampleJson<'a> {
    pub(super) tid: Option<Scalar<'a>>,
    pub(super) pid: Option<Scalar<'a>>,
    pub(super) ts: Option<Scalar<'a>>,
    pub(super) sf: Option<Scalar<'a>>,
}

impl<'de> Fields<'de> for SampleJson<'de> {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
        let slot = match key {
            "tid" => &mut self.tid,
            "pid" => &mut self.pid,
            "ts" => &mut self.ts,
            "sf" => &mut self.sf,
            _ => return Ok(false),
        };
        *slot = Some(map.next_value()?);
        Ok(true)
    }
}

/// One entry of `stackFrames`.
#[derive(Default)]
pub(super) struct FrameJson<'a> {
    pub(super) name: Option<Scalar<'a>>,
    pub(super) category: Option<Scalar<'a>>,
    pub(super) parent: Option<Scalar<'a>>,
    pub(super) url: Option<Scalar<'a>>,
    pub(super) line: Option<Scalar<'a>>,
    pub(super) column: Option<Scalar<'a>>,
    pub(super) func_line: Option<Scalar<'a>>,
    pub(super) func_column: Option<Scalar<'a>>,
}

impl<'de> Fields<'de> for FrameJson<'de> {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
        let slot = match key {
            "name" => &mut self.name,
            "category" => &mut self.category,
            "parent" => &mut self.parent,
            "url" => &mut self.url,
            "line" => &mut self.line,
            "column" => &mut self.column,
            "funcLine" => &mut self.func_line,
            "funcColumn" => &mut self.func_column,
            _ => return Ok(false),
        };
        *slot = Some(map.next_value()?);
        Ok(true)
    }
}

/// `stackFrames`: its entries by key, in input order. An array is read as
/// JavaScript would index it (keys "0", "1", ...).
pub(super) struct FramesJson<'a>(pub(super) Vec<(Cow<'a, str>, Object<FrameJson<'a>>)>);

impl<'de> Deserialize<'de> for FramesJson<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FramesJson<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a stackFrames object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FramesJson<'de>, A::Error> {
                let mut frames = Vec::new();
                while let Some((key, frame)) = map.next_entry::<MapKey<'de>, Object<FrameJson<'de>>>()? {
                    frames.push((key.0, frame));
                }
                Ok(FramesJson(frames))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<FramesJson<'de>, A::Error> {
                let mut frames = Vec::new();
                while let Some(frame) = seq.next_element::<Object<FrameJson<'de>>>()? {
                    frames.push((Cow::Owned(frames.len().to_string()), frame));
                }
                Ok(FramesJson(frames))
            }
        }
        d.deserialize_any(V)
    }
}
