//! The conversion of `samples` and `stackFrames` into profiles: node by
//! node on small inputs, its skips, its limits, and on the fixture and the
//! corpus files.

use serde_json::value::RawValue;
use tracekit_events::{names, Micros};

use super::build::ROOT_ID;
use super::*;
use crate::model::CpuProfileModel;

fn convert(samples: &str, frames: &str) -> (Vec<TraceSamplesProfile>, Interner, Diagnostics) {
    let mut interner = Interner::new();
    let mut diag = Diagnostics::default();
    let profiles = profiles_from_trace_samples(samples, frames, &mut interner, &mut diag).unwrap();
    (profiles, interner, diag)
}

/// Each node as `id parent label`.
fn nodes(p: &TraceSamplesProfile, interner: &Interner) -> Vec<String> {
    p.raw
        .nodes
        .iter()
        .map(|n| {
            let parent = n.parent.map_or("-".to_owned(), |p| p.to_string());
            format!("{} {} {}", n.id, parent, n.call_frame.label(interner))
        })
        .collect()
}

fn skipped(diag: &Diagnostics, reason: &str) -> u64 {
    diag.skipped
        .iter()
        .find(|(skip, _)| skip.as_str() == reason)
        .map_or(0, |(_, r)| r.count)
}

/// Builds the model as the Samples handler would, and checks that it
/// takes every node and sample.
fn assert_model_accepts(p: &TraceSamplesProfile) -> CpuProfileModel {
    let mut diag = Diagnostics::default();
    let model = CpuProfileModel::new(p.raw.clone(), &mut diag).expect("the model accepts the profile");
    assert!(diag.skipped.is_empty(), "the model skipped {:?}", diag.skipped);
    assert_eq!(model.nodes.len(), p.raw.nodes.len());
    assert_eq!(model.samples.len(), p.raw.samples.as_ref().unwrap().len());
    assert!(model.samples.iter().all(Option::is_some));
    model
}

#[test]
fn builds_a_small_example_node_by_node() {
    let frames = r#"{
        "1": {"name": "[root]", "category": "root"},
        "2": {"name": "main(http://h/a.js:10:5)", "category": "JavaScript", "parent": 1,
              "line": "10", "column": "5", "funcLine": "9", "funcColumn": "1"},
        "3": {"name": "helper(http://h/b.js:3:7)", "category": "JavaScript", "parent": "2"},
        "4": {"name": "[Native] sqrt", "category": "Native", "parent": 3},
        "5": {"name": "[GC Young Gen]", "category": "Metadata", "parent": 1},
        "6": {"name": "top", "category": "mod", "url": "file:///t.js", "line": 4},
        "7": {"name": "unused", "parent": 1}
    }"#;
    // Unsorted, string and number ts, a sample without a stack, and a
    // second thread whose tid is a number.
    let samples = r#"[
        {"cpu": "-1", "name": "", "ts": "1030", "pid": 7, "tid": "main", "weight": "1", "sf": 4},
        {"ts": 1000, "pid": 7, "tid": "main", "sf": 2},
        {"ts": 1010.5, "tid": "main", "sf": 3},
        {"ts": "1020", "tid": "main"},
        {"ts": 1040, "tid": "main", "sf": 5},
        {"ts": 500, "tid": 2, "sf": 6},
        {"ts": 600, "tid": 2, "sf": "1"}
    ]"#;
    let (profiles, interner, diag) = convert(samples, frames);
    assert!(diag.skipped.is_empty(), "{:?}", diag.skipped);
    assert_eq!(profiles.len(), 2);

    let main = &profiles[0];
    assert_eq!(main.tid, Id::str(interner.lookup("main").unwrap()));
    assert_eq!(main.pid, Some(Id::num(7.0)), "the tid's other samples give the pid");
    assert_eq!(
        nodes(main, &interner),
        [
            "1 - js:(root)@:-1:-1",
            "2 1 js:main(http://h/a.js:10:5)@http://h/a.js:8:0",
            "3 2 js:helper(http://h/b.js:3:7)@http://h/b.js:2:6",
            "4 1 js:(program)@:-1:-1",
            "5 3 js:[Native] sqrt@:-1:-1",
            "6 1 js:[GC Young Gen]@:-1:-1",
        ]
    );
    assert!(main
        .raw
        .nodes
        .iter()
        .all(|n| n.children.is_none() && n.hit_count.is_none()));
    assert!(main.raw.nodes.iter().all(|n| n.call_frame.script_id == names::ZERO));
    assert_eq!(main.raw.samples, Some(vec![2, 3, 4, 5, 6]));
    assert_eq!(main.raw.start_time, Micros(1000.0));
    assert_eq!(main.raw.end_time, Micros(1040.0));
    assert_eq!(main.raw.time_deltas, Some(vec![0.0, 10.5, 9.5, 10.0, 10.0]));
    assert!(main.raw.legacy.is_none());

    let second = &profiles[1];
    assert_eq!(second.tid, Id::num(2.0));
    assert_eq!(second.pid, None);
    assert_eq!(
        nodes(second, &interner),
        ["1 - js:(root)@:-1:-1", "2 1 js:top@file:///t.js:3:-1"]
    );
    // A sample on the root frame is a sample on the root.
    assert_eq!(second.raw.samples, Some(vec![2, 1]));
    assert_eq!(second.raw.time_deltas, Some(vec![0.0, 100.0]));

    let model = assert_model_accepts(main);
    assert_eq!(model.timestamps[0], 1.0);
    let program = model.program_node.expect("(program) is found as a meta node");
    assert_eq!(model.node(program).id, 4);
    assert_model_accepts(second);
}

#[test]
fn sorts_stably_by_ts() {
    let frames = r#"{"a": {"name": "a"}, "b": {"name": "b"}, "c": {"name": "c"}}"#;
    let samples = r#"[{"tid":1,"ts":30,"sf":"a"},{"tid":1,"ts":10,"sf":"b"},
        {"tid":1,"ts":20,"sf":"c"},{"tid":1,"ts":10,"sf":"a"},{"tid":1,"ts":"20","sf":"b"}]"#;
    let (profiles, interner, _) = convert(samples, frames);
    let p = &profiles[0];
    let names: Vec<String> = p.raw.samples.as_ref().unwrap()[..]
        .iter()
        .map(|&id| {
            interner
                .resolve(p.raw.nodes[usize::try_from(id - 1).unwrap()].call_frame.function_name)
                .to_owned()
        })
        .collect();
    assert_eq!(names, ["b", "a", "c", "b", "a"]);
    assert_eq!(p.raw.time_deltas, Some(vec![0.0, 0.0, 10.0, 0.0, 10.0]));
    assert_eq!((p.raw.start_time, p.raw.end_time), (Micros(10.0), Micros(30.0)));
    assert_model_accepts(p);
}

#[test]
fn number_and_string_tids_are_different_threads() {
    let frames = r#"{"1": {"name": "f"}}"#;
    let samples = r#"[{"tid":"1","ts":1,"sf":1},{"tid":1,"ts":2,"sf":1},{"tid":1.0,"ts":3,"sf":1},
        {"tid":"1","ts":4,"sf":1,"pid":"p"}]"#;
    let (profiles, interner, _) = convert(samples, frames);
    assert_eq!(profiles.len(), 2);
    assert_eq!(profiles[0].tid, Id::str(interner.lookup("1").unwrap()));
    assert_eq!(profiles[0].pid, Some(Id::str(interner.lookup("p").unwrap())));
    assert_eq!(profiles[0].raw.samples.as_ref().unwrap().len(), 2);
    assert_eq!(profiles[1].tid, Id::num(1.0));
    assert_eq!(profiles[1].pid, None);
    assert_eq!(profiles[1].raw.samples.as_ref().unwrap().len(), 2);
}

#[test]
fn a_tid_in_two_processes_keeps_them_apart() {
    let frames = r#"{"1": {"name": "f"}}"#;
    let samples = r#"[{"tid":5,"pid":1,"ts":1,"sf":1},{"tid":5,"pid":2,"ts":2,"sf":1},{"tid":5,"ts":3,"sf":1}]"#;
    let (profiles, _, _) = convert(samples, frames);
    let keys: Vec<_> = profiles.iter().map(|p| p.pid).collect();
    assert_eq!(keys, [Some(Id::num(1.0)), Some(Id::num(2.0)), None]);
}

#[test]
fn skips_unknown_frames_cycles_and_broken_chains() {
    let frames = r#"{
        "ok": {"name": "ok"},
        "a": {"name": "a", "parent": "b"}, "b": {"name": "b", "parent": "a"},
        "c": {"name": "c", "parent": "a"},
        "self": {"name": "self", "parent": "self"},
        "orphan": {"name": "orphan", "parent": "nowhere"},
        "odd": {"name": "odd", "parent": true},
        "junk": 5,
        "below-junk": {"name": "x", "parent": "junk"}
    }"#;
    let samples = r#"[{"tid":1,"ts":1,"sf":"a"},{"tid":1,"ts":2,"sf":"c"},{"tid":1,"ts":3,"sf":"self"},
        {"tid":1,"ts":4,"sf":"orphan"},{"tid":1,"ts":5,"sf":"odd"},{"tid":1,"ts":6,"sf":"below-junk"},
        {"tid":1,"ts":7,"sf":"missing"},{"tid":1,"ts":8,"sf":[1]},{"tid":1,"ts":9,"sf":"ok"},
        {"tid":1,"ts":10,"sf":"a"}]"#;
    let (profiles, interner, diag) = convert(samples, frames);
    assert_eq!(profiles.len(), 1);
    assert_eq!(
        nodes(&profiles[0], &interner),
        ["1 - js:(root)@:-1:-1", "2 1 js:ok@:-1:-1"]
    );
    assert_eq!(profiles[0].raw.samples, Some(vec![2]));
    // Each broken chain once, under its cause.
    assert_eq!(skipped(&diag, "trace samples: stack frame parents form a cycle"), 2);
    assert_eq!(skipped(&diag, "trace samples: stack frame names an unknown parent"), 2);
    assert_eq!(skipped(&diag, "trace samples: stack frame is not an object"), 1);
    // And each sample on one.
    assert_eq!(
        skipped(
            &diag,
            "trace samples: sample whose stack frames do not chain up to a root"
        ),
        7
    );
    assert_eq!(skipped(&diag, "trace samples: sample names an unknown stack frame"), 2);
    assert_model_accepts(&profiles[0]);
}

#[test]
fn skips_samples_without_tid_or_ts() {
    let samples = r#"[5, null, {"ts":1}, {"tid":null,"ts":1}, {"tid":1}, {"tid":1,"ts":"soon"},
        {"tid":1,"ts":true}, {"tid":[1],"ts":1}, {"tid":1,"ts":"NaN"}, {"tid":1,"ts":" 7 ","sf":null}]"#;
    let (profiles, interner, diag) = convert(samples, "{}");
    assert_eq!(skipped(&diag, "trace samples: sample is not an object"), 2);
    assert_eq!(skipped(&diag, "trace samples: sample without a tid"), 3);
    assert_eq!(skipped(&diag, "trace samples: sample without a valid ts"), 4);
    assert_eq!(profiles.len(), 1);
    assert_eq!(profiles[0].raw.start_time, Micros(7.0));
    assert_eq!(
        nodes(&profiles[0], &interner),
        ["1 - js:(root)@:-1:-1", "2 1 js:(program)@:-1:-1"]
    );
    assert_model_accepts(&profiles[0]);
}

#[test]
fn walks_a_200000_deep_chain_without_recursion() {
    let depth = 200_000;
    let mut frames = String::from(r#"{"0":{"name":"[root]","category":"root"}"#);
    for i in 1..=depth {
        frames.push_str(&format!(r#","{i}":{{"name":"f{i}","parent":{}}}"#, i - 1));
    }
    frames.push('}');
    let samples = format!(
        r#"[{{"tid":1,"ts":1,"sf":{depth}}},{{"tid":1,"ts":2,"sf":{}}}]"#,
        depth / 2
    );
    let (profiles, interner, diag) = convert(&samples, &frames);
    assert!(diag.skipped.is_empty());
    let p = &profiles[0];
    assert_eq!(p.raw.nodes.len(), depth + 1);
    assert_eq!(p.raw.samples, Some(vec![depth as i64 + 1, depth as i64 / 2 + 1]));
    let first = &p.raw.nodes[1];
    assert_eq!(interner.resolve(first.call_frame.function_name), "f1");
    assert_eq!(first.parent, Some(ROOT_ID));
    let last = p.raw.nodes.last().unwrap();
    assert_eq!(interner.resolve(last.call_frame.function_name), format!("f{depth}"));
    assert_eq!(last.parent, Some(depth as i64));
    let model = assert_model_accepts(p);
    assert_eq!(model.max_depth, i32::try_from(depth).unwrap() - 1);

    // And a cycle as long.
    let mut frames = String::from("{");
    for i in 0..depth {
        frames.push_str(&format!(r#""{i}":{{"name":"f","parent":{}}},"#, (i + 1) % depth));
    }
    frames.pop();
    frames.push('}');
    let (profiles, _, diag) = convert(r#"[{"tid":1,"ts":1,"sf":0},{"tid":1,"ts":2,"sf":7}]"#, &frames);
    assert!(profiles.is_empty());
    assert_eq!(skipped(&diag, "trace samples: stack frame parents form a cycle"), 1);
}

#[test]
fn reads_over_deeply_nested_values() {
    let depth = 100_000;
    let junk = "[".repeat(depth) + &"]".repeat(depth);
    let samples = format!(r#"[{{"tid":1,"ts":1,"sf":1,"args":{junk}}}]"#);
    let frames = format!(r#"{{"1":{{"name":"f","extra":{junk}}}}}"#);
    let (profiles, _, diag) = convert(&samples, &frames);
    assert!(diag.skipped.is_empty());
    assert_eq!(profiles[0].raw.samples, Some(vec![2]));
}

#[test]
fn takes_frame_keys_as_javascript_does() {
    // Numbers name the frame whose key is their JavaScript string; an
    // array of frames is keyed by index; the last of repeated keys wins.
    let frames = r#"[{"name":"zero"},{"name":"one","parent":0},{"name":"two","parent":"1"}]"#;
    let (profiles, interner, _) = convert(r#"[{"tid":1,"ts":1,"sf":2.0}]"#, frames);
    assert_eq!(
        nodes(&profiles[0], &interner),
        [
            "1 - js:(root)@:-1:-1",
            "2 1 js:zero@:-1:-1",
            "3 2 js:one@:-1:-1",
            "4 3 js:two@:-1:-1"
        ]
    );
    let frames = r#"{"1":{"name":"first"},"1":{"name":"second"},"1e3":{"name":"big"}}"#;
    let (profiles, interner, _) = convert(r#"[{"tid":1,"ts":1,"sf":1},{"tid":1,"ts":2,"sf":"1e3"}]"#, frames);
    assert_eq!(
        nodes(&profiles[0], &interner),
        ["1 - js:(root)@:-1:-1", "2 1 js:second@:-1:-1", "3 1 js:big@:-1:-1"]
    );
    // 1000 is "1000" in JavaScript, not "1e3".
    let (profiles, _, diag) = convert(r#"[{"tid":1,"ts":1,"sf":1000}]"#, frames);
    assert!(profiles.is_empty());
    assert_eq!(skipped(&diag, "trace samples: sample names an unknown stack frame"), 1);
}

#[test]
fn reads_frame_locations() {
    let frames = r#"{
        "1": {"name": "f(/x (copy)/a.js:12:4)"},
        "2": {"name": "g(a.js:x:4)"},
        "3": {"name": "h(a.js:3:4)", "url": "u.js", "line": 30},
        "4": {"name": 42, "funcLine": "2"},
        "5": {"category": "JavaScript"},
        "6": {"name": "(b.js:1:1)"}
    }"#;
    let samples: String = (1..=6)
        .map(|i| format!(r#"{{"tid":1,"ts":{i},"sf":{i}}}"#))
        .collect::<Vec<_>>()
        .join(",");
    let (profiles, interner, diag) = convert(&format!("[{samples}]"), frames);
    assert!(diag.skipped.is_empty());
    assert_eq!(
        nodes(&profiles[0], &interner)[1..],
        [
            "2 1 js:f(/x (copy)/a.js:12:4)@/x (copy)/a.js:11:3",
            "3 1 js:g(a.js:x:4)@:-1:-1",
            "4 1 js:h(a.js:3:4)@u.js:29:-1",
            "5 1 js:42@:1:-1",
            "6 1 js:@:-1:-1",
            "7 1 js:(b.js:1:1)@b.js:0:0",
        ]
    );
}

#[test]
fn fails_only_on_the_shape_of_the_lists() {
    let mut interner = Interner::new();
    let mut diag = Diagnostics::default();
    let mut run = |samples: &str, frames: &str| {
        profiles_from_trace_samples(samples, frames, &mut interner, &mut diag).map(|p| p.len())
    };
    assert!(run("{}", "{}").is_err());
    assert!(run("[]", "5").is_err());
    assert!(run("[", "{}").is_err());
    assert!(run("[] x", "{}").is_err());
    assert_eq!(run("[]", "[]").unwrap(), 0);
    assert_eq!(run(" [] ", r#"{"1":{}}"#).unwrap(), 0);
    assert_eq!(run(r#"[{"tid":1,"ts":1,"sf":"1"}]"#, r#"{"1":{}}"#).unwrap(), 1);
}

/// The values of a trace's `samples` and `stackFrames`, as raw text.
fn sample_lists(text: &str) -> Option<(&str, &str)> {
    #[derive(serde::Deserialize)]
    struct Doc<'a> {
        #[serde(borrow)]
        samples: Option<&'a RawValue>,
        #[serde(borrow, rename = "stackFrames")]
        stack_frames: Option<&'a RawValue>,
    }
    let doc: Doc = serde_json::from_str(text).ok()?;
    Some((doc.samples?.get(), doc.stack_frames?.get()))
}

#[test]
fn converts_the_fixture() {
    let text = include_str!("../../fixtures/trace-samples-hermes.json");
    let (samples, frames) = sample_lists(text).unwrap();
    let (profiles, interner, diag) = convert(samples, frames);
    assert!(diag.skipped.is_empty(), "{:?}", diag.skipped);
    assert_eq!(profiles.len(), 2);
    let js = &profiles[0];
    assert_eq!(js.tid, Id::str(interner.lookup("4242").unwrap()));
    assert_eq!(js.pid, Some(Id::num(4200.0)));
    assert_eq!(
        nodes(js, &interner),
        [
            "1 - js:(root)@:-1:-1",
            "2 1 js:render(http://localhost:8081/index.bundle:120:9)@http://localhost:8081/index.bundle:99:0",
            "3 2 js:layout(http://localhost:8081/index.bundle:300:14)@http://localhost:8081/index.bundle:289:2",
            "4 3 js:[Native] measure@:-1:-1",
            "5 1 js:[GC Young Gen]@:-1:-1",
            "6 2 js:paint(http://localhost:8081/index.bundle:410:3)@http://localhost:8081/index.bundle:409:2",
        ]
    );
    assert_eq!(js.raw.samples, Some(vec![2, 3, 4, 4, 1, 5, 6, 2]));
    assert_eq!(js.raw.start_time, Micros(5_000_000.0));
    assert_eq!(js.raw.end_time, Micros(5_008_000.0));
    let worker = &profiles[1];
    assert_eq!(worker.tid, Id::str(interner.lookup("4243").unwrap()));
    assert_eq!(worker.raw.samples, Some(vec![2, 2, 3]));
    for p in &profiles {
        assert_model_accepts(p);
    }
}

/// A file of the speedscope repository's trace-event samples, from the
/// shared corpus beside the project (`../shared/corpus`; never
/// committed), or from the corpus `TRACEKIT_CORPUS` names. Without it the
/// test fails, unless `TRACEKIT_CORPUS=none` says to go without it (then
/// `None`).
fn corpus(name: &str) -> Option<String> {
    let root = match std::env::var_os("TRACEKIT_CORPUS") {
        Some(none) if none == "none" => {
            println!("note: TRACEKIT_CORPUS=none: corpus test skipped");
            return None;
        }
        Some(dir) => std::path::PathBuf::from(dir),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    };
    let dir = root.join("speedscope/trace-event");
    assert!(
        dir.is_dir(),
        "{} is absent: the shared corpus belongs beside the project (TRACEKIT_CORPUS=DIR for another place, \
         TRACEKIT_CORPUS=none to test without it)",
        dir.display()
    );
    let path = dir.join(name);
    Some(std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

#[test]
fn converts_the_corpus_files() {
    let Some(text) = corpus("simple-with-samples.json") else {
        return;
    };
    let (samples, frames) = sample_lists(&text).unwrap();
    let (profiles, interner, diag) = convert(samples, frames);
    assert!(diag.skipped.is_empty(), "{:?}", diag.skipped);
    assert_eq!(profiles.len(), 1);
    let p = &profiles[0];
    assert_eq!(p.tid, Id::str(interner.lookup("7695").unwrap()));
    assert_eq!(p.pid, Some(Id::num(7512.0)));
    let bundle = "http://localhost:8081/index.bundle?platform=android&dev=false&minify=false&app=org.toshi&modulesOnly=false&runModule=true";
    assert_eq!(
        nodes(p, &interner),
        [
            "1 - js:(root)@:-1:-1".to_owned(),
            format!("2 1 js:function1({bundle}:1:1)@{bundle}:0:0"),
            format!("3 1 js:function2({bundle}:418874:4)@{bundle}:418873:3"),
            format!("4 3 js:function3({bundle}:17:3)@{bundle}:16:2"),
            "5 1 js:[GC Young Gen]@:-1:-1".to_owned(),
        ]
    );
    assert_eq!(p.raw.samples, Some(vec![1, 1, 2, 4, 1, 5, 5]));
    assert_eq!(p.raw.start_time, Micros(11552125241.0));
    assert_eq!(p.raw.end_time, Micros(11552189951.0));
    assert_eq!(
        p.raw.time_deltas,
        Some(vec![0.0, 4440.0, 16330.0, 13326.0, 10605.0, 10009.0, 10000.0])
    );
    assert_model_accepts(p);

    let text = corpus("multi-thread-with-samples.json").unwrap();
    let (samples, frames) = sample_lists(&text).unwrap();
    let (profiles, interner, diag) = convert(samples, frames);
    assert!(diag.skipped.is_empty(), "{:?}", diag.skipped);
    let summary: Vec<(String, Vec<String>, Vec<i64>)> = profiles
        .iter()
        .map(|p| {
            assert_eq!(p.pid, Some(Id::num(7512.0)));
            assert_model_accepts(p);
            (
                p.tid.to_js_string(&interner),
                nodes(p, &interner),
                p.raw.samples.clone().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                "1".to_owned(),
                vec![
                    "1 - js:(root)@:-1:-1".to_owned(),
                    "2 1 js:function1@:-1:-1".to_owned(),
                    "3 1 js:[GC Young Gen]@:-1:-1".to_owned(),
                ],
                vec![1, 2, 3],
            ),
            (
                "2".to_owned(),
                vec![
                    "1 - js:(root)@:-1:-1".to_owned(),
                    "2 1 js:function3@:-1:-1".to_owned(),
                    "3 1 js:function4@:-1:-1".to_owned(),
                ],
                vec![1, 2, 3, 1, 1],
            ),
        ]
    );

    // The Hermes event-array files have no samples at all.
    for name in ["simple-hermes.json", "hermes-multiple-frames.json"] {
        let text = corpus(name).unwrap();
        assert!(text.trim_start().starts_with('['), "{name} is an event array");
        assert!(sample_lists(&text).is_none());
    }
}
