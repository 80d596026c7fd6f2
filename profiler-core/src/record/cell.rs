//! [`SlotCell`]: the counters of one brick on one thread, laid out so the
//! hot path touches one cache line and a snapshot reads two.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::counter::bump;
use crate::stats::{BUCKETS, bucket};

/// Counters of one brick on one thread. Zero-initialised memory is a valid,
/// empty cell (the minimum is stored inverted for that reason). Compressed
/// bytes, written only by the string API, live with the run facts instead.
#[repr(C, align(64))]
pub(crate) struct SlotCell {
    pub(crate) count: AtomicU64,
    pub(crate) ticks: AtomicU64,
    /// `!min_ticks`, so that zeroed memory means "no minimum yet".
    pub(crate) min_inv: AtomicU64,
    pub(crate) max: AtomicU64,
    pub(crate) elements: AtomicU64,
    pub(crate) bytes: AtomicU64,
    pub(crate) flops: AtomicU64,
    /// The latest sample's ticks, not yet in `hist` (see [`SlotCell::add`]).
    /// With the fields above it fills the first cache line, so a snapshot
    /// touches two lines per cell: this one and the occupied buckets.
    pub(crate) last: AtomicU64,
    pub(crate) hist: [AtomicU64; BUCKETS],
}

// One header line of counters plus the buckets: a snapshot reads two lines
// per cell. Growing the header would add a cache miss per cell and thread.
const _: () = assert!(size_of::<SlotCell>() == 64 + 8 * BUCKETS);

impl SlotCell {
    /// Records one sample. Owner thread only.
    #[inline(always)]
    pub(crate) fn add(&self, ticks: u64, elements: u64, bytes: u64, flops: u64) {
        let count = self.count.load(Relaxed);
        self.count.store(count + 1, Relaxed);
        // The histogram takes the *previous* sample: its bucket address is
        // known before this call's clock read completes, so the update is
        // off the critical path (indexing by the fresh `ticks` costs ~7 ns of
        // dependent latency). Snapshots add the pending sample themselves.
        if count != 0 {
            bump(&self.hist[bucket(self.last.load(Relaxed))], 1);
        }
        self.last.store(ticks, Relaxed);
        bump(&self.ticks, ticks);
        if !ticks > self.min_inv.load(Relaxed) {
            self.min_inv.store(!ticks, Relaxed);
        }
        if ticks > self.max.load(Relaxed) {
            self.max.store(ticks, Relaxed);
        }
        // Constant zeros from `#[brick(X)]` without amounts fold away here.
        if elements != 0 {
            bump(&self.elements, elements);
        }
        if bytes != 0 {
            bump(&self.bytes, bytes);
        }
        if flops != 0 {
            bump(&self.flops, flops);
        }
    }

    /// The histogram including the pending latest sample, for snapshots.
    /// A write racing with the read can shift one sample between buckets.
    pub(crate) fn pending_bucket(&self) -> Option<usize> {
        (self.count.load(Relaxed) > 0).then(|| bucket(self.last.load(Relaxed)))
    }

    /// Empties the cell. Owner only.
    pub(crate) fn clear(&self) {
        for field in [
            &self.count,
            &self.ticks,
            &self.min_inv,
            &self.max,
            &self.elements,
            &self.bytes,
            &self.flops,
            &self.last,
        ] {
            field.store(0, Relaxed);
        }
        for b in &self.hist {
            b.store(0, Relaxed);
        }
    }
}
