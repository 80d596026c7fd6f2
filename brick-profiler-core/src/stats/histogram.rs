//! Latency distribution: log-linear buckets, exact below 32 ticks, then 16
//! per power of two, so a bucket spans at most 1/16 of its lower bound and
//! a percentile estimated from it is within 1/33 (3.1%) of the true sample.
//!
//! Recording indexes a fixed array of tick counters (`bucket`); a snapshot
//! turns the non-empty buckets into a sparse [`LatencyHistogram`] in ns.

use serde::{Deserialize, Serialize};

/// Sub-buckets per power of two, as a bit count.
const SUB_BITS: u32 = 4;
/// Largest power of two with its own buckets; longer samples share the last.
const MAX_MSB: u32 = 40;
/// Number of tick buckets per brick slot.
pub(crate) const BUCKETS: usize = ((MAX_MSB - SUB_BITS) as usize + 1) << SUB_BITS;

/// Bucket of a sample of `ticks`: exact below 32, then 16 per octave.
#[inline(always)]
pub(crate) fn bucket(ticks: u64) -> usize {
    // `| 16` puts values below 16 in the first (exact) octave without a branch.
    let msb = 63 - (ticks | (1 << SUB_BITS)).leading_zeros();
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

/// Tick-bucket counts over the occupied octaves only (most bricks span a
/// few octaves of the 592 buckets). The range grows by whole octaves, so
/// merging many cells of one brick moves and reallocates the counts a few
/// times, not once per new bucket.
#[derive(Debug, Clone, Default)]
pub(crate) struct TickCounts {
    lo: usize,
    counts: Vec<u64>,
}

/// Buckets per octave: the unit the range of [`TickCounts`] grows by.
const OCTAVE: usize = 1 << SUB_BITS;
/// Buckets a [`TickCounts`] has room for when it is first made.
const ROOM: usize = 4 * OCTAVE;

impl TickCounts {
    /// Adds `n` samples to bucket `index`, growing the range as needed.
    pub(crate) fn add(&mut self, index: usize, n: u64) {
        if n == 0 {
            return;
        }
        if self.counts.is_empty() || index < self.lo || index >= self.lo + self.counts.len() {
            self.reserve(index, index);
        }
        let at = index - self.lo;
        self.counts[at] = self.counts[at].saturating_add(n);
    }

    /// Widens the range to cover buckets `lo..=hi` (rounded out to whole
    /// octaves) at once, so the adds that follow never shift the counts.
    pub(crate) fn reserve(&mut self, lo: usize, hi: usize) {
        if lo > hi {
            return;
        }
        let lo = lo - lo % OCTAVE;
        let hi = (hi | (OCTAVE - 1)).min(BUCKETS - 1);
        if self.counts.is_empty() {
            self.lo = lo;
            // Room for a few octaves from the start: the cells of one brick
            // seldom spread further, so merging them rarely reallocates.
            self.counts = Vec::with_capacity((hi - lo + 1).max(ROOM));
            self.counts.resize(hi - lo + 1, 0);
            return;
        }
        if lo < self.lo {
            // Growing downwards moves the counts: at least double the range
            // each time, so a brick's cells seen lowest-last move it a few
            // times, not once per octave.
            let lo = lo.min(self.lo.saturating_sub(self.counts.len()));
            self.counts
                .splice(0..0, std::iter::repeat_n(0, self.lo - lo));
            self.lo = lo;
        }
        if hi - self.lo >= self.counts.len() {
            self.counts.resize(hi - self.lo + 1, 0);
        }
    }

    /// Adds every bucket of `other`.
    pub(crate) fn merge(&mut self, other: &TickCounts) {
        if let Some(last) = other.counts.len().checked_sub(1) {
            self.reserve(other.lo, other.lo + last);
        }
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
        // Sized first: a snapshot makes one of these per brick.
        let mut buckets = Vec::with_capacity(counts.iter().count());
        buckets.extend(counts.iter().map(|(i, count)| {
            let (lo, hi) = bucket_bounds(i);
            let lo_ns = crate::clock::to_ns(lo, ns_per_tick);
            let hi_ns = crate::clock::to_ns(hi, ns_per_tick).max(lo_ns + 1);
            HistBucket {
                lo_ns,
                hi_ns,
                count,
            }
        }));
        Self { buckets }
    }

    /// Whether no sample was recorded.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.buckets.is_empty()
    }

    /// Total samples.
    #[must_use]
    pub fn count(&self) -> u64 {
        self.buckets
            .iter()
            .fold(0u64, |acc, b| acc.saturating_add(b.count))
    }

    /// Estimated `q`-quantile (`q` in `[0, 1]`, clamped; NaN reads as the
    /// median) in ns, 0 when empty. The exact quantile is the `⌈q·n⌉`-th
    /// smallest of the `n` samples; the estimate is within 1/33 (3.1%) of
    /// it, or within 1 ns, for every input whose samples are shorter than
    /// 2^40 ticks (about six minutes at 3 GHz) and whose histogram comes
    /// from one run (merging runs with different clocks can overlap
    /// buckets). `min_ns` and `max_ns` are the exact extremes, which narrow
    /// the first and last buckets.
    ///
    /// Within the bucket `[a, b]` that holds that sample (narrowed by the
    /// extremes), the estimate is `2ab / (a + b)`: the point whose largest
    /// relative error over the bucket, `(b - a) / (b + a)`, is smallest. The
    /// first and last samples are the extremes themselves.
    #[must_use]
    pub fn quantile_ns(&self, q: f64, min_ns: u64, max_ns: u64) -> u64 {
        let total = self.count();
        if total == 0 {
            return 0;
        }
        let q = if q.is_nan() { 0.5 } else { q.clamp(0.0, 1.0) };
        // `as` saturates; the clamp keeps the rank a sample's.
        let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
        let (min_ns, max_ns) = (min_ns.min(max_ns), max_ns);
        // The smallest and largest samples are known exactly.
        if rank == 1 {
            return min_ns;
        }
        if rank == total {
            return max_ns;
        }
        let mut seen = 0u64;
        for b in &self.buckets {
            seen = seen.saturating_add(b.count);
            if seen >= rank {
                let a = b.lo_ns.clamp(min_ns, max_ns) as f64;
                // Samples are whole ns below `hi_ns`.
                let top = b.hi_ns.saturating_sub(1).max(b.lo_ns);
                let b = top.clamp(min_ns, max_ns) as f64;
                let estimate = if a + b > 0.0 {
                    2.0 * a * b / (a + b)
                } else {
                    0.0
                };
                return (estimate.round() as u64).clamp(min_ns, max_ns);
            }
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
    fn bucket_width_is_at_most_a_sixteenth_of_its_values() {
        for i in 32..BUCKETS - 1 {
            let (lo, hi) = bucket_bounds(i);
            assert!((hi - lo) * 16 <= lo, "bucket {i}: [{lo}, {hi})");
        }
        assert_eq!(
            bucket_bounds(BUCKETS - 1),
            (31 << 35, u64::MAX),
            "own buckets up to 31 * 2^35 ticks, then one catch-all"
        );
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
            assert!((got / truth - 1.0).abs() < 0.031, "p{q}: {got} vs {truth}");
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
    fn huge_hand_made_counts_saturate_instead_of_overflowing() {
        let h = LatencyHistogram {
            buckets: vec![
                HistBucket {
                    lo_ns: 10,
                    hi_ns: 11,
                    count: u64::MAX - 1,
                },
                HistBucket {
                    lo_ns: 20,
                    hi_ns: 21,
                    count: u64::MAX,
                },
            ],
        };
        assert_eq!(h.count(), u64::MAX);
        for q in [0.0, 0.5, 0.99, 1.0] {
            let v = h.quantile_ns(q, 10, 20);
            assert!((10..=20).contains(&v), "p{q}: {v}");
        }
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
    fn tick_counts_grown_downwards_bucket_by_bucket_keep_every_count() {
        // Each add below the range so far moves the counts; the range
        // doubles as it does, down to bucket 0 and no further.
        let mut a = TickCounts::default();
        for i in (0..BUCKETS).rev() {
            a.add(i, i as u64 + 1);
        }
        assert_eq!(a.lo, 0);
        assert_eq!(a.counts.len(), BUCKETS);
        let got: Vec<(usize, u64)> = a.iter().collect();
        let want: Vec<(usize, u64)> = (0..BUCKETS).map(|i| (i, i as u64 + 1)).collect();
        assert_eq!(got, want);
        let mut b = TickCounts::default();
        b.add(BUCKETS - 1, 1);
        b.merge(&a);
        assert_eq!(b.iter().last(), Some((BUCKETS - 1, BUCKETS as u64 + 1)));
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

/// The documented bound, checked over many distributions: every estimated
/// quantile is within 1/33 of the exact order statistic, or within 1 ns.
#[cfg(test)]
mod bound {
    use proptest::prelude::*;

    use super::*;

    const QUANTILES: [f64; 11] = [
        0.0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1.0,
    ];

    /// Records `samples` (ticks) as a cell would, converts with `ratio`, and
    /// checks every quantile against the exact one.
    fn check(mut samples: Vec<u64>, ratio: f64) -> Result<(), TestCaseError> {
        let mut counts = TickCounts::default();
        for &s in &samples {
            counts.add(bucket(s), 1);
        }
        let h = LatencyHistogram::from_ticks(&counts, ratio);
        samples.sort_unstable();
        let ns = |t: u64| crate::clock::to_ns(t, ratio);
        let (min, max) = (ns(samples[0]), ns(samples[samples.len() - 1]));
        for q in QUANTILES {
            let n = samples.len() as u64;
            let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
            let exact = ns(samples[rank as usize - 1]) as f64;
            let got = h.quantile_ns(q, min, max) as f64;
            let allowed = (exact / 33.0).max(1.0) + 1e-9 * exact;
            prop_assert!(
                (got - exact).abs() <= allowed,
                "p{q}: estimated {got}, exact {exact} (allowed ±{allowed}) over {n} samples"
            );
        }
        Ok(())
    }

    /// Samples below the catch-all bucket.
    const TOP: u64 = 31 << 35;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn arbitrary_samples(samples in prop::collection::vec(0..TOP, 1..400)) {
            check(samples, 1.0)?;
        }

        #[test]
        fn single_values(v in 0..TOP, n in 1usize..500) {
            check(vec![v; n], 1.0)?;
        }

        #[test]
        fn bimodal(a in 0..1_000_000u64, b in 1_000_000..TOP, na in 1usize..300, nb in 1usize..300) {
            let mut samples = vec![a; na];
            samples.extend(std::iter::repeat_n(b, nb));
            check(samples, 1.0)?;
        }

        #[test]
        fn exponential(scale in 1.0f64..1e9, us in prop::collection::vec(1e-12f64..1.0, 1..400)) {
            let samples = us.iter().map(|u| ((-u.ln() * scale) as u64).min(TOP - 1)).collect();
            check(samples, 1.0)?;
        }

        #[test]
        fn bucket_edges(picks in prop::collection::vec((32usize..BUCKETS - 1, any::<bool>()), 1..300)) {
            let samples = picks
                .iter()
                .map(|&(i, low)| {
                    let (lo, hi) = bucket_bounds(i);
                    if low { lo } else { hi - 1 }
                })
                .collect();
            check(samples, 1.0)?;
        }

        #[test]
        fn other_tick_rates(samples in prop::collection::vec(0..TOP / 4, 1..200), ratio in 0.2f64..4.0) {
            check(samples, ratio)?;
        }
    }

    #[test]
    fn a_hundred_equal_samples_and_one_outlier() {
        // 100 samples of exactly 1024 ns and one of 1 ms: every percentile up
        // to p99 is one of the 1024s.
        let mut samples = vec![1024; 100];
        samples.push(1_000_000);
        check(samples, 1.0).expect("within the bound");
    }
}
