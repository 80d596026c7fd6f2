//! Per-thread recording storage.
//!
//! Each thread that records owns a [`ThreadSlab`]: slot cells (counters and a
//! latency histogram per brick), a layer-attribution table and a timeline
//! buffer. Only the owning thread writes, with plain relaxed load/store pairs
//! (no lock-prefixed instructions); snapshots read the same atomics from any
//! thread. Slabs live in a global registry behind `Arc`, so counts of threads
//! that have exited are still merged. A `reset()` bumps the generation in the
//! state word; each owner clears its own slab when it next records, and
//! readers ignore slabs of an older generation.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::atomic::{
    AtomicBool, AtomicPtr, AtomicU32, AtomicU64, Ordering::Acquire, Ordering::Relaxed,
    Ordering::Release,
};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::histogram::{BUCKETS, bucket};
use crate::layers::{LayerTable, NO_LAYER};
use crate::site::{CHUNK_SLOTS, MAX_SLOTS};
use crate::snapshot::{NsTotals, Totals};
use crate::timeline::EventBuffer;
use crate::trace::EntryStore;

/// Counters of one brick on one thread. Zero-initialised memory is a valid,
/// empty cell (the minimum is stored inverted for that reason). Compressed
/// bytes, written only by the string API, live in [`COMPRESSED`] instead.
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

/// Compressed bytes per slot (`record_elapsed_with_bytes`): that API takes
/// a lock per call anyway, and keeping them out of [`SlotCell`] keeps its
/// header in one cache line.
pub(crate) static COMPRESSED: Mutex<BTreeMap<u32, u64>> = Mutex::new(BTreeMap::new());

/// Adds `v` to a counter only its owner writes: a plain load and store,
/// saturating so that absurd amounts pin at `u64::MAX` instead of wrapping.
#[inline(always)]
pub(crate) fn bump(counter: &AtomicU64, v: u64) {
    counter.store(counter.load(Relaxed).saturating_add(v), Relaxed);
}

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

    fn clear(&self) {
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
    /// `#[trace_op]` entries.
    pub(crate) trace_entries: EntryStore,
    /// Samples measured elsewhere, kept in exact ns by slot. Written by the
    /// owner from non-hot paths (`finalize`, `record_elapsed`); the lock is
    /// contended only by snapshots.
    pub(crate) measured: Mutex<BTreeMap<u32, NsTotals>>,
    /// Pending deferred records right now (the queue itself is owner-local).
    pub(crate) pending: AtomicU64,
    /// Deferred records refused because the queue was full.
    pub(crate) pending_overflow: AtomicU64,
    /// Deferred records still pending when the thread exited.
    pub(crate) pending_abandoned: AtomicU64,
    /// Set once the owner has exited; the slab is then immutable.
    pub(crate) retired: AtomicBool,
    /// The profiler's own calibration thread: never reported.
    pub(crate) internal: bool,
}

impl ThreadSlab {
    fn new(thread: u32, generation: u32) -> Self {
        Self {
            thread,
            name: std::thread::current().name().map(str::to_owned),
            generation: AtomicU32::new(generation),
            chunks: [const { AtomicPtr::new(std::ptr::null_mut()) }; MAX_CHUNKS],
            layers: LayerTable::new(),
            events: EventBuffer::new(),
            trace_entries: EntryStore::default(),
            measured: Mutex::new(BTreeMap::new()),
            pending: AtomicU64::new(0),
            pending_overflow: AtomicU64::new(0),
            pending_abandoned: AtomicU64::new(0),
            retired: AtomicBool::new(false),
            internal: INTERNAL.with(Cell::get),
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
        let chunk: Box<Chunk> = unsafe { Box::<Chunk>::new_zeroed().assume_init() };
        let ptr = Box::into_raw(chunk);
        self.chunks[index].store(ptr, Release);
        ptr
    }

    /// Calls `f(slot, cell)` for every allocated cell. Any thread.
    pub(crate) fn for_each_cell(&self, mut f: impl FnMut(u32, &SlotCell)) {
        for (c, chunk) in self.chunks.iter().enumerate() {
            let ptr = chunk.load(Acquire);
            // SAFETY: see `cell`; the Acquire load pairs with the Release in
            // `alloc_chunk`, so the zeroed contents are visible.
            if let Some(chunk) = unsafe { ptr.as_ref() } {
                for (i, cell) in chunk.iter().enumerate() {
                    f((c * CHUNK_SLOTS + i) as u32, cell);
                }
            }
        }
    }

    /// Brings the slab to the current generation, clearing it if a reset
    /// happened since it last recorded. The caller's state word may be stale
    /// (read when a call began), so the generation is re-read here: a slab is
    /// never moved back to an older generation. Owner only.
    #[cold]
    #[inline(never)]
    fn catch_up(&self) {
        let current = crate::state::generation(crate::state::load());
        if self.generation.load(Relaxed) != current {
            self.renew(current);
        }
    }

    /// Clears the slab for a new generation. Owner only.
    fn renew(&self, generation: u32) {
        self.for_each_cell(|_, cell| cell.clear());
        self.layers.clear();
        self.events.clear();
        self.trace_entries.clear();
        self.measured
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        self.pending.store(0, Relaxed);
        self.pending_overflow.store(0, Relaxed);
        self.pending_abandoned.store(0, Relaxed);
        crate::sync::clear_local_pending();
        self.generation.store(generation, Release);
    }
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

/// The slabs of live threads, plus the merged totals of exited threads
/// (folded in as each thread exits, so memory does not grow with churn).
pub(crate) struct Registry {
    pub(crate) live: Vec<Arc<ThreadSlab>>,
    exited: Totals,
    /// Reset generation the exited totals belong to.
    exited_generation: u32,
    next_thread: u32,
}

impl Registry {
    /// The exited threads' totals of `generation`; stale ones (a reset came
    /// since) are dropped first.
    pub(crate) fn exited(&mut self, generation: u32) -> &mut Totals {
        if self.exited_generation != generation {
            self.exited = Totals::EMPTY;
            self.exited_generation = generation;
        }
        &mut self.exited
    }
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    live: Vec::new(),
    exited: Totals::EMPTY,
    exited_generation: 0,
    next_thread: 1,
});

/// Locks the registry. Holders only push, fold or read, so a poisoned lock
/// still guards consistent data.
pub(crate) fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Per-thread fast-access state: no destructor, so reading it never checks
/// whether the thread is being torn down.
struct Fast {
    slab: Cell<*const ThreadSlab>,
    /// Current layer context (`NO_LAYER` outside layer scopes).
    layer: Cell<u32>,
}

/// Marks a thread whose slab has been retired (the thread is exiting).
const DEAD: *const ThreadSlab = std::ptr::dangling();

thread_local! {
    static INTERNAL: Cell<bool> = const { Cell::new(false) };
    static FAST: Fast = const { Fast { slab: Cell::new(std::ptr::null()), layer: Cell::new(NO_LAYER) } };
    static OWNER: Owner = Owner::register();
}

/// Keeps the thread's slab registered and retires it when the thread exits.
struct Owner {
    slab: Arc<ThreadSlab>,
}

impl Owner {
    fn register() -> Self {
        let generation = crate::state::generation(crate::state::load());
        let mut registry = registry();
        let slab = Arc::new(ThreadSlab::new(registry.next_thread, generation));
        registry.next_thread += 1;
        registry.live.push(Arc::clone(&slab));
        Owner { slab }
    }
}

impl Drop for Owner {
    /// Runs at thread exit: the slab's contents are folded into the exited
    /// totals and the slab is freed (the owner wrote them, so no ordering
    /// question arises).
    fn drop(&mut self) {
        let _ = FAST.try_with(|f| f.slab.set(DEAD));
        let abandoned = self.slab.pending.swap(0, Relaxed);
        bump(&self.slab.pending_abandoned, abandoned);
        self.slab.retired.store(true, Release);
        let mut registry = registry();
        if !self.slab.internal {
            let generation = crate::state::generation(crate::state::load());
            registry.exited(generation).add_slab(&self.slab, generation);
        }
        registry.live.retain(|s| !Arc::ptr_eq(s, &self.slab));
    }
}

/// Records that reached a thread after its slab was retired (thread-local
/// destructors running late). Rare, so a shared atomic is fine.
pub(crate) static LOST_AT_EXIT: AtomicU64 = AtomicU64::new(0);

/// Runs `f` with the calling thread's slab, brought up to date with the
/// reset generation (`state` may be the word read when the call began).
/// Registers the thread on first use. Returns `None` (and counts the loss)
/// when the thread is already tearing down.
#[inline(always)]
pub(crate) fn with_slab<R>(state: u64, f: impl FnOnce(&ThreadSlab, u32) -> R) -> Option<R> {
    let (ptr, layer) = FAST.with(|fast| (fast.slab.get(), fast.layer.get()));
    let ptr = if ptr.addr() <= DEAD.addr() {
        slow_slab(ptr)?
    } else {
        ptr
    };
    // SAFETY: `ptr` came from the `Arc` held by this thread's `Owner`, which
    // lives until the thread-local destructors run; that destructor swaps the
    // pointer for `DEAD` before releasing its reference.
    let slab = unsafe { &*ptr };
    if slab.generation.load(Relaxed) != crate::state::generation(state) {
        slab.catch_up();
    }
    Some(f(slab, layer))
}

#[cold]
#[inline(never)]
fn slow_slab(ptr: *const ThreadSlab) -> Option<*const ThreadSlab> {
    if ptr == DEAD {
        LOST_AT_EXIT.fetch_add(1, Relaxed);
        return None;
    }
    match OWNER.try_with(|owner| Arc::as_ptr(&owner.slab)) {
        Ok(ptr) => {
            FAST.with(|f| f.slab.set(ptr));
            Some(ptr)
        }
        Err(_) => {
            LOST_AT_EXIT.fetch_add(1, Relaxed);
            None
        }
    }
}

/// Marks the calling thread as the profiler's own; call before it records.
pub(crate) fn mark_internal_thread() {
    INTERNAL.with(|i| i.set(true));
}

/// The calling thread's layer context.
#[inline]
pub(crate) fn current_layer() -> u32 {
    FAST.with(|f| f.layer.get())
}

/// Replaces the calling thread's layer context, returning the previous one.
#[inline]
pub(crate) fn swap_layer(ctx: u32) -> u32 {
    FAST.with(|f| f.layer.replace(ctx))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exiting_threads_are_folded_and_freed() {
        let slot = crate::site::intern("slab-test-churn", crate::BrickCategory::Other);
        let state = crate::state::ENABLED;
        for _ in 0..64 {
            std::thread::spawn(move || {
                crate::record::record_finished(
                    state,
                    slot,
                    0,
                    10,
                    crate::record::Amounts::NONE,
                    NO_LAYER,
                );
            })
            .join()
            .expect("thread");
        }
        let registry = registry();
        assert!(
            registry.live.iter().all(|s| !s.retired.load(Acquire)),
            "no exited slab is kept"
        );
        drop(registry);
        let totals = crate::control::collect();
        assert_eq!(
            totals.slots[slot as usize].count, 64,
            "their samples survive"
        );
    }
}
