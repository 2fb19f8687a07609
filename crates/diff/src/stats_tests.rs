//! The statistics against known values: scipy 1.x's `mannwhitneyu` and
//! `false_discovery_control`, and the Hodges-Lehmann interval against a
//! brute-force enumeration of the null distribution of U (and the
//! textbook critical value: U <= 8 at 5% two-sided for 7 and 7).

use crate::stats::u_distribution;
use crate::stats::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1e-12)
}

#[test]
fn median_of_odd_and_even_counts() {
    assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
    assert!(median(&[]).is_nan());
}

#[test]
fn exact_p_values_are_scipys() {
    // scipy.stats.mannwhitneyu(x, y, method="exact")
    let x = [1.1, 2.3, 3.2, 4.8, 5.0];
    let y = [6.1, 7.4, 8.2, 9.9, 3.3, 12.0];
    let t = mann_whitney(&x, &y);
    assert_eq!((t.u, t.method), (2.0, Method::Exact));
    assert!(close(t.p, 0.017316017316017316), "{}", t.p);

    let x = [10.2, 11.5, 9.8, 10.9, 10.1, 11.0, 10.4];
    let y = [12.1, 11.9, 12.8, 12.2, 11.4, 12.5, 13.0];
    let t = mann_whitney(&x, &y);
    assert_eq!(t.u, 1.0);
    assert!(close(t.p, 0.0011655011655011655), "{}", t.p);
    // The smallest p of 7 runs against 7: 2 / C(14, 7).
    let t = mann_whitney(
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
        &[8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0],
    );
    assert!(close(t.p, 2.0 / 3432.0), "{}", t.p);
}

#[test]
fn ties_take_the_normal_approximation_with_tie_correction() {
    // scipy.stats.mannwhitneyu(t1, t2, method="asymptotic") (continuity corrected)
    let t1 = [1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 4.0, 5.0];
    let t2 = [3.0, 4.0, 4.0, 5.0, 5.0, 6.0, 7.0, 7.0, 8.0];
    let t = mann_whitney(&t1, &t2);
    assert_eq!((t.u, t.method), (7.5, Method::Normal));
    assert!((t.p - 0.006373133838085873).abs() < 1e-9, "{}", t.p);
}

#[test]
fn larger_samples_with_one_tie() {
    // 30 and 40 normal draws (numpy default_rng(1), rounded to 3 decimals), one tie.
    let a = [
        10.346, 10.822, 10.33, 8.697, 10.905, 10.446, 9.463, 10.581, 10.365, 10.294, 10.028, 10.547, 9.264, 9.837,
        9.518, 10.599, 10.04, 9.708, 9.218, 9.743, 10.008, 9.724, 11.294, 11.007, 7.289, 8.111, 9.825, 9.578, 10.214,
        10.217,
    ];
    let b = [
        12.618, 9.388, 10.122, 12.543, 11.147, 11.163, 9.986, 8.852, 10.667, 10.609, 9.273, 9.817, 10.428, 9.555,
        10.402, 10.595, 10.536, 9.994, 11.094, 11.391, 10.821, 9.682, 11.232, 9.999, 11.379, 9.428, 11.414, 10.48,
        9.251, 10.186, 10.554, 10.773, 9.518, 9.393, 10.7, 10.033, 10.736, 11.26, 8.851, 10.754,
    ];
    let t = mann_whitney(&a, &b);
    assert_eq!((t.u, t.method), (435.5, Method::Normal));
    assert!((t.p - 0.051614038202398016).abs() < 1e-9, "{}", t.p);
}

#[test]
fn identical_samples_give_p_one() {
    let t = mann_whitney(&[2.0, 2.0, 2.0], &[2.0, 2.0]);
    assert_eq!(t.p, 1.0);
    assert_eq!(mann_whitney(&[], &[1.0]).p, 1.0);
}

#[test]
fn the_u_distribution_counts_every_arrangement() {
    let d = u_distribution_for_tests(3, 4);
    assert_eq!(d.iter().sum::<f64>(), 35.0); // C(7, 3)
    assert_eq!(d, [1.0, 1.0, 2.0, 3.0, 4.0, 4.0, 5.0, 4.0, 4.0, 3.0, 2.0, 1.0, 1.0]);
    assert_eq!(u_distribution(3, 4), d);
    assert_eq!(u_distribution(5, 6), u_distribution_for_tests(5, 6));
}

fn u_distribution_for_tests(n1: usize, n2: usize) -> Vec<f64> {
    // The exact p of a U is the tail of this distribution; read it back
    // through the test of samples that give each U.
    let total = (1..=n1 + n2).product::<usize>() as f64
        / ((1..=n1).product::<usize>() as f64 * (1..=n2).product::<usize>() as f64);
    let mut out = vec![0.0; n1 * n2 + 1];
    // Enumerate which of the n1+n2 ranks x takes.
    for mask in 0u32..(1 << (n1 + n2)) {
        if mask.count_ones() as usize != n1 {
            continue;
        }
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for i in 0..n1 + n2 {
            if mask & (1 << i) != 0 {
                x.push(i as f64);
            } else {
                y.push(i as f64);
            }
        }
        let t = mann_whitney(&x, &y);
        // U is a whole number of pairs here (no ties), at most n1 * n2.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let u = t.u as usize;
        out[u] += 1.0;
    }
    assert_eq!(out.iter().sum::<f64>(), total);
    out
}

#[test]
fn hodges_lehmann_and_its_interval() {
    let x = [10.2, 11.5, 9.8, 10.9, 10.1, 11.0, 10.4];
    let y = [12.1, 11.9, 12.8, 12.2, 11.4, 12.5, 13.0];
    let (estimate, (low, high)) = hodges_lehmann(&x, &y, 0.05);
    assert!((estimate - 1.8).abs() < 1e-9, "{estimate}");
    // c = 9 (U <= 8 is the 5% two-sided critical region for 7 and 7).
    assert!((low - 1.0).abs() < 1e-9 && (high - 2.4).abs() < 1e-9, "{low} {high}");
    // Too few runs for 95%: the whole range.
    let (_, (low, high)) = hodges_lehmann(&[1.0, 2.0], &[3.0, 5.0], 0.05);
    assert_eq!((low, high), (1.0, 4.0));
}

#[test]
fn cliffs_delta_counts_dominance() {
    assert_eq!(cliffs_delta(&[1.0, 2.0], &[3.0, 4.0]), 1.0);
    assert_eq!(cliffs_delta(&[3.0, 4.0], &[1.0, 2.0]), -1.0);
    assert_eq!(cliffs_delta(&[1.0, 3.0], &[2.0, 3.0]), 0.25);
}

#[test]
fn benjamini_hochberg_is_scipys() {
    // scipy.stats.false_discovery_control([...], method="bh")
    let q = benjamini_hochberg(&[0.01, 0.04, 0.03, 0.005, 0.5, 0.2]);
    let want = [0.03, 0.06, 0.06, 0.03, 0.5, 0.24];
    for (a, b) in q.iter().zip(want) {
        assert!((a - b).abs() < 1e-12, "{q:?}");
    }
}
