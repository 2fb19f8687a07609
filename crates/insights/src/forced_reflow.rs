//! Forced reflow: the style recalculations and layouts JavaScript forced
//! in the set's frame (the Warnings handler's `FORCED_REFLOW` events),
//! added up by the JS call frame that asked for them (the bottom of their
//! stack: the stack their args carry, else the nearest JS call above them
//! in the thread's tree), and the outermost JS call above them that forced
//! the most.

use ahash::{AHashMap, AHashSet};
use tracekit_engine::handlers::page::entities::{CallSample, EntityEvent, ThreadNumber};
use tracekit_engine::handlers::timeline::warnings::{ForcedReflow as Reflow, FunctionCallFrame, PayloadFrame};
use tracekit_engine::support::dump::{Object, Value};
use tracekit_engine::support::jsnum::js_number_string;
use tracekit_engine::support::json::object_members;
use tracekit_engine::support::{names, EventIndex};
use tracekit_engine::{CallFrame, Id, NodeKind, Phase, Strings, ThreadTrack, Warning};

use crate::model::{Category, EventRef, Finding, Insight, RelatedEvents, State, Ui};
use crate::sets::Context;

/// DevTools' words for the insight.
pub static UI: Ui = Ui {
    key: "ForcedReflow",
    title: "Forced reflow",
    description: "A forced reflow occurs when JavaScript queries geometric properties (such as `offsetWidth`) after styles have been invalidated by a change to the DOM state. This can result in poor performance. Learn more about [forced reflows](https://developer.chrome.com/docs/performance/insights/forced-reflow) and possible mitigations.",
    docs: "https://developer.chrome.com/docs/performance/insights/forced-reflow",
    category: Category::All,
    strings: &[
        ("title", "Forced reflow"),
        ("description", "A forced reflow occurs when JavaScript queries geometric properties (such as `offsetWidth`) after styles have been invalidated by a change to the DOM state. This can result in poor performance. Learn more about [forced reflows](https://developer.chrome.com/docs/performance/insights/forced-reflow) and possible mitigations."),
        ("reflowCallFrames", "Call frames that trigger reflow"),
        ("topTimeConsumingFunctionCall", "Top function call"),
        ("totalReflowTime", "Total reflow time"),
        ("unattributed", "[unattributed]"),
        ("anonymous", "(anonymous)"),
    ],
};

/// A JS call frame, wherever it was read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CallFrameAt {
    /// The first frame of the stack an event's args carry.
    Payload(PayloadFrame),
    /// A `FunctionCall`'s `args.data`.
    FunctionCall(FunctionCallFrame),
    /// The function of a JS call of a thread's track.
    Profile {
        /// The call's function.
        call_frame: CallFrame,
    },
}

/// The forced reflows of one JS call frame (DevTools' `BottomUpCallStack`).
#[derive(Debug, Clone, PartialEq)]
pub struct BottomUpCallStack {
    /// The frame that asked for them; `None`: no frame is known.
    pub frame: Option<CallFrameAt>,
    /// Their time, µs.
    pub total_time: f64,
    /// The reflows.
    pub related_events: Vec<EventIndex>,
}

/// The outermost JS call above forced reflows that forced the most.
#[derive(Debug, Clone, PartialEq)]
pub struct TopLevelCall {
    /// Its frame.
    pub frame: CallFrameAt,
    /// The time of the reflows below it, µs.
    pub total_reflow_time: f64,
    /// The call's event for each of those reflows.
    pub events: Vec<EventRef>,
}

/// What the insight found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ForcedReflow {
    /// The outermost JS call that forced the most, when a reflow was below
    /// one.
    pub top_level_function_call: Option<TopLevelCall>,
    /// The reflows by the frame that asked for them, in the order first
    /// met.
    pub aggregated_bottom_up: Vec<BottomUpCallStack>,
}

/// Computes the insight.
pub fn generate(cx: &Context<'_>) -> Result<Insight, String> {
    let warnings = cx.data.warnings();
    let flagged = warnings.per_warning.get(&Warning::ForcedReflow).map_or(0, Vec::len);
    if flagged != warnings.forced_reflows.len() {
        return Err("the forced reflows were not gathered".to_owned());
    }
    let reflows: Vec<&Reflow> = warnings
        .forced_reflows
        .iter()
        .filter(|r| r.frame.is_some() && r.frame == cx.frame_id && cx.overlaps(r.ts, r.dur))
        .collect();
    let strings = cx.analysis.strings();
    let in_trees = find_in_trees(cx, &reflows);
    let mut bottom_up: Vec<BottomUpCallStack> = Vec::new();
    let mut slot_of: AHashMap<String, usize> = AHashMap::new();
    for reflow in &reflows {
        let found = in_trees.get(&reflow.event);
        // The stack in the args wins over the one the tree gives.
        let frame = reflow
            .stack_top
            .map(CallFrameAt::Payload)
            .or_else(|| found.and_then(|f| f.bottom));
        let id = frame.map_or_else(|| "UNATTRIBUTED".to_owned(), |f| frame_id(&f, strings));
        let slot = *slot_of.entry(id).or_insert_with(|| {
            bottom_up.push(BottomUpCallStack {
                frame,
                total_time: 0.0,
                related_events: Vec::new(),
            });
            bottom_up.len() - 1
        });
        bottom_up[slot].total_time += reflow.dur.0;
        bottom_up[slot].related_events.push(reflow.event);
    }
    let top_level_function_call = top_level_call(&reflows, &in_trees, strings);
    let state = if bottom_up.is_empty() { State::Pass } else { State::Fail };
    let related = reflows.iter().map(|r| EventRef::Input(r.event)).collect();
    let mut insight = Insight::new(
        state,
        Finding::ForcedReflow(ForcedReflow {
            top_level_function_call,
            aggregated_bottom_up: bottom_up,
        }),
    );
    insight.related_events = Some(RelatedEvents::List(related));
    Ok(insight)
}

/// The outermost JS calls above the reflows, added up by frame: the one
/// that forced the most (the first of those as long).
fn top_level_call(
    reflows: &[&Reflow],
    in_trees: &AHashMap<EventIndex, InTree>,
    strings: &Strings,
) -> Option<TopLevelCall> {
    let mut calls: Vec<TopLevelCall> = Vec::new();
    let mut slot_of: AHashMap<String, usize> = AHashMap::new();
    for reflow in reflows {
        let Some((frame, event)) = in_trees.get(&reflow.event).and_then(|f| f.top_level) else {
            continue;
        };
        let slot = *slot_of.entry(frame_id(&frame, strings)).or_insert_with(|| {
            calls.push(TopLevelCall {
                frame,
                total_reflow_time: 0.0,
                events: Vec::new(),
            });
            calls.len() - 1
        });
        calls[slot].total_reflow_time += reflow.dur.0;
        calls[slot].events.push(event);
    }
    let mut top: Option<TopLevelCall> = None;
    for call in calls {
        if top
            .as_ref()
            .is_none_or(|t| call.total_reflow_time > t.total_reflow_time)
        {
            top = Some(call);
        }
    }
    top
}

/// What the thread's tree tells of a reflow.
#[derive(Debug, Clone, Copy, Default)]
struct InTree {
    /// The nearest JS call above it (not a native one) before an async
    /// task's start.
    bottom: Option<CallFrameAt>,
    /// The outermost JS call of the calls right above it, or the
    /// `FunctionCall` right above those, with its event.
    top_level: Option<(CallFrameAt, EventRef)>,
}

/// Where the tracks start async tasks: the runs' JS entry points (by
/// event), and the JS calls first below a run (by thread and position).
struct AsyncStarts {
    entry_points: AHashSet<EventIndex>,
    calls: AHashSet<(ThreadNumber, u32)>,
}

/// Finds each reflow in its thread's tree (one walk per thread).
fn find_in_trees(cx: &Context<'_>, reflows: &[&Reflow]) -> AHashMap<EventIndex, InTree> {
    let mut by_thread: AHashMap<(Id, Id), AHashMap<EventIndex, &Reflow>> = AHashMap::new();
    for r in reflows {
        by_thread.entry((r.pid, r.tid)).or_default().insert(r.event, r);
    }
    // At its size from the start: a big trace has tens of thousands of
    // reflows, and a map grown step by step leaves its old tables behind.
    let mut found = AHashMap::with_capacity(reflows.len());
    if by_thread.is_empty() {
        return found;
    }
    let async_calls = cx.data.async_js_calls();
    let starts = AsyncStarts {
        entry_points: async_calls
            .run_entry_point_to_scheduler
            .keys()
            .filter_map(|e| match *e {
                EntityEvent::Event(i) | EntityEvent::BeginEnd { begin: i, .. } => Some(i),
                _ => None,
            })
            .collect(),
        calls: async_calls
            .async_call_to_scheduler
            .keys()
            .filter_map(|e| match *e {
                EntityEvent::ProfileCall { thread, position, .. } => Some((thread, position)),
                _ => None,
            })
            .collect(),
    };
    let threads = cx.analysis.numbered_threads();
    for ((pid, tid), wanted) in &by_thread {
        let Some(process) = cx.analysis.process_tracks().get(pid).filter(|p| p.kept_by_devtools) else {
            continue;
        };
        let (Some(track), Some(number)) = (process.threads.get(tid), threads.number(*pid, *tid)) else {
            continue;
        };
        walk(track, number, wanted, &starts, &mut found);
    }
    found
}

/// Walks a thread's tree, keeping the path to each node (positions, and
/// the JS calls before each), and reads the path above each reflow.
fn walk(
    track: &ThreadTrack,
    thread: ThreadNumber,
    wanted: &AHashMap<EventIndex, &Reflow>,
    starts: &AsyncStarts,
    found: &mut AHashMap<EventIndex, InTree>,
) {
    let mut path: Vec<(usize, usize)> = Vec::new();
    let mut calls = 0;
    for (position, node) in track.nodes.iter().enumerate() {
        path.truncate(node.depth() as usize);
        match node.kind() {
            NodeKind::Event { event, .. } => {
                if let Some(reflow) = wanted.get(&event) {
                    let above = Above {
                        track,
                        thread,
                        path: &path,
                    };
                    let in_tree = InTree {
                        bottom: above.bottom_frame(starts),
                        top_level: above.top_level(reflow),
                    };
                    found.insert(event, in_tree);
                }
            }
            NodeKind::Call { .. } => {}
        }
        path.push((position, calls));
        if matches!(node.kind(), NodeKind::Call { .. }) {
            calls += 1;
        }
    }
}

/// The nodes above one, innermost last.
struct Above<'a> {
    track: &'a ThreadTrack,
    thread: ThreadNumber,
    path: &'a [(usize, usize)],
}

impl Above<'_> {
    /// The nearest JS call above that is not native, unless an async
    /// task starts before it.
    fn bottom_frame(&self, starts: &AsyncStarts) -> Option<CallFrameAt> {
        for &(position, _) in self.path.iter().rev() {
            match self.track.nodes[position].kind() {
                NodeKind::Call { frame } => {
                    let call_frame = self.track.js_frames.get(frame as usize)?.call_frame;
                    if !call_frame.is_v8_native() {
                        return Some(CallFrameAt::Profile { call_frame });
                    }
                    let at = u32::try_from(position).unwrap_or(u32::MAX);
                    if starts.calls.contains(&(self.thread, at)) {
                        return None;
                    }
                }
                NodeKind::Event { event, .. } => {
                    if starts.entry_points.contains(&event) {
                        return None;
                    }
                }
            }
        }
        None
    }

    /// The outermost of the JS calls right above, or the `FunctionCall`
    /// right above those when its args name a call frame.
    fn top_level(&self, reflow: &Reflow) -> Option<(CallFrameAt, EventRef)> {
        let mut top = None;
        for &(position, calls_before) in self.path.iter().rev() {
            let node = &self.track.nodes[position];
            match node.kind() {
                NodeKind::Call { frame } => {
                    let Some(js) = self.track.js_frames.get(frame as usize) else {
                        break;
                    };
                    let call = EntityEvent::ProfileCall {
                        thread: self.thread,
                        position: u32::try_from(position).unwrap_or(u32::MAX),
                        sample: CallSample::new(self.track.call_sample(calls_before)),
                    };
                    let frame = CallFrameAt::Profile {
                        call_frame: js.call_frame,
                    };
                    top = Some((frame, EventRef::Entity(call)));
                }
                NodeKind::Event { name, ph, event, .. } => {
                    let function_call = reflow
                        .function_call
                        .filter(|f| name == names::FUNCTION_CALL && ph == Phase::COMPLETE && f.event == event);
                    if let Some(f) = function_call {
                        top = Some((CallFrameAt::FunctionCall(f), EventRef::Input(event)));
                    }
                    break;
                }
            }
        }
        top
    }
}

fn js_text(x: Option<f64>) -> String {
    x.map_or_else(|| "undefined".to_owned(), js_number_string)
}

/// DevTools' id of a call frame: its script, line and column.
fn frame_id(frame: &CallFrameAt, strings: &Strings) -> String {
    match frame {
        CallFrameAt::Payload(f) => format!(
            "{}:{}:{}",
            f.script_id.map_or("undefined", |s| strings.resolve(s)),
            js_text(f.line_number),
            js_text(f.column_number)
        ),
        CallFrameAt::FunctionCall(f) => format!(
            "{}:{}:{}",
            strings.resolve(f.script_id),
            js_number_string(f.line_number),
            js_number_string(f.column_number)
        ),
        CallFrameAt::Profile { call_frame: f } => format!(
            "{}:{}:{}",
            strings.resolve(f.script_id),
            js_text(f.line_number),
            js_text(f.column_number)
        ),
    }
}

impl ForcedReflow {
    /// Its members of the insight's model.
    pub(crate) fn dump(&self, model: &mut Object, cx: &mut crate::DumpCx<'_, '_>) {
        let strings = cx.dump.strings();
        let top = self.top_level_function_call.as_ref().map_or(Value::Null, |t| {
            Object::new()
                .with("topLevelFunctionCall", frame_value(&t.frame, strings))
                .with("totalReflowTime", Value::Num(t.total_reflow_time))
                .with("topLevelFunctionCallEvents", cx.events(&t.events))
                .into()
        });
        model.push("topLevelFunctionCallData", top);
        let bottom_up = self
            .aggregated_bottom_up
            .iter()
            .map(|b| {
                Object::new()
                    .with(
                        "bottomUpData",
                        b.frame.map_or(Value::Null, |f| frame_value(&f, strings)),
                    )
                    .with("totalTime", Value::Num(b.total_time))
                    .with("relatedEvents", Value::events(b.related_events.iter().copied()))
                    .into()
            })
            .collect();
        model.push("aggregatedBottomUpData", Value::Array(bottom_up));
    }
}

/// A call frame as DevTools holds it: a stack frame of the args with its
/// script id a string and its line and column 0-based, a `FunctionCall`'s
/// `args.data` as written, a JS call's frame from the profile.
fn frame_value(frame: &CallFrameAt, strings: &Strings) -> Value {
    match frame {
        CallFrameAt::Payload(f) => {
            let text = strings.resolve(f.text);
            let mut object = Object::new();
            let (mut line, mut column) = (Value::Null, Value::Null);
            for (key, raw) in object_members(text) {
                // `x && x - 1` keeps what is not a number as it is.
                let adjusted = |x: Option<f64>| x.map_or_else(|| Value::Json(raw.into()), Value::Num);
                match &*key {
                    "scriptId" => {}
                    "lineNumber" => line = adjusted(f.line_number),
                    "columnNumber" => column = adjusted(f.column_number),
                    _ => object.push(key.into_owned(), Value::Json(raw.into())),
                }
            }
            object.push(
                "scriptId",
                f.script_id.map_or_else(|| Value::str("undefined"), Value::Sym),
            );
            object.push("lineNumber", line);
            object.push("columnNumber", column);
            object.into()
        }
        CallFrameAt::FunctionCall(f) => Value::Json(strings.resolve(f.data).into()),
        CallFrameAt::Profile { call_frame: f } => Object::new()
            .with_some("codeType", f.code_type.map(Value::Sym))
            .with("functionName", Value::Sym(f.function_name))
            .with("scriptId", Value::Sym(f.script_id))
            .with("url", Value::Sym(f.url))
            .with("lineNumber", f.line_number.map_or(Value::Null, Value::Num))
            .with("columnNumber", f.column_number.map_or(Value::Null, Value::Num))
            .into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_trace::{navigation_set, sets, trace, FIRST_ADDED};

    /// A task at 100 ms of the main thread: a `FunctionCall` (with `data`
    /// as its `args.data`) whose JS, `outer` calling `inner`, forces
    /// `layouts` (their args); a CPU profile samples `inner` through it.
    fn task(data: &str, layouts: &[&str]) -> String {
        let mut events = vec![
            r#"{"name":"Profile","ph":"P","pid":2,"tid":3,"ts":90000,"id":"0x1","cat":"disabled-by-default-v8.cpu_profiler","args":{"data":{"startTime":90000}}}"#.to_owned(),
            r#"{"name":"ProfileChunk","ph":"P","pid":2,"tid":3,"ts":90000,"id":"0x1","cat":"disabled-by-default-v8.cpu_profiler","args":{"data":{"cpuProfile":{"nodes":[
                {"callFrame":{"codeType":"other","functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"id":1},
                {"callFrame":{"codeType":"JS","functionName":"outer","scriptId":"5","url":"https://a.test/a.js","lineNumber":1,"columnNumber":1},"id":2,"parent":1},
                {"callFrame":{"codeType":"JS","functionName":"inner","scriptId":"5","url":"https://a.test/a.js","lineNumber":9,"columnNumber":2},"id":3,"parent":2}],
                "samples":[3,3,3,1]},"timeDeltas":[11000,1000,48000,10000]}}}"#.to_owned(),
            r#"{"name":"RunTask","ph":"X","pid":2,"tid":3,"ts":100000,"dur":80000,"cat":"disabled-by-default-devtools.timeline","args":{}}"#.to_owned(),
            format!(r#"{{"name":"FunctionCall","ph":"X","pid":2,"tid":3,"ts":100500,"dur":60000,"cat":"devtools.timeline","args":{{"data":{data}}}}}"#),
        ];
        for (i, args) in layouts.iter().enumerate() {
            let ts = 102_000 + 20_000 * i;
            events.push(format!(
                r#"{{"name":"Layout","ph":"X","pid":2,"tid":3,"ts":{ts},"dur":18000,"cat":"devtools.timeline","args":{args}}}"#
            ));
        }
        events.push(r#"{"name":"RunTask","ph":"X","pid":2,"tid":3,"ts":300000,"dur":10,"cat":"disabled-by-default-devtools.timeline","args":{}}"#.to_owned());
        events.join(",")
    }

    const STACK: &str = r#"{"beginData":{"frame":"F1","stackTrace":[{"functionName":"h","scriptId":9,"url":"https://a.test/h.js","lineNumber":4,"columnNumber":6}]}}"#;
    const NO_STACK: &str = r#"{"beginData":{"frame":"F1"}}"#;
    const CALL: &str = r#"{"functionName":"run","scriptId":"5","url":"https://a.test/a.js","lineNumber":0,"columnNumber":0,"frame":"F1"}"#;

    fn forced_reflow(events: &str) -> (Insight, ForcedReflow) {
        let sets = sets(&trace(events));
        let set = navigation_set(&sets);
        let insight = set
            .computed()
            .find(|i| i.ui().key == "ForcedReflow")
            .expect("the insight");
        match &insight.finding {
            Finding::ForcedReflow(f) => (insight.clone(), f.clone()),
            other => panic!("not a ForcedReflow finding: {other:?}"),
        }
    }

    #[test]
    fn reflows_go_by_the_stack_in_their_args_else_the_js_call_above_them() {
        let (insight, f) = forced_reflow(&task(CALL, &[STACK, NO_STACK]));
        assert_eq!(insight.state, State::Fail);
        let [by_stack, by_tree] = &f.aggregated_bottom_up[..] else {
            panic!("{f:?}")
        };
        let layouts = (FIRST_ADDED + 4, FIRST_ADDED + 5);
        assert_eq!(by_stack.related_events, [layouts.0]);
        assert!(matches!(by_stack.frame, Some(CallFrameAt::Payload(p)) if p.line_number == Some(3.0)));
        assert_eq!(by_tree.related_events, [layouts.1]);
        let Some(CallFrameAt::Profile { call_frame }) = by_tree.frame else {
            panic!("{by_tree:?}")
        };
        assert_eq!(call_frame.line_number, Some(9.0));
        assert_eq!(by_tree.total_time, 18000.0);
        // Above the JS calls, the FunctionCall that ran them.
        let top = f.top_level_function_call.expect("a top-level call");
        assert!(matches!(top.frame, CallFrameAt::FunctionCall(_)));
        assert_eq!((top.total_reflow_time, top.events.len()), (36000.0, 2));
    }

    #[test]
    fn without_a_call_frame_in_its_args_the_outermost_js_call_is_the_top_level_one() {
        let (_, f) = forced_reflow(&task("{}", &[NO_STACK, NO_STACK]));
        let top = f.top_level_function_call.expect("a top-level call");
        let CallFrameAt::Profile { call_frame } = top.frame else {
            panic!("{top:?}")
        };
        assert_eq!(call_frame.line_number, Some(1.0));
        assert!(matches!(
            top.events[0],
            EventRef::Entity(EntityEvent::ProfileCall { .. })
        ));
    }

    #[test]
    fn reflows_of_another_frame_or_too_short_pass() {
        let other = r#"{"beginData":{"frame":"F2"}}"#;
        let (insight, f) = forced_reflow(&task(CALL, &[other, other]));
        assert_eq!(insight.state, State::Pass);
        assert!(f.aggregated_bottom_up.is_empty() && f.top_level_function_call.is_none());
        let (insight, _) = forced_reflow(&task(CALL, &[NO_STACK]));
        assert_eq!(insight.state, State::Pass);
    }
}
