//! The frame model of tracekit: the frames a trace's main frame drew,
//! dropped, left idle or drew partly ([`FramesHandler`], DevTools'
//! `FramesHandler` and its `TimelineFrameModel`), and the layer tree's
//! paints and their snapshots ([`LayerTreeHandler`], DevTools'
//! `LayerTreeHandler`), which the frames' paints come from.

mod arg;
pub mod frames;
pub mod layer_tree;
mod model;

use indexmap::IndexMap;
use tracekit_events::{Event, EventIndex, Id, Micros};

pub use arg::ArgValue;
pub use frames::{Frame, Frames, FramesHandler, LayerPaint, LayerTreeSnapshot};
pub use layer_tree::{LayerTree, LayerTreeHandler};

type Map<K, V> = IndexMap<K, V, ahash::RandomState>;

/// Where and when an event happened: what every gathered event keeps.
#[derive(Debug, Clone, Copy)]
pub(crate) struct When {
    pub index: EventIndex,
    pub ts: Micros,
    /// `ts + dur` (`ts` without a duration), for the time order.
    pub end: Micros,
    pub pid: Id,
    pub tid: Id,
}

impl When {
    pub(crate) fn of(index: EventIndex, event: &Event<'_>) -> When {
        When {
            index,
            ts: event.ts,
            end: event.ts + event.dur.unwrap_or(Micros::ZERO),
            pid: event.pid,
            tid: event.tid,
        }
    }
}

/// Sorts events as DevTools' `sortTraceEventsInPlace` does: by start, the
/// longer first at the same start, stably (input order for the rest).
pub(crate) fn sort_by_time<T>(items: &mut [T], when: impl Fn(&T) -> &When) {
    use std::cmp::Ordering;
    let order = |a: f64, b: f64| {
        if a < b {
            Ordering::Less
        } else if a > b {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    };
    items.sort_by(|a, b| {
        let (a, b) = (when(a), when(b));
        order(a.ts.0, b.ts.0).then_with(|| order(b.end.0, a.end.0))
    });
}

#[cfg(test)]
mod tests;
