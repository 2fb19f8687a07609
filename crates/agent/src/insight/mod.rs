//! One insight's analysis, as chrome-devtools-mcp's
//! `performance_analyze_insight` gives it: its title, what it checks, what
//! it found, its estimated savings and where to read more.

mod cls;
mod lcp;
mod network;
mod page;
mod reflow;
mod requests;

use std::cell::OnceCell;

use tracekit_engine::{Analysis, HandlerData, Strings};
use tracekit_insights::{Finding, Insight, InsightSet, InsightSets};

use crate::summary::savings_text;
use crate::units::millis;

use requests::Requests;

/// DevTools' `formatMicro`: µs written as ms.
fn micros(x: f64) -> String {
    millis(x / 1000.0)
}

/// What each insight checks, in DevTools' words to the model (fixed
/// text): `=== KEY` then the text.
const SUMMARIES: &str = include_str!("summaries.txt");

/// The summary of the insight `key`.
fn summary_of(key: &str) -> &'static str {
    let head = format!("=== {key}\n");
    let Some(at) = SUMMARIES.find(&head) else {
        return "";
    };
    let rest = &SUMMARIES[at + head.len()..];
    let end = rest.find("\n=== ").map_or(rest.len(), |e| e + 1);
    rest[..end].strip_suffix('\n').unwrap_or(&rest[..end])
}

/// What an insight's analysis reads.
pub(crate) struct Cx<'a> {
    /// Its handlers' data.
    pub data: &'a HandlerData,
    /// Its strings.
    pub strings: &'a Strings,
    /// The set of the insight.
    pub set: &'a InsightSet,
    /// The insight.
    pub insight: &'a Insight,
    /// The trace.
    pub analysis: &'a Analysis,
    /// Where the requests' sends are, once an initiator needed them.
    pub sends: OnceCell<requests::SendNodes>,
}

impl<'a> Cx<'a> {
    /// The request formats over this trace.
    pub fn requests(&self) -> Requests<'_> {
        Requests {
            data: self.data,
            strings: self.strings,
            analysis: self.analysis,
            sends: &self.sends,
        }
    }

    /// One of the insight's own UI strings, by DevTools' name.
    pub fn ui(&self, name: &str) -> &'static str {
        self.insight.ui().string(name)
    }
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
pub const KEYS: &[&str] = &[
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
    // An insight whose computation failed is left out of DevTools' model,
    // as it is unknown.
    let insight = match set
        .insights
        .iter()
        .find(|i| i.as_ref().map_or_else(|e| e.ui.key, |i| i.ui().key) == name)
    {
        Some(Ok(insight)) => insight,
        Some(Err(_)) => return Err(no_such()),
        None => {
            return Err(InsightTextError::NotYet(format!(
                "tracekit does not compute the insight {name} yet"
            )))
        }
    };
    let data = analysis.handlers().ok_or_else(no_such)?;
    let cx = Cx {
        data,
        strings: analysis.strings(),
        set,
        insight,
        analysis,
        sends: OnceCell::new(),
    };
    Ok(format_insight(insight, &details(&cx)))
}

/// What the insight found, in DevTools' words.
fn details(cx: &Cx<'_>) -> String {
    match &cx.insight.finding {
        Finding::Cache(f) => page::cache(cx, f),
        Finding::CharacterSet(f) => page::character_set(cx, f),
        Finding::DocumentLatency(f) => lcp::document_latency(cx, f),
        Finding::FontDisplay(f) => page::font_display(cx, f),
        Finding::ThirdParties(f) => page::third_parties(cx, f),
        Finding::ImageDelivery(f) => page::image_delivery(cx, f),
        Finding::InpBreakdown(f) => inp_details(cx, f),
        Finding::ClsCulprits(f) => cls::cls_culprits(cx, f),
        Finding::LcpBreakdown(f) => lcp::lcp_breakdown(cx, f),
        Finding::LcpDiscovery(f) => lcp::lcp_discovery(cx, f),
        Finding::LegacyJavaScript(f) => page::legacy_javascript(cx, f),
        Finding::ModernHttp(f) => page::modern_http(cx, f),
        Finding::NetworkDependencyTree(f) => network::network_dependency_tree(cx, f),
        Finding::RenderBlocking(f) => page::render_blocking(cx, f),
        Finding::DuplicatedJavaScript(f) => page::duplicated_javascript(cx, f),
        Finding::DomSize(f) => page::dom_size(cx, f),
        Finding::ForcedReflow(f) => reflow::forced_reflow(cx, f),
        Finding::SlowCssSelector(f) => page::slow_css_selector(cx, f),
        Finding::Viewport(f) => page::viewport(cx, f),
        _ => String::new(),
    }
}

fn format_insight(insight: &Insight, details: &str) -> String {
    let ui = insight.ui();
    let savings = savings_text(insight);
    let savings = if savings.is_empty() { "none".to_owned() } else { savings };
    let mut links = vec![ui.docs];
    links.extend(links_of(ui.key));
    let links: Vec<String> = links.iter().map(|l| format!("- {l}")).collect();
    format!(
        "## Insight Title: {}\n\n## Insight Summary:\n{}\n\n## Detailed analysis:\n{details}\n\n## Estimated savings: {savings}\n\n## External resources:\n{}",
        ui.title,
        summary_of(ui.key),
        links.join("\n")
    )
}

/// The pages DevTools points at for an insight, besides its own.
fn links_of(key: &str) -> &'static [&'static str] {
    match key {
        "CLSCulprits" => &["https://web.dev/articles/cls", "https://web.dev/articles/optimize-cls"],
        "DocumentLatency" => &["https://web.dev/articles/optimize-ttfb"],
        "DOMSize" => &["https://developer.chrome.com/docs/lighthouse/performance/dom-size/"],
        "FontDisplay" => &[
            "https://web.dev/articles/preload-optional-fonts",
            "https://fonts.google.com/knowledge/glossary/foit",
            "https://developer.chrome.com/blog/font-fallbacks",
        ],
        "ForcedReflow" => &["https://developers.google.com/web/fundamentals/performance/rendering/avoid-large-complex-layouts-and-layout-thrashing#avoid-forced-synchronous-layouts"],
        "ImageDelivery" => &["https://developer.chrome.com/docs/lighthouse/performance/uses-optimized-images/"],
        "INPBreakdown" => &[
            "https://web.dev/articles/inp",
            "https://web.dev/explore/how-to-optimize-inp",
            "https://web.dev/articles/optimize-long-tasks",
            "https://web.dev/articles/avoid-large-complex-layouts-and-layout-thrashing",
        ],
        "LCPBreakdown" | "LCPDiscovery" | "RenderBlocking" => {
            &["https://web.dev/articles/lcp", "https://web.dev/articles/optimize-lcp"]
        }
        "NetworkDependencyTree" => &[
            "https://web.dev/learn/performance/understanding-the-critical-path",
            "https://developer.chrome.com/docs/lighthouse/performance/uses-rel-preconnect/",
        ],
        "SlowCSSSelector" => &["https://developer.chrome.com/docs/devtools/performance/selector-stats"],
        "ThirdParties" => &["https://web.dev/articles/optimizing-content-efficiency-loading-third-party-javascript/"],
        "Viewport" => &["https://developer.chrome.com/blog/300ms-tap-delay-gone-away/"],
        "Cache" => &["https://web.dev/uses-long-cache-ttl/"],
        "ModernHTTP" => &["https://developer.chrome.com/docs/lighthouse/best-practices/uses-http2"],
        "LegacyJavaScript" => &[
            "https://web.dev/articles/baseline-and-polyfills",
            "https://philipwalton.com/articles/the-state-of-es5-on-the-web/",
        ],
        "CharacterSet" => &["https://developer.chrome.com/docs/insights/charset/"],
        _ => &[],
    }
}

fn inp_details(cx: &Cx<'_>, f: &tracekit_insights::inp_breakdown::InpBreakdown) -> String {
    let Some(i) = f.longest.and_then(|i| cx.data.user_interactions().interactions.get(i)) else {
        return String::new();
    };
    format!(
        "The longest interaction on the page was a `{}` which had a total duration of `{}`. The timings of each of the three subparts were:\n\n1. Input delay: {}\n2. Processing duration: {}\n3. Presentation delay: {}.",
        cx.strings.resolve(i.kind),
        micros(i.dur.0),
        micros(i.input_delay.0),
        micros(i.main_thread_handling.0),
        micros(i.presentation_delay.0)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_insight_has_its_summary() {
        for key in KEYS {
            assert!(!summary_of(key).is_empty(), "{key}");
            assert!(!summary_of(key).contains("==="), "{key}");
        }
        assert!(summary_of("Viewport").starts_with("The insight identifies web pages"));
        assert!(summary_of("INPBreakdown").ends_with("a good way to start optimizing."));
    }
}
