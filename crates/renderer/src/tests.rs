//! The Renderer handler on small hand-written traces: each one is fed
//! through the real tokenizer to the handlers it depends on (Meta, auction
//! worklets, Samples) and to it. The expected tracks are what the DevTools
//! engine draws for the same traces.

use tracekit_events::{feed, AnalyzeOptions, Diagnostics, Interner, SampleTraceId, Skip};
use tracekit_meta::{AuctionWorkletsHandler, MetaHandler};
use tracekit_page::{ImagePaintingHandler, NetworkRequestsHandler, TrackEntries};
use tracekit_samples::SamplesHandler;

use super::*;
use crate::entries::Entry;

/// Runs the handlers on `text`. The diagnostics are those of one pass
/// (the text is read once per handler here).
fn analyze(text: &str, options: AnalyzeOptions) -> (Result<RendererData, LoadError>, Context) {
    let mut cx = Context::new(options);
    let mut meta = MetaHandler::default();
    let mut worklets = AuctionWorkletsHandler::default();
    let mut samples = SamplesHandler::default();
    let mut network = NetworkRequestsHandler::default();
    let mut images = ImagePaintingHandler::default();
    let mut renderer = RendererHandler::default();
    feed(text, &mut meta, &mut cx).unwrap();
    feed(text, &mut worklets, &mut cx).unwrap();
    feed(text, &mut samples, &mut cx).unwrap();
    feed(text, &mut network, &mut cx).unwrap();
    feed(text, &mut images, &mut cx).unwrap();
    cx.diagnostics = Diagnostics::default();
    feed(text, &mut renderer, &mut cx).unwrap();
    let meta = meta.finalize((), &mut cx);
    let worklets = worklets.finalize((), &mut cx);
    let samples = samples.finalize(&meta, &mut cx);
    let network = network.finalize(&meta, &mut cx);
    let images = images.finalize(&meta, &mut cx);
    let data = renderer.finalize((&meta, samples, &worklets, &network, &images), &mut cx);
    (data, cx)
}

fn run(text: &str) -> (RendererData, Context) {
    let (data, cx) = analyze(text, AnalyzeOptions::default());
    (data.unwrap(), cx)
}

fn id(x: u32) -> Id {
    Id::num(x.into())
}

/// A thread's tree, a line per node: indented by depth, label, start and
/// duration (`-` for an instant) in microseconds.
fn tree(data: &RendererData, pid: u32, tid: u32, interner: &Interner) -> Vec<String> {
    let track = &data.processes[&id(pid)].threads[&id(tid)];
    track
        .nodes
        .iter()
        .map(|n| {
            let label = match (&n.kind(), track.js_frame(&n.kind())) {
                (NodeKind::Event { name, .. }, _) => interner.resolve(*name).to_owned(),
                (NodeKind::Call { .. }, Some(js)) => js.call_frame.label(interner),
                (NodeKind::Call { .. }, None) => "js:?".to_owned(),
            };
            let dur = n.dur().map_or("-".to_owned(), |d| d.0.to_string());
            format!("{}{label} {}+{dur}", "  ".repeat(n.depth() as usize), n.ts().0)
        })
        .collect()
}

/// The threads of each process, as `pid: tid tid ...`.
fn layout(data: &RendererData, interner: &Interner) -> Vec<String> {
    data.processes
        .iter()
        .map(|(pid, p)| {
            let tids: Vec<String> = p.threads.keys().map(|t| t.to_js_string(interner)).collect();
            format!("{}: {}", pid.to_js_string(interner), tids.join(" "))
        })
        .collect()
}

fn skipped(cx: &Context, reason: Skip) -> u64 {
    cx.diagnostics.skipped.get(&reason).map_or(0, |r| r.count)
}

/// DevTools pairs begin and end events on one stack shared by all threads:
/// an end closes the last begin, whatever its thread; a begin whose end
/// does not match (name or category) stays with no duration.
#[test]
fn begin_and_end_pair_on_one_stack_for_all_threads() {
    let (data, cx) = run(r#"[
        {"name":"thread_name","ph":"M","pid":1,"tid":1,"ts":0,"args":{"name":"CrRendererMain"}},
        {"name":"thread_name","ph":"M","pid":1,"tid":2,"ts":0,"args":{"name":"Worker"}},
        {"name":"A","cat":"c","ph":"B","pid":1,"tid":1,"ts":10},
        {"name":"C","cat":"c","ph":"B","pid":1,"tid":2,"ts":20},
        {"name":"C","cat":"c","ph":"E","pid":1,"tid":2,"ts":30},
        {"name":"A","cat":"c","ph":"E","pid":1,"tid":1,"ts":40},
        {"name":"X","cat":"c","ph":"B","pid":1,"tid":1,"ts":50},
        {"name":"X","cat":"c","ph":"E","pid":1,"tid":2,"ts":60},
        {"name":"P","cat":"c","ph":"B","pid":1,"tid":1,"ts":70},
        {"name":"Q","cat":"c","ph":"B","pid":1,"tid":2,"ts":75},
        {"name":"P","cat":"c","ph":"E","pid":1,"tid":1,"ts":80},
        {"name":"Q","cat":"c","ph":"E","pid":1,"tid":2,"ts":85},
        {"name":"Z","cat":"c","ph":"E","pid":1,"tid":1,"ts":90},
        {"name":"K","cat":"a","ph":"B","pid":1,"tid":1,"ts":100},
        {"name":"K","cat":"b","ph":"E","pid":1,"tid":1,"ts":110}
    ]"#);
    // X's end, on thread 2, closes X on thread 1.
    assert_eq!(
        tree(&data, 1, 1, &cx.interner),
        ["A 10+30", "X 50+10", "P 70+0", "K 100+0"]
    );
    assert_eq!(tree(&data, 1, 2, &cx.interner), ["C 20+10", "Q 75+0"]);
    // P's end meets Q, Q's end meets P; K's end has another category.
    assert_eq!(skipped(&cx, Skip::RendererMismatchedEnd), 3);
    assert_eq!(skipped(&cx, Skip::RendererEndWithoutBegin), 1);
}

/// Complete and instant (`I`) events are kept; lowercase `i` instants are
/// ignored, as DevTools ignores them, and so are other phases.
#[test]
fn complete_and_instant_events_are_kept_lowercase_instants_are_not() {
    let (data, cx) = run(r#"[
        {"name":"Task","cat":"c","ph":"X","pid":1,"tid":1,"ts":10,"dur":50},
        {"name":"Upper","cat":"c","ph":"I","s":"t","pid":1,"tid":1,"ts":20},
        {"name":"Lower","cat":"c","ph":"i","s":"t","pid":1,"tid":1,"ts":25},
        {"name":"Mark","cat":"c","ph":"R","pid":1,"tid":1,"ts":30},
        {"name":"Async","cat":"c","ph":"b","id":"0x1","pid":1,"tid":1,"ts":30},
        {"name":"Async","cat":"c","ph":"e","id":"0x1","pid":1,"tid":1,"ts":40},
        {"name":"Counter","cat":"c","ph":"C","pid":1,"tid":1,"ts":35,"args":{"x":1}},
        {"name":"Zero","cat":"c","ph":"X","pid":1,"tid":1,"ts":45,"dur":0},
        {"name":"Lonely","cat":"c","ph":"i","pid":1,"tid":2,"ts":45}
    ]"#);
    assert_eq!(
        tree(&data, 1, 1, &cx.interner),
        ["Task 10+50", "  Upper 20+-", "  Zero 45+0"]
    );
    // A thread of lowercase instants only has no track.
    assert_eq!(layout(&data, &cx.interner), ["1: 1"]);
    assert!(cx.diagnostics.skipped.is_empty(), "{:?}", cx.diagnostics);
}

/// A trace with three renderer processes: 2 renders the main frame (its
/// URL about:blank, then a.test, then c.test), 3 a subframe (first an
/// invalid URL, then b.test), 4 no frame at all; 9 is the browser.
const FRAMES: &str = r#"[
    {"name":"thread_name","ph":"M","pid":2,"tid":21,"ts":0,"args":{"name":"CrRendererMain"}},
    {"name":"thread_name","ph":"M","pid":2,"tid":23,"ts":0,"args":{}},
    {"name":"thread_name","ph":"M","pid":2,"tid":24,"ts":0,"args":{"name":"Idle"}},
    {"name":"TracingStartedInBrowser","cat":"c","ph":"I","s":"t","pid":9,"tid":9,"ts":10,"args":{"data":{"frames":[
        {"frame":"F1","url":"about:blank","processId":2,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true},
        {"frame":"F2","url":"not a url","processId":3,"parent":"F1","isOutermostMainFrame":false,"isInPrimaryMainFrame":false}]}}},
    {"name":"RunTask","cat":"c","ph":"X","pid":2,"tid":21,"ts":20,"dur":10},
    {"name":"RunTask","cat":"c","ph":"X","pid":2,"tid":22,"ts":20,"dur":10},
    {"name":"RunTask","cat":"c","ph":"X","pid":2,"tid":23,"ts":20,"dur":10},
    {"name":"RunTask","cat":"c","ph":"X","pid":3,"tid":31,"ts":25,"dur":10},
    {"name":"RunTask","cat":"c","ph":"X","pid":4,"tid":41,"ts":25,"dur":10},
    {"name":"FrameCommittedInBrowser","cat":"c","ph":"I","s":"t","pid":9,"tid":9,"ts":50,"args":{"data":{"frame":"F1","url":"https://a.test/","processId":2}}},
    {"name":"FrameCommittedInBrowser","cat":"c","ph":"I","s":"t","pid":9,"tid":9,"ts":60,"args":{"data":{"frame":"F2","url":"https://b.test/","processId":3,"parent":"F1"}}},
    {"name":"FrameCommittedInBrowser","cat":"c","ph":"I","s":"t","pid":9,"tid":9,"ts":70,"args":{"data":{"frame":"F1","url":"https://c.test/","processId":2}}}
]"#;

fn url(data: &RendererData, pid: u32, interner: &Interner) -> Option<String> {
    data.processes[&id(pid)].url.map(|u| interner.resolve(u).to_owned())
}

#[test]
fn processes_without_a_url_are_dropped_from_a_devtools_trace() {
    let (data, cx) = run(FRAMES);
    assert_eq!(layout(&data, &cx.interner), ["2: 21 22 23", "3: 31"]);
}

#[test]
fn with_all_processes_the_dropped_ones_are_built_and_marked() {
    let (data, cx) = analyze(FRAMES, AnalyzeOptions::default().with_all_processes(true));
    let data = data.unwrap();
    assert_eq!(layout(&data, &cx.interner), ["9: 9", "2: 21 22 23", "3: 31", "4: 41"]);
    let kept: Vec<bool> = data.processes.values().map(|p| p.kept_by_devtools).collect();
    assert_eq!(kept, [false, true, true, false]);
    assert_eq!(
        tree(&data, 9, 9, &cx.interner),
        [
            "TracingStartedInBrowser 10+-",
            "FrameCommittedInBrowser 50+-",
            "FrameCommittedInBrowser 60+-",
            "FrameCommittedInBrowser 70+-"
        ]
    );
}

#[test]
fn a_generic_trace_keeps_every_process() {
    let generic = FRAMES.replace("\"TracingStartedInBrowser\"", "\"Other\"");
    let (data, cx) = run(&generic);
    assert_eq!(layout(&data, &cx.interner), ["9: 9", "2: 21 22 23", "3: 31", "4: 41"]);
    assert!(data.processes.values().all(|p| p.kept_by_devtools));
    // The frames still give URLs; there is no main frame.
    assert_eq!(url(&data, 2, &cx.interner).as_deref(), Some("https://a.test/"));
    assert!(data.processes.values().all(|p| !p.is_on_main_frame));
}

/// A process's URL is the first valid URL of its frames, except that
/// about:blank gives way to the next one.
#[test]
fn the_url_is_the_first_valid_one_about_blank_giving_way() {
    let (data, cx) = run(FRAMES);
    assert_eq!(url(&data, 2, &cx.interner).as_deref(), Some("https://a.test/"));
    assert_eq!(url(&data, 3, &cx.interner).as_deref(), Some("https://b.test/"));
}

#[test]
fn the_process_of_the_main_frame_is_flagged() {
    let (data, _) = run(FRAMES);
    assert!(data.processes[&id(2)].is_on_main_frame);
    assert!(!data.processes[&id(3)].is_on_main_frame);
}

/// A thread's name is its metadata's; its id when the metadata has no
/// name; none without metadata. A thread with metadata but no event has
/// no track.
#[test]
fn threads_are_named_by_their_metadata() {
    let (data, cx) = run(FRAMES);
    let names: Vec<Option<&str>> = data.processes[&id(2)]
        .threads
        .values()
        .map(|t| t.name.as_deref())
        .collect();
    assert_eq!(names, [Some("CrRendererMain"), None, Some("23")]);
    assert!(!data.processes[&id(2)].threads.contains_key(&id(24)));
    assert_eq!(tree(&data, 2, 21, &cx.interner), ["RunTask 20+10"]);
}

/// A profile's samples become JS calls in the tree, between the events.
#[test]
fn samples_become_js_calls_in_the_tree() {
    let (data, cx) = run(r#"[
        {"name":"RunTask","cat":"c","ph":"X","pid":1,"tid":1,"ts":0,"dur":100},
        {"name":"FunctionCall","cat":"c","ph":"X","pid":1,"tid":1,"ts":5,"dur":90},
        {"name":"Layout","cat":"c","ph":"X","pid":1,"tid":1,"ts":30,"dur":10},
        {"name":"Profile","ph":"P","pid":1,"tid":1,"ts":0,"id":"0x1","args":{"data":{"startTime":0}}},
        {"name":"ProfileChunk","ph":"P","pid":1,"tid":1,"ts":0,"id":"0x1","args":{"data":{"cpuProfile":{"nodes":[
            {"id":1,"callFrame":{"functionName":"(root)"}},
            {"id":2,"parent":1,"callFrame":{"functionName":"main","url":"app.js","scriptId":"1","lineNumber":1,"columnNumber":0}}],
            "samples":[2,2]},"timeDeltas":[10,50]}}}
    ]"#);
    assert_eq!(
        tree(&data, 1, 1, &cx.interner),
        [
            "RunTask 0+100",
            "  FunctionCall 5+90",
            "    js:main@app.js:1:0 10+85",
            "      Layout 30+10",
        ]
    );
    let track = &data.processes[&id(1)].threads[&id(1)];
    let self_times: Vec<Option<f64>> = track.nodes.iter().map(|n| n.self_time().map(|t| t.0)).collect();
    assert_eq!(self_times, [Some(10.0), Some(5.0), Some(75.0), Some(10.0)]);
}

const FOUR_TASKS: &str = r#"[
    {"name":"thread_name","ph":"M","pid":1,"tid":1,"ts":0,"args":{"name":"CrRendererMain"}},
    {"name":"T","ph":"X","pid":1,"tid":1,"ts":0,"dur":1},
    {"name":"T","ph":"X","pid":1,"tid":1,"ts":2,"dur":1},
    {"name":"T","ph":"X","pid":1,"tid":1,"ts":4,"dur":1},
    {"name":"T","ph":"X","pid":1,"tid":1,"ts":6,"dur":1},
    {"name":"T","ph":"X","pid":1,"tid":2,"ts":0,"dur":1},
    {"name":"T","ph":"X","pid":1,"tid":2,"ts":2,"dur":1},
    {"name":"T","ph":"X","pid":1,"tid":2,"ts":4,"dur":1}
]"#;

/// A thread of more nodes than allowed is left out (empty, marked) and
/// counted, naming it; the other threads are built.
#[test]
fn a_thread_over_the_node_budget_is_left_out_named_and_counted() {
    let (data, _) = analyze(FOUR_TASKS, AnalyzeOptions::default().with_max_nodes(4));
    assert_eq!(data.unwrap().processes[&id(1)].threads.len(), 2);
    let (data, cx) = analyze(FOUR_TASKS, AnalyzeOptions::default().with_max_nodes(3));
    let data = data.unwrap();
    let threads = &data.processes[&id(1)].threads;
    let over = &threads[&id(1)];
    assert_eq!((over.nodes.len(), over.over_budget), (0, Some(4)));
    assert_eq!(threads.len(), 2, "the other thread is built");
    assert!(threads
        .values()
        .filter(|t| t.over_budget.is_none())
        .all(|t| !t.nodes.is_empty()));
    let record = &cx.diagnostics.skipped[&Skip::ThreadOverNodeBudget];
    assert_eq!(record.count, 1);
    assert_eq!(
        record.first_example,
        "thread CrRendererMain (pid 1, tid 1): at least 4 nodes, more than 3"
    );
    // A thread without a name is named by its ids alone.
    let unnamed = r#"[
        {"name":"thread_name","ph":"M","pid":1,"tid":1,"ts":0,"args":{"name":"CrRendererMain"}},
        {"name":"T","ph":"X","pid":1,"tid":1,"ts":0,"dur":1},
        {"name":"T","ph":"X","pid":1,"tid":2,"ts":0,"dur":1},
        {"name":"T","ph":"X","pid":1,"tid":2,"ts":2,"dur":1},
        {"name":"T","ph":"X","pid":1,"tid":2,"ts":4,"dur":1},
        {"name":"T","ph":"X","pid":1,"tid":2,"ts":6,"dur":1}
    ]"#;
    let (_, cx) = analyze(unnamed, AnalyzeOptions::default().with_max_nodes(3));
    assert_eq!(
        cx.diagnostics.skipped[&Skip::ThreadOverNodeBudget].first_example,
        "thread (pid 1, tid 2): at least 4 nodes, more than 3"
    );
}

/// JS calls count against the budget too.
#[test]
fn js_calls_count_against_the_node_budget() {
    let text = r#"[
        {"name":"FunctionCall","ph":"X","pid":1,"tid":1,"ts":0,"dur":100},
        {"name":"Profile","ph":"P","pid":1,"tid":1,"ts":0,"id":"0x1","args":{"data":{"startTime":0}}},
        {"name":"ProfileChunk","ph":"P","pid":1,"tid":1,"ts":0,"id":"0x1","args":{"data":{"cpuProfile":{"nodes":[
            {"id":1,"callFrame":{"functionName":"(root)"}},
            {"id":2,"parent":1,"callFrame":{"functionName":"main"}},
            {"id":3,"parent":2,"callFrame":{"functionName":"inner"}}],
            "samples":[3]},"timeDeltas":[10]}}}
    ]"#;
    let (data, _) = analyze(text, AnalyzeOptions::default().with_max_nodes(3));
    assert_eq!(data.unwrap().processes[&id(1)].threads[&id(1)].nodes.len(), 3);
    let (data, _) = analyze(text, AnalyzeOptions::default().with_max_nodes(2));
    assert_eq!(data.unwrap().processes[&id(1)].threads[&id(1)].over_budget, Some(3));
}

#[test]
fn a_track_node_gives_back_the_times_it_was_made_with() {
    let kind = NodeKind::Call { frame: 7 };
    let times = [None, Some(Micros(0.0)), Some(Micros(-2.5)), Some(Micros(12.125))];
    for dur in times {
        for self_time in times {
            let node = TrackNode::new(kind, 3, Micros(100.5), dur, self_time);
            assert_eq!(
                (node.kind(), node.depth(), node.ts(), node.dur(), node.self_time()),
                (kind, 3, Micros(100.5), dur, self_time)
            );
            // Equal when made alike, whatever an unset time is stored as.
            assert_eq!(node, TrackNode::new(kind, 3, Micros(100.5), dur, self_time));
        }
    }
    // An unset time differs from a zero one.
    assert_ne!(
        TrackNode::new(kind, 0, Micros(0.0), None, None),
        TrackNode::new(kind, 0, Micros(0.0), Some(Micros(0.0)), None)
    );
}

#[test]
fn an_entry_gives_back_the_duration_and_trace_id_it_was_made_with() {
    let durs = [None, Some(Micros(0.0)), Some(Micros(-2.5)), Some(Micros(12.125))];
    let ids = [
        None,
        Some(SampleTraceId::Num(0.0)),
        Some(SampleTraceId::Num(-0.0)),
        Some(SampleTraceId::Num(8_717_910_316_878_398.0)),
        Some(SampleTraceId::Num(f64::NAN)),
        Some(SampleTraceId::Str(Sym(0))),
        Some(SampleTraceId::Str(Sym(u32::MAX))),
    ];
    let (name, cat) = (Sym(5), Sym(6));
    for dur in durs {
        for id in ids {
            let mut entry = Entry::new(Micros(100.5), dur, name, cat, Phase::INSTANT, 9, id);
            assert_eq!(
                (entry.ts, entry.name, entry.cat, entry.ph, entry.event),
                (Micros(100.5), name, cat, Phase::INSTANT, 9)
            );
            assert_eq!(entry.dur(), dur);
            // Compared by bits: a NaN id comes back as the same NaN.
            let bits = |id: Option<SampleTraceId>| match id {
                Some(SampleTraceId::Num(x)) => Some((0, x.to_bits())),
                Some(SampleTraceId::Str(s)) => Some((1, u64::from(s.0))),
                None => None,
            };
            assert_eq!(bits(entry.trace_id()), bits(id));
            // A begin's duration is set when its end comes.
            entry.set_dur(Micros(3.0));
            assert_eq!(entry.dur(), Some(Micros(3.0)));
            assert_eq!(bits(entry.trace_id()), bits(id));
        }
    }
}

/// A page with a request, a script, a JS call, a begin/end pair and an
/// event whose only URL is its request's.
const ENTITIES: &str = r#"[
    {"name":"TracingStartedInBrowser","cat":"c","ph":"I","pid":1,"tid":1,"ts":900,"args":{"data":{"frames":[
        {"frame":"F","url":"https://a.test/","processId":2,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}]}}},
    {"name":"ResourceSendRequest","cat":"c","ph":"I","pid":2,"tid":3,"ts":1100,"args":{"data":{"requestId":"R1",
        "url":"https://a.test/x.js","priority":"High","requestMethod":"GET","frame":"F"}}},
    {"name":"ResourceFinish","cat":"c","ph":"I","pid":2,"tid":3,"ts":1800,"args":{"data":{"requestId":"R1",
        "encodedDataLength":0,"decodedBodyLength":50,"finishTime":0.0017}}},
    {"name":"RunTask","cat":"c","ph":"X","pid":2,"tid":3,"ts":2000,"dur":100},
    {"name":"EvaluateScript","cat":"c","ph":"X","pid":2,"tid":3,"ts":2005,"dur":90,"args":{"data":{"url":"https://cdn.b.test/lib.js"}}},
    {"name":"ParseHTML","cat":"c","ph":"B","pid":2,"tid":3,"ts":2200,"args":{"beginData":{"url":"https://d.test/page"}}},
    {"name":"ParseHTML","cat":"c","ph":"E","pid":2,"tid":3,"ts":2250},
    {"name":"Layout","cat":"c","ph":"X","pid":2,"tid":3,"ts":2300,"dur":5,"args":{"data":{"requestId":"R1"}}},
    {"name":"Profile","ph":"P","pid":2,"tid":3,"ts":0,"id":"0x1","args":{"data":{"startTime":0}}},
    {"name":"ProfileChunk","ph":"P","pid":2,"tid":3,"ts":0,"id":"0x1","args":{"data":{"cpuProfile":{"nodes":[
        {"id":1,"callFrame":{"functionName":"(root)"}},
        {"id":2,"parent":1,"callFrame":{"functionName":"main","url":"https://c.test/app.js","scriptId":"1","lineNumber":1,"columnNumber":0}}],
        "samples":[2,2]},"timeDeltas":[2048,16]}}}
]"#;

/// Each entity's events: the network's first, then the tracks' in tree
/// order, each once, as the entity mappings hold them.
fn entities(text: &str, options: AnalyzeOptions) -> Vec<(String, Vec<String>)> {
    let mut cx = Context::new(options);
    let mut meta = MetaHandler::default();
    let mut worklets = AuctionWorkletsHandler::default();
    let mut samples = SamplesHandler::default();
    let mut network = NetworkRequestsHandler::default();
    let mut images = ImagePaintingHandler::default();
    let mut renderer = RendererHandler::default();
    feed(text, &mut meta, &mut cx).unwrap();
    feed(text, &mut worklets, &mut cx).unwrap();
    feed(text, &mut samples, &mut cx).unwrap();
    feed(text, &mut network, &mut cx).unwrap();
    feed(text, &mut images, &mut cx).unwrap();
    feed(text, &mut renderer, &mut cx).unwrap();
    let meta = meta.finalize((), &mut cx);
    let worklets = worklets.finalize((), &mut cx);
    let samples = samples.finalize(&meta, &mut cx);
    let network = network.finalize(&meta, &mut cx);
    let images = images.finalize(&meta, &mut cx);
    let data = renderer
        .finalize((&meta, samples, &worklets, &network, &images), &mut cx)
        .unwrap();
    let strings = cx.interner.into_strings();
    let mappings = entity_mappings(&data.processes, &network);
    let tracks = crate::NumberedThreads(&data.processes);
    mappings
        .events_by_entity
        .iter()
        .map(|(entity, events)| {
            let events = events
                .iter()
                .map(|e| match *e {
                    tracekit_page::EntityEvent::Request(i) => format!("request {i}"),
                    tracekit_page::EntityEvent::Event(i) => format!("#{i}"),
                    tracekit_page::EntityEvent::ProfileCall {
                        thread,
                        position,
                        sample,
                    } => {
                        let entry = tracks.entry(thread, position).unwrap();
                        format!("call {}@{} sample {:?}", entry.node_id, entry.ts, sample.index())
                    }
                    tracekit_page::EntityEvent::BeginEnd {
                        thread,
                        position,
                        begin,
                        ..
                    } => {
                        format!("pair #{begin}+{}", tracks.entry(thread, position).unwrap().dur)
                    }
                })
                .collect();
            (entity.name(&strings).to_owned(), events)
        })
        .collect()
}

#[test]
fn the_tracks_entries_complete_the_entity_mappings_with_all_handlers() {
    let all = entities(ENTITIES, AnalyzeOptions::default().with_all_handlers(true));
    let named = |name: &str, events: &[&str]| (name.to_owned(), events.iter().map(|e| (*e).to_owned()).collect());
    assert_eq!(
        all,
        vec![
            // The request's events, mapped by the network part, are not
            // added again; the Layout event's URL is its request's, which
            // the entity helpers do not look up.
            named("a.test", &["request 0", "#1", "#2"]),
            named("b.test", &["#4"]),
            // The call opened by the first sample (index 0), at its time.
            named("c.test", &["call 2@2048 sample Some(0)"]),
            named("d.test", &["pair #5+50"]),
        ]
    );
    // Without all handlers, neither the requests nor the tracks map any.
    assert!(entities(ENTITIES, AnalyzeOptions::default()).is_empty());
}

/// With all handlers, an entry that ends after its parent is left out of
/// the tree but kept, in its place among the entries, as DevTools keeps
/// it in the thread's entries.
#[test]
fn entries_left_out_of_the_tree_are_kept_in_their_place() {
    let text = r#"[
        {"name":"thread_name","ph":"M","pid":1,"tid":1,"ts":0,"args":{"name":"CrRendererMain"}},
        {"name":"A","cat":"c","ph":"X","pid":1,"tid":1,"ts":10,"dur":30},
        {"name":"B","cat":"c","ph":"X","pid":1,"tid":1,"ts":20,"dur":40},
        {"name":"C","cat":"c","ph":"X","pid":1,"tid":1,"ts":50,"dur":5}
    ]"#;
    let (data, cx) = analyze(text, AnalyzeOptions::default().with_all_handlers(true));
    let data = data.unwrap();
    assert_eq!(tree(&data, 1, 1, &cx.interner), ["A 10+30", "C 50+5"]);
    let track = &data.processes[&id(1)].threads[&id(1)];
    let off: Vec<(u32, f64)> = track
        .entries_off_tree()
        .iter()
        .map(|(before, n)| (*before, n.ts().0))
        .collect();
    assert_eq!(off, [(1, 20.0)], "B, after A");
    let (data, _) = analyze(text, AnalyzeOptions::default());
    assert!(data.unwrap().processes[&id(1)].threads[&id(1)]
        .entries_off_tree()
        .is_empty());
}

#[test]
fn layouts_and_style_recalculations_keep_their_size_with_all_handlers() {
    let text = r#"[
        {"name":"Task","cat":"c","ph":"X","pid":1,"tid":1,"ts":10,"dur":500},
        {"name":"Layout","cat":"c","ph":"X","pid":1,"tid":1,"ts":20,"dur":50,"args":{"beginData":{"dirtyObjects":120},"endData":{}}},
        {"name":"Layout","cat":"c","ph":"X","pid":1,"tid":1,"ts":80,"dur":5,"args":{}},
        {"name":"UpdateLayoutTree","cat":"c","ph":"B","pid":1,"tid":1,"ts":100,"args":{"elementCount":9}},
        {"name":"UpdateLayoutTree","cat":"c","ph":"E","pid":1,"tid":1,"ts":110},
        {"name":"UpdateLayoutTree","cat":"c","ph":"X","pid":1,"tid":1,"ts":200,"dur":30,"args":{"elementCount":"many"}}
    ]"#;
    let (data, _) = analyze(text, AnalyzeOptions::default().with_all_handlers(true));
    let updates = &data.unwrap().processes[&id(1)].threads[&id(1)].dom_updates;
    // The layout without beginData is none; begin/end pairs are not listed.
    let seen: Vec<_> = updates.iter().map(|u| (u.event, u.kind, u.dur, u.size)).collect();
    assert_eq!(
        seen,
        [
            (1, DomUpdateKind::Layout, Some(Micros(50.0)), Some(120.0)),
            (5, DomUpdateKind::RecalcStyle, Some(Micros(30.0)), None)
        ]
    );
    let (data, _) = run(text);
    assert!(data.processes[&id(1)].threads[&id(1)].dom_updates.is_empty());
}

/// Threads are numbered across processes in the tracks' order, dropped
/// processes included, and each number reads back its thread's entries.
#[test]
fn threads_are_numbered_across_processes_and_read_back() {
    use tracekit_events::{Id, Micros};
    use tracekit_page::ThreadNumber;
    let layout: [(u64, &[u64], bool); 3] = [(7, &[1, 2], false), (3, &[5], true), (9, &[4, 6], true)];
    let node_id = |pid: u64, tid: u64| i64::try_from(pid * 10 + tid).unwrap();
    let mut processes: Map<Id, ProcessTracks> = Map::default();
    for (pid, tids, kept) in layout {
        let mut process = ProcessTracks {
            kept_by_devtools: kept,
            ..ProcessTracks::default()
        };
        for &tid in tids {
            let mut track = ThreadTrack::default();
            let call = NodeKind::Call { frame: 0 };
            (track.nodes).push(TrackNode::new(call, 0, Micros(1.0), Some(Micros(2.0)), None));
            let call_frame = tracekit_cpuprofile::CallFrame {
                function_name: tracekit_events::names::EMPTY,
                url: tracekit_events::names::EMPTY,
                script_id: tracekit_events::names::EMPTY,
                id_location: tracekit_cpuprofile::IdLocation::Nothing,
                line_number: None,
                column_number: None,
                code_type: None,
            };
            track.js_frames.push(JsFrame {
                call_frame,
                node_id: node_id(pid, tid),
            });
            process.threads.insert(Id::from(tid), track);
        }
        processes.insert(Id::from(pid), process);
    }
    let threads = NumberedThreads(&processes);
    let numbered: Vec<(u32, (Id, Id))> = threads.numbered().map(|(n, ids, _, _)| (n.0, ids)).collect();
    let expected: Vec<(u32, (Id, Id))> = [(7, 1), (7, 2), (3, 5), (9, 4), (9, 6)]
        .into_iter()
        .zip(0..)
        .map(|((pid, tid), n)| (n, (Id::from(pid), Id::from(tid))))
        .collect();
    assert_eq!(numbered, expected);
    for (n, (pid, tid)) in numbered {
        assert_eq!(threads.number(pid, tid), Some(ThreadNumber(n)));
        let entry = threads.entry(ThreadNumber(n), 0).unwrap();
        assert_eq!((entry.pid, entry.tid, entry.ts, entry.dur), (pid, tid, 1.0, 2.0));
        assert_eq!(entry.node_id, node_id(pid.as_u64().unwrap(), tid.as_u64().unwrap()));
        assert_eq!(threads.entry(ThreadNumber(n), 1), None);
    }
    assert!(threads.thread(ThreadNumber(5)).is_none());
    assert_eq!(threads.number(Id::from(3), Id::from(1)), None);
}

#[test]
fn a_track_node_gives_back_what_it_was_made_of() {
    let event = NodeKind::Event {
        name: Sym(7),
        cat: Sym(u32::MAX - 1),
        ph: Phase::INSTANT,
        event: u32::MAX,
    };
    let call = NodeKind::Call { frame: u32::MAX };
    for (kind, depth, dur, self_time) in [
        (event, 0, None, None),
        (event, MAX_DEPTH, Some(Micros(2.5)), Some(Micros(-0.0))),
        (call, 3, Some(Micros(f64::NAN)), None),
        (call, MAX_DEPTH, None, Some(Micros(1e300))),
    ] {
        let node = TrackNode::new(kind, depth, Micros(12.25), dur, self_time);
        assert_eq!(node.kind(), kind);
        assert_eq!(node.depth(), depth);
        assert_eq!(node.ts(), Micros(12.25));
        // A NaN duration is one, not an absent one.
        assert_eq!(node.dur().map(|d| d.0.to_bits()), dur.map(|d| d.0.to_bits()));
        assert_eq!(
            node.self_time().map(|d| d.0.to_bits()),
            self_time.map(|d| d.0.to_bits())
        );
    }
    // Equal nodes compare equal, absent times included.
    assert_eq!(
        TrackNode::new(event, 1, Micros(1.0), None, None),
        TrackNode::new(event, 1, Micros(1.0), None, None)
    );
    assert_ne!(
        TrackNode::new(event, 1, Micros(1.0), None, None),
        TrackNode::new(event, 1, Micros(1.0), Some(Micros(0.0)), None)
    );
}

#[test]
#[should_panic(expected = "depth is at most")]
fn a_track_node_deeper_than_it_can_say_is_refused() {
    let _ = TrackNode::new(NodeKind::Call { frame: 0 }, MAX_DEPTH + 1, Micros(0.0), None, None);
}

#[test]
fn entries_of_one_span_keep_their_input_order() {
    // Sixty-four instants-long events at the same time, each written after
    // an earlier one: the sort moves them all, and ties stay in input order.
    let mut events = Vec::new();
    for i in 0..64 {
        events.push(format!(
            r#"{{"name":"Same{i}","cat":"c","ph":"X","pid":1,"tid":1,"ts":1000,"dur":0}}"#
        ));
        events.push(format!(
            r#"{{"name":"Before{i}","cat":"c","ph":"X","pid":1,"tid":1,"ts":{},"dur":1}}"#,
            900 - 2 * i
        ));
    }
    let (data, cx) = run(&format!("[{}]", events.join(",")));
    let lines = tree(&data, 1, 1, &cx.interner);
    let same: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("Same"))
        .map(String::as_str)
        .collect();
    let expected: Vec<String> = (0..64).map(|i| format!("Same{i} 1000+0")).collect();
    assert_eq!(same, expected);
    let before: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("Before"))
        .map(String::as_str)
        .collect();
    let expected: Vec<String> = (0..64).rev().map(|i| format!("Before{i} {}+1", 900 - 2 * i)).collect();
    assert_eq!(before, expected);
}

#[test]
#[should_panic(expected = "no category Sym(u32::MAX)")]
fn a_track_node_event_cannot_take_the_call_mark_as_category() {
    let event = NodeKind::Event {
        name: Sym(1),
        cat: Sym(u32::MAX),
        ph: Phase::COMPLETE,
        event: 0,
    };
    let _ = TrackNode::new(event, 0, Micros(0.0), None, None);
}
