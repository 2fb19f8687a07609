//! Bigger traces from a real one, for the scaling table: the real trace's
//! events, copied back to back.
//!
//! Copy `k` is the recorded session again, `k` trace spans (plus a second)
//! later, in other processes:
//! - every `ts` (but the `0` of metadata events) and the `startTime` and
//!   `endTime` of CPU profile events move by `k * shift`, where `shift` is
//!   the trace's span plus one second rounded up to whole seconds, so
//!   copies never overlap in time;
//! - every process and thread id moves by `k * offset` (`offset` a power of
//!   ten above every id of the trace): the top-level `pid` and `tid`, and in
//!   `args` the keys that name a process or thread (`processId` of the
//!   `TracingStartedInBrowser` and `FrameCommittedInBrowser` frames,
//!   `workerThreadId`, `child_process_id`, ...). Copies are thus distinct
//!   processes and threads, and each process keeps its own CPU profile:
//!   Profile/ProfileChunk ids (`"id":"0x1"`) stay unique per pid.
//! - frame ids stay as they are: to DevTools, each copy is the same tab,
//!   navigated into new renderer processes (one `TracingStartedInBrowser`
//!   and its `FrameCommittedInBrowser` events per copy).
//!
//! A size that is not a whole number of copies ends with a copy cut in
//! time: its events before a cutoff `ts` (and its metadata events).
//! Copy 0 is written as it was read; the others are parsed one event at a
//! time (`serde_json::Value`), changed and written out, so the output is
//! streamed and never held in memory.

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{bail, Context};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Number, Value};

/// Keys of `args` (at any depth) whose integer values are process or thread ids.
const ID_KEYS: &[&str] = &[
    "pid",
    "tid",
    "processId",
    "process_id",
    "child_process_id",
    "process id",
    "threadId",
    "workerThreadId",
];
/// Events whose `args` hold absolute times (µs) under `startTime`/`endTime`.
const PROFILE_EVENTS: &[&str] = &["Profile", "ProfileChunk", "CpuProfile"];

pub struct Source<'a> {
    events: Vec<&'a RawValue>,
    /// The other top-level members of the object form (`metadata`, ...).
    rest: Vec<(String, &'a RawValue)>,
    object_form: bool,
    /// Per event: its `ts` (0 when absent or zero).
    ts: Vec<f64>,
    /// Bytes of all events, each with its separator.
    pub event_bytes: u64,
    /// Time between copies, µs.
    pub shift: u64,
    /// Id offset between copies.
    pub id_offset: u64,
}

#[derive(Deserialize)]
struct Head {
    ts: Option<Value>,
    dur: Option<Value>,
    pid: Option<Value>,
    tid: Option<Value>,
}

fn as_id(v: &Option<Value>) -> Option<u64> {
    match v.as_ref()? {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

impl<'a> Source<'a> {
    pub fn parse(text: &'a str) -> anyhow::Result<Self> {
        let trimmed = text.trim_start_matches('\u{feff}').trim_start();
        let (events, rest, object_form) = if trimmed.starts_with('[') {
            let events: Vec<&RawValue> = serde_json::from_str(trimmed).context("reading the event array")?;
            (events, Vec::new(), false)
        } else {
            let members: Vec<(String, &RawValue)> =
                serde_json::from_str::<std::collections::BTreeMap<String, &RawValue>>(trimmed)
                    .context("reading the trace object")?
                    .into_iter()
                    .collect();
            let Some((_, raw)) = members.iter().find(|(k, _)| k == "traceEvents") else {
                bail!("the trace object has no traceEvents");
            };
            let events: Vec<&RawValue> = serde_json::from_str(raw.get()).context("reading traceEvents")?;
            let rest = members.into_iter().filter(|(k, _)| k != "traceEvents").collect();
            (events, rest, true)
        };
        let mut ts = Vec::with_capacity(events.len());
        let (mut min, mut max, mut max_id) = (f64::INFINITY, f64::NEG_INFINITY, 0u64);
        let mut event_bytes = 0u64;
        for raw in &events {
            event_bytes += raw.get().len() as u64 + 2;
            let head: Head = match serde_json::from_str(raw.get()) {
                Ok(h) => h,
                Err(_) => {
                    ts.push(0.0);
                    continue;
                }
            };
            let t = head.ts.as_ref().and_then(Value::as_f64).unwrap_or(0.0);
            ts.push(t);
            if t != 0.0 {
                let dur = head.dur.as_ref().and_then(Value::as_f64).unwrap_or(0.0);
                min = min.min(t);
                max = max.max(t + dur.max(0.0));
            }
            for id in [as_id(&head.pid), as_id(&head.tid)].into_iter().flatten() {
                max_id = max_id.max(id);
            }
        }
        if events.is_empty() || !min.is_finite() {
            bail!("the trace has no timed event to replicate");
        }
        let span = max - min;
        // A positive whole number of seconds (`as` saturates, far beyond
        // any trace's span).
        #[allow(clippy::cast_possible_truncation)]
        let shift = ((span + 1e6) / 1e6).ceil() as u64 * 1_000_000;
        let mut id_offset = 10u64;
        while id_offset <= max_id {
            id_offset *= 10;
        }
        Ok(Source {
            events,
            rest,
            object_form,
            ts,
            event_bytes,
            shift,
            id_offset,
        })
    }

    /// Writes a trace of about `target` bytes to `out` (through a temporary
    /// file, renamed when complete). Returns the number of copies (the last
    /// one possibly partial, as a fraction).
    pub fn write(&self, target: u64, out: &Path) -> anyhow::Result<f64> {
        self.write_from(0, target, out)
    }

    /// [`Source::write`], with copies numbered from `first_copy` (copy 0 is the
    /// trace as recorded; copy `k` is moved `k` spans later, its ids by
    /// `k` offsets): `cargo xtask variants` makes traces of other pids and
    /// times from one recording.
    pub fn write_from(&self, first_copy: u64, target: u64, out: &Path) -> anyhow::Result<f64> {
        let full = target / self.event_bytes;
        let remainder = target - full * self.event_bytes;
        // The cut copy: its metadata events, then events by time until the
        // remainder is spent.
        let cutoff = if remainder > 0 {
            let mut timed: Vec<(f64, u64)> = Vec::new();
            let mut budget = remainder as i64;
            for (raw, &t) in self.events.iter().zip(&self.ts) {
                let len = raw.get().len() as u64 + 2;
                if t == 0.0 {
                    budget -= len as i64;
                } else {
                    timed.push((t, len));
                }
            }
            timed.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut cut = f64::NEG_INFINITY;
            for (t, len) in timed {
                if budget <= 0 {
                    cut = t;
                    break;
                }
                budget -= len as i64;
                cut = f64::INFINITY;
            }
            Some(cut)
        } else {
            None
        };
        let copies = usize::try_from(full).context("too many copies")? + usize::from(cutoff.is_some());
        if copies == 0 {
            bail!("asked for an empty trace");
        }

        let tmp = out.with_extension("json.partial");
        let file = std::fs::File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        let mut w = BufWriter::with_capacity(4 << 20, file);
        w.write_all(if self.object_form {
            b"{\"traceEvents\":[\n"
        } else {
            b"[\n"
        })?;
        let mut first = true;
        let mut written_in_cut = 0u64;
        for k in 0..copies {
            let cut = if k + 1 == copies { cutoff } else { None };
            for (raw, &t) in self.events.iter().zip(&self.ts) {
                if let Some(cut) = cut {
                    if t != 0.0 && t >= cut {
                        continue;
                    }
                    written_in_cut += raw.get().len() as u64 + 2;
                }
                if !first {
                    w.write_all(b",\n")?;
                }
                first = false;
                let k = first_copy + k as u64;
                if k == 0 {
                    w.write_all(raw.get().as_bytes())?;
                } else {
                    match serde_json::from_str::<Value>(raw.get()) {
                        Ok(mut event) => {
                            self.move_event(&mut event, k);
                            serde_json::to_writer(&mut w, &event)?;
                        }
                        // Not JSON we can read: as it was.
                        Err(_) => w.write_all(raw.get().as_bytes())?,
                    }
                }
            }
        }
        w.write_all(b"\n]")?;
        if self.object_form {
            for (key, raw) in &self.rest {
                w.write_all(b",")?;
                serde_json::to_writer(&mut w, key)?;
                w.write_all(b":")?;
                w.write_all(raw.get().as_bytes())?;
            }
            w.write_all(b"}")?;
        }
        w.write_all(b"\n")?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, out)?;
        let fraction = if cutoff.is_some() {
            written_in_cut as f64 / self.event_bytes as f64
        } else {
            0.0
        };
        Ok(full as f64 + fraction)
    }

    fn move_event(&self, event: &mut Value, k: u64) {
        let shift = k * self.shift;
        let offset = k * self.id_offset;
        let Value::Object(map) = event else { return };
        let is_profile = map
            .get("name")
            .and_then(Value::as_str)
            .is_some_and(|n| PROFILE_EVENTS.contains(&n));
        if let Some(ts) = map.get_mut("ts") {
            move_time(ts, shift);
        }
        for key in ["pid", "tid"] {
            if let Some(id) = map.get_mut(key) {
                move_id(id, offset, k);
            }
        }
        if let Some(args) = map.get_mut("args") {
            move_args(args, shift, offset, is_profile);
        }
    }
}

fn move_time(v: &mut Value, shift: u64) {
    let Value::Number(n) = v else { return };
    if let Some(u) = n.as_u64() {
        if u != 0 {
            *v = Value::from(u + shift);
        }
    } else if let Some(f) = n.as_f64() {
        if f != 0.0 {
            if let Some(moved) = Number::from_f64(f + shift as f64) {
                *n = moved;
            }
        }
    }
}

fn move_id(v: &mut Value, offset: u64, k: u64) {
    match v {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                *v = Value::from(u + offset);
            } else if let Some(i) = n.as_i64() {
                *v = Value::from(i + offset as i64);
            }
        }
        Value::String(s) => {
            *s = match s.parse::<u64>() {
                Ok(u) => (u + offset).to_string(),
                Err(_) => format!("{s}~{k}"),
            }
        }
        _ => {}
    }
}

fn move_args(v: &mut Value, shift: u64, offset: u64, is_profile: bool) {
    match v {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                if ID_KEYS.contains(&key.as_str()) && value.is_number() {
                    move_id(value, offset, 0);
                } else if is_profile && (key == "startTime" || key == "endTime") {
                    move_time(value, shift);
                } else if value.is_object() || value.is_array() {
                    move_args(value, shift, offset, is_profile);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                if item.is_object() || item.is_array() {
                    move_args(item, shift, offset, is_profile);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_move_in_time_and_ids() {
        let text = r#"{"traceEvents":[
{"name":"thread_name","ph":"M","pid":7,"tid":8,"ts":0,"args":{"name":"CrRendererMain"}},
{"name":"TracingStartedInBrowser","ph":"I","pid":3,"tid":3,"ts":1000000,"args":{"data":{"frames":[{"frame":"F","processId":7}]}}},
{"name":"Profile","ph":"P","id":"0x1","pid":7,"tid":8,"ts":1500000,"args":{"data":{"startTime":1500000}}},
{"name":"RunTask","ph":"X","pid":7,"tid":8,"ts":2000000.5,"dur":10}
],"metadata":{"a":1}}"#;
        let source = Source::parse(text).unwrap();
        assert_eq!(source.shift, 3_000_000);
        assert_eq!(source.id_offset, 10);
        let dir = std::env::temp_dir().join(format!("tk-replicate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("x.json");
        let copies = source.write(source.event_bytes * 2, &out).unwrap();
        assert_eq!(copies, 2.0);
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let events = v["traceEvents"].as_array().unwrap();
        assert_eq!(events.len(), 8);
        assert_eq!(events[4]["ts"], 0);
        assert_eq!(events[4]["pid"], 17);
        assert_eq!(events[5]["args"]["data"]["frames"][0]["processId"], 17);
        assert_eq!(events[5]["args"]["data"]["frames"][0]["frame"], "F");
        assert_eq!(events[6]["ts"], 4_500_000);
        assert_eq!(events[6]["args"]["data"]["startTime"], 4_500_000);
        assert_eq!(events[6]["id"], "0x1");
        assert_eq!(events[7]["ts"], 5_000_000.5);
        assert_eq!(events[7]["tid"], 18);
        assert_eq!(v["metadata"]["a"], 1);
        // A cut copy keeps its metadata events and its earliest events.
        let copies = source.write(source.event_bytes + 200, &out).unwrap();
        assert!(copies > 1.0 && copies < 2.0, "{copies}");
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let names: Vec<&str> = v["traceEvents"].as_array().unwrap()[4..]
            .iter()
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["thread_name", "TracingStartedInBrowser"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
