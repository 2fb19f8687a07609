//! The profile model built from `.cpuprofile` text.

use tracekit_events::{Divergence, Interner, Skip};

use super::*;
use crate::raw::parse_profile_json;

fn build(text: &str) -> (Result<CpuProfileModel, ModelError>, Diagnostics, Interner) {
    let mut interner = Interner::new();
    let mut diag = Diagnostics::default();
    let raw = parse_profile_json(text, &mut interner).unwrap();
    (CpuProfileModel::new(raw, &mut diag), diag, interner)
}

fn model(text: &str) -> (CpuProfileModel, Diagnostics, Interner) {
    let (model, diag, interner) = build(text);
    (model.unwrap(), diag, interner)
}

/// A node: `children` as written (`None`: no list), `parent` likewise.
fn node(id: i64, name: &str, children: Option<&[i64]>, parent: Option<i64>) -> String {
    let mut s = format!(
        r#"{{"id":{id},"callFrame":{{"functionName":"{name}","scriptId":"1","url":"a.js","lineNumber":{id},"columnNumber":0}}"#
    );
    if let Some(c) = children {
        s.push_str(&format!(r#","children":{c:?}"#));
    }
    if let Some(p) = parent {
        s.push_str(&format!(r#","parent":{p}"#));
    }
    s.push('}');
    s
}

fn profile(nodes: &[String], samples: &[i64], deltas: &[f64]) -> String {
    format!(
        r#"{{"nodes":[{}],"startTime":1000,"endTime":2000,"samples":{samples:?},"timeDeltas":{deltas:?}}}"#,
        nodes.join(",")
    )
}

/// The root (1) and its children a (2), b (3) and c (4).
fn root_and_abc() -> [String; 4] {
    [
        node(1, "(root)", Some(&[2, 3, 4]), None),
        node(2, "a", None, None),
        node(3, "b", None, None),
        node(4, "c", None, None),
    ]
}

/// Each node as `id<parent id:depth` in model order, and its children.
fn shape(model: &CpuProfileModel) -> Vec<String> {
    model
        .nodes
        .iter()
        .map(|n| {
            let parent = n.parent.map_or("-".to_owned(), |p| model.node(p).id.to_string());
            let children: Vec<String> = n.children.iter().map(|&c| model.node(c).id.to_string()).collect();
            format!("{}<{parent}:{} [{}]", n.id, n.depth, children.join(","))
        })
        .collect()
}

fn sample_ids(model: &CpuProfileModel) -> Vec<i64> {
    model
        .samples
        .iter()
        .map(|s| s.map_or(-1, |ix| model.node(ix).id))
        .collect()
}

/// Milliseconds, as whole microseconds.
fn times_us(model: &CpuProfileModel) -> Vec<i64> {
    // The test profiles' times are small whole numbers of microseconds.
    #[allow(clippy::cast_possible_truncation)]
    model
        .timestamps
        .iter()
        .map(|&t| tracekit_events::Millis(t).to_micros().0.round() as i64)
        .collect()
}

fn skipped(diag: &Diagnostics, reason: Skip) -> u64 {
    diag.skipped.get(&reason).map_or(0, |r| r.count)
}

/// The root has children 2 and 5; 2 has 3 and 4.
fn tree_by_children() -> String {
    profile(
        &[
            node(1, "(root)", Some(&[2, 5]), None),
            node(2, "a", Some(&[3, 4]), None),
            node(3, "b", Some(&[]), None),
            node(4, "c", None, None),
            node(5, "d", Some(&[]), None),
        ],
        &[3, 4, 5],
        &[10.0, 10.0, 10.0],
    )
}

fn tree_by_parents() -> String {
    profile(
        &[
            node(1, "(root)", None, None),
            node(2, "a", None, Some(1)),
            node(3, "b", None, Some(2)),
            node(4, "c", None, Some(2)),
            node(5, "d", None, Some(1)),
        ],
        &[3, 4, 5],
        &[10.0, 10.0, 10.0],
    )
}

#[test]
fn parent_links_and_children_lists_give_the_same_model() {
    let (by_children, diag, _) = model(&tree_by_children());
    assert!(diag.is_empty(), "{diag:?}");
    // Walked depth first, the last child first (DevTools' stack); each
    // node's children listed in the order they were reached.
    let expected = ["1<-:-1 [5,2]", "5<1:0 []", "2<1:0 [4,3]", "4<2:1 []", "3<2:1 []"];
    assert_eq!(shape(&by_children), expected);
    assert_eq!(by_children.max_depth, 1);
    let (by_parents, diag, _) = model(&tree_by_parents());
    assert!(diag.is_empty(), "{diag:?}");
    assert_eq!(shape(&by_parents), expected);
    assert_eq!(sample_ids(&by_children), sample_ids(&by_parents));
    assert_eq!(sample_ids(&by_parents), [3, 4, 5]);
}

#[test]
fn timestamps_are_milliseconds_from_the_start_with_an_estimated_end() {
    let (model, _, _) = model(&tree_by_children());
    assert_eq!(times_us(&model), [1010, 1020, 1030, 1040]);
    assert_eq!((model.profile_start_time * 1000.0).round(), 1010.0);
    assert_eq!((model.profile_end_time * 1000.0).round(), 1040.0);
}

/// Samples are sorted by time (a negative delta goes back), ties kept in
/// their order.
#[test]
fn samples_are_sorted_by_time() {
    let text = profile(
        &[
            node(1, "(root)", Some(&[2, 3, 4]), None),
            node(2, "a", None, None),
            node(3, "b", None, None),
            node(4, "c", None, None),
        ],
        &[2, 3, 4, 2, 3],
        &[10.0, 10.0, -15.0, 20.0, 0.0],
    );
    let (model, diag, _) = model(&text);
    assert!(diag.is_empty(), "{diag:?}");
    // At 1010, 1020, 1005, 1025, 1025.
    assert_eq!(sample_ids(&model), [4, 2, 3, 2, 3]);
    assert_eq!(times_us(&model), [1005, 1010, 1020, 1025, 1025, 1030]);
}

/// Samples and time deltas of different lengths, in time order or not:
/// samples without a time are dropped, times without a sample name no node.
#[test]
fn samples_and_times_of_different_lengths_pair_up_in_order_or_not() {
    let nodes = root_and_abc();
    for (samples, deltas, ids, times) in [
        (
            &[2, 3, 4, 2][..],
            &[10.0, 10.0, 10.0][..],
            &[2, 3, 4][..],
            &[1010, 1020, 1030, 1040][..],
        ),
        (&[2, 3], &[10.0, 10.0, 10.0], &[2, 3, -1], &[1010, 1020, 1030, 1040]),
        (
            &[2, 3, 4, 2],
            &[10.0, -5.0, 10.0],
            &[3, 2, 4],
            &[1005, 1010, 1015, 1020],
        ),
        (&[2, 3], &[10.0, -5.0, 10.0], &[3, 2, -1], &[1005, 1010, 1015, 1020]),
    ] {
        let (model, _, _) = model(&profile(&nodes, samples, deltas));
        assert_eq!(sample_ids(&model), ids, "{samples:?} {deltas:?}");
        assert_eq!(times_us(&model), times, "{samples:?} {deltas:?}");
    }
}

/// A lone `(program)` sample between two samples whose stacks share their
/// bottom frame is a sampler failure: it takes the sample before it.
#[test]
fn a_lone_program_sample_inside_one_stack_is_repaired() {
    let nodes = [
        node(1, "(root)", Some(&[2, 3, 6, 7]), None),
        node(2, "(program)", None, None),
        node(3, "main", Some(&[4, 5]), None),
        node(4, "a", None, None),
        node(5, "b", None, None),
        node(6, "other", None, None),
        node(7, "(idle)", None, None),
    ];
    let deltas = [1.0; 7];
    let (m, _, _) = model(&profile(&nodes, &[4, 2, 5, 2, 6, 2, 7], &deltas));
    // main>a, (program), main>b: same bottom frame, repaired to a. Then
    // main>b, (program), other: not the same bottom frame; other,
    // (program), (idle): a meta node.
    assert_eq!(sample_ids(&m), [4, 4, 5, 2, 6, 2, 7]);
    // Two in a row are not a lone one; nor is one at either end.
    let (m, _, _) = model(&profile(&nodes, &[2, 4, 2, 2, 4, 2], &deltas[..6]));
    assert_eq!(sample_ids(&m), [2, 4, 2, 2, 4, 2]);
    // The meta nodes are the root's children of those names.
    assert_eq!(m.program_node.map(|p| m.node(p).id), Some(2));
    assert_eq!(m.idle_node.map(|p| m.node(p).id), Some(7));
    assert_eq!(m.gc_node, None);
}

#[test]
fn ids_naming_no_node_are_counted() {
    let text = profile(
        &[
            node(1, "(root)", Some(&[2, 9]), None),
            node(2, "a", Some(&[]), None),
            // Listed nowhere: unreachable.
            node(3, "lost", Some(&[]), None),
        ],
        &[2, 8, 2],
        &[1.0, 1.0, 1.0],
    );
    let (m, diag, _) = model(&text);
    assert_eq!(skipped(&diag, Skip::ProfileUnknownChild), 1);
    assert_eq!(skipped(&diag, Skip::ProfileUnreachableNodes), 1);
    assert_eq!(skipped(&diag, Skip::ProfileUnknownSampleNode), 1);
    assert_eq!(sample_ids(&m), [2, -1, 2]);
    assert_eq!(m.node_by_id(3), None);
    // By parent links: a parent that names no node.
    let text = profile(
        &[
            node(1, "(root)", None, None),
            node(2, "a", None, Some(1)),
            node(3, "orphan", None, Some(7)),
        ],
        &[2],
        &[1.0],
    );
    let (m, diag, _) = model(&text);
    assert_eq!(skipped(&diag, Skip::ProfileUnknownParent), 1);
    assert_eq!(skipped(&diag, Skip::ProfileUnreachableNodes), 1);
    assert_eq!(m.nodes.len(), 2);
}

/// Links that form a cycle, or reach a node twice, are followed once:
/// the model is a tree, and the divergence from DevTools (which loops) is
/// recorded.
#[test]
fn a_node_reached_twice_is_visited_once() {
    let text = profile(
        &[
            node(1, "(root)", Some(&[2, 5]), None),
            node(2, "a", Some(&[3]), None),
            node(3, "b", Some(&[2]), None),
            node(5, "c", Some(&[3]), None),
        ],
        &[2, 3, 5],
        &[1.0, 1.0, 1.0],
    );
    let (m, diag, _) = model(&text);
    assert_eq!(shape(&m), ["1<-:-1 [5]", "5<1:0 [3]", "3<5:1 [2]", "2<3:2 []"]);
    assert_eq!(skipped(&diag, Skip::ProfileNodeReachedTwice), 2);
    assert!(diag.divergences.contains_key(&Divergence::ProfileNodeCycle));
    assert_eq!(sample_ids(&m), [2, 3, 5]);
}

/// A legacy profile: a `head` tree, 1-based lines, start and end in
/// seconds, raw timestamps in microseconds.
#[test]
fn a_legacy_head_profile() {
    let text = r#"{"startTime":1,"endTime":2,"head":{"id":1,"functionName":"(root)","children":[
        {"id":2,"functionName":"f","url":"a.js","lineNumber":3,"columnNumber":5,"children":[
            {"id":3,"functionName":"g","url":"a.js","lineNumber":7,"children":[]}]},
        {"id":4,"functionName":"(program)","children":[]}]},
        "samples":[3,2,4],"timestamps":[1000000,1000010,1000030]}"#;
    let (m, diag, interner) = model(text);
    assert!(diag.is_empty(), "{diag:?}");
    assert_eq!(shape(&m), ["1<-:-1 [4,2]", "4<1:0 []", "2<1:0 [3]", "3<2:1 []"]);
    let g = m.node(m.node_by_id(3).unwrap()).call_frame;
    assert_eq!(g.label(&interner), "js:g@a.js:6:-1");
    assert_eq!(sample_ids(&m), [3, 2, 4]);
    assert_eq!(times_us(&m), [1_000_000, 1_000_010, 1_000_030, 1_000_045]);
    assert_eq!(m.program_node.map(|p| m.node(p).id), Some(4));
}

#[test]
fn a_profile_without_nodes_or_samples_is_refused() {
    let (m, _, _) = build(r#"{"nodes":[],"samples":[]}"#);
    assert_eq!(m.unwrap_err(), ModelError::NoNodes);
    let (m, _, _) = build(r#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}}]}"#);
    assert_eq!(m.unwrap_err(), ModelError::NoHitCountNorSamples);
    // A hit count will do instead of samples.
    let (m, _, _) = build(r#"{"nodes":[{"id":1,"hitCount":0,"callFrame":{"functionName":"(root)"}}]}"#);
    assert!(m.unwrap().samples.is_empty());
}

/// A large profile sorted on several cores is the one sorted on one: the
/// same samples in the same order, ties (equal times) included, whether
/// its samples are nearly in order (sorted by insertion) or far from it
/// (sorted by a merge sort, on all cores or one).
#[test]
fn a_large_profile_sorts_the_same_on_all_cores() {
    // Mostly forward, a step back now and then, and many equal times.
    let nearly = |r: u64, s: u64| match r % 10 {
        0 => -((s % 50) as f64),
        1..=3 => 0.0,
        _ => (s % 20) as f64,
    };
    // Back as often as forward, by up to a thousand.
    let far = |r: u64, _: u64| (r % 2001) as f64 - 1000.0;
    for deltas in [&nearly as &dyn Fn(u64, u64) -> f64, &far] {
        sorts_the_same_on_all_cores(deltas);
    }
}

fn sorts_the_same_on_all_cores(delta: &dyn Fn(u64, u64) -> f64) {
    let nodes = root_and_abc();
    let count = 3 * PARALLEL_SORT_MIN;
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let samples: Vec<i64> = (0..count).map(|_| 2 + (next() % 3) as i64).collect();
    let deltas: Vec<f64> = (0..count).map(|_| delta(next(), next())).collect();
    let text = profile(&nodes, &samples, &deltas);
    let mut interner = Interner::new();
    let raw = parse_profile_json(&text, &mut interner).unwrap();
    let mut diag = Diagnostics::default();
    let sequential = CpuProfileModel::new(raw.clone(), &mut diag).unwrap();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    let parallel = pool
        .install(|| CpuProfileModel::with_parallelism(raw, &mut diag, Parallelism::Rayon))
        .unwrap();
    // The reference: the samples' times, sorted stably by the standard
    // library.
    let mut times: Vec<(f64, i64)> = Vec::new();
    let mut at = 0.0;
    for (&delta, &sample) in deltas.iter().zip(&samples) {
        at += delta;
        times.push((at, sample));
    }
    times.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
    let sorted: Vec<i64> = times.iter().map(|t| t.1).collect();
    assert_eq!(sample_ids(&sequential), sorted);
    assert!(sequential.samples.windows(2).any(|w| w[0] != w[1]));
    assert_eq!(sequential.samples, parallel.samples);
    assert_eq!(
        sequential.timestamps.iter().map(|t| t.to_bits()).collect::<Vec<_>>(),
        parallel.timestamps.iter().map(|t| t.to_bits()).collect::<Vec<_>>()
    );
}

/// The insertion sort of nearly sorted times gives the standard library's
/// stable order, and gives up past its budget of moves, leaving what a
/// stable sort finishes into that same order.
#[test]
fn nearly_sorted_times_sort_by_insertion_within_a_budget() {
    // Sorted stably by the standard library: the samples' order.
    let stable = |times: &[f64], samples: &[Option<NodeIx>]| {
        let mut pairs: Vec<(f64, Option<NodeIx>)> = times.iter().copied().zip(samples.iter().copied()).collect();
        pairs.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
        pairs.into_iter().map(|p| p.1).collect::<Vec<_>>()
    };
    let numbered = |n: u32| (0..n).map(Some).collect::<Vec<Option<NodeIx>>>();
    // Equal times (the zeros, signed or not, and the 3s) keep their order.
    let times = [1.0, 3.0, 2.0, 0.0, 3.0, -0.0, 5.0, 4.0, 3.0, 6.0];
    let (mut sorted, mut samples) = (times.to_vec(), numbered(10));
    assert!(super::sort_nearly_sorted(&mut sorted, &mut samples, 11));
    assert_eq!(samples, stable(&times, &numbered(10)));
    assert!(sorted.windows(2).all(|w| w[0] <= w[1]));
    // Reversed: n(n-1)/2 moves; it stops at the budget, and a stable sort
    // finishes what it left into the same order.
    let reversed: Vec<f64> = (0..100).map(|i| f64::from(100 - i)).collect();
    let (mut partly, mut samples) = (reversed.clone(), numbered(100));
    assert!(!super::sort_nearly_sorted(&mut partly, &mut samples, 100));
    assert_ne!(samples, stable(&reversed, &numbered(100)));
    assert_eq!(stable(&partly, &samples), stable(&reversed, &numbered(100)));
    let (mut partly, mut samples) = (times.to_vec(), numbered(10));
    assert!(!super::sort_nearly_sorted(&mut partly, &mut samples, 2));
    assert_eq!(stable(&partly, &samples), stable(&times, &numbered(10)));
}
