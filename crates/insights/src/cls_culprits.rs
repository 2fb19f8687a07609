//! Layout shift culprits: the set's layout shift clusters, the worst of
//! them, and for each shift what likely moved it (a web font loaded, an
//! iframe injected, an animation the compositor could not run, an image
//! painted without a size), found by what happened just before the
//! `PrePaint` the shift happened in.

use tracekit_engine::handlers::timeline::layout_shifts::{EventSpan, ImageEvent, LayoutShifts, RawKey};
use tracekit_engine::handlers::timeline::{Animations, CompositeFailure};
use tracekit_engine::support::dump::{Object, Value};
use tracekit_engine::{Micros, Sym};

use crate::model::{Category, EventRef, Finding, Insight, RelatedEvents, State, Ui};
use crate::sets::Context;

/// DevTools' words for the insight.
pub static UI: Ui = Ui {
    key: "CLSCulprits",
    title: "Layout shift culprits",
    description: "Layout shifts occur when elements move absent any user interaction. [Investigate the causes of layout shifts](https://developer.chrome.com/docs/performance/insights/cls-culprit), such as elements being added, removed, or their fonts changing as the page loads.",
    docs: "https://developer.chrome.com/docs/performance/insights/cls-culprit",
    category: Category::Cls,
    strings: &[
        ("title", "Layout shift culprits"),
        ("description", "Layout shifts occur when elements move absent any user interaction. [Investigate the causes of layout shifts](https://developer.chrome.com/docs/performance/insights/cls-culprit), such as elements being added, removed, or their fonts changing as the page loads."),
        ("worstLayoutShiftCluster", "Worst layout shift cluster"),
        ("worstCluster", "Worst cluster"),
        ("layoutShiftCluster", "Layout shift cluster @ {PH1}"),
        ("topCulprits", "Top layout shift culprits"),
        ("injectedIframe", "Injected iframe"),
        ("webFont", "Web font"),
        ("animation", "Animation"),
        ("unsizedImage", "Unsized image element"),
        ("noLayoutShifts", "No layout shifts"),
        ("noCulprits", "Couldn’t detect any layout shift culprits"),
    ],
};

/// How long before a `PrePaint` a font load or an animation may end and
/// still be the cause of its shifts: half a second.
const ROOT_CAUSE_WINDOW: f64 = 500_000.0;

/// The most culprits shown per cluster.
const MAX_TOP_CULPRITS: usize = 3;

/// The reasons Blink gives for not running an animation on the
/// compositor, by their bit in the failure mask (bits 8 and 14 are
/// obsolete).
pub const FAILURE_REASONS: &[(u32, &str)] = &[
    (0, "ACCELERATED_ANIMATIONS_DISABLED"),
    (1, "EFFECT_SUPPRESSED_BY_DEVTOOLS"),
    (2, "INVALID_ANIMATION_OR_EFFECT"),
    (3, "EFFECT_HAS_UNSUPPORTED_TIMING_PARAMS"),
    (4, "EFFECT_HAS_NON_REPLACE_COMPOSITE_MODE"),
    (5, "TARGET_HAS_INVALID_COMPOSITING_STATE"),
    (6, "TARGET_HAS_INCOMPATIBLE_ANIMATIONS"),
    (7, "TARGET_HAS_CSS_OFFSET"),
    (9, "ANIMATION_AFFECTS_NON_CSS_PROPERTIES"),
    (10, "TRANSFORM_RELATED_PROPERTY_CANNOT_BE_ACCELERATED_ON_TARGET"),
    (11, "TRANSFROM_BOX_SIZE_DEPENDENT"),
    (12, "FILTER_RELATED_PROPERTY_MAY_MOVE_PIXELS"),
    (13, "UNSUPPORTED_CSS_PROPERTY"),
    (15, "MIXED_KEYFRAME_VALUE_TYPES"),
    (16, "TIMELINE_SOURCE_HAS_INVALID_COMPOSITING_STATE"),
    (17, "ANIMATION_HAS_NO_VISIBLE_CHANGE"),
    (18, "AFFECTS_IMPORTANT_PROPERTY"),
    (19, "SVG_TARGET_HAS_INDEPENDENT_TRANSFORM_PROPERTY"),
];

/// A layout shift, by its cluster's index in
/// [`LayoutShifts::clusters`] and its own in the cluster's shifts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ShiftAt {
    /// The cluster.
    pub cluster: usize,
    /// The shift in it.
    pub shift: usize,
}

/// An animation instant that says the animation could not run on the
/// compositor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnimationFailure {
    /// The animation, by index in [`Animations::animations`].
    pub animation: usize,
    /// The instant, by index in the animation's instants.
    pub instant: usize,
}

/// An injected iframe: the frame that began loading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IframeCause {
    /// The frame's id.
    pub frame: Sym,
    /// The frame's URL, as its first renderer process knew it.
    pub url: Option<Sym>,
}

/// An image painted without a size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnsizedImageCause {
    /// The `LayoutImageUnsized` event whose node it is, by index in
    /// [`LayoutShifts::layout_image_unsized_events`].
    pub unsized_image: usize,
    /// The `PaintImage` event, by index in
    /// [`LayoutShifts::paint_image_events`].
    pub paint_image: usize,
}

/// What may have caused one shift.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ShiftCauses {
    /// Iframes injected before its `PrePaint`.
    pub iframes: Vec<IframeCause>,
    /// Font requests (indexes in the network requests) that ended within
    /// the root cause window before its `PrePaint`.
    pub web_fonts: Vec<usize>,
    /// Animations not composited that ended in that window.
    pub animations: Vec<AnimationFailure>,
    /// Unsized images painted right after its `PrePaint`.
    pub unsized_images: Vec<UnsizedImageCause>,
}

/// One of a cluster's top culprits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Culprit {
    /// A web font.
    WebFont,
    /// An injected iframe.
    Iframe,
    /// An animation.
    Animation,
    /// An unsized image.
    UnsizedImage(UnsizedImageCause),
}

/// What the insight found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClsCulprits {
    /// Every compositing failure of the set's animations.
    pub animation_failures: Vec<AnimationFailure>,
    /// Each shift of the set's clusters, in time order, with its causes.
    pub shifts: Vec<(ShiftAt, ShiftCauses)>,
    /// The set's clusters, by index in [`LayoutShifts::clusters`].
    pub clusters: Vec<usize>,
    /// The cluster of the highest score (the first of equals).
    pub worst_cluster: Option<usize>,
    /// The top culprits of each cluster, parallel to `clusters`.
    pub top_culprits: Vec<Vec<Culprit>>,
}

fn span_in(cx: &Context<'_>, span: EventSpan) -> bool {
    cx.overlaps(span.ts, span.dur.unwrap_or(Micros(0.0)))
}

/// DevTools' `nearestIndexFromBeginning`: the first item for which `pred`
/// holds, by bisection (the items ordered so that it holds from some
/// point on).
fn nearest_from_beginning(len: usize, pred: impl Fn(usize) -> bool) -> Option<usize> {
    if len == 0 {
        return None;
    }
    let (mut left, mut right) = (0usize, len - 1);
    while left != right {
        let pivot = left + (right - left) / 2;
        if pred(pivot) {
            right = left.max(if right == pivot { pivot - 1 } else { pivot });
        } else {
            left = right.min(if left == pivot { pivot + 1 } else { pivot });
        }
    }
    pred(left).then_some(left)
}

/// The first of `spans` (by time) that starts after `ts + dur` ends.
fn next_after(spans: &[EventSpan], ts: f64, dur: Option<f64>) -> Option<usize> {
    let end = ts + dur.filter(|d| !d.is_nan()).unwrap_or(0.0);
    nearest_from_beginning(spans.len(), |i| spans[i].ts.0 > end)
}

/// Whether something that ran from `ts` for `dur` ended in the half
/// second before `target`.
fn in_root_cause_window(ts: f64, dur: Option<f64>, target: f64) -> bool {
    let end = match dur {
        Some(d) if d != 0.0 && !d.is_nan() => ts + d,
        _ => ts,
    };
    end < target && end >= target - ROOT_CAUSE_WINDOW
}

/// The set's events of the culprits' lists, by index in the handler's.
struct Window<'a> {
    shifts: &'a LayoutShifts,
    /// The set's `PrePaint`s.
    pre_paints: Vec<EventSpan>,
    /// The shifts of each of those, in the order of the `PrePaint`s.
    shifts_by_pre_paint: Vec<(usize, Vec<usize>)>,
    /// The set's shifts, in time order.
    layout_shifts: Vec<ShiftAt>,
}

/// Computes the insight.
pub fn generate(cx: &Context<'_>) -> Result<Insight, String> {
    let shifts = cx.data.layout_shifts();
    let clusters: Vec<usize> = (0..shifts.clusters.len())
        .filter(|&i| cx.overlaps(shifts.clusters[i].ts, shifts.clusters[i].dur))
        .collect();
    let mut worst_cluster: Option<usize> = None;
    for &c in &clusters {
        let score = shifts.clusters[c].cumulative_score;
        if worst_cluster.is_none_or(|w| score > shifts.clusters[w].cumulative_score) {
            worst_cluster = Some(c);
        }
    }
    let layout_shifts: Vec<ShiftAt> = clusters
        .iter()
        .flat_map(|&cluster| (0..shifts.clusters[cluster].shifts.len()).map(move |shift| ShiftAt { cluster, shift }))
        .collect();
    let pre_paints: Vec<EventSpan> = shifts
        .causes
        .pre_paints
        .iter()
        .copied()
        .filter(|&s| span_in(cx, s))
        .collect();
    let shift_ts = |at: ShiftAt| shifts.clusters[at.cluster].shifts[at.shift].ts.0;
    let shifts_by_pre_paint = group_by_pre_paint(&pre_paints, &layout_shifts, shift_ts);
    let window = Window {
        shifts,
        pre_paints,
        shifts_by_pre_paint,
        layout_shifts,
    };
    let mut causes = vec![ShiftCauses::default(); window.layout_shifts.len()];
    iframe_causes(cx, &window, &mut causes);
    font_causes(cx, &window, &mut causes);
    unsized_image_causes(cx, &window, &mut causes);
    let animation_failures = animation_causes(cx, &window, &mut causes);
    let Window { layout_shifts, .. } = window;
    let position: ahash::AHashMap<ShiftAt, usize> = layout_shifts.iter().enumerate().map(|(i, &s)| (s, i)).collect();
    let top_culprits = clusters
        .iter()
        .map(|&c| {
            let shifts_of = (0..shifts.clusters[c].shifts.len())
                .filter_map(|shift| position.get(&ShiftAt { cluster: c, shift }).map(|&i| &causes[i]));
            top_culprits(shifts_of)
        })
        .collect();
    let state = match worst_cluster {
        None => State::Pass,
        // A NaN score counts as good, as in DevTools.
        Some(w) if shifts.clusters[w].cumulative_score >= 0.1 => State::Fail,
        Some(_) => State::Informative,
    };
    let mut related: Vec<EventRef> = layout_shifts
        .iter()
        .map(|s| EventRef::LayoutShift(s.cluster, s.shift))
        .collect();
    related.extend(worst_cluster.map(EventRef::LayoutShiftCluster));
    let finding = ClsCulprits {
        animation_failures,
        shifts: layout_shifts.into_iter().zip(causes).collect(),
        clusters,
        worst_cluster,
        top_culprits,
    };
    let mut insight = Insight::new(state, Finding::ClsCulprits(finding));
    insight.related_events = Some(RelatedEvents::List(related));
    Ok(insight)
}

/// The shifts of each `PrePaint` (those from its start to its end), by
/// position in `layout_shifts`; `PrePaint`s without shifts left out.
fn group_by_pre_paint(
    pre_paints: &[EventSpan],
    layout_shifts: &[ShiftAt],
    shift_ts: impl Fn(ShiftAt) -> f64,
) -> Vec<(usize, Vec<usize>)> {
    let mut groups = Vec::new();
    for (p, pre_paint) in pre_paints.iter().enumerate() {
        let start = pre_paint.ts.0;
        // A `PrePaint` without a duration ends at NaN: it holds no shift.
        let end = start + pre_paint.dur.map_or(f64::NAN, |d| d.0);
        let Some(first) = nearest_from_beginning(layout_shifts.len(), |i| shift_ts(layout_shifts[i]) >= start) else {
            continue;
        };
        let mut mine = Vec::new();
        for (i, &shift) in layout_shifts.iter().enumerate().skip(first) {
            let ts = shift_ts(shift);
            if ts >= start && ts <= end {
                mine.push(i);
            }
            if ts > end {
                break;
            }
        }
        if !mine.is_empty() {
            groups.push((p, mine));
        }
    }
    groups
}

impl Window<'_> {
    /// The shifts of the `PrePaint` at `p`, if it has any.
    fn shifts_of(&self, p: usize) -> Option<&[usize]> {
        self.shifts_by_pre_paint
            .iter()
            .find(|(q, _)| *q == p)
            .map(|(_, list)| list.as_slice())
    }
}

/// An iframe created right before a `PrePaint` with shifts is a cause of
/// them when a `domLoading` during its creation names its frame.
fn iframe_causes(cx: &Context<'_>, w: &Window<'_>, causes: &mut [ShiftCauses]) {
    let c = &w.shifts.causes;
    let dom_loadings: Vec<_> = c.dom_loadings.iter().filter(|d| span_in(cx, d.span)).collect();
    let meta = cx.data.meta();
    for &child in c.child_frames.iter().filter(|&&s| span_in(cx, s)) {
        let dur = child.dur.map(|d| d.0);
        let Some(next) = next_after(&w.pre_paints, child.ts.0, dur) else {
            continue;
        };
        let Some(list) = w.shifts_of(next) else {
            continue;
        };
        let end = child.ts.0 + dur.unwrap_or(0.0);
        let dom = dom_loadings
            .iter()
            .find(|d| d.span.ts.0 >= child.ts.0 && d.span.ts.0 <= end);
        let Some(frame) = dom.and_then(|d| d.frame) else {
            continue;
        };
        let url = meta
            .renderer_processes_by_frame
            .get(&Some(frame))
            .and_then(|by_process| by_process.values().next())
            .and_then(|windows| windows.first())
            .and_then(|w| w.frame.url);
        for &i in list {
            causes[i].iframes.push(IframeCause { frame, url });
        }
    }
}

/// A font request that ended in the half second before a `PrePaint` with
/// shifts is a cause of them.
fn font_causes(cx: &Context<'_>, w: &Window<'_>, causes: &mut [ShiftCauses]) {
    use tracekit_engine::handlers::page::JsValue;
    let strings = cx.analysis.strings();
    let requests = &cx.data.network_requests().requests;
    for (r, req) in requests.iter().enumerate() {
        if !cx.overlaps(req.ts, req.dur) {
            continue;
        }
        let is = |v: &JsValue, f: &dyn Fn(&str) -> bool| matches!(v, JsValue::Str(s) if f(strings.resolve(*s)));
        if !is(&req.resource_type, &|t| t == "Font") || !is(&req.mime_type, &|m| m.starts_with("font")) {
            continue;
        }
        let Some(next) = next_after(&w.pre_paints, req.ts.0, Some(req.dur.0)) else {
            continue;
        };
        if !in_root_cause_window(req.ts.0, Some(req.dur.0), w.pre_paints[next].ts.0) {
            continue;
        }
        for &i in w.shifts_of(next).unwrap_or_default() {
            causes[i].web_fonts.push(r);
        }
    }
}

/// An image painted first after a `PrePaint` with shifts, whose node was
/// laid out without a size, is a cause of them.
fn unsized_image_causes(cx: &Context<'_>, w: &Window<'_>, causes: &mut [ShiftCauses]) {
    let c = &w.shifts.causes;
    let paints: Vec<usize> = (0..c.paint_images.len())
        .filter(|&i| span_in(cx, c.paint_images[i].span))
        .collect();
    let paint_spans: Vec<EventSpan> = paints.iter().map(|&i| c.paint_images[i].span).collect();
    let sizeless: Vec<usize> = (0..c.unsized_images.len())
        .filter(|&i| span_in(cx, c.unsized_images[i].span))
        .collect();
    for (p, list) in &w.shifts_by_pre_paint {
        let pre_paint = w.pre_paints[*p];
        let Some(next) = next_after(&paint_spans, pre_paint.ts.0, pre_paint.dur.map(|d| d.0)) else {
            continue;
        };
        let paint = paints[next];
        let node = &c.paint_images[paint].node_id;
        let Some(&found) = sizeless
            .iter()
            .find(|&&u| same_node(&c.unsized_images[u].node_id, node))
        else {
            continue;
        };
        for &i in list {
            causes[i].unsized_images.push(UnsizedImageCause {
                unsized_image: found,
                paint_image: paint,
            });
        }
    }
}

/// JavaScript's `===` on two node ids: objects are never the same.
fn same_node(a: &RawKey, b: &RawKey) -> bool {
    match (a, b) {
        (RawKey::Undefined, RawKey::Undefined) => true,
        (RawKey::Num(x), RawKey::Num(y)) => x == y,
        (RawKey::Text(x), RawKey::Text(y)) => x == y && !x.starts_with(['{', '[']),
        _ => false,
    }
}

/// Every compositing failure of the set's animations; those of an
/// animation that ended in the half second before a `PrePaint` with
/// shifts are causes of them.
fn animation_causes(cx: &Context<'_>, w: &Window<'_>, causes: &mut [ShiftCauses]) -> Vec<AnimationFailure> {
    let animations: &Animations = cx.data.animations();
    let mut all = Vec::new();
    for (a, animation) in animations.animations.iter().enumerate() {
        if !cx.overlaps(animation.ts, animation.dur) {
            continue;
        }
        let failures: Vec<AnimationFailure> = animation
            .failures
            .iter()
            .enumerate()
            .filter(|(_, f)| f.mask.is_some())
            .map(|(instant, _)| AnimationFailure { animation: a, instant })
            .collect();
        all.extend(failures.iter().copied());
        let (ts, dur) = (animation.ts.0, Some(animation.dur.0));
        let Some(next) = next_after(&w.pre_paints, ts, dur) else {
            continue;
        };
        if !in_root_cause_window(ts, dur, w.pre_paints[next].ts.0) {
            continue;
        }
        for &i in w.shifts_of(next).unwrap_or_default() {
            causes[i].animations.extend(failures.iter().copied());
        }
    }
    all
}

/// The first three causes of a cluster's shifts, each shift's fonts,
/// iframes, animations and images in that order.
fn top_culprits<'a>(shifts: impl Iterator<Item = &'a ShiftCauses>) -> Vec<Culprit> {
    let mut top = Vec::new();
    for causes in shifts {
        let all = (causes.web_fonts.iter().map(|_| Culprit::WebFont))
            .chain(causes.iframes.iter().map(|_| Culprit::Iframe))
            .chain(causes.animations.iter().map(|_| Culprit::Animation))
            .chain(causes.unsized_images.iter().map(|&u| Culprit::UnsizedImage(u)));
        top.extend(all.take(MAX_TOP_CULPRITS - top.len()));
        if top.len() >= MAX_TOP_CULPRITS {
            break;
        }
    }
    top
}

impl ClsCulprits {
    /// What it found, in words: each cluster (the worst first) with its
    /// score and top culprits.
    pub(crate) fn summary(&self, cx: &crate::TextCx<'_>) -> Vec<String> {
        if self.clusters.is_empty() {
            return vec![UI.string("noLayoutShifts").to_owned()];
        }
        let clusters = &cx.data.layout_shifts().clusters;
        let mut order: Vec<usize> = (0..self.clusters.len()).collect();
        order.sort_by_key(|&i| Some(self.clusters[i]) != self.worst_cluster);
        order
            .into_iter()
            .map(|i| {
                let c = self.clusters[i];
                let names: Vec<&str> = self.top_culprits[i]
                    .iter()
                    .map(|k| match k {
                        Culprit::WebFont => UI.string("webFont"),
                        Culprit::Iframe => UI.string("injectedIframe"),
                        Culprit::Animation => UI.string("animation"),
                        Culprit::UnsizedImage(_) => UI.string("unsizedImage"),
                    })
                    .collect();
                let culprits = if names.is_empty() {
                    UI.string("noCulprits").to_owned()
                } else {
                    format!("culprits: {}", names.join(", "))
                };
                let worst = if Some(c) == self.worst_cluster { "worst " } else { "" };
                format!(
                    "{worst}{} (score {:.4}, {} shifts): {culprits}",
                    cx.event(EventRef::LayoutShiftCluster(c)),
                    clusters[c].cumulative_score,
                    clusters[c].shifts.len()
                )
            })
            .collect()
    }

    /// How many layout shifts the set has.
    pub fn shift_count(&self) -> usize {
        self.shifts.len()
    }

    /// Its members of the insight's model.
    pub(crate) fn dump(&self, model: &mut Object, cx: &mut crate::DumpCx<'_, '_>) {
        let failures = self.animation_failures.iter().map(|&f| failure_value(f, cx)).collect();
        model.push("animationFailures", Value::Array(failures));
        let shifts = self
            .shifts
            .iter()
            .map(|(at, causes)| {
                let key = cx.event(EventRef::LayoutShift(at.cluster, at.shift));
                (key, causes_value(causes, cx))
            })
            .collect();
        model.push("shifts", Value::Map(shifts));
        let clusters = self
            .clusters
            .iter()
            .map(|&c| cx.event(EventRef::LayoutShiftCluster(c)))
            .collect();
        model.push("clusters", Value::Array(clusters));
        // DevTools' model has the member even when there is no cluster.
        let worst = self.worst_cluster.map(|w| cx.event(EventRef::LayoutShiftCluster(w)));
        model.push("worstCluster", worst.unwrap_or(Value::Null));
        let top = self
            .clusters
            .iter()
            .zip(&self.top_culprits)
            .map(|(&c, culprits)| {
                let list = culprits.iter().map(|&k| culprit_value(k, cx)).collect();
                (cx.event(EventRef::LayoutShiftCluster(c)), Value::Array(list))
            })
            .collect();
        model.push("topCulpritsByCluster", Value::Map(top));
    }
}

fn failure_value(f: AnimationFailure, cx: &mut crate::DumpCx<'_, '_>) -> Value {
    let animation = &cx.data.animations().animations[f.animation];
    let CompositeFailure {
        mask,
        unsupported_properties,
    } = &animation.failures[f.instant];
    let mask = mask.unwrap_or(0);
    let reasons = FAILURE_REASONS
        .iter()
        .filter(|(bit, _)| mask & (1 << bit) != 0)
        .map(|(_, name)| Value::str(*name))
        .collect();
    let name = animation.display_name.clone().map(Value::Json);
    let properties = unsupported_properties.clone().map(Value::Json);
    Object::new()
        .with("name", name.unwrap_or(Value::Null))
        .with("failureReasons", Value::Array(reasons))
        .with("unsupportedProperties", properties.unwrap_or(Value::Null))
        .with("animation", cx.event(EventRef::Animation(f.animation)))
        .into()
}

fn causes_value(causes: &ShiftCauses, cx: &mut crate::DumpCx<'_, '_>) -> Value {
    let iframes = causes
        .iframes
        .iter()
        .map(|i| {
            Object::new()
                .with("frame", Value::Sym(i.frame))
                .with("url", Value::opt(i.url, Value::Sym))
                .into()
        })
        .collect();
    let fonts = causes
        .web_fonts
        .iter()
        .map(|&r| cx.event(EventRef::Request(r)))
        .collect();
    let animations = causes.animations.iter().map(|&f| failure_value(f, cx)).collect();
    let images = causes
        .unsized_images
        .iter()
        .map(|u| {
            let c = &cx.data.layout_shifts().causes;
            let paint = cx.data.layout_shifts().paint_image_events[u.paint_image];
            Object::new()
                .with("backendNodeId", node_value(&c.unsized_images[u.unsized_image].node_id))
                .with("paintImageEvent", Value::Event(paint))
                .into()
        })
        .collect();
    Object::new()
        .with("iframes", Value::Array(iframes))
        .with("webFonts", Value::Array(fonts))
        .with("nonCompositedAnimations", Value::Array(animations))
        .with("unsizedImages", Value::Array(images))
        .into()
}

/// A node id as the dump writes it (`undefined` as `null`, as DevTools'
/// dump writes a member that is there but undefined).
fn node_value(node: &RawKey) -> Value {
    match node {
        RawKey::Undefined => Value::Null,
        RawKey::Num(x) => Value::Num(*x),
        RawKey::Text(t) => Value::Json(t.clone()),
    }
}

fn culprit_value(culprit: Culprit, cx: &mut crate::DumpCx<'_, '_>) -> Value {
    let (kind, description) = match culprit {
        Culprit::WebFont => (0.0, "Web font"),
        Culprit::Iframe => (1.0, "Injected iframe"),
        Culprit::Animation => (2.0, "Animation"),
        Culprit::UnsizedImage(_) => (3.0, "Unsized image element"),
    };
    let mut value = Object::new()
        .with("type", Value::Num(kind))
        .with("description", Value::str(description));
    if let Culprit::UnsizedImage(u) = culprit {
        let c = &cx.data.layout_shifts().causes;
        let paint: &ImageEvent = &c.paint_images[u.paint_image];
        let text = |s: Option<Sym>| s.map_or_else(|| Value::str(""), Value::Sym);
        value = value
            .with("url", text(paint.url))
            .with("backendNodeId", node_value(&c.unsized_images[u.unsized_image].node_id))
            .with("frame", text(paint.frame));
    }
    value.into()
}

#[cfg(test)]
#[path = "cls_culprits_tests.rs"]
mod tests;
