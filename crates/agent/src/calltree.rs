//! The AI call tree of one event, as DevTools' assistant formats it for a
//! model: the event's thread over the event's own time, the entries that
//! last at least 0.5% of it (compiling aside), merged by function or name
//! among siblings, numbered breadth first, one line each
//! (`id;eventKey;name;duration;selfTime;urlIndex;childRange;line;column;S`),
//! with the URLs they point at listed first.

use std::collections::HashMap;

use tracekit_engine::support::jsnum::js_number_string;
use tracekit_engine::support::json::{as_str, member};
use tracekit_engine::support::{event_details, event_group_args};
use tracekit_engine::{styles, Analysis, NodeKind, ThreadTrack, TrackNode};

use crate::keys::EventKey;

/// Why an event key has no call tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallTreeError {
    /// No event of a thread's track has this key.
    NoEvent(String),
}

impl std::fmt::Display for CallTreeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallTreeError::NoEvent(key) => {
                write!(f, "no call tree for {key}: no entry of a thread's track has this key")
            }
        }
    }
}

impl std::error::Error for CallTreeError {}

/// A frame of an event's `args.data.stackTrace`.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct StackFrame {
    url: Option<String>,
    line_number: Option<f64>,
    column_number: Option<f64>,
}

/// A function call's `args.data`.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct CallData {
    url: Option<String>,
    line_number: Option<f64>,
    column_number: Option<f64>,
    function_name: Option<serde::de::IgnoredAny>,
    script_id: Option<serde::de::IgnoredAny>,
}

/// A node of the merged tree.
struct Merged {
    /// The track position of its first entry.
    first: usize,
    total: f64,
    this_self: f64,
    children: Vec<usize>,
    by_id: HashMap<String, usize>,
}

/// What a thread's call tree is drawn from.
pub(crate) struct Thread<'a> {
    analysis: &'a Analysis,
    track: &'a ThreadTrack,
    pid: tracekit_engine::Id,
    tid: tracekit_engine::Id,
    /// The JS call index of each call node (for its sample index).
    call_index: Vec<usize>,
}

/// The call tree text of the event `key` (what `formatCallTree` writes),
/// or why it has none.
pub fn call_tree(analysis: &Analysis, key: EventKey) -> Result<String, CallTreeError> {
    let missing = || CallTreeError::NoEvent(key.to_string());
    let (thread, selected) = find(analysis, key).ok_or_else(missing)?;
    let merged = merge(&thread, selected);
    Ok(format!(
        "{}\n\nIMPORTANT: Never show eventKey to the user.\n",
        serialize(&thread, &merged, selected)
    ))
}

/// The thread and track position of the entry with this key.
fn find(analysis: &Analysis, key: EventKey) -> Option<(Thread<'_>, usize)> {
    for process in analysis.processes() {
        for t in process.threads() {
            let thread = Thread::new(analysis, &t);
            let found = (0..thread.track.nodes.len()).find(|&i| thread.key(i) == Some(key));
            if let Some(i) = found {
                return Some((thread, i));
            }
        }
    }
    None
}

impl<'a> Thread<'a> {
    /// A thread's entries, with the index of each JS call.
    pub(crate) fn new(analysis: &'a Analysis, t: &tracekit_engine::Thread<'a>) -> Thread<'a> {
        let track = t.track();
        let mut call_index = vec![usize::MAX; track.nodes.len()];
        let mut calls = 0;
        for (i, n) in track.nodes.iter().enumerate() {
            if matches!(n.kind(), NodeKind::Call { .. }) {
                call_index[i] = calls;
                calls += 1;
            }
        }
        Thread {
            analysis,
            track,
            pid: t.pid(),
            tid: t.tid(),
            call_index,
        }
    }

    /// Its track.
    pub(crate) fn track(&self) -> &'a ThreadTrack {
        self.track
    }

    /// The analysis it is of.
    pub(crate) fn analysis(&self) -> &'a Analysis {
        self.analysis
    }
}

impl Thread<'_> {
    pub(crate) fn key(&self, at: usize) -> Option<EventKey> {
        let node = &self.track.nodes[at];
        match node.kind() {
            NodeKind::Event { event, .. } => Some(EventKey::Raw(event)),
            kind @ NodeKind::Call { .. } => {
                let frame = self.track.js_frame(&kind)?;
                let sample = self.track.call_sample(self.call_index[at]).map_or(-1, i64::from);
                let id = |id: tracekit_engine::Id| id.as_u64().and_then(|x| i64::try_from(x).ok());
                Some(EventKey::ProfileCall {
                    pid: id(self.pid)?,
                    tid: id(self.tid)?,
                    sample,
                    node: frame.node_id,
                })
            }
        }
    }

    fn name_of(&self, at: usize) -> &str {
        let strings = self.analysis.strings();
        match self.track.nodes[at].kind() {
            NodeKind::Event { name, .. } => strings.resolve(name),
            NodeKind::Call { .. } => "ProfileCall",
        }
    }

    /// DevTools' id of an entry among its siblings: its function and
    /// place for a JS call, its name otherwise.
    fn merge_id(&self, at: usize) -> String {
        let kind = self.track.nodes[at].kind();
        match (kind, self.track.js_frame(&kind)) {
            (NodeKind::Call { .. }, Some(f)) => {
                let s = self.analysis.strings();
                let cf = &f.call_frame;
                let place = if s.resolve(cf.script_id).is_empty() {
                    s.resolve(cf.url)
                } else {
                    s.resolve(cf.script_id)
                };
                let num = |x: Option<f64>| x.map_or("undefined".to_owned(), js_number_string);
                format!(
                    "f:{}@{place}:{}:{}",
                    s.resolve(cf.function_name),
                    num(cf.line_number),
                    num(cf.column_number)
                )
            }
            _ => self.name_of(at).to_owned(),
        }
    }

    /// What DevTools' visible-events filter lets through.
    fn visible(&self, at: usize) -> bool {
        match self.track.nodes[at].kind() {
            NodeKind::Call { .. } => styles::is_visible_type("ProfileCall"),
            NodeKind::Event { name, cat, .. } => {
                let cat = self.analysis.strings().resolve(cat);
                let name = self.analysis.strings().resolve(name);
                let kind = if cat.contains("blink.console") {
                    "ConsoleTime"
                } else if cat.contains("blink.user_timing") {
                    "UserTiming"
                } else {
                    name
                };
                styles::is_visible_type(kind)
            }
        }
    }

    /// The name DevTools writes for an entry.
    fn title(&self, at: usize) -> String {
        self.title_of(&self.track.nodes[at])
    }

    /// The name DevTools writes for an entry (`Name.forEntry`).
    pub(crate) fn title_of(&self, node: &TrackNode) -> String {
        let s = self.analysis.strings();
        let kind = node.kind();
        if let (NodeKind::Call { .. }, Some(f)) = (kind, self.track.js_frame(&kind)) {
            let name = s.resolve(f.call_frame.function_name);
            return if name.is_empty() {
                "(anonymous)".to_owned()
            } else {
                name.to_owned()
            };
        }
        let NodeKind::Event { name, event, .. } = kind else {
            return String::new();
        };
        let name = s.resolve(name);
        if name == "EventDispatch" {
            let kind = event_details(self.track, event)
                .and_then(|d| member(d, "type"))
                .and_then(as_str)
                .map_or("undefined".to_owned(), |t| t.into_owned());
            return format!("Event: {kind}");
        }
        crate::titles::title(name).unwrap_or(name).to_owned()
    }

    /// The URL, line and column an entry points at.
    fn location(&self, at: usize) -> Option<(String, Option<f64>, Option<f64>)> {
        let node = &self.track.nodes[at];
        let non_negative = |x: Option<f64>| x.filter(|&v| v >= 0.0);
        if let Some((url, line, column)) = self.top_frame(node) {
            return Some((url, non_negative(line), non_negative(column)));
        }
        let NodeKind::Event { event, .. } = node.kind() else {
            return None;
        };
        let url = event_group_args(self.track, event).and_then(|g| g.url)?;
        let url = self.analysis.strings().resolve(url);
        (!url.is_empty()).then(|| (url.to_owned(), None, None))
    }

    /// The top frame of an entry's payload (a JS call's own frame): its
    /// URL, line and column (`None`: undefined), zero-based where DevTools
    /// makes them so.
    pub(crate) fn top_frame(&self, node: &TrackNode) -> Option<(String, Option<f64>, Option<f64>)> {
        let s = self.analysis.strings();
        let kind = node.kind();
        if let (NodeKind::Call { .. }, Some(f)) = (kind, self.track.js_frame(&kind)) {
            let cf = &f.call_frame;
            return Some((s.resolve(cf.url).to_owned(), cf.line_number, cf.column_number));
        }
        let NodeKind::Event { event, name, .. } = kind else {
            return None;
        };
        let one_based = matches!(
            s.resolve(name),
            "FunctionCall" | "ScheduleStyleRecalculation" | "InvalidateLayout" | "Layout" | "UpdateLayoutTree"
        );
        // ParseHTML's details are its `beginData`, where DevTools does not
        // look for a stack trace.
        let details = event_details(self.track, event).filter(|_| s.resolve(name) != "ParseHTML");
        let mut top = details
            .and_then(|d| member(d, "stackTrace"))
            .and_then(|st| serde_json::from_str::<Vec<StackFrame>>(st).ok())
            .and_then(|frames| frames.into_iter().next());
        if top.is_none() && s.resolve(name) == "FunctionCall" {
            // A function call's own data is its frame, when it has every member.
            top = details
                .and_then(|d| serde_json::from_str::<CallData>(d).ok())
                .filter(|c| c.function_name.is_some() && c.script_id.is_some() && c.url.is_some())
                .and_then(|c| {
                    Some(StackFrame {
                        url: c.url,
                        line_number: Some(c.line_number?),
                        column_number: Some(c.column_number?),
                    })
                });
        }
        let frame = top?;
        // DevTools' `n && n - 1` for the events that count from 1.
        let number = |x: Option<f64>| {
            if one_based {
                x.map(|v| if v == 0.0 { v } else { v - 1.0 })
            } else {
                x
            }
        };
        Some((
            frame.url.unwrap_or_default(),
            number(frame.line_number),
            number(frame.column_number),
        ))
    }
}

/// The merged tree of the entries over the selected one's time: index 0
/// is the root.
fn merge(thread: &Thread<'_>, selected: usize) -> Vec<Merged> {
    let nodes = &thread.track.nodes;
    let sel = &nodes[selected];
    // DevTools' window is the event's in milliseconds, back in µs.
    let start_ms = sel.ts().0 / 1000.0;
    let end_ms = (sel.ts().0 + sel.dur().map_or(0.0, |d| d.0)) / 1000.0;
    let (min, max) = (start_ms * 1000.0, end_ms * 1000.0);
    let min_dur = sel.dur().map_or(1.0, |d| d.0) * 0.005;
    let mut merged = vec![Merged {
        first: selected,
        total: 0.0,
        this_self: 0.0,
        children: Vec::new(),
        by_id: HashMap::new(),
    }];
    // The accepted ancestors: (track depth, merged node).
    let mut stack: Vec<(u32, usize)> = Vec::new();
    for (at, node) in nodes.iter().enumerate() {
        // Every node closes the accepted ones it is not inside, kept or not.
        while stack.last().is_some_and(|&(d, _)| d >= node.depth()) {
            stack.pop();
        }
        let ts = node.ts().0;
        let dur = node.dur().map_or(0.0, |d| d.0);
        if !(ts <= max && min < ts + dur) {
            continue;
        }
        let accepted = at == selected
            || (dur > 0.0 && dur >= min_dur && thread.name_of(at) != "V8.CompileCode" && thread.visible(at));
        if !accepted || dur == 0.0 {
            continue;
        }
        let parent = stack.last().map_or(0, |&(_, m)| m);
        let end = ((ts + dur) / 1000.0).min(end_ms);
        let duration = end - start_ms.max(ts / 1000.0);
        let id = thread.merge_id(at);
        let child = match merged[parent].by_id.get(&id) {
            Some(&c) => c,
            None => {
                let c = merged.len();
                merged.push(Merged {
                    first: at,
                    total: 0.0,
                    this_self: 0.0,
                    children: Vec::new(),
                    by_id: HashMap::new(),
                });
                merged[parent].by_id.insert(id, c);
                merged[parent].children.push(c);
                c
            }
        };
        merged[child].total += duration;
        merged[child].this_self += duration;
        if parent != 0 {
            merged[parent].this_self -= duration;
        }
        stack.push((node.depth(), child));
    }
    merged
}

/// `Math.round(x * 10) / 10` as text, empty for 0.
fn tenths(x: f64) -> String {
    if x == 0.0 || x.is_nan() {
        return String::new();
    }
    js_number_string(crate::units::js_round(x * 10.0) / 10.0)
}

fn serialize(thread: &Thread<'_>, merged: &[Merged], selected: usize) -> String {
    let mut urls: Vec<String> = Vec::new();
    let mut lines = String::new();
    let mut queue: std::collections::VecDeque<usize> = merged[0].children.iter().copied().collect();
    let mut added = queue.len();
    let mut id = 1;
    while let Some(m) = queue.pop_front() {
        let node = &merged[m];
        let range = match node.children.len() {
            0 => String::new(),
            1 => (added + 1).to_string(),
            // DevTools writes one past the last child.
            n => format!("{}-{}", added + 1, added + 1 + n),
        };
        let location = thread.location(node.first);
        let url_index = match location.as_ref().map(|l| l.0.as_str()).filter(|u| !u.is_empty()) {
            None => String::new(),
            Some(url) => match urls.iter().position(|u| u == url) {
                Some(i) => i.to_string(),
                None => {
                    urls.push(url.to_owned());
                    (urls.len() - 1).to_string()
                }
            },
        };
        let num = |x: Option<f64>| x.map_or(String::new(), js_number_string);
        let key = thread.key(node.first).map_or("null".to_owned(), |k| k.to_string());
        lines.push_str(&format!(
            "\n{id};{key};{};{};{};{url_index};{range};{};{}{}",
            thread.title(node.first),
            tenths(node.total),
            tenths(node.this_self),
            num(location.as_ref().and_then(|l| l.1)),
            num(location.as_ref().and_then(|l| l.2)),
            if node.first == selected { ";S" } else { "" }
        ));
        queue.extend(node.children.iter().copied());
        added += node.children.len();
        id += 1;
    }
    let mut out = String::new();
    if !urls.is_empty() {
        let list: Vec<String> = urls.iter().enumerate().map(|(i, u)| format!("  * {i}: {u}")).collect();
        out.push_str(&format!("\n# All URLs:\n\n{}", list.join("\n")));
    }
    out.push_str(&format!("\n\n# Call tree:\n{lines}"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACE: &str = r#"[
{"name":"thread_name","ph":"M","pid":1,"tid":1,"ts":0,"cat":"__metadata","args":{"name":"CrRendererMain"}},
{"name":"RunTask","cat":"disabled-by-default-devtools.timeline","ph":"X","pid":1,"tid":1,"ts":1000,"dur":10000,"args":{}},
{"name":"EventDispatch","cat":"devtools.timeline","ph":"X","pid":1,"tid":1,"ts":1100,"dur":4000,"args":{"data":{"type":"click"}}},
{"name":"Layout","cat":"devtools.timeline","ph":"X","pid":1,"tid":1,"ts":5200,"dur":2000,"args":{"beginData":{"stackTrace":[{"url":"https://a.test/a.js","lineNumber":3,"columnNumber":0}]}}},
{"name":"Layout","cat":"devtools.timeline","ph":"X","pid":1,"tid":1,"ts":7300,"dur":1000,"args":{"beginData":{}}},
{"name":"V8.CompileCode","cat":"v8","ph":"X","pid":1,"tid":1,"ts":9000,"dur":1000,"args":{}},
{"name":"Tiny","cat":"devtools.timeline","ph":"X","pid":1,"tid":1,"ts":10500,"dur":10,"args":{}}
]"#;

    fn analysis() -> Analysis {
        let options = tracekit::AnalyzeOptions::default()
            .with_all_handlers(true)
            .with_details(true)
            .with_group_args(true);
        tracekit::analyze_bytes(TRACE.as_bytes(), &options).unwrap()
    }

    #[test]
    fn siblings_merge_short_and_compiling_entries_are_left_out() {
        let text = call_tree(&analysis(), EventKey::Raw(1)).unwrap();
        let lines: Vec<&str> = text.lines().filter(|l| l.contains(";r-")).collect();
        // The two layouts are one node (3 ms); the 10 µs entry is under
        // 0.5% of the task, compiling is left out (its time the task's
        // own); the range of two
        // children is written one past its end, as DevTools does.
        assert_eq!(
            lines,
            [
                "1;r-1;Task;10;3;;2-4;;;S",
                "2;r-2;Event: click;4;4;;;;",
                "3;r-3;Layout;3;3;0;;2;0",
            ],
            "{text}"
        );
        assert!(text.contains("\n# All URLs:\n\n  * 0: https://a.test/a.js\n"), "{text}");
    }

    #[test]
    fn a_key_of_no_entry_has_no_tree() {
        assert!(call_tree(&analysis(), EventKey::Raw(99)).is_err());
        assert!(call_tree(&analysis(), EventKey::Synthetic(1)).is_err());
    }
}
