//! What an insight is: its verdict, what fixing it would save, the events
//! it points at, and its own findings ([`Finding`]), each kind of finding
//! with DevTools' words for it ([`Ui`]).

use std::sync::Arc;

use tracekit_engine::handlers::page::EntityEvent;
use tracekit_engine::handlers::timeline::UserInteractions;
use tracekit_engine::support::EventIndex;

/// DevTools' verdict on one insight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum State {
    /// Nothing to fix.
    Pass,
    /// Something to fix.
    Fail,
    /// Worth a look; not a failure.
    Informative,
}

impl State {
    /// DevTools' name of the state.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Pass => "pass",
            State::Fail => "fail",
            State::Informative => "informative",
        }
    }
}

/// Which metric an insight is about, as DevTools files it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// Any metric.
    All,
    /// Interaction to Next Paint.
    Inp,
    /// Largest Contentful Paint.
    Lcp,
    /// Cumulative Layout Shift.
    Cls,
}

impl Category {
    /// DevTools' name of the category.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::All => "All",
            Category::Inp => "INP",
            Category::Lcp => "LCP",
            Category::Cls => "CLS",
        }
    }
}

/// What fixing an insight would save, per metric (milliseconds, or the
/// layout shift score for CLS); a metric left out is not estimated.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MetricSavings {
    /// First Contentful Paint, ms.
    pub fcp: Option<f64>,
    /// Largest Contentful Paint, ms.
    pub lcp: Option<f64>,
    /// Total Blocking Time, ms.
    pub tbt: Option<f64>,
    /// Cumulative Layout Shift, a score.
    pub cls: Option<f64>,
    /// Interaction to Next Paint, ms.
    pub inp: Option<f64>,
}

/// Why an insight could not look at what it needed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InsightWarning {
    /// No first paint.
    NoFp,
    /// No Largest Contentful Paint.
    NoLcp,
    /// No request of the navigation's document.
    NoDocumentRequest,
    /// No layout (no compositor frame) in the set's window.
    NoLayout,
}

impl InsightWarning {
    /// DevTools' name of the warning.
    pub fn as_str(self) -> &'static str {
        match self {
            InsightWarning::NoFp => "NO_FP",
            InsightWarning::NoLcp => "NO_LCP",
            InsightWarning::NoDocumentRequest => "NO_DOCUMENT_REQUEST",
            InsightWarning::NoLayout => "NO_LAYOUT",
        }
    }
}

/// An event an insight points at: one of the input, or one a handler
/// made of several (a request, an interaction, ...), by its place in that
/// handler's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventRef {
    /// An event of the input.
    Input(EventIndex),
    /// A network request, by its index in
    /// [`NetworkRequests::requests`](tracekit_engine::NetworkRequests).
    Request(usize),
    /// An interaction, by its index in [`UserInteractions::interactions`].
    Interaction(usize),
    /// A layout shift: its cluster's index in
    /// [`LayoutShifts::clusters`](tracekit_engine::LayoutShifts), its own in the cluster.
    LayoutShift(usize, usize),
    /// A layout shift cluster, by its index in
    /// [`LayoutShifts::clusters`](tracekit_engine::LayoutShifts).
    LayoutShiftCluster(usize),
    /// An animation, by its index in
    /// [`Animations::animations`](tracekit_engine::Animations).
    Animation(usize),
    /// Lantern's copy of a network request for one of its redirect hops:
    /// the request's index in
    /// [`NetworkRequests::requests`](tracekit_engine::NetworkRequests), the hop's.
    RedirectHop(usize, u32),
    /// An event of a third-party entity, as the entity mappings hold it.
    Entity(EntityEvent),
}

/// The events an insight relates itself to: a list, or events each with
/// the labels of what the insight says of them.
#[derive(Debug, Clone, PartialEq)]
pub enum RelatedEvents {
    /// These events.
    List(Vec<EventRef>),
    /// These events, each with what the insight says of it.
    Labelled(Vec<(EventRef, Vec<String>)>),
    /// Every event of these entities, entity after entity (the 3rd parties
    /// insight's): the lists the insight's summaries hold, shared rather
    /// than copied, since they reach every JS call of a big trace.
    Entities(Vec<Arc<Vec<EntityEvent>>>),
}

impl RelatedEvents {
    /// How many events there are.
    pub fn len(&self) -> usize {
        match self {
            RelatedEvents::List(events) => events.len(),
            RelatedEvents::Labelled(events) => events.len(),
            RelatedEvents::Entities(lists) => lists.iter().map(|l| l.len()).sum(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The events, in order.
    pub fn events(&self) -> Box<dyn Iterator<Item = EventRef> + '_> {
        match self {
            RelatedEvents::List(events) => Box::new(events.iter().copied()),
            RelatedEvents::Labelled(events) => Box::new(events.iter().map(|(e, _)| *e)),
            RelatedEvents::Entities(lists) => {
                Box::new(lists.iter().flat_map(|l| l.iter().map(|&e| EventRef::Entity(e))))
            }
        }
    }
}

/// The words DevTools uses for one kind of insight: its key, title,
/// description, documentation and category, and every string of its
/// panel (placeholders such as `{PH1}` unfilled), as DevTools hands them to
/// the tools built on it. Two are the same insight's when their keys are.
#[derive(Debug)]
pub struct Ui {
    /// DevTools' key of the insight (`"INPBreakdown"`).
    pub key: &'static str,
    /// Its title.
    pub title: &'static str,
    /// What it checks, in Markdown.
    pub description: &'static str,
    /// The page that explains it.
    pub docs: &'static str,
    /// Which metric it is about.
    pub category: Category,
    /// Every string of the insight, by DevTools' name, title and
    /// description among them.
    pub strings: &'static [(&'static str, &'static str)],
}

/// One insight of a set: DevTools' verdict and what it found.
#[derive(Debug, Clone, PartialEq)]
pub struct Insight {
    /// Pass, fail or informative.
    pub state: State,
    /// What fixing it would save, when estimated.
    pub metric_savings: Option<MetricSavings>,
    /// Bytes that need not have been sent, when estimated.
    pub wasted_bytes: Option<f64>,
    /// What kept it from looking at what it needed.
    pub warnings: Vec<InsightWarning>,
    /// The events it is about, when it says.
    pub related_events: Option<RelatedEvents>,
    /// What this kind of insight found.
    pub finding: Finding,
}

impl Ui {
    /// The string of this name among [`Ui::strings`] (empty when none is).
    pub fn string(&self, name: &str) -> &'static str {
        self.strings
            .iter()
            .find(|(n, _)| *n == name)
            .map_or("", |(_, text)| text)
    }
}

impl PartialEq for Ui {
    fn eq(&self, other: &Ui) -> bool {
        self.key == other.key
    }
}

impl Insight {
    /// An insight with nothing estimated, no warning and no related event.
    pub fn new(state: State, finding: Finding) -> Insight {
        Insight {
            state,
            metric_savings: None,
            wasted_bytes: None,
            warnings: Vec::new(),
            related_events: None,
            finding,
        }
    }

    /// DevTools' words for this kind of insight.
    pub fn ui(&self) -> &'static Ui {
        self.finding.ui()
    }
}

/// What each kind of insight found (its own fields of DevTools' model).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Finding {
    /// Use efficient cache lifetimes ([`crate::cache`]).
    Cache(crate::cache::Cache),
    /// Character set ([`crate::character_set`]).
    CharacterSet(crate::character_set::CharacterSet),
    /// Document request latency ([`crate::document_latency`]).
    DocumentLatency(crate::document_latency::DocumentLatency),
    /// Font display ([`crate::font_display`]).
    FontDisplay(crate::font_display::FontDisplay),
    /// 3rd parties ([`crate::third_parties`]).
    ThirdParties(crate::third_parties::ThirdParties),
    /// Improve image delivery ([`crate::image_delivery`]).
    ImageDelivery(crate::image_delivery::ImageDelivery),
    /// INP breakdown ([`crate::inp_breakdown`]).
    InpBreakdown(crate::inp_breakdown::InpBreakdown),
    /// Layout shift culprits ([`crate::cls_culprits`]).
    ClsCulprits(crate::cls_culprits::ClsCulprits),
    /// LCP breakdown ([`crate::lcp_breakdown`]).
    LcpBreakdown(crate::lcp_breakdown::LcpBreakdown),
    /// LCP request discovery ([`crate::lcp_discovery`]).
    LcpDiscovery(crate::lcp_discovery::LcpDiscovery),
    /// Legacy JavaScript ([`crate::legacy_javascript`]).
    LegacyJavaScript(crate::legacy_javascript::LegacyJavaScript),
    /// Modern HTTP ([`crate::modern_http`]).
    ModernHttp(crate::modern_http::ModernHttp),
    /// Network dependency tree ([`crate::network_dependency_tree`]).
    NetworkDependencyTree(crate::network_dependency_tree::NetworkDependencyTree),
    /// Render-blocking requests ([`crate::render_blocking`]).
    RenderBlocking(crate::render_blocking::RenderBlocking),
    /// Duplicated JavaScript ([`crate::duplicated_javascript`]).
    DuplicatedJavaScript(crate::duplicated_javascript::DuplicatedJavaScript),
    /// DOM size ([`crate::dom_size`]).
    DomSize(crate::dom_size::DomSize),
    /// CSS selector costs ([`crate::slow_css_selector`]).
    SlowCssSelector(crate::slow_css_selector::SlowCssSelector),
    /// Forced reflow ([`crate::forced_reflow`]).
    ForcedReflow(crate::forced_reflow::ForcedReflow),
    /// Viewport ([`crate::viewport`]).
    Viewport(crate::viewport::Viewport),
}

impl Finding {
    /// DevTools' words for this kind of insight.
    pub fn ui(&self) -> &'static Ui {
        match self {
            Finding::Cache(_) => &crate::cache::UI,
            Finding::ImageDelivery(_) => &crate::image_delivery::UI,
            Finding::InpBreakdown(_) => &crate::inp_breakdown::UI,
            Finding::ModernHttp(_) => &crate::modern_http::UI,
            Finding::DuplicatedJavaScript(_) => &crate::duplicated_javascript::UI,
            Finding::RenderBlocking(_) => &crate::render_blocking::UI,
            Finding::LegacyJavaScript(_) => &crate::legacy_javascript::UI,
            Finding::NetworkDependencyTree(_) => &crate::network_dependency_tree::UI,
            Finding::CharacterSet(_) => &crate::character_set::UI,
            Finding::ClsCulprits(_) => &crate::cls_culprits::UI,
            Finding::DocumentLatency(_) => &crate::document_latency::UI,
            Finding::FontDisplay(_) => &crate::font_display::UI,
            Finding::LcpBreakdown(_) => &crate::lcp_breakdown::UI,
            Finding::LcpDiscovery(_) => &crate::lcp_discovery::UI,
            Finding::ThirdParties(_) => &crate::third_parties::UI,
            Finding::Viewport(_) => &crate::viewport::UI,
            Finding::ForcedReflow(_) => &crate::forced_reflow::UI,
            Finding::SlowCssSelector(_) => &crate::slow_css_selector::UI,
            Finding::DomSize(_) => &crate::dom_size::UI,
        }
    }

    /// Whether DevTools' model of this insight always has a
    /// `metricSavings` member: `undefined` (written `null`) when the set
    /// has no Lantern context to estimate them with.
    pub(crate) fn savings_member_always(&self) -> bool {
        matches!(
            self,
            Finding::Cache(_)
                | Finding::DuplicatedJavaScript(_)
                | Finding::ImageDelivery(_)
                | Finding::LegacyJavaScript(_)
                | Finding::ModernHttp(_)
        )
    }

    /// What the finding says, a line at a time, in words (`tracekit
    /// insights`).
    pub fn summary(&self, cx: &crate::text::TextCx<'_>) -> Vec<String> {
        crate::summary::lines(self, cx)
    }

    /// Whether the finding shows a metric's event of the set: an LCP, an
    /// interaction, a layout shift. DevTools leaves out the set of the time
    /// before the first navigation when it is short, every insight passes
    /// and none of them shows one.
    pub(crate) fn shows_metric(&self) -> MetricShown {
        match self {
            Finding::Cache(_) | Finding::ImageDelivery(_) | Finding::ModernHttp(_) => MetricShown::default(),
            Finding::RenderBlocking(_) | Finding::DuplicatedJavaScript(_) => MetricShown::default(),
            Finding::CharacterSet(_)
            | Finding::DocumentLatency(_)
            | Finding::FontDisplay(_)
            | Finding::ThirdParties(_) => MetricShown::default(),
            Finding::InpBreakdown(f) => MetricShown {
                interaction: f.longest.is_some(),
                ..MetricShown::default()
            },
            Finding::ClsCulprits(f) => MetricShown {
                layout_shifts: Some(f.shift_count()),
                ..MetricShown::default()
            },
            Finding::LcpBreakdown(f) => MetricShown {
                lcp: f.lcp.is_some(),
                ..MetricShown::default()
            },
            Finding::LcpDiscovery(_) => MetricShown::default(),
            Finding::NetworkDependencyTree(_) => MetricShown::default(),
            Finding::LegacyJavaScript(_) => MetricShown::default(),
            Finding::Viewport(_) => MetricShown::default(),
            Finding::ForcedReflow(_) => MetricShown::default(),
            Finding::SlowCssSelector(_) => MetricShown::default(),
            Finding::DomSize(_) => MetricShown::default(),
        }
    }
}

/// Which of a set's metrics an insight shows an event of.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct MetricShown {
    pub lcp: bool,
    pub interaction: bool,
    /// `Some(n)`: the insight counts the set's layout shifts, `n` of them.
    pub layout_shifts: Option<usize>,
}

/// DevTools' classification of an interaction's duration: good up to
/// 200 ms.
pub(crate) fn interaction_is_good(interactions: &UserInteractions, at: usize) -> bool {
    interactions.interactions[at].dur.0 <= 200_000.0
}
