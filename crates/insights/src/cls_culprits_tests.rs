//! Layout shift culprits on small hand-written traces.

use super::*;
use crate::{compute, InsightSets};

/// A trace of a main frame F on process 1 navigated at 0 ms, then `more`
/// events (times in µs from 1 s on).
fn trace(more: &[String]) -> String {
    let mut events = vec![
        r#"{"name":"TracingStartedInBrowser","ph":"I","pid":9,"tid":9,"ts":0,"args":{"data":{"frames":[
            {"frame":"F","url":"https://a.test/","processId":1,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}]}}}"#
            .to_owned(),
        r#"{"name":"navigationStart","ph":"R","pid":1,"tid":1,"ts":1000,"args":{"frame":"F","data":{"navigationId":"N0","documentLoaderURL":"https://a.test/","isLoadingMainFrame":true,"isOutermostMainFrame":true}}}"#
            .to_owned(),
    ];
    events.extend(more.iter().cloned());
    events.push(r#"{"name":"RunTask","ph":"X","pid":1,"tid":1,"ts":9000000,"dur":1}"#.to_owned());
    format!("[{}]", events.join(","))
}

fn shift(ts: u64, score: f64) -> String {
    format!(
        r#"{{"name":"LayoutShift","ph":"I","pid":1,"tid":1,"ts":{ts},"args":{{"frame":"F","data":{{"weighted_score_delta":{score},"had_recent_input":false,"impacted_nodes":[{{"node_id":7}}]}}}}}}"#
    )
}

fn pre_paint(ts: u64, dur: u64) -> String {
    format!(r#"{{"name":"PrePaint","ph":"X","pid":1,"tid":1,"ts":{ts},"dur":{dur},"args":{{}}}}"#)
}

fn sets(text: &str) -> InsightSets {
    let options = tracekit::AnalyzeOptions::default().with_all_handlers(true);
    let analysis = tracekit::analyze_bytes(text.as_bytes(), &options).unwrap();
    compute(&analysis).unwrap()
}

/// The insight of the navigation's set.
fn culprits(text: &str) -> (State, ClsCulprits) {
    let sets = sets(text);
    let set = sets.sets.iter().find(|s| s.navigation.is_some()).unwrap();
    let insight = set.computed().find(|i| i.ui().key == "CLSCulprits").unwrap();
    match &insight.finding {
        Finding::ClsCulprits(f) => (insight.state, f.clone()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn passes_without_shifts_and_fails_on_a_bad_cluster() {
    let (state, found) = culprits(&trace(&[]));
    assert_eq!(state, State::Pass);
    assert!(found.clusters.is_empty() && found.worst_cluster.is_none());

    let (state, found) = culprits(&trace(&[shift(1_000_000, 0.05)]));
    assert_eq!(state, State::Informative);
    assert_eq!(found.shift_count(), 1);

    // Two clusters (3 s apart): the worst is the second, bad.
    let (state, found) = culprits(&trace(&[shift(1_000_000, 0.05), shift(4_000_000, 0.3)]));
    assert_eq!(state, State::Fail);
    assert_eq!(found.clusters.len(), 2);
    assert_eq!(found.worst_cluster, Some(found.clusters[1]));
}

#[test]
fn an_unsized_image_painted_after_the_prepaint_is_a_culprit() {
    let sizeless = r#"{"name":"LayoutImageUnsized","ph":"X","pid":1,"tid":1,"ts":900000,"dur":1,"args":{"data":{"nodeId":42,"frameId":"F"}}}"#;
    let paint = |node: u32| {
        format!(
            r#"{{"name":"PaintImage","ph":"X","pid":1,"tid":1,"ts":1000200,"dur":10,"args":{{"data":{{"nodeId":{node},"url":"https://a.test/i.png"}}}}}}"#
        )
    };
    let events = |node| {
        vec![
            sizeless.to_owned(),
            pre_paint(999_900, 200),
            shift(1_000_000, 0.05),
            paint(node),
        ]
    };
    let (_, found) = culprits(&trace(&events(42)));
    let causes = &found.shifts[0].1;
    assert_eq!(causes.unsized_images.len(), 1);
    assert!(matches!(found.top_culprits[0][..], [Culprit::UnsizedImage(_)]));
    // Another node painted: no culprit.
    let (_, found) = culprits(&trace(&events(43)));
    assert!(found.shifts[0].1.unsized_images.is_empty());
    assert!(found.top_culprits[0].is_empty());
}

#[test]
fn an_animation_not_composited_is_a_culprit_only_when_it_ends_within_half_a_second() {
    let animation = |begin: u64, end: u64| {
        let common =
            r#""cat":"blink.animations,devtools.timeline","id2":{"local":"0x1"},"name":"Animation","pid":1,"tid":1"#;
        vec![
            format!(r#"{{{common},"ph":"b","ts":{begin},"args":{{"data":{{"displayName":"slide"}}}}}}"#),
            format!(
                r#"{{{common},"ph":"n","ts":{},"args":{{"data":{{"compositeFailed":8224,"unsupportedProperties":["top"]}}}}}}"#,
                begin + 1
            ),
            format!(r#"{{{common},"ph":"e","ts":{end},"args":{{}}}}"#),
        ]
    };
    let mut events = animation(800_000, 900_000);
    events.extend([pre_paint(999_900, 200), shift(1_000_000, 0.05)]);
    let (_, found) = culprits(&trace(&events));
    assert_eq!(found.animation_failures.len(), 1);
    assert_eq!(found.shifts[0].1.animations, found.animation_failures);
    assert!(matches!(found.top_culprits[0][..], [Culprit::Animation]));
    // Ended 0.6 s before the prepaint: a failure, not a culprit.
    let mut events = animation(100_000, 399_000);
    events.extend([pre_paint(999_900, 200), shift(1_000_000, 0.05)]);
    let (_, found) = culprits(&trace(&events));
    assert_eq!(found.animation_failures.len(), 1);
    assert!(found.shifts[0].1.animations.is_empty());
}

#[test]
fn the_short_set_before_the_first_navigation_is_kept_only_with_a_shift() {
    let has_no_navigation_set = |events: &[String]| {
        let sets = sets(&trace(events));
        sets.sets.iter().any(|s| s.id == crate::SetId::NoNavigation)
    };
    // The 1 ms before the navigation: left out when nothing happened.
    assert!(!has_no_navigation_set(&[]));
    assert!(has_no_navigation_set(&[shift(500, 0.01)]));
}

#[test]
fn failure_reasons_come_from_the_mask() {
    let names: Vec<&str> = FAILURE_REASONS
        .iter()
        .filter(|(bit, _)| 8224 & (1 << bit) != 0)
        .map(|(_, n)| *n)
        .collect();
    assert_eq!(
        names,
        ["TARGET_HAS_INVALID_COMPOSITING_STATE", "UNSUPPORTED_CSS_PROPERTY"]
    );
}

#[test]
fn bisection_finds_the_first_match() {
    let xs = [1, 3, 5, 7, 9];
    assert_eq!(nearest_from_beginning(xs.len(), |i| xs[i] > 4), Some(2));
    assert_eq!(nearest_from_beginning(xs.len(), |i| xs[i] > 9), None);
    assert_eq!(nearest_from_beginning(xs.len(), |i| xs[i] > 0), Some(0));
    assert_eq!(nearest_from_beginning(0, |_| true), None);
}
