//! tracekit-diff: did a change make the code slower? Two traces, or two
//! sets of runs, compared key by key. No I/O: it takes analyses and
//! gives a report.
//!
//! - [`measure`] turns an [`Analysis`](tracekit::Analysis) into a
//!   [`Run`]: a value per [`Key`], keys that line up two runs of the
//!   same code (threads by role, never pid or tid; functions as the
//!   Bottom-Up keys them; events by name; the Summary's categories; the
//!   page metrics).
//! - [`compare`] compares BASE's runs with NEW's: per key the change,
//!   and with several runs per side the medians, the Hodges-Lehmann
//!   change and its interval, the Mann-Whitney U p-value adjusted for
//!   the keys tested (Benjamini-Hochberg) and Cliff's delta ([`stats`]).
//! - [`Threshold`] reads the `--fail-on` thresholds of a CI job and
//!   [`crossed`] tells which a report crosses.
//! - [`render`] writes a report as text, Markdown or JSON; [`Stacks`]
//!   gives each side's folded stacks for a differential flame graph.

mod compare;
mod folded;
mod keys;
pub mod render;
pub mod stats;
mod threshold;

#[cfg(test)]
mod stats_tests;
#[cfg(test)]
mod tests;

pub use compare::{compare, CompareError, Options, Presence, Report, Row, Stats};
pub use folded::Stacks;
pub use keys::{
    measure, measure_with, thread_role, Key, Kind, MeasureError, Quantity, Run, ValueUnit, BYTES, REQUESTS,
};
pub use threshold::{crossed, Target, Threshold, ThresholdError, Unit};
