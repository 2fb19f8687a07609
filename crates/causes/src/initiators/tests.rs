use tracekit_events::{feed, AnalyzeOptions, Context, Skip};
use tracekit_page::{CallSample, ThreadNumber};

use super::*;

fn run(trace: &str, flows: Vec<Vec<EventIndex>>, async_calls: &AsyncJsCalls) -> (Initiators, Context) {
    let mut cx = Context::new(AnalyzeOptions::default().with_all_handlers(true));
    let mut handler = InitiatorsHandler::default();
    feed(trace, &mut handler, &mut cx).unwrap();
    let data = handler.finalize((&Flows { flows }, async_calls), &mut cx);
    (data, cx)
}

/// The links as (event, initiator) pairs of input events, in order.
fn links(data: &Initiators) -> Vec<(EventIndex, EventIndex)> {
    let index = |r: &EntryRef| match r {
        EntryRef::Event(i) => *i,
        EntryRef::Made(_) => u32::MAX,
    };
    data.event_to_initiator
        .iter()
        .map(|(e, i)| (index(e), index(i)))
        .collect()
}

#[test]
fn timers_idle_callbacks_post_tasks_and_web_sockets_go_to_the_last_start_of_their_id() {
    let trace = r#"[
        {"name":"TimerInstall","ph":"I","ts":1,"pid":1,"tid":1,"args":{"data":{"timerId":1}}},
        {"name":"TimerFire","ph":"X","ts":2,"dur":1,"pid":1,"tid":1,"args":{"data":{"timerId":1}}},
        {"name":"TimerFire","ph":"X","ts":3,"dur":1,"pid":1,"tid":1,"args":{"data":{"timerId":"1"}}},
        {"name":"TimerFire","ph":"I","ts":4,"pid":1,"tid":1,"args":{"data":{"timerId":1}}},
        {"name":"RequestIdleCallback","ph":"I","ts":5,"pid":1,"tid":1,"args":{"data":{"id":7}}},
        {"name":"FireIdleCallback","ph":"X","ts":6,"dur":1,"pid":1,"tid":1,"args":{"data":{"id":7}}},
        {"name":"WebSocketCreate","ph":"I","ts":7,"pid":1,"tid":1,"args":{"data":{"identifier":"w"}}},
        {"name":"WebSocketSendHandshakeRequest","ph":"I","ts":8,"pid":1,"tid":1,"args":{"data":{"identifier":"w"}}},
        {"name":"WebSocketSend","ph":"I","ts":9,"pid":1,"tid":1,"args":{"data":{"identifier":"w"}}},
        {"name":"SchedulePostTaskCallback","ph":"I","ts":10,"pid":1,"tid":1,"args":{"data":{"taskId":3}}},
        {"name":"AbortPostTaskCallback","ph":"X","ts":11,"dur":1,"pid":1,"tid":1,"args":{"data":{"taskId":3}}},
        {"name":"TimerInstall","ph":"I","ts":12,"pid":1,"tid":1,"args":{"data":{"timerId":1}}},
        {"name":"TimerFire","ph":"X","ts":13,"dur":1,"pid":1,"tid":1,"args":{"data":{"timerId":1.0}}}
    ]"#;
    let (data, cx) = run(trace, Vec::new(), &AsyncJsCalls::default());
    // The fire of timer "1" (a string) has no install; an instant fire is
    // not one.
    assert_eq!(links(&data), vec![(1, 0), (5, 4), (7, 6), (8, 6), (10, 9), (12, 11)]);
    assert_eq!(
        data.initiator_to_events[&EntryRef::Event(6)],
        vec![EntryRef::Event(7), EntryRef::Event(8)]
    );
    assert_eq!(cx.diagnostics.skipped[&Skip::InitiatorsMissingInitiator].count, 1);
}

#[test]
fn a_layout_goes_to_its_frames_last_invalidation_or_to_the_recalc_initiator_it_falls_in() {
    let trace = r#"[
        {"name":"ScheduleStyleRecalculation","ph":"I","ts":10,"pid":1,"tid":1,"args":{"data":{"frame":"A"}}},
        {"name":"UpdateLayoutTree","ph":"X","ts":100,"dur":50,"pid":1,"tid":1,"args":{"beginData":{"frame":"A"}}},
        {"name":"InvalidateLayout","ph":"I","ts":120,"pid":1,"tid":1,"args":{"data":{"frame":"A"}}},
        {"name":"Layout","ph":"X","ts":160,"dur":5,"pid":1,"tid":1,"args":{"beginData":{"frame":"A"}}},
        {"name":"InvalidateLayout","ph":"I","ts":300,"pid":1,"tid":1,"args":{"data":{"frame":"A"}}},
        {"name":"InvalidateLayout","ph":"I","ts":310,"pid":1,"tid":1,"args":{"data":{"frame":"A"}}},
        {"name":"Layout","ph":"X","ts":320,"dur":5,"pid":1,"tid":1,"args":{"beginData":{"frame":"B"}}},
        {"name":"Layout","ph":"X","ts":330,"dur":5,"pid":1,"tid":1,"args":{"beginData":{"frame":"A"}}},
        {"name":"Layout","ph":"X","ts":340,"dur":5,"pid":1,"tid":1,"args":{"beginData":{"frame":"A"}}}
    ]"#;
    let (data, _) = run(trace, Vec::new(), &AsyncJsCalls::default());
    // Invalidation 2 falls in recalc 1: layout 3's initiator is the
    // recalc's (0). Invalidations 4 and 5 (the last wins) wait for the
    // next layout of their frame (7, not 6); layout 8 has none left.
    assert_eq!(links(&data), vec![(1, 0), (3, 0), (7, 5)]);
}

#[test]
fn flows_then_async_calls_link_each_event_to_the_one_before() {
    let trace = r#"[{"name":"Other","ph":"X","ts":1,"dur":1,"pid":1,"tid":1}]"#;
    let call = EntityEvent::ProfileCall {
        thread: ThreadNumber(0),
        position: 4,
        sample: CallSample::new(Some(9)),
    };
    let mut async_calls = AsyncJsCalls::default();
    async_calls
        .scheduler_to_run_entry_points
        .insert(call, vec![EntityEvent::Event(8), EntityEvent::Event(9)]);
    let (data, _) = run(trace, vec![vec![1, 2, 3], vec![4, 2]], &async_calls);
    assert_eq!(data.event_to_initiator[&EntryRef::Event(2)], EntryRef::Event(4));
    assert_eq!(data.event_to_initiator[&EntryRef::Event(3)], EntryRef::Event(2));
    let made = data.event_to_initiator[&EntryRef::Event(9)];
    assert_eq!(made, EntryRef::Made(0));
    assert_eq!(data.entry(made), Some(call));
    assert_eq!(
        data.initiator_to_events[&made],
        vec![EntryRef::Event(8), EntryRef::Event(9)]
    );
}

#[test]
fn events_without_the_args_devtools_reads_are_counted_not_read() {
    let trace = r#"[
        {"name":"UpdateLayoutTree","ph":"X","ts":1,"dur":1,"pid":1,"tid":1},
        {"name":"TimerInstall","ph":"I","ts":2,"pid":1,"tid":1,"args":{}},
        {"name":"Layout","ph":"X","ts":3,"dur":1,"pid":1,"tid":1,"args":{"beginData":null}},
        {"name":"InvalidateLayout","ph":"I","ts":4,"pid":1,"tid":1,"args":{"data":null}},
        {"name":"Layout","ph":"X","ts":5,"dur":1,"pid":1,"tid":1,"args":{"endData":{}}}
    ]"#;
    let (data, cx) = run(trace, Vec::new(), &AsyncJsCalls::default());
    assert!(data.event_to_initiator.is_empty());
    assert_eq!(cx.diagnostics.skipped[&Skip::InitiatorsUnreadableEvent].count, 4);
}
