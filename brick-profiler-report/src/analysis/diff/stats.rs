//! Tests of a shift between two distributions: the Mann-Whitney U test on
//! weighted values (histogram buckets stand for many equal samples, so the
//! test runs in time linear in the buckets, not the calls), weighted median
//! and MAD for the noise floor, and a large-sample z-test on means when only
//! moments are known.

use crate::analysis::scorecard::stats::normal_sf;

/// Fewest calls per side for the z-test on means (the normal approximation
/// of the mean needs a large sample).
pub(crate) const MIN_MOMENT_SAMPLES: u64 = 30;

/// Total weight.
pub(crate) fn weight(values: &[(f64, u64)]) -> u64 {
    values.iter().fold(0u64, |acc, v| acc.saturating_add(v.1))
}

/// Weighted (lower) median: the value at rank `ceil(n / 2)`; 0 when empty.
pub(crate) fn weighted_median(values: &[(f64, u64)]) -> f64 {
    let mut v: Vec<(f64, u64)> = values.iter().copied().filter(|v| v.1 > 0).collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = weight(&v);
    let rank = n.div_ceil(2).max(1);
    let mut seen = 0u64;
    for (x, w) in v {
        seen = seen.saturating_add(w);
        if seen >= rank {
            return x;
        }
    }
    0.0
}

/// Weighted median absolute deviation, scaled by 1.4826 to estimate a
/// standard deviation.
pub(crate) fn weighted_scaled_mad(values: &[(f64, u64)]) -> f64 {
    let m = weighted_median(values);
    let deviations: Vec<(f64, u64)> = values.iter().map(|&(x, w)| ((x - m).abs(), w)).collect();
    1.4826 * weighted_median(&deviations)
}

/// Two-sided Mann-Whitney U test of `a` against `b` on weighted values,
/// normal approximation with tie and continuity corrections. `None` when a
/// side is empty.
pub(crate) fn weighted_mann_whitney(a: &[(f64, u64)], b: &[(f64, u64)]) -> Option<f64> {
    let (n1, n2) = (weight(a) as f64, weight(b) as f64);
    if n1 == 0.0 || n2 == 0.0 {
        return None;
    }
    let mut all: Vec<(f64, f64, f64)> = a
        .iter()
        .map(|&(x, w)| (x, w as f64, 0.0))
        .chain(b.iter().map(|&(x, w)| (x, 0.0, w as f64)))
        .filter(|v| v.1 + v.2 > 0.0)
        .collect();
    all.sort_by(|x, y| x.0.total_cmp(&y.0));
    let (mut below, mut rank_sum_a, mut tie_term) = (0.0f64, 0.0f64, 0.0f64);
    let mut i = 0;
    while i < all.len() {
        let (mut wa, mut wb) = (0.0, 0.0);
        let mut j = i;
        while j < all.len() && all[j].0 == all[i].0 {
            wa += all[j].1;
            wb += all[j].2;
            j += 1;
        }
        let t = wa + wb;
        // Ranks below+1 ..= below+t share their average.
        rank_sum_a += (below + (t + 1.0) / 2.0) * wa;
        tie_term += t * t * t - t;
        below += t;
        i = j;
    }
    let u = rank_sum_a - n1 * (n1 + 1.0) / 2.0;
    let total = n1 + n2;
    let variance = n1 * n2 / 12.0 * ((total + 1.0) - tie_term / (total * (total - 1.0)));
    if !(variance > 0.0 && variance.is_finite()) {
        return Some(1.0);
    }
    let z = ((u - n1 * n2 / 2.0).abs() - 0.5).max(0.0) / variance.sqrt();
    Some((2.0 * normal_sf(z)).min(1.0))
}

/// Two-sided z-test of equal means from moments (large samples).
pub(crate) fn z_test(m1: f64, s1: f64, n1: u64, m2: f64, s2: f64, n2: u64) -> Option<f64> {
    if n1 < 2 || n2 < 2 {
        return None;
    }
    let se = (s1 * s1 / n1 as f64 + s2 * s2 / n2 as f64).sqrt();
    if !se.is_finite() {
        return None;
    }
    if se == 0.0 {
        return Some(if m1 == m2 { 1.0 } else { 0.0 });
    }
    let z = ((m2 - m1) / se).abs();
    Some((2.0 * normal_sf(z)).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::scorecard::stats::mann_whitney;

    #[test]
    fn weighted_test_matches_the_expanded_samples() {
        let a = [(1.0, 3), (2.0, 2), (5.0, 1)];
        let b = [(2.0, 1), (3.0, 4), (6.0, 2)];
        let expand = |v: &[(f64, u64)]| -> Vec<f64> {
            v.iter()
                .flat_map(|&(x, w)| std::iter::repeat_n(x, w as usize))
                .collect()
        };
        let p = weighted_mann_whitney(&a, &b).unwrap();
        let reference = mann_whitney(&expand(&a), &expand(&b)).unwrap().p_value;
        assert!((p - reference).abs() < 1e-12, "{p} vs {reference}");
        assert!(weighted_mann_whitney(&[], &b).is_none());
        assert_eq!(weighted_mann_whitney(&[(4.0, 9)], &[(4.0, 9)]), Some(1.0));
    }

    #[test]
    fn median_and_mad_are_weighted() {
        let v = [(10.0, 1), (20.0, 5), (30.0, 1)];
        assert_eq!(weighted_median(&v), 20.0);
        assert_eq!(weighted_median(&[(1.0, 1), (2.0, 1)]), 1.0, "lower median");
        // Deviations: 10 (x2), 0 (x5): median 0.
        assert_eq!(weighted_scaled_mad(&v), 0.0);
        let spread = [(10.0, 2), (20.0, 1), (30.0, 2)];
        assert!((weighted_scaled_mad(&spread) - 14.826).abs() < 1e-9);
        assert_eq!(weighted_median(&[]), 0.0);
    }

    #[test]
    fn z_test_on_moments() {
        // se = sqrt(100/100 + 100/100) = 1.414; z = 2/1.414 = 1.414; p = 0.157.
        let p = z_test(100.0, 10.0, 100, 102.0, 10.0, 100).unwrap();
        assert!((p - 0.1573).abs() < 1e-3, "{p}");
        assert!(z_test(100.0, 10.0, 1000, 110.0, 10.0, 1000).unwrap() < 1e-6);
        assert_eq!(z_test(1.0, 0.0, 5, 1.0, 0.0, 5), Some(1.0));
        assert!(z_test(1.0, 0.0, 1, 1.0, 0.0, 5).is_none());
    }
}
