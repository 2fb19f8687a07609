//! What the timeline handlers share: JavaScript's number conversion of a
//! raw JSON value, DevTools' binary search for the nearest item, its time
//! order of events, and the members of an event object as a spread copies
//! them.

use std::cmp::Ordering;

use tracekit_events::json::object_members;
use tracekit_events::Micros;

pub(crate) use tracekit_events::json::js_number;

/// The index DevTools' `nearestIndexFromEnd` finds: the last item for
/// which `pred` holds, by bisection (on an unsorted list, what the
/// bisection meets, as DevTools' does).
pub(crate) fn nearest_from_end(len: usize, pred: impl Fn(usize) -> bool) -> Option<usize> {
    nearest(len, pred, true)
}

/// The index DevTools' `nearestIndexFromBeginning` finds: the first item
/// for which `pred` holds, by bisection.
pub(crate) fn nearest_from_beginning(len: usize, pred: impl Fn(usize) -> bool) -> Option<usize> {
    nearest(len, pred, false)
}

fn nearest(len: usize, pred: impl Fn(usize) -> bool, from_end: bool) -> Option<usize> {
    if len == 0 {
        return None;
    }
    let (mut left, mut right) = (0usize, len - 1);
    while right != left {
        let span = right - left;
        // The middle rounded up when searching from the end, down else.
        let pivot = if from_end {
            left + span.div_ceil(2)
        } else {
            left + span / 2
        };
        let to_the_right = pred(pivot) == from_end;
        if to_the_right {
            left = right.min(pivot + usize::from(left == pivot));
        } else {
            right = left.max(if right == pivot { pivot - 1 } else { pivot });
        }
    }
    pred(left).then_some(left)
}

/// DevTools' time order of events (`eventTimeComparator`): by start, then
/// the longer first; `dur` missing counts as 0.
pub(crate) fn time_order(a: (Micros, Option<Micros>), b: (Micros, Option<Micros>)) -> Ordering {
    let end = |(ts, dur): (Micros, Option<Micros>)| ts.0 + dur.map_or(0.0, |d| d.0);
    if a.0 .0 < b.0 .0 {
        Ordering::Less
    } else if a.0 .0 > b.0 .0 {
        Ordering::Greater
    } else if end(a) > end(b) {
        Ordering::Less
    } else if end(a) < end(b) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// The members of the JSON object `text` as a spread (`{...object}`)
/// copies them: each key once, at its first place, with its last value.
pub(crate) fn spread_members(text: &str) -> Vec<(String, &str)> {
    let mut out: Vec<(String, &str)> = Vec::new();
    for (key, value) in object_members(text) {
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => out.push((key.into_owned(), value)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bisection_finds_the_nearest_items() {
        let xs = [1.0, 3.0, 5.0, 7.0];
        assert_eq!(nearest_from_end(4, |i| xs[i] < 6.0), Some(2));
        assert_eq!(nearest_from_end(4, |i| xs[i] < 0.5), None);
        assert_eq!(nearest_from_beginning(4, |i| xs[i] > 3.0), Some(2));
        assert_eq!(nearest_from_beginning(4, |i| xs[i] > 9.0), None);
        assert_eq!(nearest_from_end(1, |i| xs[i] < 2.0), Some(0));
    }

    #[test]
    fn numbers_convert_as_javascript_does() {
        assert_eq!(js_number(Some("null")), 0.0);
        assert_eq!(js_number(Some("\"12\"")), 12.0);
        assert!(js_number(None).is_nan());
        assert!(js_number(Some("{}")).is_nan());
    }

    #[test]
    fn a_spread_keeps_the_last_value_at_the_first_place() {
        let m = spread_members(r#"{"a":1,"b":2,"a":3}"#);
        assert_eq!(m, vec![("a".to_owned(), "3"), ("b".to_owned(), "2")]);
    }
}
