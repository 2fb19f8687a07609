//! The timeline handlers on small hand-written traces.

use tracekit_events::{feed, AnalyzeOptions, Context, Handler, Micros};
use tracekit_meta::{MetaData, MetaHandler};

use crate::*;

fn context() -> Context {
    Context::new(AnalyzeOptions::default().with_all_handlers(true))
}

/// The Meta handler's data and the context it was read with.
fn meta(text: &str) -> (MetaData, Context) {
    let mut cx = context();
    let mut meta = MetaHandler::default();
    feed(text, &mut meta, &mut cx).unwrap();
    (meta.finalize((), &mut cx), cx)
}

fn layout_shifts(text: &str) -> (LayoutShifts, Context) {
    let (meta, mut cx) = meta(text);
    let mut shots = tracekit_page::ScreenshotsHandler::default();
    feed(text, &mut shots, &mut cx).unwrap();
    let shots = shots.finalize((), &mut cx);
    let mut h = LayoutShiftsHandler::default();
    feed(text, &mut h, &mut cx).unwrap();
    (h.finalize((&meta, &shots), &mut cx), cx)
}

/// A trace of a main frame F on process 1, its `navigationStart`s and
/// `LayoutShift`s at the times (ms) and scores given.
fn shifts_trace(navigations: &[f64], shifts: &[(f64, f64)], end: f64) -> String {
    let mut events = vec![
        r#"{"name":"TracingStartedInBrowser","ph":"I","pid":9,"tid":9,"ts":0,"args":{"data":{"frames":[
            {"frame":"F","url":"https://a.test/","processId":1,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}]}}}"#
            .to_owned(),
    ];
    for (i, t) in navigations.iter().enumerate() {
        events.push(format!(
            r#"{{"name":"navigationStart","ph":"R","pid":1,"tid":1,"ts":{},"args":{{"frame":"F","data":{{"navigationId":"N{i}","documentLoaderURL":"https://a.test/"}}}}}}"#,
            t * 1000.0
        ));
    }
    for (t, score) in shifts {
        events.push(format!(
            r#"{{"name":"LayoutShift","ph":"I","pid":1,"tid":1,"ts":{},"args":{{"frame":"F","data":{{"weighted_score_delta":{score},"had_recent_input":false,"impacted_nodes":[{{"node_id":7}}]}}}}}}"#,
            t * 1000.0
        ));
    }
    events.push(format!(
        r#"{{"name":"RunTask","ph":"X","pid":1,"tid":1,"ts":{},"dur":1}}"#,
        end * 1000.0
    ));
    format!("[{}]", events.join(","))
}

#[test]
fn clusters_end_at_a_gap_a_navigation_or_five_seconds() {
    let shifts = [
        (100.0, 0.05),
        (1600.0, 0.05),
        (2500.0, 0.01),
        (3100.0, 0.01),
        (4000.0, 0.01),
        (4900.0, 0.01),
        (5800.0, 0.01),
    ];
    let mut shifts = shifts.to_vec();
    shifts.extend([(6700.0, 0.01), (7600.0, 0.01), (8500.0, 0.01)]);
    // A gap of 1.5 s; a navigation at 3 s, 0.6 s after the last shift;
    // then shifts every 0.9 s for more than five seconds.
    let (data, _) = layout_shifts(&shifts_trace(&[3000.0], &shifts, 20_000.0));
    let windows: Vec<(f64, f64)> = data
        .clusters
        .iter()
        .map(|c| (c.window.min.0 / 1e3, c.window.max.0 / 1e3))
        .collect();
    // The first ends a second after its shift, the second at the
    // navigation, the third five seconds after its start, the last a
    // second after its last shift.
    assert_eq!(
        windows,
        vec![(100.0, 1100.0), (1600.0, 3000.0), (3100.0, 8100.0), (8500.0, 9500.0)]
    );
    assert_eq!(data.clusters[0].navigation, ClusterNavigation::NoNavigation);
    let n0 = data.clusters[2].navigation;
    assert!(matches!(n0, ClusterNavigation::After(Some(_))));
    assert_eq!(data.clusters[2].shifts[0].time_from_navigation, Some(Micros(100_000.0)));
    assert_eq!(data.clusters[2].shifts.len(), 6);
    assert_eq!(data.clusters[2].dur, Micros(4_500_000.0 + 1_000_000.0));
    assert_eq!(data.backend_node_ids, vec![RawKey::Num(7.0)]);
}

#[test]
fn score_windows_cut_a_cluster_and_the_worst_is_kept() {
    let (data, _) = layout_shifts(&shifts_trace(&[], &[(100.0, 0.05), (200.0, 0.1), (300.0, 0.2)], 5000.0));
    let c = &data.clusters[0];
    assert_eq!(c.shifts.len(), 3);
    let w = c.score_windows;
    assert_eq!((w.good.min.0, w.good.max.0), (100_000.0, 199_999.0));
    let ni = w.needs_improvement.unwrap();
    assert_eq!((ni.min.0, ni.max.0), (200_000.0, 299_999.0));
    let bad = w.bad.unwrap();
    assert_eq!((bad.min.0, bad.max.0), (300_000.0, 1_300_000.0));
    assert_eq!(c.worst_shift, Some(2));
    assert_eq!(c.source, c.shifts[2].event);
    assert!((data.session_max_score - 0.35).abs() < 1e-12);
    assert_eq!(data.cls_window_id, Some(1));
    let scores: Vec<Option<f64>> = data
        .score_records
        .iter()
        .map(|r| r.score.map(|s| (s * 100.0).round()))
        .collect();
    assert_eq!(
        scores,
        vec![Some(0.0), Some(5.0), Some(5.0), Some(15.0), Some(35.0), Some(0.0)]
    );
    assert!(c.shifts.iter().all(|s| s.session_window_score == c.cumulative_score));
}

#[test]
fn shifts_after_input_are_left_out_and_the_lists_sorted() {
    let text = r#"[
        {"name":"LayoutShift","ph":"I","pid":1,"tid":1,"ts":100,"args":{"data":{"weighted_score_delta":0.5,"had_recent_input":true}}},
        {"name":"PrePaint","ph":"X","pid":1,"tid":1,"ts":300,"dur":1},
        {"name":"PrePaint","ph":"X","pid":1,"tid":1,"ts":200,"dur":1},
        {"name":"PaintImage","ph":"B","pid":1,"tid":1,"ts":200},
        {"name":"LayoutInvalidationTracking","ph":"I","pid":1,"tid":1,"ts":50,"args":{"data":{"nodeId":3}}},
        {"name":"BeginRemoteFontLoad","ph":"I","pid":1,"tid":1,"ts":60,"args":{"display":"swap","url":"u.woff","id":7}},
        {"name":"RemoteFontLoaded","ph":"I","pid":1,"tid":1,"ts":70,"args":{"url":"u.woff","name":"U"}}
    ]"#;
    let (data, cx) = layout_shifts(text);
    assert!(data.clusters.is_empty());
    assert_eq!(data.pre_paint_events, vec![2, 1]);
    assert!(data.paint_image_events.is_empty());
    assert_eq!(data.backend_node_ids, vec![RawKey::Num(3.0)]);
    let font = &data.remote_fonts[0];
    assert_eq!(font.name.flatten(), cx.interner.lookup("U"));
    // Its request's id, as DevTools makes it of the process and the font's id.
    assert_eq!(cx.interner.resolve(font.request_id.text), "1.7");
}

#[test]
fn shifts_name_the_screenshots_around_them() {
    let text = r#"[
        {"name":"Screenshot","ph":"O","pid":1,"tid":1,"ts":100,"id":"0x1","args":{"snapshot":"AAA"}},
        {"name":"Screenshot","ph":"O","pid":1,"tid":1,"ts":300,"id":"0x1","args":{"snapshot":"BBB"}},
        {"name":"LayoutShift","ph":"I","pid":1,"tid":1,"ts":200,"args":{"data":{"weighted_score_delta":0.5}}},
        {"name":"LayoutShift","ph":"I","pid":1,"tid":1,"ts":400,"args":{"data":{"weighted_score_delta":0.5}}}
    ]"#;
    let (data, _) = layout_shifts(text);
    let shifts = &data.clusters[0].shifts;
    assert_eq!(shifts[0].screenshots, (Some(0), Some(1)));
    assert_eq!(shifts[1].screenshots, (Some(1), None));
    assert_eq!(data.screenshots.list[1].at, crate::stand_in::ShotAt::Legacy(1));
    assert_eq!(data.screenshots.list[1].ts, Micros(300.0));
}

fn interactions(text: &str) -> UserInteractions {
    let (meta, mut cx) = meta(text);
    let mut h = UserInteractionsHandler::default();
    feed(text, &mut h, &mut cx).unwrap();
    h.finalize(&meta, &mut cx)
}

fn timing(id: u32, kind: &str, ts: f64, end: f64, processing: (f64, f64)) -> String {
    format!(
        r#"{{"name":"EventTiming","cat":"devtools.timeline","ph":"b","pid":1,"tid":1,"id":"0x{id}","ts":{ts},"args":{{"frame":"F","data":{{"duration":{},"interactionId":{id},"type":"{kind}","timeStamp":{},"processingStart":{},"processingEnd":{}}}}}}},
        {{"name":"EventTiming","cat":"devtools.timeline","ph":"e","pid":1,"tid":1,"id":"0x{id}","ts":{end},"args":{{}}}}"#,
        (end - ts) / 1000.0,
        ts / 1000.0,
        processing.0 / 1000.0,
        processing.1 / 1000.0
    )
}

#[test]
fn interactions_are_timed_and_nested_ones_set_aside() {
    // pointerdown and click end together: the click is nested in the
    // pointerdown, whose processing widens to the click's.
    let text = format!(
        "[{},{},{}]",
        timing(1, "pointerdown", 1000.0, 301_000.0, (5000.0, 6000.0)),
        timing(2, "click", 2000.0, 301_000.0, (7000.0, 9000.0)),
        timing(3, "keydown", 400_000.0, 450_000.0, (401_000.0, 402_000.0))
    );
    let data = interactions(&text);
    assert_eq!(data.interactions.len(), 3);
    let first = &data.interactions[0];
    assert_eq!(first.dur, Micros(300_000.0));
    assert_eq!((first.processing_start.0, first.processing_end.0), (5000.0, 9000.0));
    assert_eq!(
        (
            first.input_delay.0,
            first.main_thread_handling.0,
            first.presentation_delay.0
        ),
        (4000.0, 4000.0, 292_000.0)
    );
    assert_eq!(data.without_nesting, vec![0, 2]);
    assert_eq!(data.longest, Some(0));
    assert_eq!(data.over_threshold().collect::<Vec<_>>(), vec![0, 1]);
}

#[test]
fn interactions_without_an_id_or_too_short_are_not_made() {
    let text = r#"[
        {"name":"EventTiming","ph":"b","pid":1,"tid":1,"id":"0x1","ts":10,"args":{"data":{"duration":0.5,"interactionId":4,"type":"click","timeStamp":1,"processingStart":1,"processingEnd":1}}},
        {"name":"EventTiming","ph":"e","pid":1,"tid":1,"id":"0x1","ts":20,"args":{}},
        {"name":"EventTiming","ph":"b","pid":1,"tid":1,"id":"0x2","ts":10,"args":{"data":{"duration":8,"interactionId":0,"type":"click"}}},
        {"name":"EventTiming","ph":"e","pid":1,"tid":1,"id":"0x2","ts":20,"args":{}}
    ]"#;
    assert!(interactions(text).interactions.is_empty());
}

#[test]
fn animations_pair_begins_ends_and_instants() {
    let text = r#"[
        {"name":"Animation","cat":"blink.animations,devtools.timeline","ph":"b","pid":1,"tid":1,"id":"0x1","ts":100,"args":{}},
        {"name":"Animation","cat":"blink.animations,devtools.timeline","ph":"n","pid":1,"tid":1,"id":"0x1","ts":150,"args":{}},
        {"name":"Animation","cat":"blink.animations,devtools.timeline","ph":"n","pid":1,"tid":1,"id":"0x1","ts":160,"args":{}},
        {"name":"Animation","cat":"blink.animations,devtools.timeline","ph":"e","pid":1,"tid":2,"id":"0x1","ts":400,"args":{}},
        {"name":"Animation","cat":"blink.animations,devtools.timeline","ph":"b","pid":1,"tid":1,"id2":{"local":"0x2"},"ts":50,"args":{}},
        {"name":"Animation","cat":"blink.animations,devtools.timeline","ph":"n","pid":1,"tid":1,"id2":{"local":"0x2"},"ts":60,"args":{}},
        {"name":"Animation","cat":"other","ph":"b","pid":1,"tid":1,"id":"0x3","ts":10,"args":{}}
    ]"#;
    let mut cx = context();
    let mut h = AnimationsHandler::default();
    feed(text, &mut h, &mut cx).unwrap();
    let data = h.finalize((), &mut cx);
    assert_eq!(data.animations.len(), 2);
    let (open, closed) = (&data.animations[0], &data.animations[1]);
    assert_eq!((open.begin, open.end, open.instants.clone()), (4, None, vec![5]));
    assert_eq!(open.dur, Micros(0.0));
    assert_eq!(
        (closed.begin, closed.end, closed.instants.clone()),
        (0, Some(3), vec![2, 1])
    );
    assert_eq!((closed.dur, closed.tid), (Micros(300.0), tracekit_events::Id::num(2.0)));
    assert_eq!(
        cx.interner.lookup("blink.animations,devtools.timeline:0x1:Animation"),
        Some(closed.id)
    );
}

#[test]
fn animation_frames_pair_by_rank_on_their_thread_only_when_turned_on() {
    let text = r#"[
        {"name":"AnimationFrame","ph":"b","pid":1,"tid":1,"id":"0x1","ts":100,"args":{"id":7}},
        {"name":"AnimationFrame","ph":"b","pid":1,"tid":1,"id":"0x2","ts":50,"args":{"id":8}},
        {"name":"AnimationFrame","ph":"e","pid":1,"tid":1,"id":"0x1","ts":300,"args":{}},
        {"name":"AnimationFrame","ph":"e","pid":1,"tid":1,"id":"0x2","ts":90,"args":{}},
        {"name":"AnimationFrame::Presentation","ph":"n","pid":1,"tid":1,"ts":310,"args":{"id":7}}
    ]"#;
    let mut cx = context();
    let mut off = AnimationFramesHandler::default();
    feed(text, &mut off, &mut cx).unwrap();
    assert!(off.finalize((), &mut cx).frames.is_empty());
    let mut on = AnimationFramesHandler::turned_on();
    feed(text, &mut on, &mut cx).unwrap();
    let frames = on.finalize((), &mut cx).frames;
    let got: Vec<_> = frames
        .iter()
        .map(|f| (f.begin, f.end, f.dur.0, f.presentation))
        .collect();
    assert_eq!(got, vec![(1, 3, 40.0, None), (0, 2, 200.0, Some(4))]);
}

#[test]
fn interactions_take_the_navigation_of_their_frame_when_it_has_a_process() {
    let nav = |ts: u32, frame: &str, id: &str, url: &str| {
        format!(
            r#"{{"name":"navigationStart","ph":"R","pid":1,"tid":1,"ts":{ts},"args":{{"frame":"{frame}","data":{{"navigationId":"{id}","documentLoaderURL":"{url}"}}}}}}"#
        )
    };
    let at = |frame: &str, ts: f64| {
        timing(1, "click", ts, ts + 5000.0, (ts + 1000.0, ts + 2000.0)).replace("\"F\"", &format!("\"{frame}\""))
    };
    let text = format!(
        r#"[{{"name":"TracingStartedInBrowser","ph":"I","pid":9,"tid":9,"ts":0,"args":{{"data":{{"frames":[
            {{"frame":"F","url":"https://a.test/","processId":1,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}}]}}}}}},
            {},{},{},{},{},{},{}]"#,
        nav(10_000, "F", "A", "https://a.test/"),
        nav(20_000, "F", "A", "https://a.test/"),
        nav(30_000, "F", "B", ""),
        nav(40_000, "G", "C", "https://g.test/"),
        at("F", 35_000.0),
        at("G", 45_000.0),
        at("F", 5_000.0),
    );
    let data = interactions(&text);
    let ids: Vec<bool> = data.interactions.iter().map(|x| x.navigation_id.is_some()).collect();
    // By time: F before any navigation, F after A (B has no URL), G (no
    // renderer process: its navigations are dropped).
    assert_eq!(ids, vec![false, true, false]);
}

#[test]
fn commits_and_viewport_tags_keep_their_frame_and_mobile_flag() {
    let text = r#"[
        {"name":"BeginCommitCompositorFrame","ph":"I","pid":1,"tid":1,"ts":10,"args":{"frame":"F","is_mobile_optimized":true}},
        {"name":"BeginCommitCompositorFrame","ph":"X","dur":3,"pid":1,"tid":1,"ts":20,"args":{"frame":7,"is_mobile_optimized":0}},
        {"name":"ParseMetaViewport","ph":"I","pid":1,"tid":1,"ts":5,"args":{"data":{"frame":"F"}}}
    ]"#;
    let data = interactions(text);
    let commits = &data.begin_commit_compositor_frame_events;
    assert_eq!(commits.len(), 2);
    assert!(commits[0].frame.is_some() && commits[0].is_mobile_optimized);
    assert_eq!(commits[0].dur, Micros(0.0));
    assert!(commits[1].frame.is_none() && !commits[1].is_mobile_optimized);
    assert_eq!(commits[1].dur, Micros(3.0));
    let tags = &data.parse_meta_viewport_events;
    assert_eq!((tags.len(), tags[0].frame), (1, commits[0].frame));
}
