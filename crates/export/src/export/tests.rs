//! The exports of small traces, exactly. (Reading them back with the real
//! tools, and their totals on the recorded fixtures: the end-to-end tests
//! in `crates/cli/tests/exports.rs`.)

use super::timeline::Steps;
use super::*;

/// A thread with two tasks: the first with two children named with a `;`
/// and an instant, the second of a fractional duration.
const EVENTS: &str = r#"[
{"name":"thread_name","ph":"M","pid":1,"tid":10,"args":{"name":"CrRendererMain"}},
{"name":"process_name","ph":"M","pid":1,"tid":10,"args":{"name":"Renderer"}},
{"name":"RunTask","ph":"X","pid":1,"tid":10,"ts":1000,"dur":100,"cat":"devtools.timeline"},
{"name":"Layout;Paint","ph":"X","pid":1,"tid":10,"ts":1010,"dur":30,"cat":"devtools.timeline"},
{"name":"Layout;Paint","ph":"X","pid":1,"tid":10,"ts":1050,"dur":20,"cat":"devtools.timeline"},
{"name":"Mark","ph":"I","pid":1,"tid":10,"ts":1080,"s":"t","cat":"devtools.timeline"},
{"name":"RunTask","ph":"X","pid":1,"tid":10,"ts":1200,"dur":10.4,"cat":"devtools.timeline"}
]"#;

const SEQUENTIAL: tracekit_engine::Parallelism = tracekit_engine::Parallelism::Sequential;

/// The window from `start` to `end` ms.
fn window(start: f64, end: f64) -> tracekit_engine::query::Window {
    tracekit_engine::query::Window::new(tracekit_engine::Millis(start), tracekit_engine::Millis(end)).unwrap()
}

fn analysis(text: &str) -> Analysis {
    tracekit_engine::analyze_bytes(text.as_bytes(), &tracekit_engine::AnalyzeOptions::default()).unwrap()
}

fn node_profile() -> Analysis {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/handwritten/node.cpuprofile"
    ))
    .unwrap();
    tracekit_engine::analyze_bytes(&bytes, &tracekit_engine::AnalyzeOptions::default()).unwrap()
}

#[test]
fn folded_stacks_merge_calls_and_round_to_the_thread_total() {
    // RunTask's self time is 50 + 10.4 µs: 60 once rounded; `;` in a name
    // is escaped, the instant has no time and no line.
    assert_eq!(
        folded(&analysis(EVENTS), &Query::new(), SEQUENTIAL),
        "Renderer (pid 1);CrRendererMain (tid 10);RunTask 60
Renderer (pid 1);CrRendererMain (tid 10);RunTask;Layout%3BPaint 50
"
    );
    assert_eq!(
        folded(&node_profile(), &Query::new(), SEQUENTIAL),
        "pid 1;tid 1;main file:///app.js:3:5 200
pid 1;tid 1;main file:///app.js:3:5;leaf file:///app.js:9:3 500
pid 1;tid 1;main file:///app.js:3:5;leaf file:///app.js:9:3;(garbage collector) 100
pid 1;tid 1;(idle) 100
"
    );
    assert_eq!(
        folded_bottom_up(&node_profile(), &Query::new(), SEQUENTIAL),
        "pid 1;tid 1;main file:///app.js:3:5 200
pid 1;tid 1;leaf file:///app.js:9:3;main file:///app.js:3:5 500
pid 1;tid 1;(garbage collector);leaf file:///app.js:9:3;main file:///app.js:3:5 100
pid 1;tid 1;(idle) 100
"
    );
}

#[test]
fn a_window_clips_the_calls_to_it() {
    // 1030..1060 µs: 10 µs of each Layout;Paint, 10 of RunTask between them.
    let filter = Query::new().with_window(window(0.03, 0.06));
    assert_eq!(
        folded(&analysis(EVENTS), &filter, SEQUENTIAL),
        "Renderer (pid 1);CrRendererMain (tid 10);RunTask 10
Renderer (pid 1);CrRendererMain (tid 10);RunTask;Layout%3BPaint 20
"
    );
    let steps: Vec<(bool, f64)> = kept_threads(&analysis(EVENTS), &filter)
        .iter()
        .flat_map(|t| Steps::new(t).map(|s| (s.opens, s.at.0)).collect::<Vec<_>>())
        .collect();
    assert_eq!(
        steps,
        [
            (true, 1030.0),
            (true, 1030.0),
            (false, 1040.0),
            (true, 1050.0),
            (false, 1060.0),
            (false, 1060.0)
        ]
    );
}

#[test]
fn d3_values_are_totals() {
    assert_eq!(
        d3(&node_profile(), &Query::new(), SEQUENTIAL),
        r#"{"name":"all","value":900,"children":[{"name":"pid 1","value":900,"children":[{"name":"tid 1","value":900,"children":[{"name":"main file:///app.js:3:5","value":800,"children":[{"name":"leaf file:///app.js:9:3","value":600,"children":[{"name":"(garbage collector)","value":100,"children":[]}]}]},{"name":"(idle)","value":100,"children":[]}]}]}]}
"#
    );
}

#[test]
fn speedscope_opens_and_closes_each_call() {
    let file = speedscope(&analysis(EVENTS), &Query::new(), SEQUENTIAL);
    assert!(
        file.starts_with(r#"{"$schema":"https://www.speedscope.app/file-format-schema.json","exporter":"tracekit "#)
    );
    let rest = &file[file.find(r#","name":"Chrome trace""#).unwrap()..];
    assert_eq!(
        rest,
        r#","name":"Chrome trace","activeProfileIndex":0,"shared":{"frames":[{"name":"RunTask"},{"name":"Layout;Paint"},{"name":"Mark"}]},"profiles":[{"type":"evented","name":"CrRendererMain (tid 10) in Renderer (pid 1)","unit":"microseconds","events":[{"type":"O","frame":0,"at":0},{"type":"O","frame":1,"at":10},{"type":"C","frame":1,"at":40},{"type":"O","frame":1,"at":50},{"type":"C","frame":1,"at":70},{"type":"O","frame":2,"at":80},{"type":"C","frame":2,"at":80},{"type":"C","frame":0,"at":100},{"type":"O","frame":0,"at":200},{"type":"C","frame":0,"at":210.4}],"startValue":0,"endValue":210.4}]}
"#
    );
    // JS frames have their file, line and column, 1-based.
    let file = speedscope(&node_profile(), &Query::new(), SEQUENTIAL);
    assert!(file.contains(
        r#"{"name":"main","file":"file:///app.js","line":3,"col":5},{"name":"leaf","file":"file:///app.js","line":9,"col":3},{"name":"(garbage collector)"}"#
    ));
}

/// The steps of a thread of hand-made nodes (JS calls of unknown
/// functions), whole and in pieces of one root each, which must agree.
fn steps_of(nodes: &[(f64, Option<f64>, u32)]) -> Vec<String> {
    let nodes: Vec<TrackNode> = nodes
        .iter()
        .map(|&(ts, dur, depth)| TrackNode::new(NodeKind::Call { frame: 0 }, depth, Micros(ts), dur.map(Micros), None))
        .collect();
    let track = ThreadTrack::default();
    let process = ProcessTracks {
        url: None,
        is_on_main_frame: false,
        kept_by_devtools: true,
        threads: Default::default(),
    };
    let thread = KeptThread {
        pid: Id::MISSING,
        tid: Id::MISSING,
        process: &process,
        track: &track,
        process_label: String::new(),
        thread_label: String::new(),
        nodes: nodes.iter().collect(),
        window: None,
    };
    let text = |s: timeline::Step<'_>| {
        let what = if s.opens { "open" } else { "close" };
        format!("{what} {} at {}", s.node.depth(), s.at.0)
    };
    let whole: Vec<String> = Steps::new(&thread).map(text).collect();
    let threads = [thread];
    let timeline = timeline::timeline_in_pieces_of(&threads, 1);
    let roots = nodes.iter().filter(|n| n.depth() == 0).count();
    assert_eq!(timeline.pieces.len(), roots);
    let pieced: Vec<String> = timeline
        .pieces
        .iter()
        .flat_map(|piece| Steps::of_piece(&threads[0], piece).map(text))
        .collect();
    assert_eq!(pieced, whole);
    whole
}

#[test]
fn a_parent_without_duration_closes_after_its_children() {
    // A profile's frame left open has no duration but may have children:
    // it closes when they do, so that the steps stay nested and in order.
    assert_eq!(
        steps_of(&[(10.0, Some(0.0), 0), (12.0, Some(5.0), 1), (30.0, Some(1.0), 0)]),
        [
            "open 0 at 10",
            "open 1 at 12",
            "close 1 at 17",
            "close 0 at 17",
            "open 0 at 30",
            "close 0 at 31"
        ]
    );
}

#[test]
fn a_root_starting_before_the_last_one_ends_opens_when_it_ends() {
    // Steps never go back in time, across pieces too: the second root's
    // piece starts at the time the first piece reached.
    assert_eq!(
        steps_of(&[(10.0, Some(10.0), 0), (12.0, Some(12.0), 1), (15.0, Some(2.0), 0)]),
        [
            "open 0 at 10",
            "open 1 at 12",
            "close 1 at 24",
            "close 0 at 24",
            "open 0 at 24",
            "close 0 at 24"
        ]
    );
}

#[test]
fn rounded_values_add_up_to_the_rounded_total() {
    let mut sum = RoundedSum::default();
    let values: Vec<i64> = [0.4, 0.4, 0.4, 1.3, 0.0, 2.5].iter().map(|x| sum.take(*x)).collect();
    assert_eq!(values, [0, 1, 0, 2, 0, 2]);
    assert_eq!(values.iter().sum::<i64>(), 5); // 5.0 exactly
}

#[test]
fn pprof_and_perfetto_are_written() {
    // Their content is read back by the real tools in the end-to-end tests.
    let a = analysis(EVENTS);
    let profile = pprof(&a, &Query::new(), SEQUENTIAL);
    assert_eq!(profile[..2], [0x1f, 0x8b], "gzip");
    let trace = perfetto(&a, &Query::new(), SEQUENTIAL);
    // Packets are field 1 of the Trace message, length-delimited.
    assert_eq!(trace[0], 0x0a);
    assert!(trace.windows(b"CrRendererMain".len()).any(|w| w == b"CrRendererMain"));
    // No thread kept: files with nothing in them.
    let none = Query::new().with_thread("nosuchthread").unwrap();
    assert!(perfetto(&a, &none, SEQUENTIAL).is_empty());
    assert_eq!(folded(&a, &none, SEQUENTIAL), "");
}

/// A recorded trace with JS calls, a thread of 23,852 nodes among them.
fn kitchen_sink() -> Analysis {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/traces/kitchen-sink.json.gz"
    ))
    .unwrap();
    tracekit_engine::analyze_bytes(
        &bytes,
        &tracekit_engine::AnalyzeOptions::default().with_all_processes(true),
    )
    .unwrap()
}

/// A step as the tests compare it: the node's place, whether it opens,
/// and the time's bits.
fn step_bits(step: timeline::Step<'_>) -> (usize, bool, u64) {
    (step.kept, step.opens, step.at.0.to_bits())
}

#[test]
fn threads_cut_in_pieces_step_as_they_do_whole() {
    let analysis = kitchen_sink();
    let window = Query::new().with_window(window(500.0, 2500.0));
    for filter in [Query::new(), window] {
        let threads = kept_threads(&analysis, &filter);
        let whole: Vec<Vec<(usize, bool, u64)>> =
            threads.iter().map(|t| Steps::new(t).map(step_bits).collect()).collect();
        for piece_nodes in [1, 7, 1000, 1 << 14, usize::MAX] {
            let timeline = timeline::timeline_in_pieces_of(&threads, piece_nodes);
            let mut pieced = vec![Vec::new(); threads.len()];
            // The pieces of a thread follow each other, from its first node
            // to its last, thread after thread.
            let mut covered = vec![0; threads.len()];
            for (i, piece) in timeline.pieces.iter().enumerate() {
                let thread = &threads[piece.thread];
                assert!(i == 0 || timeline.pieces[i - 1].thread <= piece.thread);
                assert_eq!(piece.nodes.start, covered[piece.thread]);
                assert!(!piece.nodes.is_empty());
                covered[piece.thread] = piece.nodes.end;
                assert_eq!(piece.is_last(&threads), piece.nodes.end == thread.nodes.len());
                pieced[piece.thread].extend(Steps::of_piece(thread, piece).map(step_bits));
            }
            let lengths: Vec<usize> = threads.iter().map(|t| t.nodes.len()).collect();
            assert_eq!(covered, lengths);
            assert_eq!(pieced, whole, "pieces of {piece_nodes} nodes");
            for (thread, steps) in whole.iter().enumerate() {
                let (first, last) = timeline.spans[thread];
                assert_eq!(
                    (first.0.to_bits(), last.0.to_bits()),
                    (steps[0].2, steps[steps.len() - 1].2)
                );
            }
            let cut = timeline.pieces.len() > threads.len();
            assert!(cut || piece_nodes > 1000, "pieces of {piece_nodes} nodes");
            assert!(!cut || piece_nodes != usize::MAX);
        }
    }
}

#[test]
fn exports_are_the_same_bytes_on_any_number_of_cores() {
    let analysis = kitchen_sink();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    let parallel = tracekit_engine::Parallelism::Rayon;
    let everything = Query::new();
    let threads = kept_threads(&analysis, &everything);
    assert!(
        timeline::timeline(&threads).pieces.iter().any(|p| !p.is_first()),
        "a thread is written in several pieces"
    );
    for format in [
        Format::Speedscope,
        Format::Perfetto,
        Format::Pprof,
        Format::Folded,
        Format::D3,
    ] {
        let whole = format.export(&analysis, &Query::new(), SEQUENTIAL);
        let mut written = Vec::new();
        pool.install(|| format.write(&analysis, &Query::new(), parallel, &mut written))
            .unwrap();
        assert!(written == whole, "{format:?}");
        assert_eq!(format.export(&analysis, &Query::new(), parallel), whole, "{format:?}");
    }
    assert_eq!(
        speedscope(&analysis, &Query::new(), SEQUENTIAL).into_bytes(),
        Format::Speedscope.export(&analysis, &Query::new(), SEQUENTIAL)
    );
}

#[test]
fn stack_trees_made_apart_number_their_frames_as_if_made_in_turn() {
    let analysis = kitchen_sink();
    let filter = Query::new();
    let threads = kept_threads(&analysis, &filter);
    // The frames, and each tree's stacks: frame, parent, calls, self time.
    type Shown = (Vec<FrameKey>, Vec<Vec<(u32, u32, u64, u64)>>);
    let shown = |frames: &Frames, trees: &[stacks::StackTree]| -> Shown {
        let stacks = trees
            .iter()
            .map(|tree| {
                tree.stacks
                    .iter()
                    .map(|s| (s.frame, s.parent, s.calls, s.self_us.to_bits()))
                    .collect()
            })
            .collect();
        (frames.keys().collect(), stacks)
    };
    let mut in_turn = Frames::default();
    let trees: Vec<stacks::StackTree> = threads.iter().map(|t| stacks::StackTree::of(t, &mut in_turn)).collect();
    let expected = shown(&in_turn, &trees);
    assert!(expected.0.len() > 100 && threads.len() > 10);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    for parallelism in [
        tracekit_engine::Parallelism::Sequential,
        tracekit_engine::Parallelism::Rayon,
    ] {
        let (frames, trees) = pool.install(|| stacks::stack_trees(&threads, parallelism));
        assert!(shown(&frames, &trees) == expected, "{parallelism:?}");
    }
}
