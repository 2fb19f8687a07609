//! What the timeline handlers read of other handlers, in the form they
//! read it: the page's navigations (the Meta handler's
//! `navigationsByFrameId` and `softNavigationsById`, [`Navigations::of`])
//! and its screenshots (the Screenshots handler's, [`Screenshots::of`]).

use tracekit_events::dump::{Dump, Value};
use tracekit_events::{EventIndex, Micros, Sym};
use tracekit_meta::MetaData;
use tracekit_page::Screenshots as PageScreenshots;

use crate::Map;

/// A navigation of the page.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Navigation {
    /// Its `navigationStart` or `SoftNavigationStart` event.
    pub event: EventIndex,
    /// When it started.
    pub ts: Micros,
    /// Its `args.data.navigationId` (`None` for a soft navigation, or when
    /// missing).
    pub navigation_id: Option<Sym>,
    /// Whether it is a `navigationStart` (else a soft navigation).
    pub hard: bool,
}

/// The navigations of a trace.
#[derive(Debug, Clone, Default)]
pub struct Navigations {
    /// The `navigationStart`s of each frame that has a renderer process,
    /// in input order, one per navigation id.
    pub by_frame: Map<Option<Sym>, Vec<Navigation>>,
    /// The soft navigations, one per `performanceTimelineNavigationId`
    /// (the last event of an id, at the place of the first).
    pub soft: Vec<Navigation>,
}

impl Navigations {
    /// The navigations of the Meta handler, as the timeline handlers read
    /// them.
    pub fn of(meta: &MetaData) -> Navigations {
        let navigations = &meta.navigations;
        let by_frame = navigations
            .by_frame_id
            .iter()
            .map(|(frame, navs)| {
                let navs = navs
                    .iter()
                    .map(|n| Navigation {
                        event: n.event,
                        ts: n.ts,
                        navigation_id: n.navigation_id,
                        hard: true,
                    })
                    .collect();
                (*frame, navs)
            })
            .collect();
        let soft = navigations
            .soft_by_id
            .values()
            .map(|n| Navigation {
                event: n.event,
                ts: n.ts,
                navigation_id: None,
                hard: false,
            })
            .collect();
        Navigations { by_frame, soft }
    }
}

/// A screenshot as the shifts refer to it: when it was taken, and where
/// the Screenshots handler keeps it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShotRef {
    /// When it was taken.
    pub ts: Micros,
    /// Where it is.
    pub at: ShotAt,
}

/// Where a screenshot is in the Screenshots handler's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShotAt {
    /// A legacy screenshot (DevTools makes a synthetic event of it): its
    /// position in `Screenshots::legacy`.
    Legacy(usize),
    /// A newer screenshot: its input event.
    Event(EventIndex),
}

/// The screenshots the shifts are compared with: the newer ones if there
/// are any, else the legacy ones, in input order (as DevTools picks them).
#[derive(Debug, Clone, Default)]
pub struct Screenshots {
    /// The screenshots.
    pub list: Vec<ShotRef>,
}

impl Screenshots {
    /// The list of the Screenshots handler's data.
    pub fn of(shots: &PageScreenshots) -> Screenshots {
        let list = if shots.screenshots.is_empty() {
            shots
                .legacy
                .iter()
                .enumerate()
                .map(|(i, s)| ShotRef {
                    ts: s.ts,
                    at: ShotAt::Legacy(i),
                })
                .collect()
        } else {
            shots
                .screenshots
                .iter()
                .map(|s| ShotRef {
                    ts: s.ts,
                    at: ShotAt::Event(s.event),
                })
                .collect()
        };
        Screenshots { list }
    }

    /// The screenshot at `at` in the dump: the input event, or DevTools'
    /// synthetic event of a legacy screenshot (the one the Screenshots
    /// handler's data refers to).
    pub fn dump_one(&self, at: usize, shots: &PageScreenshots, dump: &mut Dump<'_>) -> Value {
        match self.list.get(at).map(|s| s.at) {
            None => Value::Null,
            Some(ShotAt::Event(index)) => Value::Event(index),
            Some(ShotAt::Legacy(position)) => shots.dump_legacy(position, dump),
        }
    }
}
