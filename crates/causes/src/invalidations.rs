//! The Invalidations handler: which DOM changes made a style recalculation
//! or a layout necessary. With the
//! `disabled-by-default-devtools.timeline.invalidationTracking` category,
//! Chrome writes an event for each invalidation (a style invalidation
//! scheduled, a style recalculation asked for, a layout invalidated); this
//! handler ties each to the `UpdateLayoutTree` or `Layout` of the same
//! frame that it caused, as DevTools does:
//!
//! - the invalidations of a frame since its last paint are pending; an
//!   `UpdateLayoutTree` takes the pending style invalidations, a `Layout`
//!   the pending layout ones;
//! - a style invalidation that happens during the frame's last
//!   `UpdateLayoutTree` also belongs to it;
//! - the first invalidation after a paint starts the frame's pending list
//!   afresh.
//!
//! DevTools' configuration has a limit of invalidations per event (20),
//! but the handler forgets it when it is reset before a trace is parsed,
//! so that an event keeps all of its invalidations: so does this one.

use std::borrow::Cow;

use tracekit_events::dump::{Dump, Object, Value};
use tracekit_events::json::as_str;
use tracekit_events::{names, ArgsKey, Context, Event, EventIndex, Handler, Micros, Skip, Sym, Wants};

use crate::Map;

/// An invalidation, pending in its frame.
#[derive(Debug, Clone, Copy)]
struct Pending {
    index: EventIndex,
    /// A `LayoutInvalidationTracking` (the others are style invalidations).
    layout: bool,
}

/// What the handler knows of one frame.
#[derive(Debug, Default)]
struct FrameState {
    /// The frame's last `UpdateLayoutTree`: its index, start and end.
    last_recalc: Option<(EventIndex, Micros, Micros)>,
    has_painted: bool,
    pending: Vec<Pending>,
    /// The invalidations of each event, in order.
    of_event: Map<EventIndex, Vec<EventIndex>>,
}

impl FrameState {
    fn add(&mut self, event: EventIndex, invalidation: EventIndex) {
        self.of_event.entry(event).or_default().push(invalidation);
    }
}

/// The Invalidations handler (see the module documentation).
#[derive(Debug, Default)]
pub struct InvalidationsHandler {
    frames: Map<Sym, FrameState>,
}

/// The invalidations of a trace.
#[derive(Debug, Clone, Default)]
pub struct Invalidations {
    /// Each `UpdateLayoutTree` or `Layout` that invalidations caused, with
    /// its invalidations, in order.
    pub of_event: Map<EventIndex, Vec<EventIndex>>,
}

/// The frame an event names: `args.beginData.frame` for the style
/// recalculations and layouts, `args.data.frame` for the others. `Err`
/// when DevTools would fail on the event (an `UpdateLayoutTree` without
/// args). `begin_data`: a layout's `args.beginData`, already found.
fn frame_of<'a>(
    index: EventIndex,
    event: &Event<'a>,
    begin_data: Option<&'a str>,
    cx: &mut Context,
) -> Result<Option<Cow<'a, str>>, ()> {
    if event.args.is_none() {
        return if event.name == names::UPDATE_LAYOUT_TREE {
            Err(())
        } else {
            Ok(None)
        };
    }
    let holder = if begin_data.is_some() || event.name == names::UPDATE_LAYOUT_TREE {
        ArgsKey::BeginData
    } else {
        ArgsKey::Data
    };
    Ok(cx.args_member_frame(index, event, holder).and_then(as_str))
}

impl Handler for InvalidationsHandler {
    type Deps<'d> = ();
    type Data = Invalidations;

    const WANTS: Wants = Wants::Named(&[
        names::UPDATE_LAYOUT_TREE,
        names::LAYOUT,
        names::PAINT,
        names::SCHEDULE_STYLE_INVALIDATION_TRACKING,
        names::STYLE_RECALC_INVALIDATION_TRACKING,
        names::STYLE_INVALIDATOR_INVALIDATION_TRACKING,
        names::LAYOUT_INVALIDATION_TRACKING,
    ]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        // A `Layout` is one only with `args.beginData` (its begin event).
        let layout_begin_data = match event.name {
            names::LAYOUT => cx.args_member(index, event, ArgsKey::BeginData),
            _ => None,
        };
        let is_layout = layout_begin_data.is_some();
        let frame = match frame_of(index, event, layout_begin_data, cx) {
            Ok(Some(frame)) if !frame.is_empty() => cx.interner.intern(&frame),
            Ok(_) => return,
            Err(()) => {
                cx.diagnostics.skip(Skip::InvalidationsRecalcWithoutArgs, || {
                    format!("UpdateLayoutTree (event #{index}) without args")
                });
                return;
            }
        };
        let state = self.frames.entry(frame).or_default();
        match event.name {
            names::UPDATE_LAYOUT_TREE => {
                let end = event.ts + event.dur.unwrap_or(Micros::ZERO);
                state.last_recalc = Some((index, event.ts, end));
                let style: Vec<EventIndex> = state.pending.iter().filter(|p| !p.layout).map(|p| p.index).collect();
                for invalidation in style {
                    state.add(index, invalidation);
                }
            }
            names::PAINT => state.has_painted = true,
            names::LAYOUT => {
                if is_layout {
                    let layout: Vec<EventIndex> = state.pending.iter().filter(|p| p.layout).map(|p| p.index).collect();
                    for invalidation in layout {
                        state.add(index, invalidation);
                    }
                }
            }
            _ => {
                if state.has_painted {
                    state.pending.clear();
                    state.last_recalc = None;
                    state.has_painted = false;
                }
                let layout = event.name == names::LAYOUT_INVALIDATION_TRACKING;
                if let (Some((recalc, start, end)), false) = (state.last_recalc, layout) {
                    if event.ts >= start && event.ts <= end {
                        state.add(recalc, index);
                    }
                }
                state.pending.push(Pending { index, layout });
            }
        }
    }

    fn finalize(self, (): (), _cx: &mut Context) -> Invalidations {
        let mut of_event = Map::default();
        for state in self.frames.into_values() {
            of_event.extend(state.of_event);
        }
        Invalidations { of_event }
    }
}

impl Invalidations {
    /// This data in the data conformance dump.
    pub fn dump(&self, _dump: &mut Dump<'_>) -> Value {
        let lists = self
            .of_event
            .iter()
            .map(|(event, list)| (Value::Event(*event), Value::events(list.iter().copied())))
            .collect();
        let counts = self
            .of_event
            .iter()
            .map(|(event, list)| (Value::Event(*event), Value::Num(list.len() as f64)))
            .collect();
        Object::new()
            .with("invalidationsForEvent", Value::Map(lists))
            .with("invalidationCountForEvent", Value::Map(counts))
            .into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_events::{feed, AnalyzeOptions};

    fn invalidations(trace: &str) -> Invalidations {
        let mut cx = Context::new(AnalyzeOptions::default().with_all_handlers(true));
        let mut handler = InvalidationsHandler::default();
        feed(trace, &mut handler, &mut cx).unwrap();
        handler.finalize((), &mut cx)
    }

    #[test]
    fn style_invalidations_go_to_the_next_recalc_and_layout_ones_to_the_next_layout() {
        let trace = r#"[
            {"name":"ScheduleStyleInvalidationTracking","ph":"I","ts":1,"pid":1,"tid":1,"args":{"data":{"frame":"F"}}},
            {"name":"LayoutInvalidationTracking","ph":"I","ts":2,"pid":1,"tid":1,"args":{"data":{"frame":"F"}}},
            {"name":"UpdateLayoutTree","ph":"X","ts":3,"dur":10,"pid":1,"tid":1,"args":{"beginData":{"frame":"F"}}},
            {"name":"StyleRecalcInvalidationTracking","ph":"I","ts":5,"pid":1,"tid":1,"args":{"data":{"frame":"F"}}},
            {"name":"Layout","ph":"X","ts":20,"dur":1,"pid":1,"tid":1,"args":{"beginData":{"frame":"F"}}},
            {"name":"ScheduleStyleInvalidationTracking","ph":"I","ts":30,"pid":1,"tid":1,"args":{"data":{"frame":"G"}}}
        ]"#;
        let data = invalidations(trace);
        assert_eq!(data.of_event[&2], vec![0, 3]);
        assert_eq!(data.of_event[&4], vec![1]);
        assert_eq!(data.of_event.len(), 2);
    }

    #[test]
    fn a_paint_starts_afresh_and_an_event_keeps_every_invalidation() {
        let mut events = vec![
            r#"{"name":"ScheduleStyleInvalidationTracking","ph":"I","ts":1,"pid":1,"tid":1,"args":{"data":{"frame":"F"}}}"#.to_owned(),
            r#"{"name":"Paint","ph":"X","ts":2,"dur":1,"pid":1,"tid":1,"args":{"data":{"frame":"F"}}}"#.to_owned(),
        ];
        for ts in 3..28 {
            events.push(format!(
                r#"{{"name":"ScheduleStyleInvalidationTracking","ph":"I","ts":{ts},"pid":1,"tid":1,"args":{{"data":{{"frame":"F"}}}}}}"#
            ));
        }
        events.push(r#"{"name":"UpdateLayoutTree","ph":"X","ts":30,"dur":1,"pid":1,"tid":1,"args":{"beginData":{"frame":"F"}}}"#.to_owned());
        let data = invalidations(&format!("[{}]", events.join(",")));
        assert_eq!(data.of_event[&27], (2..27).collect::<Vec<u32>>());
    }
}
