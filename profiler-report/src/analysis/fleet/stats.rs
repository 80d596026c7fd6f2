//! Robust statistics of the fleet: medians, the median absolute deviation
//! and the outlier rule built on them (a value stands out when it is above
//! the median by more than `k` robust deviations and by a minimum share).

use serde::Serialize;

/// MAD times this estimates the standard deviation of normal data.
const MAD_TO_SIGMA: f64 = 1.4826;

/// The median of `values` (the mean of the middle two for an even count);
/// 0 for none.
pub(crate) fn median(values: &[f64]) -> f64 {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    if v.len().is_multiple_of(2) {
        f64::midpoint(v[mid - 1], v[mid])
    } else {
        v[mid]
    }
}

/// The median absolute deviation from `center`.
pub(crate) fn mad(values: &[f64], center: f64) -> f64 {
    let deviations: Vec<f64> = values.iter().map(|v| (v - center).abs()).collect();
    median(&deviations)
}

/// The `q`-quantile (`0..=1`) by nearest rank of sorted `values`.
pub(crate) fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let at = (q * (sorted.len() - 1) as f64).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

/// How far above the fleet a value must be to stand out.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Threshold {
    /// Median over ranks, ns.
    pub median_ns: f64,
    /// Median absolute deviation over ranks, ns.
    pub mad_ns: f64,
    /// A rank above this stands out, ns.
    pub threshold_ns: f64,
}

impl Threshold {
    /// `median + max(k * 1.4826 * MAD, min_excess * median)` over `values`:
    /// the MAD term ignores a few slow ranks (unlike the standard
    /// deviation), and the floor keeps a fleet of near-identical ranks from
    /// flagging noise.
    pub(crate) fn of(values: &[f64], k: f64, min_excess: f64) -> Self {
        let median_ns = median(values);
        let mad_ns = mad(values, median_ns);
        let margin = (k * MAD_TO_SIGMA * mad_ns).max(min_excess * median_ns);
        Self {
            median_ns,
            mad_ns,
            threshold_ns: median_ns + margin,
        }
    }

    /// Whether `value` stands out (a fleet of one never does).
    pub(crate) fn exceeded_by(&self, value: f64) -> bool {
        value > self.threshold_ns && self.median_ns > 0.0
    }

    /// `value` over the median, minus 1 (0.5 = 50% slower).
    pub(crate) fn excess(&self, value: f64) -> f64 {
        if self.median_ns > 0.0 {
            value / self.median_ns - 1.0
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_mad_ignore_one_slow_rank() {
        let values = [100.0, 104.0, 98.0, 400.0];
        assert_eq!(median(&values), 102.0);
        // Deviations 2, 2, 4, 298: the slow rank does not widen the MAD.
        assert_eq!(mad(&values, 102.0), 3.0);
        let t = Threshold::of(&values, 5.0, 0.2);
        assert!(t.exceeded_by(400.0) && !t.exceeded_by(104.0), "{t:?}");
        assert!((t.threshold_ns - 124.239).abs() < 1e-9, "{t:?}");
    }

    #[test]
    fn identical_ranks_use_the_floor_and_one_rank_never_stands_out() {
        let t = Threshold::of(&[10.0, 10.0, 10.0], 5.0, 0.25);
        assert_eq!(t.threshold_ns, 12.5);
        assert!(t.exceeded_by(13.0) && !t.exceeded_by(12.0));
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.9), 5.0);
        assert!(!Threshold::of(&[], 5.0, 0.2).exceeded_by(1.0));
    }
}
