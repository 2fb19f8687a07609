//! Viewport: whether the page's viewport suits a phone (each compositor
//! frame committed in the set, from the viewport tag on, says so), and when
//! it does not, the slow taps whose input delay it may be behind.

use tracekit_engine::handlers::timeline::interactions::POINTER_EVENT_TYPES;
use tracekit_engine::support::dump::{Object, Value};

use crate::model::{Category, EventRef, Finding, Insight, InsightWarning, MetricSavings, State, Ui};
use crate::sets::Context;

/// DevTools' words for the insight.
pub static UI: Ui = Ui {
    key: "Viewport",
    title: "Optimize viewport for mobile",
    description: "Tap interactions may be [delayed by up to 300\u{a0}ms](https://developer.chrome.com/docs/performance/insights/viewport) if the viewport isn’t optimized for mobile",
    docs: "https://developer.chrome.com/docs/performance/insights/viewport",
    category: Category::Inp,
    strings: &[
        ("title", "Optimize viewport for mobile"),
        ("description", "Tap interactions may be [delayed by up to 300\u{a0}ms](https://developer.chrome.com/docs/performance/insights/viewport) if the viewport isn’t optimized for mobile"),
        ("mobileTapDelayLabel", "Mobile tap delay"),
    ],
};

/// A pointer interaction whose input delay is at least this may have been
/// held back by a viewport not optimized for mobile: 50 ms.
const LONG_INPUT_DELAY_US: f64 = 50_000.0;

/// The most a viewport not optimized for mobile delays a tap: 300 ms.
const MAX_TAP_DELAY_MS: f64 = 300.0;

/// What the insight found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Viewport {
    /// Whether every frame committed was optimized for mobile; `None`:
    /// no frame was committed in the set (nothing to tell).
    pub mobile_optimized: Option<bool>,
    /// The first viewport tag parsed in the set's frame and window, as an
    /// index in [`UserInteractions::parse_meta_viewport_events`](tracekit_engine::UserInteractions)
    /// (written only when a frame was committed).
    pub viewport_event: Option<usize>,
    /// When not optimized: the slow pointer interactions with a long input
    /// delay, as indexes in `UserInteractions::interactions`.
    pub long_pointer_interactions: Vec<usize>,
}

/// Computes the insight.
pub fn generate(cx: &Context<'_>) -> Result<Insight, String> {
    let interactions = cx.data.user_interactions();
    let viewport_event = interactions
        .parse_meta_viewport_events
        .iter()
        .position(|e| e.frame == cx.frame_id && cx.overlaps(e.ts, e.dur));
    let viewport_ts = viewport_event.map(|i| interactions.parse_meta_viewport_events[i].ts);
    // Frames committed before the tag was parsed could not have used it.
    let mut commits = interactions
        .begin_commit_compositor_frame_events
        .iter()
        .filter(|e| e.frame == cx.frame_id && viewport_ts.is_none_or(|ts| e.ts.0 >= ts.0) && cx.overlaps(e.ts, e.dur))
        .peekable();
    if commits.peek().is_none() {
        let mut insight = Insight::new(State::Pass, Finding::Viewport(Viewport::default()));
        insight.warnings.push(InsightWarning::NoLayout);
        return Ok(insight);
    }
    if commits.all(|e| e.is_mobile_optimized) {
        let finding = Viewport {
            mobile_optimized: Some(true),
            viewport_event,
            long_pointer_interactions: Vec::new(),
        };
        return Ok(Insight::new(State::Pass, Finding::Viewport(finding)));
    }
    let strings = cx.analysis.strings();
    let long_pointer_interactions: Vec<usize> = interactions
        .over_threshold()
        .filter(|&i| {
            let x = &interactions.interactions[i];
            POINTER_EVENT_TYPES.contains(&strings.resolve(x.kind)) && x.input_delay.0 >= LONG_INPUT_DELAY_US
        })
        .collect();
    // The input delay is the nearest measure of the tap delay there is.
    let longest_delay = long_pointer_interactions
        .iter()
        .map(|&i| interactions.interactions[i].input_delay.0)
        .fold(0.0, f64::max)
        / 1000.0;
    let mut insight = Insight::new(
        State::Fail,
        Finding::Viewport(Viewport {
            mobile_optimized: Some(false),
            viewport_event,
            long_pointer_interactions,
        }),
    );
    insight.metric_savings = Some(MetricSavings {
        inp: Some(longest_delay.clamp(0.0, MAX_TAP_DELAY_MS)),
        ..MetricSavings::default()
    });
    Ok(insight)
}

impl Viewport {
    /// Its members of the insight's model.
    pub(crate) fn dump(&self, model: &mut Object, cx: &mut crate::DumpCx<'_, '_>) {
        model.push("mobileOptimized", Value::opt(self.mobile_optimized, Value::Bool));
        let Some(optimized) = self.mobile_optimized else {
            return;
        };
        let events = &cx.data.user_interactions().parse_meta_viewport_events;
        let viewport = Value::opt(self.viewport_event, |i| Value::Event(events[i].event));
        model.push("viewportEvent", viewport);
        if !optimized {
            let long: Vec<EventRef> = self
                .long_pointer_interactions
                .iter()
                .map(|&i| EventRef::Interaction(i))
                .collect();
            model.push("longPointerInteractions", cx.events(&long));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_trace::{navigation_set, sets, trace};

    fn commit(ts: u32, frame: &str, mobile: bool) -> String {
        format!(
            r#"{{"name":"BeginCommitCompositorFrame","ph":"I","s":"t","pid":2,"tid":3,"ts":{ts},"args":{{"frame":"{frame}","is_mobile_optimized":{mobile}}}}}"#
        )
    }

    /// A tap at `ts` (µs) whose handlers start `delay` µs later and whose
    /// next paint is 300 ms after it.
    fn tap(ts: u32, delay: u32) -> String {
        let ms = |us: u32| f64::from(us) / 1000.0;
        format!(
            r#"{{"name":"EventTiming","cat":"devtools.timeline","ph":"b","pid":2,"tid":3,"id":"0x1","ts":{ts},"args":{{"frame":"F1","data":{{"duration":300,"interactionId":5,"type":"pointerdown","timeStamp":{},"processingStart":{},"processingEnd":{}}}}}}},
            {{"name":"EventTiming","cat":"devtools.timeline","ph":"e","pid":2,"tid":3,"id":"0x1","ts":{},"args":{{}}}}"#,
            ms(ts),
            ms(ts + delay),
            ms(ts + delay + 1000),
            ts + 300_000
        )
    }

    fn viewport(events: &[String]) -> Insight {
        let sets = sets(&trace(&events.join(",")));
        let set = navigation_set(&sets);
        let found = set.computed().find(|i| i.ui().key == "Viewport");
        found.expect("a Viewport insight").clone()
    }

    fn finding(insight: &Insight) -> &Viewport {
        match &insight.finding {
            Finding::Viewport(f) => f,
            other => panic!("not a Viewport finding: {other:?}"),
        }
    }

    #[test]
    fn commits_optimized_for_mobile_pass_from_the_viewport_tag_on() {
        let tag =
            r#"{"name":"ParseMetaViewport","ph":"I","s":"t","pid":2,"tid":3,"ts":5000,"args":{"data":{"frame":"F1"}}}"#;
        // The commit before the tag does not count.
        let insight = viewport(&[commit(4000, "F1", false), tag.to_owned(), commit(6000, "F1", true)]);
        assert_eq!(insight.state, State::Pass);
        assert_eq!(finding(&insight).mobile_optimized, Some(true));
        assert_eq!(finding(&insight).viewport_event, Some(0));
        assert!(insight.metric_savings.is_none());
    }

    #[test]
    fn a_commit_not_optimized_fails_with_the_longest_tap_delay_as_savings() {
        let events = [
            commit(6000, "F1", true),
            commit(7000, "F1", false),
            tap(100_000, 120_000),
            tap(500_000, 30_000),
        ];
        let insight = viewport(&events);
        assert_eq!(insight.state, State::Fail);
        let f = finding(&insight);
        assert_eq!((f.mobile_optimized, f.viewport_event), (Some(false), None));
        // The second tap's input delay is too short to be counted.
        assert_eq!(f.long_pointer_interactions, vec![0]);
        assert_eq!(insight.metric_savings.and_then(|s| s.inp), Some(120.0));
    }

    #[test]
    fn no_commit_of_the_frame_warns_of_no_layout() {
        let insight = viewport(&[commit(6000, "OTHER", false)]);
        assert_eq!(insight.state, State::Pass);
        assert_eq!(insight.warnings, vec![InsightWarning::NoLayout]);
        assert_eq!(finding(&insight).mobile_optimized, None);
    }
}
