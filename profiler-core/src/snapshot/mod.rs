//! Merging per-thread slabs into a [`Profile`](crate::Profile).
//!
//! Counts stay in ticks until the very end: slabs (and the folded totals of
//! exited threads) are summed into [`Totals`], then converted to ns with one
//! calibrated ratio. Recording continues while this runs.

mod convert;

use std::collections::BTreeMap;
use std::sync::atomic::Ordering::{Acquire, Relaxed};

use crate::histogram::{BUCKETS, LatencyHistogram, TickCounts, bucket};
use crate::profile::ThreadInfo;
use crate::slab::{SlotCell, ThreadSlab};
use crate::stats::BrickStats;
use crate::timeline::RawEvent;

pub(crate) use convert::{Conversion, brick_stats, categories, layers, timeline};

/// Merged tick counters of one slot.
#[derive(Debug, Clone, Default)]
pub(crate) struct SlotTotals {
    pub(crate) count: u64,
    pub(crate) ticks: u64,
    pub(crate) min: u64,
    pub(crate) max: u64,
    pub(crate) elements: u64,
    pub(crate) bytes: u64,
    pub(crate) flops: u64,
    pub(crate) hist: TickCounts,
}

impl SlotTotals {
    fn add_cell(&mut self, cell: &SlotCell) -> bool {
        let count = cell.count.load(Relaxed);
        if count == 0 {
            return false;
        }
        let (min, max) = (!cell.min_inv.load(Relaxed), cell.max.load(Relaxed));
        if self.count == 0 {
            self.min = u64::MAX;
        }
        self.count = self.count.saturating_add(count);
        self.ticks = self.ticks.saturating_add(cell.ticks.load(Relaxed));
        self.min = self.min.min(min);
        self.max = self.max.max(max);
        self.elements = self.elements.saturating_add(cell.elements.load(Relaxed));
        self.bytes = self.bytes.saturating_add(cell.bytes.load(Relaxed));
        self.flops = self.flops.saturating_add(cell.flops.load(Relaxed));
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
        for i in lo..=hi {
            self.hist.add(i, cell.hist[i].load(Relaxed));
        }
        if let Some(pending) = cell.pending_bucket() {
            self.hist.add(pending, 1);
        }
        true
    }
}

/// Samples measured elsewhere and given in exact ns (deferred records,
/// `record_elapsed`): never converted, never overhead-corrected.
#[derive(Debug, Clone, Default)]
pub(crate) struct NsTotals {
    pub(crate) count: u64,
    pub(crate) total_ns: u64,
    pub(crate) min_ns: u64,
    pub(crate) max_ns: u64,
    pub(crate) elements: u64,
    pub(crate) bytes: u64,
    pub(crate) flops: u64,
    /// Buckets of the ns values (the tick bucket function over ns).
    pub(crate) hist: TickCounts,
}

impl NsTotals {
    /// Adds one sample.
    pub(crate) fn add(&mut self, ns: u64, amounts: crate::record::Amounts) {
        self.min_ns = if self.count == 0 {
            ns
        } else {
            self.min_ns.min(ns)
        };
        self.max_ns = self.max_ns.max(ns);
        self.count = self.count.saturating_add(1);
        self.total_ns = self.total_ns.saturating_add(ns);
        self.elements = self.elements.saturating_add(amounts.elements);
        self.bytes = self.bytes.saturating_add(amounts.bytes);
        self.flops = self.flops.saturating_add(amounts.flops);
        self.hist.add(bucket(ns), 1);
    }

    fn merge(&mut self, other: &NsTotals) {
        if other.count == 0 {
            return;
        }
        self.min_ns = if self.count == 0 {
            other.min_ns
        } else {
            self.min_ns.min(other.min_ns)
        };
        self.max_ns = self.max_ns.max(other.max_ns);
        self.count = self.count.saturating_add(other.count);
        self.total_ns = self.total_ns.saturating_add(other.total_ns);
        self.elements = self.elements.saturating_add(other.elements);
        self.bytes = self.bytes.saturating_add(other.bytes);
        self.flops = self.flops.saturating_add(other.flops);
        self.hist.merge(&other.hist);
    }

    /// Folds these samples into statistics converted from ticks.
    fn fold_into(&self, stats: &mut BrickStats) {
        stats.merge(&BrickStats {
            count: self.count,
            total_ns: self.total_ns,
            min_ns: self.min_ns,
            max_ns: self.max_ns,
            total_elements: self.elements,
            total_bytes: self.bytes,
            total_flops: self.flops,
            latency: LatencyHistogram::from_ticks(&self.hist, 1.0),
            ..BrickStats::new(String::new(), stats.category)
        });
    }
}

/// Everything read out of a set of slabs, still in ticks.
#[derive(Debug, Clone)]
pub(crate) struct Totals {
    pub(crate) slots: Vec<SlotTotals>,
    /// (layer context, slot or `SCOPE_SLOT`) -> (count, ticks).
    pub(crate) layers: BTreeMap<(u32, u32), (u64, u64)>,
    pub(crate) timelines: Vec<(ThreadInfo, Vec<RawEvent>)>,
    pub(crate) threads: Vec<ThreadInfo>,
    pub(crate) timeline_dropped: u64,
    pub(crate) pending: u64,
    pub(crate) pending_overflow: u64,
    pub(crate) pending_abandoned: u64,
    pub(crate) trace_entries: Vec<crate::trace::RecordedTraceEntry>,
    pub(crate) trace_entries_dropped: u64,
    /// Exact-ns samples by slot.
    pub(crate) measured: BTreeMap<u32, NsTotals>,
}

impl Totals {
    pub(crate) const EMPTY: Totals = Totals {
        slots: Vec::new(),
        layers: BTreeMap::new(),
        timelines: Vec::new(),
        threads: Vec::new(),
        timeline_dropped: 0,
        pending: 0,
        pending_overflow: 0,
        pending_abandoned: 0,
        trace_entries: Vec::new(),
        trace_entries_dropped: 0,
        measured: BTreeMap::new(),
    };

    /// Adds a slab's contents if it belongs to `generation`.
    pub(crate) fn add_slab(&mut self, slab: &ThreadSlab, generation: u32) {
        if slab.generation.load(Acquire) != generation {
            return;
        }
        let mut recorded = false;
        slab.for_each_cell(|slot, cell| {
            let slot = slot as usize;
            if self.slots.len() <= slot {
                self.slots.resize_with(slot + 1, SlotTotals::default);
            }
            recorded |= self.slots[slot].add_cell(cell);
        });
        slab.layers.for_each(|ctx, slot, count, ticks| {
            let entry = self.layers.entry((ctx, slot)).or_default();
            entry.0 = entry.0.saturating_add(count);
            entry.1 = entry.1.saturating_add(ticks);
            recorded = true;
        });
        let info = ThreadInfo {
            thread: slab.thread,
            name: slab.name.clone(),
            exited: slab.retired.load(Acquire),
        };
        let events = slab.events.read();
        if !events.is_empty() {
            self.timelines.push((info.clone(), events));
            recorded = true;
        }
        self.timeline_dropped = self
            .timeline_dropped
            .saturating_add(slab.events.dropped.load(Relaxed));
        self.pending = self.pending.saturating_add(slab.pending.load(Relaxed));
        self.pending_overflow = self
            .pending_overflow
            .saturating_add(slab.pending_overflow.load(Relaxed));
        self.pending_abandoned = self
            .pending_abandoned
            .saturating_add(slab.pending_abandoned.load(Relaxed));
        {
            let entries = slab
                .trace_entries
                .entries
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            recorded |= !entries.is_empty();
            self.trace_entries.extend(entries.iter().cloned());
        }
        for (slot, ns) in slab
            .measured
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
        {
            self.measured.entry(*slot).or_default().merge(ns);
            recorded = true;
        }
        self.trace_entries_dropped = self
            .trace_entries_dropped
            .saturating_add(slab.trace_entries.dropped.load(Relaxed));
        if recorded {
            self.threads.push(info);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell() -> Box<SlotCell> {
        // SAFETY: all-zero bytes are a valid, empty `SlotCell`.
        unsafe { Box::<SlotCell>::new_zeroed().assume_init() }
    }

    fn counts(t: &SlotTotals) -> Vec<(u64, u64)> {
        let h = LatencyHistogram::from_ticks(&t.hist, 1.0);
        h.buckets.iter().map(|b| (b.lo_ns, b.count)).collect()
    }

    #[test]
    fn the_pending_sample_is_counted_once() {
        let c = cell();
        for ticks in [10, 20, 30, 1000] {
            c.add(ticks, 0, 0, 0);
        }
        let mut t = SlotTotals::default();
        assert!(t.add_cell(&c));
        assert_eq!((t.count, t.ticks, t.min, t.max), (4, 1060, 10, 1000));
        let all: u64 = counts(&t).iter().map(|(_, n)| n).sum();
        assert_eq!(all, 4, "three in the cell's buckets, the last one pending");
        assert_eq!(
            counts(&t).last(),
            Some(&(960, 1)),
            "1000 lands in [960, 1024)"
        );
    }

    #[test]
    fn one_bucket_and_one_sample_cells() {
        let c = cell();
        for _ in 0..5 {
            c.add(7, 1, 0, 0);
        }
        let mut t = SlotTotals::default();
        t.add_cell(&c);
        assert_eq!(counts(&t), [(7, 5)]);
        let single = cell();
        single.add(300, 0, 0, 0);
        let mut t = SlotTotals::default();
        t.add_cell(&single);
        assert_eq!(counts(&t), [(288, 1)]);
        assert!(
            !SlotTotals::default().add_cell(&cell()),
            "an empty cell adds nothing"
        );
    }
}
