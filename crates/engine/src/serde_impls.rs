//! `serde::Serialize` on the model (the `serde` feature): an [`Analysis`]
//! serializes as the document of `tracekit tracks --format json`
//! (`docs/json-format.md`), its handles as the parts of it, so that
//! `serde_json::to_string(&analysis)` is that document and any other serde
//! format (CBOR, MessagePack, ...) holds the same.
//!
//! Names are written as text and ids as the numbers the trace gives, which
//! only the handles can do (a [`Sym`](crate::Sym) means something only
//! with its analysis' strings): the stored types ([`ThreadTrack`](crate::ThreadTrack),
//! [`TrackNode`](crate::TrackNode)) do not implement `Serialize`. Times are
//! rounded to the nanosecond as the JSON format has them.

use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;
use tracekit_events::jsnum::round3;
use tracekit_events::{Id, Strings};

use crate::engine::Analysis;
use crate::model::{Diagnostics, Function, Node, Process, Thread};
use crate::InputKind;

/// A number as the JSON format writes it: a whole number as an integer
/// (`1000`, not `1000.0`), a non-finite one as `null`.
struct Number(f64);

impl Serialize for Number {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let x = self.0;
        if !x.is_finite() {
            return s.serialize_none();
        }
        if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
            // Whole and below 2^53 in magnitude: exact as an i64.
            #[allow(clippy::cast_possible_truncation)]
            return s.serialize_i64(x as i64);
        }
        s.serialize_f64(x)
    }
}

/// A time in µs, rounded to the nanosecond.
fn time(x: f64) -> Number {
    Number(round3(x))
}

/// An id as the JSON format writes it: a number, a string, or `null`.
struct IdValue<'a>(Id, &'a Strings);

impl Serialize for IdValue<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match (self.0.as_f64(), self.0.as_sym()) {
            (Some(x), _) => Number(x).serialize(s),
            (None, Some(sym)) => s.serialize_str(self.1.resolve(sym)),
            (None, None) => s.serialize_none(),
        }
    }
}

/// The items of an iterator as a sequence, without collecting them.
struct Seq<I>(std::cell::Cell<Option<I>>);

impl<I> Seq<I> {
    fn new(items: I) -> Self {
        Seq(std::cell::Cell::new(Some(items)))
    }
}

impl<I: Iterator<Item = T>, T: Serialize> Serialize for Seq<I> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let items = self.0.take().expect("a sequence is serialized once");
        let mut seq = s.serialize_seq(items.size_hint().1)?;
        for item in items {
            seq.serialize_element(&item)?;
        }
        seq.end()
    }
}

impl Serialize for InputKind {
    /// `"ChromeTrace"`, `"CpuProfile"` or `"SelfProfiling"`, as the JSON
    /// format's `input`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{self:?}"))
    }
}

impl Serialize for Analysis {
    /// The document of `tracekit tracks --format json`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(6))?;
        map.serialize_entry("format", "tracekit-tracks")?;
        map.serialize_entry("version", &1)?;
        map.serialize_entry("input", &self.kind)?;
        let bounds = self.bounds;
        map.serialize_entry("bounds", &Bounds(time(bounds.min.0), time(bounds.max.0)))?;
        map.serialize_entry("processes", &Seq::new(self.processes()))?;
        map.serialize_entry("diagnostics", &self.diagnostics)?;
        map.end()
    }
}

struct Bounds(Number, Number);

impl Serialize for Bounds {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("min", &self.0)?;
        map.serialize_entry("max", &self.1)?;
        map.end()
    }
}

impl Serialize for Process<'_> {
    /// `{pid, url, isOnMainFrame, keptByDevTools, threads}`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(5))?;
        map.serialize_entry("pid", &IdValue(self.pid(), self.strings()))?;
        map.serialize_entry("url", &self.url())?;
        map.serialize_entry("isOnMainFrame", &self.is_on_main_frame())?;
        map.serialize_entry("keptByDevTools", &self.kept_by_devtools())?;
        map.serialize_entry("threads", &Seq::new(self.threads()))?;
        map.end()
    }
}

impl Serialize for Thread<'_> {
    /// `{tid, name, nodes}`, the nodes depth first.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("tid", &IdValue(self.tid(), self.strings()))?;
        map.serialize_entry("name", &self.name())?;
        map.serialize_entry("nodes", &Seq::new(self.nodes()))?;
        map.end()
    }
}

impl Serialize for Node<'_> {
    /// A node as the JSON format writes it: `{depth, type: "event", name,
    /// cat, ph, ts, dur, self}` or `{depth, type: "js", functionName, url,
    /// scriptId, lineNumber, columnNumber, nodeId, ts, dur, self}`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("depth", &self.depth())?;
        if let Some(ph) = self.phase() {
            map.serialize_entry("type", "event")?;
            map.serialize_entry("name", self.name())?;
            map.serialize_entry("cat", &self.category())?;
            map.serialize_entry("ph", &char::from(ph.0).to_string())?;
        } else {
            map.serialize_entry("type", "js")?;
            if let Some(function) = self.function() {
                function.serialize_entries(&mut map)?;
            }
        }
        map.serialize_entry("ts", &time(self.start().0))?;
        map.serialize_entry("dur", &time(self.duration().0))?;
        map.serialize_entry("self", &self.self_time().map(|t| time(t.0)))?;
        map.end()
    }
}

impl Function<'_> {
    fn serialize_entries<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        let frame = &self.raw().call_frame;
        map.serialize_entry("functionName", self.function_name())?;
        map.serialize_entry("url", self.url())?;
        map.serialize_entry("scriptId", self.script_id())?;
        map.serialize_entry("lineNumber", &Number(frame.line_number.unwrap_or(f64::NAN)))?;
        map.serialize_entry("columnNumber", &Number(frame.column_number.unwrap_or(f64::NAN)))?;
        map.serialize_entry("nodeId", &self.node_id())?;
        Ok(())
    }
}

impl Serialize for Function<'_> {
    /// `{functionName, url, scriptId, lineNumber, columnNumber, nodeId}`,
    /// as the JSON format writes a JS call's function (`functionName` as
    /// the profile has it: `""` for an anonymous function).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(6))?;
        self.serialize_entries(&mut map)?;
        map.end()
    }
}

impl Serialize for Diagnostics {
    /// `{warnings, skipped: [{reason, count, firstExample}]}`, as the JSON
    /// format's `diagnostics`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Skipped<'a>(tracekit_events::Skip, &'a tracekit_events::SkipRecord);
        impl Serialize for Skipped<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut map = s.serialize_map(Some(3))?;
                map.serialize_entry("reason", self.0.as_str())?;
                map.serialize_entry("count", &self.1.count)?;
                map.serialize_entry("firstExample", &self.1.first_example)?;
                map.end()
            }
        }
        let mut map = s.serialize_map(Some(2))?;
        // The events' warnings as they were given (output::json writes
        // them all).
        map.serialize_entry("warnings", &self.0.warnings)?;
        map.serialize_entry(
            "skipped",
            &Seq::new(self.skipped().map(|(r, record)| Skipped(r, record))),
        )?;
        map.end()
    }
}
