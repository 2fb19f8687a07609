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

pub mod dom_size;
mod dump;
pub mod forced_reflow;
pub mod inp_breakdown;
mod model;
mod sets;
pub mod slow_css_selector;
#[cfg(test)]
mod test_trace;
pub mod viewport;

pub use dump::{add_sets, DumpCx};
pub use model::{Category, EventRef, Finding, Insight, InsightWarning, MetricSavings, RelatedEvents, State, Ui};
pub use sets::{compute, Context, InsightError, InsightSet, InsightSets, InsightsError, SetId};

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

fn document(
    analysis: &tracekit_engine::Analysis,
    only: &[&str],
    rules: tracekit_engine::support::dump::Rules,
) -> Result<String, tracekit_engine::data::DataError> {
    let sets = compute(analysis).unwrap_or_default();
    analysis.data_document(only, rules, |dump| add_sets(&sets, analysis, dump))
}
