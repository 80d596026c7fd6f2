//! Memory totals, process-wide: per brick and kind (what the ledger's
//! marks charge when a brick returns), allocations outside any brick, the
//! live-bytes counter track and the steps' memory.

use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::site::MAX_SLOTS;
use super::state;

/// Host memory (the global allocator) or device memory (a GPU allocator).
pub(crate) const HOST: usize = 0;
/// Device memory, charged through `record_device_alloc`/`record_device_free`.
pub(crate) const DEVICE: usize = 1;
/// How many memory kinds are tracked.
pub(crate) const KINDS: usize = 2;

/// No brick holds a mark on the thread.
pub(crate) const NO_BRICK: u32 = u32::MAX;

/// What one brick call or step used of one kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Used {
    pub(crate) allocated: u64,
    pub(crate) allocations: u64,
    pub(crate) freed: u64,
    /// Allocated minus freed: what was still live when it returned.
    pub(crate) net: i64,
    /// Highest live bytes above the entry's.
    pub(crate) peak: i64,
}

/// Totals of one brick and kind, process-wide. Bricks exit on many threads,
/// so these are atomic read-modify-writes; they happen once per brick call,
/// never inside the allocator.
pub(crate) struct SlotMemory {
    pub(crate) calls: AtomicU64,
    pub(crate) allocated: AtomicU64,
    pub(crate) allocations: AtomicU64,
    pub(crate) freed: AtomicU64,
    pub(crate) net: AtomicI64,
    pub(crate) peak: AtomicI64,
    pub(crate) child_allocated: AtomicU64,
    pub(crate) child_allocations: AtomicU64,
    pub(crate) child_freed: AtomicU64,
}

impl SlotMemory {
    const fn new() -> SlotMemory {
        SlotMemory {
            calls: AtomicU64::new(0),
            allocated: AtomicU64::new(0),
            allocations: AtomicU64::new(0),
            freed: AtomicU64::new(0),
            net: AtomicI64::new(0),
            peak: AtomicI64::new(0),
            child_allocated: AtomicU64::new(0),
            child_allocations: AtomicU64::new(0),
            child_freed: AtomicU64::new(0),
        }
    }

    fn clear(&self) {
        for a in [
            &self.calls,
            &self.allocated,
            &self.allocations,
            &self.freed,
            &self.child_allocated,
            &self.child_allocations,
            &self.child_freed,
        ] {
            a.store(0, Relaxed);
        }
        self.net.store(0, Relaxed);
        self.peak.store(0, Relaxed);
    }
}

/// Per-slot memory totals of one kind, with the generation they belong to.
pub(crate) struct MemoryTable {
    slots: [SlotMemory; MAX_SLOTS],
    generation: AtomicU32,
}

impl MemoryTable {
    pub(crate) fn add(&self, slot: u32, parent: u32, used: Used) {
        let Some(s) = self.slots.get(slot as usize) else {
            return;
        };
        s.calls.fetch_add(1, Relaxed);
        s.allocated.fetch_add(used.allocated, Relaxed);
        s.allocations.fetch_add(used.allocations, Relaxed);
        s.freed.fetch_add(used.freed, Relaxed);
        s.net.fetch_add(used.net, Relaxed);
        s.peak.fetch_max(used.peak, Relaxed);
        if let Some(p) = self.slots.get(parent as usize) {
            p.child_allocated.fetch_add(used.allocated, Relaxed);
            p.child_allocations.fetch_add(used.allocations, Relaxed);
            p.child_freed.fetch_add(used.freed, Relaxed);
        }
    }

    /// Calls `f(slot, totals)` for every slot with a charged call.
    pub(crate) fn for_each(&self, mut f: impl FnMut(u32, &SlotMemory)) {
        for (slot, s) in self.slots.iter().enumerate() {
            if s.calls.load(Relaxed) != 0 {
                f(slot as u32, s);
            }
        }
    }
}

static TABLES: [MemoryTable; KINDS] = [const {
    MemoryTable {
        slots: [const { SlotMemory::new() }; MAX_SLOTS],
        generation: AtomicU32::new(0),
    }
}; KINDS];

/// The table of `kind`. `reset` clears it; clearing here, lazily on the
/// first charge after a reset, would race with other threads' charges of
/// that moment and lose them.
pub(crate) fn table(kind: usize) -> &'static MemoryTable {
    &TABLES[kind]
}

/// The per-brick totals of `kind` for reading (current generation only).
pub(crate) fn read_table(kind: usize) -> Option<&'static MemoryTable> {
    let t = &TABLES[kind];
    (t.generation.load(Relaxed) == state::generation(state::load())).then_some(t)
}

/// Allocations charged with no brick open, by kind.
pub(crate) struct OutsideTotals {
    pub(crate) allocated: AtomicU64,
    pub(crate) allocations: AtomicU64,
    pub(crate) freed: AtomicU64,
}

pub(crate) static OUTSIDE: [OutsideTotals; KINDS] = [const {
    OutsideTotals {
        allocated: AtomicU64::new(0),
        allocations: AtomicU64::new(0),
        freed: AtomicU64::new(0),
    }
}; KINDS];

/// One counter-track sample: when, whose (thread << 1 | kind), how much.
pub(crate) struct TrackSample {
    pub(crate) ticks: AtomicU64,
    pub(crate) who: AtomicU64,
    pub(crate) live: AtomicI64,
}

/// Most counter-track samples kept; later ones are counted as dropped.
pub(crate) const TRACK_CAPACITY: usize = 16_384;

pub(crate) static TRACK: [TrackSample; TRACK_CAPACITY] = [const {
    TrackSample {
        ticks: AtomicU64::new(0),
        who: AtomicU64::new(0),
        live: AtomicI64::new(0),
    }
}; TRACK_CAPACITY];

/// Samples taken (may exceed the capacity: the rest were dropped).
pub(crate) static TRACK_LEN: AtomicUsize = AtomicUsize::new(0);
pub(crate) static NEXT_THREAD: AtomicU32 = AtomicU32::new(1);

/// Forgets the outside totals and the counter track (the per-brick tables
/// clear themselves by generation).
pub(crate) fn reset() {
    let generation = state::generation(state::load());
    for t in &TABLES {
        t.slots.iter().for_each(SlotMemory::clear);
        t.generation.store(generation, Relaxed);
    }
    for o in &OUTSIDE {
        o.allocated.store(0, Relaxed);
        o.allocations.store(0, Relaxed);
        o.freed.store(0, Relaxed);
    }
    TRACK_LEN.store(0, Relaxed);
    *steps() = StepRecords::EMPTY;
}

/// One recorded step's memory of one kind.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StepRecord {
    pub(crate) index: u64,
    pub(crate) kind: usize,
    pub(crate) used: Used,
    /// Slot of the innermost brick when the peak was reached.
    pub(crate) peak_brick: u32,
}

/// Most step records kept; later ones are counted as dropped.
const MAX_STEP_RECORDS: usize = 100_000;

/// The steps' memory, in the order they ended.
pub(crate) struct StepRecords {
    pub(crate) list: Vec<StepRecord>,
    pub(crate) dropped: u64,
}

impl StepRecords {
    const EMPTY: StepRecords = StepRecords {
        list: Vec::new(),
        dropped: 0,
    };

    /// Keeps `record` unless the list is full.
    pub(crate) fn push(&mut self, record: StepRecord) {
        if self.list.len() < MAX_STEP_RECORDS {
            self.list.push(record);
        } else {
            self.dropped += 1;
        }
    }
}

static STEPS: Mutex<StepRecords> = Mutex::new(StepRecords::EMPTY);

/// Locks the step records (pushes only, so a poisoned lock is consistent).
pub(crate) fn steps() -> MutexGuard<'static, StepRecords> {
    STEPS.lock().unwrap_or_else(PoisonError::into_inner)
}
