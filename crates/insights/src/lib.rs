//! DevTools' insights of a trace: the verdicts the Performance panel's
//! Insights sidebar shows (the LCP and INP broken down, what shifted the
//! layout, which requests blocked rendering, ...), computed from the
//! handlers' data as DevTools' `front_end/models/trace/insights/` does,
//! one set per navigation ([`compute`]).
//!
//! Each insight is a module: its words ([`Ui`]), its findings (a variant
//! of [`Finding`]), how it is computed (a runner in `sets.rs`'s list, in
//! DevTools' order) and how its findings are written in the data
//! conformance dump.

pub mod cache;
pub mod character_set;
pub mod cls_culprits;
pub mod document_latency;
#[cfg(test)]
mod document_tests;
pub mod dom_size;
mod dump;
pub mod duplicated_javascript;
mod estimates;
pub mod font_display;
pub mod forced_reflow;
pub mod image_delivery;
pub mod inp_breakdown;
pub mod lcp_breakdown;
pub mod lcp_discovery;
pub mod legacy_javascript;
#[cfg(test)]
mod legacy_javascript_tests;
mod main_thread;
mod millis_text;
mod model;
pub mod modern_http;
#[cfg(test)]
mod network_dependency_tests;
pub mod network_dependency_tree;
pub mod render_blocking;
mod sets;
pub mod slow_css_selector;
mod summary;
#[cfg(test)]
mod test_trace;
mod text;
pub mod third_parties;
pub mod viewport;

pub use dump::{add_sets, DumpCx};
pub use model::{Category, EventRef, Finding, Insight, InsightWarning, MetricSavings, RelatedEvents, State, Ui};
pub use sets::{
    compute, compute_with, computed_insights, third_parties_in, third_parties_of_trace, Context, InsightError,
    InsightSet, InsightSets, InsightsError, SetId,
};
pub use text::{sets_text, TextCx};

/// The data conformance dump of `analysis` (`tracekit data --format
/// conformance`): the handlers named in `only` (all when empty), and
/// every insight set.
pub fn data_conformance(
    analysis: &tracekit_engine::Analysis,
    only: &[&str],
) -> Result<String, tracekit_engine::data::DataError> {
    document(analysis, only, tracekit_engine::support::dump::Rules::CONFORMANCE)
}

/// The same document with every number and string as it is, for
/// programs (`tracekit data --format json`).
pub fn data_json(
    analysis: &tracekit_engine::Analysis,
    only: &[&str],
) -> Result<String, tracekit_engine::data::DataError> {
    document(analysis, only, tracekit_engine::support::dump::Rules::EXACT)
}

/// The insight sets alone in the document of the handlers' data
/// (`{"handlers": {}, "insights": [...], "synthetic": {...}}`), by the
/// conformance rules or with every number as it is (`tracekit insights
/// --format conformance|json`).
pub fn sets_document(
    analysis: &tracekit_engine::Analysis,
    sets: &InsightSets,
    conformance: bool,
) -> Result<String, tracekit_engine::data::DataError> {
    let rules = if conformance {
        tracekit_engine::support::dump::Rules::CONFORMANCE
    } else {
        tracekit_engine::support::dump::Rules::EXACT
    };
    analysis.data_document(Some(&[]), rules, |dump| add_sets(sets, analysis, dump))
}

fn document(
    analysis: &tracekit_engine::Analysis,
    only: &[&str],
    rules: tracekit_engine::support::dump::Rules,
) -> Result<String, tracekit_engine::data::DataError> {
    let sets = compute(analysis).unwrap_or_default();
    let only = Some(only).filter(|o| !o.is_empty());
    analysis.data_document(only, rules, |dump| add_sets(&sets, analysis, dump))
}

#[cfg(test)]
mod tests;
