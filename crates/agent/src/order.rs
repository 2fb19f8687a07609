//! The order in which DevTools lists a set's insights: a fixed order of
//! importance first, then, stably, by how much fixing each would raise the
//! page's Web Vitals scores (its savings on LCP, INP and CLS, scored on
//! DevTools' log-normal curves with equal weights when there is no field
//! data, as offline).

use tracekit_insights::{Insight, InsightSet};

use crate::crux::FieldMetrics;
use crate::metrics::SetMetrics;

/// DevTools' insight keys in its order of importance.
const BASELINE: &[&str] = &[
    "INPBreakdown",
    "LCPBreakdown",
    "LCPDiscovery",
    "CLSCulprits",
    "RenderBlocking",
    "NetworkDependencyTree",
    "ImageDelivery",
    "DocumentLatency",
    "FontDisplay",
    "Viewport",
    "DOMSize",
    "ThirdParties",
    "DuplicatedJavaScript",
    "SlowCSSSelector",
    "ForcedReflow",
    "Cache",
    "CharacterSet",
    "ModernHTTP",
    "LegacyJavaScript",
];

/// How much each metric weighs in the order: a third each, or, with
/// field data, each by how far its field value is from good.
#[derive(Debug, Clone, Copy)]
pub struct Weights {
    lcp: f64,
    inp: f64,
    cls: f64,
}

/// The weights with the field metrics of the set's page over all devices.
pub(crate) fn weights(field: Option<FieldMetrics>) -> Weights {
    let third = Weights {
        lcp: 1.0 / 3.0,
        inp: 1.0 / 3.0,
        cls: 1.0 / 3.0,
    };
    let Some(field) = field else { return third };
    let lcp = 1.0 - field.lcp.map_or(0.0, |v| lcp_score(v.value / 1000.0));
    let inp = 1.0 - field.inp.map_or(0.0, |v| inp_score(v.value / 1000.0));
    let cls = 1.0 - field.cls.map_or(0.0, |v| cls_score(v.value));
    let sum = lcp + inp + cls;
    if sum == 0.0 || sum.is_nan() {
        return third;
    }
    Weights {
        lcp: lcp / sum,
        inp: inp / sum,
        cls: cls / sum,
    }
}

/// The insights of `set` computed, in the order DevTools lists them.
pub fn ordered<'s>(set: &'s InsightSet, metrics: &SetMetrics, weights: Weights) -> Vec<&'s Insight> {
    let mut insights: Vec<&Insight> = set.computed().collect();
    let place = |i: &Insight| BASELINE.iter().position(|k| *k == i.ui().key).unwrap_or(BASELINE.len());
    insights.sort_by_key(|i| place(i));
    let rank = |i: &Insight| rank(i, metrics, weights);
    // Stable, highest first; a NaN compares as equal, as JavaScript's
    // sort takes a NaN from its comparator.
    insights.sort_by(|a, b| rank(b).partial_cmp(&rank(a)).unwrap_or(std::cmp::Ordering::Equal));
    insights
}

/// How much fixing `insight` would raise the weighted scores.
fn rank(insight: &Insight, m: &SetMetrics, w: Weights) -> f64 {
    let savings = insight.metric_savings.unwrap_or_default();
    let lcp = savings.lcp.unwrap_or(0.0);
    let inp = savings.inp.unwrap_or(0.0);
    let cls = savings.cls.unwrap_or(0.0);
    let observed_lcp = m.lcp.as_ref().map_or(0.0, |l| l.ms);
    let observed_inp = m.inp.as_ref().map_or(200.0, |i| i.dur / 1000.0);
    let observed_cls = m.cls_score;
    let mut score = 0.0;
    if w.lcp != 0.0 && lcp != 0.0 && !lcp.is_nan() {
        score += w.lcp * (lcp_score((observed_lcp - lcp).max(0.0)) - lcp_score(observed_lcp));
    }
    if w.inp != 0.0 && inp != 0.0 && !inp.is_nan() {
        score += w.inp * (inp_score((observed_inp - inp).max(0.0)) - inp_score(observed_inp));
    }
    if w.cls != 0.0 && cls != 0.0 && !cls.is_nan() {
        score += w.cls * (cls_score((observed_cls - cls).max(0.0)) - cls_score(observed_cls));
    }
    score
}

fn lcp_score(ms: f64) -> f64 {
    log_normal_score(2500.0, 4000.0, ms)
}

fn inp_score(ms: f64) -> f64 {
    log_normal_score(200.0, 500.0, ms)
}

fn cls_score(score: f64) -> f64 {
    log_normal_score(0.1, 0.25, score)
}

/// Lighthouse's score of a value on a log-normal curve through `p10`
/// (scored 0.9) and `median` (0.5), clamped into the band of its side.
fn log_normal_score(p10: f64, median: f64, value: f64) -> f64 {
    const MIN_PASSING: f64 = 0.9;
    const MAX_AVERAGE: f64 = 0.899_999_999_999_999_9;
    const MIN_AVERAGE: f64 = 0.5;
    const MAX_FAILING: f64 = 0.499_999_999_999_999_94;
    if value <= 0.0 {
        return 1.0;
    }
    // erfc⁻¹(1/5): puts p10 at the 10th percentile.
    const INVERSE_ERFC_ONE_FIFTH: f64 = 0.906_193_802_436_823_2;
    let x_log_ratio = (value / median).max(f64::MIN_POSITIVE).ln();
    let p10_log_ratio = -(p10 / median).max(f64::MIN_POSITIVE).ln();
    let standardized = x_log_ratio * INVERSE_ERFC_ONE_FIFTH / p10_log_ratio;
    let complementary = (1.0 - erf(standardized)) / 2.0;
    if value <= p10 {
        complementary.clamp(MIN_PASSING, 1.0)
    } else if value <= median {
        complementary.clamp(MIN_AVERAGE, MAX_AVERAGE)
    } else {
        complementary.clamp(0.0, MAX_FAILING)
    }
}

/// The error function by Abramowitz and Stegun's 7.1.26, the
/// approximation Lighthouse scores with (not the exact function: the
/// scores must be the same).
fn erf(x: f64) -> f64 {
    let sign = if x < 0.0 {
        -1.0
    } else if x > 0.0 {
        1.0
    } else {
        0.0
    };
    let x = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly =
        t * (0.254_829_592 + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    sign * (1.0 - poly * (-x * x).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_follow_the_curve_bands() {
        assert_eq!(lcp_score(0.0), 1.0);
        assert!((lcp_score(2500.0) - 0.9).abs() < 1e-3);
        assert!((lcp_score(4000.0) - 0.5).abs() < 1e-3);
        assert!(inp_score(1000.0) < 0.5);
        assert!(cls_score(0.05) >= 0.9);
    }
}
