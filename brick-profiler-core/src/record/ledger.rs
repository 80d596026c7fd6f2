//! The per-thread allocation ledger: what the tracking allocator and
//! device allocators charge, and the marks bricks and steps take of it.
//!
//! The allocator side touches only a const-initialised, destructor-free
//! thread-local of plain cells: no lock, no allocation, and nothing that can
//! call back into the allocator, even while the thread is exiting. A brick
//! takes a mark when it starts and, when it returns, charges what changed
//! since the mark to itself and to its parent's child totals, like time.

use std::cell::Cell;
use std::sync::atomic::Ordering::Relaxed;

use super::memory::{KINDS, NEXT_THREAD, NO_BRICK, OUTSIDE, TRACK, TRACK_LEN, Used, table};
use super::state::{self, MEMORY, RAW_CLOCK};
use super::uncharged::{busy, uncharged};

/// Deepest brick nesting attributed (a fixed stack keeps the ledger
/// allocation-free); deeper calls get no memory of their own, and what they
/// allocate counts in the bricks around them.
pub(crate) const MAX_DEPTH: usize = 64;

/// Smallest change of live bytes that takes a counter-track sample; above
/// it, a change of an eighth of the last sample does.
const TRACK_GRANULE: i64 = 64 * 1024;

/// One thread's running counts of one memory kind.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Counts {
    pub(crate) allocated: u64,
    pub(crate) allocations: u64,
    pub(crate) freed: u64,
    /// Allocated minus freed on this thread (negative when it frees what
    /// others allocated).
    pub(crate) live: i64,
    /// Highest `live` since the innermost mark.
    pub(crate) high: i64,
}

impl Counts {
    /// What changed from `at` to `self`, with `high` as the highest live
    /// bytes reached in between.
    pub(crate) fn since(self, at: Counts, high: i64) -> Used {
        Used {
            allocated: self.allocated.wrapping_sub(at.allocated),
            allocations: self.allocations.wrapping_sub(at.allocations),
            freed: self.freed.wrapping_sub(at.freed),
            net: self.live.wrapping_sub(at.live),
            peak: high.saturating_sub(at.live).max(0),
        }
    }
}

/// The thread's ledger at a layer or phase scope's edge: the running counts,
/// those made with no brick open, and the highest live bytes since the last
/// mark (which the edge then restarts).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Level {
    pub(crate) counts: [Counts; KINDS],
    pub(crate) loose: [Counts; KINDS],
    pub(crate) high: [i64; KINDS],
}

/// What a brick's mark saved: the counts at its entry (with the enclosing
/// high-water mark in `high`) and the brick it is nested in.
#[derive(Clone, Copy, Debug)]
struct Mark {
    slot: u32,
    parent: u32,
    at: [Counts; KINDS],
}

const EMPTY_MARK: Mark = Mark {
    slot: NO_BRICK,
    parent: NO_BRICK,
    at: [Counts {
        allocated: 0,
        allocations: 0,
        freed: 0,
        live: 0,
        high: 0,
    }; KINDS],
};

/// The calling thread's ledger. Every field is a `Cell` of plain data, so
/// the thread-local has no destructor and is usable until the thread ends.
struct Ledger {
    counts: [Cell<Counts>; KINDS],
    /// Innermost brick holding a mark.
    brick: Cell<u32>,
    depth: Cell<u32>,
    marks: [Cell<Mark>; MAX_DEPTH],
    /// Counts when the current step began.
    step: [Cell<Counts>; KINDS],
    /// Highest live bytes since the step began, and the brick that reached it.
    step_high: [Cell<(i64, u32)>; KINDS],
    /// Counts already charged to "outside" or to open scopes (allocations
    /// with no brick open).
    outside: [Cell<Counts>; KINDS],
    /// Running counts of allocations made with no brick open.
    loose: [Cell<Counts>; KINDS],
    /// Layer and phase scopes holding a mark: while any is open, what no
    /// brick took goes to them rather than to "outside".
    scopes: Cell<u32>,
    /// Reset generation `outside` belongs to.
    generation: Cell<u32>,
    /// Live bytes outside `band` take a counter-track sample.
    band: [Cell<(i64, i64)>; KINDS],
    /// Live bytes above this take the allocator's slow path: the lower of
    /// the step's high and the band's top.
    rise: [Cell<i64>; KINDS],
    /// This thread's number in the counter track (0 until its first sample).
    thread: Cell<u32>,
}

thread_local! {
    static LEDGER: Ledger = const {
        Ledger {
            counts: [const { Cell::new(EMPTY_MARK.at[0]) }; KINDS],
            brick: Cell::new(NO_BRICK),
            depth: Cell::new(0),
            marks: [const { Cell::new(EMPTY_MARK) }; MAX_DEPTH],
            step: [const { Cell::new(EMPTY_MARK.at[0]) }; KINDS],
            step_high: [const { Cell::new((0, NO_BRICK)) }; KINDS],
            outside: [const { Cell::new(EMPTY_MARK.at[0]) }; KINDS],
            loose: [const { Cell::new(EMPTY_MARK.at[0]) }; KINDS],
            scopes: Cell::new(0),
            generation: Cell::new(0),
            band: [const { Cell::new((0, 0)) }; KINDS],
            rise: [const { Cell::new(0) }; KINDS],
            thread: Cell::new(0),
        }
    };
}

/// Charges an allocation of `bytes` of memory kind `KIND` to the calling
/// thread. Called from inside the global allocator: touches only the ledger
/// and, rarely, the fixed counter-track buffer. The kind is a constant and
/// the body is inlined, so the ledger's fields are reached at fixed
/// thread-local offsets, with no call and no bounds check.
#[inline(always)]
pub(crate) fn charge_alloc<const KIND: usize>(state: u64, bytes: usize) {
    let kind = KIND;
    if busy() {
        return;
    }
    if state & MEMORY == 0 {
        state::announce_memory();
    }
    LEDGER.with(|l| {
        let mut c = l.counts[kind].get();
        c.allocated = c.allocated.wrapping_add(bytes as u64);
        c.allocations = c.allocations.wrapping_add(1);
        c.live = c.live.wrapping_add(bytes as i64);
        c.high = c.high.max(c.live);
        l.counts[kind].set(c);
        // One comparison for both rare cases keeps this body small enough
        // to be inlined whole into the allocator.
        if c.live > l.rise[kind].get() {
            rise(l, state, kind, c.live);
        }
    });
}

/// Charges a free of `bytes` of memory kind `KIND` to the calling thread,
/// whichever thread or brick allocated the block (inlined like
/// [`charge_alloc`]).
#[inline(always)]
pub(crate) fn charge_free<const KIND: usize>(state: u64, bytes: usize) {
    let kind = KIND;
    if busy() {
        return;
    }
    LEDGER.with(|l| {
        let mut c = l.counts[kind].get();
        c.freed = c.freed.wrapping_add(bytes as u64);
        c.live = c.live.wrapping_sub(bytes as i64);
        l.counts[kind].set(c);
        if c.live < l.band[kind].get().0 {
            sample(l, state, kind, c.live);
        }
    });
}

/// Live bytes rose above `rise`: notes a new step high (with the brick
/// running) and takes a counter-track sample when they left the band.
#[cold]
#[inline(never)]
fn rise(l: &Ledger, state: u64, kind: usize, live: i64) {
    if live > l.step_high[kind].get().0 {
        l.step_high[kind].set((live, l.brick.get()));
    }
    if live > l.band[kind].get().1 {
        sample(l, state, kind, live);
    }
    reset_rise(l, kind);
}

/// Sets `rise` to the lower of the step's high and the band's top.
fn reset_rise(l: &Ledger, kind: usize) {
    l.rise[kind].set(l.step_high[kind].get().0.min(l.band[kind].get().1));
}

/// Takes a counter-track sample of `live` and moves the band around it.
#[cold]
#[inline(never)]
fn sample(l: &Ledger, state: u64, kind: usize, live: i64) {
    let width = (live.unsigned_abs() / 8).max(TRACK_GRANULE as u64) as i64;
    l.band[kind].set((live.saturating_sub(width), live.saturating_add(width)));
    reset_rise(l, kind);
    let mut thread = l.thread.get();
    if thread == 0 {
        thread = NEXT_THREAD.fetch_add(1, Relaxed);
        l.thread.set(thread);
    }
    let at = TRACK_LEN.fetch_add(1, Relaxed);
    if let Some(s) = TRACK.get(at) {
        s.ticks
            .store(crate::clock::now(state & RAW_CLOCK != 0), Relaxed);
        s.who.store((u64::from(thread) << 1) | kind as u64, Relaxed);
        s.live.store(live, Relaxed);
    }
}

/// Marks the entry of the brick in `slot` on this thread.
#[cold]
#[inline(never)]
pub(crate) fn enter(slot: u32) {
    LEDGER.with(|l| {
        let depth = l.depth.get() as usize;
        l.depth.set(depth as u32 + 1);
        if depth == 0 {
            flush_outside(l);
        }
        let Some(mark) = l.marks.get(depth) else {
            return;
        };
        let mut at = [Counts::default(); KINDS];
        for (kind, cell) in l.counts.iter().enumerate() {
            let c = cell.get();
            at[kind] = c;
            cell.set(Counts { high: c.live, ..c });
        }
        mark.set(Mark {
            slot,
            parent: l.brick.replace(slot),
            at,
        });
    });
}

/// Closes the mark of the brick in `slot`: charges what changed since its
/// entry to the brick and to its parent's child totals.
#[cold]
#[inline(never)]
pub(crate) fn exit(slot: u32) {
    LEDGER.with(|l| {
        let Some(depth) = (l.depth.get() as usize).checked_sub(1) else {
            return;
        };
        l.depth.set(depth as u32);
        let Some(mark) = l.marks.get(depth).map(Cell::get) else {
            return;
        };
        if mark.slot != slot {
            return;
        }
        l.brick.set(mark.parent);
        for (kind, cell) in l.counts.iter().enumerate() {
            let c = cell.get();
            let at = mark.at[kind];
            let used = c.since(at, c.high);
            cell.set(Counts {
                high: c.high.max(at.high),
                ..c
            });
            if used.allocations != 0 || used.freed != 0 {
                table(kind).add(slot, mark.parent, used);
            }
        }
        if depth == 0 {
            l.outside
                .iter()
                .zip(&l.counts)
                .for_each(|(o, c)| o.set(c.get()));
        }
    });
}

/// Adds what the thread allocated with no brick open since the last flush
/// to its loose counts and, when no layer or phase scope is open, to the
/// process's "outside" totals.
fn flush_outside(l: &Ledger) {
    let generation = state::generation(state::load());
    let fresh = l.generation.replace(generation) == generation;
    let scoped = l.scopes.get() != 0;
    for (((count, outside), loose), out) in
        l.counts.iter().zip(&l.outside).zip(&l.loose).zip(&OUTSIDE)
    {
        let c = count.get();
        let d = c.since(outside.replace(c), 0);
        let was = loose.get();
        loose.set(Counts {
            allocated: was.allocated.wrapping_add(d.allocated),
            allocations: was.allocations.wrapping_add(d.allocations),
            freed: was.freed.wrapping_add(d.freed),
            ..was
        });
        if fresh && !scoped && (d.allocations != 0 || d.freed != 0) {
            out.allocated.fetch_add(d.allocated, Relaxed);
            out.allocations.fetch_add(d.allocations, Relaxed);
            out.freed.fetch_add(d.freed, Relaxed);
        }
    }
}

/// Charges the calling thread's pending "outside" allocations (before a
/// snapshot reads them), unless a brick is open.
pub(crate) fn flush_current() {
    LEDGER.with(|l| {
        if l.depth.get() == 0 {
            flush_outside(l);
        }
    });
}

/// Reads the ledger at a layer or phase scope's edge and restarts the
/// high-water mark there (so a scope's peak counts from its entry): first
/// charges pending allocations made with no brick open to the scopes open
/// until now (or to "outside"), then counts `opened` more open scopes
/// (negative when closing). `restore` is `None` at an entry; at a close it
/// is the high-water mark to merge back in: the one the closing scope saved
/// at entry when it is the innermost scope (bricks around it then see their
/// peak as before), `i64::MIN` (keep the mark) otherwise.
pub(crate) fn scope_edge(opened: i32, restore: Option<[i64; KINDS]>) -> Level {
    LEDGER.with(|l| {
        if l.depth.get() == 0 {
            flush_outside(l);
        }
        l.scopes.set(l.scopes.get().saturating_add_signed(opened));
        let counts = l.counts.each_ref().map(Cell::get);
        for (kind, (cell, c)) in l.counts.iter().zip(counts).enumerate() {
            let high = restore.map_or(c.live, |saved| c.high.max(saved[kind]));
            cell.set(Counts { high, ..c });
        }
        Level {
            counts,
            loose: l.loose.each_ref().map(Cell::get),
            high: counts.map(|c| c.high),
        }
    })
}

/// Marks the start of a step on this thread.
pub(crate) fn begin_step() {
    LEDGER.with(|l| {
        for (kind, ((count, step), high)) in
            l.counts.iter().zip(&l.step).zip(&l.step_high).enumerate()
        {
            let c = count.get();
            step.set(c);
            high.set((c.live, NO_BRICK));
            reset_rise(l, kind);
        }
    });
}

/// What the thread used of each kind since `begin_step`, with the brick
/// that was innermost when live bytes peaked.
pub(crate) fn end_step() -> [(Used, u32); KINDS] {
    LEDGER.with(|l| {
        std::array::from_fn(|kind| {
            let c = l.counts[kind].get();
            let at = l.step[kind].get();
            let (high, brick) = l.step_high[kind].get();
            (c.since(at, high), brick)
        })
    })
}

/// Ends the calling thread's step `index`: keeps what it used of each kind
/// that saw any allocation or free.
pub(crate) fn record_step(index: u64) {
    let used = end_step();
    uncharged(|| {
        let mut steps = super::memory::steps();
        for (kind, (used, peak_brick)) in used.into_iter().enumerate() {
            if used.allocations != 0 || used.freed != 0 {
                steps.push(super::memory::StepRecord {
                    index,
                    kind,
                    used,
                    peak_brick,
                });
            }
        }
    });
}
