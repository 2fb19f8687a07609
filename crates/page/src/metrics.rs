//! The PageLoadMetrics handler (DevTools' `PageLoadMetricsHandler`): the
//! page load metrics of each frame and navigation (first paint, first
//! contentful paint, largest contentful paint, DOMContentLoaded, load,
//! time to interactive and total blocking time) with their score
//! classifications, the main frame's markers, and the `MetaCharsetCheck`
//! events of each navigation.

use tracekit_events::dump::{Dump, Object, Synthetic, Value};
use tracekit_events::json::{as_f64, as_str, js_truthy, member, member_path};
use tracekit_events::{names, Context, Event, EventIndex, Handler, Id, Micros, Millis, Seconds, Skip, Sym, Wants};
use tracekit_meta::MetaData;

use crate::navigations::{frame_at, Navigations};
use crate::Map;

/// The name of a page load metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MetricName {
    /// First contentful paint (of a navigation or a soft navigation).
    FirstContentfulPaint,
    /// First paint.
    FirstPaint,
    /// The load event.
    Load,
    /// Largest contentful paint: the last candidate of the navigation.
    LargestContentfulPaint,
    /// DOMContentLoaded.
    DomContentLoaded,
    /// Time to interactive.
    TimeToInteractive,
    /// Total blocking time (from the `InteractiveTime` event).
    TotalBlockingTime,
}

impl MetricName {
    /// DevTools' short name of the metric (`FCP`, `LCP`, `L`...).
    pub fn as_str(self) -> &'static str {
        match self {
            MetricName::FirstContentfulPaint => "FCP",
            MetricName::FirstPaint => "FP",
            MetricName::Load => "L",
            MetricName::LargestContentfulPaint => "LCP",
            MetricName::DomContentLoaded => "DCL",
            MetricName::TimeToInteractive => "TTI",
            MetricName::TotalBlockingTime => "TBT",
        }
    }
}

/// How good a metric's value is, by web.dev's thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScoreClassification {
    /// Good.
    Good,
    /// Needs improvement.
    Ok,
    /// Poor.
    Bad,
    /// A metric without thresholds (FP, DCL, load).
    Unclassified,
}

impl ScoreClassification {
    /// DevTools' name of the classification.
    pub fn as_str(self) -> &'static str {
        match self {
            ScoreClassification::Good => "good",
            ScoreClassification::Ok => "ok",
            ScoreClassification::Bad => "bad",
            ScoreClassification::Unclassified => "unclassified",
        }
    }

    /// Good up to `good` seconds, ok up to `ok`, else bad (`NaN` is bad).
    fn by_seconds(time: Micros, good: f64, ok: f64) -> ScoreClassification {
        let micros = |s: f64| Seconds(s).to_millis().to_micros();
        Self::by_micros(time, micros(good), micros(ok))
    }

    fn by_micros(time: Micros, good: Micros, ok: Micros) -> ScoreClassification {
        if time <= good {
            ScoreClassification::Good
        } else if time <= ok {
            ScoreClassification::Ok
        } else {
            ScoreClassification::Bad
        }
    }
}

/// A page load event: an event of the input, or a soft navigation's first
/// contentful paint, which DevTools makes from its `SoftNavigationStart`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PageLoadEvent {
    /// An event of the input.
    Input(EventIndex),
    /// The soft first contentful paint at this position of
    /// [`PageLoadMetrics::soft_first_contentful_paints`].
    SoftFirstContentfulPaint(u32),
}

/// The score of one metric of one navigation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricScore {
    /// Which metric.
    pub metric: MetricName,
    /// How good its value is.
    pub classification: ScoreClassification,
    /// The event it was measured from.
    pub event: PageLoadEvent,
    /// The navigation (`navigationStart` or `SoftNavigationStart`) it
    /// counts from.
    pub navigation: EventIndex,
    /// Its value: the time from the navigation, or the blocking time.
    pub timing: Micros,
    /// When its event happened (Lantern reads the paints' times).
    pub ts: Micros,
}

/// The first contentful paint a `SoftNavigationStart` reports, as the
/// marker DevTools makes of it (a `SyntheticSoftFirstContentfulPaint`).
#[derive(Debug, Clone, PartialEq)]
pub struct SoftFirstContentfulPaint {
    /// The `SoftNavigationStart`.
    pub source: EventIndex,
    /// When the paint happened (`args.context.firstContentfulPaint`).
    pub ts: Micros,
    /// The process of the soft navigation.
    pub pid: Id,
    /// Its thread.
    pub tid: Id,
    /// Its category.
    pub cat: Sym,
    /// Its frame (`args.frame`), as raw JSON.
    pub frame: Option<Box<str>>,
    /// Its context (`args.context`), as raw JSON.
    pub context: Box<str>,
}

/// A largest contentful paint candidate that a navigation's LCP is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LcpCandidate {
    /// Its process.
    pub pid: Id,
    /// The DOM node painted (`args.data.nodeId`; missing when absent).
    pub node_id: Id,
    /// When it was painted.
    pub ts: Micros,
    /// Its `args.data.loadingAttr` is `"lazy"` (an image loaded lazily).
    pub lazy: bool,
    /// Its `args.data.type` is `"text"` (Lantern then simulates the LCP
    /// as the FCP when both are at the same time).
    pub text: bool,
    /// Its `args.data.nodeName` when a non-empty string (the element's
    /// tag, which DevTools' AI texts name).
    pub node_name: Option<Sym>,
}

/// What the PageLoadMetrics handler found.
#[derive(Debug, Clone, Default)]
pub struct PageLoadMetrics {
    /// By frame, then by navigation: each metric's score, in the order
    /// they were last set.
    pub metric_scores_by_frame: Map<Option<Sym>, Map<EventIndex, Map<MetricName, MetricScore>>>,
    /// The main frame's markers (navigations, paints, DCL, load, the final
    /// LCPs), in time order.
    pub all_marker_events: Vec<PageLoadEvent>,
    /// The `MetaCharsetCheck` events of each navigation, in time order.
    pub meta_charset_checks_by_navigation: Map<EventIndex, Vec<EventIndex>>,
    /// The `args.data.disposition` of each `MetaCharsetCheck` event of
    /// [`PageLoadMetrics::meta_charset_checks_by_navigation`] that has a
    /// string there (`found-in-first-1024-bytes`, `not-found`, ...), for
    /// the CharacterSet insight.
    pub meta_charset_dispositions: Map<EventIndex, Sym>,
    /// The soft first contentful paints, in input order.
    pub soft_first_contentful_paints: Vec<SoftFirstContentfulPaint>,
    /// The LCP candidates that are some navigation's LCP, by event.
    pub lcp_candidates: Map<EventIndex, LcpCandidate>,
    /// The navigations (until `MetaData` has them).
    pub navigations: Navigations,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Navigation,
    SoftNavigation,
    FirstPaint,
    Fcp,
    SoftFcp,
    Lcp,
    SoftLcp,
    Dcl,
    Load,
    Interactive,
}

/// One page load event, as the finalize reads it.
#[derive(Debug, Clone, Copy)]
struct Record {
    event: PageLoadEvent,
    kind: Kind,
    ts: Micros,
    pid: Id,
    frame: Option<Sym>,
    /// The navigation id (hard paints) or the interned raw performance
    /// timeline id (soft events) to find the navigation by; `None`: none.
    key: Option<Sym>,
    /// An LCP candidate's `candidateIndex` (`None` when falsy), a TTI's
    /// blocking time in ms (`None` without `args.args`).
    number: Option<f64>,
    node_id: Id,
    /// An LCP candidate's `args.data.loadingAttr` is `"lazy"`.
    lazy: bool,
    /// An LCP candidate's `args.data.type` is `"text"`.
    text: bool,
    /// An LCP candidate's `args.data.nodeName`, when a non-empty string.
    node_name: Option<Sym>,
}

/// The PageLoadMetrics handler (see the module documentation).
#[derive(Debug, Default)]
pub struct PageLoadMetricsHandler {
    records: Vec<Record>,
    /// Each `MetaCharsetCheck`: its event, time, frame and disposition.
    charset_checks: Vec<(EventIndex, Micros, Option<Sym>, Option<Sym>)>,
    soft_fcps: Vec<SoftFirstContentfulPaint>,
    navigations: Navigations,
}

impl Handler for PageLoadMetricsHandler {
    type Deps<'d> = &'d MetaData;
    type Data = PageLoadMetrics;

    const WANTS: Wants = Wants::Named(&[
        names::META_CHARSET_CHECK,
        names::NAVIGATION_START,
        names::SOFT_NAVIGATION_START,
        names::MARK_FIRST_PAINT,
        names::MARK_FCP,
        names::MARK_SOFT_FCP,
        names::MARK_LCP_CANDIDATE,
        names::MARK_LCP_CANDIDATE_FOR_SOFT_NAVIGATION,
        names::MARK_DOM_CONTENT,
        names::MARK_LOAD,
        names::INTERACTIVE_TIME,
    ]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let kind = match event.name {
            names::META_CHARSET_CHECK => {
                let frame = frame_at(event.args, &["data", "frame"], cx).filter(|f| *f != names::EMPTY);
                let disposition = event
                    .args
                    .and_then(|a| member_path(a, &["data", "disposition"]))
                    .and_then(as_str)
                    .map(|d| cx.interner.intern(&d));
                self.charset_checks.push((index, event.ts, frame, disposition));
                return;
            }
            names::NAVIGATION_START => {
                let url = event.args.and_then(|a| member_path(a, &["data", "documentLoaderURL"]));
                if url == Some("\"\"") {
                    return;
                }
                self.navigations.take_navigation_start(index, event, cx);
                Kind::Navigation
            }
            names::SOFT_NAVIGATION_START => Kind::SoftNavigation,
            names::MARK_FIRST_PAINT => Kind::FirstPaint,
            names::MARK_FCP => Kind::Fcp,
            names::MARK_SOFT_FCP => Kind::SoftFcp,
            names::MARK_LCP_CANDIDATE => Kind::Lcp,
            names::MARK_LCP_CANDIDATE_FOR_SOFT_NAVIGATION => Kind::SoftLcp,
            names::MARK_DOM_CONTENT => Kind::Dcl,
            names::MARK_LOAD => Kind::Load,
            _ => Kind::Interactive,
        };
        if kind == Kind::SoftNavigation && !self.navigations.take_soft_navigation(index, event, cx) {
            cx.diagnostics.skip(Skip::MetricsSoftNavigationWithoutContext, || {
                format!("SoftNavigationStart (event #{index})")
            });
            return;
        }
        match Self::record(PageLoadEvent::Input(index), kind, event, event.ts, cx) {
            Some(record) => self.records.push(record),
            None => cx
                .diagnostics
                .skip(Skip::MetricsUnplaceableEvent, || format!("event #{index}")),
        }
        if kind == Kind::SoftNavigation {
            self.take_soft_fcp(index, event, cx);
        }
    }

    fn finalize(self, meta: &MetaData, cx: &mut Context) -> PageLoadMetrics {
        let PageLoadMetricsHandler {
            mut records,
            mut charset_checks,
            soft_fcps,
            mut navigations,
        } = self;
        navigations.drop_unrendered_frames(meta);
        records.sort_by(|a, b| a.ts.0.total_cmp(&b.ts.0));
        let mut data = PageLoadMetrics {
            soft_first_contentful_paints: soft_fcps,
            ..PageLoadMetrics::default()
        };
        let mut lcps = Map::default();
        for record in &records {
            if let Some((navigation, nav_ts)) = navigation_of(record, &navigations) {
                data.store(meta, record, navigation, nav_ts, &mut lcps, cx);
            }
        }
        charset_checks.sort_by(|a, b| a.1 .0.total_cmp(&b.1 .0));
        for (index, ts, frame, disposition) in charset_checks {
            if frame.is_none() {
                continue;
            }
            if let Some(navigation) = navigations.for_frame_event(frame, ts) {
                data.meta_charset_checks_by_navigation
                    .entry(navigation.event)
                    .or_default()
                    .push(index);
                if let Some(disposition) = disposition {
                    data.meta_charset_dispositions.insert(index, disposition);
                }
            }
        }
        data.lcp_candidates = lcps.into_iter().map(|(e, (candidate, _))| (e, candidate)).collect();
        data.all_marker_events = markers(&records, &data, meta);
        data.navigations = navigations;
        data
    }
}

impl PageLoadMetricsHandler {
    /// The record of a page load event; `None` when DevTools would throw
    /// on it whatever the navigations are.
    fn record(event: PageLoadEvent, kind: Kind, e: &Event<'_>, ts: Micros, cx: &mut Context) -> Option<Record> {
        let args = e.args;
        let raw_key = |path: &[&str], cx: &mut Context| {
            args.and_then(|a| member_path(a, path))
                .filter(|raw| js_truthy(raw))
                .map(|raw| cx.interner.intern(raw))
        };
        let mut record = Record {
            event,
            kind,
            ts,
            pid: e.pid,
            frame: frame_at(args, &["frame"], cx),
            key: None,
            number: None,
            node_id: Id::MISSING,
            lazy: false,
            text: false,
            node_name: None,
        };
        match kind {
            Kind::FirstPaint | Kind::Fcp | Kind::Lcp => {
                let id = args.and_then(|a| member_path(a, &["data", "navigationId"]));
                let id = id.filter(|raw| js_truthy(raw))?;
                record.key = tracekit_events::json::as_str(id).map(|s| cx.interner.intern(&s));
            }
            Kind::SoftLcp => record.key = raw_key(&["data", "performanceTimelineNavigationId"], cx),
            Kind::SoftFcp => record.key = raw_key(&["context", "performanceTimelineNavigationId"], cx),
            Kind::SoftNavigation => {
                let raw = args.and_then(|a| member_path(a, &["context", "performanceTimelineNavigationId"]));
                record.key = Some(cx.interner.intern(raw.unwrap_or("undefined")));
            }
            Kind::Dcl | Kind::Load => {
                record.frame = frame_at(args, &["data", "frame"], cx).filter(|f| *f != names::EMPTY);
                record.frame?;
            }
            Kind::Interactive => {
                let inner = args.and_then(|a| member(a, "args")).filter(|a| *a != "null")?;
                let tbt = member(inner, "total_blocking_time_ms").and_then(as_f64);
                record.number = Some(tbt.unwrap_or(f64::NAN));
            }
            Kind::Navigation => {}
        }
        if matches!(kind, Kind::Lcp | Kind::SoftLcp) {
            let data = args.and_then(|a| member(a, "data"));
            let number = |key: &str| data.and_then(|d| member(d, key)).and_then(as_f64);
            record.number = number("candidateIndex").filter(|i| *i != 0.0 && !i.is_nan());
            record.node_id = number("nodeId").map_or(Id::MISSING, Id::num);
            let loading = data.and_then(|d| member(d, "loadingAttr"));
            record.lazy = loading
                .and_then(tracekit_events::json::as_str)
                .is_some_and(|l| l == "lazy");
            let kind = data.and_then(|d| member(d, "type"));
            record.text = kind
                .and_then(tracekit_events::json::as_str)
                .is_some_and(|t| t == "text");
            record.node_name = (data.and_then(|d| member(d, "nodeName")))
                .and_then(tracekit_events::json::as_str)
                .filter(|n| !n.is_empty())
                .map(|n| cx.interner.intern(&n));
        }
        Some(record)
    }

    /// The soft first contentful paint a `SoftNavigationStart` reports,
    /// if it reports one.
    fn take_soft_fcp(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let Some(args) = event.args else { return };
        let Some(context) = member(args, "context") else { return };
        let Some(fcp) = member(context, "firstContentfulPaint").filter(|raw| js_truthy(raw)) else {
            return;
        };
        let position = u32::try_from(self.soft_fcps.len()).unwrap_or(u32::MAX);
        let paint = SoftFirstContentfulPaint {
            source: index,
            ts: Micros(as_f64(fcp).unwrap_or(f64::NAN)),
            pid: event.pid,
            tid: event.tid,
            cat: event.cat,
            frame: member(args, "frame").map(Box::from),
            context: context.into(),
        };
        let ts = paint.ts;
        self.soft_fcps.push(paint);
        let event_of_paint = PageLoadEvent::SoftFirstContentfulPaint(position);
        if let Some(record) = Self::record(event_of_paint, Kind::SoftFcp, event, ts, cx) {
            self.records.push(record);
        }
    }
}

/// The navigation a page load event counts from (its event and time).
fn navigation_of(record: &Record, navigations: &Navigations) -> Option<(EventIndex, Micros)> {
    match record.kind {
        Kind::FirstPaint | Kind::Fcp | Kind::Lcp => {
            let navigation = navigations.by_id.get(&Some(record.key?))?;
            Some((navigation.event, navigation.ts))
        }
        Kind::SoftLcp | Kind::SoftFcp | Kind::SoftNavigation => {
            let soft = navigations.soft_by_id.get(&record.key?)?;
            Some((soft.event, soft.ts))
        }
        Kind::Dcl | Kind::Load | Kind::Interactive => {
            let navigation = navigations.for_frame_event(record.frame, record.ts)?;
            Some((navigation.event, navigation.ts))
        }
        Kind::Navigation => None,
    }
}

impl PageLoadMetrics {
    /// Stores the metric of a page load event against its navigation,
    /// when some renderer process rendered its frame.
    fn store(
        &mut self,
        meta: &MetaData,
        record: &Record,
        navigation: EventIndex,
        nav_ts: Micros,
        lcps: &mut Map<EventIndex, (LcpCandidate, f64)>,
        cx: &mut Context,
    ) {
        let rendered = meta.renderer_processes_by_frame.get(&record.frame);
        if rendered.is_none_or(|processes| !processes.contains_key(&record.pid)) {
            return;
        }
        let since = record.ts - nav_ts;
        let score = |metric, classification, timing| MetricScore {
            metric,
            classification,
            event: record.event,
            navigation,
            timing,
            ts: record.ts,
        };
        let unclassified = ScoreClassification::Unclassified;
        let new = match record.kind {
            Kind::Navigation | Kind::SoftNavigation => return,
            Kind::Fcp | Kind::SoftFcp => score(
                MetricName::FirstContentfulPaint,
                ScoreClassification::by_seconds(since, 1.8, 3.0),
                since,
            ),
            Kind::FirstPaint => score(MetricName::FirstPaint, unclassified, since),
            Kind::Dcl => score(MetricName::DomContentLoaded, unclassified, since),
            Kind::Load => score(MetricName::Load, unclassified, since),
            Kind::Interactive => {
                let tti = ScoreClassification::by_seconds(since, 3.8, 7.3);
                self.set(
                    record.frame,
                    navigation,
                    score(MetricName::TimeToInteractive, tti, since),
                );
                let tbt = Millis(record.number.unwrap_or(f64::NAN)).to_micros();
                let class = ScoreClassification::by_micros(tbt, Millis(200.0).to_micros(), Millis(600.0).to_micros());
                score(MetricName::TotalBlockingTime, class, tbt)
            }
            Kind::Lcp | Kind::SoftLcp => {
                let Some(index) = record.number else {
                    cx.diagnostics.skip(Skip::MetricsUnplaceableEvent, || {
                        format!("LCP candidate without candidateIndex ({:?})", record.event)
                    });
                    return;
                };
                let metrics = self.metrics(record.frame, navigation);
                if let Some(last) = metrics.get(&MetricName::LargestContentfulPaint) {
                    let last_index = match last.event {
                        PageLoadEvent::Input(e) => lcps.get(&e).map(|c| c.1),
                        PageLoadEvent::SoftFirstContentfulPaint(_) => None,
                    };
                    if !last_index.is_some_and(|last| last < index) {
                        return;
                    }
                    if let PageLoadEvent::Input(e) = last.event {
                        lcps.shift_remove(&e);
                    }
                }
                if let PageLoadEvent::Input(e) = record.event {
                    let candidate = LcpCandidate {
                        pid: record.pid,
                        node_id: record.node_id,
                        ts: record.ts,
                        lazy: record.lazy,
                        text: record.text,
                        node_name: record.node_name,
                    };
                    lcps.insert(e, (candidate, index));
                }
                let class = ScoreClassification::by_seconds(since, 2.5, 4.0);
                score(MetricName::LargestContentfulPaint, class, since)
            }
        };
        self.set(record.frame, navigation, new);
    }
}

impl PageLoadMetrics {
    /// The metrics of a frame's navigation, made empty if new.
    fn metrics(&mut self, frame: Option<Sym>, navigation: EventIndex) -> &mut Map<MetricName, MetricScore> {
        self.metric_scores_by_frame
            .entry(frame)
            .or_default()
            .entry(navigation)
            .or_default()
    }

    /// Sets a metric, moving it to the end of its navigation's metrics
    /// (they stay in the order they were last set).
    fn set(&mut self, frame: Option<Sym>, navigation: EventIndex, score: MetricScore) {
        let metrics = self.metrics(frame, navigation);
        metrics.shift_remove(&score.metric);
        metrics.insert(score.metric, score);
    }

    /// The time of a page load event.
    fn time_of(&self, event: PageLoadEvent, records: &[Record]) -> Micros {
        match event {
            PageLoadEvent::Input(e) => match self.lcp_candidates.get(&e) {
                Some(candidate) => candidate.ts,
                None => records
                    .iter()
                    .find(|r| r.event == event)
                    .map_or(Micros(f64::NAN), |r| r.ts),
            },
            PageLoadEvent::SoftFirstContentfulPaint(i) => self
                .soft_first_contentful_paints
                .get(i as usize)
                .map_or(Micros(f64::NAN), |p| p.ts),
        }
    }
}

/// The main frame's markers: every page load event but the LCP
/// candidates and `InteractiveTime`, then each navigation's final LCP,
/// kept if in the main frame, in time order (ties in that order).
fn markers(records: &[Record], data: &PageLoadMetrics, meta: &MetaData) -> Vec<PageLoadEvent> {
    let main = Some(meta.main_frame_id.unwrap_or(names::EMPTY));
    let mut markers: Vec<(Micros, PageLoadEvent)> = records
        .iter()
        .filter(|r| !matches!(r.kind, Kind::Lcp | Kind::SoftLcp | Kind::Interactive) && r.frame == main)
        .map(|r| (r.ts, r.event))
        .collect();
    for (frame, navigations) in &data.metric_scores_by_frame {
        for metrics in navigations.values() {
            if let Some(lcp) = metrics.get(&MetricName::LargestContentfulPaint) {
                if *frame == main {
                    markers.push((data.time_of(lcp.event, records), lcp.event));
                }
            }
        }
    }
    markers.sort_by(|a, b| a.0 .0.total_cmp(&b.0 .0));
    markers.into_iter().map(|(_, event)| event).collect()
}

impl PageLoadMetrics {
    /// A page load event in the data conformance dump: `#N`, or the soft
    /// first contentful paint as a synthetic event.
    pub fn dump_event(&self, event: PageLoadEvent, dump: &mut Dump<'_>) -> Value {
        let position = match event {
            PageLoadEvent::Input(index) => return Value::Event(index),
            PageLoadEvent::SoftFirstContentfulPaint(position) => position,
        };
        let Some(paint) = self.soft_first_contentful_paints.get(position as usize) else {
            return Value::Null;
        };
        let id = dump.shared("SoftFirstContentfulPaint", u64::from(position), |_| {
            let args = Object::new()
                .with_some("frame", paint.frame.clone().map(Value::Json))
                .with("context", Value::Json(paint.context.clone()));
            let fields = Object::new()
                .with("args", args.into())
                .with("cat", Value::Sym(paint.cat))
                .with("name", Value::str("SyntheticSoftFirstContentfulPaint"))
                .with("ph", Value::str("R"))
                .with("pid", Value::id(paint.pid))
                .with("tid", Value::id(paint.tid))
                .with("ts", Value::Num(paint.ts.0))
                .with("rawSourceEvent", Value::Event(paint.source));
            Synthetic {
                name: "SyntheticSoftFirstContentfulPaint".into(),
                pid: Value::id(paint.pid),
                tid: Value::id(paint.tid),
                ts: paint.ts.0,
                raw: Some(paint.source),
                profile_call: None,
                fields: Some(fields.into()),
            }
        });
        Value::Synthetic(id)
    }

    /// This data in the data conformance dump. Today's DevTools keeps the
    /// `MetaCharsetCheck` events in a `WeakMap`, which has nothing to
    /// show: the member is an empty object.
    pub fn dump(&self, dump: &mut Dump<'_>) -> Value {
        let markers = self
            .all_marker_events
            .iter()
            .map(|e| self.dump_event(*e, dump))
            .collect();
        let mut frames = Vec::with_capacity(self.metric_scores_by_frame.len());
        for (frame, navigations) in &self.metric_scores_by_frame {
            let mut rows = Vec::with_capacity(navigations.len());
            for (navigation, metrics) in navigations {
                let mut scores = Vec::with_capacity(metrics.len());
                for (name, score) in metrics {
                    let value = Object::new()
                        .with("classification", Value::str(score.classification.as_str()))
                        .with("event", self.dump_event(score.event, dump))
                        .with("metricName", Value::str(name.as_str()))
                        .with("navigation", Value::Event(score.navigation))
                        .with("timing", Value::Num(score.timing.0));
                    scores.push((Value::str(name.as_str()), value.into()));
                }
                rows.push((Value::Event(*navigation), Value::Map(scores)));
            }
            frames.push((Value::opt(*frame, Value::Sym), Value::Map(rows)));
        }
        Object::new()
            .with("allMarkerEvents", Value::Array(markers))
            .with("metaCharsetCheckEventsByNavigation", Object::new().into())
            .with("metricScoresByFrameId", Value::Map(frames))
            .into()
    }
}

#[cfg(test)]
mod tests;
