//! Layer scopes and per-layer attribution of brick time.
//!
//! A [`LayerGuard`] sets the calling thread's layer context (index and
//! [`Direction`]); bricks that finish inside it add their time to a per-thread
//! table keyed by (layer, direction, brick). The table is open-addressed
//! atomics: the owner inserts without locks, snapshots read it concurrently.
//! The scope's own wall time is stored in the same table under a reserved key.

use std::cell::{Cell, RefCell};
use std::marker::PhantomData;
use std::sync::Mutex;
use std::sync::atomic::{
    AtomicPtr, AtomicU64, AtomicUsize, Ordering::Acquire, Ordering::Relaxed, Ordering::Release,
};

use serde::{Deserialize, Serialize};

use crate::record::IntoLayerIndex;
use crate::slab::bump;

/// Layer context meaning "not inside a layer".
pub(crate) const NO_LAYER: u32 = u32::MAX;
/// Key under which a layer scope's own wall time is stored.
pub(crate) const SCOPE_SLOT: u32 = u32::MAX;

/// Whether a layer scope runs the forward or the backward pass.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Forward pass.
    #[default]
    Forward,
    /// Backward pass.
    Backward,
}

impl Direction {
    /// `"fwd"` or `"bwd"`.
    #[must_use]
    pub const fn short_name(self) -> &'static str {
        match self {
            Self::Forward => "fwd",
            Self::Backward => "bwd",
        }
    }
}

/// Packs a layer index and direction into a context word.
#[inline]
pub(crate) const fn pack(index: u32, direction: Direction) -> u32 {
    (index << 1) | direction as u32
}

/// Splits a context word into index and direction.
#[inline]
pub(crate) const fn unpack(ctx: u32) -> (u32, Direction) {
    let direction = if ctx & 1 == 0 {
        Direction::Forward
    } else {
        Direction::Backward
    };
    (ctx >> 1, direction)
}

/// Largest layer index a scope can carry (the context packs index and direction).
pub const MAX_LAYER_INDEX: u32 = (u32::MAX >> 1) - 1;

struct Entry {
    /// `(ctx << 32 | slot) + 1`; 0 marks an empty entry.
    key: AtomicU64,
    count: AtomicU64,
    ticks: AtomicU64,
}

struct Table {
    entries: Box<[Entry]>,
    len: AtomicUsize,
}

impl Table {
    fn with_capacity(capacity: usize) -> Box<Self> {
        let entries = (0..capacity)
            .map(|_| Entry {
                key: AtomicU64::new(0),
                count: AtomicU64::new(0),
                ticks: AtomicU64::new(0),
            })
            .collect();
        Box::new(Table {
            entries,
            len: AtomicUsize::new(0),
        })
    }

    /// Finds the entry for `key`, or the empty entry where it belongs.
    #[inline]
    fn probe(&self, key: u64) -> &Entry {
        let mask = self.entries.len() - 1;
        // Fibonacci hashing spreads the packed (ctx, slot) keys well.
        let mut i = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & mask;
        loop {
            let entry = &self.entries[i];
            let k = entry.key.load(Relaxed);
            if k == key || k == 0 {
                return entry;
            }
            i = (i + 1) & mask;
        }
    }
}

/// One thread's (layer, direction, brick) -> (count, ticks) table.
pub(crate) struct LayerTable {
    table: AtomicPtr<Table>,
    /// Tables replaced by growth; readers may still hold them, so they are
    /// freed with the slab.
    #[allow(
        clippy::vec_box,
        reason = "readers hold raw pointers: tables must never move"
    )]
    replaced: Mutex<Vec<Box<Table>>>,
}

const INITIAL_CAPACITY: usize = 64;

impl LayerTable {
    pub(crate) fn new() -> Self {
        Self {
            table: AtomicPtr::new(Box::into_raw(Table::with_capacity(INITIAL_CAPACITY))),
            replaced: Mutex::new(Vec::new()),
        }
    }

    fn current(&self) -> &Table {
        // SAFETY: the pointer is always a live `Box<Table>`: replaced tables
        // are kept in `replaced` and everything is freed only in `Drop`.
        unsafe { &*self.table.load(Acquire) }
    }

    /// Adds one sample of `ticks` to (`ctx`, `slot`). Owner only.
    #[inline]
    pub(crate) fn add(&self, ctx: u32, slot: u32, ticks: u64) {
        let key = ((u64::from(ctx) << 32) | u64::from(slot)) + 1;
        let mut table = self.current();
        let mut entry = table.probe(key);
        if entry.key.load(Relaxed) == 0 {
            if (table.len.load(Relaxed) + 1) * 2 > table.entries.len() {
                self.grow();
                table = self.current();
                entry = table.probe(key);
            }
            // The key goes in before the counts: a reader that sees it early
            // reads zero counts, which adds nothing.
            entry.key.store(key, Release);
            table.len.store(table.len.load(Relaxed) + 1, Relaxed);
        }
        bump(&entry.count, 1);
        bump(&entry.ticks, ticks);
    }

    #[cold]
    #[inline(never)]
    fn grow(&self) {
        let old = self.current();
        let new = Table::with_capacity(old.entries.len() * 2);
        for e in old.entries.iter() {
            let key = e.key.load(Relaxed);
            if key != 0 {
                let slot = new.probe(key);
                slot.count.store(e.count.load(Relaxed), Relaxed);
                slot.ticks.store(e.ticks.load(Relaxed), Relaxed);
                slot.key.store(key, Relaxed);
            }
        }
        new.len.store(old.len.load(Relaxed), Relaxed);
        let old_ptr = self.table.swap(Box::into_raw(new), Release);
        // SAFETY: `old_ptr` was the live table, created by `Box::into_raw`;
        // it moves into `replaced` and stays allocated until `Drop`.
        let old_box = unsafe { Box::from_raw(old_ptr) };
        self.replaced
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(old_box);
    }

    /// Calls `f(ctx, slot, count, ticks)` for every entry. Any thread.
    pub(crate) fn for_each(&self, mut f: impl FnMut(u32, u32, u64, u64)) {
        for e in self.current().entries.iter() {
            let key = e.key.load(Acquire);
            if key != 0 {
                let key = key - 1;
                f(
                    (key >> 32) as u32,
                    key as u32,
                    e.count.load(Relaxed),
                    e.ticks.load(Relaxed),
                );
            }
        }
    }

    /// Empties the table. Owner only.
    pub(crate) fn clear(&self) {
        let table = self.current();
        for e in table.entries.iter() {
            e.key.store(0, Relaxed);
            e.count.store(0, Relaxed);
            e.ticks.store(0, Relaxed);
        }
        table.len.store(0, Relaxed);
    }
}

impl Drop for LayerTable {
    fn drop(&mut self) {
        // SAFETY: created by `Box::into_raw`; `&mut self` means no readers.
        drop(unsafe { Box::from_raw(self.table.load(Relaxed)) });
    }
}

/// Open layer scope; attributes bricks on this thread to the layer until dropped.
///
/// Created by [`layer`]. Dropping it records the scope's wall time, runs the
/// sync hook first in [`SyncMode::PerLayer`](crate::SyncMode::PerLayer), and
/// makes the innermost scope still open the current one again. Guards may
/// drop in any order (`g = layer(i, ..)` in a loop is fine); they belong to
/// the thread that opened them, hence `!Send`.
#[must_use = "the layer scope ends when the guard is dropped"]
#[derive(Debug)]
pub struct LayerGuard {
    ctx: u32,
    token: u64,
    start: Option<crate::scope::ScopeStart>,
    _thread_bound: PhantomData<*const ()>,
}

thread_local! {
    /// Open layer scopes of this thread, innermost last: (token, context).
    static OPEN: RefCell<Vec<(u64, u32)>> = const { RefCell::new(Vec::new()) };
    static NEXT_TOKEN: Cell<u64> = const { Cell::new(0) };
}

/// Makes the innermost open scope (or none) the thread's layer context.
fn restore_innermost(open: &[(u64, u32)]) {
    crate::slab::swap_layer(open.last().map_or(NO_LAYER, |&(_, ctx)| ctx));
}

/// Opens a layer scope: bricks on this thread finishing before the guard
/// drops count towards layer `index` in `direction`.
///
/// `index` is any unsigned integer (`usize` loop indices work as-is);
/// indices above [`MAX_LAYER_INDEX`] are clamped to it.
///
/// ```
/// # use profiler_core as profiler;
/// use profiler::{layer, Direction};
/// for i in 0..4 {
///     let _layer = layer(i, Direction::Forward);
///     // attention, MLP, ... of layer i
/// }
/// ```
pub fn layer(index: impl IntoLayerIndex, direction: Direction) -> LayerGuard {
    let ctx = pack(index.into_layer_index(), direction);
    let token = NEXT_TOKEN.with(|t| t.replace(t.get().wrapping_add(1)));
    let _ = OPEN.try_with(|open| open.borrow_mut().push((token, ctx)));
    crate::slab::swap_layer(ctx);
    LayerGuard {
        ctx,
        token,
        start: crate::scope::ScopeStart::now(),
        _thread_bound: PhantomData,
    }
}

/// Runs `f` inside a layer scope and returns its result.
pub fn in_layer<R>(index: impl IntoLayerIndex, direction: Direction, f: impl FnOnce() -> R) -> R {
    let _guard = layer(index, direction);
    f()
}

impl Drop for LayerGuard {
    fn drop(&mut self) {
        if let Some(start) = self.start.take() {
            if crate::sync::sync_mode() == crate::SyncMode::PerLayer {
                crate::sync::run_sync_hook();
            }
            let ctx = self.ctx;
            start.finish(
                crate::timeline::EventKind::Layer,
                u64::from(ctx),
                |slab, ticks| {
                    slab.layers.add(ctx, SCOPE_SLOT, ticks);
                },
            );
        }
        let token = self.token;
        let _ = OPEN.try_with(|open| {
            let mut open = open.borrow_mut();
            if let Some(at) = open.iter().rposition(|&(t, _)| t == token) {
                open.remove(at);
            }
            restore_innermost(&open);
        });
    }
}

/// Aggregated time of one layer in one direction, as reported in a
/// [`Profile`](crate::Profile).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayerStats {
    /// Layer index.
    pub index: u32,
    /// Forward or backward.
    pub direction: Direction,
    /// Times the scope was entered.
    pub scope_count: u64,
    /// Wall time spent inside the scope.
    pub scope_ns: u64,
    /// Bricks that ran inside the layer, by total time descending.
    pub ops: Vec<LayerOp>,
}

impl LayerStats {
    /// The layer's time: the scope's wall time, or the sum of its bricks when
    /// it was only attributed through `#[brick(..., layer = i)]`.
    #[must_use]
    pub fn total_ns(&self) -> u64 {
        if self.scope_count > 0 {
            self.scope_ns
        } else {
            self.ops
                .iter()
                .fold(0u64, |acc, o| acc.saturating_add(o.total_ns))
        }
    }
}

/// Time one brick spent inside one layer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayerOp {
    /// Brick name.
    pub name: String,
    /// Calls inside the layer.
    pub count: u64,
    /// Total time inside the layer.
    pub total_ns: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_packing_round_trips() {
        for (i, d) in [
            (0, Direction::Forward),
            (7, Direction::Backward),
            (MAX_LAYER_INDEX, Direction::Backward),
        ] {
            assert_eq!(unpack(pack(i, d)), (i, d));
            assert_ne!(pack(i, d), NO_LAYER);
        }
    }

    #[test]
    fn table_accumulates_and_survives_growth() {
        let t = LayerTable::new();
        for layer in 0..200u32 {
            for slot in [0u32, 5, SCOPE_SLOT] {
                t.add(pack(layer, Direction::Backward), slot, 10);
                t.add(pack(layer, Direction::Backward), slot, 5);
            }
        }
        let mut seen = 0;
        t.for_each(|ctx, slot, count, ticks| {
            let (layer, dir) = unpack(ctx);
            assert!(layer < 200 && dir == Direction::Backward);
            assert!(slot == 0 || slot == 5 || slot == SCOPE_SLOT);
            assert_eq!((count, ticks), (2, 15));
            seen += 1;
        });
        assert_eq!(seen, 600);
        t.clear();
        let mut after = 0;
        t.for_each(|_, _, _, _| after += 1);
        assert_eq!(after, 0);
    }
}
