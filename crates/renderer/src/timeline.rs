//! Ordering and nesting: the comparator DevTools sorts entries with, the
//! merge of two sorted lists, and the tree builder.

use std::cmp::Ordering;
use std::iter::Peekable;

use tracekit_events::Diagnostics;

/// What the ordering and the tree need to know of an entry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    /// When it starts, in microseconds.
    pub ts: f64,
    /// `None` for events without a duration (instants).
    pub dur: Option<f64>,
    /// Profile calls go first among entries with equal start and end.
    pub is_profile_call: bool,
}

impl Span {
    /// When it ends: `ts + dur`, or `ts` without a duration.
    pub fn end(&self) -> f64 {
        self.ts + self.dur.unwrap_or(0.0)
    }
}

/// Earlier start first; for equal starts, longer first; for equal spans,
/// profile calls before trace events (the sampler most likely meant to
/// parent the event with the call).
pub fn compare(a: &Span, b: &Span) -> Ordering {
    if a.ts < b.ts {
        return Ordering::Less;
    }
    if a.ts > b.ts {
        return Ordering::Greater;
    }
    let (a_end, b_end) = (a.end(), b.end());
    if a_end > b_end {
        return Ordering::Less;
    }
    if a_end < b_end {
        return Ordering::Greater;
    }
    match (a.is_profile_call, b.is_profile_call) {
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => Ordering::Equal,
    }
}

/// Merges two sequences each sorted by [`compare`]; on ties the first's
/// items come first. The merge is lazy: the callers merge ranges of
/// indices and walk the result once, so that it is never stored.
pub fn merge<T: Copy, A: IntoIterator<Item = T>, B: IntoIterator<Item = T>, F: Fn(T) -> Span>(
    a: A,
    b: B,
    span: F,
) -> Merge<A::IntoIter, B::IntoIter, F> {
    Merge {
        a: a.into_iter().peekable(),
        b: b.into_iter().peekable(),
        span,
    }
}

/// The merged sequence of [`merge`].
pub struct Merge<A: Iterator, B: Iterator, F> {
    a: Peekable<A>,
    b: Peekable<B>,
    span: F,
}

impl<T: Copy, A: Iterator<Item = T>, B: Iterator<Item = T>, F: Fn(T) -> Span> Iterator for Merge<A, B, F> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        match (self.a.peek(), self.b.peek()) {
            (Some(&x), Some(&y)) if compare(&(self.span)(x), &(self.span)(y)) == Ordering::Greater => self.b.next(),
            (Some(_), _) => self.a.next(),
            (None, _) => self.b.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (a, b) = (self.a.size_hint(), self.b.size_hint());
        (
            a.0.saturating_add(b.0),
            a.1.zip(b.1).and_then(|(x, y)| x.checked_add(y)),
        )
    }
}

/// A node of a built tree. Nodes come out in pre-order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Nested<T> {
    /// The entry.
    pub item: T,
    /// Its depth (roots at 0).
    pub depth: u32,
    /// Its duration less its children's, in microseconds.
    pub self_time: f64,
}

/// Nests sorted entries into a tree: an entry is the child of the entry
/// on top of the stack when it starts and ends inside it; an entry that
/// starts inside and ends outside is left out (and counted). The nodes
/// come out in pre-order, made by `make` of an entry, its span and its
/// depth, with a self time (reached through `self_time`) that starts as
/// its duration and is lessened by each child's: the caller's own node
/// type is built in the one pass, with no list of entries or of
/// intermediate nodes beside it.
///
/// An entry nested more than [`MAX_DEPTH`](crate::MAX_DEPTH) levels deep
/// is left out too (and counted), whatever the node type.
///
/// # Panics
///
/// With more than `u32::MAX` nodes, as nodes are indexed by `u32` (the
/// Renderer handler never gives that many: a thread's nodes are fewer).
pub fn build_tree<T: Copy, N>(
    items: impl IntoIterator<Item = T>,
    span: impl Fn(T) -> Span,
    make: impl FnMut(T, Span, u32) -> N,
    self_time: impl Fn(&mut N) -> &mut f64,
    diag: &mut Diagnostics,
) -> Vec<N> {
    build_tree_to_depth(items, span, make, self_time, diag, crate::MAX_DEPTH)
}

/// [`build_tree`] with the deepest depth kept as a parameter (the tests'
/// trees reach a small one).
fn build_tree_to_depth<T: Copy, N>(
    items: impl IntoIterator<Item = T>,
    span: impl Fn(T) -> Span,
    mut make: impl FnMut(T, Span, u32) -> N,
    self_time: impl Fn(&mut N) -> &mut f64,
    diag: &mut Diagnostics,
    max_depth: u32,
) -> Vec<N> {
    let mut items = items.into_iter().peekable();
    let mut nodes: Vec<N> = Vec::with_capacity(items.size_hint().0);
    // The open nodes, innermost last: index, start and end.
    let mut stack: Vec<(u32, f64, f64)> = Vec::new();
    while let Some(&item) = items.peek() {
        let s = span(item);
        let duration = s.dur.unwrap_or(0.0);
        let index = u32::try_from(nodes.len()).expect("build_tree: more than u32::MAX nodes");
        let Some(&(top, parent_ts, parent_end)) = stack.last() else {
            nodes.push(make(item, s, 0));
            stack.push((index, s.ts, s.ts + duration));
            items.next();
            continue;
        };
        if s.ts < parent_ts {
            // DevTools throws on this (unsorted input); we leave it out.
            diag.skip(tracekit_events::Skip::TreeStartsBeforeParent, || {
                format!("entry at ts {}", s.ts)
            });
            items.next();
            continue;
        }
        if s.ts >= parent_end {
            stack.pop();
            continue;
        }
        if s.ts + duration > parent_end {
            diag.skip(tracekit_events::Skip::TreeEndsAfterParent, || {
                format!(
                    "entry at ts {} ends at {}, parent ends at {}",
                    s.ts,
                    s.ts + duration,
                    parent_end
                )
            });
            items.next();
            continue;
        }
        // The stack holds nodes, which are no more than `u32::MAX`.
        #[allow(clippy::cast_possible_truncation)]
        let depth = stack.len() as u32;
        if depth > max_depth {
            diag.skip(tracekit_events::Skip::TreeTooDeep, || format!("entry at ts {}", s.ts));
            items.next();
            continue;
        }
        *self_time(&mut nodes[top as usize]) -= duration;
        nodes.push(make(item, s, depth));
        stack.push((index, s.ts, s.ts + duration));
        items.next();
    }
    nodes
}

impl<T> Nested<T> {
    /// The node of `item` at `depth`, its self time its duration (the
    /// `make` of [`build_tree`] for a plain tree of items).
    pub fn new(item: T, span: Span, depth: u32) -> Self {
        Nested {
            item,
            depth,
            self_time: span.dur.unwrap_or(0.0),
        }
    }

    /// Its self time (the `self_time` of [`build_tree`]).
    pub fn self_time_mut(&mut self) -> &mut f64 {
        &mut self.self_time
    }
}

#[cfg(test)]
mod more_tests;

#[cfg(test)]
mod tests {
    use super::*;

    fn span(x: (f64, f64)) -> Span {
        Span {
            ts: x.0,
            dur: Some(x.1),
            is_profile_call: false,
        }
    }

    #[test]
    fn nests_and_computes_self_time() {
        let items = [(0.0, 10.0), (1.0, 3.0), (2.0, 1.0), (5.0, 2.0), (6.0, 5.0), (12.0, 1.0)];
        let mut diag = Diagnostics::default();
        let tree = build_tree(items, span, Nested::new, Nested::self_time_mut, &mut diag);
        let shape: Vec<(u32, f64)> = tree.iter().map(|n| (n.depth, n.self_time)).collect();
        assert_eq!(shape, vec![(0, 5.0), (1, 2.0), (2, 1.0), (1, 2.0), (0, 1.0)]);
        assert_eq!(diag.total_skipped(), 1);
    }

    #[test]
    fn entries_nested_too_deep_are_left_out_and_counted() {
        // Depths 0, 1, 2, 3, then a root again; at most 2 is kept.
        let items = [(0.0, 10.0), (1.0, 8.0), (2.0, 6.0), (3.0, 4.0), (4.0, 1.0), (12.0, 1.0)];
        let mut diag = Diagnostics::default();
        let tree = build_tree_to_depth(items, span, Nested::new, Nested::self_time_mut, &mut diag, 2);
        let shape: Vec<(u32, f64)> = tree.iter().map(|n| (n.depth, n.item.0)).collect();
        assert_eq!(shape, vec![(0, 0.0), (1, 1.0), (2, 2.0), (0, 12.0)]);
        assert_eq!(diag.skipped[&tracekit_events::Skip::TreeTooDeep].count, 2);
        // What was left out takes nothing from its would-be parent.
        assert_eq!(tree[2].self_time, 6.0);
    }

    #[test]
    fn sorts_longest_first_and_calls_first() {
        let a = Span {
            ts: 1.0,
            dur: Some(5.0),
            is_profile_call: false,
        };
        let b = Span {
            ts: 1.0,
            dur: Some(2.0),
            is_profile_call: false,
        };
        let c = Span {
            ts: 1.0,
            dur: Some(2.0),
            is_profile_call: true,
        };
        assert_eq!(compare(&a, &b), Ordering::Less);
        assert_eq!(compare(&c, &b), Ordering::Less);
        assert_eq!(compare(&b, &b), Ordering::Equal);
    }

    #[test]
    fn merge_keeps_ties_from_the_first_list() {
        let merged = merge(
            [(1.0, 1.0, 'a'), (3.0, 0.0, 'a')],
            [(1.0, 1.0, 'b'), (2.0, 0.0, 'b')],
            |x| Span {
                ts: x.0,
                dur: Some(x.1),
                is_profile_call: false,
            },
        );
        let order: String = merged.map(|x| x.2).collect();
        assert_eq!(order, "abba");
    }
}
