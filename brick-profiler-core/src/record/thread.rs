//! Per-thread registration: each recording thread's [`ThreadSlab`] lives in
//! a global registry behind `Arc`, found on the hot path through one
//! destructor-free thread-local. When a thread exits, its slab is folded
//! into the exited threads' totals and freed, so counts survive and memory
//! does not grow with thread churn.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed, Ordering::Release};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::amounts::NO_LAYER;
use super::slab::ThreadSlab;
use super::state;
use super::totals::Totals;
use super::{entries, events};
use crate::counter::bump;

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
            self.clear_exited();
            self.exited_generation = generation;
        }
        &mut self.exited
    }

    /// Forgets the exited threads' totals, returning what they held to the
    /// process budgets.
    pub(crate) fn clear_exited(&mut self) {
        let (events, entries) = self.exited.held();
        events::release(events);
        entries::release(entries);
        self.exited = Totals::EMPTY;
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

/// Reads every slab of the current generation plus the exited threads'
/// totals. Only what is needed to find the slabs is copied under the
/// registry lock (the generation, the exited totals, the live slabs'
/// `Arc`s), so threads starting meanwhile never wait for the whole read.
///
/// A slab read here cannot also be counted in the exited totals: a thread
/// that exits after the copy folds into the registry's totals, not into
/// this copy, and its slab stays readable through the `Arc` held here.
pub(crate) fn collect() -> Totals {
    let (generation, mut totals, live) = {
        let mut registry = registry();
        // Under the lock, so a concurrent reset cannot slip between the
        // generation and the exited totals it selects.
        let generation = state::generation(state::load());
        let exited = registry.exited(generation).clone();
        let live: Vec<Arc<ThreadSlab>> = registry
            .live
            .iter()
            .filter(|s| !s.internal)
            .cloned()
            .collect();
        (generation, exited, live)
    };
    for slab in &live {
        totals.add_slab(slab, generation);
    }
    totals
}

/// Per-thread fast-access state: no destructor, so reading it never checks
/// whether the thread is being torn down.
struct Fast {
    slab: Cell<*const ThreadSlab>,
    /// Current layer context (`NO_LAYER` outside layer scopes).
    layer: Cell<u32>,
    /// Slot of the innermost brick open on this thread (`NO_BRICK` when none).
    brick: Cell<u32>,
    /// How many nested bricks are open on this thread.
    depth: Cell<u32>,
    /// The open bricks, outermost first, as deep as [`PATH_DEPTH`]: what a
    /// device launch made now was launched under (read by
    /// [`open_bricks`], written by two stores per call).
    path: [Cell<u32>; PATH_DEPTH],
}

/// How many open bricks [`open_bricks`] can name.
pub(crate) const PATH_DEPTH: usize = 8;

/// No brick is open on the thread.
pub(crate) const NO_BRICK: u32 = u32::MAX;

/// Marks a thread whose slab has been retired (the thread is exiting).
const DEAD: *const ThreadSlab = std::ptr::dangling();

thread_local! {
    static INTERNAL: Cell<bool> = const { Cell::new(false) };
    static FAST: Fast = const {
        Fast {
            slab: Cell::new(std::ptr::null()),
            layer: Cell::new(NO_LAYER),
            brick: Cell::new(NO_BRICK),
            depth: Cell::new(0),
            path: [const { Cell::new(NO_BRICK) }; PATH_DEPTH],
        }
    };
    static OWNER: Owner = Owner::register();
}

/// Keeps the thread's slab registered and retires it when the thread exits.
struct Owner {
    slab: Arc<ThreadSlab>,
}

impl Owner {
    fn register() -> Self {
        let generation = state::generation(state::load());
        let internal = INTERNAL.with(Cell::get);
        let mut registry = registry();
        let slab = Arc::new(ThreadSlab::new(registry.next_thread, generation, internal));
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
        let generation = state::generation(state::load());
        let current = self.slab.generation.load(Relaxed) == generation;
        if !self.slab.internal && current {
            let exited = registry.exited(generation);
            let before = exited.held().0;
            exited.add_slab(&self.slab, generation);
            // The kept events leave the slab's chunks, which its drop
            // returns to the budget; its entries move over as they are.
            events::charge(exited.held().0 - before);
        } else {
            // Nothing is kept: the entries' share of the budget comes back.
            entries::release(self.slab.trace_entries.len());
        }
        registry.live.retain(|s| !Arc::ptr_eq(s, &self.slab));
    }
}

/// Records that reached a thread after its slab was retired (thread-local
/// destructors running late). Rare, so a shared atomic is fine.
pub(crate) static LOST_AT_EXIT: AtomicU64 = AtomicU64::new(0);

/// Runs `f` with the calling thread's slab, brought up to date with the
/// reset generation (`state_word` may be the word read when the call began).
/// Registers the thread on first use. Returns `None` (and counts the loss)
/// when the thread is already tearing down.
#[inline(always)]
pub(crate) fn with_slab<R>(state_word: u64, f: impl FnOnce(&ThreadSlab, u32) -> R) -> Option<R> {
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
    if slab.generation.load(Relaxed) != state::generation(state_word) {
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
    match super::uncharged::uncharged(|| OWNER.try_with(|owner| Arc::as_ptr(&owner.slab))) {
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

/// Makes `slot` the calling thread's innermost open brick, returning the
/// one it is nested in (`NO_BRICK` when none).
#[inline(always)]
pub(crate) fn enter_brick(slot: u32) -> u32 {
    FAST.with(|f| {
        let depth = f.depth.get();
        if let Some(cell) = f.path.get(depth as usize) {
            cell.set(slot);
        }
        f.depth.set(depth.saturating_add(1));
        f.brick.replace(slot)
    })
}

/// Closes the brick `slot` opened over `parent`: the parent is innermost
/// again, unless another brick took over meanwhile (a brick in an async
/// call that moved threads leaves this thread's nesting alone).
#[inline(always)]
pub(crate) fn exit_brick(slot: u32, parent: u32) {
    FAST.with(|f| {
        if f.brick.get() == slot {
            f.brick.set(parent);
            f.depth.set(f.depth.get().saturating_sub(1));
        }
    });
}

/// The bricks open on the calling thread, innermost first: the slots, how
/// many are valid, and whether some were left out (nesting deeper than
/// [`PATH_DEPTH`]: the innermost is kept, the ones just outside it go).
pub(crate) fn open_bricks() -> ([u32; PATH_DEPTH], usize, bool) {
    FAST.with(|f| {
        let depth = f.depth.get() as usize;
        let mut out = [NO_BRICK; PATH_DEPTH];
        if depth == 0 || f.brick.get() == NO_BRICK {
            return (out, 0, false);
        }
        let truncated = depth > PATH_DEPTH;
        // Past the stack's depth only the innermost is known (`brick`);
        // the stack's outer entries follow it.
        let (first, outer) = if truncated {
            out[0] = f.brick.get();
            (1, PATH_DEPTH - 1)
        } else {
            (0, depth)
        };
        for (at, level) in (0..outer).rev().enumerate() {
            out[first + at] = f.path[level].get();
        }
        (out, first + outer, truncated)
    })
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
        let slot = crate::record::site::intern("slab-test-churn", crate::BrickCategory::Other);
        let state = state::ENABLED;
        for _ in 0..64 {
            std::thread::spawn(move || {
                crate::record::guard::record_finished(
                    state,
                    slot,
                    0,
                    10,
                    crate::record::amounts::Amounts::NONE,
                    NO_LAYER,
                );
            })
            .join()
            .expect("thread");
        }
        let registry = registry();
        assert!(
            registry
                .live
                .iter()
                .all(|s| !s.retired.load(std::sync::atomic::Ordering::Acquire)),
            "no exited slab is kept"
        );
        drop(registry);
        let totals = collect();
        assert_eq!(
            totals.slots[slot as usize].time.count, 64,
            "their samples survive"
        );
    }
}
