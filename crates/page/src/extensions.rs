//! The ExtensionTraceData handler (DevTools' `ExtensionTraceDataHandler`):
//! the entries that pages and extensions add to the Performance panel's
//! own tracks. A `performance.measure` or `performance.mark` whose `detail`
//! carries a `devtools` payload becomes a track entry or a marker; a
//! `console.timeStamp` with a `track` becomes a track entry, and one with
//! a `start` or `end` but no track an entry of the Timings track. The
//! track entries are grouped by track (and track group) and nested into a
//! tree per track when they nest.
//!
//! The entries are taken from the UserTimings handler's lists (in its
//! order); what they need of the events' args (the details, the time
//! stamps' labels and bounds) is read here as the events go by.

use tracekit_events::json::{as_f64, as_str, js_truthy, member, member_path};
use tracekit_events::{Context, Event, EventIndex, Handler, Id, Interner, Micros, Phase, Skip, Sym, Wants};

use crate::user_timings::UserTimings;
use crate::value::{json_truthy, JsValue};
use crate::Map;

mod dump;
mod tracks;

pub use tracks::{EntryNode, ExtensionTrack};

/// The `devtools` payload of an entry: what track it goes on, and how it
/// is drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    /// The `devtools` member of a mark's or measure's `detail`, as written.
    Detail {
        /// Its JSON text.
        json: Box<str>,
        /// Its `track` member.
        track: JsValue,
        /// Its `trackGroup` member.
        track_group: JsValue,
    },
    /// Made of a `console.timeStamp`'s args (`track`, `color`,
    /// `trackGroup`, each as JavaScript's `String()` writes it).
    TimeStamp {
        /// Its color (`"undefined"` when none was given).
        color: Sym,
        /// Its track.
        track: Sym,
        /// Its track group, when given.
        track_group: Option<Sym>,
    },
}

impl Payload {
    /// The track the entry goes on.
    pub fn track(&self) -> JsValue {
        match self {
            Payload::Detail { track, .. } => track.clone(),
            Payload::TimeStamp { track, .. } => JsValue::Str(*track),
        }
    }

    /// The group of tracks it goes in (`Undefined` when none).
    pub fn track_group(&self) -> JsValue {
        match self {
            Payload::Detail { track_group, .. } => track_group.clone(),
            Payload::TimeStamp { track_group, .. } => track_group.map_or(JsValue::Undefined, JsValue::Str),
        }
    }
}

/// What an extension entry was made from.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// A `performance.measure` (its begin event is the entry's source).
    Measure,
    /// A `performance.mark`.
    Mark,
    /// A `console.timeStamp`, whose every member the entry copies: the
    /// event's JSON text.
    TimeStamp(Box<str>),
}

/// A track entry or a marker added by a page or an extension (DevTools'
/// `SyntheticExtensionTrackEntry` and `SyntheticExtensionMarker`).
#[derive(Debug, Clone, PartialEq)]
pub struct ExtensionEntry {
    /// Its label: the measure's or mark's name, the time stamp's
    /// `name ?? message` as `String()` writes it.
    pub name: Sym,
    /// Its process.
    pub pid: Id,
    /// Its thread.
    pub tid: Id,
    /// When it starts.
    pub ts: Micros,
    /// How long it lasts (`None`: a mark without a `dur`).
    pub dur: Option<Micros>,
    /// Whether it is a marker (a point in time on the timeline's ruler)
    /// rather than a track entry.
    pub marker: bool,
    /// Its `devtools` payload.
    pub payload: Payload,
    /// The rest of the detail (the time stamp's `devtools` argument,
    /// parsed) as JSON text; `None` when it could not be parsed.
    pub user_detail: Option<Box<str>>,
    /// The event it was made from (a measure's begin event).
    pub source_event: EventIndex,
    /// What kind of event that is.
    pub origin: Origin,
}

/// A `console.timeStamp` with a `start` or `end` but no track, drawn with
/// its duration on the Timings track (DevTools'
/// `SyntheticConsoleTimeStamp`).
#[derive(Debug, Clone, PartialEq)]
pub struct TimingsTrackStamp {
    /// Its label (`name ?? message`, as `String()` writes it).
    pub name: Sym,
    /// Its process.
    pub pid: Id,
    /// Its thread.
    pub tid: Id,
    /// When it starts.
    pub ts: Micros,
    /// How long it lasts (negative when its end is before its start).
    pub dur: Micros,
    /// Its event.
    pub source_event: EventIndex,
    /// Its event's JSON text (the entry copies every member).
    pub event_text: Box<str>,
}

/// What the ExtensionTraceData handler found.
#[derive(Debug, Clone, Default)]
pub struct ExtensionTraceData {
    /// The track entries, by time (earlier first, then longer first).
    pub entries: Vec<ExtensionEntry>,
    /// The markers, by time.
    pub markers: Vec<ExtensionEntry>,
    /// The tracks (a track group, or a track of its own), in the order of
    /// their first entries.
    pub tracks: Vec<ExtensionTrack>,
    /// The tree nodes of the entries of the tracks whose entries nest, in
    /// DevTools' order (track by track, then by time).
    pub nodes: Vec<EntryNode>,
    /// The time stamps drawn on the Timings track, in the UserTimings
    /// handler's order.
    pub timings_track_stamps: Vec<TimingsTrackStamp>,
}

/// What a mark's or a measure's detail says for the extension tracks.
#[derive(Debug, Clone)]
struct Detail {
    /// `devtools` payload's JSON text, its track and group.
    payload: Payload,
    /// A marker (`dataType: "marker"`), or a track entry.
    marker: bool,
    /// Whether the payload is a track entry's (a truthy `track`, and
    /// `dataType` absent or `"track-entry"`).
    entry: bool,
    user_detail: Option<Box<str>>,
    /// For a mark: its process, thread and `dur`.
    mark: Option<(Id, Id, Option<Micros>)>,
}

/// A `console.timeStamp`'s `start` or `end`: a time on the trace's clock,
/// or the label of an earlier time stamp (JavaScript's `String()` of the
/// value, `"undefined"` when absent).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Bound {
    Time(Micros),
    Label(Sym),
}

/// What the handler needs of a `console.timeStamp` with `args.data`.
#[derive(Debug, Clone)]
struct Stamp {
    label: Sym,
    ts: Micros,
    pid: Id,
    tid: Id,
    start: Bound,
    end: Bound,
    /// Whether `start` or `end` is truthy.
    bounded: bool,
    /// Whether `start` and `end` were given.
    given: (bool, bool),
    /// With a truthy `track`: its payload and user detail.
    extension: Option<(Payload, Option<Box<str>>)>,
    /// The event's text, kept when an entry is made of it.
    text: Option<Box<str>>,
}

/// The ExtensionTraceData handler (see the module documentation).
#[derive(Debug, Default)]
pub struct ExtensionTraceDataHandler {
    details: Map<EventIndex, Detail>,
    stamps: Map<EventIndex, Stamp>,
}

impl Handler for ExtensionTraceDataHandler {
    type Deps<'d> = &'d UserTimings;
    type Data = ExtensionTraceData;

    // Marks and measures are named by the page: their category says what
    // they are.
    const WANTS: Wants = Wants::Every;

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        use tracekit_events::names;
        if event.cat == names::CAT_BLINK_USER_TIMING {
            let mark = event.ph == Phase(b'R') || event.ph == Phase::INSTANT;
            let raw = if mark {
                event.args.and_then(|a| member_path(a, &["data", "detail"]))
            } else if event.ph == Phase(b'b') {
                event.args.and_then(|a| member(a, "detail"))
            } else {
                return;
            };
            match read_detail(raw, &mut cx.interner) {
                DetailRead::None => {}
                DetailRead::Malformed => cx.diagnostics.skip(Skip::ExtensionMalformedDetail, || {
                    format!("event #{index}: detail {}", raw.unwrap_or_default())
                }),
                DetailRead::Payload(mut detail) => {
                    if mark {
                        detail.mark = Some((event.pid, event.tid, event.dur));
                    }
                    self.details.insert(index, detail);
                }
            }
        } else if event.name == names::TIME_STAMP {
            if let Some(stamp) = read_stamp(event, &mut cx.interner) {
                self.stamps.insert(index, stamp);
            }
        }
    }

    fn finalize(self, timings: &UserTimings, cx: &mut Context) -> ExtensionTraceData {
        let mut data = ExtensionTraceData::default();
        let mut entries = self.performance_entries(timings, &mut data.markers);
        self.console_entries(timings, &mut entries, &mut data.timings_track_stamps, cx);
        // A stable sort, as V8's.
        entries.sort_by(|a, b| tracks::time_order(a.ts, a.dur, b.ts, b.dur));
        data.entries = entries;
        let (tracks, nodes) = tracks::build(&data.entries, &mut cx.interner);
        data.tracks = tracks;
        data.nodes = nodes;
        data
    }
}

impl ExtensionTraceDataHandler {
    /// The entries and markers of the measures and marks, merged by time
    /// (measures first at equal times).
    fn performance_entries(&self, timings: &UserTimings, markers: &mut Vec<ExtensionEntry>) -> Vec<ExtensionEntry> {
        let measures = timings.performance_measures.iter().map(|m| (m.ts, Some(m.dur)));
        let marks = timings.performance_marks.iter().map(|m| {
            let dur = self
                .details
                .get(&m.event)
                .and_then(|d| d.mark)
                .and_then(|(_, _, dur)| dur);
            (m.ts, dur)
        });
        let order = merge_in_order(&measures.collect::<Vec<_>>(), &marks.collect::<Vec<_>>());
        let mut entries = Vec::new();
        for (from_measure, at) in order {
            let (made, source) = if from_measure {
                let m = &timings.performance_measures[at];
                let Some(detail) = self.details.get(&m.begin) else {
                    continue;
                };
                let made = (m.name, m.pid, m.tid, m.ts, Some(m.dur), Origin::Measure);
                (made, (detail, m.begin))
            } else {
                let m = &timings.performance_marks[at];
                let Some(detail) = self.details.get(&m.event) else {
                    continue;
                };
                let (pid, tid, dur) = detail.mark.unwrap_or((Id::MISSING, Id::MISSING, None));
                ((m.name, pid, tid, m.ts, dur, Origin::Mark), (detail, m.event))
            };
            let ((name, pid, tid, ts, dur, origin), (detail, event)) = (made, source);
            if !(detail.marker || detail.entry) {
                continue;
            }
            let entry = ExtensionEntry {
                name,
                pid,
                tid,
                ts,
                dur,
                marker: detail.marker,
                payload: detail.payload.clone(),
                user_detail: detail.user_detail.clone(),
                source_event: event,
                origin,
            };
            if detail.marker {
                markers.push(entry);
            } else {
                entries.push(entry);
            }
        }
        entries
    }

    /// The entries of the time stamps: on their track, or on the Timings
    /// track when they have a start or end but no track.
    fn console_entries(
        &self,
        timings: &UserTimings,
        entries: &mut Vec<ExtensionEntry>,
        stamps_out: &mut Vec<TimingsTrackStamp>,
        cx: &mut Context,
    ) {
        let mut by_label: ahash::AHashMap<Sym, Micros> = ahash::AHashMap::default();
        for time_stamp in &timings.timestamp_events {
            let index = time_stamp.event;
            let Some(stamp) = self.stamps.get(&index) else { continue };
            by_label.insert(stamp.label, stamp.ts);
            if stamp.extension.is_none() && !stamp.bounded {
                continue;
            }
            let resolve = |bound: Bound| match bound {
                Bound::Time(t) => Some(t),
                Bound::Label(label) => by_label.get(&label).copied(),
            };
            let (start, end) = (resolve(stamp.start), resolve(stamp.end));
            let unresolved = |given: bool, found: Option<Micros>| given && found.is_none();
            if unresolved(stamp.given.0, start) || unresolved(stamp.given.1, end) {
                cx.diagnostics.skip(Skip::ExtensionUnresolvedTimeStamp, || {
                    format!("console.timeStamp (event #{index}) named by no earlier time stamp")
                });
            }
            if end.is_some() && start.is_none() {
                continue;
            }
            let ts = start.unwrap_or(stamp.ts);
            let dur = Micros(end.unwrap_or(stamp.ts).0 - ts.0);
            let text = stamp.text.clone().unwrap_or_default();
            match &stamp.extension {
                Some((payload, user_detail)) => entries.push(ExtensionEntry {
                    name: stamp.label,
                    pid: stamp.pid,
                    tid: stamp.tid,
                    ts,
                    dur: Some(dur),
                    marker: false,
                    payload: payload.clone(),
                    user_detail: user_detail.clone(),
                    source_event: index,
                    origin: Origin::TimeStamp(text),
                }),
                None => stamps_out.push(TimingsTrackStamp {
                    name: stamp.label,
                    pid: stamp.pid,
                    tid: stamp.tid,
                    ts,
                    dur,
                    source_event: index,
                    event_text: text,
                }),
            }
        }
    }
}

/// DevTools' merge of two lists sorted by time: `(true, i)` for the i-th
/// of `a`, `(false, j)` for the j-th of `b`; at equal times, `a` first.
fn merge_in_order(a: &[(Micros, Option<Micros>)], b: &[(Micros, Option<Micros>)]) -> Vec<(bool, usize)> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(a.len() + b.len());
    while i < a.len() && j < b.len() {
        let order = tracks::time_order(a[i].0, a[i].1, b[j].0, b[j].1);
        if order.is_le() {
            out.push((true, i));
            i += 1;
        } else {
            out.push((false, j));
            j += 1;
        }
    }
    out.extend((i..a.len()).map(|i| (true, i)));
    out.extend((j..b.len()).map(|j| (false, j)));
    out
}

enum DetailRead {
    /// No extension payload (no detail, or a detail of the page's own).
    None,
    /// A detail that is not JSON, or whose `devtools` is no valid payload.
    Malformed,
    Payload(Detail),
}

/// A mark's or measure's `detail` (raw JSON: a string holding JSON), as
/// DevTools reads it: a JSON object whose `devtools` member is a marker,
/// a track entry or a time stamp payload.
fn read_detail(raw: Option<&str>, interner: &mut Interner) -> DetailRead {
    let Some(raw) = raw.filter(|r| js_truthy(r)) else {
        return DetailRead::None;
    };
    // A detail that is not a string is parsed as its `String()`: never an
    // object.
    let Some(text) = as_str(raw) else {
        return DetailRead::None;
    };
    let Ok(parsed) = serde_json::from_str::<serde_json::Value>(&text) else {
        return DetailRead::Malformed;
    };
    let serde_json::Value::Object(mut detail) = parsed else {
        return DetailRead::None;
    };
    let Some(payload) = detail.remove("devtools") else {
        return DetailRead::None;
    };
    let serde_json::Value::Object(fields) = &payload else {
        return DetailRead::Malformed;
    };
    let data_type = fields.get("dataType");
    let marker = data_type.is_some_and(|t| t == "marker");
    let entry = fields.get("track").is_some_and(json_truthy) && data_type.is_none_or(|t| t == "track-entry");
    let stamp = fields.contains_key("url") && fields.contains_key("description");
    if !(marker || entry || stamp) {
        return DetailRead::Malformed;
    }
    let member = |key: &str, interner: &mut Interner| {
        fields.get(key).map_or(JsValue::Undefined, |v| {
            let text = v.to_string();
            JsValue::read(Some(&text), interner)
        })
    };
    let payload = Payload::Detail {
        json: payload.to_string().into(),
        track: member("track", interner),
        track_group: member("trackGroup", interner),
    };
    DetailRead::Payload(Detail {
        payload,
        marker,
        entry,
        user_detail: Some(serde_json::Value::Object(detail).to_string().into()),
        mark: None,
    })
}

/// A `console.timeStamp` with a truthy `args.data`.
fn read_stamp(event: &Event<'_>, interner: &mut Interner) -> Option<Stamp> {
    let data = event.args.and_then(|a| member(a, "data")).filter(|d| js_truthy(d))?;
    let get = |key: &str| member(data, key);
    let name = get("name").filter(|v| v.trim() != "null").or_else(|| get("message"));
    let label = interner.intern(&js_string(name));
    let bound = |raw: Option<&str>, interner: &mut Interner| match raw.and_then(as_f64) {
        Some(x) => Bound::Time(Micros(x)),
        None => Bound::Label(interner.intern(&js_string(raw))),
    };
    let (start, end) = (bound(get("start"), interner), bound(get("end"), interner));
    let bounded = get("start").is_some_and(js_truthy) || get("end").is_some_and(js_truthy);
    let extension = get("track").filter(|t| js_truthy(t)).map(|track| {
        let payload = Payload::TimeStamp {
            color: interner.intern(&js_string(get("color"))),
            track: interner.intern(&js_string(Some(track))),
            track_group: get("trackGroup").map(|g| interner.intern(&js_string(Some(g)))),
        };
        (payload, user_detail_of_stamp(get("devtools")))
    });
    let text = (extension.is_some() || bounded).then(|| event.text.into());
    Some(Stamp {
        label,
        ts: event.ts,
        pid: event.pid,
        tid: event.tid,
        start,
        end,
        bounded,
        given: (get("start").is_some(), get("end").is_some()),
        extension,
        text,
    })
}

/// `JSON.parse(devtools || '""')`: the time stamp's seventh argument, as
/// JSON text (`None` when it does not parse).
fn user_detail_of_stamp(raw: Option<&str>) -> Option<Box<str>> {
    let Some(raw) = raw.filter(|r| js_truthy(r)) else {
        return Some("\"\"".into());
    };
    let text = match as_str(raw) {
        Some(s) => s.into_owned(),
        None => js_string(Some(raw)),
    };
    let value = serde_json::from_str::<serde_json::Value>(&text).ok()?;
    Some(value.to_string().into())
}

/// JavaScript's `String(value)` of a raw JSON value (`None`: `undefined`).
pub fn js_string(raw: Option<&str>) -> String {
    let Some(raw) = raw.map(str::trim) else {
        return "undefined".to_owned();
    };
    if let Some(s) = as_str(raw) {
        return s.into_owned();
    }
    if let Some(x) = as_f64(raw) {
        return tracekit_events::jsnum::js_number_string(x);
    }
    match serde_json::from_str::<serde_json::Value>(raw) {
        Ok(value) => value_string(&value),
        Err(_) => raw.to_owned(),
    }
}

/// `String()` of a parsed JSON value (arrays joined by commas, their
/// `null`s empty; objects `[object Object]`).
fn value_string(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Null => "null".to_owned(),
        serde_json::Value::Bool(b) => b.to_string(),
        serde_json::Value::Number(n) => tracekit_events::jsnum::js_number_string(n.as_f64().unwrap_or(f64::NAN)),
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Object(_) => "[object Object]".to_owned(),
        // serde_json's own depth limit bounds this recursion.
        serde_json::Value::Array(items) => items
            .iter()
            .map(|item| match item {
                serde_json::Value::Null => String::new(),
                other => value_string(other),
            })
            .collect::<Vec<_>>()
            .join(","),
    }
}

#[cfg(test)]
mod tests;
