use tracekit_events::{feed, names, AnalyzeOptions, Context, Id, Micros, Phase, Skip, Sym};
use tracekit_page::{CallSample, ThreadNumber, TrackEntries};
use tracekit_renderer::{NodeKind, ProcessTracks, RendererData, ThreadTrack, TrackNode};

use super::*;

/// The events of a page whose JS call (under `FunctionCall` 0) schedules a
/// timeout (1) that runs twice, as an interval: run 2 (its `FunctionCall`
/// 3 holding a nested run 4) and run 6.
const TRACE: &str = r#"[
    {"name":"FunctionCall","cat":"devtools.timeline","ph":"X","ts":0,"dur":100,"pid":1,"tid":1},
    {"name":"v8::Debugger::AsyncTaskScheduled","cat":"v8","ph":"X","ts":10,"dur":1,"pid":1,"tid":1,"args":{"taskName":"setTimeout"}},
    {"name":"v8::Debugger::AsyncTaskRun","cat":"v8","ph":"X","ts":200,"dur":100,"pid":1,"tid":1},
    {"name":"FunctionCall","cat":"devtools.timeline","ph":"X","ts":201,"dur":80,"pid":1,"tid":1},
    {"name":"v8::Debugger::AsyncTaskRun","cat":"v8","ph":"X","ts":260,"dur":20,"pid":1,"tid":1},
    {"name":"FunctionCall","cat":"devtools.timeline","ph":"X","ts":261,"dur":10,"pid":1,"tid":1},
    {"name":"v8::Debugger::AsyncTaskRun","cat":"v8","ph":"X","ts":400,"dur":50,"pid":1,"tid":1},
    {"name":"EventDispatch","cat":"devtools.timeline","ph":"X","ts":401,"dur":10,"pid":1,"tid":1}
]"#;

fn event(name: Sym, event: u32) -> NodeKind {
    NodeKind::Event {
        name,
        cat: names::EMPTY,
        ph: Phase::COMPLETE,
        event,
    }
}

const CALL: NodeKind = NodeKind::Call { frame: 0 };

/// The tree of [`TRACE`]'s thread, as the Renderer handler builds it,
/// with JS calls: 1 above the schedule, 5 and 6 in the first run, 9 in
/// the nested run.
fn renderer(kept: bool) -> RendererData {
    let nodes = [
        (event(names::FUNCTION_CALL, 0), 0, 0.0, 100.0),
        (CALL, 1, 5.0, 20.0),
        (event(names::DEBUGGER_ASYNC_TASK_SCHEDULED, 1), 2, 10.0, 1.0),
        (event(names::DEBUGGER_ASYNC_TASK_RUN, 2), 0, 200.0, 100.0),
        (event(names::FUNCTION_CALL, 3), 1, 201.0, 80.0),
        (CALL, 2, 202.0, 10.0),
        (CALL, 2, 230.0, 10.0),
        (event(names::DEBUGGER_ASYNC_TASK_RUN, 4), 2, 260.0, 20.0),
        (event(names::FUNCTION_CALL, 5), 3, 261.0, 10.0),
        (CALL, 4, 262.0, 5.0),
        (event(names::DEBUGGER_ASYNC_TASK_RUN, 6), 0, 400.0, 50.0),
        (event(names::EVENT_DISPATCH, 7), 1, 401.0, 10.0),
    ];
    renderer_of(&nodes, kept)
}

/// One thread of `nodes` (kind, depth, start, duration), in a process
/// DevTools keeps or not.
fn renderer_of(nodes: &[(NodeKind, u32, f64, f64)], kept: bool) -> RendererData {
    let mut thread = ThreadTrack::default();
    for &(kind, depth, ts, dur) in nodes {
        thread
            .nodes
            .push(TrackNode::new(kind, depth, Micros(ts), Some(Micros(dur)), None));
    }
    let mut process = ProcessTracks {
        url: None,
        is_on_main_frame: true,
        kept_by_devtools: kept,
        threads: Default::default(),
    };
    process.threads.insert(Id::num(1.0), thread);
    let mut data = RendererData::default();
    data.processes.insert(Id::num(1.0), process);
    data
}

/// The JS call at `position` of the thread (the first: number 0), which
/// starts at `ts`: checked against the track.
fn call(position: u32, ts: f64) -> EntityEvent {
    let entry = NumberedThreads(&renderer(true).processes).entry(ThreadNumber(0), position);
    assert_eq!(entry.map(|e| e.ts), Some(ts), "the call at {position}");
    EntityEvent::ProfileCall {
        thread: ThreadNumber(0),
        position,
        sample: CallSample::NONE,
    }
}

fn run(trace: &str, flows: Vec<Vec<EventIndex>>, renderer: &RendererData) -> (AsyncJsCalls, Context) {
    let mut cx = Context::new(AnalyzeOptions::default().with_all_handlers(true));
    let mut handler = AsyncJsCallsHandler::default();
    feed(trace, &mut handler, &mut cx).unwrap();
    let data = handler.finalize((&Flows { flows }, renderer), &mut cx);
    (data, cx)
}

#[test]
fn a_scheduler_is_tied_to_the_entry_points_and_first_calls_of_its_runs() {
    let (data, cx) = run(TRACE, vec![vec![1, 2], vec![2, 6]], &renderer(true));
    let scheduler = call(1, 5.0);
    let entries: Vec<_> = data.scheduler_to_run_entry_points.iter().collect();
    assert_eq!(
        entries,
        vec![(&scheduler, &vec![EntityEvent::Event(3), EntityEvent::Event(7)])]
    );
    // The nested run's call (9) belongs to another task.
    let calls: Vec<_> = data.async_call_to_scheduler.keys().copied().collect();
    assert_eq!(calls, vec![call(5, 202.0), call(6, 230.0)]);
    let task = data.async_call_to_scheduler[&call(5, 202.0)];
    assert_eq!(cx.interner.resolve(task.task_name.unwrap()), "setTimeout");
    assert_eq!(task.scheduler, scheduler);
    let runs: Vec<_> = data.run_entry_point_to_scheduler.keys().copied().collect();
    assert_eq!(runs, vec![EntityEvent::Event(3), EntityEvent::Event(7)]);
}

#[test]
fn a_side_without_a_js_call_falls_back_to_the_task_events() {
    // DevTools drops the process: neither event is in a tree.
    let (data, _) = run(TRACE, vec![vec![1, 2]], &renderer(false));
    assert!(data.scheduler_to_run_entry_points.is_empty());
    assert!(data.async_call_to_scheduler.is_empty());
    let runs: Vec<_> = data.run_entry_point_to_scheduler.iter().collect();
    assert_eq!(runs.len(), 1);
    assert_eq!(*runs[0].0, EntityEvent::Event(2));
    assert_eq!(runs[0].1.scheduler, EntityEvent::Event(1));
}

#[test]
fn a_flow_from_a_run_without_a_schedule_is_counted_and_other_flows_ignored() {
    // Run 2 to run 6 before any schedule reached run 2; 0 to 3 is no task.
    let (data, cx) = run(TRACE, vec![vec![2, 6], vec![0, 3], vec![1]], &renderer(true));
    assert!(data.run_entry_point_to_scheduler.is_empty());
    assert_eq!(cx.diagnostics.skipped[&Skip::AsyncCallsUnpairedFlow].count, 1);
}

#[test]
fn an_entry_point_written_as_a_begin_end_pair_is_the_pair() {
    let trace = TRACE.replace(
        r#"{"name":"EventDispatch","cat":"devtools.timeline","ph":"X","ts":401,"dur":10,"pid":1,"tid":1}"#,
        r#"{"name":"EventDispatch","cat":"devtools.timeline","ph":"B","ts":401,"pid":1,"tid":1}"#,
    );
    let renderer = renderer(true);
    let (data, cx) = run(&trace, vec![vec![1, 2], vec![2, 6]], &renderer);
    let entries = &data.scheduler_to_run_entry_points[&call(1, 5.0)];
    let EntityEvent::BeginEnd {
        thread,
        position,
        begin,
        text,
    } = entries[1]
    else {
        panic!("not a pair: {:?}", entries[1]);
    };
    let dur = NumberedThreads(&renderer.processes)
        .entry(thread, position)
        .map(|e| e.dur);
    assert_eq!((begin, dur), (7, Some(10.0)));
    assert!(cx.interner.resolve(text).contains(r#""ph":"B""#));
}

#[test]
fn a_runs_first_calls_come_level_by_level() {
    // In the run, a call under a FunctionCall (depth 2) comes before a
    // call of the run itself (depth 1) in the tree's order; the search
    // meets the shallower one first.
    let nodes = [
        (event(names::FUNCTION_CALL, 0), 0, 0.0, 100.0),
        (CALL, 1, 5.0, 20.0),
        (event(names::DEBUGGER_ASYNC_TASK_SCHEDULED, 1), 2, 10.0, 1.0),
        (event(names::DEBUGGER_ASYNC_TASK_RUN, 2), 0, 200.0, 100.0),
        (event(names::FUNCTION_CALL, 3), 1, 201.0, 20.0),
        (CALL, 2, 202.0, 10.0),
        (CALL, 1, 230.0, 10.0),
    ];
    let renderer = renderer_of(&nodes, true);
    let (data, _) = run(TRACE, vec![vec![1, 2]], &renderer);
    let calls: Vec<_> = data.async_call_to_scheduler.keys().copied().collect();
    assert_eq!(calls, vec![call(6, 230.0), call(5, 202.0)]);
}
