//! JavaScript's `Array.prototype.sort` as V8 runs it, for comparators that
//! are not a consistent order (DevTools' user timing comparator calls
//! events of different tracks equal, which is not transitive): the result
//! of such a sort depends on the algorithm, so this follows V8's TimSort
//! step by step for its runs (the initial run found, reversed if strictly
//! descending, then extended to the minimum run length by binary
//! insertion), which for fewer than 64 items is the whole sort. Longer
//! lists' runs are merged by a plain stable merge, which gives V8's result
//! whenever the comparator is consistent between runs.

use std::cmp::Ordering;

/// Sorts `items` as V8 sorts an array with this comparator.
pub fn v8_sort_by<T: Clone>(items: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let n = items.len();
    if n < 2 {
        return;
    }
    let min_run = min_run_length(n);
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut low = 0;
    while low < n {
        let mut run = count_and_make_run(items, low, n, &mut cmp);
        if run < min_run {
            let forced = min_run.min(n - low);
            binary_insertion_sort(items, low, low + run, low + forced, &mut cmp);
            run = forced;
        }
        runs.push((low, low + run));
        low += run;
    }
    while runs.len() > 1 {
        let mut merged = Vec::with_capacity(runs.len().div_ceil(2));
        for pair in runs.chunks(2) {
            match pair {
                [a, b] => {
                    merge(items, a.0, a.1, b.1, &mut cmp);
                    merged.push((a.0, b.1));
                }
                [a] => merged.push(*a),
                _ => {}
            }
        }
        runs = merged;
    }
}

/// V8's minimum run length for `n` items (`n` itself below 64).
fn min_run_length(mut n: usize) -> usize {
    let mut r = 0;
    while n >= 64 {
        r |= n & 1;
        n >>= 1;
    }
    n + r
}

/// The length of the run starting at `low`: ascending (each item not
/// below the one before) or strictly descending, which is reversed.
fn count_and_make_run<T>(items: &mut [T], low: usize, high: usize, cmp: &mut impl FnMut(&T, &T) -> Ordering) -> usize {
    let next = low + 1;
    if next == high {
        return 1;
    }
    let descending = cmp(&items[next], &items[low]) == Ordering::Less;
    let mut length = 2;
    let mut previous = next;
    for i in next + 1..high {
        let order = cmp(&items[i], &items[previous]);
        let ends = if descending {
            order != Ordering::Less
        } else {
            order == Ordering::Less
        };
        if ends {
            break;
        }
        previous = i;
        length += 1;
    }
    if descending {
        items[low..low + length].reverse();
    }
    length
}

/// Inserts the items of `start..high` one by one into the sorted
/// `low..start`, each after the last item it does not sort before.
fn binary_insertion_sort<T: Clone>(
    items: &mut [T],
    low: usize,
    start: usize,
    high: usize,
    cmp: &mut impl FnMut(&T, &T) -> Ordering,
) {
    let start = if low == start { start + 1 } else { start };
    for i in start..high {
        let pivot = items[i].clone();
        let (mut left, mut right) = (low, i);
        while left < right {
            let mid = left + ((right - left) >> 1);
            if cmp(&pivot, &items[mid]) == Ordering::Less {
                right = mid;
            } else {
                left = mid + 1;
            }
        }
        items[left..=i].rotate_right(1);
    }
}

/// Merges the sorted `low..mid` and `mid..high`, the left one's items
/// first among equals.
fn merge<T: Clone>(items: &mut [T], low: usize, mid: usize, high: usize, cmp: &mut impl FnMut(&T, &T) -> Ordering) {
    let left: Vec<T> = items[low..mid].to_vec();
    let (mut i, mut j, mut k) = (0, mid, low);
    while i < left.len() && j < high {
        if cmp(&items[j], &left[i]) == Ordering::Less {
            items[k] = items[j].clone();
            j += 1;
        } else {
            items[k] = left[i].clone();
            i += 1;
        }
        k += 1;
    }
    while i < left.len() {
        items[k] = left[i].clone();
        i += 1;
        k += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably_short_and_long_lists() {
        for n in [0usize, 1, 2, 5, 63, 64, 65, 200, 1000] {
            let mut items: Vec<(usize, usize)> = (0..n).map(|i| ((i * 7919) % 13, i)).collect();
            let mut expected = items.clone();
            expected.sort_by_key(|x| x.0);
            v8_sort_by(&mut items, |a, b| a.0.cmp(&b.0));
            assert_eq!(items, expected, "n = {n}");
        }
    }

    /// A comparator calling every pair equal but `a` and `c` keeps the
    /// order binary insertion gives, as in V8 (Node:
    /// `[a, b, c].sort(...)` with `c < a` only gives `[a, b, c]`).
    #[test]
    fn an_inconsistent_comparator_sorts_as_v8_does() {
        let mut items = vec!['a', 'b', 'c'];
        v8_sort_by(&mut items, |x, y| match (x, y) {
            ('c', 'a') => Ordering::Less,
            ('a', 'c') => Ordering::Greater,
            _ => Ordering::Equal,
        });
        assert_eq!(items, ['a', 'b', 'c']);
        let only_c_before_a = |x: &char, y: &char| match (x, y) {
            ('c', 'a') => Ordering::Less,
            ('a', 'c') => Ordering::Greater,
            _ => Ordering::Equal,
        };
        // Node gives "cab" and "bcaa".
        let mut items = vec!['a', 'c', 'b'];
        v8_sort_by(&mut items, only_c_before_a);
        assert_eq!(items, ['c', 'a', 'b']);
        let mut items = vec!['b', 'a', 'c', 'a'];
        v8_sort_by(&mut items, only_c_before_a);
        assert_eq!(items, ['b', 'c', 'a', 'a']);
        let mut descending = vec![3, 2, 1, 1];
        v8_sort_by(&mut descending, |x: &i32, y: &i32| x.cmp(y));
        assert_eq!(descending, [1, 1, 2, 3]);
    }
}
