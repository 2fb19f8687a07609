//! One insight's analysis, as chrome-devtools-mcp's
//! `performance_analyze_insight` gives it: its title, what it checks, what
//! it found, its estimated savings and where to read more. So far the INP
//! breakdown; the others answer that tracekit does not write them yet.

use tracekit_engine::{Analysis, HandlerData};
use tracekit_insights::{Finding, Insight, InsightSets};

use crate::summary::savings_text;
use crate::units::millis;

/// DevTools' `formatMicro`: µs written as ms.
fn micros(x: f64) -> String {
    millis(x / 1000.0)
}

/// Why there is no analysis to give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InsightTextError {
    /// chrome-devtools-mcp's own answer: no such set, or no such insight
    /// in it (its words).
    Devtools(String),
    /// The insight is DevTools', but tracekit does not compute it or does
    /// not write its analysis yet.
    NotYet(String),
}

impl std::fmt::Display for InsightTextError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InsightTextError::Devtools(text) | InsightTextError::NotYet(text) => f.write_str(text),
        }
    }
}

impl std::error::Error for InsightTextError {}

/// DevTools' insight keys.
const KEYS: &[&str] = &[
    "CLSCulprits",
    "Cache",
    "CharacterSet",
    "DOMSize",
    "DocumentLatency",
    "DuplicatedJavaScript",
    "FontDisplay",
    "ForcedReflow",
    "INPBreakdown",
    "ImageDelivery",
    "LCPBreakdown",
    "LCPDiscovery",
    "LegacyJavaScript",
    "ModernHTTP",
    "NetworkDependencyTree",
    "RenderBlocking",
    "SlowCSSSelector",
    "ThirdParties",
    "Viewport",
];

/// The analysis of the insight `name` of the set `set_id`.
pub fn insight_text(
    analysis: &Analysis,
    sets: &InsightSets,
    set_id: &str,
    name: &str,
) -> Result<String, InsightTextError> {
    let set = sets.sets.iter().find(|s| s.id.to_string() == set_id).ok_or_else(|| {
        InsightTextError::Devtools(
            "No Performance Insights for the given insight set id. Only use ids given in the \"Available insight sets\" list."
                .to_owned(),
        )
    })?;
    let no_such = || {
        InsightTextError::Devtools(format!(
            "No Insight with the name {name} found. Double check the name you provided is accurate and try again."
        ))
    };
    if !KEYS.contains(&name) {
        return Err(no_such());
    }
    let insight = set
        .computed()
        .find(|i| i.ui().key == name)
        .ok_or_else(|| InsightTextError::NotYet(format!("tracekit does not compute the insight {name} yet")))?;
    let data = analysis.handlers().ok_or_else(no_such)?;
    let (description, details) = match &insight.finding {
        Finding::InpBreakdown(f) => (INP_DESCRIPTION, inp_details(f, data, analysis)),
        _ => {
            return Err(InsightTextError::NotYet(format!(
                "tracekit does not write the analysis of the insight {name} yet"
            )))
        }
    };
    Ok(format_insight(insight, description, &details))
}

/// What the INP breakdown checks, in DevTools' words to the model.
const INP_DESCRIPTION: &str = include_str!("inp_description.txt");

fn format_insight(insight: &Insight, description: &str, details: &str) -> String {
    let ui = insight.ui();
    let savings = savings_text(insight);
    let savings = if savings.is_empty() { "none".to_owned() } else { savings };
    let mut links = vec![ui.docs];
    links.extend(links_of(ui.key));
    let links: Vec<String> = links.iter().map(|l| format!("- {l}")).collect();
    format!(
        "## Insight Title: {}\n\n## Insight Summary:\n{description}\n\n## Detailed analysis:\n{details}\n\n## Estimated savings: {savings}\n\n## External resources:\n{}",
        ui.title,
        links.join("\n")
    )
}

/// The pages DevTools points at for an insight, besides its own.
fn links_of(key: &str) -> &'static [&'static str] {
    match key {
        "INPBreakdown" => &[
            "https://web.dev/articles/inp",
            "https://web.dev/explore/how-to-optimize-inp",
            "https://web.dev/articles/optimize-long-tasks",
            "https://web.dev/articles/avoid-large-complex-layouts-and-layout-thrashing",
        ],
        _ => &[],
    }
}

fn inp_details(f: &tracekit_insights::inp_breakdown::InpBreakdown, data: &HandlerData, analysis: &Analysis) -> String {
    let Some(i) = f.longest.and_then(|i| data.user_interactions().interactions.get(i)) else {
        return String::new();
    };
    format!(
        "The longest interaction on the page was a `{}` which had a total duration of `{}`. The timings of each of the three subparts were:\n\n1. Input delay: {}\n2. Processing duration: {}\n3. Presentation delay: {}.",
        analysis.strings().resolve(i.kind),
        micros(i.dur.0),
        micros(i.input_delay.0),
        micros(i.main_thread_handling.0),
        micros(i.presentation_delay.0)
    )
}
