//! The sample counts of the Call Tree (`SampleCounts`) against the
//! profile's own samples: for a `.cpuprofile`, each sample counts for the
//! path of node ids from its node up to the root, which this test works
//! out from the raw JSON alone (the ids as `docs/views.md` defines them),
//! independently of the samples integrator and of the views' walk.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(name)
}

fn read(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&bytes[..]).read_to_end(&mut out).unwrap();
        out
    } else {
        bytes
    }
}

/// DevTools' node id of a profile node's call frame.
fn frame_id(frame: &Value) -> String {
    let truthy = |v: &Value| match v {
        Value::String(s) => !s.is_empty(),
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::Bool(b) => *b,
        _ => false,
    };
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let location = if truthy(&frame["scriptId"]) {
        text(&frame["scriptId"])
    } else if truthy(&frame["url"]) {
        text(&frame["url"])
    } else {
        String::new()
    };
    let name = frame["functionName"].as_str().unwrap();
    // Native V8 runtime frames are named by their group.
    let name = if frame["url"] != "native V8Runtime" {
        name
    } else if name.starts_with("Parse") {
        "Parse"
    } else if name.starts_with("Compile") || name.starts_with("Recompile") {
        "Compile"
    } else {
        "null"
    };
    // A missing number reads as JavaScript prints `undefined`.
    let number = |v: &Value| {
        if v.is_null() {
            "undefined".to_owned()
        } else {
            v.to_string()
        }
    };
    format!(
        "f:{}@{}:{}:{}",
        name,
        location,
        number(&frame["lineNumber"]),
        number(&frame["columnNumber"])
    )
}

/// Expected self counts by path of ids, for the samples taken in
/// `[start, end)` µs (absolute), and how many samples that is.
fn expected(profile: &Value, start: f64, end: f64) -> (BTreeMap<Vec<String>, u32>, u32) {
    let nodes = profile["nodes"].as_array().unwrap();
    let mut parent: BTreeMap<i64, i64> = BTreeMap::new();
    let mut by_id: BTreeMap<i64, &Value> = BTreeMap::new();
    for node in nodes {
        let id = node["id"].as_i64().unwrap();
        by_id.insert(id, node);
        for child in node["children"].as_array().into_iter().flatten() {
            parent.insert(child.as_i64().unwrap(), id);
        }
    }
    let path_of = |mut id: i64| -> Vec<String> {
        let mut path = Vec::new();
        while let Some(&p) = parent.get(&id) {
            path.push(frame_id(&by_id[&id]["callFrame"]));
            id = p;
        }
        path.reverse();
        path
    };
    let mut t = profile["startTime"].as_f64().unwrap();
    let mut counts = BTreeMap::new();
    let mut total = 0;
    // The garbage collector's samples nest under the previous sample's
    // stack, as the Performance panel draws them.
    let mut previous: Option<Vec<String>> = None;
    for (sample, delta) in profile["samples"]
        .as_array()
        .unwrap()
        .iter()
        .zip(profile["timeDeltas"].as_array().unwrap())
    {
        t += delta.as_f64().unwrap();
        let mut path = path_of(sample.as_i64().unwrap());
        if path == ["f:(garbage collector)@0:-1:-1"] {
            if let Some(p) = &previous {
                path = p.iter().cloned().chain(path).collect();
            }
        } else {
            previous = Some(path.clone());
        }
        if start <= t && t <= end {
            total += 1;
            *counts.entry(path).or_insert(0) += 1;
        }
    }
    (counts, total)
}

/// The views' self counts by path of ids, and the counts as computed.
fn ours(
    analysis: &tracekit::Analysis,
    window: Option<(f64, f64)>,
) -> (BTreeMap<Vec<String>, u32>, tracekit_views::SampleCounts) {
    let track = analysis.threads().next().unwrap().track();
    let window = window.map(|(a, b)| tracekit::query::Window::new(tracekit::Millis(a), tracekit::Millis(b)).unwrap());
    let window = tracekit_views::Window::new(analysis.bounds(), window);
    let views = tracekit_views::thread_views(analysis, track, window).unwrap();
    let counts = views.samples.clone().expect("a profile has sample counts");
    let tree = &views.top_down;
    let mut out = BTreeMap::new();
    let mut stack: Vec<(u32, Vec<String>)> = vec![(0, Vec::new())];
    while let Some((node, path)) = stack.pop() {
        if node != 0 && counts.own[node as usize] > 0 {
            out.insert(path.clone(), counts.own[node as usize]);
        }
        for &child in &tree.nodes[node as usize].children {
            let mut p = path.clone();
            p.push(views.ids[tree.nodes[child as usize].id as usize].clone());
            stack.push((child, p));
        }
    }
    (out, counts)
}

/// Counts by leaf: the last id of each path.
fn by_leaf(paths: &BTreeMap<Vec<String>, u32>) -> BTreeMap<String, u32> {
    let mut out = BTreeMap::new();
    for (path, n) in paths {
        *out.entry(path.last().cloned().unwrap_or_default()).or_insert(0) += n;
    }
    out
}

/// Checks the counts of a profile's Call Tree over `window` against its
/// samples: by path of ids if `paths`, else by leaf id only (see
/// [`a_node_recording_counts_every_sample_in_its_leaf_call`]).
fn check(name: &str, window: Option<(f64, f64)>, paths: bool) {
    let bytes = read(&fixture(name));
    let profile: Value = serde_json::from_slice(&bytes).unwrap();
    let analysis = tracekit::analyze_bytes(&bytes, &Default::default()).unwrap();
    let origin = analysis.bounds().min.0;
    let (start, end) = match window {
        Some((a, b)) => (
            origin + tracekit::Millis(a).to_micros().0,
            origin + tracekit::Millis(b).to_micros().0,
        ),
        None => (f64::NEG_INFINITY, f64::INFINITY),
    };
    let (mut want, want_total) = expected(&profile, start, end);
    let (mut got, counts) = ours(&analysis, window);
    if !paths {
        let leaves = |m: &BTreeMap<Vec<String>, u32>| by_leaf(m).into_iter().map(|(k, v)| (vec![k], v)).collect();
        want = leaves(&want);
        got = leaves(&got);
    }
    assert_eq!(counts.unattributed, 0, "{name}");
    assert_eq!(counts.in_window, want_total, "{name}: samples in the window");
    assert_eq!(counts.total[0], want_total, "{name}: samples in the tree");
    let short = |p: &Vec<String>| {
        let tail: Vec<&str> = p.iter().rev().take(3).map(String::as_str).collect();
        format!("depth {} ...{tail:?}", p.len())
    };
    let differences: Vec<String> = want
        .iter()
        .filter(|(p, n)| got.get(*p) != Some(n))
        .map(|(p, n)| format!("{}: expected {n}, got {:?}", short(p), got.get(p)))
        .chain(
            got.iter()
                .filter(|(p, _)| !want.contains_key(*p))
                .map(|(p, n)| format!("{}: unexpected {n}", short(p))),
        )
        .collect();
    assert!(differences.is_empty(), "{name} {window:?}:\n{}", differences.join("\n"));
    // Totals are the sums of the subtrees.
    let tree_total: u32 = counts.own.iter().sum();
    assert_eq!(tree_total, counts.total[0]);
}

/// On a real recording the Call Tree's paths are not always the samples'
/// stacks: a call whose end, computed in floating point, falls a hair
/// after the next call's start holds that call as a child, in DevTools'
/// tree as in ours (the views goldens of this trace match). So each
/// sample is checked to count for a call of its own leaf function.
#[test]
fn a_node_recording_counts_every_sample_in_its_leaf_call() {
    check("traces/node-work.cpuprofile.gz", None, false);
    check("traces/node-work.cpuprofile.gz", Some((100.0, 300.0)), false);
}

/// (`no-url.cpuprofile` and `node.cpuprofile` have a repaired `(program)`
/// sample: see [`a_program_sample_inside_a_call_counts_for_that_call`].)
#[test]
fn hand_written_profiles_count_their_samples() {
    for name in ["handwritten/views/js.cpuprofile", "handwritten/views/sparse.cpuprofile"] {
        check(name, None, true);
    }
    check("handwritten/views/js.cpuprofile", Some((0.25, 0.95)), true);
}

/// DevTools' profile model takes a `(program)` sample between two samples
/// of the same stack for a sample the profiler missed, and gives it the
/// previous sample's node: it counts there, as the track draws it.
#[test]
fn a_program_sample_inside_a_call_counts_for_that_call() {
    let bytes = read(&fixture("handwritten/views/no-url.cpuprofile"));
    let analysis = tracekit::analyze_bytes(&bytes, &Default::default()).unwrap();
    let (got, counts) = ours(&analysis, None);
    assert_eq!((counts.in_window, counts.unattributed), (7, 0));
    let path = |p: &[&str]| p.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let expected: BTreeMap<Vec<String>, u32> = [
        // Samples 1, 5 and 7, and the (program) sample 6 between 5 and 7.
        (path(&["f:noUrlNoScript@:3:1"]), 4),
        (path(&["f:noUrlNoScript@:3:1", "f:noUrlScript@5:8:2"]), 2),
        (path(&["f:noUrlNoScript@:3:1", "f:emptyUrl@:9:0"]), 1),
    ]
    .into_iter()
    .collect();
    assert_eq!(got, expected);
}

/// Two samples at the same time make a call of no duration, which the
/// views take for an instant: its sample is counted as unattributed.
#[test]
fn a_sample_of_a_call_of_no_duration_is_unattributed() {
    let profile = r#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3]},{"id":2,"callFrame":{"functionName":"a","scriptId":"1","url":"u","lineNumber":1,"columnNumber":1}},{"id":3,"callFrame":{"functionName":"b","scriptId":"1","url":"u","lineNumber":2,"columnNumber":1}}],"startTime":1000,"endTime":1400,"samples":[2,3,2,2],"timeDeltas":[100,0,100,100]}"#;
    let analysis = tracekit::analyze_bytes(profile.as_bytes(), &Default::default()).unwrap();
    let (got, counts) = ours(&analysis, None);
    assert_eq!((counts.in_window, counts.unattributed), (4, 1));
    // The first sample (a, at the time of b's) is the call of no duration.
    let expected: BTreeMap<Vec<String>, u32> = [(vec!["f:a@1:1:1".to_owned()], 2), (vec!["f:b@1:2:1".to_owned()], 1)]
        .into_iter()
        .collect();
    assert_eq!(got, expected);
}
