//! The navigations of a trace as DevTools' Meta handler indexes them (by
//! navigation id, by frame, soft navigations by their performance timeline
//! id), gathered here from the `navigationStart` and `SoftNavigationStart`
//! events until `MetaData` has them, and the lookup of the navigation an
//! event of a frame belongs to (DevTools' `getNavigationForTraceEvent`).

use tracekit_events::json::{as_str, js_truthy, member, member_path};
use tracekit_events::{names, Context, Event, EventIndex, Micros, Sym};
use tracekit_meta::MetaData;

use crate::Map;

/// One `navigationStart` event that DevTools' Meta handler keeps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Navigation {
    /// The event.
    pub event: EventIndex,
    /// When it happened.
    pub ts: Micros,
    /// Its frame (`args.frame`; `None` when not a string).
    pub frame: Option<Sym>,
    /// Its navigation id (`args.data.navigationId`; `None` when not a
    /// string).
    pub id: Option<Sym>,
}

/// One `SoftNavigationStart` event.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SoftNavigation {
    /// The event.
    pub event: EventIndex,
    /// When it happened.
    pub ts: Micros,
}

/// The navigations of a trace.
#[derive(Debug, Clone, Default)]
pub struct Navigations {
    /// The first `navigationStart` of each navigation id, of the frames
    /// some renderer process rendered (DevTools' `navigationsByNavigationId`).
    pub by_id: Map<Option<Sym>, Navigation>,
    /// Those navigations by frame, in input order (DevTools'
    /// `navigationsByFrameId`).
    pub by_frame: Map<Option<Sym>, Vec<Navigation>>,
    /// The soft navigations by their `performanceTimelineNavigationId`
    /// (interned as its raw JSON text), the last of each id (DevTools'
    /// `softNavigationsById`).
    pub soft_by_id: Map<Sym, SoftNavigation>,
}

impl Navigations {
    /// Takes a `navigationStart` whose `documentLoaderURL` is not empty
    /// (DevTools keeps only those with `args.data`).
    pub(crate) fn take_navigation_start(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let args = event.args.unwrap_or("null");
        let Some(data) = member(args, "data").filter(|d| js_truthy(d)) else {
            return;
        };
        let string = |raw: Option<&str>, cx: &mut Context| raw.and_then(as_str).map(|s| cx.interner.intern(&s));
        let id = string(member(data, "navigationId"), cx);
        if self.by_id.contains_key(&id) {
            return;
        }
        let navigation = Navigation {
            event: index,
            ts: event.ts,
            frame: string(member(args, "frame"), cx),
            id,
        };
        self.by_id.insert(id, navigation);
        self.by_frame.entry(navigation.frame).or_default().push(navigation);
    }

    /// Takes a `SoftNavigationStart`, keyed by the raw text of its
    /// `args.context.performanceTimelineNavigationId` (`false` when it
    /// has no context: DevTools throws on it).
    pub(crate) fn take_soft_navigation(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) -> bool {
        let Some(context) = event.args.and_then(|a| member(a, "context")).filter(|c| js_truthy(c)) else {
            return false;
        };
        let key = member(context, "performanceTimelineNavigationId").unwrap_or("undefined");
        let key = cx.interner.intern(key);
        self.soft_by_id.insert(
            key,
            SoftNavigation {
                event: index,
                ts: event.ts,
            },
        );
        true
    }

    /// Drops the navigations of frames no renderer process rendered, as
    /// DevTools' Meta handler does when it finalizes.
    pub(crate) fn drop_unrendered_frames(&mut self, meta: &MetaData) {
        let by_id = &mut self.by_id;
        self.by_frame.retain(|frame, navigations| {
            let keep = meta.renderer_processes_by_frame.contains_key(frame);
            if !keep {
                for navigation in navigations.iter() {
                    by_id.shift_remove(&navigation.id);
                }
            }
            keep
        });
    }

    /// The navigation of `frame` that an event at `ts` belongs to: the
    /// last one at or before it, found by DevTools' binary search (which
    /// assumes the frame's navigations are in time order). `None` for the
    /// empty frame id.
    pub fn for_frame_event(&self, frame: Option<Sym>, ts: Micros) -> Option<&Navigation> {
        let navigations = self.by_frame.get(&frame)?;
        if frame == Some(names::EMPTY) {
            return None;
        }
        nearest_index_from_end(navigations, |n| n.ts <= ts).map(|i| &navigations[i])
    }
}

/// The frame id of an event: `args.frame` when `path` is `["frame"]`,
/// `args.data.frame` for `["data", "frame"]`; `None` when not a string.
pub(crate) fn frame_at(args: Option<&str>, path: &[&str], cx: &mut Context) -> Option<Sym> {
    let raw = member_path(args?, path)?;
    as_str(raw).map(|s| cx.interner.intern(&s))
}

/// The last index whose item satisfies `pred`, found as DevTools'
/// `nearestIndexFromEnd` finds it: a binary search that assumes the items
/// satisfying it come first.
pub fn nearest_index_from_end<T>(items: &[T], pred: impl Fn(&T) -> bool) -> Option<usize> {
    if items.is_empty() {
        return None;
    }
    let (mut left, mut right) = (0, items.len() - 1);
    loop {
        // The middle, rounded up: the search leans to the end.
        let pivot = left + (right - left).div_ceil(2);
        if pred(&items[pivot]) {
            left = right.min(pivot + usize::from(left == pivot));
        } else {
            right = left.max(pivot.saturating_sub(usize::from(right == pivot)));
        }
        if right == left {
            break;
        }
    }
    pred(&items[left]).then_some(left)
}

#[cfg(test)]
mod tests {
    use super::nearest_index_from_end;

    #[test]
    fn nearest_from_end_finds_the_last_match_of_a_sorted_list() {
        let ts = [1, 3, 5, 7];
        assert_eq!(nearest_index_from_end(&ts, |t| *t <= 0), None);
        assert_eq!(nearest_index_from_end(&ts, |t| *t <= 1), Some(0));
        assert_eq!(nearest_index_from_end(&ts, |t| *t <= 6), Some(2));
        assert_eq!(nearest_index_from_end(&ts, |t| *t <= 9), Some(3));
        assert_eq!(nearest_index_from_end(&[4], |t| *t <= 3), None);
        assert_eq!(nearest_index_from_end(&[4], |t| *t <= 4), Some(0));
        assert_eq!(nearest_index_from_end::<i32>(&[], |_| true), None);
    }
}
