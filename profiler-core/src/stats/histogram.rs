//! Latency distribution: log-linear buckets with eight sub-buckets per
//! power of two, so any percentile is within ~6% of the true sample.
//!
//! Recording indexes a fixed array of tick counters (`bucket`); a snapshot
//! turns the non-empty buckets into a sparse [`LatencyHistogram`] in ns.

use serde::{Deserialize, Serialize};

/// Sub-buckets per power of two, as a bit count.
const SUB_BITS: u32 = 3;
/// Largest power of two with its own buckets; longer samples share the last.
const MAX_MSB: u32 = 40;
/// Number of tick buckets per brick slot.
pub(crate) const BUCKETS: usize = ((MAX_MSB - SUB_BITS) as usize + 1) << SUB_BITS;

/// Bucket of a sample of `ticks`: exact below 16, then 8 per octave.
#[inline(always)]
pub(crate) fn bucket(ticks: u64) -> usize {
    // `| 8` puts values below 8 in the first (exact) octave without a branch.
    let msb = 63 - (ticks | 8).leading_zeros();
    let shift = msb - SUB_BITS;
    let index = ((shift as usize) << SUB_BITS) + (ticks >> shift) as usize;
    index.min(BUCKETS - 1)
}

/// The tick range `[lo, hi)` of bucket `index`.
pub(crate) fn bucket_bounds(index: usize) -> (u64, u64) {
    let sub = 1usize << SUB_BITS;
    if index < 2 * sub {
        return (index as u64, index as u64 + 1);
    }
    let shift = (index >> SUB_BITS) - 1;
    let mantissa = (index - (shift << SUB_BITS)) as u64;
    if index == BUCKETS - 1 {
        return (mantissa << shift, u64::MAX);
    }
    (mantissa << shift, (mantissa + 1) << shift)
}

/// Tick-bucket counts over the occupied range `lo..lo + counts.len()` only
/// (most bricks span a few octaves of the 304 buckets).
#[derive(Debug, Clone, Default)]
pub(crate) struct TickCounts {
    lo: usize,
    counts: Vec<u64>,
}

impl TickCounts {
    /// Adds `n` samples to bucket `index`, growing the range as needed.
    pub(crate) fn add(&mut self, index: usize, n: u64) {
        if n == 0 {
            return;
        }
        if self.counts.is_empty() {
            self.lo = index;
        }
        if index < self.lo {
            let grow = self.lo - index;
            self.counts.splice(0..0, std::iter::repeat_n(0, grow));
            self.lo = index;
        }
        let at = index - self.lo;
        if at >= self.counts.len() {
            self.counts.resize(at + 1, 0);
        }
        self.counts[at] = self.counts[at].saturating_add(n);
    }

    /// Adds every bucket of `other`.
    pub(crate) fn merge(&mut self, other: &TickCounts) {
        for (i, &n) in other.counts.iter().enumerate() {
            self.add(other.lo + i, n);
        }
    }

    /// `(bucket index, count)` of the non-empty buckets, ascending.
    fn iter(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(i, &n)| (self.lo + i, n))
    }
}

/// One non-empty bucket of a [`LatencyHistogram`]: `count` samples in `[lo_ns, hi_ns)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistBucket {
    /// Inclusive lower bound, ns.
    pub lo_ns: u64,
    /// Exclusive upper bound, ns.
    pub hi_ns: u64,
    /// Samples in the bucket.
    pub count: u64,
}

/// A brick's latency distribution: sparse buckets, ascending.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyHistogram {
    /// Non-empty buckets in ascending order.
    pub buckets: Vec<HistBucket>,
}

impl LatencyHistogram {
    /// Builds the histogram from tick counters, converting bounds to ns.
    pub(crate) fn from_ticks(counts: &TickCounts, ns_per_tick: f64) -> Self {
        let buckets = counts
            .iter()
            .map(|(i, count)| {
                let (lo, hi) = bucket_bounds(i);
                let lo_ns = crate::clock::to_ns(lo, ns_per_tick);
                let hi_ns = crate::clock::to_ns(hi, ns_per_tick).max(lo_ns + 1);
                HistBucket {
                    lo_ns,
                    hi_ns,
                    count,
                }
            })
            .collect();
        Self { buckets }
    }

    /// Total samples.
    #[must_use]
    pub fn count(&self) -> u64 {
        self.buckets
            .iter()
            .fold(0u64, |acc, b| acc.saturating_add(b.count))
    }

    /// Estimated `q`-quantile (`q` in `[0, 1]`, clamped) in ns, interpolating
    /// inside the bucket and clamping to `[min_ns, max_ns]`. 0 when empty.
    #[must_use]
    pub fn quantile_ns(&self, q: f64, min_ns: u64, max_ns: u64) -> u64 {
        let total = self.count();
        if total == 0 {
            return 0;
        }
        let q = if q.is_nan() { 0.5 } else { q.clamp(0.0, 1.0) };
        let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
        let mut seen = 0;
        for b in &self.buckets {
            if seen + b.count >= rank {
                let within = (rank - seen) as f64 / b.count as f64;
                let hi = b.hi_ns.min(max_ns.saturating_add(1));
                let lo = b.lo_ns.min(hi);
                let estimate = lo as f64 + within * (hi - lo) as f64;
                return (estimate as u64).clamp(min_ns.min(max_ns), max_ns);
            }
            seen = seen.saturating_add(b.count);
        }
        max_ns
    }

    /// Adds another histogram's buckets (same or different bounds).
    pub fn merge(&mut self, other: &LatencyHistogram) {
        for b in &other.buckets {
            match self
                .buckets
                .binary_search_by(|x| (x.lo_ns, x.hi_ns).cmp(&(b.lo_ns, b.hi_ns)))
            {
                Ok(i) => self.buckets[i].count = self.buckets[i].count.saturating_add(b.count),
                Err(i) => self.buckets.insert(i, *b),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_cover_their_values() {
        let mut expected_lo = 0;
        for i in 0..BUCKETS {
            let (lo, hi) = bucket_bounds(i);
            assert_eq!(lo, expected_lo, "bucket {i}");
            assert!(hi > lo);
            assert_eq!(bucket(lo), i);
            if i < BUCKETS - 1 {
                assert_eq!(bucket(hi - 1), i);
            }
            expected_lo = hi;
        }
        assert_eq!(bucket(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn bucket_width_is_at_most_an_eighth_of_its_values() {
        for i in 16..BUCKETS - 1 {
            let (lo, hi) = bucket_bounds(i);
            assert!((hi - lo) * 8 <= lo, "bucket {i}: [{lo}, {hi})");
        }
    }

    #[test]
    fn quantiles_of_a_uniform_sample_are_close() {
        let mut counts = TickCounts::default();
        for v in 1000..=100_000u64 {
            counts.add(bucket(v), 1);
        }
        let h = LatencyHistogram::from_ticks(&counts, 1.0);
        assert_eq!(h.count(), 99_001);
        for (q, truth) in [(0.5, 50_500.0), (0.9, 90_100.0), (0.99, 99_010.0)] {
            let got = h.quantile_ns(q, 1000, 100_000) as f64;
            assert!((got / truth - 1.0).abs() < 0.07, "p{q}: {got} vs {truth}");
        }
        assert_eq!(h.quantile_ns(0.0, 1000, 100_000), 1000);
        assert_eq!(h.quantile_ns(1.0, 1000, 100_000), 100_000);
    }

    #[test]
    fn single_value_quantiles_are_exact_after_clamping() {
        let mut counts = TickCounts::default();
        counts.add(bucket(777), 5);
        let h = LatencyHistogram::from_ticks(&counts, 1.0);
        assert_eq!(h.quantile_ns(0.5, 777, 777), 777);
        assert_eq!(LatencyHistogram::default().quantile_ns(0.5, 0, 0), 0);
    }

    #[test]
    fn tick_counts_grow_both_ways() {
        let mut a = TickCounts::default();
        a.add(50, 1);
        a.add(40, 2);
        a.add(60, 3);
        a.add(10, 4);
        a.add(50, 5);
        a.add(70, 0);
        let got: Vec<(usize, u64)> = a.iter().collect();
        assert_eq!(got, [(10, 4), (40, 2), (50, 6), (60, 3)]);
    }

    #[test]
    fn merge_adds_counts_bucketwise() {
        let mut counts = TickCounts::default();
        counts.add(bucket(5000), 1);
        counts.add(bucket(100), 2); // below the range so far: it grows downwards
        let mut a = LatencyHistogram::from_ticks(&counts, 1.0);
        let b = a.clone();
        a.merge(&b);
        assert_eq!(a.count(), 6);
        assert_eq!(a.buckets.len(), 2);
    }
}
