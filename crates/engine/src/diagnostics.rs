//! The account of what loading skipped, repaired or did differently from
//! DevTools, as an analysis lends it.

use tracekit_events::{Divergence, Skip, SkipRecord};

/// What loading skipped, repaired or did differently from DevTools: the
/// account `tracekit tracks --stats` prints (`tracekit::output::stats`).
///
/// ```
/// let trace = br#"[{"ph":"X","ts":1,"dur":1,"pid":1,"tid":1},
///                  {"name":"RunTask","ph":"X","ts":1,"dur":5,"pid":1,"tid":1}]"#;
/// let analysis = tracekit::analyze_bytes(trace, &tracekit::AnalyzeOptions::default())?;
/// let diagnostics = analysis.diagnostics();
/// assert_eq!(diagnostics.skipped_count(tracekit::Skip::EventMissingName), 1);
/// for (reason, record) in diagnostics.skipped() {
///     println!("skipped {} x {reason} (first: {})", record.count, record.first_example);
/// }
/// # Ok::<(), tracekit::LoadError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics(pub(crate) tracekit_events::Diagnostics);

impl Diagnostics {
    /// Repairs and other things a user should know (a truncated file,
    /// say), one line each, each once, in order.
    pub fn warnings(&self) -> impl Iterator<Item = &str> + '_ {
        let mut seen = std::collections::HashSet::new();
        self.0
            .warnings
            .iter()
            .map(String::as_str)
            .filter(move |w| seen.insert(*w))
    }

    /// What was skipped, by reason (in the order of their text), with how
    /// often and the first example.
    pub fn skipped(&self) -> impl ExactSizeIterator<Item = (Skip, &SkipRecord)> + '_ {
        self.0.skipped.iter().map(|(reason, record)| (*reason, record))
    }

    /// How often something was skipped for `reason`.
    pub fn skipped_count(&self, reason: Skip) -> u64 {
        self.0.skipped.get(&reason).map_or(0, |r| r.count)
    }

    /// How much was skipped, for all reasons.
    pub fn total_skipped(&self) -> u64 {
        self.0.total_skipped()
    }

    /// The places where tracekit deliberately answered differently from
    /// DevTools (`docs/divergences.md` explains each), with the first
    /// example.
    pub fn divergences(&self) -> impl ExactSizeIterator<Item = (Divergence, &str)> + '_ {
        self.0.divergences.iter().map(|(d, example)| (*d, example.as_str()))
    }

    /// The account as the handlers keep it, for the crates that print it
    /// in full (the formats' diagnostics).
    pub fn raw(&self) -> &tracekit_events::Diagnostics {
        &self.0
    }

    /// Whether nothing was skipped, repaired or done differently.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
