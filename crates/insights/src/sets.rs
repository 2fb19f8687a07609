//! The insight sets of a trace, as DevTools makes them: one for the time
//! before the first navigation of the main frame (or the whole trace when
//! it has none), then one per navigation, each over its window of the
//! trace and its frame; every insight computed for each.

use tracekit_engine::handlers::meta::{Bounds, Navigation};
use tracekit_engine::support::names;
use tracekit_engine::{Analysis, HandlerData, Micros, Parallelism, Sym};

use crate::model::{Insight, MetricShown, State, Ui};

/// Which part of the trace a set covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SetId {
    /// The time before the first navigation, or the whole trace when it
    /// has none (DevTools' `NO_NAVIGATION`).
    NoNavigation,
    /// A navigation: DevTools' `NAVIGATION_N`, `N` the number of sets made
    /// before it.
    Navigation(usize),
}

impl std::fmt::Display for SetId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SetId::NoNavigation => f.write_str("NO_NAVIGATION"),
            SetId::Navigation(n) => write!(f, "NAVIGATION_{n}"),
        }
    }
}

/// The insights of one part of the trace.
#[derive(Debug, Clone, PartialEq)]
pub struct InsightSet {
    /// Which part.
    pub id: SetId,
    /// The page's URL then, as a WHATWG URL writes it.
    pub url: String,
    /// The frame the insights look at (the main frame).
    pub frame_id: Option<Sym>,
    /// The window of the trace the set covers.
    pub bounds: Bounds,
    /// The navigation that starts it.
    pub navigation: Option<Navigation>,
    /// Each insight in DevTools' order, or the error that kept it from
    /// being computed.
    pub insights: Vec<Result<Insight, InsightError>>,
    /// Lantern's simulation of the navigation's load (what DevTools
    /// computes for the savings and does not show; Lighthouse reports
    /// these): `None` without a navigation or where Lantern cannot
    /// simulate it.
    pub simulated: Option<SimulatedMetrics>,
}

/// The metrics of a page load as Lantern simulates them, ms (each the
/// blend of its optimistic and pessimistic estimates Lighthouse reports).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimulatedMetrics {
    /// First contentful paint.
    pub fcp: f64,
    /// Largest contentful paint.
    pub lcp: f64,
    /// Time to interactive.
    pub tti: f64,
    /// Total blocking time.
    pub tbt: f64,
}

impl InsightSet {
    /// The insights computed, in DevTools' order.
    pub fn computed(&self) -> impl Iterator<Item = &Insight> {
        self.insights.iter().filter_map(|i| i.as_ref().ok())
    }
}

/// Why one insight of a set could not be computed (DevTools records the
/// error and goes on with the others).
#[derive(Debug, Clone, PartialEq)]
pub struct InsightError {
    /// The insight's words.
    pub ui: &'static Ui,
    /// What went wrong.
    pub message: String,
}

/// The insight sets of a trace, in DevTools' order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InsightSets {
    /// The sets.
    pub sets: Vec<InsightSet>,
}

/// Why a trace has no insights.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum InsightsError {
    /// The input is a profile on its own: its kind in words.
    NoHandlers(&'static str),
    /// The analysis was made without
    /// [`AnalyzeOptions::all_handlers`](tracekit_engine::AnalyzeOptions::all_handlers).
    NotGathered,
}

impl std::fmt::Display for InsightsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InsightsError::NoHandlers(kind) => write!(f, "a {kind} has no insights: only a Chrome trace has"),
            InsightsError::NotGathered => {
                f.write_str("the analysis was made without AnalyzeOptions::with_all_handlers(true)")
            }
        }
    }
}

impl std::error::Error for InsightsError {}

/// What an insight is computed over: the handlers' data, and the set's
/// window, frame and navigation.
pub struct Context<'a> {
    /// The analysis (its tracks and strings).
    pub analysis: &'a Analysis,
    /// Every handler's data.
    pub data: &'a HandlerData,
    /// The set's window.
    pub bounds: Bounds,
    /// The frame looked at.
    pub frame_id: Option<Sym>,
    /// The navigation that starts the set.
    pub navigation: Option<&'a Navigation>,
    /// The navigation's Lantern context, made when first read.
    lantern: std::cell::OnceCell<Option<tracekit_lantern::LanternContext>>,
}

/// Each entity's events, as the entity mappings hold them, each list
/// shared by every set's insight that names it.
pub(crate) type EntityEvents = ahash::AHashMap<
    tracekit_engine::handlers::page::Entity,
    std::sync::Arc<Vec<tracekit_engine::handlers::page::EntityEvent>>,
>;

/// Each entity's requests and track entries, as DevTools' entity
/// mappings hold them once the tracks are built (a walk of every track).
fn entity_events(analysis: &Analysis, data: &HandlerData) -> EntityEvents {
    let mappings = tracekit_engine::support::entity_mappings(analysis.process_tracks(), data.network_requests());
    // Moved, not copied, into shared lists: a big trace's lists reach
    // every JS call, and copying one would hold it twice. Shrunk, since
    // they are kept (on the bench trace: peak heap 285 MB against 304 MB
    // unshrunk).
    mappings
        .events_by_entity
        .into_iter()
        .map(|(entity, mut events)| {
            events.shrink_to_fit();
            (entity, std::sync::Arc::new(events))
        })
        .collect()
}

impl Context<'_> {
    /// The navigation's Lantern context (DevTools' `context.lantern`, what
    /// the estimated savings are simulated on), made once, when first
    /// read: `None` without a navigation, or where Lantern cannot simulate
    /// it (a trace too old, no request downloaded, a paint missing: as in
    /// DevTools, the insights then estimate no savings).
    pub fn lantern(&self) -> Option<&tracekit_lantern::LanternContext> {
        self.lantern
            .get_or_init(|| {
                let navigation = self.navigation?;
                tracekit_lantern::context(self.data, self.analysis.strings(), navigation)
                    .ok()
                    .flatten()
            })
            .as_ref()
    }

    /// DevTools' `eventIsInBounds`: an event that starts by the window's
    /// end and ends after its start.
    pub fn overlaps(&self, ts: Micros, dur: Micros) -> bool {
        ts.0 <= self.bounds.max.0 && self.bounds.min.0 < ts.0 + dur.0
    }

    /// Whether a time is in the window, both ends included.
    pub fn contains(&self, ts: Micros) -> bool {
        ts.0 >= self.bounds.min.0 && ts.0 <= self.bounds.max.0
    }
}

/// One kind of insight: how it is computed.
type Runner = fn(&Context<'_>) -> Result<Insight, String>;

/// Every insight, in DevTools' order (that of its `Models`), with its
/// words for the error case.
pub(crate) const RUNNERS: &[(&Ui, Runner)] = &[
    (&crate::cache::UI, crate::cache::generate),
    (&crate::character_set::UI, crate::character_set::generate),
    (&crate::cls_culprits::UI, crate::cls_culprits::generate),
    (&crate::document_latency::UI, crate::document_latency::generate),
    (&crate::dom_size::UI, crate::dom_size::generate),
    (
        &crate::duplicated_javascript::UI,
        crate::duplicated_javascript::generate,
    ),
    (&crate::font_display::UI, crate::font_display::generate),
    (&crate::forced_reflow::UI, crate::forced_reflow::generate),
    (&crate::image_delivery::UI, crate::image_delivery::generate),
    (&crate::inp_breakdown::UI, crate::inp_breakdown::generate),
    (&crate::lcp_breakdown::UI, crate::lcp_breakdown::generate),
    (&crate::lcp_discovery::UI, crate::lcp_discovery::generate),
    (&crate::legacy_javascript::UI, crate::legacy_javascript::generate),
    (&crate::modern_http::UI, crate::modern_http::generate),
    (
        &crate::network_dependency_tree::UI,
        crate::network_dependency_tree::generate,
    ),
    (&crate::render_blocking::UI, crate::render_blocking::generate),
    (&crate::slow_css_selector::UI, crate::slow_css_selector::generate),
    (&crate::third_parties::UI, crate::third_parties::generate),
    (&crate::viewport::UI, crate::viewport::generate),
];

/// The words of every insight tracekit computes, in DevTools' order.
pub fn computed_insights() -> impl ExactSizeIterator<Item = &'static Ui> {
    RUNNERS.iter().map(|(ui, _)| *ui)
}

/// The insight sets of an analysis made with every handler.
pub fn compute(analysis: &Analysis) -> Result<InsightSets, InsightsError> {
    compute_with(analysis, Parallelism::Sequential)
}

/// [`compute`], with the events of each third party (every event of each
/// entity: a walk of every track, on a big trace the costliest part)
/// made on rayon's pool while the sets are computed when `parallelism` is
/// [`Parallelism::Rayon`]: the same sets either way.
pub fn compute_with(analysis: &Analysis, parallelism: Parallelism) -> Result<InsightSets, InsightsError> {
    let data = analysis
        .handlers()
        .ok_or(InsightsError::NoHandlers(analysis.kind().name()))?;
    if !analysis.has_all_handlers() {
        return Err(InsightsError::NotGathered);
    }
    // What building the tracks freed (each thread's entries and JS calls)
    // goes back before the entity mappings and Lantern's graphs are made.
    tracekit_engine::memory::release_freed();
    let (events, mut sets) = parallelism.join(|| entity_events(analysis, data), || sets_of(analysis, data));
    for set in &mut sets.sets {
        for insight in set.insights.iter_mut().flatten() {
            crate::third_parties::attach_events(insight, &events);
        }
    }
    Ok(sets)
}

/// The insight sets, their 3rd parties insights without their events.
fn sets_of(analysis: &Analysis, data: &HandlerData) -> InsightSets {
    let meta = data.meta();
    let strings = analysis.strings();
    // Navigations without a frame or id make no set (DevTools filters them
    // first, so a set's end is the next kept navigation's start).
    let navigations: Vec<&Navigation> = meta
        .navigations
        .main_frame
        .iter()
        .filter(|n| n.frame.is_some() && n.navigation_id.is_some_and(|id| !strings.resolve(id).is_empty()))
        .collect();
    let trace = meta.bounds;
    let mut sets = InsightSets::default();
    let before = match navigations.first() {
        Some(first) => Bounds {
            min: trace.min,
            max: Micros(first.ts.0 - 1.0),
        },
        None => trace,
    };
    let cx = Context {
        analysis,
        data,
        bounds: before,
        frame_id: meta.main_frame_id,
        navigation: None,
        lantern: std::cell::OnceCell::new(),
    };
    sets.add(SetId::NoNavigation, &cx);
    for (i, navigation) in navigations.iter().enumerate() {
        let max = navigations.get(i + 1).map_or(trace.max, |next| Micros(next.ts.0 - 1.0));
        let cx = Context {
            analysis,
            data,
            bounds: Bounds {
                min: navigation.ts,
                max,
            },
            frame_id: navigation.frame,
            navigation: Some(navigation),
            lantern: std::cell::OnceCell::new(),
        };
        sets.add(SetId::Navigation(sets.sets.len()), &cx);
    }
    sets
}

/// The third parties of the whole trace: each entity's main thread time
/// and transferred bytes as the 3rd parties insight counts them, over the
/// trace's bounds and the main frame (what a comparison of two runs keys
/// by; the summaries' `events` are left empty); an error where DevTools'
/// insight throws, or without every handler's data.
pub fn third_parties_of_trace(analysis: &Analysis) -> Result<crate::third_parties::ThirdParties, String> {
    let bounds = analysis.handlers().map(|data| data.meta().bounds);
    third_parties_in(analysis, bounds.unwrap_or(Bounds::EMPTY))
}

/// The third parties of a window of the trace (DevTools'
/// `summarizeByThirdParty` over those bounds), as
/// [`third_parties_of_trace`] counts them.
pub fn third_parties_in(analysis: &Analysis, bounds: Bounds) -> Result<crate::third_parties::ThirdParties, String> {
    let data = analysis
        .handlers()
        .ok_or(InsightsError::NoHandlers(analysis.kind().name()))
        .map_err(|e| e.to_string())?;
    if !analysis.has_all_handlers() {
        return Err(InsightsError::NotGathered.to_string());
    }
    let cx = Context {
        analysis,
        data,
        bounds,
        frame_id: data.meta().main_frame_id,
        navigation: None,
        lantern: std::cell::OnceCell::new(),
    };
    crate::third_parties::find(&cx)
}

impl InsightSets {
    /// Computes a set and keeps it unless DevTools leaves it out.
    fn add(&mut self, id: SetId, cx: &Context<'_>) {
        let insights: Vec<Result<Insight, InsightError>> = RUNNERS
            .iter()
            .map(|(ui, run)| run(cx).map_err(|message| InsightError { ui, message }))
            .collect();
        if id == SetId::NoNavigation && is_trivial(cx, &insights) {
            return;
        }
        let meta = cx.data.meta();
        let strings = cx.analysis.strings();
        let display = |key: Option<Sym>| meta.navigations.final_display_url.get(&key).copied().flatten();
        let url = match cx.navigation {
            Some(n) => display(n.navigation_id).or(meta.main_frame_url),
            None => display(Some(names::EMPTY)).or(meta.main_frame_url),
        };
        // A URL the WHATWG parser refuses makes no set, as in DevTools.
        let Some(url) = url.and_then(|u| url::Url::parse(strings.resolve(u)).ok()) else {
            return;
        };
        let id = match id {
            SetId::Navigation(_) => SetId::Navigation(self.sets.len()),
            SetId::NoNavigation => SetId::NoNavigation,
        };
        let simulated = cx.lantern().map(|l| SimulatedMetrics {
            fcp: l.metrics.first_contentful_paint.timing,
            lcp: l.metrics.largest_contentful_paint.timing,
            tti: l.metrics.interactive.timing,
            tbt: l.metrics.total_blocking_time.timing,
        });
        self.sets.push(InsightSet {
            id,
            url: url.as_str().to_owned(),
            frame_id: cx.frame_id,
            bounds: cx.bounds,
            navigation: cx.navigation.copied(),
            insights,
            simulated,
        });
    }
}

/// DevTools leaves out the set of the time before the first navigation
/// when it lasts under 5 s, every insight passes, and there is no LCP, no
/// interaction and no layout shift in it (the moments before a reload).
fn is_trivial(cx: &Context<'_>, insights: &[Result<Insight, InsightError>]) -> bool {
    if cx.bounds.max.0 - cx.bounds.min.0 >= 5_000_000.0 {
        return false;
    }
    let computed = insights.iter().filter_map(|i| i.as_ref().ok());
    if !computed.clone().all(|i| i.state == State::Pass) {
        return false;
    }
    let mut shown = MetricShown::default();
    for insight in computed {
        let s = insight.finding.shows_metric();
        shown.lcp |= s.lcp;
        shown.interaction |= s.interaction;
        shown.layout_shifts = shown.layout_shifts.or(s.layout_shifts);
    }
    !shown.lcp && !shown.interaction && shown.layout_shifts == Some(0)
}
