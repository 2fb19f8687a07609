//! The ordering, the merge and the tree builder, on spans written as
//! `(name, ts, dur)`.

use std::cmp::Ordering;

use tracekit_events::{Diagnostics, Skip};

use super::*;

/// A named span: `dur` `None` for an instant; `call` for a profile call.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Item {
    name: &'static str,
    ts: f64,
    dur: Option<f64>,
    call: bool,
}

fn ev(name: &'static str, ts: f64, dur: f64) -> Item {
    Item {
        name,
        ts,
        dur: Some(dur),
        call: false,
    }
}

fn call(name: &'static str, ts: f64, dur: f64) -> Item {
    Item {
        call: true,
        ..ev(name, ts, dur)
    }
}

fn instant(name: &'static str, ts: f64) -> Item {
    Item {
        dur: None,
        ..ev(name, ts, 0.0)
    }
}

fn span(item: Item) -> Span {
    Span {
        ts: item.ts,
        dur: item.dur,
        is_profile_call: item.call,
    }
}

fn sorted(mut items: Vec<Item>) -> Vec<&'static str> {
    items.sort_by(|a, b| compare(&span(*a), &span(*b)));
    items.iter().map(|i| i.name).collect()
}

/// The tree as `depth name self` lines, and the diagnostics.
fn nest(items: &[Item]) -> (Vec<String>, Diagnostics) {
    let mut diag = Diagnostics::default();
    let tree = build_tree(
        items.iter().copied(),
        span,
        Nested::new,
        Nested::self_time_mut,
        &mut diag,
    )
    .iter()
    .map(|n| format!("{} {} {}", n.depth, n.item.name, n.self_time))
    .collect();
    (tree, diag)
}

#[test]
fn earlier_first_then_longer_first_then_profile_calls_first() {
    assert_eq!(
        sorted(vec![
            ev("late", 20.0, 1.0),
            ev("short", 10.0, 2.0),
            ev("event", 10.0, 5.0),
            call("call", 10.0, 5.0),
            ev("long", 10.0, 9.0),
            ev("early", 5.0, 100.0),
        ]),
        ["early", "long", "call", "event", "short", "late"]
    );
    // An instant lasts 0: after anything longer that starts with it.
    assert_eq!(
        sorted(vec![instant("i", 10.0), ev("zero", 10.0, 0.0), ev("x", 10.0, 1.0)]),
        ["x", "i", "zero"]
    );
    assert_eq!(
        compare(&span(instant("i", 1.0)), &span(ev("z", 1.0, 0.0))),
        Ordering::Equal
    );
    assert_eq!(
        compare(&span(call("c", 1.0, 0.0)), &span(instant("i", 1.0))),
        Ordering::Less
    );
    // A negative duration ends before the start: after a zero one.
    assert_eq!(
        compare(&span(ev("neg", 1.0, -1.0)), &span(ev("z", 1.0, 0.0))),
        Ordering::Greater
    );
}

/// On a tie the first list goes first; but a profile call is not tied
/// with an event of the same span: it goes first from either list.
#[test]
fn merge_takes_ties_from_the_first_list_and_calls_before_events() {
    let events = [ev("e1", 0.0, 10.0), ev("e2", 20.0, 5.0), ev("e3", 30.0, 1.0)];
    let calls = [call("c1", 0.0, 10.0), call("c2", 21.0, 1.0), ev("e4", 30.0, 1.0)];
    let merged: Vec<&str> = merge(events.iter().copied(), calls.iter().copied(), span)
        .map(|i| i.name)
        .collect();
    assert_eq!(merged, ["c1", "e1", "e2", "c2", "e3", "e4"]);
    let merged: Vec<&str> = merge(calls.iter().copied(), events.iter().copied(), span)
        .map(|i| i.name)
        .collect();
    assert_eq!(merged, ["c1", "e1", "e2", "c2", "e4", "e3"]);
    assert_eq!(merge(std::iter::empty::<Item>(), [], span).count(), 0);
    // The merge knows its length, so that what is built from it is sized once.
    assert_eq!(
        merge(events.iter().copied(), calls.iter().copied(), span).size_hint(),
        (6, Some(6))
    );
}

#[test]
fn children_nest_by_time_and_self_time_is_what_they_leave() {
    let (tree, diag) = nest(&[
        ev("task", 0.0, 100.0),
        ev("a", 10.0, 40.0),
        ev("a1", 10.0, 10.0),
        ev("a2", 30.0, 20.0),
        // Starts exactly where its parent ends: a sibling, not a child.
        ev("b", 50.0, 20.0),
        // Ends exactly where its parent ends: a child.
        ev("b1", 60.0, 10.0),
        // An instant at the start of the entry before it: its child.
        instant("mark", 60.0),
        ev("next", 100.0, 5.0),
    ]);
    assert_eq!(
        tree,
        [
            "0 task 40",
            "1 a 10",
            "2 a1 10",
            "2 a2 20",
            "1 b 10",
            "2 b1 10",
            "3 mark 0",
            "0 next 5",
        ]
    );
    assert!(diag.is_empty());
}

/// An entry that starts inside its parent and ends after it is left out
/// (as DevTools leaves it out) and counted; what it would have held
/// nests in the parent instead.
#[test]
fn an_entry_ending_after_its_parent_is_left_out_and_counted() {
    let (tree, diag) = nest(&[
        ev("parent", 0.0, 10.0),
        ev("straddles", 5.0, 10.0),
        ev("inside", 6.0, 1.0),
        ev("after", 12.0, 1.0),
    ]);
    assert_eq!(tree, ["0 parent 9", "1 inside 1", "0 after 1"]);
    assert_eq!(diag.skipped[&Skip::TreeEndsAfterParent].count, 1);
    assert_eq!(diag.total_skipped(), 1);
}

/// Unsorted input (which DevTools throws on): an entry that starts before
/// the open one is left out and counted.
#[test]
fn an_entry_starting_before_its_parent_is_left_out_and_counted() {
    let (tree, diag) = nest(&[ev("parent", 10.0, 10.0), ev("early", 5.0, 1.0), ev("child", 12.0, 1.0)]);
    assert_eq!(tree, ["0 parent 9", "1 child 1"]);
    assert_eq!(diag.skipped[&Skip::TreeStartsBeforeParent].count, 1);
}

#[test]
fn nested_nodes_come_in_pre_order_with_their_depths() {
    let items = [
        ev("r", 0.0, 10.0),
        ev("c", 1.0, 5.0),
        ev("g", 2.0, 1.0),
        ev("d", 7.0, 1.0),
    ];
    let tree = build_tree(
        items,
        span,
        Nested::new,
        Nested::self_time_mut,
        &mut Diagnostics::default(),
    );
    let depths: Vec<u32> = tree.iter().map(|n| n.depth).collect();
    assert_eq!(depths, [0, 1, 2, 1]);
}
