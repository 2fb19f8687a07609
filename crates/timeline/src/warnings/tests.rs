//! The Warnings handler on small hand-written traces.

use tracekit_events::{feed, AnalyzeOptions, Sym};

use super::*;

fn run(text: &str, workers: &Workers) -> (Warnings, Context) {
    let mut cx = Context::new(AnalyzeOptions::default().with_all_handlers(true));
    let mut handler = WarningsHandler::default();
    feed(text, &mut handler, &mut cx).unwrap();
    let interactions = UserInteractions::default();
    (handler.finalize((&interactions, workers), &mut cx), cx)
}

fn flagged(data: &Warnings, warning: Warning) -> Vec<Flagged> {
    data.per_warning.get(&warning).cloned().unwrap_or_default()
}

#[test]
fn forced_reflows_of_a_task_are_flagged_when_they_add_up() {
    let (data, _) = run(
        r#"[
        {"name":"RunTask","ph":"X","pid":1,"tid":1,"ts":0,"dur":100000},
        {"name":"FunctionCall","ph":"X","pid":1,"tid":1,"ts":10,"dur":60000},
        {"name":"Layout","ph":"X","pid":1,"tid":1,"ts":20,"dur":20000},
        {"name":"UpdateLayoutTree","ph":"X","pid":1,"tid":1,"ts":30000,"dur":15000},
        {"name":"Layout","ph":"X","pid":1,"tid":1,"ts":70000,"dur":20000},
        {"name":"RunTask","ph":"X","pid":1,"tid":1,"ts":200000,"dur":10},
        {"name":"RunTask","ph":"X","pid":1,"tid":1,"ts":300000,"dur":10},
        {"name":"v8.run","ph":"X","pid":1,"tid":1,"ts":300001,"dur":5},
        {"name":"Layout","ph":"X","pid":1,"tid":1,"ts":300002,"dur":2}
    ]"#,
        &Workers::default(),
    );
    // The layout after the call ended is not forced; the last task's
    // forced layout is too short, and no task follows it.
    assert_eq!(
        flagged(&data, Warning::ForcedReflow),
        [Flagged::Event(2), Flagged::Event(3)]
    );
    assert_eq!(flagged(&data, Warning::LongTask), [Flagged::Event(0)]);
    assert_eq!(data.per_event[&Flagged::Event(2)], [Warning::ForcedReflow]);
}

#[test]
fn long_tasks_of_workers_and_idle_callbacks() {
    let mut workers = Workers::default();
    workers.worker_by_thread.insert(Some(Id::num(7.0)), None);
    let (data, cx) = run(
        r#"[
        {"name":"RunTask","ph":"X","pid":1,"tid":7,"ts":0,"dur":60000},
        {"name":"RunTask","ph":"X","pid":1,"tid":1,"ts":100000,"dur":50000},
        {"name":"FireIdleCallback","ph":"X","pid":1,"tid":1,"ts":200000,"dur":6000,"args":{"data":{"allottedMilliseconds":5}}},
        {"name":"FireIdleCallback","ph":"X","pid":1,"tid":1,"ts":300000,"dur":4000,"args":{"data":{"allottedMilliseconds":5}}},
        {"name":"FireIdleCallback","ph":"X","pid":1,"tid":1,"ts":400000,"dur":4000,"args":{}}
    ]"#,
        &workers,
    );
    // The worker's task is not flagged, nor one of exactly 50 ms.
    assert!(flagged(&data, Warning::LongTask).is_empty());
    assert_eq!(flagged(&data, Warning::IdleCallbackOverTime), [Flagged::Event(2)]);
    assert_eq!(cx.diagnostics.skipped[&Skip::WarningsIdleCallbackWithoutData].count, 1);
    assert_eq!(Warning::IdleCallbackOverTime.name(), "IDLE_CALLBACK_OVER_TIME");
}

#[test]
fn a_metadata_event_without_ts_ends_the_flagging_of_forced_reflows() {
    let (data, _) = run(
        r#"[
        {"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"x"}},
        {"name":"RunTask","ph":"X","pid":1,"tid":1,"ts":0,"dur":100000},
        {"name":"FunctionCall","ph":"X","pid":1,"tid":1,"ts":10,"dur":60000},
        {"name":"Layout","ph":"X","pid":1,"tid":1,"ts":20,"dur":40000},
        {"name":"RunTask","ph":"X","pid":1,"tid":1,"ts":200000,"dur":10}
    ]"#,
        &Workers::default(),
    );
    // As in DevTools, the untimed event never closes: no task starts.
    assert!(flagged(&data, Warning::ForcedReflow).is_empty());
}

#[test]
fn forced_reflows_keep_their_frame_stack_and_function_call() {
    let (data, cx) = run(
        r#"[
        {"name":"RunTask","ph":"X","pid":1,"tid":1,"ts":0,"dur":100000},
        {"name":"FunctionCall","ph":"X","pid":1,"tid":1,"ts":10,"dur":60000,"args":{"data":{"functionName":"f","scriptId":7,"url":"a.js","lineNumber":3,"columnNumber":4,"frame":"F"}}},
        {"name":"FunctionCall","ph":"X","pid":1,"tid":2,"ts":15,"dur":60000,"args":{"data":{"functionName":"g"}}},
        {"name":"Layout","ph":"X","pid":1,"tid":1,"ts":20,"dur":20000,"args":{"beginData":{"frame":"F","stackTrace":[{"functionName":"h","scriptId":"9","url":"b.js","lineNumber":1,"columnNumber":5},{"functionName":"i"}]}}},
        {"name":"UpdateLayoutTree","ph":"X","pid":1,"tid":2,"ts":30000,"dur":15000,"args":{"data":{"frame":"G"}}},
        {"name":"RunTask","ph":"X","pid":1,"tid":1,"ts":200000,"dur":10}
    ]"#,
        &Workers::default(),
    );
    let [layout, recalc] = &data.forced_reflows[..] else {
        panic!("{data:?}")
    };
    let text = |s: Option<Sym>| s.map(|s| cx.interner.resolve(s).to_owned());
    assert_eq!((layout.event, text(layout.frame).as_deref()), (3, Some("F")));
    let top = layout.stack_top.expect("the stack's first frame");
    assert_eq!(text(top.script_id).as_deref(), Some("9"));
    // Made 0-based, except a 0.
    assert_eq!((top.line_number, top.column_number), (Some(0.0), Some(4.0)));
    let call = layout.function_call.expect("the FunctionCall around it");
    assert_eq!((call.event, text(Some(call.script_id)).as_deref()), (1, Some("7")));
    // The other thread's call names no call frame.
    assert_eq!(
        (text(recalc.frame).as_deref(), recalc.stack_top, recalc.function_call),
        (Some("G"), None, None)
    );
}
