//! The exports of small traces, exactly. (Reading them back with the real
//! tools, and their totals on the recorded fixtures: the end-to-end tests
//! in `crates/cli/tests/exports.rs`.)

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

fn analysis(text: &str) -> Analysis {
    crate::analyze_bytes(text.as_bytes(), &crate::AnalyzeOptions::default()).unwrap()
}

fn node_profile() -> Analysis {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/handwritten/node.cpuprofile"
    ))
    .unwrap();
    crate::analyze_bytes(&bytes, &crate::AnalyzeOptions::default()).unwrap()
}

#[test]
fn folded_stacks_merge_calls_and_round_to_the_thread_total() {
    // RunTask's self time is 50 + 10.4 µs: 60 once rounded; `;` in a name
    // is escaped, the instant has no time and no line.
    assert_eq!(
        folded(&analysis(EVENTS), &Filter::default()),
        "Renderer (pid 1);CrRendererMain (tid 10);RunTask 60
Renderer (pid 1);CrRendererMain (tid 10);RunTask;Layout%3BPaint 50
"
    );
    assert_eq!(
        folded(&node_profile(), &Filter::default()),
        "pid 1;tid 1;main file:///app.js:3:5 200
pid 1;tid 1;main file:///app.js:3:5;leaf file:///app.js:9:3 500
pid 1;tid 1;main file:///app.js:3:5;leaf file:///app.js:9:3;(garbage collector) 100
pid 1;tid 1;(idle) 100
"
    );
    assert_eq!(
        folded_bottom_up(&node_profile(), &Filter::default()),
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
    let filter = Filter {
        window_ms: Some((0.03, 0.06)),
        ..Filter::default()
    };
    assert_eq!(
        folded(&analysis(EVENTS), &filter),
        "Renderer (pid 1);CrRendererMain (tid 10);RunTask 10
Renderer (pid 1);CrRendererMain (tid 10);RunTask;Layout%3BPaint 20
"
    );
    let steps: Vec<(bool, f64)> = kept_threads(&analysis(EVENTS), &filter)
        .iter()
        .flat_map(|t| {
            Steps::new(t)
                .map(|s| match s {
                    Step::Open(_, at) => (true, at.0),
                    Step::Close(_, at) => (false, at.0),
                })
                .collect::<Vec<_>>()
        })
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
        d3(&node_profile(), &Filter::default()),
        r#"{"name":"all","value":900,"children":[{"name":"pid 1","value":900,"children":[{"name":"tid 1","value":900,"children":[{"name":"main file:///app.js:3:5","value":800,"children":[{"name":"leaf file:///app.js:9:3","value":600,"children":[{"name":"(garbage collector)","value":100,"children":[]}]}]},{"name":"(idle)","value":100,"children":[]}]}]}]}
"#
    );
}

#[test]
fn speedscope_opens_and_closes_each_call() {
    let file = speedscope(&analysis(EVENTS), &Filter::default());
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
    let file = speedscope(&node_profile(), &Filter::default());
    assert!(file.contains(
        r#"{"name":"main","file":"file:///app.js","line":3,"col":5},{"name":"leaf","file":"file:///app.js","line":9,"col":3},{"name":"(garbage collector)"}"#
    ));
}

#[test]
fn a_parent_without_duration_closes_after_its_children() {
    // A profile's frame left open has no duration but may have children:
    // it closes when they do, so that the steps stay nested and in order.
    let at = |ts: f64, dur: Option<f64>, depth: u32| {
        TrackNode::new(NodeKind::Call { frame: 0 }, depth, Micros(ts), dur.map(Micros), None)
    };
    let nodes = [at(10.0, Some(0.0), 0), at(12.0, Some(5.0), 1), at(30.0, Some(1.0), 0)];
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
    let steps: Vec<String> = Steps::new(&thread)
        .map(|s| match s {
            Step::Open(n, at) => format!("open {} at {}", n.depth(), at.0),
            Step::Close(n, at) => format!("close {} at {}", n.depth(), at.0),
        })
        .collect();
    assert_eq!(
        steps,
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
    let profile = pprof(&a, &Filter::default());
    assert_eq!(profile[..2], [0x1f, 0x8b], "gzip");
    let trace = perfetto(&a, &Filter::default());
    // Packets are field 1 of the Trace message, length-delimited.
    assert_eq!(trace[0], 0x0a);
    assert!(trace.windows(b"CrRendererMain".len()).any(|w| w == b"CrRendererMain"));
    // No thread kept: files with nothing in them.
    let none = Filter {
        thread: Some("nosuchthread".into()),
        ..Filter::default()
    };
    assert!(perfetto(&a, &none).is_empty());
    assert_eq!(folded(&a, &none), "");
}
