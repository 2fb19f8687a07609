//! The main thread's activity as an agent is given it: for each insight
//! set (or for one window of the trace), the longest tasks, the busiest
//! activities inside each of them, the bottom-up summary and the 3rd
//! parties, in the sections DevTools' AI assistance writes (its longest
//! tasks, main-thread bottom-up and 3rd party facts) and, for the tasks'
//! own activities, in the same line format.

use std::collections::HashMap;

use tracekit_engine::handlers::meta::{Bounds, Navigation};
use tracekit_engine::support::jsnum::js_number_string;
use tracekit_engine::support::{js_call_id, names};
use tracekit_engine::{Analysis, Micros, NodeKind, Sym, TrackNode};
use tracekit_insights::InsightSets;

use crate::bounds::Window;
use crate::calltree::Thread;
use crate::keys::EventKey;
use crate::units::{bytes, millis};

/// Why there is no activity text: where DevTools' own code throws.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActivityError(pub String);

impl std::fmt::Display for ActivityError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no main thread activity: {}", self.0)
    }
}

impl std::error::Error for ActivityError {}

/// A window written `START,END`, in the trace's µs (as DevTools' texts
/// write times and bounds).
impl std::str::FromStr for Window {
    type Err = String;

    fn from_str(text: &str) -> Result<Window, String> {
        let (min, max) = text
            .split_once(',')
            .ok_or_else(|| format!("{text:?}: expected START,END (the trace's µs)"))?;
        let number = |x: &str| x.trim().parse::<f64>().map_err(|e| format!("{x:?}: {e}"));
        let (min, max) = (number(min)?, number(max)?);
        if !(min.is_finite() && max.is_finite() && min <= max) {
            return Err(format!("{text:?}: START and END must be numbers, START not after END"));
        }
        Ok(Window { min, max })
    }
}

/// How many longest tasks each set lists.
const TASKS: usize = 3;
/// How many activities each task lists.
const TASK_ACTIVITIES: usize = 3;
/// How many activities the bottom-up summary lists.
const BOTTOM_UP: usize = 10;

/// DevTools' description of the bottom-up lines, fixed text.
const BOTTOM_UP_FORMAT: &str = "This is the bottom-up summary for the entire trace. Only the top 10 activities (sorted by self time) are shown. An activity is all the aggregated time spent on the same type of work. For example, it can be all the time spent in a specific JavaScript function, or all the time spent in a specific browser rendering stage (like layout, v8 compile, parsing html). \"Self time\" represents the aggregated time spent directly in an activity, across all occurrences. \"Total time\" represents the aggregated time spent in an activity or any of its children.";

/// What the tasks' activities section says it lists.
const TASK_FORMAT: &str =
    "For each of the longest tasks, the top 3 activities of the bottom-up summary of its time (sorted by self time).";

/// The event types the bottom-up counts (DevTools' visible trace event
/// types, and its network requests).
const VISIBLE: &[&str] = &[
    "AbortPostTaskCallback",
    "Animation",
    "AsyncTask",
    "v8.deserializeOnBackground",
    "v8.produceModuleCache",
    "v8.produceCache",
    "CancelAnimationFrame",
    "CancelIdleCallback",
    "Commit",
    "V8.CompileCode",
    "V8.CompileModule",
    "v8.compile",
    "CompositeLayers",
    "ComputeIntersections",
    "ConsoleTime",
    "CppGC.IncrementalSweep",
    "DoDecryptReply",
    "DoDecrypt",
    "DoDigestReply",
    "DoDigest",
    "DoEncryptReply",
    "DoEncrypt",
    "DoSignReply",
    "DoSign",
    "DoVerifyReply",
    "DoVerify",
    "Decode Image",
    "EmbedderCallback",
    "v8.evaluateModule",
    "EvaluateScript",
    "EventDispatch",
    "EventTiming",
    "V8.FinalizeDeserialization",
    "FireAnimationFrame",
    "FireIdleCallback",
    "FunctionCall",
    "BlinkGC.AtomicPhase",
    "GCEvent",
    "GPUTask",
    "HandlePostMessage",
    "HitTest",
    "JSSample",
    "Layerize",
    "Layout",
    "MajorGC",
    "MinorGC",
    "V8.OptimizeCode",
    "PaintSetup",
    "Paint",
    "ParseAuthorStyleSheet",
    "ParseHTML",
    "PrePaint",
    "ProfileCall",
    "Program",
    "RasterTask",
    "RequestAnimationFrame",
    "RequestIdleCallback",
    "ResourceFinish",
    "ResourceReceivedData",
    "ResourceReceiveResponse",
    "ResourceSendRequest",
    "ResourceWillSendRequest",
    "RunMicrotasks",
    "RunPostTaskCallback",
    "RunTask",
    "SchedulePostMessage",
    "SchedulePostTaskCallback",
    "ScheduleStyleRecalculation",
    "ScrollLayer",
    "CpuProfiler::StartProfiling",
    "v8.parseOnBackgroundParsing",
    "v8.parseOnBackgroundWaiting",
    "v8.parseOnBackground",
    "SyntheticLayoutShiftCluster",
    "SyntheticLayoutShift",
    "TimeStamp",
    "TimerFire",
    "TimerInstall",
    "TimerRemove",
    "UpdateLayerTree",
    "UpdateLayoutTree",
    "UserTiming",
    "V8Console::runTask",
    "v8.wasm.cachedModule",
    "v8.wasm.compiledModule",
    "v8.wasm.moduleCacheHit",
    "v8.wasm.moduleCacheInvalid",
    "v8.wasm.streamFromResponseCallback",
    "WebSocketCreate",
    "WebSocketDestroy",
    "WebSocketReceiveHandshakeResponse",
    "WebSocketReceive",
    "WebSocketSendHandshakeRequest",
    "WebSocketSend",
    "XHRLoad",
    "XHRReadyStateChange",
    "SyntheticNetworkRequest",
];

/// A part of the trace the text speaks of: an insight set, or the window
/// asked for with the navigation of the set that holds it.
struct Scope<'a> {
    id: String,
    bounds: Window,
    navigation: Option<&'a Navigation>,
}

/// The main thread activity of a trace: for each of `sets` or, with a
/// `window` (µs), for that window alone, the longest tasks, the top
/// activities of each, the bottom-up summary and the 3rd parties; an
/// error where DevTools throws (a received-data event without data in the
/// window of the 3rd parties).
pub fn main_thread_activity(
    analysis: &Analysis,
    sets: &InsightSets,
    window: Option<Window>,
) -> Result<String, ActivityError> {
    let scopes: Vec<Scope<'_>> = match window {
        None => sets
            .sets
            .iter()
            .map(|s| Scope {
                id: s.id.to_string(),
                bounds: window_of(s.bounds),
                navigation: s.navigation.as_ref(),
            })
            .collect(),
        Some(w) => {
            // A window off the trace would answer "none" everywhere, as if
            // the main thread had been idle: say where the trace is.
            let bounds = analysis.bounds();
            if w.max < bounds.min.0 || w.min > bounds.max.0 {
                return Err(ActivityError(format!(
                    "the window {}..{} µs is outside the trace, whose bounds are {}..{} µs",
                    w.min, w.max, bounds.min.0, bounds.max.0
                )));
            }
            let home = sets
                .sets
                .iter()
                .find(|s| s.bounds.min.0 <= w.min && w.max <= s.bounds.max.0);
            vec![Scope {
                id: home.map_or("window".to_owned(), |s| s.id.to_string()),
                bounds: w,
                navigation: home.and_then(|s| s.navigation.as_ref()),
            }]
        }
    };
    let tasks = fact("Longest tasks", None, "none", &scopes, |s| {
        Ok(longest_tasks(analysis, s))
    })?;
    let activities = fact(
        "Top functions of the longest tasks",
        Some(TASK_FORMAT),
        "none",
        &scopes,
        |s| Ok(Some(task_activities(analysis, s))),
    )?;
    let bottom_up = fact(
        "Main thread bottom-up summary",
        Some(BOTTOM_UP_FORMAT),
        "no activity",
        &scopes,
        |s| Ok(main_thread(analysis, s.navigation).map(|t| bottom_up_text(&t, s.bounds, BOTTOM_UP))),
    )?;
    let third = fact("3rd party summary", None, "no 3rd parties", &scopes, |s| {
        third_parties(analysis, s.bounds)
    })?;
    Ok([tasks, activities, bottom_up, third].join("\n"))
}

fn window_of(bounds: Bounds) -> Window {
    Window {
        min: bounds.min.0,
        max: bounds.max.0,
    }
}

/// A section: its title, description, and each scope's text (or `empty`),
/// under the scope's id when there are several.
fn fact(
    title: &str,
    description: Option<&str>,
    empty: &str,
    scopes: &[Scope<'_>],
    mut text: impl FnMut(&Scope<'_>) -> Result<Option<String>, ActivityError>,
) -> Result<String, ActivityError> {
    let mut lines = vec![format!("# {title}\n")];
    if let Some(description) = description {
        lines.push(format!("{description}\n"));
    }
    if scopes.is_empty() {
        lines.push(format!("{empty}\n"));
    }
    for scope in scopes {
        if scopes.len() > 1 {
            lines.push(format!("## insight set id: {}\n", scope.id));
        }
        lines.push(format!("{}\n", text(scope)?.unwrap_or_else(|| empty.to_owned())));
    }
    Ok(lines.join("\n"))
}

/// The main thread of a set: its navigation's thread when the navigation
/// is of the outermost main frame, else the first `CrRendererMain` of a
/// process on the main frame.
fn main_thread<'a>(analysis: &'a Analysis, navigation: Option<&Navigation>) -> Option<Thread<'a>> {
    let by_navigation = navigation
        .filter(|n| n.navigation_id.is_some() && n.is_outermost_main_frame)
        .map(|n| (n.pid, n.tid));
    for process in analysis
        .processes()
        .filter(|p| p.kept_by_devtools() && p.is_on_main_frame())
    {
        for t in process.threads() {
            let found = match by_navigation {
                Some(ids) => (t.pid(), t.tid()) == ids,
                None => is_main_thread_name(&t),
            };
            if found {
                return Some(Thread::new(analysis, &t));
            }
        }
    }
    None
}

fn is_main_thread_name(t: &tracekit_engine::Thread<'_>) -> bool {
    t.track().name.as_deref() == Some("CrRendererMain")
}

/// A thread's entries in DevTools' order (its tree's nodes, and the
/// entries off the tree in their places), each with its place in the tree.
fn entries(thread: &Thread<'_>) -> Vec<(TrackNode, Option<usize>)> {
    let track = thread.track();
    let off_tree = track.entries_off_tree();
    let mut out = Vec::with_capacity(track.nodes.len() + off_tree.len());
    let mut off = off_tree.iter().peekable();
    for (at, node) in track.nodes.iter().enumerate() {
        while let Some((_, entry)) = off.next_if(|(before, _)| *before as usize <= at) {
            out.push((*entry, None));
        }
        out.push((*node, Some(at)));
    }
    out.extend(off.map(|(_, entry)| (*entry, None)));
    out
}

fn end_of(node: &TrackNode) -> f64 {
    node.ts().0 + node.dur().map_or(0.0, |d| d.0)
}

/// DevTools' `eventIsInBounds`: the entry overlaps the window.
fn overlaps(node: &TrackNode, w: Window) -> bool {
    node.ts().0 <= w.max && w.min < end_of(node)
}

/// The longest tasks of a scope's main thread, longest first, each with
/// its duration and key.
fn tasks<'a>(analysis: &'a Analysis, scope: &Scope<'_>) -> Option<(Thread<'a>, Vec<(TrackNode, usize)>)> {
    let thread = main_thread(analysis, scope.navigation)?;
    let mut tasks: Vec<(TrackNode, Option<usize>)> = entries(&thread)
        .into_iter()
        .filter(|(n, _)| matches!(n.kind(), NodeKind::Event { name, .. } if name == names::RUN_TASK))
        .filter(|(n, _)| n.dur().is_some() && overlaps(n, scope.bounds))
        .collect();
    tasks.sort_by(|a, b| {
        b.0.dur()
            .map_or(0.0, |d| d.0)
            .total_cmp(&a.0.dur().map_or(0.0, |d| d.0))
    });
    tasks.truncate(TASKS);
    // DevTools builds a call tree of each; only the entries of the tree of
    // a renderer's main thread have one.
    let main = thread.track().name.as_deref() == Some("CrRendererMain");
    let kept = tasks
        .into_iter()
        .filter_map(|(n, at)| Some((n, at.filter(|_| main)?)))
        .collect();
    Some((thread, kept))
}

/// DevTools' `(eventKey: KEY, ts: TS)` of a task: of the root of its call
/// tree, which is the first entry of the thread over the task's time (an
/// entry around the task, such as `ThreadController active`, when it has
/// one).
fn serialize_event(thread: &Thread<'_>, node: &TrackNode, at: usize) -> String {
    let own = Window {
        min: node.ts().0 / 1000.0 * 1000.0,
        max: end_of(node) / 1000.0 * 1000.0,
    };
    let first = entries(thread).into_iter().find(|(n, _)| overlaps(n, own));
    let (root, key) = match first {
        Some((n, Some(i))) => (n, thread.key(i)),
        Some((n, None)) => match n.kind() {
            NodeKind::Event { event, .. } => (n, Some(EventKey::Raw(event))),
            NodeKind::Call { .. } => (n, None),
        },
        None => (*node, thread.key(at)),
    };
    let key = key.map_or("null".to_owned(), |k| k.to_string());
    format!("(eventKey: {key}, ts: {})", js_number_string(root.ts().0))
}

fn longest_tasks(analysis: &Analysis, scope: &Scope<'_>) -> Option<String> {
    let (thread, tasks) = tasks(analysis, scope)?;
    if tasks.is_empty() {
        return None;
    }
    let lines: Vec<String> = tasks
        .iter()
        .map(|(node, at)| {
            let total = end_of(node) / 1000.0 - node.ts().0 / 1000.0;
            format!(
                "- total time: {}, event: {}",
                millis(total),
                serialize_event(&thread, node, *at)
            )
        })
        .collect();
    Some(lines.join("\n"))
}

fn task_activities(analysis: &Analysis, scope: &Scope<'_>) -> String {
    let Some((thread, tasks)) = tasks(analysis, scope).filter(|(_, t)| !t.is_empty()) else {
        return "none".to_owned();
    };
    let blocks: Vec<String> = tasks
        .iter()
        .map(|(node, at)| {
            let own = Window {
                min: node.ts().0,
                max: end_of(node),
            };
            let mut block = format!("- event: {}", serialize_event(&thread, node, *at));
            for line in bottom_up_lines(&thread, own, TASK_ACTIVITIES) {
                block.push_str("\n  ");
                block.push_str(&line);
            }
            block
        })
        .collect();
    blocks.join("\n")
}

fn bottom_up_text(thread: &Thread<'_>, w: Window, limit: usize) -> String {
    bottom_up_lines(thread, w, limit).join("\n")
}

/// What the bottom-up aggregates by: a JS function, or an event name.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Activity {
    Call(String),
    Name(Sym),
}

/// An aggregated activity: the entry that first ended in it, its times.
struct Row {
    first: TrackNode,
    self_ms: f64,
    total_ms: f64,
}

/// An entry started and not yet ended.
struct Open {
    node: TrackNode,
    activity: Activity,
    self_ms: f64,
    outermost: bool,
}

/// The top-level rows of the bottom-up of a window of a thread, in the
/// order DevTools makes them.
fn bottom_up_rows(thread: &Thread<'_>, w: Window) -> Vec<Row> {
    let strings = thread.analysis().strings();
    let events: Vec<TrackNode> = entries(thread)
        .into_iter()
        .map(|e| e.0)
        .filter(|n| overlaps(n, w))
        .collect();
    let (start_ms, end_ms) = (w.min / 1000.0, w.max / 1000.0);
    let (start_us, end_us) = (start_ms * 1000.0, end_ms * 1000.0);
    let end_us = if end_us == 0.0 || end_us.is_nan() {
        f64::INFINITY
    } else {
        end_us
    };
    let mut rows: indexmap::IndexMap<Activity, Row> = indexmap::IndexMap::new();
    let mut total_by: HashMap<Activity, f64> = HashMap::new();
    let mut stack: Vec<Open> = Vec::new();
    let end = |open: Open, rows: &mut indexmap::IndexMap<Activity, Row>, total_by: &mut HashMap<Activity, f64>| {
        let total = if open.outermost {
            total_by.remove(&open.activity)
        } else {
            None
        };
        let row = rows.entry(open.activity).or_insert(Row {
            first: open.node,
            self_ms: 0.0,
            total_ms: 0.0,
        });
        if !open.self_ms.is_nan() {
            row.self_ms += open.self_ms;
        }
        row.total_ms += total.filter(|t| !t.is_nan()).unwrap_or(0.0);
    };
    for node in events[start_index(&events, start_us, thread)..].iter().copied() {
        let (ts, node_end) = (node.ts().0, end_of(&node));
        if node_end < start_us {
            continue;
        }
        if ts > end_us {
            break;
        }
        while let Some(top) = stack.last() {
            let top_end = end_of(&top.node);
            if !(top_end != 0.0 && !top_end.is_nan() && top_end <= ts) {
                break;
            }
            let open = stack.pop().expect("non-empty");
            end(open, &mut rows, &mut total_by);
        }
        let dur = node.dur().map_or(0.0, |d| d.0);
        if !is_visible(thread, &node) || dur == 0.0 || dur.is_nan() {
            continue;
        }
        let clipped = (node_end / 1000.0).min(end_ms) - (ts / 1000.0).max(start_ms);
        if let Some(parent) = stack.last_mut() {
            parent.self_ms -= clipped;
        }
        let activity = match node.kind() {
            kind @ NodeKind::Call { .. } => match thread.track().js_frame(&kind) {
                Some(f) => Activity::Call(js_call_id(&f.call_frame, strings)),
                None => Activity::Call(String::new()),
            },
            NodeKind::Event { name, .. } => Activity::Name(name),
        };
        let outermost = !total_by.contains_key(&activity);
        if outermost {
            total_by.insert(activity.clone(), clipped);
        }
        stack.push(Open {
            node,
            activity,
            self_ms: clipped,
            outermost,
        });
    }
    while let Some(open) = stack.pop() {
        end(open, &mut rows, &mut total_by);
    }
    rows.into_values().filter(|r| r.self_ms > 0.0).collect()
}

/// Where DevTools' walk starts: the last entry starting by the window's
/// start, stepped back to a top-level task.
fn start_index(events: &[TrackNode], start_us: f64, thread: &Thread<'_>) -> usize {
    let strings = thread.analysis().strings();
    let top_level = |n: &TrackNode| match n.kind() {
        NodeKind::Event { name, cat, .. } => {
            name == names::RUN_TASK && strings.resolve(cat).contains("disabled-by-default-devtools.timeline")
        }
        NodeKind::Call { .. } => false,
    };
    let mut at = events.partition_point(|n| n.ts().0 <= start_us) as isize - 1;
    while at > 0 && !top_level(&events[at as usize]) {
        at -= 1;
    }
    at.max(0) as usize
}

/// DevTools' visible-events filter of the bottom-up.
fn is_visible(thread: &Thread<'_>, node: &TrackNode) -> bool {
    let NodeKind::Event { name, cat, .. } = node.kind() else {
        return true;
    };
    let strings = thread.analysis().strings();
    let cat = strings.resolve(cat);
    let kind = if cat.contains("blink.console") {
        "ConsoleTime"
    } else if cat.contains("blink.user_timing") {
        "UserTiming"
    } else {
        strings.resolve(name)
    };
    VISIBLE.contains(&kind)
}

/// The bottom-up's lines: the activities of at least 1 ms in all, by self
/// time, at most `limit`.
fn bottom_up_lines(thread: &Thread<'_>, w: Window, limit: usize) -> Vec<String> {
    let mut rows: Vec<Row> = bottom_up_rows(thread, w)
        .into_iter()
        .filter(|r| r.total_ms >= 1.0)
        .collect();
    rows.sort_by(|a, b| b.self_ms.total_cmp(&a.self_ms));
    rows.truncate(limit);
    rows.iter()
        .map(|r| {
            let mut source = thread.title_of(&r.first);
            if let Some((url, line, column)) = thread.top_frame(&r.first).filter(|f| !f.0.is_empty()) {
                let num = |x: Option<f64>| x.map_or("undefined".to_owned(), js_number_string);
                source.push_str(&format!(" (url: {url}"));
                if line != Some(-1.0) {
                    source.push_str(&format!(", line: {}", num(line)));
                }
                if column != Some(-1.0) {
                    source.push_str(&format!(", column: {}", num(column)));
                }
                source.push(')');
            }
            format!(
                "- self: {}, total: {}, source: {source}",
                millis(r.self_ms),
                millis(r.total_ms)
            )
        })
        .collect()
}

/// The 3rd parties of a window: the five with the most main thread time.
fn third_parties(analysis: &Analysis, w: Window) -> Result<Option<String>, ActivityError> {
    let bounds = Bounds {
        min: Micros(w.min),
        max: Micros(w.max),
    };
    let found = tracekit_insights::third_parties_in(analysis, bounds).map_err(ActivityError)?;
    if found.summaries.is_empty() {
        return Ok(None);
    }
    let mut top: Vec<_> = found.summaries.iter().collect();
    top.sort_by(|a, b| b.main_thread_time.total_cmp(&a.main_thread_time));
    top.truncate(5);
    let strings = analysis.strings();
    let lines: Vec<String> = top
        .iter()
        .map(|s| {
            format!(
                "- name: {}, main thread time: {}, network transfer size: {}",
                s.entity.name(strings),
                millis(s.main_thread_time),
                bytes(s.transfer_size)
            )
        })
        .collect();
    Ok(Some(lines.join("\n")))
}

#[cfg(test)]
#[path = "activity_tests.rs"]
mod tests;
