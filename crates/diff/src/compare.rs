//! The comparison of two sides ([`compare`]): per key, the value of each
//! side, the change, and with several runs per side the statistics that
//! decide whether it is a change or noise ([`Row`], [`Report`]).

use std::collections::BTreeSet;

use crate::keys::{Key, Kind, Quantity, Run, ValueUnit};
use crate::stats::{self, Method};

/// How to compare.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// The false discovery rate (Benjamini-Hochberg) at which a change
    /// over several runs is significant, and `1 - alpha` the confidence
    /// of the intervals. Default 0.05.
    pub alpha: f64,
    /// Keys whose value is below this many ms on both sides (the medians,
    /// with several runs) are not tested: too small to tell. Default
    /// 0.5 ms. Page metrics are always tested.
    pub min_ms: f64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            alpha: 0.05,
            min_ms: 0.5,
        }
    }
}

/// Where a key was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Presence {
    /// In runs of both sides.
    Both,
    /// Only in NEW's runs.
    Added,
    /// Only in BASE's runs.
    Removed,
}

/// The statistics of a key over several runs per side.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Stats {
    /// The two-sided Mann-Whitney U p-value.
    pub p: f64,
    /// `p` adjusted for the number of keys tested (Benjamini-Hochberg).
    pub p_adjusted: f64,
    /// How `p` was computed.
    pub method: Method,
    /// The confidence interval of the change (Hodges-Lehmann), at level
    /// `1 - alpha`.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
    /// Cliff's delta of NEW against BASE (-1 ..= 1).
    pub cliffs_delta: f64,
}

/// One key compared.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Row {
    /// What is compared.
    pub key: Key,
    /// The unit of `base`, `new`, `delta` and the interval
    /// ([`Key::unit`]).
    pub unit: ValueUnit,
    /// Where it was found.
    pub presence: Presence,
    /// BASE's value (the median of its runs).
    pub base: f64,
    /// NEW's value (the median of its runs).
    pub new: f64,
    /// The change: `new - base` for one run per side, the Hodges-Lehmann
    /// estimate with several.
    pub delta: f64,
    /// `delta / base`, `None` when BASE is 0.
    pub relative: Option<f64>,
    /// With several runs per side, for a key tested.
    pub stats: Option<Stats>,
    /// Whether it is reported as a change: with one run per side, a
    /// nonzero change of a key large enough; with several, a significant
    /// one (adjusted p-value below alpha); else noise.
    pub changed: bool,
}

/// The comparison of two sides.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    /// Runs of BASE.
    pub base_runs: usize,
    /// Runs of NEW.
    pub new_runs: usize,
    /// The options compared with.
    pub alpha: f64,
    /// See [`Options::min_ms`].
    pub min_ms: f64,
    /// The keys tested (the Benjamini-Hochberg adjustment's count); 0 with
    /// one run per side.
    pub tested: usize,
    /// The thread roles both sides have.
    pub threads: Vec<String>,
    /// Every key, changes first, each group by what moved most (page
    /// metrics, then self times, then categories, third parties and total
    /// times, which count the same time again).
    pub rows: Vec<Row>,
}

impl Report {
    /// Whether statistics were computed (several runs on a side).
    pub fn is_statistical(&self) -> bool {
        self.base_runs > 1 || self.new_runs > 1
    }

    /// The rows reported as changes.
    pub fn changes(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| r.changed)
    }
}

/// Why two sides cannot be compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompareError {
    /// A side has no run, or nothing measured in any of its runs (`"BASE"`
    /// or `"NEW"`).
    Empty(&'static str),
    /// The runs are not all of one kind (a CPU profile against a trace):
    /// the kinds, in words.
    Kinds(String, String),
    /// No thread role is on both sides: the roles of each.
    NoCommonThread(Vec<String>, Vec<String>),
}

impl std::fmt::Display for CompareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompareError::Empty(side) => write!(f, "{side} has nothing to compare: no thread with time"),
            CompareError::Kinds(a, b) => write!(f, "cannot compare a {a} with a {b}: give inputs of one kind"),
            CompareError::NoCommonThread(a, b) => write!(
                f,
                "no thread in common: BASE has {}; NEW has {}",
                a.join(", "),
                b.join(", ")
            ),
        }
    }
}

impl std::error::Error for CompareError {}

/// Compares BASE's runs with NEW's. A key missing from a run counts as 0
/// there (a function not called), except a page metric, which counts
/// only where measured. Keys of threads on one side only are left out
/// (a thread's role is not on the other side: nothing lines up).
///
/// # Errors
///
/// [`CompareError`]: an empty side, runs of different kinds, no thread in
/// common.
pub fn compare(base: &[Run], new: &[Run], options: &Options) -> Result<Report, CompareError> {
    check(base, new)?;
    let common = common_threads(base, new)?;
    let keys: BTreeSet<&Key> = base
        .iter()
        .chain(new)
        .flat_map(|r| r.values.keys())
        .filter(|k| k.is_page_wide() || common.contains(&k.thread))
        .collect();
    let statistical = base.len() > 1 || new.len() > 1;
    let mut rows: Vec<Row> = Vec::with_capacity(keys.len());
    let mut samples: Vec<Option<(Vec<f64>, Vec<f64>)>> = Vec::with_capacity(keys.len());
    for key in keys {
        let values = |runs: &[Run]| -> Vec<f64> {
            runs.iter()
                .filter_map(|r| match r.values.get(key) {
                    Some(v) => Some(*v),
                    None if key.kind == Kind::Page => None,
                    None => Some(0.0),
                })
                .collect()
        };
        let (x, y) = (values(base), values(new));
        let in_base = base.iter().any(|r| r.values.contains_key(key));
        let in_new = new.iter().any(|r| r.values.contains_key(key));
        let presence = match (in_base, in_new) {
            (true, false) => Presence::Removed,
            (false, true) => Presence::Added,
            _ => Presence::Both,
        };
        let (b, n) = (median_or_zero(&x), median_or_zero(&y));
        let large = is_large(key, b, n, options);
        rows.push(Row {
            key: key.clone(),
            unit: key.unit(),
            presence,
            base: b,
            new: n,
            delta: n - b,
            relative: None,
            stats: None,
            changed: !statistical && large && n != b,
        });
        samples.push((statistical && large && !x.is_empty() && !y.is_empty()).then_some((x, y)));
    }
    let tested = test_rows(&mut rows, &samples, options);
    for row in &mut rows {
        row.relative = (row.base.abs() > 1e-9).then(|| row.delta / row.base.abs());
    }
    sort_rows(&mut rows);
    Ok(Report {
        base_runs: base.len(),
        new_runs: new.len(),
        alpha: options.alpha,
        min_ms: options.min_ms,
        tested,
        threads: common.into_iter().collect(),
        rows,
    })
}

fn median_or_zero(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        0.0
    } else {
        stats::median(xs)
    }
}

/// The runs' kinds agree and neither side is empty.
fn check(base: &[Run], new: &[Run]) -> Result<(), CompareError> {
    for (side, runs) in [("BASE", base), ("NEW", new)] {
        if runs.iter().all(|r| r.threads().is_empty()) {
            return Err(CompareError::Empty(side));
        }
    }
    let first = base[0].kind;
    if let Some(other) = base.iter().chain(new).map(|r| r.kind).find(|k| *k != first) {
        return Err(CompareError::Kinds(first.name().to_owned(), other.name().to_owned()));
    }
    Ok(())
}

/// The thread roles on both sides.
fn common_threads(base: &[Run], new: &[Run]) -> Result<BTreeSet<String>, CompareError> {
    let roles =
        |runs: &[Run]| -> BTreeSet<String> { runs.iter().flat_map(|r| r.threads()).map(str::to_owned).collect() };
    let (a, b) = (roles(base), roles(new));
    let common: BTreeSet<String> = a.intersection(&b).cloned().collect();
    if common.is_empty() {
        return Err(CompareError::NoCommonThread(
            a.into_iter().collect(),
            b.into_iter().collect(),
        ));
    }
    Ok(common)
}

/// Tests the rows with samples: Mann-Whitney, Hodges-Lehmann, Cliff's
/// delta, and the Benjamini-Hochberg adjustment over all of them. Returns
/// how many were tested.
fn test_rows(rows: &mut [Row], samples: &[Option<(Vec<f64>, Vec<f64>)>], options: &Options) -> usize {
    let mut tested: Vec<usize> = Vec::new();
    let mut ps = Vec::new();
    for (i, sample) in samples.iter().enumerate() {
        let Some((x, y)) = sample else { continue };
        let test = stats::mann_whitney(x, y);
        let (estimate, (low, high)) = stats::hodges_lehmann(x, y, options.alpha);
        rows[i].delta = estimate;
        rows[i].stats = Some(Stats {
            p: test.p,
            p_adjusted: test.p,
            method: test.method,
            low,
            high,
            cliffs_delta: stats::cliffs_delta(x, y),
        });
        tested.push(i);
        ps.push(test.p);
    }
    let adjusted = stats::benjamini_hochberg(&ps);
    for (&i, q) in tested.iter().zip(adjusted) {
        if let Some(s) = rows[i].stats.as_mut() {
            s.p_adjusted = q;
            rows[i].changed = q < options.alpha;
        }
    }
    tested.len()
}

/// Whether a key's values are large enough to count: a page metric
/// always; a time of `min_ms` or more on either side; bytes from 1 kB.
fn is_large(key: &Key, base: f64, new: f64, options: &Options) -> bool {
    let size = base.abs().max(new.abs());
    match key.unit() {
        _ if key.kind == Kind::Page => true,
        ValueUnit::Ms => size >= options.min_ms,
        ValueUnit::Bytes => size >= 1000.0,
        ValueUnit::Score | ValueUnit::Count => size > 0.0,
    }
}

/// Changes first, then the rest; within each, page metrics, then self
/// times, then the aggregates that count the same time again (the
/// categories, total times); then by the size of the change (ms; a score
/// counts as its thousandth part, so CLS +0.1 ranks as 100 ms would),
/// then by key.
fn sort_rows(rows: &mut [Row]) {
    let size = |r: &Row| {
        if r.key.is_ms() {
            r.delta.abs()
        } else {
            r.delta.abs() * 1000.0
        }
    };
    let rank = |r: &Row| match (r.key.kind, r.key.quantity) {
        (Kind::Page, _) => 0,
        (Kind::ThirdParty, _) => 2,
        (_, Quantity::SelfTime) => 1,
        _ => 2,
    };
    rows.sort_by(|a, b| {
        b.changed
            .cmp(&a.changed)
            .then_with(|| rank(a).cmp(&rank(b)))
            .then_with(|| size(b).total_cmp(&size(a)))
            .then_with(|| a.key.cmp(&b.key))
    });
}
