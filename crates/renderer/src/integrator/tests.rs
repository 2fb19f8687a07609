//! The samples integrator on small profiles (read from trace text by the
//! Samples handler) and hand-made trace events. Each scenario's expected
//! calls are what the DevTools engine draws for the same trace.

use tracekit_events::{feed, Context, DevTools, Handler, Id};
use tracekit_samples::SamplesHandler;

use super::*;
use crate::timeline::compare;

/// The profile every scenario samples: `main` calls `a`, `b` and, through
/// a native V8 runtime frame, `c`; and the meta nodes.
const NODES: &[(i64, &str, i64, &str)] = &[
    (2, "(program)", 1, ""),
    (6, "(idle)", 1, ""),
    (7, "(garbage collector)", 1, ""),
    (3, "main", 1, "app.js"),
    (4, "a", 3, "app.js"),
    (5, "b", 3, "app.js"),
    (8, "native", 3, "native V8Runtime"),
    (9, "c", 8, "app.js"),
];

const MAIN: i64 = 3;
const A: i64 = 4;
const B: i64 = 5;
const C: i64 = 9;
const PROGRAM: i64 = 2;
const IDLE: i64 = 6;
const GC: i64 = 7;

/// A thread's profile: a sample of each node at each time (microseconds
/// from 0), and `trace_ids` (the chunk's JSON object).
fn profile(samples: &[(f64, i64)], trace_ids: &str, cx: &mut Context) -> CpuProfileModel {
    let mut nodes = vec![
        r#"{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}}"#
            .to_owned(),
    ];
    for (id, name, parent, url) in NODES {
        nodes.push(format!(
            r#"{{"id":{id},"parent":{parent},"callFrame":{{"functionName":"{name}","scriptId":"1","url":"{url}","lineNumber":{id},"columnNumber":0}}}}"#
        ));
    }
    let mut last = 0.0;
    let deltas: Vec<f64> = samples
        .iter()
        .map(|(t, _)| {
            let d = t - last;
            last = *t;
            d
        })
        .collect();
    let ids: Vec<i64> = samples.iter().map(|(_, id)| *id).collect();
    let text = format!(
        r#"[{{"name":"Profile","ph":"P","pid":1,"tid":1,"ts":0,"id":"0x1","args":{{"data":{{"startTime":0}}}}}},
{{"name":"ProfileChunk","ph":"P","pid":1,"tid":1,"ts":0,"id":"0x1","args":{{"data":{{"cpuProfile":{{"nodes":[{}],"samples":{ids:?},"trace_ids":{trace_ids}}},"timeDeltas":{deltas:?}}}}}}}]"#,
        nodes.join(",")
    );
    let mut handler = SamplesHandler::default();
    feed(&text, &mut handler, cx).unwrap();
    let data = handler.finalize(&no_meta(), cx);
    data.profile(Id::num(1.0), Id::num(1.0)).unwrap().model.clone()
}

/// A trace event as the integrator sees it.
struct Ev {
    name: Sym,
    span: Span,
    ph: Phase,
    trace_id: Option<SampleTraceId>,
}

impl TraceEntry for Ev {
    fn span(&self) -> Span {
        self.span
    }
    fn name(&self) -> Sym {
        self.name
    }
    fn ph(&self) -> Phase {
        self.ph
    }
    fn sample_trace_id(&self) -> Option<SampleTraceId> {
        self.trace_id
    }
}

/// Complete events `(name, ts, dur)` (an instant where `dur` is `None`),
/// with a sample trace id where given; sorted as the Renderer handler
/// sorts them.
fn events(list: &[(&str, f64, Option<f64>, Option<f64>)], cx: &mut Context) -> Vec<Ev> {
    let mut events: Vec<Ev> = list
        .iter()
        .map(|&(name, ts, dur, trace_id)| Ev {
            name: cx.interner.intern(name),
            span: Span {
                ts,
                dur,
                is_profile_call: false,
            },
            ph: if dur.is_some() { Phase::COMPLETE } else { Phase::INSTANT },
            trace_id: trace_id.map(SampleTraceId::Num),
        })
        .collect();
    events.sort_by(|a, b| compare(&a.span, &b.span));
    events
}

/// The calls built, in the order they were opened, as `name@ts+dur`.
fn calls(model: &CpuProfileModel, cx: &Context, entries: &[Ev], show_native_frames: bool) -> Vec<String> {
    SamplesIntegrator::new(model, &cx.interner, show_native_frames, DevTools::LATEST)
        .build(entries, usize::MAX)
        .unwrap()
        .iter()
        .map(|c| {
            let name = cx.interner.resolve(model.node(c.node).call_frame.function_name);
            format!("{name}@{}+{}", c.ts.0, c.dur.0)
        })
        .collect()
}

/// Scenario: trace events and samples; the calls they make.
fn scenario(list: &[(&str, f64, Option<f64>, Option<f64>)], samples: &[(f64, i64)], trace_ids: &str) -> Vec<String> {
    let mut cx = Context::default();
    let model = profile(samples, trace_ids, &mut cx);
    let entries = events(list, &mut cx);
    calls(&model, &cx, &entries, false)
}

fn x(name: &str, ts: f64, dur: f64) -> (&str, f64, Option<f64>, Option<f64>) {
    (name, ts, Some(dur), None)
}

#[test]
fn samples_inside_a_js_invocation_make_calls_that_last_until_it_ends() {
    assert_eq!(
        scenario(&[x("FunctionCall", 0.0, 100.0)], &[(10.0, A), (50.0, A)], "{}"),
        ["main@10+90", "a@10+90"]
    );
}

/// A top-level task nested in a JS call (a nested message loop) ends the
/// JS stack: no call spans two tasks.
#[test]
fn a_run_task_truncates_the_js_stack() {
    assert_eq!(
        scenario(
            &[x("FunctionCall", 0.0, 100.0), x("RunTask", 40.0, 20.0)],
            &[(10.0, MAIN), (45.0, MAIN), (70.0, MAIN)],
            "{}"
        ),
        ["main@10+30", "main@45+15", "main@70+30"]
    );
}

/// While a trace event lasts, the stack is locked at the depth it had when
/// the event began: the sample of `b` taken inside Layout is not used, and
/// `a` lasts until the next sample after it.
#[test]
fn a_trace_event_locks_the_stack_while_it_lasts() {
    assert_eq!(
        scenario(
            &[x("FunctionCall", 0.0, 100.0), x("Layout", 30.0, 20.0)],
            &[(10.0, A), (40.0, B), (60.0, B)],
            "{}"
        ),
        ["main@10+90", "a@10+50", "b@60+40"]
    );
    // Inside a JS invocation nested in the call, the stack below the lock
    // stays: `b`, sampled in the EventDispatch, does not end `a`, and is
    // not drawn at all (it would be a child of `main`, below the lock).
    assert_eq!(
        scenario(
            &[x("FunctionCall", 0.0, 100.0), x("EventDispatch", 30.0, 30.0)],
            &[(10.0, A), (40.0, B), (70.0, A)],
            "{}"
        ),
        ["main@10+90", "a@10+90"]
    );
}

/// Samples outside any JS invocation event still show: the integrator
/// pretends one began at the sample, and ends it when the next event
/// starts.
#[test]
fn samples_outside_a_js_invocation_make_a_fake_one() {
    assert_eq!(
        scenario(
            &[x("RunTask", 0.0, 50.0), x("Layout", 20.0, 10.0)],
            &[(10.0, MAIN), (40.0, MAIN)],
            "{}"
        ),
        ["main@10+10", "main@40+10"]
    );
    // A sample after every event: a fake invocation too, which nothing
    // ends: its call lasts 0.
    assert_eq!(
        scenario(&[x("RunTask", 0.0, 50.0)], &[(60.0, MAIN)], "{}"),
        ["main@60+0"]
    );
}

/// A garbage collection sample has no stack of its own: it stands on the
/// previous sample's, so `a` lasts until `b` is sampled, not until the GC.
#[test]
fn a_gc_sample_stands_on_the_previous_stack() {
    assert_eq!(
        scenario(
            &[x("FunctionCall", 0.0, 100.0)],
            &[(10.0, A), (20.0, GC), (30.0, B)],
            "{}"
        ),
        ["main@10+90", "a@10+20", "b@30+70"]
    );
    // With no sample before it, it has no stack: nothing is drawn for it.
    assert_eq!(
        scenario(&[x("FunctionCall", 0.0, 100.0)], &[(10.0, GC), (30.0, B)], "{}"),
        ["main@30+70", "b@30+70"]
    );
}

/// An event carrying a sample trace id takes its stack from the sample
/// with that id, at the event's start; an instant counts only with one.
#[test]
fn a_sample_trace_id_gives_an_event_its_stack() {
    assert_eq!(
        scenario(
            &[
                x("FunctionCall", 0.0, 100.0),
                ("TimerInstall", 20.0, Some(0.0), Some(7.0)),
                ("Mark", 30.0, None, Some(8.0)),
                ("NoId", 35.0, None, None),
                // An id the profile does not know: no stack from it.
                ("Unknown", 40.0, None, Some(99.0)),
            ],
            &[(10.0, A), (50.0, B), (60.0, B)],
            r#"{"7":5,"8":4}"#
        ),
        ["main@10+90", "a@10+10", "b@20+10", "a@30+20", "b@50+50"]
    );
}

/// Native `V8Runtime` frames are left out of stacks unless asked for.
#[test]
fn native_runtime_frames_are_filtered_unless_shown() {
    let mut cx = Context::default();
    let model = profile(&[(10.0, C), (50.0, C)], "{}", &mut cx);
    let entries = events(&[x("FunctionCall", 0.0, 100.0)], &mut cx);
    assert_eq!(calls(&model, &cx, &entries, false), ["main@10+90", "c@10+90"]);
    assert_eq!(
        calls(&model, &cx, &entries, true),
        ["main@10+90", "native@10+90", "c@10+90"]
    );
}

/// `(program)` and `(idle)` samples end the JS stack but are never calls.
/// (A lone `(program)` sample between two stacks of the same bottom frame
/// is a sampler failure, repaired by the profile model: not here, where it
/// is followed by `(idle)`.)
#[test]
fn program_and_idle_are_never_calls() {
    assert_eq!(
        scenario(
            &[x("FunctionCall", 0.0, 100.0)],
            &[(10.0, MAIN), (20.0, IDLE), (30.0, MAIN), (40.0, PROGRAM), (50.0, IDLE)],
            "{}"
        ),
        ["main@10+10", "main@30+10"]
    );
}

#[test]
fn more_calls_than_allowed_is_an_error() {
    let mut cx = Context::default();
    let model = profile(&[(10.0, A), (50.0, B)], "{}", &mut cx);
    let entries = events(&[x("FunctionCall", 0.0, 100.0)], &mut cx);
    // main, a and b: three calls.
    let build = |max| SamplesIntegrator::new(&model, &cx.interner, false, DevTools::LATEST).build(&entries, max);
    assert_eq!(build(3).map(|c| c.len()), Ok(3));
    assert_eq!(build(2), Err(TooManyCalls));
    assert_eq!(build(0), Err(TooManyCalls));
}

/// On a deep profile (chains of up to 40 frames, recursion, GC and
/// `(program)` samples, samples outside any event, a task that truncates
/// the stack, ids that say where a stack is), candidates that keep the
/// frames they share with the last one make the calls that candidates
/// walked in full make.
#[test]
fn shared_frames_make_the_calls_full_walks_make() {
    // A small deterministic generator (a linear congruential one).
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |n: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % n
    };
    let mut nodes = vec![
        r#"{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}}"#
            .to_owned(),
        r#"{"id":2,"parent":1,"callFrame":{"functionName":"(program)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}}"#
            .to_owned(),
        r#"{"id":3,"parent":1,"callFrame":{"functionName":"(garbage collector)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}}"#
            .to_owned(),
    ];
    // Mostly chains (a node's parent is the node before it), some
    // branches; four functions repeat as recursion does.
    for id in 4..200u64 {
        let parent = match id {
            4 => 1,
            _ if next(5) == 0 => 4 + next(id - 4),
            _ => id - 1,
        };
        let name = ["f", "g", "h", "k"][usize::try_from(next(4)).unwrap()];
        nodes.push(format!(
            r#"{{"id":{id},"parent":{parent},"callFrame":{{"functionName":"{name}","scriptId":"1","url":"app.js","lineNumber":{},"columnNumber":0}}}}"#,
            id % 7
        ));
    }
    let mut samples = Vec::new();
    let mut node = 4u64;
    for _ in 0..3000 {
        node = match next(10) {
            0 => 2,
            1 => 3,
            2..=5 => (node + 1).clamp(4, 199),
            6..=7 => node.saturating_sub(next(8)).max(4),
            _ => 4 + next(196),
        };
        samples.push(node);
    }
    let deltas = vec![1.0; samples.len()];
    let text = format!(
        r#"[{{"name":"Profile","ph":"P","pid":1,"tid":1,"ts":0,"id":"0x1","args":{{"data":{{"startTime":0}}}}}},
{{"name":"ProfileChunk","ph":"P","pid":1,"tid":1,"ts":0,"id":"0x1","args":{{"data":{{"cpuProfile":{{"nodes":[{}],"samples":{samples:?},"trace_ids":{{"7":150,"9":30}}}},"timeDeltas":{deltas:?}}}}}}}]"#,
        nodes.join(",")
    );
    let mut cx = Context::default();
    let mut handler = SamplesHandler::default();
    feed(&text, &mut handler, &mut cx).unwrap();
    let data = handler.finalize(&no_meta(), &mut cx);
    let model = data.profile(Id::num(1.0), Id::num(1.0)).unwrap().model.clone();
    let mut list = vec![
        x("FunctionCall", 0.0, 900.0),
        x("RunTask", 950.0, 10.0),
        x("FunctionCall", 1000.0, 1500.0),
        x("Layout", 1200.0, 40.0),
        ("EventDispatch", 1300.0, Some(50.0), Some(7.0)),
        ("TimeStamp", 1400.0, None, Some(9.0)),
    ];
    list.push(x("FunctionCall", 2600.0, 300.0));
    let entries = events(&list, &mut cx);
    let made = |share_frames: bool| {
        let mut integrator = SamplesIntegrator::new(&model, &cx.interner, false, DevTools::LATEST);
        integrator.share_frames = share_frames;
        integrator
            .build(&entries, usize::MAX)
            .unwrap()
            .iter()
            .map(|c| format!("{}@{}+{}", c.node, c.ts.0, c.dur.0))
            .collect::<Vec<_>>()
    };
    let shared = made(true);
    assert!(shared.len() > 1000, "a deep profile makes many calls: {}", shared.len());
    assert_eq!(shared, made(false));
}

/// The Meta handler's data of a trace without metadata (the Samples
/// handler reads it only for top-level samples).
fn no_meta() -> tracekit_meta::MetaData {
    tracekit_meta::MetaHandler::default().finalize((), &mut Context::default())
}
