//! Weighted values: a histogram's buckets stand for many equal samples, so
//! totals and medians run in time linear in the buckets, not the calls.

/// Fewest calls per side for the z-interval of means (the normal
/// approximation of the mean needs a large sample).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_is_weighted() {
        let v = [(10.0, 1), (20.0, 5), (30.0, 1)];
        assert_eq!(weighted_median(&v), 20.0);
        assert_eq!(weighted_median(&[(1.0, 1), (2.0, 1)]), 1.0, "lower median");
        assert_eq!(
            weighted_median(&[(30.0, 2), (10.0, 3)]),
            10.0,
            "unsorted input"
        );
        assert_eq!(weighted_median(&[]), 0.0);
        assert_eq!(weight(&[(1.0, u64::MAX), (2.0, 3)]), u64::MAX);
    }
}
