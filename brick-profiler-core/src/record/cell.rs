//! [`SlotCell`]: the counters of one brick on one thread, laid out so the
//! hot path touches one cache line and a snapshot reads two.

use std::sync::atomic::{
    AtomicPtr, AtomicU32, AtomicU64, Ordering::Acquire, Ordering::Relaxed, Ordering::Release,
};

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
    /// Samples per latency bucket. `u32` keeps the cell at its size with 16
    /// buckets per octave; a bucket that wraps adds 2^32 to `spill`.
    pub(crate) hist: [AtomicU32; BUCKETS],
    /// Per-bucket counts beyond `u32`, allocated the first time a bucket
    /// wraps (after 4 294 967 296 samples in it); null until then.
    spill: AtomicPtr<Spill>,
}

/// Wrapped bucket counts, in units of samples.
type Spill = [AtomicU64; BUCKETS];

// One header line of counters plus the buckets: a snapshot reads two lines
// per cell. Growing the header would add a cache miss per cell and thread.
const _: () = assert!(size_of::<SlotCell>() == (64 + 4 * BUCKETS + 8).next_multiple_of(64));

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
            let index = bucket(self.last.load(Relaxed));
            let n = self.hist[index].load(Relaxed);
            self.hist[index].store(n.wrapping_add(1), Relaxed);
            if n == u32::MAX {
                self.spill_over(index);
            }
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

    /// Carries a wrapped bucket's 2^32 samples into the spill table.
    #[cold]
    #[inline(never)]
    fn spill_over(&self, index: usize) {
        let mut table = self.spill.load(Acquire);
        if table.is_null() {
            // SAFETY: all-zero bytes are valid atomics.
            let fresh: Box<Spill> = unsafe { Box::<Spill>::new_zeroed().assume_init() };
            table = Box::into_raw(fresh);
            self.spill.store(table, Release);
        }
        // SAFETY: non-null values come from `Box::into_raw` above and are
        // freed only in `Drop`, which cannot run while `&self` is alive.
        bump(unsafe { &(*table)[index] }, 1 << 32);
    }

    /// Samples in bucket `index`, spilled ones included. Any thread.
    pub(crate) fn bucket_count(&self, index: usize) -> u64 {
        let mut n = 0;
        self.buckets(index..=index, u64::MAX, |_, count| n = count);
        n
    }

    /// Calls `f(index, samples)` for each bucket in `range`, spilled samples
    /// included; the spill table is looked up once. `count` is the cell's
    /// count as the caller read it. Any thread.
    pub(crate) fn buckets(
        &self,
        range: std::ops::RangeInclusive<usize>,
        count: u64,
        mut f: impl FnMut(usize, u64),
    ) {
        // A bucket holds fewer samples than the count, so none can have
        // wrapped below 2^32 calls: the spill pointer (a cache line of its
        // own) is left unread, which a snapshot would pay for every cell.
        let spill = if count > u64::from(u32::MAX) {
            // SAFETY: as in `spill_over`; the Acquire load pairs with its Release.
            unsafe { self.spill.load(Acquire).as_ref() }
        } else {
            None
        };
        for index in range {
            let low = u64::from(self.hist[index].load(Relaxed));
            let high = spill.map_or(0, |t| t[index].load(Relaxed));
            f(index, low.saturating_add(high));
        }
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
        // SAFETY: as in `spill_over`.
        if let Some(table) = unsafe { self.spill.load(Acquire).as_ref() } {
            for b in table {
                b.store(0, Relaxed);
            }
        }
    }
}

impl Drop for SlotCell {
    fn drop(&mut self) {
        let table = *self.spill.get_mut();
        if !table.is_null() {
            // SAFETY: allocated by `spill_over`; `&mut self` means no readers.
            drop(unsafe { Box::from_raw(table) });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrapping_bucket_spills_instead_of_losing_samples() {
        // SAFETY: all-zero bytes are a valid, empty `SlotCell`.
        let cell: Box<SlotCell> = unsafe { Box::<SlotCell>::new_zeroed().assume_init() };
        let index = bucket(100);
        cell.add(100, 0, 0, 0);
        cell.hist[index].store(u32::MAX - 1, Relaxed);
        for _ in 0..3 {
            cell.add(100, 0, 0, 0); // each adds the previous sample
        }
        assert_eq!(cell.bucket_count(index), u64::from(u32::MAX) + 2);
        cell.clear();
        assert_eq!(cell.bucket_count(index), 0);
    }
}
