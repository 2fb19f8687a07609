//! The PageLoadMetrics handler on small hand-written traces.

use tracekit_events::{feed, AnalyzeOptions, Interner, Strings};
use tracekit_meta::MetaHandler;

use super::*;

fn context() -> Context {
    Context::new(AnalyzeOptions::default().with_all_handlers(true))
}

fn run(text: &str) -> (PageLoadMetrics, Interner) {
    let mut cx = context();
    let mut meta = MetaHandler::default();
    feed(text, &mut meta, &mut cx).unwrap();
    let meta = meta.finalize((), &mut cx);
    let mut metrics = PageLoadMetricsHandler::default();
    feed(text, &mut metrics, &mut cx).unwrap();
    (metrics.finalize(&meta, &mut cx), cx.interner)
}

const START: &str = r#"{"name":"TracingStartedInBrowser","ph":"I","pid":1,"tid":1,"ts":0,"args":{"data":{"frames":[
    {"frame":"F1","url":"https://a.test/","processId":2,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}]}}}"#;

fn scores<'a>(
    data: &'a PageLoadMetrics,
    strings: &Strings,
    navigation: EventIndex,
) -> &'a Map<MetricName, MetricScore> {
    &data.metric_scores_by_frame[&strings.lookup("F1")][&navigation]
}

#[test]
fn scores_the_metrics_of_a_navigation() {
    let trace = format!(
        r#"[{START},
        {{"name":"navigationStart","ph":"R","pid":2,"tid":3,"ts":1000,"args":{{"frame":"F1","data":{{"navigationId":"N1","documentLoaderURL":"https://a.test/"}}}}}},
        {{"name":"navigationStart","ph":"R","pid":5,"tid":3,"ts":1000,"args":{{"frame":"F9","data":{{"navigationId":"N9","documentLoaderURL":"https://b.test/"}}}}}},
        {{"name":"firstPaint","ph":"R","pid":2,"tid":3,"ts":1901000,"args":{{"frame":"F1","data":{{"navigationId":"N1"}}}}}},
        {{"name":"firstContentfulPaint","ph":"R","pid":2,"tid":3,"ts":1901000,"args":{{"frame":"F1","data":{{"navigationId":"N1"}}}}}},
        {{"name":"firstContentfulPaint","ph":"R","pid":7,"tid":3,"ts":1000,"args":{{"frame":"F1","data":{{"navigationId":"N1"}}}}}},
        {{"name":"largestContentfulPaint::Candidate","ph":"R","pid":2,"tid":3,"ts":2000000,"args":{{"frame":"F1","data":{{"navigationId":"N1","candidateIndex":2,"nodeId":7}}}}}},
        {{"name":"largestContentfulPaint::Candidate","ph":"R","pid":2,"tid":3,"ts":2500000,"args":{{"frame":"F1","data":{{"navigationId":"N1","candidateIndex":1}}}}}},
        {{"name":"MarkDOMContent","ph":"R","pid":2,"tid":3,"ts":500000,"args":{{"data":{{"frame":"F1"}}}}}},
        {{"name":"MarkLoad","ph":"R","pid":2,"tid":3,"ts":600000,"args":{{"data":{{"frame":"F1"}}}}}},
        {{"name":"InteractiveTime","ph":"I","pid":2,"tid":3,"ts":8000000,"args":{{"frame":"F1","args":{{"total_blocking_time_ms":300}}}}}}
    ]"#
    );
    let (data, interner) = run(&trace);
    let metrics = scores(&data, &interner, 1);
    let class = |m: MetricName| (metrics[&m].classification, metrics[&m].timing);
    assert_eq!(
        class(MetricName::FirstContentfulPaint),
        (ScoreClassification::Ok, Micros(1_900_000.0))
    );
    assert_eq!(class(MetricName::FirstPaint).0, ScoreClassification::Unclassified);
    // The second candidate has a lower index: the first stays the LCP.
    assert_eq!(
        metrics[&MetricName::LargestContentfulPaint].event,
        PageLoadEvent::Input(6)
    );
    assert_eq!(class(MetricName::LargestContentfulPaint).0, ScoreClassification::Good);
    assert_eq!(class(MetricName::TimeToInteractive).0, ScoreClassification::Bad);
    assert_eq!(
        class(MetricName::TotalBlockingTime),
        (ScoreClassification::Ok, Micros(300_000.0))
    );
    assert_eq!(class(MetricName::DomContentLoaded).1, Micros(499_000.0));
    // The FCP of a process that did not render the frame counts for nothing.
    assert_eq!(
        metrics[&MetricName::FirstContentfulPaint].event,
        PageLoadEvent::Input(4)
    );
    // The navigation of a frame no process rendered is dropped.
    assert!(!data.navigations.by_id.contains_key(&interner.lookup("N9")));
    assert_eq!(data.lcp_candidates[&6].node_id, Id::num(7.0));
    // Markers need no renderer process: the other process's FCP is one.
    let markers: Vec<PageLoadEvent> = [1, 5, 8, 9, 3, 4, 6].into_iter().map(PageLoadEvent::Input).collect();
    assert_eq!(data.all_marker_events, markers);
}

#[test]
fn a_soft_navigation_reports_its_first_contentful_paint() {
    let trace = format!(
        r#"[{START},
        {{"name":"SoftNavigationStart","ph":"R","cat":"c","pid":2,"tid":3,"ts":1000,"args":{{"frame":"F1","context":{{"performanceTimelineNavigationId":3,"firstContentfulPaint":1500}}}}}},
        {{"name":"largestContentfulPaint::CandidateForSoftNavigation","ph":"R","pid":2,"tid":3,"ts":1600,"args":{{"frame":"F1","data":{{"performanceTimelineNavigationId":3,"candidateIndex":1}}}}}},
        {{"name":"firstContentfulPaint","ph":"R","pid":2,"tid":3,"ts":1700,"args":{{"frame":"F1","data":{{}}}}}}
    ]"#
    );
    let mut cx = context();
    let mut meta = MetaHandler::default();
    feed(&trace, &mut meta, &mut cx).unwrap();
    let meta = meta.finalize((), &mut cx);
    let mut handler = PageLoadMetricsHandler::default();
    feed(&trace, &mut handler, &mut cx).unwrap();
    let data = handler.finalize(&meta, &mut cx);
    // The FCP without a navigation id is what DevTools throws on.
    assert_eq!(
        cx.diagnostics
            .skipped
            .get(&Skip::MetricsUnplaceableEvent)
            .map(|r| r.count),
        Some(1)
    );
    let metrics = scores(&data, &cx.interner, 1);
    let fcp = metrics[&MetricName::FirstContentfulPaint];
    assert_eq!(fcp.event, PageLoadEvent::SoftFirstContentfulPaint(0));
    assert_eq!(fcp.timing, Micros(500.0));
    assert_eq!(metrics[&MetricName::LargestContentfulPaint].timing, Micros(600.0));
    let soft = PageLoadEvent::SoftFirstContentfulPaint(0);
    assert_eq!(
        data.all_marker_events,
        [PageLoadEvent::Input(1), soft, PageLoadEvent::Input(2)]
    );
    let strings = cx.interner.into_strings();
    let mut dump = Dump::new(&strings);
    let value = data.dump(&mut dump);
    dump.handler("PageLoadMetrics", value);
    let mut out = String::new();
    dump.write(&mut out);
    assert!(out.contains(r#""SyntheticSoftFirstContentfulPaint:2:3:1500:#1":{"args":{"context":{"firstContentfulPaint":1500,"performanceTimelineNavigationId":3},"frame":"F1"},"cat":"c""#), "{out}");
}

#[test]
fn charset_checks_go_to_the_navigation_of_their_frame() {
    let trace = format!(
        r#"[{START},
        {{"name":"navigationStart","ph":"R","pid":2,"tid":3,"ts":1000,"args":{{"frame":"F1","data":{{"navigationId":"N1","documentLoaderURL":"u"}}}}}},
        {{"name":"MetaCharsetCheck","ph":"X","pid":2,"tid":3,"ts":900,"dur":1,"args":{{"data":{{"frame":"F1"}}}}}},
        {{"name":"MetaCharsetCheck","ph":"X","pid":2,"tid":3,"ts":1100,"dur":1,"args":{{"data":{{"frame":"F1","disposition":"not-found"}}}}}},
        {{"name":"navigationStart","ph":"R","pid":2,"tid":3,"ts":2000,"args":{{"frame":"F1","data":{{"navigationId":"N2","documentLoaderURL":""}}}}}}
    ]"#
    );
    let (data, _) = run(&trace);
    assert_eq!(data.meta_charset_checks_by_navigation.len(), 1);
    assert_eq!(data.meta_charset_checks_by_navigation[&1], [3]);
    // The disposition is kept for the checks of a navigation.
    assert_eq!(data.meta_charset_dispositions.len(), 1);
    assert!(data.meta_charset_dispositions.contains_key(&3));
    // The navigation with an empty URL is not one.
    assert_eq!(data.navigations.by_id.len(), 1);
}
