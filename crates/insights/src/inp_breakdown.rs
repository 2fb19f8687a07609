//! INP breakdown: the set's slowest interaction (by interaction id, the
//! longest event of each), split into input delay, processing and
//! presentation delay, and the one at the 98th percentile that INP is.

use crate::model::{interaction_is_good, Category, EventRef, Finding, Insight, RelatedEvents, State, Ui};
use crate::sets::Context;

/// DevTools' words for the insight.
pub static UI: Ui = Ui {
    key: "INPBreakdown",
    title: "INP breakdown",
    description: "Start investigating [how to improve INP](https://developer.chrome.com/docs/performance/insights/inp-breakdown) by looking at the longest subpart",
    docs: "https://developer.chrome.com/docs/performance/insights/inp-breakdown",
    category: Category::Inp,
    strings: &[
        ("description", "Start investigating [how to improve INP](https://developer.chrome.com/docs/performance/insights/inp-breakdown) by looking at the longest subpart"),
        ("duration", "Duration"),
        ("inputDelay", "Input delay"),
        ("noInteractions", "No interactions detected"),
        ("presentationDelay", "Presentation delay"),
        ("processingDuration", "Processing duration"),
        ("subpart", "Subpart"),
        ("title", "INP breakdown"),
    ],
};

/// What the insight found: indexes in
/// [`UserInteractions::interactions`](tracekit_engine::UserInteractions).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InpBreakdown {
    /// The longest interaction of the set.
    pub longest: Option<usize>,
    /// The interaction at the 98th percentile (Chrome keeps the ten
    /// longest, so at most the tenth longest): the page's INP.
    pub high_percentile: Option<usize>,
}

/// Computes the insight.
pub fn generate(cx: &Context<'_>) -> Result<Insight, String> {
    let interactions = cx.data.user_interactions();
    // The longest event of each interaction id, in the order the ids are
    // first met; a later event of an id replaces it only if longer.
    let mut longest_by_id: Vec<usize> = Vec::new();
    let mut slot_of_id: ahash::AHashMap<u64, usize> = ahash::AHashMap::new();
    for &at in &interactions.without_nesting {
        let event = &interactions.interactions[at];
        if !cx.overlaps(event.ts, event.dur) {
            continue;
        }
        // `+ 0.0`: JavaScript's Map finds 0 with -0.
        match slot_of_id.entry((event.interaction_id + 0.0).to_bits()) {
            std::collections::hash_map::Entry::Occupied(slot) => {
                let kept = &mut longest_by_id[*slot.get()];
                if event.dur.0 > interactions.interactions[*kept].dur.0 {
                    *kept = at;
                }
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(longest_by_id.len());
                longest_by_id.push(at);
            }
        }
    }
    // Longest first; a stable sort keeps ties in the order of their ids.
    longest_by_id.sort_by(|&a, &b| {
        let (a, b) = (&interactions.interactions[a], &interactions.interactions[b]);
        b.dur.0.total_cmp(&a.dur.0)
    });
    let Some(&longest) = longest_by_id.first() else {
        return Ok(Insight::new(
            State::Pass,
            Finding::InpBreakdown(InpBreakdown::default()),
        ));
    };
    let high_percentile = longest_by_id[(longest_by_id.len() / 50).min(9)];
    let state = if interaction_is_good(interactions, longest) {
        State::Informative
    } else {
        State::Fail
    };
    let mut insight = Insight::new(
        state,
        Finding::InpBreakdown(InpBreakdown {
            longest: Some(longest),
            high_percentile: Some(high_percentile),
        }),
    );
    insight.related_events = Some(RelatedEvents::List(vec![EventRef::Interaction(longest)]));
    Ok(insight)
}

impl InpBreakdown {
    /// Its members of the insight's model.
    pub(crate) fn dump(&self, model: &mut tracekit_engine::support::dump::Object, cx: &mut crate::DumpCx<'_, '_>) {
        if let Some(at) = self.longest {
            model.push("longestInteractionEvent", cx.event(EventRef::Interaction(at)));
        }
        if let Some(at) = self.high_percentile {
            model.push("highPercentileInteractionEvent", cx.event(EventRef::Interaction(at)));
        }
    }
}

impl InpBreakdown {
    /// What it found, in words.
    pub(crate) fn summary(&self, cx: &crate::TextCx<'_>) -> Vec<String> {
        let interactions = &cx.data.user_interactions().interactions;
        let Some(longest) = self.longest else {
            return vec![UI.string("noInteractions").to_owned()];
        };
        let i = &interactions[longest];
        let mut lines = vec![format!(
            "longest interaction: {} ({}: input delay {}, processing {}, presentation delay {})",
            cx.event(EventRef::Interaction(longest)),
            crate::text::ms(i.dur.0 / 1000.0),
            crate::text::ms(i.input_delay.0 / 1000.0),
            crate::text::ms(i.main_thread_handling.0 / 1000.0),
            crate::text::ms(i.presentation_delay.0 / 1000.0),
        )];
        if let Some(p98) = self.high_percentile.filter(|&p| p != longest) {
            lines.push(format!(
                "INP (98th percentile): {} ({})",
                cx.event(EventRef::Interaction(p98)),
                crate::text::ms(interactions[p98].dur.0 / 1000.0)
            ));
        }
        lines
    }
}
