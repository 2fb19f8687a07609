//! The UserTimings handler (DevTools' `UserTimingsHandler`): the page's
//! `performance.mark`s, its `performance.measure`s and `console.time`s
//! (each begin and end pair made one synthetic event), its
//! `console.timeStamp`s, and the `UserTiming::Measure` events by trace id.

use std::cmp::Ordering;

use tracekit_events::dump::{Dump, Object, Synthetic, Value};
use tracekit_events::json::{as_f64, as_str, js_truthy, member, member_path};
use tracekit_events::{names, Context, Event, EventIndex, Handler, Id, Micros, Phase, Skip, Sym, Wants};

use crate::js_sort::v8_sort_by;
use crate::Map;

/// Navigation and resource timing names, which DevTools leaves out.
const IGNORED_NAMES: &[&str] = &[
    "workerStart",
    "redirectStart",
    "redirectEnd",
    "fetchStart",
    "domainLookupStart",
    "domainLookupEnd",
    "connectStart",
    "connectEnd",
    "secureConnectionStart",
    "requestStart",
    "responseStart",
    "responseEnd",
    "navigationStart",
    "unloadEventStart",
    "unloadEventEnd",
    "commitNavigationEnd",
    "domLoading",
    "domInteractive",
    "domContentLoadedEventStart",
    "domContentLoadedEventEnd",
    "domComplete",
    "loadEventStart",
    "loadEventEnd",
];

/// A measure or console timing: its begin event and its end (or the
/// instant events of its id, when it never ended), as one event.
#[derive(Debug, Clone, PartialEq)]
pub struct UserTiming {
    /// The begin event's name.
    pub name: Sym,
    /// The category of the end event (or the begin's without one).
    pub cat: Sym,
    /// The phase of the end event (or the begin's without one).
    pub ph: Phase,
    /// The process of the end event (or the begin's).
    pub pid: Id,
    /// The thread of the end event (or the begin's).
    pub tid: Id,
    /// The pair's id: `CATEGORY:ID:NAME`.
    pub id: Sym,
    /// When it began.
    pub ts: Micros,
    /// From the begin to the end (or to the begin without an end).
    pub dur: Micros,
    /// The begin event.
    pub begin: EventIndex,
    /// The end event.
    pub end: Option<EventIndex>,
    /// The instant events of the pair.
    pub instants: Vec<EventIndex>,
}

/// A `performance.mark`: its event, name and time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mark {
    /// Its event.
    pub event: EventIndex,
    /// Its name (the event's).
    pub name: Sym,
    /// When it was made.
    pub ts: Micros,
}

/// A `console.timeStamp`: its event, label and times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeStamp {
    /// Its event.
    pub event: EventIndex,
    /// Its label: `args.data.message`, else `args.data.name` (a string, or
    /// a number as JavaScript prints it); `None` without either.
    pub name: Option<Sym>,
    /// When it starts: the event's time, or `args.data.start` when the
    /// event has no `dur` and `start` and `end` are numbers.
    pub start: Micros,
    /// When it ends: the event's end, or `args.data.end` likewise; the
    /// start for an instant.
    pub end: Micros,
}

/// What the UserTimings handler found.
#[derive(Debug, Clone, Default)]
pub struct UserTimings {
    /// The `performance.measure`s (category `blink.user_timing`), sorted
    /// as DevTools sorts them.
    pub performance_measures: Vec<UserTiming>,
    /// The `console.time`s (category `blink.console`), sorted likewise.
    pub console_timings: Vec<UserTiming>,
    /// The `performance.mark`s, in input order.
    pub performance_marks: Vec<Mark>,
    /// The `console.timeStamp` events, sorted as DevTools sorts them.
    pub timestamp_events: Vec<TimeStamp>,
    /// The last `UserTiming::Measure` event of each `args.traceId`
    /// (interned as its raw JSON text; `None` when absent).
    pub measure_trace_by_trace_id: Map<Option<Sym>, EventIndex>,
}

/// The track a user timing is shown on, compared as JavaScript compares
/// the values (`===`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Track {
    /// No track.
    Undefined,
    /// A string, number, boolean or null, by its JSON text.
    Value(Sym),
    /// An object or array: equal to nothing else.
    Unique(EventIndex),
}

/// One event of a measure or console timing.
#[derive(Debug, Clone, Copy)]
struct AsyncRecord {
    index: EventIndex,
    ts: Micros,
    dur: Micros,
    ph: Phase,
    pid: Id,
    tid: Id,
    cat: Sym,
    name: Sym,
    /// `CATEGORY:ID:NAME`; `None` for a falsy id, which never pairs.
    id: Option<Sym>,
    track: Track,
}

/// A `console.timeStamp` event and its track.
#[derive(Debug, Clone, Copy)]
struct StampRecord {
    stamp: TimeStamp,
    track: Track,
}

/// The UserTimings handler (see the module documentation).
#[derive(Debug, Default)]
pub struct UserTimingsHandler {
    measures: Vec<AsyncRecord>,
    consoles: Vec<AsyncRecord>,
    stamps: Vec<StampRecord>,
    data: UserTimings,
}

fn is_async(ph: Phase) -> bool {
    matches!(ph.0, b'b' | b'e' | b'n' | b'S' | b'T' | b'F' | b'p')
}

impl Handler for UserTimingsHandler {
    type Deps<'d> = ();
    type Data = UserTimings;

    // Marks and measures are named by the page: their category says what
    // they are.
    const WANTS: Wants = Wants::Every;

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let user_timing = event.cat == names::CAT_BLINK_USER_TIMING;
        let console = event.cat == names::CAT_BLINK_CONSOLE;
        let stamp = event.ph == Phase::INSTANT && event.name == names::TIME_STAMP;
        let measure_trace = event.name == names::USER_TIMING_MEASURE;
        if !(user_timing || console || stamp || measure_trace)
            || IGNORED_NAMES.contains(&cx.interner.resolve(event.name))
        {
            return;
        }
        if measure_trace {
            let trace_id = event.args.and_then(|a| member(a, "traceId"));
            let key = trace_id.map(|raw| cx.interner.intern(raw));
            self.data.measure_trace_by_trace_id.insert(key, index);
        }
        if user_timing && is_async(event.ph) {
            let record = async_record(index, event, cx);
            self.measures.push(record);
            return;
        }
        if user_timing && (event.ph == Phase(b'R') || event.ph == Phase::INSTANT) {
            self.data.performance_marks.push(Mark {
                event: index,
                name: event.name,
                ts: event.ts,
            });
        }
        if console && is_async(event.ph) {
            let record = async_record(index, event, cx);
            self.consoles.push(record);
        }
        if stamp {
            self.stamps.push(stamp_record(index, event, cx));
        }
    }

    fn finalize(self, (): (), cx: &mut Context) -> UserTimings {
        let UserTimingsHandler {
            measures,
            consoles,
            mut stamps,
            mut data,
        } = self;
        let mut events: Vec<AsyncRecord> = measures.into_iter().chain(consoles).collect();
        events.sort_by(|a, b| time_order(a.ts, a.ts + a.dur, b.ts, b.ts + b.dur));
        let mut unpaired = Vec::new();
        let mut timings: Vec<(UserTiming, Track)> = pair(&events, &mut unpaired);
        unpaired.sort_unstable();
        for index in unpaired {
            cx.diagnostics.skip(Skip::UserTimingUnpaired, || {
                format!("event #{index}: an end without a begin before it, or a begin never ended")
            });
        }
        timings.sort_by(|a, b| time_order(a.0.ts, a.0.ts + a.0.dur, b.0.ts, b.0.ts + b.0.dur));
        let mut positioned: Vec<(usize, (UserTiming, Track))> = timings.into_iter().enumerate().collect();
        v8_sort_by(&mut positioned, |(ia, (a, ta)), (ib, (b, tb))| {
            user_timing_order((a.ts, a.ts + a.dur, *ta, *ia), (b.ts, b.ts + b.dur, *tb, *ib))
        });
        for (_, (timing, _)) in positioned {
            if timing.cat == names::CAT_BLINK_CONSOLE {
                data.console_timings.push(timing);
            } else if timing.cat == names::CAT_BLINK_USER_TIMING {
                data.performance_measures.push(timing);
            }
        }
        let mut positioned: Vec<(usize, StampRecord)> = stamps.drain(..).enumerate().collect();
        v8_sort_by(&mut positioned, |(ia, a), (ib, b)| {
            let (x, y) = (&a.stamp, &b.stamp);
            user_timing_order((x.start, x.end, a.track, *ia), (y.start, y.end, b.track, *ib))
        });
        data.timestamp_events = positioned.into_iter().map(|(_, s)| s.stamp).collect();
        data
    }
}

/// Earlier start first, then the longer (later end) first.
fn time_order(a_start: Micros, a_end: Micros, b_start: Micros, b_end: Micros) -> Ordering {
    if a_start < b_start {
        Ordering::Less
    } else if a_start > b_start {
        Ordering::Greater
    } else if a_end > b_end {
        Ordering::Less
    } else if a_end < b_end {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// DevTools' user timing order: by time; at the same times, on one track,
/// the later in the list first; on different tracks, equal.
fn user_timing_order(a: (Micros, Micros, Track, usize), b: (Micros, Micros, Track, usize)) -> Ordering {
    let by_time = time_order(a.0, a.1, b.0, b.1);
    if by_time != Ordering::Equal || a.2 != b.2 {
        return by_time;
    }
    b.3.cmp(&a.3)
}

/// An event of a measure or console timing, with its pair id and (for a
/// measure) its track.
fn async_record(index: EventIndex, event: &Event<'_>, cx: &mut Context) -> AsyncRecord {
    let id = pair_id(event, cx).map(|id| {
        let text = format!(
            "{}:{id}:{}",
            cx.interner.resolve(event.cat),
            cx.interner.resolve(event.name)
        );
        cx.interner.intern(&text)
    });
    let track = if event.cat == names::CAT_BLINK_USER_TIMING {
        measure_track(index, event.args, cx)
    } else {
        Track::Undefined
    };
    AsyncRecord {
        index,
        ts: event.ts,
        dur: event.dur.unwrap_or(Micros::ZERO),
        ph: event.ph,
        pid: event.pid,
        tid: event.tid,
        cat: event.cat,
        name: event.name,
        id,
        track,
    }
}

/// The event's id as JavaScript prints it (`id`, else `id2.global`, else
/// `id2.local`); `None` when it is missing or falsy (such events never
/// make a pair).
fn pair_id(event: &Event<'_>, cx: &Context) -> Option<String> {
    let raw = match event.id.filter(|id| !id.is_missing()) {
        Some(id) => {
            let falsy = id.as_f64().is_some_and(|x| x == 0.0 || x.is_nan())
                || id.as_sym().is_some_and(|s| cx.interner.resolve(s).is_empty());
            return (!falsy).then(|| id.to_js_string(&cx.interner));
        }
        None => {
            let id2 = member(event.text, "id2").filter(|v| *v != "null")?;
            member(id2, "global")
                .filter(|v| *v != "null")
                .or_else(|| member(id2, "local"))?
        }
    };
    if !js_truthy(raw) {
        return None;
    }
    if let Some(s) = as_str(raw) {
        return Some(s.into_owned());
    }
    if let Some(x) = as_f64(raw) {
        return Some(tracekit_events::jsnum::js_number_string(x));
    }
    match raw.as_bytes().first() {
        Some(b'{') => Some("[object Object]".to_owned()),
        _ => Some(raw.to_owned()),
    }
}

/// The track a measure's `args.detail` names (`{"devtools": {"track":
/// ...}}` with a valid extension payload).
fn measure_track(index: EventIndex, args: Option<&str>, cx: &mut Context) -> Track {
    let detail = args.and_then(|a| member(a, "detail")).filter(|d| js_truthy(d));
    let Some(text) = detail.and_then(as_str) else {
        return Track::Undefined;
    };
    let Ok(serde_json::Value::Object(detail)) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Track::Undefined;
    };
    let Some(serde_json::Value::Object(payload)) = detail.get("devtools") else {
        return Track::Undefined;
    };
    let data_type = payload.get("dataType");
    let marker = data_type.is_some_and(|t| t == "marker");
    let truthy_track = payload.get("track").is_some_and(crate::value::json_truthy);
    let entry = truthy_track && data_type.is_none_or(|t| t == "track-entry");
    let stamp = payload.contains_key("url") && payload.contains_key("description");
    if !(marker || entry || stamp) {
        return Track::Undefined;
    }
    match payload.get("track") {
        None => Track::Undefined,
        Some(serde_json::Value::Object(_) | serde_json::Value::Array(_)) => Track::Unique(index),
        Some(value) => Track::Value(cx.interner.intern(&value.to_string())),
    }
}

/// A `console.timeStamp` event: its times (`args.data.start` and `end`
/// when both are numbers) and track (`args.data.track`, a string).
fn stamp_record(index: EventIndex, event: &Event<'_>, cx: &mut Context) -> StampRecord {
    let data = event.args.and_then(|a| member(a, "data"));
    let number = |key: &str| data.and_then(|d| member(d, key)).and_then(as_f64);
    let (start, end) = match (event.dur, number("start"), number("end")) {
        (Some(dur), _, _) => (event.ts, event.ts + dur),
        (None, Some(start), Some(end)) => (Micros(start), Micros(end)),
        _ => (event.ts, event.ts),
    };
    let track = match data.and_then(|d| member_path(d, &["track"])).and_then(as_str) {
        Some(track) => {
            let mut text = String::new();
            tracekit_events::json::write_json_string(&mut text, &track);
            Track::Value(cx.interner.intern(&text))
        }
        None => Track::Undefined,
    };
    let mut label = |key: &str| {
        let value = data.and_then(|d| member(d, key))?;
        match as_str(value) {
            Some(text) => Some(cx.interner.intern(&text)),
            None => as_f64(value).map(|x| cx.interner.intern(&tracekit_events::jsnum::js_number_string(x))),
        }
    };
    let name = label("message").or_else(|| label("name"));
    StampRecord {
        stamp: TimeStamp {
            event: index,
            name,
            start,
            end,
        },
        track,
    }
}

/// Pairs the events (sorted by time) by id: each end with the last open
/// begin of its id and the instants since, then each id's last begin left
/// open with the instants left; each pair becomes one timing (with its
/// begin's track), unless it would end before it began.
/// `unpaired` gets the ends without a begin before them and the begins
/// never ended (what DevTools leaves out), by event index.
fn pair(events: &[AsyncRecord], unpaired: &mut Vec<EventIndex>) -> Vec<(UserTiming, Track)> {
    struct Group {
        begin: usize,
        end: Option<usize>,
        instants: Vec<usize>,
        id: Sym,
    }
    let mut begins: Map<Sym, Vec<usize>> = Map::default();
    let mut instants: Map<Sym, Vec<usize>> = Map::default();
    let mut groups = Vec::new();
    for (at, event) in events.iter().enumerate() {
        let Some(id) = event.id else { continue };
        match event.ph.0 {
            b'b' => begins.entry(id).or_default().push(at),
            b'n' => instants.entry(id).or_default().push(at),
            b'e' => {
                let Some(begin) = begins.get_mut(&id).and_then(Vec::pop) else {
                    unpaired.push(event.index);
                    continue;
                };
                let mut group = Vec::new();
                if let Some(waiting) = instants.get_mut(&id) {
                    // DevTools checks the first and takes the last.
                    while waiting
                        .first()
                        .is_some_and(|first| events[*first].ts >= events[begin].ts)
                    {
                        group.extend(waiting.pop());
                    }
                }
                groups.push(Group {
                    begin,
                    end: Some(at),
                    instants: group,
                    id,
                });
            }
            _ => {}
        }
    }
    for (id, open) in &mut begins {
        unpaired.extend(open.iter().map(|&at| events[at].index));
        let Some(begin) = open.pop() else { continue };
        if let Some(waiting) = instants.get(id).filter(|w| !w.is_empty()) {
            groups.push(Group {
                begin,
                end: None,
                instants: waiting.clone(),
                id: *id,
            });
        }
    }
    let mut timings = Vec::with_capacity(groups.len());
    for group in groups {
        if group.end.is_none() && group.instants.is_empty() {
            continue;
        }
        let begin = &events[group.begin];
        let target = &events[group.end.unwrap_or(group.begin)];
        let dur = target.ts - begin.ts;
        if dur.0 < 0.0 {
            continue;
        }
        let timing = UserTiming {
            name: begin.name,
            cat: target.cat,
            ph: target.ph,
            pid: target.pid,
            tid: target.tid,
            id: group.id,
            ts: begin.ts,
            dur,
            begin: begin.index,
            end: group.end.map(|e| events[e].index),
            instants: group.instants.iter().map(|i| events[*i].index).collect(),
        };
        timings.push((timing, begin.track));
    }
    timings
}

impl UserTiming {
    /// This timing in the data conformance dump: one synthetic event,
    /// shared by the handlers that refer to it.
    pub fn dump(&self, dump: &mut Dump<'_>) -> Value {
        let id = dump.shared("UserTiming", u64::from(self.begin), |dump| {
            let data = Object::new()
                .with("beginEvent", Value::Event(self.begin))
                .with("endEvent", Value::opt(self.end, Value::Event))
                .with("instantEvents", Value::events(self.instants.iter().copied()));
            let ph = char::from(self.ph.0).to_string();
            let fields = Object::new()
                .with("args", Object::new().with("data", data.into()).into())
                .with("cat", Value::Sym(self.cat))
                .with("dur", Value::Num(self.dur.0))
                .with("id", Value::Sym(self.id))
                .with("name", Value::Sym(self.name))
                .with("ph", Value::str(ph))
                .with("pid", Value::id(self.pid))
                .with("rawSourceEvent", Value::Event(self.begin))
                .with("tid", Value::id(self.tid))
                .with("ts", Value::Num(self.ts.0));
            Synthetic {
                name: dump.strings().resolve(self.name).to_owned().into(),
                pid: Value::id(self.pid),
                tid: Value::id(self.tid),
                ts: self.ts.0,
                raw: Some(self.begin),
                profile_call: None,
                fields: Some(fields.into()),
            }
        });
        Value::Synthetic(id)
    }
}

impl UserTimings {
    /// This data in the data conformance dump.
    pub fn dump(&self, dump: &mut Dump<'_>) -> Value {
        let timings =
            |list: &[UserTiming], dump: &mut Dump<'_>| Value::Array(list.iter().map(|t| t.dump(dump)).collect());
        let traces = self
            .measure_trace_by_trace_id
            .iter()
            .map(|(id, event)| {
                let key = id.map_or(Value::Null, |raw| Value::Json(dump.strings().resolve(raw).into()));
                (key, Value::Event(*event))
            })
            .collect();
        Object::new()
            .with("consoleTimings", timings(&self.console_timings, dump))
            .with("measureTraceByTraceId", Value::Map(traces))
            .with(
                "performanceMarks",
                Value::events(self.performance_marks.iter().map(|m| m.event)),
            )
            .with("performanceMeasures", timings(&self.performance_measures, dump))
            .with(
                "timestampEvents",
                Value::events(self.timestamp_events.iter().map(|t| t.event)),
            )
            .into()
    }
}

#[cfg(test)]
mod tests;
