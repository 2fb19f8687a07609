//! Ordering and nesting: the comparator DevTools sorts entries with, the
//! merge of two sorted lists, and the tree builder.

use std::cmp::Ordering;

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
/// items come first. The callers merge ranges of indices, made as they
/// are read rather than stored.
pub fn merge<T: Copy>(
    a: impl IntoIterator<Item = T>,
    b: impl IntoIterator<Item = T>,
    span: impl Fn(T) -> Span,
) -> Vec<T> {
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    let mut out = Vec::with_capacity(a.size_hint().0 + b.size_hint().0);
    while let (Some(&x), Some(&y)) = (a.peek(), b.peek()) {
        let next = if compare(&span(x), &span(y)) == Ordering::Greater {
            b.next()
        } else {
            a.next()
        };
        out.extend(next);
    }
    out.extend(a);
    out.extend(b);
    out
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
/// starts inside and ends outside is left out (and counted).
///
/// # Panics
///
/// With more than `u32::MAX` items, as nodes are indexed by `u32` (the
/// Renderer handler never gives that many: a thread's nodes are fewer).
pub fn build_tree<T: Copy>(items: &[T], span: impl Fn(T) -> Span, diag: &mut Diagnostics) -> Vec<Nested<T>> {
    // Bounds every node index, depth and stack length below.
    assert!(
        u32::try_from(items.len()).is_ok(),
        "build_tree: more than u32::MAX items"
    );
    let mut nodes: Vec<Nested<T>> = Vec::with_capacity(items.len());
    let mut stack: Vec<u32> = Vec::new();
    let mut i = 0;
    while i < items.len() {
        let item = items[i];
        let s = span(item);
        let duration = s.dur.unwrap_or(0.0);
        let Some(&top) = stack.last() else {
            nodes.push(Nested {
                item,
                depth: 0,
                self_time: duration,
            });
            #[allow(clippy::cast_possible_truncation)] // no more nodes than items
            stack.push((nodes.len() - 1) as u32);
            i += 1;
            continue;
        };
        let parent = span(nodes[top as usize].item);
        let parent_end = parent.ts + parent.dur.unwrap_or(0.0);
        if s.ts < parent.ts {
            // DevTools throws on this (unsorted input); we leave it out.
            diag.skip(tracekit_events::Skip::TreeStartsBeforeParent, || {
                format!("entry at ts {}", s.ts)
            });
            i += 1;
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
            i += 1;
            continue;
        }
        nodes[top as usize].self_time -= duration;
        // The stack holds nodes, which are no more than the items.
        #[allow(clippy::cast_possible_truncation)]
        let (depth, index) = (stack.len() as u32, nodes.len() as u32);
        nodes.push(Nested {
            item,
            depth,
            self_time: duration,
        });
        stack.push(index);
        i += 1;
    }
    nodes
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
        let tree = build_tree(&items, span, &mut diag);
        let shape: Vec<(u32, f64)> = tree.iter().map(|n| (n.depth, n.self_time)).collect();
        assert_eq!(shape, vec![(0, 5.0), (1, 2.0), (2, 1.0), (1, 2.0), (0, 1.0)]);
        assert_eq!(diag.total_skipped(), 1);
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
        let order: String = merged.iter().map(|x| x.2).collect();
        assert_eq!(order, "abba");
    }
}
