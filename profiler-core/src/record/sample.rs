//! [`SampleTotals`]: a brick's samples merged across cells or threads,
//! still in their recording unit (ticks for timed calls, exact ns for
//! samples measured elsewhere). One type for both, merged one way.

use std::sync::atomic::Ordering::Relaxed;

use super::amounts::Amounts;
use super::cell::SlotCell;
use crate::stats::{BUCKETS, Summary, TickCounts, bucket};

/// Merged samples of one brick: time summary, amounts and histogram.
#[derive(Debug, Clone, Default)]
pub(crate) struct SampleTotals {
    pub(crate) time: Summary,
    pub(crate) elements: u64,
    pub(crate) bytes: u64,
    pub(crate) flops: u64,
    /// Bucket counts of the sample values (the tick bucket function).
    pub(crate) hist: TickCounts,
}

impl SampleTotals {
    /// Adds one sample of `value` with its amounts.
    pub(crate) fn add(&mut self, value: u64, amounts: Amounts) {
        self.time.add(value);
        self.add_amounts(amounts.elements, amounts.bytes, amounts.flops);
        self.hist.add(bucket(value), 1);
    }

    /// Adds every sample of `other`.
    pub(crate) fn merge(&mut self, other: &SampleTotals) {
        self.time.merge(&other.time);
        self.add_amounts(other.elements, other.bytes, other.flops);
        self.hist.merge(&other.hist);
    }

    fn add_amounts(&mut self, elements: u64, bytes: u64, flops: u64) {
        self.elements = self.elements.saturating_add(elements);
        self.bytes = self.bytes.saturating_add(bytes);
        self.flops = self.flops.saturating_add(flops);
    }

    /// Adds a live cell's samples (any thread may call this while the owner
    /// records); returns whether the cell had any.
    pub(crate) fn add_cell(&mut self, cell: &SlotCell) -> bool {
        let count = cell.count.load(Relaxed);
        if count == 0 {
            return false;
        }
        let (min, max) = (!cell.min_inv.load(Relaxed), cell.max.load(Relaxed));
        self.time
            .merge(&Summary::of(count, cell.ticks.load(Relaxed), min, max));
        self.add_amounts(
            cell.elements.load(Relaxed),
            cell.bytes.load(Relaxed),
            cell.flops.load(Relaxed),
        );
        // Only buckets between min and max can be non-zero; a racing writer
        // may leave min > max for an instant, then scan everything.
        let (lo, hi) = if min <= max {
            (bucket(min), bucket(max))
        } else {
            (0, BUCKETS - 1)
        };
        if lo == hi {
            // One bucket holds every sample (the pending one included).
            self.hist.add(lo, count);
            return true;
        }
        self.hist.reserve(lo, hi);
        cell.buckets(lo..=hi, |i, n| self.hist.add(i, n));
        if let Some(pending) = cell.pending_bucket() {
            self.hist.add(pending, 1);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::LatencyHistogram;

    fn cell() -> Box<SlotCell> {
        // SAFETY: all-zero bytes are a valid, empty `SlotCell`.
        unsafe { Box::<SlotCell>::new_zeroed().assume_init() }
    }

    fn counts(t: &SampleTotals) -> Vec<(u64, u64)> {
        let h = LatencyHistogram::from_ticks(&t.hist, 1.0);
        h.buckets.iter().map(|b| (b.lo_ns, b.count)).collect()
    }

    #[test]
    fn the_pending_sample_is_counted_once() {
        let c = cell();
        for ticks in [10, 20, 30, 1000] {
            c.add(ticks, 0, 0, 0);
        }
        let mut t = SampleTotals::default();
        assert!(t.add_cell(&c));
        assert_eq!(t.time, Summary::of(4, 1060, 10, 1000));
        let all: u64 = counts(&t).iter().map(|(_, n)| n).sum();
        assert_eq!(all, 4, "three in the cell's buckets, the last one pending");
        assert_eq!(
            counts(&t).last(),
            Some(&(992, 1)),
            "1000 lands in [992, 1024)"
        );
    }

    #[test]
    fn one_bucket_and_one_sample_cells() {
        let c = cell();
        for _ in 0..5 {
            c.add(7, 1, 0, 0);
        }
        let mut t = SampleTotals::default();
        t.add_cell(&c);
        assert_eq!(counts(&t), [(7, 5)]);
        let single = cell();
        single.add(300, 0, 0, 0);
        let mut t = SampleTotals::default();
        t.add_cell(&single);
        assert_eq!(counts(&t), [(288, 1)]);
        assert!(
            !SampleTotals::default().add_cell(&cell()),
            "an empty cell adds nothing"
        );
    }

    #[test]
    fn measured_samples_and_cells_merge_alike() {
        let mut a = SampleTotals::default();
        a.add(
            500,
            Amounts {
                elements: 3,
                ..Amounts::NONE
            },
        );
        let mut b = SampleTotals::default();
        b.merge(&a);
        b.merge(&SampleTotals::default());
        assert_eq!(b.time, Summary::of(1, 500, 500, 500));
        assert_eq!(b.elements, 3);
    }
}
