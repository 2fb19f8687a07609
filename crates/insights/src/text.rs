//! The insight sets as a person reads the Performance panel's Insights
//! sidebar: a block per set (its URL and window), the insights to look at
//! first (failing, then informative), each with its title, what it found,
//! what fixing it would save and the events involved, then the names of
//! those that passed.

use std::fmt::Write;

use tracekit_engine::{Analysis, HandlerData, Micros};

use crate::model::{EventRef, Insight, MetricSavings, State};
use crate::sets::{InsightSet, InsightSets};

/// What the text of an insight reads: the handlers' data, and the trace's
/// start, which times are written from.
pub struct TextCx<'a> {
    /// The analysis.
    pub analysis: &'a Analysis,
    /// Every handler's data.
    pub data: &'a HandlerData,
    /// The start of the trace.
    pub origin: Micros,
}

impl<'a> TextCx<'a> {
    /// A time of the trace, in ms from its start.
    pub fn at(&self, ts: Micros) -> String {
        ms((ts.0 - self.origin.0) / 1000.0)
    }

    /// A context for writing the insights of `analysis`.
    pub fn new(analysis: &'a Analysis, data: &'a HandlerData) -> TextCx<'a> {
        TextCx {
            analysis,
            data,
            origin: data.meta().bounds.min,
        }
    }

    /// The name and start of the input event of this index, when it is on
    /// a track: a scan of the tracks (the text tells a few events only, and
    /// a map of every node would cost more than the scans).
    fn input_event(&self, index: u32) -> Option<(tracekit_engine::Sym, Micros)> {
        self.analysis.process_tracks().values().find_map(|process| {
            process.threads.values().find_map(|track| {
                track.nodes.iter().find_map(|node| match node.kind() {
                    tracekit_engine::NodeKind::Event { name, event, .. } if event == index => Some((name, node.ts())),
                    _ => None,
                })
            })
        })
    }

    /// An event an insight points at, in a few words.
    pub fn event(&self, event: EventRef) -> String {
        let strings = self.analysis.strings();
        match event {
            EventRef::Input(index) => match self.input_event(index) {
                Some((name, ts)) => format!("{} at {}", strings.resolve(name), self.at(ts)),
                None => format!("event #{index}"),
            },
            EventRef::Request(i) => {
                let request = &self.data.network_requests().requests[i];
                format!("request {} at {}", strings.resolve(request.url), self.at(request.ts))
            }
            EventRef::Entity(e) => crate::summary::entity_event(e, self),
            EventRef::Interaction(i) => {
                let interaction = &self.data.user_interactions().interactions[i];
                format!("{} at {}", strings.resolve(interaction.kind), self.at(interaction.ts))
            }
            EventRef::LayoutShift(c, s) => {
                let shift = &self.data.layout_shifts().clusters[c].shifts[s];
                format!("layout shift at {}", self.at(shift.ts))
            }
            EventRef::LayoutShiftCluster(c) => {
                let cluster = &self.data.layout_shifts().clusters[c];
                format!("layout shift cluster at {}", self.at(cluster.ts))
            }
            EventRef::RedirectHop(i, hop) => {
                let request = &self.data.network_requests().requests[i];
                format!(
                    "redirect {hop} of request {} at {}",
                    strings.resolve(request.url),
                    self.at(request.ts)
                )
            }
            EventRef::Animation(i) => {
                let animation = &self.data.animations().animations[i];
                format!("animation at {}", self.at(animation.ts))
            }
        }
    }
}

/// A duration in ms, to 0.1 ms.
pub(crate) fn ms(x: f64) -> String {
    format!("{x:.1} ms")
}

/// The text of every set.
pub fn sets_text(sets: &InsightSets, analysis: &Analysis) -> String {
    let Some(data) = analysis.handlers() else {
        return String::new();
    };
    let cx = TextCx::new(analysis, data);
    let mut out = String::new();
    for (i, set) in sets.sets.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        set_text(set, &cx, &mut out);
    }
    out
}

fn set_text(set: &InsightSet, cx: &TextCx<'_>, out: &mut String) {
    let _ = writeln!(
        out,
        "{} {} ({} to {})",
        set.id,
        set.url,
        cx.at(set.bounds.min),
        cx.at(set.bounds.max)
    );
    if let Some(m) = set.simulated {
        let _ = writeln!(
            out,
            "  simulated by Lantern, as Lighthouse reports it: FCP {}, LCP {}, TTI {}, TBT {}",
            ms(m.fcp),
            ms(m.lcp),
            ms(m.tti),
            ms(m.tbt)
        );
    }
    let mut shown: Vec<&Insight> = set.computed().filter(|i| i.state != State::Pass).collect();
    // Failing first, then informative; DevTools' order within each.
    shown.sort_by_key(|i| i.state != State::Fail);
    for insight in shown {
        insight_text(insight, cx, out);
    }
    let passed: Vec<&str> = set
        .computed()
        .filter(|i| i.state == State::Pass)
        .map(|i| i.ui().title)
        .collect();
    if !passed.is_empty() {
        let _ = writeln!(out, "  passed: {}", passed.join(", "));
    }
    for error in set.insights.iter().filter_map(|i| i.as_ref().err()) {
        let _ = writeln!(out, "  not computed: {} ({})", error.ui.title, error.message);
    }
}

fn insight_text(insight: &Insight, cx: &TextCx<'_>, out: &mut String) {
    let ui = insight.ui();
    let _ = writeln!(
        out,
        "  [{}] {} ({})",
        insight.state.as_str(),
        ui.title,
        ui.category.as_str()
    );
    for line in insight.finding.summary(cx) {
        let _ = writeln!(out, "    {line}");
    }
    if let Some(savings) = insight.metric_savings.map(savings_text).filter(|s| !s.is_empty()) {
        let _ = writeln!(out, "    estimated savings: {savings}");
    }
    if let Some(bytes) = insight.wasted_bytes.filter(|b| *b > 0.0) {
        let _ = writeln!(out, "    wasted: {:.1} kB", bytes / 1000.0);
    }
    for warning in &insight.warnings {
        let _ = writeln!(out, "    warning: {}", warning.as_str());
    }
    const SHOWN: usize = 5;
    if let Some(related) = insight.related_events.as_ref().filter(|r| !r.is_empty()) {
        let names: Vec<String> = related.events().take(SHOWN).map(|e| cx.event(e)).collect();
        let more = related.len().saturating_sub(SHOWN);
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        let _ = writeln!(out, "    events: {}{tail}", names.join("; "));
    }
}

fn savings_text(s: MetricSavings) -> String {
    let mut parts = Vec::new();
    for (name, value) in [("FCP", s.fcp), ("LCP", s.lcp), ("TBT", s.tbt), ("INP", s.inp)] {
        if let Some(v) = value.filter(|v| *v > 0.0) {
            parts.push(format!("{name} {}", ms(v)));
        }
    }
    if let Some(cls) = s.cls.filter(|v| *v > 0.0) {
        parts.push(format!("CLS {cls:.4}"));
    }
    parts.join(", ")
}
