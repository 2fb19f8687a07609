//! Small traces for the insights' unit tests: a page with one navigation
//! of its main frame, around the events a test adds.

use crate::{compute, InsightSet, InsightSets};

/// The index of the first event a test adds to [`trace`].
pub const FIRST_ADDED: u32 = 4;

/// A trace of a page (main frame `F1`) at `https://a.test/` navigated at 2 ms (process 2,
/// main thread 3) and lasting until 10 s, with `events` (JSON objects,
/// comma-separated) added before its last task.
pub fn trace(events: &str) -> String {
    let sep = if events.trim().is_empty() { "" } else { "," };
    format!(
        r#"[
    {{"name":"TracingStartedInBrowser","ph":"I","pid":1,"tid":1,"ts":1000,"cat":"disabled-by-default-devtools.timeline","args":{{"data":{{"frameTreeNodeId":1,"persistentIds":true,"frames":[
        {{"frame":"F1","url":"about:blank","name":"","processId":2,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}}]}}}}}},
    {{"name":"thread_name","ph":"M","pid":2,"tid":3,"ts":0,"cat":"__metadata","args":{{"name":"CrRendererMain"}}}},
    {{"name":"process_name","ph":"M","pid":2,"tid":0,"ts":0,"cat":"__metadata","args":{{"name":"Renderer"}}}},
    {{"name":"navigationStart","ph":"R","pid":2,"tid":3,"ts":2000,"cat":"blink.user_timing","args":{{"frame":"F1","data":{{"navigationId":"N1","documentLoaderURL":"https://a.test/","isLoadingMainFrame":true,"isOutermostMainFrame":true}}}}}},
    {events}{sep}
    {{"name":"RunTask","ph":"X","pid":2,"tid":3,"ts":9999000,"dur":1000,"cat":"disabled-by-default-devtools.timeline","args":{{}}}}
]"#
    )
}

/// The insight sets of a trace.
pub fn sets(text: &str) -> InsightSets {
    let options = tracekit::AnalyzeOptions::default().with_all_handlers(true);
    let analysis = tracekit::analyze_bytes(text.as_bytes(), &options).expect("the trace loads");
    compute(&analysis).expect("insights")
}

/// The set of the navigation in [`trace`].
pub fn navigation_set(sets: &InsightSets) -> &InsightSet {
    sets.sets
        .iter()
        .find(|s| s.navigation.is_some())
        .expect("a navigation's set")
}
