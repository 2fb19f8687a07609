//! The data conformance dump: every handler's data as one canonical JSON
//! document, the one DevTools' side writes from its own handlers (the
//! oracle's `devtools-data.mjs`), so that the two compare value by value.
//!
//! Each handler's data becomes a [`Value`] tree ([`Dump::handler`]); the
//! [`Dump`] then writes the document by the dump's rules:
//!
//! - an event of the input is `"#N"`, `N` its index in the event array
//!   ([`Value::Event`]);
//! - an event a handler made (DevTools' synthetic events) is `"$KEY"`, its
//!   fields written once under `synthetic[KEY]` ([`Synthetic`]); `KEY` is
//!   `NAME:PID:TID:TS`, then `:#N` for the input event it was made from,
//!   then `:NODE:SAMPLE` for a ProfileCall, and `:2`, `:3`... for a second
//!   and third event of the same key, in the order the walk meets them;
//! - maps are `{"$map": [[K, V], ...]}` and sets `{"$set": [...]}`, sorted
//!   by the JSON text of the key or item, objects' members by name;
//! - numbers are rounded to 0.001 (`Math.round(x * 1000) / 1000`), and
//!   strings longer than 1,000 UTF-16 units become `"$str:LENGTH:SHA1"`.
//!
//! The walk visits what it writes in DevTools' order (handlers by name,
//! members by name, maps and sets in their own order before sorting), so
//! that the synthetic events' keys are numbered as DevTools numbers them.

use std::borrow::Cow;

use crate::jsnum::{js_round, write_json_number};
use crate::json::write_json_string;
use crate::{EventIndex, Id, Strings, Sym};

/// One value of a handler's data, as the dump writes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null` (DevTools' `null` or `undefined` in a list; an `undefined`
    /// member is left out of its object instead).
    Null,
    /// A boolean.
    Bool(bool),
    /// A number, written rounded to 0.001 (`NaN` and infinities as
    /// strings).
    Num(f64),
    /// A string.
    Str(Cow<'static, str>),
    /// An interned string.
    Sym(Sym),
    /// An event of the input, by its index: `"#N"`.
    Event(EventIndex),
    /// An event a handler made: `"$KEY"`, its fields under
    /// `synthetic[KEY]`.
    Synthetic(SyntheticId),
    /// A list, in its order.
    Array(Vec<Value>),
    /// A plain object; its members are written sorted by name.
    Object(Vec<(Cow<'static, str>, Value)>),
    /// A `Map`, in insertion order (written sorted).
    Map(Vec<(Value, Value)>),
    /// A `Set`, in insertion order (written sorted).
    Set(Vec<Value>),
    /// The text of a JSON value copied from the input (an event's `args`),
    /// written by the same rules.
    Json(Box<str>),
    /// What DevTools holds in a `WeakMap` (or `WeakSet`): its dump cannot
    /// list one, so the conformance dump writes `{}`, as DevTools' does;
    /// `tracekit data --format json` writes the value (a [`Value::Map`]),
    /// which is what a user of the data asks for.
    Weak(Box<Value>),
}

impl Value {
    /// A string.
    pub fn str(s: impl Into<Cow<'static, str>>) -> Value {
        Value::Str(s.into())
    }

    /// A process or thread id as DevTools holds it: a number or a string
    /// (`null` when the event had none).
    pub fn id(id: Id) -> Value {
        if let Some(x) = id.as_f64() {
            Value::Num(x)
        } else if let Some(s) = id.as_sym() {
            Value::Sym(s)
        } else {
            Value::Null
        }
    }

    /// `Some(x)` as `x`, `None` as `null`.
    pub fn opt<T>(x: Option<T>, f: impl FnOnce(T) -> Value) -> Value {
        x.map_or(Value::Null, f)
    }

    /// A list of input events.
    pub fn events(events: impl IntoIterator<Item = EventIndex>) -> Value {
        Value::Array(events.into_iter().map(Value::Event).collect())
    }
}

/// A plain object's members, built in any order (written sorted).
#[derive(Debug, Default, Clone)]
pub struct Object(Vec<(Cow<'static, str>, Value)>);

impl Object {
    /// An empty object.
    pub fn new() -> Object {
        Object::default()
    }

    /// Adds a member.
    pub fn with(mut self, name: impl Into<Cow<'static, str>>, value: Value) -> Object {
        self.0.push((name.into(), value));
        self
    }

    /// Adds a member when `value` is `Some` (DevTools' `undefined` members
    /// are left out).
    pub fn with_some(self, name: impl Into<Cow<'static, str>>, value: Option<Value>) -> Object {
        match value {
            Some(value) => self.with(name, value),
            None => self,
        }
    }

    /// Adds a member in place.
    pub fn push(&mut self, name: impl Into<Cow<'static, str>>, value: Value) {
        self.0.push((name.into(), value));
    }
}

impl From<Object> for Value {
    fn from(o: Object) -> Value {
        Value::Object(o.0)
    }
}

/// The handle of a synthetic event registered in a [`Dump`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SyntheticId(u32);

/// An event a handler made, as the dump keys and writes it.
#[derive(Debug, Clone)]
pub struct Synthetic {
    /// Its `name`.
    pub name: Cow<'static, str>,
    /// Its `pid`.
    pub pid: Value,
    /// Its `tid`.
    pub tid: Value,
    /// Its `ts`, in microseconds.
    pub ts: f64,
    /// The input event it was made from (DevTools' `rawSourceEvent`).
    pub raw: Option<EventIndex>,
    /// For a ProfileCall: its node id and sample index (its fields are not
    /// written: the tracks dump has them).
    pub profile_call: Option<(i64, i64)>,
    /// Its fields, `name`, `pid`, `tid`, `ts` included (`None` for a
    /// ProfileCall).
    pub fields: Option<Value>,
}

/// What the walk knows of a synthetic event.
#[derive(Debug)]
struct Registered {
    event: Synthetic,
    /// Its key, once the walk has met it.
    key: Option<String>,
}

/// A data conformance dump being made: the handlers' values and the
/// synthetic events they refer to.
#[derive(Debug)]
pub struct Dump<'s> {
    strings: &'s Strings,
    handlers: Vec<(&'static str, Value)>,
    insight_sets: Vec<Value>,
    synthetics: Vec<Registered>,
    /// Synthetic events registered once under a handler's own key (one
    /// object that several handlers refer to).
    shared: ahash::AHashMap<(&'static str, u64), SyntheticId>,
}

impl<'s> Dump<'s> {
    /// An empty dump whose symbols resolve in `strings`.
    pub fn new(strings: &'s Strings) -> Dump<'s> {
        Dump {
            strings,
            handlers: Vec::new(),
            insight_sets: Vec::new(),
            synthetics: Vec::new(),
            shared: ahash::AHashMap::default(),
        }
    }

    /// The strings the symbols of the values resolve in.
    pub fn strings(&self) -> &'s Strings {
        self.strings
    }

    /// Adds a handler's data under its DevTools name.
    pub fn handler(&mut self, name: &'static str, value: Value) {
        self.handlers.push((name, value));
    }

    /// Adds an insight set, after those added before it (the walk meets
    /// the sets after every handler, as DevTools' dump does).
    pub fn insight_set(&mut self, value: Value) {
        self.insight_sets.push(value);
    }

    /// Registers a synthetic event; each call registers a new one.
    pub fn synthetic(&mut self, event: Synthetic) -> SyntheticId {
        let id = SyntheticId(u32::try_from(self.synthetics.len()).unwrap_or(u32::MAX));
        self.synthetics.push(Registered { event, key: None });
        id
    }

    /// The synthetic event registered under `(owner, index)`, made by
    /// `make` the first time: one object that several handlers' data refer
    /// to (a network request, a screenshot) is one synthetic event.
    pub fn shared(
        &mut self,
        owner: &'static str,
        index: u64,
        make: impl FnOnce(&mut Dump<'s>) -> Synthetic,
    ) -> SyntheticId {
        if let Some(&id) = self.shared.get(&(owner, index)) {
            return id;
        }
        let event = make(self);
        let id = self.synthetic(event);
        self.shared.insert((owner, index), id);
        id
    }

    /// Writes the document: `{"handlers": {...}, "insights": [...],
    /// "synthetic": {...}}`, by the dump's rules.
    pub fn write(self, out: &mut String) {
        self.write_with(out, Rules::CONFORMANCE);
    }

    /// Writes the document by `rules`.
    pub fn write_with(mut self, out: &mut String, rules: Rules) {
        let mut handlers = std::mem::take(&mut self.handlers);
        handlers.sort_by(|a, b| a.0.cmp(b.0));
        let mut walk = Walk {
            rules,
            strings: self.strings,
            synthetics: &mut self.synthetics,
            key_counts: ahash::AHashMap::default(),
            synthetic_out: Vec::new(),
        };
        let mut body = String::from("{");
        for (i, (name, value)) in handlers.iter().enumerate() {
            if i > 0 {
                body.push(',');
            }
            write_json_string(&mut body, name);
            body.push(':');
            walk.value(value, &mut body);
        }
        body.push_str("},\"insights\":[");
        for (i, set) in self.insight_sets.iter().enumerate() {
            if i > 0 {
                body.push(',');
            }
            walk.value(set, &mut body);
        }
        body.push(']');
        out.push_str("{\"handlers\":");
        out.push_str(&body);
        out.push_str(",\"synthetic\":{");
        for (i, (key, fields)) in walk.synthetic_out.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_json_string(out, key);
            out.push(':');
            out.push_str(fields);
        }
        out.push_str("}}");
    }
}

/// How numbers and long strings are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// Numbers rounded to 0.001, and strings longer than 1,000 UTF-16 units
    /// as `$str:LENGTH:SHA1`: the dump compared with DevTools'.
    pub conformance: bool,
}

impl Rules {
    /// The data conformance dump's rules.
    pub const CONFORMANCE: Rules = Rules { conformance: true };
    /// Every number and string as it is (`tracekit data --format json`).
    pub const EXACT: Rules = Rules { conformance: false };
}

/// The walk that writes values, numbering the synthetic events as it
/// meets them.
struct Walk<'a> {
    rules: Rules,
    strings: &'a Strings,
    synthetics: &'a mut Vec<Registered>,
    key_counts: ahash::AHashMap<String, u32>,
    /// Each synthetic event's key and fields, in the order first met.
    synthetic_out: Vec<(String, String)>,
}

impl Walk<'_> {
    fn value(&mut self, value: &Value, out: &mut String) {
        match value {
            Value::Null => out.push_str("null"),
            Value::Weak(inner) => {
                if self.rules.conformance {
                    out.push_str("{}");
                } else {
                    self.value(inner, out);
                }
            }
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Num(x) => number(*x, self.rules, out),
            Value::Str(s) => string(s, self.rules, out),
            Value::Sym(s) => string(self.strings.resolve(*s), self.rules, out),
            Value::Event(i) => {
                out.push_str("\"#");
                out.push_str(itoa::Buffer::new().format(*i));
                out.push('"');
            }
            Value::Synthetic(id) => {
                let key = self.synthetic_key(*id);
                out.push('"');
                out.push('$');
                let mut quoted = String::new();
                write_json_string(&mut quoted, &key);
                out.push_str(&quoted[1..]);
            }
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    self.value(item, out);
                }
                out.push(']');
            }
            Value::Object(members) => self.object(members, out),
            Value::Map(rows) => {
                let mut written: Vec<(String, String)> = rows
                    .iter()
                    .map(|(k, v)| {
                        let (mut key, mut val) = (String::new(), String::new());
                        self.value(k, &mut key);
                        self.value(v, &mut val);
                        (key, val)
                    })
                    .collect();
                written.sort_by(|a, b| utf16_cmp(&a.0, &b.0));
                out.push_str("{\"$map\":[");
                for (i, (k, v)) in written.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push('[');
                    out.push_str(k);
                    out.push(',');
                    out.push_str(v);
                    out.push(']');
                }
                out.push_str("]}");
            }
            Value::Set(items) => {
                let mut written: Vec<String> = items
                    .iter()
                    .map(|v| {
                        let mut s = String::new();
                        self.value(v, &mut s);
                        s
                    })
                    .collect();
                written.sort_by(|a, b| utf16_cmp(a, b));
                out.push_str("{\"$set\":[");
                out.push_str(&written.join(","));
                out.push_str("]}");
            }
            Value::Json(text) => match serde_json::from_str::<serde_json::Value>(text) {
                Ok(v) => json(&v, self.rules, out),
                Err(_) => out.push_str("null"),
            },
        }
    }

    fn object(&mut self, members: &[(Cow<'static, str>, Value)], out: &mut String) {
        let mut order: Vec<usize> = (0..members.len()).collect();
        order.sort_by(|&a, &b| utf16_cmp(&members[a].0, &members[b].0));
        out.push('{');
        for (n, &i) in order.iter().enumerate() {
            if n > 0 {
                out.push(',');
            }
            write_json_string(out, &members[i].0);
            out.push(':');
            self.value(&members[i].1, out);
        }
        out.push('}');
    }

    /// The key of a synthetic event, given (and its fields written) the
    /// first time the walk meets it.
    fn synthetic_key(&mut self, id: SyntheticId) -> String {
        let at = id.0 as usize;
        if let Some(key) = &self.synthetics[at].key {
            return key.clone();
        }
        let event = &self.synthetics[at].event;
        let mut key = format!(
            "{}:{}:{}:",
            event.name,
            js_string(&event.pid, self.strings),
            js_string(&event.tid, self.strings)
        );
        number(event.ts, Rules::CONFORMANCE, &mut key);
        if let Some(raw) = event.raw {
            key.push_str(":#");
            key.push_str(itoa::Buffer::new().format(raw));
        }
        if let Some((node, sample)) = event.profile_call {
            key.push_str(&format!(":{node}:{sample}"));
        }
        let count = self.key_counts.entry(key.clone()).or_insert(0);
        *count += 1;
        if *count > 1 {
            key.push_str(&format!(":{count}"));
        }
        self.synthetics[at].key = Some(key.clone());
        let slot = self.synthetic_out.len();
        self.synthetic_out.push((key.clone(), "null".to_owned()));
        if let Some(fields) = self.synthetics[at].event.fields.clone() {
            let mut text = String::new();
            self.value(&fields, &mut text);
            self.synthetic_out[slot].1 = text;
        }
        key
    }
}

/// A value as JavaScript's template strings write it (a synthetic event's
/// key).
fn js_string(value: &Value, strings: &Strings) -> String {
    match value {
        Value::Num(x) => crate::jsnum::js_number_string(*x),
        Value::Str(s) => s.to_string(),
        Value::Sym(s) => strings.resolve(*s).to_owned(),
        Value::Null => "undefined".to_owned(),
        Value::Bool(b) => b.to_string(),
        _ => String::new(),
    }
}

/// A number (rounded to 0.001 by the conformance rules); `NaN` and the
/// infinities as strings.
fn number(x: f64, rules: Rules, out: &mut String) {
    if x.is_finite() && !rules.conformance {
        write_json_number(out, x);
    } else if x.is_finite() {
        write_json_number(out, js_round(x * 1000.0) / 1000.0);
    } else if x.is_nan() {
        out.push_str("\"NaN\"");
    } else if x > 0.0 {
        out.push_str("\"Infinity\"");
    } else {
        out.push_str("\"-Infinity\"");
    }
}

/// A string, or by the conformance rules `$str:LENGTH:SHA1` when it is
/// longer than 1,000 UTF-16 units.
fn string(s: &str, rules: Rules, out: &mut String) {
    if rules.conformance && s.len() > 1000 {
        let length = s.encode_utf16().count();
        if length > 1000 {
            let digest = sha1_smol::Sha1::from(s.as_bytes()).digest();
            write_json_string(out, &format!("$str:{length}:{digest}"));
            return;
        }
    }
    write_json_string(out, s);
}

/// A JSON value copied from the input, by the dump's rules.
fn json(value: &serde_json::Value, rules: Rules, out: &mut String) {
    match value {
        serde_json::Value::Null => out.push_str("null"),
        serde_json::Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        serde_json::Value::Number(n) => number(n.as_f64().unwrap_or(f64::NAN), rules, out),
        serde_json::Value::String(s) => string(s, rules, out),
        serde_json::Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json(item, rules, out);
            }
            out.push(']');
        }
        serde_json::Value::Object(members) => {
            let mut keys: Vec<&String> = members.keys().collect();
            keys.sort_by(|a, b| utf16_cmp(a, b));
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(out, key);
                out.push(':');
                json(&members[key], rules, out);
            }
            out.push('}');
        }
    }
}

/// JavaScript's string order: by UTF-16 code units.
fn utf16_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    if a.is_ascii() && b.is_ascii() {
        return a.cmp(b);
    }
    a.encode_utf16().cmp(b.encode_utf16())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Interner;

    fn write(f: impl FnOnce(&mut Dump<'_>)) -> String {
        let strings = Interner::new().into_strings();
        let mut dump = Dump::new(&strings);
        f(&mut dump);
        let mut out = String::new();
        dump.write(&mut out);
        out
    }

    #[test]
    fn maps_and_sets_sort_by_their_json_text() {
        let out = write(|d| {
            d.handler(
                "H",
                Object::new()
                    .with(
                        "b",
                        Value::Map(vec![
                            (Value::Num(10.0), Value::Null),
                            (Value::Num(2.0), Value::Bool(true)),
                        ]),
                    )
                    .with("a", Value::Set(vec![Value::str("y"), Value::str("x")]))
                    .into(),
            );
        });
        assert_eq!(
            out,
            r#"{"handlers":{"H":{"a":{"$set":["x","y"]},"b":{"$map":[[10,null],[2,true]]}}},"insights":[],"synthetic":{}}"#
        );
    }

    #[test]
    fn synthetic_events_are_keyed_once_and_numbered_when_keys_repeat() {
        let out = write(|d| {
            let make = |raw| Synthetic {
                name: "S".into(),
                pid: Value::Num(1.0),
                tid: Value::Num(2.0),
                ts: 10.00049,
                raw,
                profile_call: None,
                fields: Some(Object::new().with("n", Value::Num(0.1234)).into()),
            };
            let a = d.synthetic(make(Some(7)));
            let b = d.synthetic(make(Some(7)));
            d.handler(
                "H",
                Value::Array(vec![Value::Synthetic(a), Value::Synthetic(b), Value::Synthetic(a)]),
            );
        });
        assert_eq!(
            out,
            r#"{"handlers":{"H":["$S:1:2:10:#7","$S:1:2:10:#7:2","$S:1:2:10:#7"]},"insights":[],"synthetic":{"S:1:2:10:#7":{"n":0.123},"S:1:2:10:#7:2":{"n":0.123}}}"#
        );
    }

    #[test]
    fn copied_json_is_sorted_rounded_and_long_strings_hashed() {
        let long = "a".repeat(1001);
        let text = format!(r#"{{"z":1.23456,"a":["{long}"]}}"#);
        let out = write(|d| d.handler("H", Value::Json(text.into())));
        let digest = sha1_smol::Sha1::from(long.as_bytes()).digest();
        assert_eq!(
            out,
            format!(
                r#"{{"handlers":{{"H":{{"a":["$str:1001:{digest}"],"z":1.235}}}},"insights":[],"synthetic":{{}}}}"#
            )
        );
    }

    #[test]
    fn a_weak_map_is_empty_in_the_conformance_dump_and_whole_in_json() {
        let strings = Interner::new().into_strings();
        let written = |rules: Rules| {
            let mut dump = Dump::new(&strings);
            let map = Value::Map(vec![(Value::Event(3), Value::Event(1))]);
            dump.handler("H", Object::new().with("weak", Value::Weak(Box::new(map))).into());
            let mut out = String::new();
            dump.write_with(&mut out, rules);
            out
        };
        assert!(written(Rules::CONFORMANCE).contains(r#""weak":{}"#));
        assert!(written(Rules::EXACT).contains(r##""weak":{"$map":[["#3","#1"]]}"##));
    }
}
