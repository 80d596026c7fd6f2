//! The interval behind a change: the Hodges-Lehmann estimate of the shift
//! between two distributions (the median of all pairwise differences
//! new - old) with its distribution-free confidence interval (order
//! statistics of those differences at the Mann-Whitney ranks). It runs on
//! weighted values, so a histogram's buckets stand for their calls and the
//! work grows with the buckets, not the calls; deterministic, no resampling.

use super::stats::weight;
use crate::analysis::scorecard::stats::normal_sf;

/// Sides with more distinct values than this are condensed to this many
/// equal-weight points before pairing (step samples of a long run).
const MAX_POINTS: usize = 256;

/// A shift of new against old, ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Shift {
    /// Hodges-Lehmann estimate: the median pairwise difference.
    pub(crate) estimate: f64,
    /// Lower end of the confidence interval.
    pub(crate) low: f64,
    /// Upper end of the confidence interval.
    pub(crate) high: f64,
}

/// The quantile `z` of the standard normal with upper tail `tail`, by
/// bisection on the survival function (called once per row).
pub(crate) fn normal_quantile(tail: f64) -> f64 {
    let (mut lo, mut hi) = (-10.0f64, 10.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if normal_sf(mid) > tail {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// `values` sorted with positive weights; when more than `max` distinct
/// values, adjacent values merged into about `max` groups of equal weight,
/// each at its weighted mean.
pub(crate) fn condense(values: &[(f64, u64)], max: usize) -> Vec<(f64, u64)> {
    let mut v: Vec<(f64, u64)> = values
        .iter()
        .copied()
        .filter(|x| x.1 > 0 && x.0.is_finite())
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    if v.len() <= max {
        return v;
    }
    let per_group = (weight(&v) as f64 / max as f64).max(1.0);
    let mut out = Vec::with_capacity(max + 1);
    let (mut sum, mut w) = (0.0f64, 0u64);
    for (x, n) in v {
        sum += x * n as f64;
        w += n;
        if w as f64 >= per_group {
            out.push((sum / w as f64, w));
            (sum, w) = (0.0, 0);
        }
    }
    if w > 0 {
        out.push((sum / w as f64, w));
    }
    out
}

/// The Hodges-Lehmann shift of `new` against `old` with its two-sided
/// `1 - alpha` interval; `None` when a side is empty or the samples are too
/// few for the interval's ranks to exist.
pub(crate) fn hodges_lehmann(old: &[(f64, u64)], new: &[(f64, u64)], alpha: f64) -> Option<Shift> {
    let (a, b) = (condense(old, MAX_POINTS), condense(new, MAX_POINTS));
    let (n1, n2) = (weight(&a) as f64, weight(&b) as f64);
    if n1 == 0.0 || n2 == 0.0 {
        return None;
    }
    let mut diffs: Vec<(f64, f64)> = Vec::with_capacity(a.len() * b.len());
    for &(x, wx) in &a {
        for &(y, wy) in &b {
            diffs.push((y - x, wx as f64 * wy as f64));
        }
    }
    diffs.sort_by(|p, q| p.0.total_cmp(&q.0));
    let pairs = n1 * n2;
    let z = normal_quantile(alpha / 2.0);
    let k = (pairs / 2.0 - z * (n1 * n2 * (n1 + n2 + 1.0) / 12.0).sqrt()).floor();
    if k < 1.0 {
        return None;
    }
    // The value at 1-based weighted rank `r`.
    let at = |r: f64| {
        let mut seen = 0.0;
        for &(d, w) in &diffs {
            seen += w;
            if seen >= r {
                return d;
            }
        }
        diffs.last().map_or(0.0, |d| d.0)
    };
    Some(Shift {
        estimate: 0.5 * (at((pairs / 2.0).ceil()) + at((pairs / 2.0).floor() + 1.0)),
        low: at(k),
        high: at(pairs - k + 1.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn each(v: &[f64]) -> Vec<(f64, u64)> {
        v.iter().map(|&x| (x, 1)).collect()
    }

    #[test]
    fn quantiles_of_the_normal() {
        assert!((normal_quantile(0.025) - 1.959_96).abs() < 1e-4);
        assert!((normal_quantile(0.005) - 2.575_83).abs() < 1e-4);
    }

    #[test]
    fn interval_matches_the_textbook_ranks() {
        // 10 vs 10 values, new = old + 5: the pairwise differences are
        // 5 + (j - i), i, j in 0..10, d = j - i taken 10 - |d| times. At
        // alpha 0.05, k = floor(50 - 1.96 * sqrt(100 * 21 / 12)) = 24.
        let old: Vec<f64> = (0..10).map(f64::from).collect();
        let new: Vec<f64> = old.iter().map(|x| x + 5.0).collect();
        let s = hodges_lehmann(&each(&old), &each(&new), 0.05).unwrap();
        assert_eq!(s.estimate, 5.0);
        // Cumulative counts: 21 up to d = -4, 28 up to d = -3: rank 24 is
        // d = -3, and rank 77 its mirror, d = +3.
        assert_eq!((s.low, s.high), (5.0 - 3.0, 5.0 + 3.0));
    }

    #[test]
    fn weights_stand_for_repeated_values() {
        let old = [(100.0, 30), (110.0, 10)];
        let new = [(120.0, 25), (130.0, 15)];
        let expand = |v: &[(f64, u64)]| -> Vec<(f64, u64)> {
            v.iter()
                .flat_map(|&(x, w)| std::iter::repeat_n((x, 1), w as usize))
                .collect()
        };
        let weighted = hodges_lehmann(&old, &new, 0.05).unwrap();
        let expanded = hodges_lehmann(&expand(&old), &expand(&new), 0.05).unwrap();
        assert_eq!(weighted, expanded);
        assert!(weighted.low <= weighted.estimate && weighted.estimate <= weighted.high);
    }

    #[test]
    fn too_few_samples_give_no_interval() {
        assert!(hodges_lehmann(&each(&[1.0, 2.0]), &each(&[3.0, 4.0]), 0.05).is_none());
        assert!(hodges_lehmann(&[], &each(&[3.0]), 0.05).is_none());
    }

    #[test]
    fn condensing_keeps_weight_and_order() {
        let many: Vec<(f64, u64)> = (0..10_000).map(|i| (f64::from(i), 1)).collect();
        let c = condense(&many, 100);
        assert_eq!(weight(&c), 10_000);
        assert_eq!(c.len(), 100);
        assert!(c.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(
            condense(&[(2.0, 1), (1.0, 0), (0.5, 3)], 8),
            [(0.5, 3), (2.0, 1)]
        );
    }
}
