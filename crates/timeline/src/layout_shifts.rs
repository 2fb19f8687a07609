//! The LayoutShifts handler (DevTools' `LayoutShiftsHandler`): the page's
//! layout shifts (those not caused by recent input) grouped into clusters,
//! DevTools' session windows, each scored and cut into good, needs
//! improvement and bad windows; the score's timeline; the session's
//! worst window; and the events DevTools reads to find a shift's causes
//! (prepaints, invalidations, child frames, unsized images, fonts...).
//!
//! A cluster ends when a shift comes more than a second after the last
//! one, five seconds after the cluster's first one, or after a navigation
//! of the main frame (or a soft navigation).

use tracekit_events::json::{as_f64, as_str, js_truthy, member};
use tracekit_events::{names, Context, Event, EventIndex, Handler, Id, Micros, Sym, Wants};
use tracekit_meta::MetaData;
use tracekit_page::args::ArgKey;

use crate::stand_in::{Navigation, Navigations, Screenshots};
use crate::util::{js_number, nearest_from_beginning, nearest_from_end};

/// The longest a cluster lasts: five seconds.
pub const MAX_CLUSTER_DURATION: Micros = Micros(5_000_000.0);
/// The longest gap between two shifts of a cluster: one second.
pub const MAX_SHIFT_TIME_DELTA: Micros = Micros(1_000_000.0);
/// The score from which a window needs improvement.
pub const NEEDS_IMPROVEMENT: f64 = 0.1;
/// The score from which a window is bad.
pub const BAD: f64 = 0.25;

/// The LayoutShifts handler (see the module documentation).
#[derive(Debug, Default)]
pub struct LayoutShiftsHandler {
    shifts: Vec<RawShift>,
    data: LayoutShifts,
    /// The node ids of the invalidation events, with the event's time.
    layout_invalidation_nodes: Vec<(Micros, Option<RawKey>)>,
    schedule_invalidation_nodes: Vec<Option<RawKey>>,
}

/// A `LayoutShift` event as read.
#[derive(Debug)]
struct RawShift {
    event: EventIndex,
    ts: Micros,
    dur: Option<Micros>,
    pid: Id,
    tid: Id,
    /// `args.data.weighted_score_delta`, `None` when `args.data` is falsy.
    score: Option<f64>,
    nodes: Vec<RawKey>,
    text: Box<str>,
}

/// A JSON value as a key of a JavaScript `Set` (a node id).
#[derive(Debug, Clone, PartialEq)]
pub enum RawKey {
    /// `undefined`.
    Undefined,
    /// A number.
    Num(f64),
    /// Any other value, as its JSON text.
    Text(Box<str>),
}

impl RawKey {
    fn of(raw: Option<&str>) -> RawKey {
        match raw.map(str::trim) {
            None => RawKey::Undefined,
            Some(raw) => match as_f64(raw) {
                Some(x) => RawKey::Num(x + 0.0),
                None => RawKey::Text(raw.into()),
            },
        }
    }
}

/// A span of time: `min` to `max`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceWindow {
    /// Its start.
    pub min: Micros,
    /// Its end.
    pub max: Micros,
}

impl TraceWindow {
    fn at(t: Micros) -> TraceWindow {
        TraceWindow { min: t, max: t }
    }
}

/// The navigation a cluster follows, as DevTools names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClusterNavigation {
    /// No navigation came before the cluster (DevTools' `NO_NAVIGATION`).
    NoNavigation,
    /// The navigation id of the last navigation before it (`None` for a
    /// soft navigation or a navigation without an id).
    After(Option<Sym>),
}

/// One layout shift of a cluster (DevTools' `SyntheticLayoutShift`).
#[derive(Debug, Clone, PartialEq)]
pub struct LayoutShift {
    /// Its `LayoutShift` event.
    pub event: EventIndex,
    /// When it happened.
    pub ts: Micros,
    /// The event's `dur`, if it has one.
    pub dur: Option<Micros>,
    /// Its process.
    pub pid: Id,
    /// Its thread.
    pub tid: Id,
    /// Its `args.data.weighted_score_delta`: its share of the page's score.
    pub weighted_score_delta: f64,
    /// The navigation of its cluster.
    pub navigation: ClusterNavigation,
    /// How long after the last navigation it happened, if one came before.
    pub time_from_navigation: Option<Micros>,
    /// The screenshot taken last before it and the one after that, as
    /// indexes in [`LayoutShifts::screenshots`].
    pub screenshots: (Option<usize>, Option<usize>),
    /// The cluster's score up to and with this shift.
    pub cumulative_weighted_score_in_window: f64,
    /// Its cluster's number, from 1.
    pub session_window_id: usize,
    /// Its cluster's score.
    pub session_window_score: f64,
    /// The input event's text, which DevTools' synthetic event copies.
    pub text: Box<str>,
}

/// The good, needs-improvement and bad parts of a cluster.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreWindows {
    /// While the cluster's score was under [`NEEDS_IMPROVEMENT`].
    pub good: TraceWindow,
    /// While it was from [`NEEDS_IMPROVEMENT`] to under [`BAD`].
    pub needs_improvement: Option<TraceWindow>,
    /// From when it reached [`BAD`].
    pub bad: Option<TraceWindow>,
}

/// A cluster of layout shifts: a session window
/// (DevTools' `SyntheticLayoutShiftCluster`).
#[derive(Debug, Clone, PartialEq)]
pub struct LayoutShiftCluster {
    /// Its shifts, by time.
    pub shifts: Vec<LayoutShift>,
    /// From its first shift to its end.
    pub window: TraceWindow,
    /// The sum of its shifts' scores.
    pub cumulative_score: f64,
    /// Its score's windows.
    pub score_windows: ScoreWindows,
    /// The navigation it follows.
    pub navigation: ClusterNavigation,
    /// When its first shift happened.
    pub ts: Micros,
    /// From its first shift to a second after the end of its last one.
    pub dur: Micros,
    /// The process of the shift that opened it.
    pub pid: Id,
    /// The thread of the shift that opened it.
    pub tid: Id,
    /// Its worst shift's event (the event that opened it when no shift
    /// scored above 0).
    pub source: EventIndex,
    /// Its worst shift, by index in `shifts`.
    pub worst_shift: Option<usize>,
}

/// A remote font the page loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteFont {
    /// Its `BeginRemoteFontLoad` event.
    pub event: EventIndex,
    /// When the load began.
    pub ts: Micros,
    /// Its event's duration (`None`: none, an instant event).
    pub dur: Option<Micros>,
    /// The id of the network request that loads it, as DevTools makes it
    /// of the event's process and `args.id` (`` `${pid}.${id}` ``), for the
    /// FontDisplay insight.
    pub request_id: ArgKey,
    /// Its `font-display`.
    pub display: Option<Sym>,
    /// Its URL.
    pub url: Option<Sym>,
    /// Its name, from a `RemoteFontLoaded` of the same URL: `None` when
    /// none came, `Some(None)` when it had no name.
    pub name: Option<Option<Sym>>,
}

/// A point of the layout shift score's timeline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreRecord {
    /// When.
    pub ts: Micros,
    /// The score of the cluster then (0 between clusters); `None` at a
    /// cluster's start when its first shift has no score.
    pub score: Option<f64>,
}

/// The layout shifts of a trace.
#[derive(Debug, Clone, Default)]
pub struct LayoutShifts {
    /// The clusters, by time.
    pub clusters: Vec<LayoutShiftCluster>,
    /// The worst cluster's score.
    pub session_max_score: f64,
    /// The worst cluster's number, from 1 (`None`: no cluster scored).
    pub cls_window_id: Option<usize>,
    /// The `PrePaint` events, by time.
    pub pre_paint_events: Vec<EventIndex>,
    /// The `LayoutInvalidationTracking` events, by time.
    pub layout_invalidation_events: Vec<EventIndex>,
    /// The `ScheduleStyleInvalidationTracking` events, in input order.
    pub schedule_style_invalidation_events: Vec<EventIndex>,
    /// The `StyleRecalcInvalidationTracking` events, in input order.
    pub style_recalc_invalidation_events: Vec<EventIndex>,
    /// The `RenderFrameImpl::createChildFrame` events, by time.
    pub render_frame_impl_create_child_frame_events: Vec<EventIndex>,
    /// The `domLoading` events, by time.
    pub dom_loading_events: Vec<EventIndex>,
    /// The `LayoutImageUnsized` events, by time.
    pub layout_image_unsized_events: Vec<EventIndex>,
    /// The complete `PaintImage` events, by time.
    pub paint_image_events: Vec<EventIndex>,
    /// The remote fonts, by the start of their load.
    pub remote_fonts: Vec<RemoteFont>,
    /// The score's timeline.
    pub score_records: Vec<ScoreRecord>,
    /// The DOM nodes the shifts and the invalidations name, once each.
    pub backend_node_ids: Vec<RawKey>,
    /// The screenshots the shifts refer to.
    pub screenshots: Screenshots,
    /// What the insights read of the events of the lists above, parallel
    /// to them (DevTools' layout shift culprits look at their times and
    /// args).
    pub causes: CauseEvents,
}

/// When an event happened, and for how long if it says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EventSpan {
    /// Its `ts`.
    pub ts: Micros,
    /// Its `dur`, if it has one.
    pub dur: Option<Micros>,
}

/// A `domLoading` event: when, and the frame that began loading.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DomLoading {
    /// Its time.
    pub span: EventSpan,
    /// Its `args.frame`, when a non-empty string.
    pub frame: Option<Sym>,
}

/// A `LayoutImageUnsized` or a `PaintImage` event: when, and the image.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageEvent {
    /// Its time.
    pub span: EventSpan,
    /// Its `args.data.nodeId`.
    pub node_id: RawKey,
    /// Its `args.data.url`, when a non-empty string.
    pub url: Option<Sym>,
    /// Its `args.data.frame`, when a non-empty string.
    pub frame: Option<Sym>,
}

/// The times and args of the events DevTools reads to find a shift's
/// causes, each list parallel to its list of [`LayoutShifts`].
#[derive(Debug, Clone, Default)]
pub struct CauseEvents {
    /// Those of [`LayoutShifts::pre_paint_events`].
    pub pre_paints: Vec<EventSpan>,
    /// Those of [`LayoutShifts::render_frame_impl_create_child_frame_events`].
    pub child_frames: Vec<EventSpan>,
    /// Those of [`LayoutShifts::dom_loading_events`].
    pub dom_loadings: Vec<DomLoading>,
    /// Those of [`LayoutShifts::layout_image_unsized_events`].
    pub unsized_images: Vec<ImageEvent>,
    /// Those of [`LayoutShifts::paint_image_events`].
    pub paint_images: Vec<ImageEvent>,
}

impl Handler for LayoutShiftsHandler {
    type Deps<'d> = (&'d MetaData, &'d tracekit_page::Screenshots);
    type Data = LayoutShifts;

    const WANTS: Wants = Wants::Named(&[
        names::LAYOUT_SHIFT,
        names::LAYOUT_INVALIDATION_TRACKING,
        names::SCHEDULE_STYLE_INVALIDATION_TRACKING,
        names::STYLE_RECALC_INVALIDATION_TRACKING,
        names::PRE_PAINT,
        names::RENDER_FRAME_IMPL_CREATE_CHILD_FRAME,
        names::DOM_LOADING,
        names::LAYOUT_IMAGE_UNSIZED,
        names::BEGIN_REMOTE_FONT_LOAD,
        names::REMOTE_FONT_LOADED,
        names::PAINT_IMAGE,
    ]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let data = event.args.and_then(|a| member(a, "data"));
        let node_id = || {
            data.and_then(|d| member(d, "nodeId"))
                .filter(|n| js_truthy(n))
                .map(|n| RawKey::of(Some(n)))
        };
        let d = &mut self.data;
        let span = EventSpan {
            ts: event.ts,
            dur: event.dur,
        };
        match event.name {
            // A shift right after an input is expected: not counted.
            n if n == names::LAYOUT_SHIFT
                && !data.and_then(|d| member(d, "had_recent_input")).is_some_and(js_truthy) =>
            {
                self.shifts.push(read_shift(index, event, data));
            }
            n if n == names::LAYOUT_INVALIDATION_TRACKING => {
                d.layout_invalidation_events.push(index);
                self.layout_invalidation_nodes.push((event.ts, node_id()));
            }
            n if n == names::SCHEDULE_STYLE_INVALIDATION_TRACKING => {
                d.schedule_style_invalidation_events.push(index);
                self.schedule_invalidation_nodes.push(node_id());
            }
            n if n == names::STYLE_RECALC_INVALIDATION_TRACKING => d.style_recalc_invalidation_events.push(index),
            n if n == names::PRE_PAINT => {
                d.pre_paint_events.push(index);
                d.causes.pre_paints.push(span);
            }
            n if n == names::RENDER_FRAME_IMPL_CREATE_CHILD_FRAME => {
                d.render_frame_impl_create_child_frame_events.push(index);
                d.causes.child_frames.push(span);
            }
            n if n == names::DOM_LOADING => {
                d.dom_loading_events.push(index);
                let frame = event.args.and_then(|a| member(a, "frame"));
                let frame = frame.and_then(as_str).filter(|f| !f.is_empty());
                d.causes.dom_loadings.push(DomLoading {
                    span,
                    frame: frame.map(|f| cx.interner.intern(&f)),
                });
            }
            n if n == names::LAYOUT_IMAGE_UNSIZED => {
                d.layout_image_unsized_events.push(index);
                d.causes.unsized_images.push(image_event(span, data, cx));
            }
            n if n == names::PAINT_IMAGE && event.ph == tracekit_events::Phase::COMPLETE => {
                d.paint_image_events.push(index);
                d.causes.paint_images.push(image_event(span, data, cx));
            }
            n if n == names::BEGIN_REMOTE_FONT_LOAD || n == names::REMOTE_FONT_LOADED => {
                self.font(index, event, cx);
            }
            _ => {}
        }
    }

    fn finalize(self, (meta, shots): (&MetaData, &tracekit_page::Screenshots), cx: &mut Context) -> LayoutShifts {
        let LayoutShiftsHandler {
            mut shifts,
            mut data,
            mut layout_invalidation_nodes,
            schedule_invalidation_nodes,
        } = self;
        data.sort_lists();
        remote_fonts_by_time(&mut data.remote_fonts);
        shifts.sort_by(|a, b| a.ts.0.total_cmp(&b.ts.0));
        let unscored: Vec<EventIndex> = shifts
            .iter()
            .filter(|s| s.score.is_none_or(f64::is_nan))
            .map(|s| s.event)
            .collect();
        if let Some(first) = unscored.first() {
            // Kept, as DevTools keeps them: their cluster's score becomes
            // NaN, as in DevTools. Said once, with the first.
            cx.diagnostics.warn(format!(
                "{} layout shift{} without a score (args.data.weighted_score_delta; first: event #{first}): the CLS of their cluster is NaN, as in DevTools",
                unscored.len(),
                if unscored.len() == 1 { "" } else { "s" }
            ));
        }
        layout_invalidation_nodes.sort_by(|a, b| a.0 .0.total_cmp(&b.0 .0));
        data.screenshots = Screenshots::of(shots);
        let navigations = Navigations::of(meta);
        let mut navs: Vec<Navigation> = navigations
            .by_frame
            .get(&meta.main_frame_id)
            .cloned()
            .unwrap_or_default();
        navs.extend(navigations.soft.iter().copied());
        navs.sort_by(|a, b| a.ts.0.total_cmp(&b.ts.0));
        build_clusters(&mut data, &shifts, &navs, meta.bounds.max);
        score_windows_and_worst(&mut data, &navs, meta.bounds.max);
        score_records(&mut data, meta.bounds.min);
        let nodes = shifts.iter().flat_map(|s| s.nodes.iter().cloned());
        let nodes = nodes.chain(layout_invalidation_nodes.into_iter().filter_map(|(_, n)| n));
        let nodes = nodes.chain(schedule_invalidation_nodes.into_iter().flatten());
        for node in nodes {
            if !data.backend_node_ids.contains(&node) {
                data.backend_node_ids.push(node);
            }
        }
        data
    }
}

fn read_shift(index: EventIndex, event: &Event<'_>, data: Option<&str>) -> RawShift {
    let data = data.filter(|d| js_truthy(d));
    let nodes = data
        .and_then(|d| member(d, "impacted_nodes"))
        .filter(|n| n.trim_start().starts_with('['))
        .map(|list| {
            tracekit_events::json::array_items(list)
                .map(|node| RawKey::of(member(node, "node_id")))
                .collect()
        })
        .unwrap_or_default();
    RawShift {
        event: index,
        ts: event.ts,
        dur: event.dur,
        pid: event.pid,
        tid: event.tid,
        score: data.map(|d| js_number(member(d, "weighted_score_delta"))),
        nodes,
        text: if data.is_some() {
            event.text.into()
        } else {
            Box::default()
        },
    }
}

impl LayoutShiftsHandler {
    fn font(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let args = event.args.unwrap_or("{}");
        let mut sym = |key: &str| member(args, key).and_then(as_str).map(|s| cx.interner.intern(&s));
        let url = sym("url");
        if event.name == names::BEGIN_REMOTE_FONT_LOAD {
            let display = sym("display");
            let id = member(args, "id").map_or_else(|| "undefined".to_owned(), js_string);
            let request_id = ArgKey {
                text: cx
                    .interner
                    .intern(&format!("{}.{id}", event.pid.to_js_string(&cx.interner))),
                is_number: false,
            };
            let font = RemoteFont {
                event: index,
                ts: event.ts,
                dur: event.dur,
                request_id,
                display,
                url,
                name: None,
            };
            self.data.remote_fonts.push(font);
        } else {
            let name = sym("name");
            for font in self.data.remote_fonts.iter_mut().filter(|f| f.url == url) {
                font.name = Some(name);
            }
        }
    }
}

impl LayoutShifts {
    /// Sorts the lists DevTools sorts by time (stably, as JavaScript's
    /// sort).
    fn sort_lists(&mut self) {
        let c = &mut self.causes;
        by_time(&mut self.pre_paint_events, &mut c.pre_paints, |s| s.ts);
        by_time(
            &mut self.render_frame_impl_create_child_frame_events,
            &mut c.child_frames,
            |s| s.ts,
        );
        by_time(&mut self.dom_loading_events, &mut c.dom_loadings, |d| d.span.ts);
        by_time(&mut self.layout_image_unsized_events, &mut c.unsized_images, |i| {
            i.span.ts
        });
        by_time(&mut self.paint_image_events, &mut c.paint_images, |i| i.span.ts);
    }
}

/// Sorts a list of events and what was read of them by time, stably.
fn by_time<T>(events: &mut Vec<EventIndex>, details: &mut Vec<T>, ts: impl Fn(&T) -> Micros) {
    let mut pairs: Vec<(EventIndex, T)> = events.drain(..).zip(details.drain(..)).collect();
    pairs.sort_by(|a, b| ts(&a.1).0.total_cmp(&ts(&b.1).0));
    for (e, d) in pairs {
        events.push(e);
        details.push(d);
    }
}

/// What the culprits read of an image event's `args.data`.
fn image_event(span: EventSpan, data: Option<&str>, cx: &mut Context) -> ImageEvent {
    let mut sym = |key: &str| {
        let value = data.and_then(|d| member(d, key)).and_then(as_str);
        value.filter(|v| !v.is_empty()).map(|v| cx.interner.intern(&v))
    };
    ImageEvent {
        span,
        url: sym("url"),
        frame: sym("frame"),
        node_id: RawKey::of(data.and_then(|d| member(d, "nodeId"))),
    }
}

/// JavaScript's `String()` of a raw JSON string or number (anything else
/// as its text: DevTools would print an object as `[object Object]`, no
/// request's id).
fn js_string(raw: &str) -> String {
    if let Some(s) = as_str(raw) {
        return s.into_owned();
    }
    match as_f64(raw) {
        Some(x) => tracekit_events::jsnum::js_number_string(x),
        None => raw.trim().to_owned(),
    }
}

fn remote_fonts_by_time(fonts: &mut [RemoteFont]) {
    fonts.sort_by(|a, b| a.ts.0.total_cmp(&b.ts.0));
}

/// Groups the shifts into clusters (DevTools' first pass).
fn build_clusters(data: &mut LayoutShifts, shifts: &[RawShift], navs: &[Navigation], _end: Micros) {
    let Some(first) = shifts.first() else {
        return;
    };
    let (mut first_shift, mut last_shift) = (first.ts, first.ts);
    let mut last_nav: Option<usize> = None;
    let clusters = &mut data.clusters;
    for shift in shifts {
        let duration_exceeded = shift.ts.0 - first_shift.0 > MAX_CLUSTER_DURATION.0;
        let gap_exceeded = shift.ts.0 - last_shift.0 > MAX_SHIFT_TIME_DELTA.0;
        let nav = nearest_from_end(navs.len(), |i| navs[i].ts.0 < shift.ts.0);
        let navigated = last_nav != nav && nav.is_some();
        if duration_exceeded || gap_exceeded || navigated || clusters.is_empty() {
            let by_duration = if duration_exceeded {
                first_shift.0 + MAX_CLUSTER_DURATION.0
            } else {
                f64::INFINITY
            };
            let by_gap = if gap_exceeded {
                last_shift.0 + MAX_SHIFT_TIME_DELTA.0
            } else {
                f64::INFINITY
            };
            let by_nav = match nav {
                Some(i) if navigated => navs[i].ts.0,
                _ => f64::INFINITY,
            };
            if let Some(last) = clusters.last_mut() {
                last.window.max = Micros(by_duration.min(by_gap).min(by_nav));
            }
            let navigation = match nav {
                None => ClusterNavigation::NoNavigation,
                Some(i) => ClusterNavigation::After(navs[i].navigation_id.filter(|_| navs[i].hard)),
            };
            clusters.push(LayoutShiftCluster {
                shifts: Vec::new(),
                window: TraceWindow::at(shift.ts),
                cumulative_score: 0.0,
                score_windows: ScoreWindows {
                    good: TraceWindow::at(shift.ts),
                    needs_improvement: None,
                    bad: None,
                },
                navigation,
                ts: shift.ts,
                dur: Micros(-1.0),
                pid: shift.pid,
                tid: shift.tid,
                source: shift.event,
                worst_shift: None,
            });
            first_shift = shift.ts;
        }
        let id = clusters.len();
        let Some(cluster) = clusters.last_mut() else {
            continue;
        };
        cluster.cumulative_score += shift.score.unwrap_or(0.0);
        let Some(score) = shift.score else {
            continue;
        };
        let screenshots = find_screenshots(&data.screenshots, shift.ts);
        cluster.shifts.push(LayoutShift {
            event: shift.event,
            ts: shift.ts,
            dur: shift.dur,
            pid: shift.pid,
            tid: shift.tid,
            weighted_score_delta: score,
            navigation: cluster.navigation,
            time_from_navigation: nav.map(|i| Micros(shift.ts.0 - navs[i].ts.0)),
            screenshots,
            cumulative_weighted_score_in_window: cluster.cumulative_score,
            session_window_id: id,
            session_window_score: 0.0,
            text: shift.text.clone(),
        });
        cluster.window.max = shift.ts;
        last_shift = shift.ts;
        last_nav = nav;
    }
}

/// The screenshot last taken before `ts` and the next one
/// (DevTools' `findScreenshots`).
fn find_screenshots(screenshots: &Screenshots, ts: Micros) -> (Option<usize>, Option<usize>) {
    let list = &screenshots.list;
    let before = nearest_from_end(list.len(), |i| list[i].ts.0 < ts.0);
    let after = before.map(|i| i + 1).filter(|&i| i < list.len());
    (before, after)
}

/// Ends the last cluster, then finds each cluster's score windows, worst
/// shift and time span, and the session's worst cluster (DevTools' second
/// pass).
fn score_windows_and_worst(data: &mut LayoutShifts, navs: &[Navigation], trace_end: Micros) {
    let count = data.clusters.len();
    for (n, cluster) in data.clusters.iter_mut().enumerate() {
        if n + 1 == count {
            let by_duration = MAX_CLUSTER_DURATION.0 + cluster.window.min.0;
            let by_gap = cluster.window.max.0 + MAX_SHIFT_TIME_DELTA.0;
            let max = cluster.window.max.0;
            let next = nearest_from_beginning(navs.len(), |i| navs[i].ts.0 > max);
            // DevTools takes a next navigation at index 0 for none.
            let by_nav = next.filter(|&i| i > 0).map_or(f64::INFINITY, |i| navs[i].ts.0);
            cluster.window.max = Micros(by_duration.min(by_gap).min(trace_end.0).min(by_nav));
        }
        let (mut score, mut window_id) = (0.0, None);
        let (mut largest, mut worst) = (0.0, None);
        let windows = &mut cluster.score_windows;
        for (i, shift) in cluster.shifts.iter_mut().enumerate() {
            score += shift.weighted_score_delta;
            window_id = Some(shift.session_window_id);
            shift.session_window_score = cluster.cumulative_score;
            let ts = shift.ts;
            if score < NEEDS_IMPROVEMENT {
                windows.good.max = ts;
            } else if score < BAD {
                if windows.needs_improvement.is_none() {
                    windows.good.max = Micros(ts.0 - 1.0);
                    windows.needs_improvement = Some(TraceWindow::at(ts));
                }
                if let Some(ni) = &mut windows.needs_improvement {
                    ni.max = ts;
                }
            } else if score >= BAD {
                if windows.bad.is_none() {
                    match &mut windows.needs_improvement {
                        Some(ni) => ni.max = Micros(ts.0 - 1.0),
                        None => windows.good.max = Micros(ts.0 - 1.0),
                    }
                    windows.bad = Some(TraceWindow::at(ts));
                }
                if let Some(bad) = &mut windows.bad {
                    bad.max = ts;
                }
            }
            let last_open = match (&mut windows.bad, &mut windows.needs_improvement) {
                (Some(w), _) | (None, Some(w)) => w,
                (None, None) => &mut windows.good,
            };
            last_open.max = cluster.window.max;
            if shift.weighted_score_delta > largest {
                largest = shift.weighted_score_delta;
                worst = Some(i);
            }
        }
        if let Some(i) = worst {
            cluster.worst_shift = Some(i);
            cluster.source = cluster.shifts[i].event;
        }
        if let (Some(first), Some(last)) = (cluster.shifts.first(), cluster.shifts.last()) {
            cluster.ts = first.ts;
            let end = last.ts.0 + last.dur.map_or(0.0, |d| d.0);
            cluster.dur = Micros((end - first.ts.0) + MAX_SHIFT_TIME_DELTA.0);
        }
        if score > data.session_max_score {
            data.cls_window_id = window_id;
            data.session_max_score = score;
        }
    }
}

/// The score's timeline: 0 at the trace's start, then each cluster's first
/// shift's score at its start, its running score at each shift, and 0 at
/// its end.
fn score_records(data: &mut LayoutShifts, trace_start: Micros) {
    let records = &mut data.score_records;
    let record = |ts: Micros, score: f64| ScoreRecord { ts, score: Some(score) };
    records.push(record(trace_start, 0.0));
    for cluster in &data.clusters {
        if let Some(first) = cluster.shifts.first() {
            // DevTools records the first shift's score as it is (missing: no
            // score), not as the sum it adds (missing: NaN).
            let score = Some(first.weighted_score_delta).filter(|x| !x.is_nan());
            records.push(ScoreRecord {
                ts: cluster.window.min,
                score,
            });
        }
        let mut score = 0.0;
        for shift in &cluster.shifts {
            score += shift.weighted_score_delta;
            records.push(record(shift.ts, score));
        }
        records.push(record(cluster.window.max, 0.0));
    }
}
