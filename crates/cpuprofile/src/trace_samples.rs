//! The top-level `samples` and `stackFrames` of a JSON trace (the "Global
//! Samples" and "StackFrames Dictionary" of the Trace Event Format, written
//! by Hermes and React Native, by Linux `perf` converters and by older
//! Chrome) turned into one CPU profile per thread, so that their stacks
//! become JS calls exactly as a V8 profile's samples do.
//!
//! The input, as writers spell it:
//!
//! ```json
//! "samples": [{"cpu": "-1", "name": "", "ts": "11552125241", "pid": 7512,
//!              "tid": "7695", "weight": "1", "sf": 2}, ...],
//! "stackFrames": {"1": {"name": "[root]", "category": "root"},
//!                 "2": {"name": "fn(http://host/index.bundle:17:3)",
//!                       "category": "JavaScript", "parent": 1,
//!                       "line": "17", "column": "3",
//!                       "funcLine": "16", "funcColumn": "1"}}
//! ```
//!
//! `stackFrames` is a tree of frames, each naming its caller in `parent`; a
//! sample's `sf` names its leaf frame. Ids are JavaScript property keys:
//! `sf: 2`, `sf: 2.0` and `sf: "2"` all name the frame `"2"`.
//!
//! The rules:
//!
//! - **Threads.** Samples are grouped by `tid`, kept as written (a number
//!   or a string, as the event reader keeps tids: `1` and `"1"` are two
//!   threads) and by `pid` when the samples give one. A sample without a
//!   `pid` takes the pid of the other samples of its tid if they all name
//!   the same one; otherwise it stays without (`pid: None`) and the caller
//!   attributes the profile, as the trace events of the same tid say.
//!   Profiles come in the order of their thread's first sample.
//! - **Nodes.** Each profile has a `(root)` node (id 1) and one node for
//!   each stack frame its samples reach (a frame's node is the child of its
//!   parent frame's node). A frame without a parent whose `category` is
//!   `"root"` (Hermes' `[root]`, one per thread) *is* the root, as it is
//!   in Hermes' own `Profiler.Profile` output; any other frame without a
//!   parent is a child of the root. Frames are not merged: two frames with
//!   the same name under one parent stay two nodes.
//! - **Call frames.** `functionName` is the frame's `name` as written
//!   (Hermes writes `fn(url:line:column)` there, and writes the same name
//!   in its `Profiler.Profile` output). `url` is the frame's `url` if it is
//!   a string, else the `url` of such a trailing `(url:line:column)`, else
//!   "". Line and column, 1-based in the input (Hermes' debug info is
//!   1-based), become 0-based: from `funcLine`/`funcColumn` (where the
//!   function starts, which is what a V8 call frame gives), else from
//!   `line`/`column` (where the sample was taken), else from the name's
//!   suffix; -1 where there is none. Numbers may be written as strings.
//!   `scriptId` is "0" (the input has none). `category` only marks roots;
//!   Hermes' `[GC Young Gen]` and other `Metadata` frames stay ordinary
//!   frames, as they do in Hermes' `Profiler.Profile` output.
//! - **Samples.** A sample without `sf` (or with `sf: null`) has no stack:
//!   it goes to a `(program)` child of the root, which the tracks leave
//!   out, like an empty stack in speedscope. `ts` is microseconds, a number
//!   or a string holding one; each thread's samples are sorted stably by
//!   `ts`, the profile starts at the first and ends at the last, and the
//!   time deltas are the differences (the first is 0). `weight`, `cpu` and
//!   `name` are read over: a sample lasts until the next one whatever its
//!   weight (Hermes always writes 1; the format means it for aggregation).
//! - **Bad input** is skipped and counted in [`Diagnostics`], never a
//!   panic: a sample that is not an object, or has no usable `tid` or
//!   `ts`; a sample whose `sf` names no frame; a sample whose frame chain
//!   is broken (a parent that names no frame, parents that form a cycle, a
//!   frame that is not an object) — each broken chain is also counted once
//!   under its cause. Parent chains are walked with loops, never recursion,
//!   so any depth is fine; each frame is checked once. Only `samples` not
//!   being an array, `stackFrames` being neither an object nor an array (an
//!   array's frames are keyed by index, as JavaScript would) or having
//!   2^32 frames or more (they are indexed by `u32`), or text that is not
//!   JSON make the whole conversion fail.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use ahash::AHashMap;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use tracekit_events::jsnum::js_number_string;
use tracekit_events::{names, Diagnostics, Id, Interner, Micros};

use crate::callframe::{CallFrame, IdLocation};
use crate::raw::{RawNode, RawProfile};

/// The samples of one thread, as a CPU profile.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceSamplesProfile {
    /// The thread, as the samples' `tid` spells it.
    pub tid: Id,
    /// The pid the samples give, if they do (see the module doc).
    pub pid: Option<Id>,
    /// Times in microseconds, on the clock of the trace events.
    pub raw: RawProfile,
}

/// Builds one CPU profile per thread from the JSON text of a trace's
/// top-level `samples` array and `stackFrames` object (pass `{}` when the
/// trace has none: every sample with an `sf` is then skipped).
pub fn profiles_from_trace_samples(
    samples_json: &str,
    stack_frames_json: &str,
    interner: &mut Interner,
    diag: &mut Diagnostics,
) -> Result<Vec<TraceSamplesProfile>, serde_json::Error> {
    let frames: FramesJson = decode(stack_frames_json)?;
    if u32::try_from(frames.0.len()).is_err() {
        return Err(de::Error::custom("more than 4294967295 stack frames"));
    }
    let samples: Vec<Object<SampleJson>> = decode(samples_json)?;
    Ok(build(frames, samples, interner, diag))
}

/// Decodes on a heap-grown stack, so that deeply nested values in fields
/// nobody reads can neither overflow nor fail the input.
fn decode<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, serde_json::Error> {
    let mut json = serde_json::Deserializer::from_str(text);
    json.disable_recursion_limit();
    let value = T::deserialize(serde_stacker::Deserializer::new(&mut json))?;
    json.end()?;
    Ok(value)
}

// ---------------------------------------------------------------------------
// Decoding: typed, borrowed, and tolerant of what real files hold.

/// A JSON value where a scalar is expected, as written. Anything else is
/// read over and kept as `Other`, so that one odd field never fails the
/// whole list.
#[derive(Debug)]
enum Scalar<'a> {
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
    fn number(&self) -> Option<f64> {
        match self {
            Scalar::Num(x) => Some(*x).filter(|x| x.is_finite()),
            Scalar::Str(s) => parse_number(s),
            _ => None,
        }
    }

    /// A pid or tid, built as the event reader builds them.
    fn id(&self, interner: &mut Interner) -> Option<Id> {
        match self {
            Scalar::Num(x) if x.is_finite() => Some(Id::num(*x)),
            Scalar::Str(s) => Some(Id::str(interner.intern(s))),
            _ => None,
        }
    }

    /// The property key JavaScript would look up (`stackFrames[sf]`).
    fn key(&self) -> Option<Cow<'_, str>> {
        match self {
            Scalar::Num(x) => Some(Cow::Owned(js_number_string(*x))),
            Scalar::Str(s) => Some(Cow::Borrowed(s.as_ref())),
            _ => None,
        }
    }

    /// A string, or a number as JavaScript prints it.
    fn text(&self) -> Option<Cow<'_, str>> {
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
trait Fields<'de>: Default {
    /// Reads the value of `key` if it is one of the fields; returns whether
    /// it did.
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error>;
}

/// An object's fields, or `None` when the value is not an object.
struct Object<T>(Option<T>);

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
struct SampleJson<'a> {
    tid: Option<Scalar<'a>>,
    pid: Option<Scalar<'a>>,
    ts: Option<Scalar<'a>>,
    sf: Option<Scalar<'a>>,
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
struct FrameJson<'a> {
    name: Option<Scalar<'a>>,
    category: Option<Scalar<'a>>,
    parent: Option<Scalar<'a>>,
    url: Option<Scalar<'a>>,
    line: Option<Scalar<'a>>,
    column: Option<Scalar<'a>>,
    func_line: Option<Scalar<'a>>,
    func_column: Option<Scalar<'a>>,
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
struct FramesJson<'a>(Vec<(Cow<'a, str>, Object<FrameJson<'a>>)>);

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

// ---------------------------------------------------------------------------
// Building.

/// Where a frame's `parent` leads.
#[derive(Clone, Copy, PartialEq)]
enum Parent {
    /// No parent: a root or a top frame.
    None,
    Frame(u32),
    /// A parent id that names no frame (or is not an id at all).
    Unknown,
}

#[derive(Clone, Copy, PartialEq)]
enum Check {
    Unchecked,
    /// On the chain being checked right now.
    Checking,
    Valid,
    Invalid,
}

/// The stack frames, indexed, with their parent links resolved and each
/// chain checked at most once.
struct Frames<'a> {
    keys: Vec<Cow<'a, str>>,
    frames: Vec<Option<FrameJson<'a>>>,
    parents: Vec<Parent>,
    by_key: AHashMap<Cow<'a, str>, u32>,
    check: Vec<Check>,
    chain: Vec<u32>,
}

impl<'a> Frames<'a> {
    /// `input` has fewer than 2^32 frames (checked by
    /// [`profiles_from_trace_samples`]), so that a `u32` indexes them.
    fn new(input: FramesJson<'a>) -> Self {
        let mut keys = Vec::with_capacity(input.0.len());
        let mut frames = Vec::with_capacity(input.0.len());
        let mut by_key = AHashMap::with_capacity(input.0.len());
        for (i, (key, frame)) in input.0.into_iter().enumerate() {
            // A repeated key: the last one wins, as in `JSON.parse`.
            #[allow(clippy::cast_possible_truncation)] // fewer than 2^32 frames
            by_key.insert(key.clone(), i as u32);
            keys.push(key);
            frames.push(frame.0);
        }
        let parents = frames
            .iter()
            .map(|frame| match frame.as_ref().and_then(|f| f.parent.as_ref()) {
                None | Some(Scalar::Null) => Parent::None,
                Some(p) => p
                    .key()
                    .and_then(|k| by_key.get(k.as_ref()).copied())
                    .map_or(Parent::Unknown, Parent::Frame),
            })
            .collect();
        let check = vec![Check::Unchecked; frames.len()];
        Frames {
            keys,
            frames,
            parents,
            by_key,
            check,
            chain: Vec::new(),
        }
    }

    /// Whether the chain from `leaf` up to a frame without a parent is
    /// whole. A broken chain is counted once, under its cause.
    fn is_whole(&mut self, leaf: u32, diag: &mut Diagnostics) -> bool {
        self.chain.clear();
        let mut cursor = leaf;
        let whole = loop {
            match self.check[cursor as usize] {
                Check::Valid => break true,
                Check::Invalid => break false,
                Check::Checking => {
                    diag.skip(tracekit_events::Skip::TraceSamplesFrameCycle, || {
                        format!("stack frame {}", self.keys[cursor as usize])
                    });
                    break false;
                }
                Check::Unchecked => {
                    self.check[cursor as usize] = Check::Checking;
                    self.chain.push(cursor);
                    if self.frames[cursor as usize].is_none() {
                        diag.skip(tracekit_events::Skip::TraceSamplesFrameNotAnObject, || {
                            format!("stack frame {}", self.keys[cursor as usize])
                        });
                        break false;
                    }
                    match self.parents[cursor as usize] {
                        Parent::None => break true,
                        Parent::Frame(p) => cursor = p,
                        Parent::Unknown => {
                            diag.skip(tracekit_events::Skip::TraceSamplesUnknownParent, || {
                                format!("stack frame {}", self.keys[cursor as usize])
                            });
                            break false;
                        }
                    }
                }
            }
        };
        let state = if whole { Check::Valid } else { Check::Invalid };
        for &f in &self.chain {
            self.check[f as usize] = state;
        }
        whole
    }

    /// Whether frame `f` (whole, without a parent) is a thread's root.
    fn is_root(&self, f: u32) -> bool {
        self.parents[f as usize] == Parent::None
            && self.frames[f as usize]
                .as_ref()
                .and_then(|frame| frame.category.as_ref())
                .is_some_and(|c| matches!(c, Scalar::Str(s) if s == "root"))
    }

    fn call_frame(&self, f: u32, interner: &mut Interner) -> CallFrame {
        let Some(frame) = self.frames[f as usize].as_ref() else {
            return CallFrame::meta(names::EMPTY);
        };
        let name = frame.name.as_ref().and_then(Scalar::text).unwrap_or(Cow::Borrowed(""));
        let suffix = location_suffix(&name);
        let url = match frame.url.as_ref() {
            Some(Scalar::Str(url)) => interner.intern(url),
            _ => suffix.map_or(names::EMPTY, |(url, _, _)| interner.intern(url)),
        };
        let (line, column) = if let Some(line) = number(&frame.func_line) {
            (Some(line), number(&frame.func_column))
        } else if let Some(line) = number(&frame.line) {
            (Some(line), number(&frame.column))
        } else {
            suffix.map_or((None, None), |(_, line, column)| (Some(line), Some(column)))
        };
        CallFrame {
            function_name: interner.intern(&name),
            url,
            script_id: names::ZERO,
            id_location: IdLocation::ScriptId,
            line_number: Some(line.map_or(-1.0, |l| l - 1.0)),
            column_number: Some(column.map_or(-1.0, |c| c - 1.0)),
        }
    }
}

/// The `(url:line:column)` that ends a frame name when Hermes has debug
/// info (`fn(http://host/index.bundle:17:3)`): the url runs from the first
/// `(` to the last two `:`, and both numbers are digits.
fn location_suffix(name: &str) -> Option<(&str, f64, f64)> {
    let inner = name.strip_suffix(')')?;
    let inside = &inner[inner.find('(')? + 1..];
    let (rest, column) = inside.rsplit_once(':')?;
    let (url, line) = rest.rsplit_once(':')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(line) || !digits(column) {
        return None;
    }
    Some((url, line.parse().ok()?, column.parse().ok()?))
}

fn number(s: &Option<Scalar<'_>>) -> Option<f64> {
    s.as_ref().and_then(Scalar::number)
}

/// A sample that passed the checks: its thread, time and leaf frame (none
/// for a sample without a stack).
struct Accepted {
    tid: Id,
    pid: Option<Id>,
    ts: f64,
    leaf: Option<u32>,
}

const ROOT_ID: i64 = 1;

/// The nodes of one thread's profile.
struct ProfileBuilder {
    nodes: Vec<RawNode>,
    node_of_frame: AHashMap<u32, i64>,
    program: Option<i64>,
    chain: Vec<u32>,
}

impl ProfileBuilder {
    fn new() -> Self {
        let mut b = ProfileBuilder {
            nodes: Vec::new(),
            node_of_frame: AHashMap::new(),
            program: None,
            chain: Vec::new(),
        };
        b.push(None, CallFrame::meta(names::ROOT));
        b
    }

    fn push(&mut self, parent: Option<i64>, call_frame: CallFrame) -> i64 {
        crate::raw::push_node(&mut self.nodes, parent, call_frame)
    }

    /// The node of `leaf`, a frame whose chain is whole; creates the nodes
    /// of its chain that this profile lacks.
    fn node(&mut self, leaf: u32, frames: &Frames, interner: &mut Interner) -> i64 {
        self.chain.clear();
        let mut base = ROOT_ID;
        let mut cursor = Some(leaf);
        while let Some(f) = cursor {
            if let Some(&id) = self.node_of_frame.get(&f) {
                base = id;
                break;
            }
            self.chain.push(f);
            cursor = match frames.parents[f as usize] {
                Parent::Frame(p) => Some(p),
                Parent::None | Parent::Unknown => None,
            };
        }
        while let Some(f) = self.chain.pop() {
            base = if base == ROOT_ID && frames.is_root(f) {
                ROOT_ID
            } else {
                let call_frame = frames.call_frame(f, interner);
                self.push(Some(base), call_frame)
            };
            self.node_of_frame.insert(f, base);
        }
        base
    }

    fn program(&mut self) -> i64 {
        match self.program {
            Some(id) => id,
            None => {
                let id = self.push(Some(ROOT_ID), CallFrame::meta(names::PROGRAM));
                self.program = Some(id);
                id
            }
        }
    }
}

fn build(
    frames: FramesJson<'_>,
    samples: Vec<Object<SampleJson<'_>>>,
    interner: &mut Interner,
    diag: &mut Diagnostics,
) -> Vec<TraceSamplesProfile> {
    let mut frames = Frames::new(frames);

    let mut accepted = Vec::with_capacity(samples.len());
    for (i, sample) in samples.into_iter().enumerate() {
        let Some(sample) = sample.0 else {
            diag.skip(tracekit_events::Skip::TraceSamplesNotAnObject, || format!("sample {i}"));
            continue;
        };
        let Some(tid) = sample.tid.as_ref().and_then(|t| t.id(interner)) else {
            diag.skip(tracekit_events::Skip::TraceSamplesWithoutTid, || format!("sample {i}"));
            continue;
        };
        let Some(ts) = sample.ts.as_ref().and_then(Scalar::number) else {
            diag.skip(tracekit_events::Skip::TraceSamplesWithoutTs, || format!("sample {i}"));
            continue;
        };
        let leaf = match &sample.sf {
            None | Some(Scalar::Null) => None,
            Some(sf) => match sf.key().and_then(|k| frames.by_key.get(k.as_ref()).copied()) {
                Some(f) => Some(f),
                None => {
                    diag.skip(tracekit_events::Skip::TraceSamplesUnknownFrame, || {
                        format!("sample {i}, sf {sf:?}")
                    });
                    continue;
                }
            },
        };
        if let Some(f) = leaf {
            if !frames.is_whole(f, diag) {
                diag.skip(tracekit_events::Skip::TraceSamplesBrokenChain, || {
                    format!("sample {i}, stack frame {}", frames.keys[f as usize])
                });
                continue;
            }
        }
        let pid = sample.pid.as_ref().and_then(|p| p.id(interner));
        accepted.push(Accepted { tid, pid, ts, leaf });
    }

    // A sample without a pid takes the one pid the other samples of its
    // tid agree on.
    #[derive(Clone, Copy)]
    enum Pids {
        None,
        One(Id),
        Several,
    }
    let mut pids: AHashMap<Id, Pids> = AHashMap::new();
    for s in &accepted {
        let entry = pids.entry(s.tid).or_insert(Pids::None);
        if let Some(pid) = s.pid {
            *entry = match *entry {
                Pids::None => Pids::One(pid),
                Pids::One(p) if p == pid => Pids::One(p),
                _ => Pids::Several,
            };
        }
    }
    for s in &mut accepted {
        if s.pid.is_none() {
            if let Some(Pids::One(pid)) = pids.get(&s.tid) {
                s.pid = Some(*pid);
            }
        }
    }

    // The samples of each thread, in the order the threads first appear:
    // (tid, pid) and the (ts, leaf frame) of each sample.
    type Thread = (Id, Option<Id>);
    type Samples = Vec<(f64, Option<u32>)>;
    let mut groups: Vec<(Thread, Samples)> = Vec::new();
    let mut group_of: AHashMap<Thread, usize> = AHashMap::new();
    for s in accepted {
        let key = (s.tid, s.pid);
        let g = *group_of.entry(key).or_insert_with(|| {
            groups.push((key, Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push((s.ts, s.leaf));
    }

    groups
        .into_iter()
        .map(|((tid, pid), mut samples)| {
            // Stable: samples at the same time keep their input order.
            samples.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
            let mut b = ProfileBuilder::new();
            let mut nodes = Vec::with_capacity(samples.len());
            let mut deltas = Vec::with_capacity(samples.len());
            let start_time = samples.first().map_or(0.0, |s| s.0);
            let end_time = samples.last().map_or(0.0, |s| s.0);
            let mut previous = start_time;
            for &(ts, leaf) in &samples {
                nodes.push(match leaf {
                    Some(f) => b.node(f, &frames, interner),
                    None => b.program(),
                });
                deltas.push(ts - previous);
                previous = ts;
            }
            TraceSamplesProfile {
                tid,
                pid,
                raw: RawProfile {
                    nodes: b.nodes,
                    start_time: Micros(start_time),
                    end_time: Micros(end_time),
                    samples: Some(nodes),
                    time_deltas: Some(deltas),
                    timestamps: None,
                    trace_ids: None,
                    legacy: None,
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CpuProfileModel;
    use serde_json::value::RawValue;

    fn convert(samples: &str, frames: &str) -> (Vec<TraceSamplesProfile>, Interner, Diagnostics) {
        let mut interner = Interner::new();
        let mut diag = Diagnostics::default();
        let profiles = profiles_from_trace_samples(samples, frames, &mut interner, &mut diag).unwrap();
        (profiles, interner, diag)
    }

    /// Each node as `id parent label`.
    fn nodes(p: &TraceSamplesProfile, interner: &Interner) -> Vec<String> {
        p.raw
            .nodes
            .iter()
            .map(|n| {
                let parent = n.parent.map_or("-".to_owned(), |p| p.to_string());
                format!("{} {} {}", n.id, parent, n.call_frame.label(interner))
            })
            .collect()
    }

    fn skipped(diag: &Diagnostics, reason: &str) -> u64 {
        diag.skipped
            .iter()
            .find(|(skip, _)| skip.as_str() == reason)
            .map_or(0, |(_, r)| r.count)
    }

    /// Builds the model as the Samples handler would, and checks that it
    /// takes every node and sample.
    fn assert_model_accepts(p: &TraceSamplesProfile) -> CpuProfileModel {
        let mut diag = Diagnostics::default();
        let model = CpuProfileModel::new(p.raw.clone(), &mut diag).expect("the model accepts the profile");
        assert!(diag.skipped.is_empty(), "the model skipped {:?}", diag.skipped);
        assert_eq!(model.nodes.len(), p.raw.nodes.len());
        assert_eq!(model.samples.len(), p.raw.samples.as_ref().unwrap().len());
        assert!(model.samples.iter().all(Option::is_some));
        model
    }

    #[test]
    fn builds_a_small_example_node_by_node() {
        let frames = r#"{
            "1": {"name": "[root]", "category": "root"},
            "2": {"name": "main(http://h/a.js:10:5)", "category": "JavaScript", "parent": 1,
                  "line": "10", "column": "5", "funcLine": "9", "funcColumn": "1"},
            "3": {"name": "helper(http://h/b.js:3:7)", "category": "JavaScript", "parent": "2"},
            "4": {"name": "[Native] sqrt", "category": "Native", "parent": 3},
            "5": {"name": "[GC Young Gen]", "category": "Metadata", "parent": 1},
            "6": {"name": "top", "category": "mod", "url": "file:///t.js", "line": 4},
            "7": {"name": "unused", "parent": 1}
        }"#;
        // Unsorted, string and number ts, a sample without a stack, and a
        // second thread whose tid is a number.
        let samples = r#"[
            {"cpu": "-1", "name": "", "ts": "1030", "pid": 7, "tid": "main", "weight": "1", "sf": 4},
            {"ts": 1000, "pid": 7, "tid": "main", "sf": 2},
            {"ts": 1010.5, "tid": "main", "sf": 3},
            {"ts": "1020", "tid": "main"},
            {"ts": 1040, "tid": "main", "sf": 5},
            {"ts": 500, "tid": 2, "sf": 6},
            {"ts": 600, "tid": 2, "sf": "1"}
        ]"#;
        let (profiles, interner, diag) = convert(samples, frames);
        assert!(diag.skipped.is_empty(), "{:?}", diag.skipped);
        assert_eq!(profiles.len(), 2);

        let main = &profiles[0];
        assert_eq!(main.tid, Id::str(interner.lookup("main").unwrap()));
        assert_eq!(main.pid, Some(Id::num(7.0)), "the tid's other samples give the pid");
        assert_eq!(
            nodes(main, &interner),
            [
                "1 - js:(root)@:-1:-1",
                "2 1 js:main(http://h/a.js:10:5)@http://h/a.js:8:0",
                "3 2 js:helper(http://h/b.js:3:7)@http://h/b.js:2:6",
                "4 1 js:(program)@:-1:-1",
                "5 3 js:[Native] sqrt@:-1:-1",
                "6 1 js:[GC Young Gen]@:-1:-1",
            ]
        );
        assert!(main
            .raw
            .nodes
            .iter()
            .all(|n| n.children.is_none() && n.hit_count.is_none()));
        assert!(main.raw.nodes.iter().all(|n| n.call_frame.script_id == names::ZERO));
        assert_eq!(main.raw.samples, Some(vec![2, 3, 4, 5, 6]));
        assert_eq!(main.raw.start_time, Micros(1000.0));
        assert_eq!(main.raw.end_time, Micros(1040.0));
        assert_eq!(main.raw.time_deltas, Some(vec![0.0, 10.5, 9.5, 10.0, 10.0]));
        assert!(main.raw.legacy.is_none());

        let second = &profiles[1];
        assert_eq!(second.tid, Id::num(2.0));
        assert_eq!(second.pid, None);
        assert_eq!(
            nodes(second, &interner),
            ["1 - js:(root)@:-1:-1", "2 1 js:top@file:///t.js:3:-1"]
        );
        // A sample on the root frame is a sample on the root.
        assert_eq!(second.raw.samples, Some(vec![2, 1]));
        assert_eq!(second.raw.time_deltas, Some(vec![0.0, 100.0]));

        let model = assert_model_accepts(main);
        assert_eq!(model.timestamps[0], 1.0);
        let program = model.program_node.expect("(program) is found as a meta node");
        assert_eq!(model.node(program).id, 4);
        assert_model_accepts(second);
    }

    #[test]
    fn sorts_stably_by_ts() {
        let frames = r#"{"a": {"name": "a"}, "b": {"name": "b"}, "c": {"name": "c"}}"#;
        let samples = r#"[{"tid":1,"ts":30,"sf":"a"},{"tid":1,"ts":10,"sf":"b"},
            {"tid":1,"ts":20,"sf":"c"},{"tid":1,"ts":10,"sf":"a"},{"tid":1,"ts":"20","sf":"b"}]"#;
        let (profiles, interner, _) = convert(samples, frames);
        let p = &profiles[0];
        let names: Vec<String> = p.raw.samples.as_ref().unwrap()[..]
            .iter()
            .map(|&id| {
                interner
                    .resolve(p.raw.nodes[usize::try_from(id - 1).unwrap()].call_frame.function_name)
                    .to_owned()
            })
            .collect();
        assert_eq!(names, ["b", "a", "c", "b", "a"]);
        assert_eq!(p.raw.time_deltas, Some(vec![0.0, 0.0, 10.0, 0.0, 10.0]));
        assert_eq!((p.raw.start_time, p.raw.end_time), (Micros(10.0), Micros(30.0)));
        assert_model_accepts(p);
    }

    #[test]
    fn number_and_string_tids_are_different_threads() {
        let frames = r#"{"1": {"name": "f"}}"#;
        let samples = r#"[{"tid":"1","ts":1,"sf":1},{"tid":1,"ts":2,"sf":1},{"tid":1.0,"ts":3,"sf":1},
            {"tid":"1","ts":4,"sf":1,"pid":"p"}]"#;
        let (profiles, interner, _) = convert(samples, frames);
        assert_eq!(profiles.len(), 2);
        assert_eq!(profiles[0].tid, Id::str(interner.lookup("1").unwrap()));
        assert_eq!(profiles[0].pid, Some(Id::str(interner.lookup("p").unwrap())));
        assert_eq!(profiles[0].raw.samples.as_ref().unwrap().len(), 2);
        assert_eq!(profiles[1].tid, Id::num(1.0));
        assert_eq!(profiles[1].pid, None);
        assert_eq!(profiles[1].raw.samples.as_ref().unwrap().len(), 2);
    }

    #[test]
    fn a_tid_in_two_processes_keeps_them_apart() {
        let frames = r#"{"1": {"name": "f"}}"#;
        let samples = r#"[{"tid":5,"pid":1,"ts":1,"sf":1},{"tid":5,"pid":2,"ts":2,"sf":1},{"tid":5,"ts":3,"sf":1}]"#;
        let (profiles, _, _) = convert(samples, frames);
        let keys: Vec<_> = profiles.iter().map(|p| p.pid).collect();
        assert_eq!(keys, [Some(Id::num(1.0)), Some(Id::num(2.0)), None]);
    }

    #[test]
    fn skips_unknown_frames_cycles_and_broken_chains() {
        let frames = r#"{
            "ok": {"name": "ok"},
            "a": {"name": "a", "parent": "b"}, "b": {"name": "b", "parent": "a"},
            "c": {"name": "c", "parent": "a"},
            "self": {"name": "self", "parent": "self"},
            "orphan": {"name": "orphan", "parent": "nowhere"},
            "odd": {"name": "odd", "parent": true},
            "junk": 5,
            "below-junk": {"name": "x", "parent": "junk"}
        }"#;
        let samples = r#"[{"tid":1,"ts":1,"sf":"a"},{"tid":1,"ts":2,"sf":"c"},{"tid":1,"ts":3,"sf":"self"},
            {"tid":1,"ts":4,"sf":"orphan"},{"tid":1,"ts":5,"sf":"odd"},{"tid":1,"ts":6,"sf":"below-junk"},
            {"tid":1,"ts":7,"sf":"missing"},{"tid":1,"ts":8,"sf":[1]},{"tid":1,"ts":9,"sf":"ok"},
            {"tid":1,"ts":10,"sf":"a"}]"#;
        let (profiles, interner, diag) = convert(samples, frames);
        assert_eq!(profiles.len(), 1);
        assert_eq!(
            nodes(&profiles[0], &interner),
            ["1 - js:(root)@:-1:-1", "2 1 js:ok@:-1:-1"]
        );
        assert_eq!(profiles[0].raw.samples, Some(vec![2]));
        // Each broken chain once, under its cause.
        assert_eq!(skipped(&diag, "trace samples: stack frame parents form a cycle"), 2);
        assert_eq!(skipped(&diag, "trace samples: stack frame names an unknown parent"), 2);
        assert_eq!(skipped(&diag, "trace samples: stack frame is not an object"), 1);
        // And each sample on one.
        assert_eq!(
            skipped(
                &diag,
                "trace samples: sample whose stack frames do not chain up to a root"
            ),
            7
        );
        assert_eq!(skipped(&diag, "trace samples: sample names an unknown stack frame"), 2);
        assert_model_accepts(&profiles[0]);
    }

    #[test]
    fn skips_samples_without_tid_or_ts() {
        let samples = r#"[5, null, {"ts":1}, {"tid":null,"ts":1}, {"tid":1}, {"tid":1,"ts":"soon"},
            {"tid":1,"ts":true}, {"tid":[1],"ts":1}, {"tid":1,"ts":"NaN"}, {"tid":1,"ts":" 7 ","sf":null}]"#;
        let (profiles, interner, diag) = convert(samples, "{}");
        assert_eq!(skipped(&diag, "trace samples: sample is not an object"), 2);
        assert_eq!(skipped(&diag, "trace samples: sample without a tid"), 3);
        assert_eq!(skipped(&diag, "trace samples: sample without a valid ts"), 4);
        assert_eq!(profiles.len(), 1);
        assert_eq!(profiles[0].raw.start_time, Micros(7.0));
        assert_eq!(
            nodes(&profiles[0], &interner),
            ["1 - js:(root)@:-1:-1", "2 1 js:(program)@:-1:-1"]
        );
        assert_model_accepts(&profiles[0]);
    }

    #[test]
    fn walks_a_200000_deep_chain_without_recursion() {
        let depth = 200_000;
        let mut frames = String::from(r#"{"0":{"name":"[root]","category":"root"}"#);
        for i in 1..=depth {
            frames.push_str(&format!(r#","{i}":{{"name":"f{i}","parent":{}}}"#, i - 1));
        }
        frames.push('}');
        let samples = format!(
            r#"[{{"tid":1,"ts":1,"sf":{depth}}},{{"tid":1,"ts":2,"sf":{}}}]"#,
            depth / 2
        );
        let (profiles, interner, diag) = convert(&samples, &frames);
        assert!(diag.skipped.is_empty());
        let p = &profiles[0];
        assert_eq!(p.raw.nodes.len(), depth + 1);
        assert_eq!(p.raw.samples, Some(vec![depth as i64 + 1, depth as i64 / 2 + 1]));
        let first = &p.raw.nodes[1];
        assert_eq!(interner.resolve(first.call_frame.function_name), "f1");
        assert_eq!(first.parent, Some(ROOT_ID));
        let last = p.raw.nodes.last().unwrap();
        assert_eq!(interner.resolve(last.call_frame.function_name), format!("f{depth}"));
        assert_eq!(last.parent, Some(depth as i64));
        let model = assert_model_accepts(p);
        assert_eq!(model.max_depth, i32::try_from(depth).unwrap() - 1);

        // And a cycle as long.
        let mut frames = String::from("{");
        for i in 0..depth {
            frames.push_str(&format!(r#""{i}":{{"name":"f","parent":{}}},"#, (i + 1) % depth));
        }
        frames.pop();
        frames.push('}');
        let (profiles, _, diag) = convert(r#"[{"tid":1,"ts":1,"sf":0},{"tid":1,"ts":2,"sf":7}]"#, &frames);
        assert!(profiles.is_empty());
        assert_eq!(skipped(&diag, "trace samples: stack frame parents form a cycle"), 1);
    }

    #[test]
    fn reads_over_deeply_nested_values() {
        let depth = 100_000;
        let junk = "[".repeat(depth) + &"]".repeat(depth);
        let samples = format!(r#"[{{"tid":1,"ts":1,"sf":1,"args":{junk}}}]"#);
        let frames = format!(r#"{{"1":{{"name":"f","extra":{junk}}}}}"#);
        let (profiles, _, diag) = convert(&samples, &frames);
        assert!(diag.skipped.is_empty());
        assert_eq!(profiles[0].raw.samples, Some(vec![2]));
    }

    #[test]
    fn takes_frame_keys_as_javascript_does() {
        // Numbers name the frame whose key is their JavaScript string; an
        // array of frames is keyed by index; the last of repeated keys wins.
        let frames = r#"[{"name":"zero"},{"name":"one","parent":0},{"name":"two","parent":"1"}]"#;
        let (profiles, interner, _) = convert(r#"[{"tid":1,"ts":1,"sf":2.0}]"#, frames);
        assert_eq!(
            nodes(&profiles[0], &interner),
            [
                "1 - js:(root)@:-1:-1",
                "2 1 js:zero@:-1:-1",
                "3 2 js:one@:-1:-1",
                "4 3 js:two@:-1:-1"
            ]
        );
        let frames = r#"{"1":{"name":"first"},"1":{"name":"second"},"1e3":{"name":"big"}}"#;
        let (profiles, interner, _) = convert(r#"[{"tid":1,"ts":1,"sf":1},{"tid":1,"ts":2,"sf":"1e3"}]"#, frames);
        assert_eq!(
            nodes(&profiles[0], &interner),
            ["1 - js:(root)@:-1:-1", "2 1 js:second@:-1:-1", "3 1 js:big@:-1:-1"]
        );
        // 1000 is "1000" in JavaScript, not "1e3".
        let (profiles, _, diag) = convert(r#"[{"tid":1,"ts":1,"sf":1000}]"#, frames);
        assert!(profiles.is_empty());
        assert_eq!(skipped(&diag, "trace samples: sample names an unknown stack frame"), 1);
    }

    #[test]
    fn reads_frame_locations() {
        let frames = r#"{
            "1": {"name": "f(/x (copy)/a.js:12:4)"},
            "2": {"name": "g(a.js:x:4)"},
            "3": {"name": "h(a.js:3:4)", "url": "u.js", "line": 30},
            "4": {"name": 42, "funcLine": "2"},
            "5": {"category": "JavaScript"},
            "6": {"name": "(b.js:1:1)"}
        }"#;
        let samples: String = (1..=6)
            .map(|i| format!(r#"{{"tid":1,"ts":{i},"sf":{i}}}"#))
            .collect::<Vec<_>>()
            .join(",");
        let (profiles, interner, diag) = convert(&format!("[{samples}]"), frames);
        assert!(diag.skipped.is_empty());
        assert_eq!(
            nodes(&profiles[0], &interner)[1..],
            [
                "2 1 js:f(/x (copy)/a.js:12:4)@/x (copy)/a.js:11:3",
                "3 1 js:g(a.js:x:4)@:-1:-1",
                "4 1 js:h(a.js:3:4)@u.js:29:-1",
                "5 1 js:42@:1:-1",
                "6 1 js:@:-1:-1",
                "7 1 js:(b.js:1:1)@b.js:0:0",
            ]
        );
    }

    #[test]
    fn fails_only_on_the_shape_of_the_lists() {
        let mut interner = Interner::new();
        let mut diag = Diagnostics::default();
        let mut run = |samples: &str, frames: &str| {
            profiles_from_trace_samples(samples, frames, &mut interner, &mut diag).map(|p| p.len())
        };
        assert!(run("{}", "{}").is_err());
        assert!(run("[]", "5").is_err());
        assert!(run("[", "{}").is_err());
        assert!(run("[] x", "{}").is_err());
        assert_eq!(run("[]", "[]").unwrap(), 0);
        assert_eq!(run(" [] ", r#"{"1":{}}"#).unwrap(), 0);
        assert_eq!(run(r#"[{"tid":1,"ts":1,"sf":"1"}]"#, r#"{"1":{}}"#).unwrap(), 1);
    }

    /// The values of a trace's `samples` and `stackFrames`, as raw text.
    fn sample_lists(text: &str) -> Option<(&str, &str)> {
        #[derive(serde::Deserialize)]
        struct Doc<'a> {
            #[serde(borrow)]
            samples: Option<&'a RawValue>,
            #[serde(borrow, rename = "stackFrames")]
            stack_frames: Option<&'a RawValue>,
        }
        let doc: Doc = serde_json::from_str(text).ok()?;
        Some((doc.samples?.get(), doc.stack_frames?.get()))
    }

    #[test]
    fn converts_the_fixture() {
        let text = include_str!("../fixtures/trace-samples-hermes.json");
        let (samples, frames) = sample_lists(text).unwrap();
        let (profiles, interner, diag) = convert(samples, frames);
        assert!(diag.skipped.is_empty(), "{:?}", diag.skipped);
        assert_eq!(profiles.len(), 2);
        let js = &profiles[0];
        assert_eq!(js.tid, Id::str(interner.lookup("4242").unwrap()));
        assert_eq!(js.pid, Some(Id::num(4200.0)));
        assert_eq!(
            nodes(js, &interner),
            [
                "1 - js:(root)@:-1:-1",
                "2 1 js:render(http://localhost:8081/index.bundle:120:9)@http://localhost:8081/index.bundle:99:0",
                "3 2 js:layout(http://localhost:8081/index.bundle:300:14)@http://localhost:8081/index.bundle:289:2",
                "4 3 js:[Native] measure@:-1:-1",
                "5 1 js:[GC Young Gen]@:-1:-1",
                "6 2 js:paint(http://localhost:8081/index.bundle:410:3)@http://localhost:8081/index.bundle:409:2",
            ]
        );
        assert_eq!(js.raw.samples, Some(vec![2, 3, 4, 4, 1, 5, 6, 2]));
        assert_eq!(js.raw.start_time, Micros(5_000_000.0));
        assert_eq!(js.raw.end_time, Micros(5_008_000.0));
        let worker = &profiles[1];
        assert_eq!(worker.tid, Id::str(interner.lookup("4243").unwrap()));
        assert_eq!(worker.raw.samples, Some(vec![2, 2, 3]));
        for p in &profiles {
            assert_model_accepts(p);
        }
    }

    /// A file of the speedscope repository's trace-event samples, from the
    /// shared corpus beside the project (`../shared/corpus`; never
    /// committed), or from the corpus `TRACEKIT_CORPUS` names. Without
    /// it the test fails, unless `TRACEKIT_CORPUS=none` says to go
    /// without it (then `None`).
    fn corpus(name: &str) -> Option<String> {
        let root = match std::env::var_os("TRACEKIT_CORPUS") {
            Some(none) if none == "none" => {
                println!("note: TRACEKIT_CORPUS=none: corpus test skipped");
                return None;
            }
            Some(dir) => std::path::PathBuf::from(dir),
            None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
        };
        let dir = root.join("speedscope/trace-event");
        assert!(
            dir.is_dir(),
            "{} is absent: the shared corpus belongs beside the project (TRACEKIT_CORPUS=DIR for another place, \
             TRACEKIT_CORPUS=none to test without it)",
            dir.display()
        );
        let path = dir.join(name);
        Some(std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
    }

    #[test]
    fn converts_the_corpus_files() {
        let Some(text) = corpus("simple-with-samples.json") else {
            return;
        };
        let (samples, frames) = sample_lists(&text).unwrap();
        let (profiles, interner, diag) = convert(samples, frames);
        assert!(diag.skipped.is_empty(), "{:?}", diag.skipped);
        assert_eq!(profiles.len(), 1);
        let p = &profiles[0];
        assert_eq!(p.tid, Id::str(interner.lookup("7695").unwrap()));
        assert_eq!(p.pid, Some(Id::num(7512.0)));
        let bundle = "http://localhost:8081/index.bundle?platform=android&dev=false&minify=false&app=org.toshi&modulesOnly=false&runModule=true";
        assert_eq!(
            nodes(p, &interner),
            [
                "1 - js:(root)@:-1:-1".to_owned(),
                format!("2 1 js:function1({bundle}:1:1)@{bundle}:0:0"),
                format!("3 1 js:function2({bundle}:418874:4)@{bundle}:418873:3"),
                format!("4 3 js:function3({bundle}:17:3)@{bundle}:16:2"),
                "5 1 js:[GC Young Gen]@:-1:-1".to_owned(),
            ]
        );
        assert_eq!(p.raw.samples, Some(vec![1, 1, 2, 4, 1, 5, 5]));
        assert_eq!(p.raw.start_time, Micros(11552125241.0));
        assert_eq!(p.raw.end_time, Micros(11552189951.0));
        assert_eq!(
            p.raw.time_deltas,
            Some(vec![0.0, 4440.0, 16330.0, 13326.0, 10605.0, 10009.0, 10000.0])
        );
        assert_model_accepts(p);

        let text = corpus("multi-thread-with-samples.json").unwrap();
        let (samples, frames) = sample_lists(&text).unwrap();
        let (profiles, interner, diag) = convert(samples, frames);
        assert!(diag.skipped.is_empty(), "{:?}", diag.skipped);
        let summary: Vec<(String, Vec<String>, Vec<i64>)> = profiles
            .iter()
            .map(|p| {
                assert_eq!(p.pid, Some(Id::num(7512.0)));
                assert_model_accepts(p);
                (
                    p.tid.to_js_string(&interner),
                    nodes(p, &interner),
                    p.raw.samples.clone().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                (
                    "1".to_owned(),
                    vec![
                        "1 - js:(root)@:-1:-1".to_owned(),
                        "2 1 js:function1@:-1:-1".to_owned(),
                        "3 1 js:[GC Young Gen]@:-1:-1".to_owned(),
                    ],
                    vec![1, 2, 3],
                ),
                (
                    "2".to_owned(),
                    vec![
                        "1 - js:(root)@:-1:-1".to_owned(),
                        "2 1 js:function3@:-1:-1".to_owned(),
                        "3 1 js:function4@:-1:-1".to_owned(),
                    ],
                    vec![1, 2, 3, 1, 1],
                ),
            ]
        );

        // The Hermes event-array files have no samples at all.
        for name in ["simple-hermes.json", "hermes-multiple-frames.json"] {
            let text = corpus(name).unwrap();
            assert!(text.trim_start().starts_with('['), "{name} is an event array");
            assert!(sample_lists(&text).is_none());
        }
    }
}
