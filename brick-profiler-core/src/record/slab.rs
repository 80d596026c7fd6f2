//! [`ThreadSlab`]: everything one thread records. Slot cells (counters and
//! a latency histogram per brick), a layer-attribution table, a timeline
//! buffer, `#[trace_op]` entries and exact-ns samples. Only the owning
//! thread writes, with plain relaxed load/store pairs; snapshots read the
//! same atomics from any thread. A `reset()` bumps the generation in the
//! state word; the owner clears its own slab when it next records.

use std::collections::BTreeMap;
use std::sync::atomic::{
    AtomicBool, AtomicPtr, AtomicU32, AtomicU64, Ordering::Acquire, Ordering::Relaxed,
    Ordering::Release,
};
use std::sync::{Mutex, PoisonError};

use super::cell::SlotCell;
use super::entries::EntryStore;
use super::events::EventBuffer;
use super::graph::ThreadGraph;
use super::layers::LayerTable;
use super::pending;
use super::sample::SampleTotals;
use super::site::{CHUNK_SLOTS, MAX_SLOTS};
use super::starts::DeviceStarts;
use super::state;

type Chunk = [SlotCell; CHUNK_SLOTS];
const MAX_CHUNKS: usize = MAX_SLOTS / CHUNK_SLOTS;

/// Everything one thread records.
pub(crate) struct ThreadSlab {
    /// Dense thread number in registration order (1-based; stable for the run).
    pub(crate) thread: u32,
    pub(crate) name: Option<String>,
    /// Generation the contents belong to; written by the owner only.
    pub(crate) generation: AtomicU32,
    chunks: [AtomicPtr<Chunk>; MAX_CHUNKS],
    pub(crate) layers: LayerTable,
    pub(crate) events: EventBuffer,
    /// Device starts of the buffer's device-timed bricks.
    pub(crate) device_starts: DeviceStarts,
    /// `#[trace_op]` entries.
    pub(crate) trace_entries: EntryStore,
    /// Samples measured elsewhere, kept in exact ns by slot. Written by the
    /// owner from non-hot paths (`finalize`, `record_elapsed`); the lock is
    /// contended only by snapshots.
    pub(crate) measured: Mutex<BTreeMap<u32, SampleTotals>>,
    /// Pending deferred records right now (the queue itself is owner-local).
    pub(crate) pending: AtomicU64,
    /// Deferred records refused because the queue was full.
    pub(crate) pending_overflow: AtomicU64,
    /// Deferred records still pending when the thread exited.
    pub(crate) pending_abandoned: AtomicU64,
    /// The thread's share of the execution graph, when it is on.
    pub(crate) graph: Mutex<Option<ThreadGraph>>,
    /// Counter values refused: not finite, or a series beyond the table.
    pub(crate) counters_rejected: AtomicU64,
    /// Phase, layer and step scopes closed: with the cells' counts, what
    /// [`ThreadSlab::activity`] sums.
    pub(crate) scopes: AtomicU64,
    /// Set once the owner has exited; the slab is then immutable.
    pub(crate) retired: AtomicBool,
    /// The profiler's own calibration thread: never reported.
    pub(crate) internal: bool,
}

impl ThreadSlab {
    /// An empty slab for the calling thread.
    pub(crate) fn new(thread: u32, generation: u32, internal: bool) -> Self {
        Self {
            thread,
            name: std::thread::current().name().map(str::to_owned),
            generation: AtomicU32::new(generation),
            chunks: [const { AtomicPtr::new(std::ptr::null_mut()) }; MAX_CHUNKS],
            layers: LayerTable::new(),
            events: EventBuffer::new(),
            device_starts: DeviceStarts::default(),
            trace_entries: EntryStore::default(),
            measured: Mutex::new(BTreeMap::new()),
            pending: AtomicU64::new(0),
            pending_overflow: AtomicU64::new(0),
            pending_abandoned: AtomicU64::new(0),
            graph: Mutex::new(None),
            counters_rejected: AtomicU64::new(0),
            scopes: AtomicU64::new(0),
            retired: AtomicBool::new(false),
            internal,
        }
    }

    /// The cell of `slot`, allocating its chunk on first use. Owner only.
    #[inline(always)]
    pub(crate) fn cell(&self, slot: u32) -> &SlotCell {
        let slot = slot as usize;
        let chunk = self.chunks[slot / CHUNK_SLOTS].load(Relaxed);
        let chunk = if chunk.is_null() {
            self.alloc_chunk(slot / CHUNK_SLOTS)
        } else {
            chunk
        };
        // SAFETY: chunk pointers come from `Box::into_raw` in `alloc_chunk` and
        // are freed only when the slab is dropped, which cannot happen while
        // `&self` is alive.
        unsafe { &(*chunk)[slot % CHUNK_SLOTS] }
    }

    #[cold]
    #[inline(never)]
    fn alloc_chunk(&self, index: usize) -> *mut Chunk {
        // SAFETY: all-zero bytes are a valid `SlotCell` (atomics of 0, and a
        // zero `min_inv` means "no sample yet").
        let chunk: Box<Chunk> =
            super::uncharged::uncharged(|| unsafe { Box::<Chunk>::new_zeroed().assume_init() });
        let ptr = Box::into_raw(chunk);
        self.chunks[index].store(ptr, Release);
        ptr
    }

    /// Slots up to the last allocated cell: what [`ThreadSlab::for_each_cell`]
    /// reaches at most. Any thread.
    pub(crate) fn cells(&self) -> usize {
        self.chunks
            .iter()
            .rposition(|chunk| !chunk.load(Acquire).is_null())
            .map_or(0, |last| (last + 1) * CHUNK_SLOTS)
    }

    /// Calls `f(slot, cell)` for every allocated cell. Any thread.
    pub(crate) fn for_each_cell(&self, mut f: impl FnMut(u32, &SlotCell)) {
        let mut chunks = self
            .chunks
            .iter()
            .enumerate()
            // SAFETY: see `cell`; the Acquire load pairs with the Release in
            // `alloc_chunk`, so the zeroed contents are visible.
            .filter_map(|(c, chunk)| unsafe { chunk.load(Acquire).as_ref() }.map(|k| (c, k)))
            .peekable();
        while let Some((c, chunk)) = chunks.next() {
            if let Some((_, next)) = chunks.peek() {
                // Cells lie 2.5 KiB apart, mostly a page each, past what the
                // hardware guesses: asking for the next chunk's first lines
                // now lets their loads overlap this chunk's reads instead of
                // following them (about a tenth off a snapshot's time).
                next.iter().for_each(prefetch);
            }
            for (i, cell) in chunk.iter().enumerate() {
                f((c * CHUNK_SLOTS + i) as u32, cell);
            }
        }
    }

    /// Everything the thread has recorded, as one number that grows with
    /// every brick sample, deferred or measured record, scope and trace
    /// entry: equal at two moments means nothing ran in between. Reads
    /// every allocated cell, so it is for step boundaries, not hot paths.
    pub(crate) fn activity(&self) -> u64 {
        let mut total = self.scopes.load(Relaxed);
        self.for_each_cell(|_, cell| total = total.wrapping_add(cell.count.load(Relaxed)));
        let measured = self.measured.lock().unwrap_or_else(PoisonError::into_inner);
        for m in measured.values() {
            total = total.wrapping_add(m.time.count);
        }
        drop(measured);
        total
            .wrapping_add(self.pending.load(Relaxed))
            .wrapping_add(self.pending_overflow.load(Relaxed))
            .wrapping_add(self.trace_entries.len() as u64)
            .wrapping_add(self.trace_entries.dropped.load(Relaxed))
    }

    /// Brings the slab to the current generation, clearing it if a reset
    /// happened since it last recorded. The caller's state word may be stale
    /// (read when a call began), so the generation is re-read here: a slab is
    /// never moved back to an older generation. Owner only.
    #[cold]
    #[inline(never)]
    pub(crate) fn catch_up(&self) {
        let current = state::generation(state::load());
        if self.generation.load(Relaxed) != current {
            self.renew(current);
        }
    }

    /// Clears the slab for a new generation. Owner only.
    fn renew(&self, generation: u32) {
        self.for_each_cell(|_, cell| cell.clear());
        self.layers.clear();
        self.events.clear();
        self.device_starts.clear();
        self.trace_entries.clear();
        self.measured
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        self.pending.store(0, Relaxed);
        self.pending_overflow.store(0, Relaxed);
        self.pending_abandoned.store(0, Relaxed);
        self.scopes.store(0, Relaxed);
        self.counters_rejected.store(0, Relaxed);
        *self.graph.lock().unwrap_or_else(PoisonError::into_inner) = None;
        pending::clear_local();
        self.generation.store(generation, Release);
    }
}

/// Starts loading the first cache line of `cell` (its counters) into the
/// cache; a hint only, so nothing happens where there is no such hint.
#[inline(always)]
fn prefetch(cell: &SlotCell) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and changes no memory, whatever the
    // address; this one is a live cell's.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(cell).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = cell;
}

impl Drop for ThreadSlab {
    fn drop(&mut self) {
        for chunk in &self.chunks {
            let ptr = chunk.load(Acquire);
            if !ptr.is_null() {
                // SAFETY: allocated by `alloc_chunk`; we have exclusive access.
                drop(unsafe { Box::from_raw(ptr) });
            }
        }
    }
}
