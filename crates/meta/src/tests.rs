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
