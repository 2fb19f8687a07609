//! The frame model and the layer tree on small hand-written traces, whose
//! expected data DevTools' own engine gave (the oracle's dump of each).

use tracekit_events::dump::Dump;
use tracekit_events::{feed, AnalyzeOptions, Context, Handler, Id, Interner, Micros};
use tracekit_meta::{MetaData, MetaHandler};
use tracekit_renderer::{NodeKind, ProcessTracks, RendererData, ThreadTrack, TrackNode};

use crate::{ArgValue, Frames, FramesHandler, LayerPaint, LayerTree, LayerTreeHandler};

/// A page whose main thread (pid 2, tid 3) begins and commits a frame
/// with a paint of layer 5 (recorded by a snapshot), whose compositor
/// (tid 4) then draws it, drops a partial frame (its `DroppedFrame` comes
/// before its `BeginFrame` in the input, though after it in time), and
/// goes idle.
const PAGE: &str = r#"{"traceEvents":[
{"name":"TracingStartedInBrowser","ph":"I","ts":1000,"pid":1,"tid":1,"cat":"disabled-by-default-devtools.timeline","s":"t","args":{"data":{"frameTreeNodeId":1,"persistentIds":true,"frames":[{"frame":"F1","url":"https://a.test/","name":"","processId":2}]}}},
{"name":"thread_name","ph":"M","pid":2,"tid":3,"ts":0,"cat":"__metadata","args":{"name":"CrRendererMain"}},
{"name":"thread_name","ph":"M","pid":2,"tid":4,"ts":0,"cat":"__metadata","args":{"name":"Compositor"}},
{"name":"SetLayerTreeId","ph":"I","ts":1001,"pid":2,"tid":3,"cat":"disabled-by-default-devtools.timeline","s":"t","args":{"data":{"frame":"F1","layerTreeId":7}}},
{"name":"UpdateLayer","ph":"X","ts":1002,"dur":1,"pid":2,"tid":3,"cat":"disabled-by-default-devtools.timeline","args":{"layerTreeId":7,"layerId":5}},
{"name":"BeginFrame","ph":"I","ts":1005,"pid":2,"tid":4,"cat":"disabled-by-default-devtools.timeline.frame","s":"t","args":{"layerTreeId":7,"frameSeqId":1}},
{"name":"RunTask","ph":"X","ts":1010,"dur":50,"pid":2,"tid":3,"cat":"disabled-by-default-devtools.timeline,toplevel","args":{}},
{"name":"BeginMainThreadFrame","ph":"X","ts":1012,"dur":2,"pid":2,"tid":3,"cat":"disabled-by-default-devtools.timeline.frame","args":{"layerTreeId":7,"data":{"frameId":42}}},
{"name":"Paint","ph":"X","ts":1020,"dur":5,"pid":2,"tid":3,"cat":"devtools.timeline","args":{"data":{"frame":"F1","layerId":5}}},
{"name":"Paint","ph":"X","ts":1021,"dur":1,"pid":2,"tid":3,"cat":"devtools.timeline","args":{"data":{"frame":"F1","layerId":0}}},
{"name":"cc::DisplayItemList","ph":"O","ts":1026,"id":"0x1","pid":2,"tid":3,"cat":"disabled-by-default-devtools.timeline.picture","args":{"snapshot":{"skp64":"AAAA","params":{"layer_rect":[0,0,10,10]}}}},
{"name":"Commit","ph":"X","ts":1030,"dur":3,"pid":2,"tid":3,"cat":"disabled-by-default-devtools.timeline","args":{"frameSeqId":1,"layerTreeId":7}},
{"name":"cc::LayerTreeHostImpl","ph":"O","ts":1035,"id":"0x7","pid":2,"tid":4,"cat":"disabled-by-default-devtools.timeline","args":{"snapshot":{}}},
{"name":"ActivateLayerTree","ph":"I","ts":1040,"pid":2,"tid":4,"cat":"disabled-by-default-devtools.timeline.frame","s":"t","args":{"layerTreeId":7,"frameId":1}},
{"name":"DrawFrame","ph":"I","ts":1045,"pid":2,"tid":4,"cat":"disabled-by-default-devtools.timeline.frame","s":"t","args":{"layerTreeId":7,"frameSeqId":1}},
{"name":"DroppedFrame","ph":"I","ts":1055,"pid":2,"tid":4,"cat":"disabled-by-default-devtools.timeline.frame","s":"t","args":{"layerTreeId":7,"frameSeqId":2,"hasPartialUpdate":true}},
{"name":"BeginFrame","ph":"I","ts":1050,"pid":2,"tid":4,"cat":"disabled-by-default-devtools.timeline.frame","s":"t","args":{"layerTreeId":7,"frameSeqId":2}},
{"name":"BeginFrame","ph":"I","ts":1066,"pid":2,"tid":4,"cat":"disabled-by-default-devtools.timeline.frame","s":"t","args":{"layerTreeId":7,"frameSeqId":3}},
{"name":"DrawFrame","ph":"I","ts":1070,"pid":2,"tid":4,"cat":"disabled-by-default-devtools.timeline.frame","s":"t","args":{"layerTreeId":7,"frameSeqId":3}},
{"name":"NeedsBeginFrameChanged","ph":"I","ts":1080,"pid":2,"tid":4,"cat":"disabled-by-default-devtools.timeline.frame","s":"t","args":{"layerTreeId":7,"data":{"needsBeginFrame":1}}},
{"name":"BeginFrame","ph":"I","ts":1100,"pid":2,"tid":4,"cat":"disabled-by-default-devtools.timeline.frame","s":"t","args":{"layerTreeId":7,"frameSeqId":4}},
{"name":"DrawFrame","ph":"I","ts":1110,"pid":2,"tid":4,"cat":"disabled-by-default-devtools.timeline.frame","s":"t","args":{"layerTreeId":7,"frameSeqId":4}},
{"name":"BeginFrame","ph":"I","ts":1200,"pid":2,"tid":4,"cat":"disabled-by-default-devtools.timeline.frame","s":"t","args":{"layerTreeId":7,"frameSeqId":5}}
]}"#;

fn options() -> Context {
    Context::new(AnalyzeOptions::default().with_all_handlers(true))
}

/// The Renderer handler's data for the page: process 2, on the main
/// frame, with these threads (id, name, time of the first entry).
fn threads(threads: &[(f64, &str, f64)]) -> RendererData {
    let mut data = RendererData::default();
    let mut process = ProcessTracks {
        url: None,
        is_on_main_frame: true,
        kept_by_devtools: true,
        threads: Default::default(),
    };
    for &(tid, name, first) in threads {
        let mut thread = ThreadTrack::default();
        thread.name = Some(name.to_owned());
        let kind = NodeKind::Event {
            name: tracekit_events::names::RUN_TASK,
            cat: tracekit_events::names::EMPTY,
            ph: tracekit_events::Phase::COMPLETE,
            event: 0,
        };
        thread
            .nodes
            .push(TrackNode::new(kind, 0, Micros(first), Some(Micros(1.0)), None));
        process.threads.insert(Id::num(tid), thread);
    }
    data.processes.insert(Id::num(2.0), process);
    data
}

/// The page's renderer, its main thread (3) named `name`, or none.
fn renderer(main_thread: Option<(&str, f64)>) -> RendererData {
    match main_thread {
        Some((name, first)) => threads(&[(3.0, name, first)]),
        None => threads(&[]),
    }
}

fn run(text: &str, renderer: &RendererData) -> (MetaData, LayerTree, Frames, Interner) {
    run_with(options(), text, renderer)
}

fn run_with(mut cx: Context, text: &str, renderer: &RendererData) -> (MetaData, LayerTree, Frames, Interner) {
    let (mut meta, mut layers, mut frames) = (
        MetaHandler::default(),
        LayerTreeHandler::default(),
        FramesHandler::default(),
    );
    feed(text, &mut meta, &mut cx).unwrap();
    feed(text, &mut layers, &mut cx).unwrap();
    feed(text, &mut frames, &mut cx).unwrap();
    let meta = meta.finalize((), &mut cx);
    let layers = layers.finalize(&meta, &mut cx);
    let frames = frames.finalize((&meta, renderer, &layers), &mut cx);
    (meta, layers, frames, cx.interner)
}

#[test]
fn layer_tree_pairs_the_main_frames_layer_paints_with_their_snapshots() {
    let (_, layers, _, _) = run(PAGE, &renderer(Some(("CrRendererMain", 1002.0))));
    // The paint of layer 0 (#9) belongs to no compositor layer.
    assert_eq!(layers.paints, [8]);
    assert_eq!(layers.snapshots, [10]);
    assert_eq!(layers.snapshot_of(8), Some(10));
    // Once the thread updates a layer of another tree, its snapshots are
    // not the main frame's.
    let other_tree = PAGE.replace(r#""layerTreeId":7,"layerId":5"#, r#""layerTreeId":8,"layerId":5"#);
    let (_, layers, _, _) = run(&other_tree, &renderer(None));
    assert_eq!(layers.paints, [8]);
    assert!(layers.snapshots.is_empty() && layers.paint_snapshots.is_empty());
}

#[test]
fn frames_are_drawn_dropped_and_idle_as_devtools_cuts_them() {
    let (_, _, data, _) = run(PAGE, &renderer(Some(("CrRendererMain", 1002.0))));
    let cut: Vec<(f64, f64, bool, bool, bool)> = data
        .frames
        .iter()
        .map(|f| (f.start.0, f.end.0, f.dropped, f.partial, f.idle))
        .collect();
    assert_eq!(
        cut,
        [
            (1005.0, 1005.0, false, false, false),
            (1005.0, 1050.0, false, false, false),
            (1050.0, 1066.0, true, true, false),
            (1066.0, 1100.0, false, false, true),
        ]
    );
    // A frame's sequence id is the one of the DrawFrame that showed it.
    let seqs: Vec<ArgValue> = data.frames.iter().map(|f| f.seq_id).collect();
    assert_eq!(seqs, [1.0, 1.0, 3.0, 3.0].map(ArgValue::Num));
    assert_eq!(data.frames[2].start_offset, Micros(50.0));
    assert_eq!(data.frames[1].duration, Micros(45.0));
    // The first frame drew the main thread's frame 42 and its paint.
    assert_eq!(data.frames[0].main_frame_id, ArgValue::Num(42.0));
    assert_eq!(data.frames[0].paints, [LayerPaint { paint: 8, snapshot: 10 }]);
    assert_eq!(data.by_main_frame_id.len(), 1);
    assert_eq!(data.by_main_frame_id[&Id::num(42.0)], 0);
    // Every frame was drawn with the one layer tree snapshot, whose paints
    // are the last frame's (none).
    assert!(data.frames.iter().all(|f| f.layer_tree == Some(0)));
    assert_eq!(data.layer_trees.len(), 1);
    assert_eq!(data.layer_trees[0].entry, 12);
    assert!(data.layer_trees[0].paints.is_empty());
}

#[test]
fn without_a_main_thread_no_main_frame_is_committed() {
    for renderer in [renderer(None), renderer(Some(("Compositor", 1002.0)))] {
        let (_, _, data, _) = run(PAGE, &renderer);
        assert_eq!(data.frames.len(), 4);
        assert!(data
            .frames
            .iter()
            .all(|f| f.main_frame_id == ArgValue::Undefined && f.paints.is_empty()));
        assert!(data.by_main_frame_id.is_empty());
    }
    // A later main thread is the main thread from its first entry on:
    // here after the main-frame marker (1012), then at it. The first is
    // the main thread from the start, whenever it starts.
    let (_, _, data, _) = run(
        PAGE,
        &threads(&[(99.0, "CrRendererMain", 1002.0), (3.0, "CrRendererMain", 1013.0)]),
    );
    assert_eq!(data.frames[0].main_frame_id, ArgValue::Undefined);
    let (_, _, data, _) = run(
        PAGE,
        &threads(&[(99.0, "CrRendererMain", 1002.0), (3.0, "CrRendererMain", 1012.0)]),
    );
    assert_eq!(data.frames[0].main_frame_id, ArgValue::Num(42.0));
    let (_, _, data, _) = run(PAGE, &threads(&[(3.0, "CrRendererMain", 1300.0)]));
    assert_eq!(data.frames[0].main_frame_id, ArgValue::Num(42.0));
}

#[test]
fn no_frames_without_the_main_frames_layer_tree() {
    let other_frame = PAGE.replace(r#""frame":"F1","layerTreeId":7"#, r#""frame":"F2","layerTreeId":7"#);
    let (_, layers, data, _) = run(&other_frame, &renderer(Some(("CrRendererMain", 1002.0))));
    assert!(data.frames.is_empty() && data.layer_trees.is_empty());
    assert!(layers.snapshots.is_empty());
}

#[test]
fn the_dump_writes_frames_as_synthetic_events() {
    let (_, layers, data, interner) = run(PAGE, &renderer(Some(("CrRendererMain", 1002.0))));
    let strings = interner.into_strings();
    let mut dump = Dump::new(&strings);
    let value = data.dump(&mut dump);
    dump.handler("Frames", value);
    let value = layers.dump(&mut dump);
    dump.handler("LayerTree", value);
    let mut out = String::new();
    dump.write(&mut out);
    assert!(out.starts_with(
        r##"{"handlers":{"Frames":{"frames":["$frame:-1:-1:1005","$frame:-1:-1:1005:2","$frame:-1:-1:1050","$frame:-1:-1:1066"],"framesById":{"42":"$frame:-1:-1:1005"}},"LayerTree":{"paints":["#8"],"paintsToSnapshots":{},"snapshots":["#10"]}}"##
    ), "{out}");
    assert!(out.contains(
        r##""frame:-1:-1:1005":{"cat":"devtools.legacy_frame","dropped":false,"duration":0,"endTime":1005,"idle":false,"index":0,"isPartial":false,"layerTree":{"entry":"#12","paints":[]},"mainFrameId":42,"name":"frame","paints":[{}],"ph":"X","pid":-1,"seqId":1,"startTime":1005,"startTimeOffset":5,"tid":-1,"ts":1005}"##
    ), "{out}");
}

#[test]
fn the_handlers_run_only_for_all_handlers() {
    assert!(!FramesHandler::enabled(&AnalyzeOptions::default()));
    assert!(!LayerTreeHandler::enabled(&AnalyzeOptions::default()));
    let (_, layers, data, _) = run_with(Context::default(), PAGE, &renderer(Some(("CrRendererMain", 1002.0))));
    assert!(layers.paints.is_empty() && data.frames.is_empty());
}
