//! The statistics that tell a change from noise over several runs per
//! side: the median, the Mann-Whitney U test (exact, or the normal
//! approximation with tie and continuity corrections, as scipy's
//! `mannwhitneyu`), the Hodges-Lehmann shift with its distribution-free
//! confidence interval, Cliff's delta, and the Benjamini-Hochberg
//! adjustment of many p-values.

use statrs::distribution::{ContinuousCDF, Normal};

/// The median of `xs` (the mean of the two middle values for an even
/// count); NaN for none.
pub fn median(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// How a p-value was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// The exact distribution of U (no ties, small samples).
    Exact,
    /// The normal approximation with tie and continuity corrections.
    Normal,
}

/// The two-sided Mann-Whitney U test of `x` against `y`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MannWhitney {
    /// U of `x`: the pairs `(x_i, y_j)` with `x_i > y_j`, ties counting
    /// half (scipy's `statistic`).
    pub u: f64,
    /// The two-sided p-value.
    pub p: f64,
    /// How `p` was computed.
    pub method: Method,
}

/// Samples up to this product of sizes, without ties, get the exact
/// distribution of U (a polynomial of `n1 * n2 + 1` terms); larger ones
/// the normal approximation, as accurate there.
const EXACT_MAX_PAIRS: usize = 2500;

/// The two-sided Mann-Whitney U test of `x` against `y`: exact when there
/// are no ties and `x.len() * y.len() <= 2500`, else the normal
/// approximation with the tie correction of the variance and a continuity
/// correction (scipy's `method="asymptotic"`, `use_continuity=True`).
/// `p` is 1 when either side is empty or every value is the same.
pub fn mann_whitney(x: &[f64], y: &[f64]) -> MannWhitney {
    let (n1, n2) = (x.len(), y.len());
    if n1 == 0 || n2 == 0 {
        return MannWhitney {
            u: 0.0,
            p: 1.0,
            method: Method::Exact,
        };
    }
    let (ranks, ties) = ranks(x, y);
    let r1: f64 = ranks[..n1].iter().sum();
    let (f1, f2) = (n1 as f64, n2 as f64);
    let u1 = r1 - f1 * (f1 + 1.0) / 2.0;
    let u = u1.max(f1 * f2 - u1);
    if ties.is_empty() && n1 * n2 <= EXACT_MAX_PAIRS {
        let dist = u_distribution(n1, n2);
        let total: f64 = dist.iter().sum();
        // P(U >= u), u an integer without ties.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let from = u as usize;
        let upper: f64 = dist[from..].iter().sum::<f64>() / total;
        return MannWhitney {
            u: u1,
            p: (2.0 * upper).min(1.0),
            method: Method::Exact,
        };
    }
    let n = f1 + f2;
    let tie_term: f64 = ties.iter().map(|&t| t * t * t - t).sum::<f64>() / (n * (n - 1.0));
    let sigma = (f1 * f2 / 12.0 * ((n + 1.0) - tie_term)).sqrt();
    let p = if sigma > 0.0 {
        let z = (u - f1 * f2 / 2.0 - 0.5) / sigma;
        (2.0 * standard_normal().sf(z)).min(1.0)
    } else {
        1.0
    };
    MannWhitney {
        u: u1,
        p,
        method: Method::Normal,
    }
}

fn standard_normal() -> Normal {
    Normal::standard()
}

/// The midranks (1-based) of `x` then `y` in their pooled order, and the
/// size of each group of ties (only groups of 2 or more).
fn ranks(x: &[f64], y: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let all: Vec<f64> = x.iter().chain(y).copied().collect();
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by(|&a, &b| all[a].total_cmp(&all[b]));
    let mut ranks = vec![0.0; all.len()];
    let mut ties = Vec::new();
    let mut i = 0;
    while i < order.len() {
        let mut j = i + 1;
        while j < order.len() && all[order[j]] == all[order[i]] {
            j += 1;
        }
        // Ranks i+1 ..= j share their mean.
        let rank = (i + 1 + j) as f64 / 2.0;
        for &k in &order[i..j] {
            ranks[k] = rank;
        }
        if j - i > 1 {
            ties.push((j - i) as f64);
        }
        i = j;
    }
    (ranks, ties)
}

/// The number of arrangements giving each value of U (0 ..= n1*n2) for
/// samples of n1 and n2 without ties: the coefficients of the Gaussian
/// binomial `[n1+n2 choose n1]_q`, built as the product over `i` of
/// `(1 - q^(n2+i)) / (1 - q^i)`, each step a Gaussian binomial again (so
/// no coefficient goes negative on the way).
pub(crate) fn u_distribution(n1: usize, n2: usize) -> Vec<f64> {
    let len = n1 * n2 + 1;
    let mut poly = vec![0.0; len];
    poly[0] = 1.0;
    for i in 1..=n1 {
        // Times (1 - q^(n2+i)), from the top down.
        let shift = n2 + i;
        for k in (shift..len).rev() {
            poly[k] -= poly[k - shift];
        }
        // Divided by (1 - q^i): b[k] = a[k] + b[k-i].
        for k in i..len {
            poly[k] += poly[k - i];
        }
    }
    poly
}

/// The Hodges-Lehmann estimate of the shift from `x` to `y` (the median
/// of every `y_j - x_i`) and its distribution-free confidence interval at
/// level `1 - alpha`: the differences of ranks `c` and `n1*n2 + 1 - c`,
/// `c` the largest count with `P(U <= c - 1) <= alpha / 2` (the exact
/// distribution of U for small samples, the normal one past them). When
/// no `c` qualifies (samples too small for that level), the interval is
/// the range of the differences.
pub fn hodges_lehmann(x: &[f64], y: &[f64], alpha: f64) -> (f64, (f64, f64)) {
    let mut d: Vec<f64> = y.iter().flat_map(|b| x.iter().map(move |a| b - a)).collect();
    if d.is_empty() {
        return (f64::NAN, (f64::NAN, f64::NAN));
    }
    d.sort_by(f64::total_cmp);
    let estimate = median(&d);
    let (n1, n2) = (x.len(), y.len());
    let pairs = n1 * n2;
    let c = if pairs <= EXACT_MAX_PAIRS {
        let dist = u_distribution(n1, n2);
        let total: f64 = dist.iter().sum();
        let mut cdf = 0.0;
        let mut c = 0;
        // P(U <= c - 1) <= alpha/2, for c = 1, 2, ...
        for (u, count) in dist.iter().enumerate() {
            cdf += count / total;
            if cdf <= alpha / 2.0 + 1e-12 {
                c = u + 1;
            } else {
                break;
            }
        }
        c
    } else {
        let (f1, f2) = (n1 as f64, n2 as f64);
        let z = standard_normal().inverse_cdf(1.0 - alpha / 2.0);
        let k = (f1 * f2 / 2.0 - z * (f1 * f2 * (f1 + f2 + 1.0) / 12.0).sqrt()).floor();
        // Bounded by pairs / 2 and positive here.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let k = k.max(0.0) as usize;
        k
    };
    let interval = if c == 0 {
        (d[0], d[pairs - 1])
    } else {
        (d[c - 1], d[pairs - c])
    };
    (estimate, interval)
}

/// Cliff's delta of `y` against `x`: `(#(y_j > x_i) - #(y_j < x_i)) /
/// (n1 * n2)`, from -1 (every `y` below every `x`) to +1; 0 for none.
pub fn cliffs_delta(x: &[f64], y: &[f64]) -> f64 {
    if x.is_empty() || y.is_empty() {
        return 0.0;
    }
    let mut sum = 0i64;
    for b in y {
        for a in x {
            sum += i64::from(b > a) - i64::from(b < a);
        }
    }
    sum as f64 / (x.len() * y.len()) as f64
}

/// The Benjamini-Hochberg adjusted p-values (scipy's
/// `false_discovery_control(ps, method="bh")`): `p_(i) * m / i`, made
/// monotone from the largest down, at most 1, in the order given. A
/// change is significant at false discovery rate `alpha` when its
/// adjusted p-value is below `alpha`; when every null hypothesis holds
/// (A/A runs), the chance of any such change is at most `alpha`.
pub fn benjamini_hochberg(ps: &[f64]) -> Vec<f64> {
    let m = ps.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| ps[a].total_cmp(&ps[b]));
    let mut adjusted = vec![1.0; m];
    let mut running = 1.0f64;
    for (rank, &i) in order.iter().enumerate().rev() {
        let q = ps[i] * m as f64 / (rank + 1) as f64;
        running = running.min(q).min(1.0);
        adjusted[i] = running;
    }
    adjusted
}
