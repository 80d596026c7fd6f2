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
    ///
    /// The owner writes a call's fields one after another, so a read while
    /// it records may see some of them before the others. The cell read here
    /// is self-consistent all the same: the count is derived from the
    /// histogram (plus the one sample it lags by, see [`SlotCell::add`]), so
    /// the two always agree; the extremes include that pending sample; and
    /// the total is kept within count times the extremes, so the mean lies
    /// between them. Each differs from the exact value by the calls in
    /// flight at most, and is exact once they finish.
    pub(crate) fn add_cell(&mut self, cell: &SlotCell) -> bool {
        let calls = cell.count.load(Relaxed);
        if calls == 0 {
            return false;
        }
        // Read in the order the owner writes (extremes of earlier calls,
        // histogram, pending sample, total), so the later reads see at
        // least the calls the earlier ones saw.
        let (min, max) = (!cell.min_inv.load(Relaxed), cell.max.load(Relaxed));
        let mut in_hist = 0u64;
        // The histogram holds all calls but the pending one: after one call
        // it is empty, and its cache lines are left unread.
        if calls > 1 {
            // Only buckets between min and max can be non-zero; a racing
            // writer may leave min > max for an instant, then scan everything.
            let (lo, hi) = if min <= max {
                (bucket(min), bucket(max))
            } else {
                (0, BUCKETS - 1)
            };
            self.hist.reserve(lo, hi);
            cell.buckets(lo..=hi, calls, |i, n| {
                self.hist.add(i, n);
                in_hist = in_hist.saturating_add(n);
            });
        }
        let pending = cell.last.load(Relaxed);
        self.hist.add(bucket(pending), 1);
        let count = in_hist.saturating_add(1);
        let (min, max) = (min.min(pending), max.max(pending));
        let total = cell
            .ticks
            .load(Relaxed)
            .clamp(count.saturating_mul(min), count.saturating_mul(max));
        self.time.merge(&Summary::of(count, total, min, max));
        self.add_amounts(
            cell.elements.load(Relaxed),
            cell.bytes.load(Relaxed),
            cell.flops.load(Relaxed),
        );
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

    /// `add_cell` on a cell caught between two of its owner's writes.
    fn read(c: &SlotCell) -> SampleTotals {
        let mut t = SampleTotals::default();
        t.add_cell(c);
        t
    }

    fn assert_consistent(t: &SampleTotals) {
        let in_hist: u64 = counts(t).iter().map(|(_, n)| n).sum();
        assert_eq!(in_hist, t.time.count, "{t:?}");
        let s = t.time;
        assert!(
            s.count == 0 || (s.min * s.count <= s.total && s.total <= s.max * s.count),
            "{s:?}"
        );
    }

    #[test]
    fn a_cell_read_mid_call_is_self_consistent() {
        use std::sync::atomic::Ordering::Relaxed;
        let c = cell();
        for _ in 0..3 {
            c.add(100, 0, 0, 0);
        }
        // The fourth call (5 ticks) has bumped the count, bucketed the third
        // and noted itself as pending, but not yet added its total or minimum.
        c.count.store(4, Relaxed);
        let third = crate::stats::bucket(100);
        c.hist[third].store(c.hist[third].load(Relaxed) + 1, Relaxed);
        c.last.store(5, Relaxed);
        let t = read(&c);
        assert_consistent(&t);
        assert_eq!(t.time, Summary::of(4, 300, 5, 100));
        // A reset's clear caught halfway: the histogram and the pending
        // sample are gone, the total and extremes are not.
        for b in &c.hist {
            b.store(0, Relaxed);
        }
        c.last.store(0, Relaxed);
        let t = read(&c);
        assert_consistent(&t);
        assert_eq!(t.time.count, 1);
    }

    #[test]
    fn spilled_samples_are_read_once_the_count_can_hold_them() {
        use std::sync::atomic::Ordering::Relaxed;
        let c = cell();
        let index = crate::stats::bucket(100);
        c.add(100, 0, 0, 0);
        // As after 2^32 - 2 calls of 100 ticks: the next ones wrap the bucket.
        c.hist[index].store(u32::MAX - 1, Relaxed);
        for _ in 0..3 {
            c.add(100, 0, 0, 0);
        }
        c.count.store((1 << 32) + 2, Relaxed);
        let t = read(&c);
        assert_consistent(&t);
        assert_eq!(
            t.time.count,
            (1 << 32) + 2,
            "2^32 + 1 in the bucket, one pending"
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
