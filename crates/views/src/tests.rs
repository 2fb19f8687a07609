//! Unit tests of the walk: its sums to the last bit whatever the
//! Bottom-Up keeps or whether the Call Tree is built, the trees' child
//! lookup, the Call Tree ids' check.

use tracekit_engine::{query, Millis};

use crate::bottom_up;
use crate::events::Ev;
use crate::options::threads;
use crate::summary::{thread_summary, CategoryTimes};
use crate::walk::{call_tree_ids_are_view_ids, walk_thread};
use crate::{thread_bottom_up_and_summary, thread_views_to_depth, GroupBy, Tree, Window};

/// The nodes of a tree with their times as bits: equal only if every
/// sum is the same to the last bit.
fn exact(tree: &Tree) -> Vec<(u32, bool, u64, u64, Vec<u32>)> {
    tree.nodes
        .iter()
        .map(|n| {
            (
                n.id,
                n.is_group,
                n.self_ms.to_bits(),
                n.total_ms.to_bits(),
                n.children.clone(),
            )
        })
        .collect()
}

/// A CPU profile whose function `f` calls `g`, which calls `f` again,
/// five levels deep, with `h` and `f` called in loops on the way: the
/// Bottom-Up's end markers matter wherever a call has a caller of its
/// own function below it.
fn recursive_profile() -> Vec<u8> {
    let frame = |name: &str| {
        format!(r#"{{"functionName":"{name}","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":1}}"#)
    };
    // Node 1 is the root; 2 f, 3 g, 4 f, 5 g, 6 f under each other; 7 h
    // under 4; 8 h under 6; 9 f under 8.
    let parents = [
        (2, 1, "f"),
        (3, 2, "g"),
        (4, 3, "f"),
        (5, 4, "g"),
        (6, 5, "f"),
        (7, 4, "h"),
        (8, 6, "h"),
        (9, 8, "f"),
    ];
    let mut nodes = vec![format!(r#"{{"id":1,"callFrame":{},"children":[2]}}"#, frame("(root)"))];
    for &(id, _, name) in &parents {
        let children: Vec<String> = parents.iter().filter(|p| p.1 == id).map(|p| p.0.to_string()).collect();
        nodes.push(format!(
            r#"{{"id":{id},"callFrame":{},"children":[{}]}}"#,
            frame(name),
            children.join(",")
        ));
    }
    let samples = [9, 8, 9, 6, 7, 6, 9, 4, 7, 9, 5, 3, 9, 9, 8, 2, 7, 6, 9, 1, 9, 7, 4];
    let deltas: Vec<String> = (0..samples.len()).map(|i| (100 + 37 * (i % 5)).to_string()).collect();
    let samples: Vec<String> = samples.iter().map(ToString::to_string).collect();
    format!(
        r#"{{"nodes":[{}],"startTime":0,"endTime":4000,"samples":[{}],"timeDeltas":[{}]}}"#,
        nodes.join(","),
        samples.join(","),
        deltas.join(",")
    )
    .into_bytes()
}

/// Every thread's views with the Bottom-Up's chains of callers kept
/// for every Call Tree node, for none, and for the first few only, to
/// every depth, over the whole trace and a window: the same to the
/// last bit. The kept chains change which work is done, never a sum.
#[test]
fn kept_chains_of_callers_change_no_sum() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/traces");
    let mut traces = vec![("recursive profile".to_owned(), recursive_profile())];
    for name in ["kitchen-sink.json.gz", "main-thread.json.gz", "node-work.cpuprofile.gz"] {
        traces.push((name.to_owned(), std::fs::read(root.join(name)).unwrap()));
    }
    let options = tracekit_engine::AnalyzeOptions::default().with_group_args(true);
    let mut nodes_compared = 0;
    for (name, bytes) in traces {
        let analysis = tracekit_engine::analyze_bytes(&bytes, &options).unwrap();
        let bounds = analysis.bounds();
        // The middle third, relative to the trace start.
        let length = (bounds.max - bounds.min).to_millis().0;
        let middle = query::Window::new(Millis(length / 3.0), Millis(2.0 * length / 3.0)).ok();
        for (_, _, track) in threads(&analysis) {
            for window in [Window::new(bounds, None), Window::new(bounds, middle)] {
                for (group_by, max_depth) in [(GroupBy::None, None), (GroupBy::None, Some(4)), (GroupBy::Domain, None)]
                {
                    let views = |chain_budget| {
                        walk_thread(
                            &analysis,
                            track,
                            window,
                            max_depth,
                            group_by,
                            usize::MAX,
                            Some(chain_budget),
                        )
                        .unwrap()
                        .0
                    };
                    let stepped = views(0);
                    for budget in [40, bottom_up::CHAIN_BUDGET] {
                        let kept = views(budget);
                        assert_eq!(
                            exact(&kept.bottom_up),
                            exact(&stepped.bottom_up),
                            "{name} {group_by:?} {max_depth:?} {budget}"
                        );
                        assert_eq!(exact(&kept.top_down), exact(&stepped.top_down), "{name}");
                    }
                    nodes_compared += stepped.bottom_up.nodes.len();
                }
            }
        }
    }
    assert!(nodes_compared > 10_000, "{nodes_compared}");
}

/// The Bottom-Up and Summary made from one list of events, without a
/// Call Tree, are those of the views' walk and of the Summary's own
/// walk, to the last bit: over the whole trace and a window, to depth 1
/// (the diff's), 3 and all.
#[test]
fn bottom_up_and_summary_in_one_pass_are_the_views_and_the_summary() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/traces");
    let mut traces = vec![("recursive profile".to_owned(), recursive_profile())];
    for name in [
        "kitchen-sink.json.gz",
        "main-thread.json.gz",
        "node-work.cpuprofile.gz",
        "page-load.json.gz",
    ] {
        traces.push((name.to_owned(), std::fs::read(root.join(name)).unwrap()));
    }
    let mut rows_compared = 0;
    for (name, bytes) in traces {
        let analysis = tracekit_engine::analyze_bytes(&bytes, &tracekit_engine::AnalyzeOptions::default()).unwrap();
        let bounds = analysis.bounds();
        let length = (bounds.max - bounds.min).to_millis().0;
        let middle = query::Window::new(Millis(length / 3.0), Millis(2.0 * length / 3.0)).ok();
        for (_, _, track) in threads(&analysis) {
            for window in [Window::new(bounds, None), Window::new(bounds, middle)] {
                for max_depth in [Some(1), Some(3), None] {
                    let (views, summary) =
                        thread_bottom_up_and_summary(&analysis, track, window, max_depth, usize::MAX).unwrap();
                    let walked =
                        thread_views_to_depth(&analysis, track, window, max_depth, GroupBy::None, usize::MAX).unwrap();
                    assert_eq!(
                        exact(&views.bottom_up),
                        exact(&walked.bottom_up),
                        "{name} {max_depth:?}"
                    );
                    assert_eq!(views.ids, walked.ids, "{name}");
                    assert!(views.top_down.nodes.len() <= 1 && views.samples.is_none(), "{name}");
                    let alone = thread_summary(&analysis, track, window);
                    let bits = |t: &CategoryTimes| t.times.iter().map(|(c, ms)| (*c, ms.to_bits())).collect::<Vec<_>>();
                    assert_eq!(bits(&summary), bits(&alone), "{name} {window:?}");
                    rows_compared += walked.bottom_up.nodes.len() + alone.times.len();
                }
            }
        }
    }
    assert!(rows_compared > 10_000, "{rows_compared}");
}

/// A node's children are found again whether it has few (read one by
/// one) or many (in the table, which takes them all when the node
/// passes a few), and in order of creation.
#[test]
fn children_are_found_before_and_after_a_node_has_many() {
    let mut tree = Tree::new();
    let mut made = Vec::new();
    for id in 0..20u32 {
        let child = tree.child(0, id * 7);
        made.push(child);
        // Every child so far, by its id, in an order the last-child
        // guess does not help with.
        for (earlier, &node) in (0..id + 1).zip(&made).rev() {
            assert_eq!(tree.child(0, earlier * 7), node);
        }
        // A grandchild under the newest child, and found again.
        let grandchild = tree.child(child, 1);
        assert_eq!(tree.child(child, 1), grandchild);
    }
    assert_eq!(tree.nodes[0].children, made);
    assert_eq!(tree.nodes.len(), 41);
    assert!(made.iter().all(|&c| tree.nodes[c as usize].children.len() == 1));
}

/// With grouping, an event whose id is `A/B` and one with id `A` in
/// group `B` share a Call Tree id: a Call Tree path no longer gives
/// the callers, and no chain is kept.
#[test]
fn a_call_tree_id_of_two_view_ids_keeps_no_chain() {
    let ev = |id, td_id| Ev {
        id,
        td_id,
        ..Ev::new(0.0, Some(1.0))
    };
    assert!(call_tree_ids_are_view_ids(&[ev(0, 0), ev(1, 2), ev(1, 2)], 3));
    assert!(!call_tree_ids_are_view_ids(&[ev(0, 2), ev(1, 1), ev(2, 2)], 3));
}

/// The event list comes out sorted by start, stably, -0 as 0 and NaN
/// last, whether its events came in order or not.
#[test]
fn the_event_list_is_sorted_by_start_stably() {
    let list = |starts: &[(f64, u32)]| {
        let mut by_start = crate::events::ByStart::with_capacity(starts.len());
        for &(ts, id) in starts {
            by_start.push(Ev {
                id,
                ..Ev::new(ts, None)
            });
        }
        by_start.sorted().iter().map(|e| e.id).collect::<Vec<_>>()
    };
    assert_eq!(list(&[(1.0, 0), (2.0, 1), (2.0, 2), (3.0, 3)]), [0, 1, 2, 3]);
    assert_eq!(
        list(&[(2.0, 0), (1.0, 1), (2.0, 2), (f64::NAN, 3), (0.0, 4)]),
        [4, 1, 0, 2, 3]
    );
    assert_eq!(list(&[(0.0, 0), (-0.0, 1), (f64::NAN, 2), (5.0, 3)]), [0, 1, 3, 2]);
}
