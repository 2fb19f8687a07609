//! What the timeline handlers read of other handlers: the page's
//! navigations (the Meta handler's `navigationsByFrameId` and
//! `softNavigationsById`, [`Navigations::of`]) and its screenshots
//! (`Screenshot`, as DevTools' Screenshots handler keeps them, gathered
//! here by a reader each handler embeds).

use tracekit_events::dump::{Dump, Object, Synthetic, Value};
use tracekit_events::json::{as_f64, as_str, member};
use tracekit_events::{names, Event, EventIndex, Id, Micros, Phase, Sym};
use tracekit_meta::MetaData;

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

/// A screenshot of the page.
#[derive(Debug, Clone, PartialEq)]
pub struct Screenshot {
    /// Its `Screenshot` event.
    pub event: EventIndex,
    /// When it was taken.
    pub ts: Micros,
    /// Its process.
    pub pid: Id,
    /// Its thread.
    pub tid: Id,
    /// Its category.
    pub cat: Sym,
    /// Its phase.
    pub ph: Phase,
    /// For a legacy screenshot (one with an `id`, for which DevTools makes
    /// a synthetic event): its image as a `data:` URI.
    pub data_uri: Option<Box<str>>,
}

/// The screenshots of a trace: the modern ones (`args.source_id`) if
/// there are any, else the legacy ones (an `id`).
#[derive(Debug, Clone, Default)]
pub struct Screenshots {
    /// The screenshots, in input order.
    pub list: Vec<Screenshot>,
}

/// Gathers the screenshots from their events.
#[derive(Debug, Default)]
pub struct ScreenshotReader {
    legacy: Vec<Screenshot>,
    modern: Vec<Screenshot>,
}

impl ScreenshotReader {
    /// Reads a `Screenshot` event.
    pub fn handle(&mut self, index: EventIndex, event: &Event<'_>) {
        if event.name != names::SCREENSHOT {
            return;
        }
        let shot = |data_uri| Screenshot {
            event: index,
            ts: event.ts,
            pid: event.pid,
            tid: event.tid,
            cat: event.cat,
            ph: event.ph,
            data_uri,
        };
        if member(event.text, "id").is_some() {
            let snapshot = event.args.and_then(|a| member(a, "snapshot"));
            let text = match snapshot {
                None => "undefined".into(),
                Some(raw) => match (as_str(raw), as_f64(raw)) {
                    (Some(s), _) => s.into_owned(),
                    (None, Some(x)) => tracekit_events::jsnum::js_number_string(x),
                    _ => raw.trim().to_owned(),
                },
            };
            self.legacy
                .push(shot(Some(format!("data:image/jpg;base64,{text}").into())));
        } else if event.args.and_then(|a| member(a, "source_id")).is_some() {
            self.modern.push(shot(None));
        }
    }

    /// The screenshots, once every event was read.
    pub fn finish(self) -> Screenshots {
        Screenshots {
            list: if self.modern.is_empty() {
                self.legacy
            } else {
                self.modern
            },
        }
    }
}

impl Screenshots {
    /// The screenshot at `at` in the dump: the input event, or DevTools'
    /// synthetic event of a legacy screenshot (shared with the Screenshots
    /// handler's data).
    pub fn dump_one(&self, at: usize, dump: &mut Dump<'_>) -> Value {
        let Some(shot) = self.list.get(at) else {
            return Value::Null;
        };
        let Some(uri) = &shot.data_uri else {
            return Value::Event(shot.event);
        };
        let id = dump.shared("Screenshot", u64::from(shot.event), |_| {
            let ph = if shot.ph == Phase::OTHER {
                Value::Null
            } else {
                Value::str(char::from(shot.ph.0).to_string())
            };
            let fields = Object::new()
                .with("rawSourceEvent", Value::Event(shot.event))
                .with("cat", Value::Sym(shot.cat))
                .with("name", Value::str("Screenshot"))
                .with("ph", ph)
                .with("pid", Value::id(shot.pid))
                .with("tid", Value::id(shot.tid))
                .with("ts", Value::Num(shot.ts.0))
                .with(
                    "args",
                    Object::new().with("dataUri", Value::str(uri.to_string())).into(),
                );
            Synthetic {
                name: "Screenshot".into(),
                pid: Value::id(shot.pid),
                tid: Value::id(shot.tid),
                ts: shot.ts.0,
                raw: Some(shot.event),
                profile_call: None,
                fields: Some(fields.into()),
            }
        });
        Value::Synthetic(id)
    }
}
