//! CSS selector costs: the selector timings of the style recalculations of
//! the set's frame (recorded only with selector statistics turned on),
//! added up per selector and style sheet; the totals, and the selectors
//! that took the longest and were tried the most.

use tracekit_engine::handlers::causes::selector_stats::SelectorTiming;
use tracekit_engine::support::dump::{Object, Value};
use tracekit_engine::Strings;

use crate::model::{Category, Finding, Insight, RelatedEvents, State, Ui};
use crate::sets::Context;

/// DevTools' words for the insight.
pub static UI: Ui = Ui {
    key: "SlowCSSSelector",
    title: "CSS selector costs",
    description: "If recalculate style costs remain high, selector optimization can reduce them. [Optimize the selectors](https://developer.chrome.com/docs/performance/insights/slow-css-selector) with both high elapsed time and high slow-path %. Simpler selectors, fewer selectors, a smaller DOM, and a shallower DOM will all reduce matching costs.",
    docs: "https://developer.chrome.com/docs/performance/insights/slow-css-selector",
    category: Category::All,
    strings: &[
        ("title", "CSS selector costs"),
        ("description", "If recalculate style costs remain high, selector optimization can reduce them. [Optimize the selectors](https://developer.chrome.com/docs/performance/insights/slow-css-selector) with both high elapsed time and high slow-path %. Simpler selectors, fewer selectors, a smaller DOM, and a shallower DOM will all reduce matching costs."),
        ("matchAttempts", "Match attempts"),
        ("matchCount", "Match count"),
        ("elapsed", "Elapsed time"),
        ("topSelectors", "Top selectors"),
        ("total", "Total"),
        ("enableSelectorData", "No CSS selector data was found. CSS selector stats need to be enabled in the Performance panel settings."),
        ("topSelectorElapsedTime", "Top selector elapsed time"),
        ("topSelectorMatchAttempt", "Top selector match attempt"),
    ],
};

/// A selector whose matching took less than this in all is not slow:
/// 500 µs.
const SLOW_SELECTOR_US: f64 = 500.0;

/// What the insight found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SlowCssSelector {
    /// The time spent matching selectors, ms.
    pub total_elapsed_ms: f64,
    /// How many elements selectors were tried on.
    pub total_match_attempts: f64,
    /// How many they matched.
    pub total_match_count: f64,
    /// The selector (of one style sheet) that took the longest in all,
    /// when that is at least `SLOW_SELECTOR_US`.
    pub top_selector_elapsed: Option<SelectorTiming>,
    /// The selector tried on the most elements.
    pub top_selector_match_attempts: Option<SelectorTiming>,
}

/// Computes the insight.
pub fn generate(cx: &Context<'_>) -> Result<Insight, String> {
    let timings = aggregate(cx)?;
    // A field a timing lacks makes its sum NaN, as JavaScript adds
    // `undefined`.
    let sum = |field: fn(&SelectorTiming) -> Option<f64>| {
        timings
            .iter()
            .fold(0.0, |total, t| total + field(t).unwrap_or(f64::NAN))
    };
    let mut finding = SlowCssSelector {
        total_elapsed_ms: sum(|t| t.elapsed) / 1000.0,
        total_match_attempts: sum(|t| t.match_attempts),
        total_match_count: sum(|t| t.match_count),
        ..SlowCssSelector::default()
    };
    finding.top_selector_elapsed =
        top_by(&timings, |t| t.elapsed).filter(|t| !t.elapsed.is_some_and(|e| e < SLOW_SELECTOR_US));
    finding.top_selector_match_attempts = top_by(&timings, |t| t.match_attempts);
    let state = if finding.top_selector_elapsed.is_some() && finding.top_selector_match_attempts.is_some() {
        State::Informative
    } else {
        State::Pass
    };
    let mut insight = Insight::new(state, Finding::SlowCssSelector(finding));
    insight.related_events = Some(RelatedEvents::List(Vec::new()));
    Ok(insight)
}

/// The timings of the set's frame and window, one per selector and style
/// sheet, added up, in the order first met.
fn aggregate(cx: &Context<'_>) -> Result<Vec<SelectorTiming>, String> {
    let strings = cx.analysis.strings();
    let mut by_key: ahash::AHashMap<String, usize> = ahash::AHashMap::new();
    let mut out: Vec<SelectorTiming> = Vec::new();
    for stats in cx.data.selector_stats().by_recalc_style.values() {
        if stats.frame != cx.frame_id || !cx.overlaps(stats.ts, stats.dur) {
            continue;
        }
        let Some(timings) = &stats.timings else {
            return Err("a SelectorStats event without selector_timings".to_owned());
        };
        for timing in timings {
            match by_key.entry(key(timing, strings)) {
                std::collections::hash_map::Entry::Occupied(at) => {
                    let kept = &mut out[*at.get()];
                    let add = |a: Option<f64>, b: Option<f64>| Some(a.unwrap_or(f64::NAN) + b.unwrap_or(f64::NAN));
                    kept.elapsed = add(kept.elapsed, timing.elapsed);
                    kept.fast_reject_count = add(kept.fast_reject_count, timing.fast_reject_count);
                    kept.match_attempts = add(kept.match_attempts, timing.match_attempts);
                    kept.match_count = add(kept.match_count, timing.match_count);
                }
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(out.len());
                    out.push(timing.clone());
                }
            }
        }
    }
    Ok(out)
}

/// DevTools' key of a timing: the selector and the style sheet's id joined
/// by `_` (an absent one written `undefined`).
fn key(timing: &SelectorTiming, strings: &Strings) -> String {
    let text = |s: Option<tracekit_engine::Sym>| s.map_or("undefined", |s| strings.resolve(s));
    format!("{}_{}", text(timing.selector), text(timing.style_sheet_id))
}

/// The timing with the largest field, the last of those as large (or not
/// comparable: NaN, absent).
fn top_by(timings: &[SelectorTiming], field: fn(&SelectorTiming) -> Option<f64>) -> Option<SelectorTiming> {
    let value = |t: &SelectorTiming| field(t).unwrap_or(f64::NAN);
    let top = timings.iter().reduce(|a, b| if value(a) > value(b) { a } else { b })?;
    Some(top.clone())
}

impl SlowCssSelector {
    /// Its members of the insight's model.
    pub(crate) fn dump(&self, model: &mut Object) {
        model.push("totalElapsedMs", Value::Num(self.total_elapsed_ms));
        model.push("totalMatchAttempts", Value::Num(self.total_match_attempts));
        model.push("totalMatchCount", Value::Num(self.total_match_count));
        model.push("topSelectorElapsedMs", timing_value(self.top_selector_elapsed.as_ref()));
        model.push(
            "topSelectorMatchAttempts",
            timing_value(self.top_selector_match_attempts.as_ref()),
        );
    }
}

/// A selector's timing as the trace writes it, or `null`.
fn timing_value(timing: Option<&SelectorTiming>) -> Value {
    timing.map_or(Value::Null, SelectorTiming::dump)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_trace::{navigation_set, sets, trace};

    /// A style recalculation of `frame` at `ts`, then its selector stats:
    /// `(selector, elapsed µs, match attempts)` of style sheet `s1`.
    fn recalc(ts: u32, frame: &str, timings: &[(&str, u32, u32)]) -> String {
        let timings: Vec<String> = timings
            .iter()
            .map(|(selector, elapsed, attempts)| {
                format!(
                    r#"{{"selector":"{selector}","style_sheet_id":"s1","elapsed (us)":{elapsed},"match_attempts":{attempts},"match_count":1,"fast_reject_count":0}}"#
                )
            })
            .collect();
        format!(
            r#"{{"name":"UpdateLayoutTree","ph":"X","pid":2,"tid":3,"ts":{ts},"dur":100,"args":{{"beginData":{{"frame":"{frame}"}},"elementCount":1}}}},
            {{"name":"SelectorStats","ph":"X","pid":2,"tid":3,"ts":{},"dur":1,"args":{{"selector_stats":{{"selector_timings":[{}]}}}}}}"#,
            ts + 101,
            timings.join(",")
        )
    }

    fn slow_css_selector(events: &[String]) -> (Insight, SlowCssSelector) {
        let sets = sets(&trace(&events.join(",")));
        let set = navigation_set(&sets);
        let insight = set
            .computed()
            .find(|i| i.ui().key == "SlowCSSSelector")
            .expect("the insight");
        match &insight.finding {
            Finding::SlowCssSelector(f) => (insight.clone(), f.clone()),
            other => panic!("not a SlowCSSSelector finding: {other:?}"),
        }
    }

    #[test]
    fn selectors_are_added_up_across_recalculations_of_the_frame() {
        let (insight, f) = slow_css_selector(&[
            recalc(100_000, "F1", &[(".a", 300, 5), (".b", 100, 50)]),
            recalc(200_000, "F1", &[(".a", 300, 5)]),
            // Another frame's.
            recalc(300_000, "F2", &[(".b", 9000, 9000)]),
        ]);
        assert_eq!(insight.state, State::Informative);
        assert_eq!(
            (f.total_elapsed_ms, f.total_match_attempts, f.total_match_count),
            (0.7, 60.0, 3.0)
        );
        let top = f.top_selector_elapsed.expect("a slow selector");
        assert_eq!((top.elapsed, top.match_attempts), (Some(600.0), Some(10.0)));
        assert_eq!(f.top_selector_match_attempts.and_then(|t| t.match_attempts), Some(50.0));
    }

    #[test]
    fn fast_selectors_pass_and_stats_without_timings_are_an_error() {
        let (insight, f) = slow_css_selector(&[recalc(100_000, "F1", &[(".a", 499, 5)])]);
        assert_eq!(insight.state, State::Pass);
        assert!(f.top_selector_elapsed.is_none() && f.top_selector_match_attempts.is_some());
        let without = r#"{"name":"UpdateLayoutTree","ph":"X","pid":2,"tid":3,"ts":100000,"dur":100,"args":{"beginData":{"frame":"F1"}}},
            {"name":"SelectorStats","ph":"X","pid":2,"tid":3,"ts":100200,"dur":1,"args":{"selector_stats":{}}}"#;
        let sets = sets(&trace(without));
        let errors: Vec<_> = navigation_set(&sets)
            .insights
            .iter()
            .filter_map(|i| i.as_ref().err())
            .map(|e| e.ui.key)
            .collect();
        // The LCP insights fail too, as in DevTools: the trace has no page
        // load metric.
        assert_eq!(errors, ["LCPBreakdown", "LCPDiscovery", "SlowCSSSelector"]);
    }
}
