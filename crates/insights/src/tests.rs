//! The insight sets and the insights on small traces written here.

use tracekit::AnalyzeOptions;

use crate::{compute, Finding, InsightSets, SetId, State};

/// A page trace: the main frame `F` at `https://a.test/`, navigated at
/// 2 ms, then `events` (JSON objects, comma-separated), ending at 3 s.
fn page(events: &str) -> String {
    format!(
        r#"[
        {{"name":"TracingStartedInBrowser","cat":"disabled-by-default-devtools.timeline","ph":"I","pid":1,"tid":1,"ts":1000,"args":{{"data":{{"frameTreeNodeId":1,"persistentIds":true,"frames":[{{"frame":"F","url":"https://a.test/","name":"","processId":2}}]}}}}}},
        {{"name":"thread_name","ph":"M","pid":2,"tid":2,"ts":0,"args":{{"name":"CrRendererMain"}}}},
        {{"name":"navigationStart","cat":"blink.user_timing","ph":"R","pid":2,"tid":2,"ts":2000,"args":{{"frame":"F","data":{{"documentLoaderURL":"https://a.test/","isLoadingMainFrame":true,"isOutermostMainFrame":true,"navigationId":"N1"}}}}}},
        {events}
        {{"name":"RunTask","cat":"toplevel","ph":"X","pid":2,"tid":2,"ts":3000000,"dur":10,"args":{{}}}}
    ]"#
    )
}

/// An interaction of id `id` from `ts` to `end` (µs), its handlers
/// running from `processing.0` to `processing.1`.
fn click(id: u32, ts: f64, end: f64, processing: (f64, f64)) -> String {
    format!(
        r#"{{"name":"EventTiming","cat":"devtools.timeline","ph":"b","pid":2,"tid":2,"id":"0x{id}","ts":{ts},"args":{{"frame":"F","data":{{"duration":{},"interactionId":{id},"type":"click","timeStamp":{},"processingStart":{},"processingEnd":{}}}}}}},
        {{"name":"EventTiming","cat":"devtools.timeline","ph":"e","pid":2,"tid":2,"id":"0x{id}","ts":{end},"args":{{}}}},"#,
        (end - ts) / 1000.0,
        ts / 1000.0,
        processing.0 / 1000.0,
        processing.1 / 1000.0
    )
}

fn sets(text: &str) -> InsightSets {
    let options = AnalyzeOptions::default().with_all_handlers(true);
    let analysis = tracekit::analyze_bytes(text.as_bytes(), &options).unwrap();
    compute(&analysis).unwrap()
}

fn inp(sets: &InsightSets, id: SetId) -> (State, crate::inp_breakdown::InpBreakdown) {
    let set = sets.sets.iter().find(|s| s.id == id).unwrap();
    let insight = set
        .computed()
        .find(|i| matches!(i.finding, Finding::InpBreakdown(_)))
        .unwrap();
    match &insight.finding {
        Finding::InpBreakdown(f) => (insight.state, f.clone()),
        #[allow(unreachable_patterns)] // one kind of finding among many
        _ => unreachable!(),
    }
}

#[test]
fn a_navigation_makes_a_set_from_its_start_to_the_trace_end() {
    let plain = sets(&page(""));
    let set = plain.sets.iter().find(|s| s.navigation.is_some()).unwrap();
    assert_eq!(set.url, "https://a.test/");
    assert_eq!(set.bounds.min.0, 2000.0);
    assert_eq!(set.bounds.max.0, 3_000_010.0);
    // The time before it (1 ms, nothing in it) is left out, as DevTools
    // leaves it out; with a layout shift in it, it is a set of its own,
    // which ends a microsecond before the navigation.
    assert!(plain.sets.iter().all(|s| s.id != SetId::NoNavigation));
    let shift = r#"{"name":"LayoutShift","ph":"I","pid":2,"tid":2,"ts":1500,"args":{"frame":"F","data":{"weighted_score_delta":0.01,"had_recent_input":false}}},"#;
    let with_shift = sets(&page(shift));
    let before = with_shift.sets.iter().find(|s| s.id == SetId::NoNavigation).unwrap();
    assert_eq!(before.bounds.max.0, 1999.0);
}

#[test]
fn a_slow_click_fails_inp_and_a_quick_one_is_informative() {
    let slow = sets(&page(&click(7, 100_000.0, 400_000.0, (110_000.0, 380_000.0))));
    let (state, finding) = inp(&slow, SetId::Navigation(0));
    assert_eq!(state, State::Fail);
    assert_eq!(finding.longest, Some(0));
    assert_eq!(finding.high_percentile, Some(0));
    let quick = sets(&page(&click(7, 100_000.0, 150_000.0, (110_000.0, 140_000.0))));
    assert_eq!(inp(&quick, SetId::Navigation(0)).0, State::Informative);
    let none = sets(&page(""));
    let (state, finding) = inp(&none, SetId::Navigation(0));
    assert_eq!((state, finding.longest), (State::Pass, None));
}

#[test]
fn the_longest_event_of_an_interaction_id_counts_once() {
    // Two events of interaction 7 (the longer counts) and one of 8.
    let events = click(7, 100_000.0, 300_000.0, (110_000.0, 280_000.0))
        + &click(7, 500_000.0, 900_000.0, (510_000.0, 880_000.0))
        + &click(8, 1_000_000.0, 1_250_000.0, (1_010_000.0, 1_240_000.0));
    let sets = sets(&page(&events));
    let (_, finding) = inp(&sets, SetId::Navigation(0));
    let data = finding.longest.unwrap();
    assert_eq!(data, 1, "the 400 ms event of interaction 7");
}
