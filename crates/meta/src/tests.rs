//! The Meta handler on small hand-written traces: bounds, threads,
//! frames, the main frame and generic traces.

use tracekit_events::feed;

use super::*;

fn run(text: &str) -> (MetaData, Interner) {
    let mut cx = Context::default();
    let mut meta = MetaHandler::default();
    feed(text, &mut meta, &mut cx).unwrap();
    (meta.finalize((), &mut cx), cx.interner)
}

#[test]
fn finds_bounds_frames_and_main_frame() {
    let (meta, interner) = run(r#"[
        {"name":"thread_name","ph":"M","pid":2,"tid":3,"ts":0,"args":{"name":"CrRendererMain"}},
        {"name":"thread_name","ph":"M","pid":9,"tid":9,"ts":0,"args":{"name":"CrGpuMain"}},
        {"name":"TracingStartedInBrowser","ph":"I","pid":1,"tid":1,"ts":100,"args":{"data":{"frames":[
            {"frame":"F1","url":"https://a.test/","processId":2,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true},
            {"frame":"F2","url":"https://b.test/","processId":3,"parent":"F1","isOutermostMainFrame":false,"isInPrimaryMainFrame":false}]}}},
        {"name":"RunTask","ph":"X","pid":2,"tid":3,"ts":50,"dur":500},
        {"name":"Big::UMA","ph":"X","pid":2,"tid":3,"ts":60,"dur":5000},
        {"name":"FrameCommittedInBrowser","ph":"I","pid":1,"tid":1,"ts":700,"args":{"data":{"frame":"F1","url":"https://c.test/","processId":4}}}
    ]"#);
    assert_eq!(
        meta.bounds,
        Bounds {
            min: Micros(100.0),
            max: Micros(700.0)
        }
    );
    assert_eq!(meta.main_frame_id.map(|s| interner.resolve(s)), Some("F1"));
    assert!(!meta.trace_is_generic);
    let f1 = &meta.renderer_processes_by_frame[&interner.lookup("F1")];
    assert_eq!(f1.len(), 2);
    assert_eq!(f1[&Id::num(2.0)][0].max, Micros(699.0));
    assert_eq!(f1[&Id::num(4.0)][0].max, Micros(700.0));
    assert_eq!(meta.top_level_renderer_ids, vec![Id::num(2.0), Id::num(4.0)]);
    let renderer_threads = &meta.threads_in_process[&Id::num(2.0)];
    assert_eq!(
        renderer_threads[&Id::num(3.0)].map(|s| interner.resolve(s)),
        Some("CrRendererMain")
    );
    // DevTools does not record the GPU main thread's name.
    assert!(!meta.threads_in_process.contains_key(&Id::num(9.0)));
}

#[test]
fn a_trace_without_frame_data_is_loaded_as_generic() {
    let (meta, _) = run(r#"[{"name":"TracingStartedInBrowser","ph":"I","pid":1,"tid":1,"ts":5,"args":{}}]"#);
    assert!(meta.devtools_refuses);
    assert!(meta.trace_is_generic);
}

#[test]
fn a_trace_of_another_program_is_generic() {
    let (meta, _) =
        run(r#"[{"name":"work","ph":"B","pid":1,"tid":1,"ts":5},{"name":"work","ph":"E","pid":1,"tid":1,"ts":9}]"#);
    assert!(meta.trace_is_generic);
    assert_eq!(
        meta.bounds,
        Bounds {
            min: Micros(5.0),
            max: Micros(9.0)
        }
    );
}

#[test]
fn auction_worklets_need_both_threads_and_a_running_event() {
    let text = r#"[
        {"name":"thread_name","ph":"M","pid":7,"tid":1,"ts":0,"args":{"name":"auction_worklet.CrUtilityMain"}},
        {"name":"thread_name","ph":"M","pid":7,"tid":2,"ts":0,"args":{"name":"AuctionV8HelperThread"}},
        {"name":"thread_name","ph":"M","pid":8,"tid":1,"ts":0,"args":{"name":"auction_worklet.CrUtilityMain"}},
        {"name":"AuctionWorkletRunningInProcess","ph":"I","pid":1,"tid":1,"ts":5,"args":{"data":{"pid":7,"host":"https://ads.test"}}},
        {"name":"AuctionWorkletRunningInProcess","ph":"I","pid":1,"tid":1,"ts":6,"args":{"data":{"pid":8,"host":"https://x.test"}}},
        {"name":"AuctionWorkletDoneWithProcess","ph":"I","pid":1,"tid":1,"ts":7,"args":5}
    ]"#;
    // Only DevTools 2026-06 had the handler.
    let june = tracekit_events::AnalyzeOptions::default().with_devtools(tracekit_events::DevTools::V2026_06);
    let mut cx = Context::new(june);
    let mut worklets = AuctionWorkletsHandler::default();
    feed(text, &mut worklets, &mut cx).unwrap();
    let data = worklets.finalize((), &mut cx);
    let hosts: Vec<(Id, Option<&str>)> = data
        .hosts
        .iter()
        .map(|(pid, host)| (*pid, host.map(|h| cx.interner.resolve(h))))
        .collect();
    assert_eq!(hosts, [(Id::num(7.0), Some("https://ads.test"))]);
    assert_eq!(
        cx.diagnostics.skipped[&tracekit_events::Skip::MetaUnreadableWorklet].count,
        1
    );
    // Today's finds no worklet, and counts no unreadable worklet event.
    let mut cx = Context::default();
    let mut worklets = AuctionWorkletsHandler::default();
    feed(text, &mut worklets, &mut cx).unwrap();
    assert!(worklets.finalize((), &mut cx).hosts.is_empty());
    assert!(cx.diagnostics.skipped.is_empty());
}

#[test]
fn unreadable_frame_args_are_counted() {
    let text = r#"[{"name":"FrameCommittedInBrowser","ph":"I","pid":1,"tid":1,"ts":5,"args":{"data":7}}]"#;
    let mut cx = Context::default();
    let mut meta = MetaHandler::default();
    feed(text, &mut meta, &mut cx).unwrap();
    meta.finalize((), &mut cx);
    assert_eq!(
        cx.diagnostics.skipped[&tracekit_events::Skip::MetaUnreadableFrameCommitted].count,
        1
    );
}

/// Name metadata the DevTools engine throws on (no `args`; a thread name
/// that is not a string) names nothing, and is a documented divergence.
#[test]
fn name_metadata_devtools_cannot_read_names_nothing_and_diverges() {
    let diverges = |text: &str| {
        let mut cx = Context::default();
        let mut meta = MetaHandler::default();
        feed(text, &mut meta, &mut cx).unwrap();
        let data = meta.finalize((), &mut cx);
        let names: Vec<Option<String>> = data
            .threads_in_process
            .values()
            .flat_map(|t| t.values())
            .map(|n| n.map(|s| cx.interner.resolve(s).to_owned()))
            .collect();
        let diverged = cx
            .diagnostics
            .divergences
            .contains_key(&tracekit_events::Divergence::UnreadableNameMetadata);
        (names, diverged)
    };
    let thread = |args: &str| format!(r#"[{{"name":"thread_name","ph":"M","pid":1,"tid":2,"ts":0{args}}}]"#);
    assert_eq!(diverges(&thread("")), (vec![None], true));
    assert_eq!(diverges(&thread(r#","args":null"#)), (vec![None], true));
    assert_eq!(diverges(&thread(r#","args":{"name":7}"#)), (vec![None], true));
    assert_eq!(diverges(&thread(r#","args":{"name":{}}"#)), (vec![None], true));
    assert!(diverges(&thread(r#","args":{"name":"a","name":true}"#)).1);
    // What DevTools reads: a string, null, no name, args of another type.
    assert_eq!(
        diverges(&thread(r#","args":{"name":"a"}"#)),
        (vec![Some("a".to_owned())], false)
    );
    assert_eq!(diverges(&thread(r#","args":{"name":null}"#)), (vec![None], false));
    assert_eq!(diverges(&thread(r#","args":{}"#)), (vec![None], false));
    assert_eq!(diverges(&thread(r#","args":"s""#)), (vec![None], false));
    // A process name: only absent args.
    let process = |args: &str| format!(r#"[{{"name":"process_name","ph":"M","pid":1,"tid":2,"ts":0{args}}}]"#);
    assert_eq!(diverges(&process("")), (vec![], true));
    assert_eq!(diverges(&process(r#","args":{"name":7}"#)), (vec![], false));
}

fn run_all(text: &str) -> (MetaData, Context) {
    let mut cx = Context::new(tracekit_events::AnalyzeOptions::default().with_all_handlers(true));
    let mut meta = MetaHandler::default();
    feed(text, &mut meta, &mut cx).unwrap();
    (meta.finalize((), &mut cx), cx)
}

const NAVIGATIONS: &str = r#"[
    {"name":"TracingStartedInBrowser","ph":"I","pid":1,"tid":1,"ts":1000,"args":{"data":{"frames":[
        {"frame":"F1","url":"about:blank","processId":2,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}]}}},
    {"name":"navigationStart","ph":"R","pid":2,"tid":3,"ts":2000,"args":{"frame":"F1","data":{"navigationId":"N1","documentLoaderURL":"https://a.test/","isOutermostMainFrame":true}}},
    {"name":"navigationStart","ph":"R","pid":2,"tid":3,"ts":2001,"args":{"frame":"F1","data":{"navigationId":"N1","documentLoaderURL":"https://a.test/","isOutermostMainFrame":true}}},
    {"name":"navigationStart","ph":"R","pid":2,"tid":3,"ts":2002,"args":{"frame":"F1","data":{"navigationId":"N0","documentLoaderURL":""}}},
    {"name":"navigationStart","ph":"R","pid":5,"tid":3,"ts":2100,"args":{"frame":"F9","data":{"navigationId":"N9","documentLoaderURL":"https://nine.test/"}}},
    {"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":2200,"args":{"data":{"requestId":"N1","resourceType":"Document","url":"https://b.test/"}}},
    {"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":2300,"args":{"data":{"requestId":"N1","resourceType":"Script","url":"https://b.test/s.js"}}},
    {"name":"RenderFrameHostImpl::DidCommitSameDocumentNavigation","ph":"X","pid":1,"tid":1,"ts":500,"dur":1,"args":{"url":"https://before.test/","render_frame_host":{"frame_type":"PRIMARY_MAIN_FRAME"}}},
    {"name":"RenderFrameHostImpl::DidCommitSameDocumentNavigation","ph":"X","pid":1,"tid":1,"ts":3000,"dur":1,"args":{"url":"https://b.test/one","render_frame_host":{"frame_type":"PRIMARY_MAIN_FRAME"}}},
    {"name":"RenderFrameHostImpl::DidCommitSameDocumentNavigation","ph":"X","pid":1,"tid":1,"ts":3500,"dur":1,"args":{"url":"https://ad.test/","render_frame_host":{"frame_type":"SUBFRAME"}}},
    {"name":"SoftNavigationStart","ph":"I","pid":2,"tid":3,"ts":4000,"args":{"context":{"performanceTimelineNavigationId":7}}},
    {"name":"RenderFrameHostImpl::DidCommitSameDocumentNavigation","ph":"X","pid":1,"tid":1,"ts":5000,"dur":1,"args":{"url":"https://b.test/soft","render_frame_host":{"frame_type":"PRIMARY_MAIN_FRAME"}}}
]"#;

#[test]
fn navigations_of_known_frames_by_frame_and_id_with_their_final_urls() {
    let (meta, cx) = run_all(NAVIGATIONS);
    let s = |sym: Option<Sym>| sym.map(|s| cx.interner.resolve(s).to_owned());
    let nav = &meta.navigations;
    // The duplicate id and the empty URL are not navigations; F9 is no
    // known frame.
    let events = |list: &[Navigation]| list.iter().map(|n| n.event).collect::<Vec<_>>();
    assert_eq!(events(&nav.main_frame), [1]);
    assert_eq!(nav.by_frame_id.len(), 1);
    assert_eq!(events(&nav.by_frame_id[&cx.interner.lookup("F1")]), [1]);
    assert_eq!(
        nav.by_navigation_id.keys().map(|k| s(*k)).collect::<Vec<_>>(),
        [Some("N1".to_owned())]
    );
    assert_eq!(nav.soft_by_id[&Id::num(7.0)].event, 10);
    // Soon after the start, the first main-frame navigation names the page.
    assert_eq!(s(meta.main_frame_url).as_deref(), Some("https://a.test/"));
    let finals: Vec<(Option<String>, Option<String>)> =
        nav.final_display_url.iter().map(|(k, v)| (s(*k), s(*v))).collect();
    assert_eq!(
        finals,
        [
            // Redirected, then changed by the history API before the soft
            // navigation (not after it, nor in a subframe).
            (Some("N1".to_owned()), Some("https://b.test/one".to_owned())),
            // F9's navigation keeps its URL here.
            (Some("N9".to_owned()), Some("https://nine.test/".to_owned())),
            // The time before the first navigation.
            (Some(String::new()), Some("https://before.test/".to_owned())),
        ]
    );
}

#[test]
fn without_all_handlers_navigations_are_kept_but_not_final_urls_nor_frame_objects() {
    let mut cx = Context::default();
    let mut meta = MetaHandler::default();
    feed(NAVIGATIONS, &mut meta, &mut cx).unwrap();
    let meta = meta.finalize((), &mut cx);
    assert_eq!(meta.navigations.main_frame.len(), 1);
    assert_eq!(cx.interner.resolve(meta.main_frame_url.unwrap()), "https://a.test/");
    assert!(meta.navigations.final_display_url.is_empty());
    assert!(meta.frame_by_process_id[&Id::num(2.0)][&cx.interner.lookup("F1")]
        .object
        .is_none());
}

#[test]
fn a_late_navigation_does_not_rename_the_page() {
    let text = NAVIGATIONS.replace(r#""ts":2000,"#, r#""ts":600000,"#);
    let (meta, cx) = run_all(&text);
    assert_eq!(cx.interner.resolve(meta.main_frame_url.unwrap()), "about:blank");
}

#[test]
fn the_first_viewport_and_name_events_are_kept() {
    let (meta, cx) = run_all(
        r#"[
        {"name":"process_name","ph":"M","pid":1,"tid":0,"ts":0,"args":{"name":"Browser"}},
        {"name":"process_name","ph":"M","pid":2,"tid":0,"ts":0,"args":{}},
        {"name":"thread_name","ph":"M","pid":2,"tid":3,"ts":0,"args":{"name":"CrRendererMain"}},
        {"name":"thread_name","ph":"M","pid":2,"tid":4,"ts":0,"args":{"name":"CrGpuMain"}},
        {"name":"PaintTimingVisualizer::Viewport","ph":"I","pid":2,"tid":3,"ts":10,"args":{"data":{"viewport_rect":[0,1,800,0,0,600,0,0],"dpr":2}}},
        {"name":"PaintTimingVisualizer::Viewport","ph":"I","pid":2,"tid":3,"ts":20,"args":{"data":{"viewport_rect":[0,0,1,0,0,1,0,0],"dpr":3}}}
    ]"#,
    );
    assert_eq!(
        meta.viewport_rect,
        Some(ViewportRect {
            x: 0.0,
            y: 1.0,
            width: 800.0,
            height: 600.0
        })
    );
    assert_eq!(meta.device_pixel_ratio, Some(2.0));
    assert_eq!(meta.process_name_events.values().copied().collect::<Vec<_>>(), [0, 1]);
    assert!(!meta.process_names.contains_key(&Id::num(2.0)));
    assert_eq!(meta.thread_name_events[&Id::num(2.0)].len(), 1);
    assert!(cx.diagnostics.skipped.is_empty());
    let (meta, cx) = run_all(
        r#"[{"name":"PaintTimingVisualizer::Viewport","ph":"I","pid":2,"tid":3,"ts":10,"args":{"data":{"viewport_rect":[0,1]}}}]"#,
    );
    assert!(meta.viewport_rect.is_none());
    assert_eq!(cx.diagnostics.skipped[&Skip::MetaUnreadableViewport].count, 1);
}

#[test]
fn the_dump_has_devtools_shape_and_defaults() {
    let (meta, cx) = run_all(
        r#"[
        {"name":"RunTask","ph":"X","pid":2,"tid":3,"ts":10,"dur":5},
        {"name":"CommitLoad","ph":"X","pid":2,"tid":3,"ts":12,"dur":1,"args":{"data":{"frame":"F","url":"https://a.test/","page":1}}}
    ]"#,
    );
    let strings = cx.interner.into_strings();
    let mut dump = tracekit_events::dump::Dump::new(&strings);
    let value = meta.dump(&mut dump);
    dump.handler("Meta", value);
    let mut out = String::new();
    dump.write(&mut out);
    let frame = r#"{"frame":"F","name":null,"processId":2,"url":"https://a.test/"}"#;
    let expected = [
        r#"{"handlers":{"Meta":{"browserProcessId":-1,"browserThreadId":-1,"devicePixelRatio":null,"#,
        r#""finalDisplayUrlByNavigationId":{"$map":[]},"#,
        &format!(r#""frameByProcessId":{{"$map":[[2,{{"$map":[["F",{frame}]]}}]]}},"#),
        r#""gpuProcessId":-1,"gpuThreadId":null,"mainFrameId":"","mainFrameNavigations":[],"mainFrameURL":"","#,
        r#""navigationsByFrameId":{"$map":[]},"navigationsByNavigationId":{"$map":[]},"processNames":{"$map":[]},"#,
        &format!(
            r#""rendererProcessesByFrame":{{"$map":[["F",{{"$map":[[2,[{{"frame":{frame},"window":{{"max":15,"min":12,"range":3}}}}]]]}}]]}},"#
        ),
        r#""softNavigationsById":{"$map":[]},"threadsInProcess":{"$map":[]},"topLevelRendererIds":{"$set":[]},"#,
        r#""traceBounds":{"max":15,"min":10,"range":5},"traceIsGeneric":true,"viewportRect":null}},"#,
        r#""insights":[],"synthetic":{}}"#,
    ]
    .concat();
    assert_eq!(out, expected);
}
