//! The SelectorStats handler on small hand-written traces.

use tracekit_events::{feed, AnalyzeOptions};

use super::*;

fn run(text: &str) -> (SelectorStats, Context) {
    let mut cx = Context::new(AnalyzeOptions::default().with_all_handlers(true));
    let mut handler = SelectorStatsHandler::default();
    feed(text, &mut handler, &mut cx).unwrap();
    (handler.finalize((), &mut cx), cx)
}

#[test]
fn selector_stats_go_to_the_last_style_recalculation() {
    let (data, cx) = run(r#"[
        {"name":"SelectorStats","ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"args":{"selector_stats":{"selector_timings":[]}}},
        {"name":"UpdateLayoutTree","ph":"X","pid":1,"tid":1,"ts":10,"dur":5,"args":{}},
        {"name":"SelectorStats","ph":"X","pid":1,"tid":1,"ts":12,"dur":1,"args":{"selector_stats":{"selector_timings":[
            {"selector":".a","style_sheet_id":"s1","elapsed (us)":3,"match_attempts":4,"match_count":1,"fast_reject_count":2}]}}},
        {"name":"SelectorStats","ph":"X","pid":1,"tid":1,"ts":13,"dur":1,"args":{}}
    ]"#);
    // The first has no recalculation before it, the last no stats.
    let [(recalc, stats)] = &data.by_recalc_style.iter().collect::<Vec<_>>()[..] else {
        panic!("{data:?}")
    };
    let Some(timings) = &stats.timings else {
        panic!("{data:?}")
    };
    assert_eq!(**recalc, 1);
    assert_eq!((stats.ts, stats.dur, stats.frame), (Micros(10.0), Micros(5.0), None));
    assert_eq!(cx.interner.resolve(timings[0].selector.unwrap()), ".a");
    let (framed, _) = run(r#"[
        {"name":"UpdateLayoutTree","ph":"X","pid":1,"tid":1,"ts":10,"dur":5,"args":{"beginData":{"frame":"F"}}},
        {"name":"SelectorStats","ph":"X","pid":1,"tid":1,"ts":12,"dur":1,"args":{"selector_stats":{}}}
    ]"#);
    let stats = &framed.by_recalc_style[&0];
    assert!(stats.frame.is_some() && stats.timings.is_none());
    assert_eq!((timings[0].elapsed, timings[0].invalidation_count), (Some(3.0), None));
}

#[test]
fn a_subtree_invalidation_marks_the_last_invalidated_node() {
    let (data, cx) = run(r#"[
        {"name":"UpdateLayoutTree","ph":"X","pid":1,"tid":1,"ts":5,"dur":1,"args":{}},
        {"name":"StyleInvalidatorInvalidationTracking","ph":"I","pid":1,"tid":1,"ts":10,"tts":3,"args":{"data":{"frame":"F","nodeId":7,"selectors":[{"selector":".x","style_sheet_id":"s"}]}}},
        {"name":"StyleRecalcInvalidationTracking","ph":"I","pid":1,"tid":1,"ts":11,"args":{"data":{"nodeId":7,"subtree":true,"reason":"Related style rule"}}},
        {"name":"StyleInvalidatorInvalidationTracking","ph":"I","pid":1,"tid":1,"ts":12,"args":{"data":{"nodeId":8,"selectors":[]}}},
        {"name":"StyleInvalidatorInvalidationTracking","ph":"I","pid":1,"tid":1,"ts":13,"args":{"data":{"nodeId":9,"selectors":[{"selector":".y"}]}}},
        {"name":"StyleRecalcInvalidationTracking","ph":"I","pid":1,"tid":1,"ts":14,"args":{"data":{"nodeId":7,"subtree":true,"reason":"Related style rule"}}},
        {"name":"StyleRecalcInvalidationTracking","ph":"I","pid":1,"tid":1,"ts":15,"args":{}}
    ]"#);
    // No node for the invalidation without selectors; the second subtree
    // flag names another node than the last.
    let [first, second] = &data.invalidated_nodes[..] else {
        panic!("{data:?}")
    };
    assert!(first.subtree && !second.subtree);
    assert_eq!(
        (first.tts, first.last_recalc_style_ts),
        (Some(Micros(3.0)), Micros(5.0))
    );
    assert_eq!(cx.interner.resolve(first.frame.unwrap()), "F");
    assert_eq!(cx.diagnostics.skipped[&Skip::SelectorStatsWithoutData].count, 1);
}
