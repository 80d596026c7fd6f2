//! Per-thread attribution of brick time to layers: a lock-free table keyed
//! by (layer context, brick slot). The owner inserts without locks;
//! snapshots read it concurrently. A layer context packs the layer index
//! and its [`Direction`] into one word.

use std::sync::Mutex;
use std::sync::atomic::{
    AtomicPtr, AtomicU64, AtomicUsize, Ordering::Acquire, Ordering::Relaxed, Ordering::Release,
};

use crate::counter::bump;
use crate::profile::Direction;

/// Key under which a layer scope's own wall time is stored.
pub(crate) const SCOPE_SLOT: u32 = u32::MAX;
/// Context under which the time of bricks called inside another brick is
/// kept, keyed by the enclosing (parent) brick's slot. No layer context
/// packs to it (the largest is `u32::MAX - 2`).
pub(crate) const CHILDREN_CTX: u32 = u32::MAX - 1;

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
        let new = super::uncharged::uncharged(|| Table::with_capacity(old.entries.len() * 2));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_packing_round_trips() {
        for (i, d) in [
            (0, Direction::Forward),
            (7, Direction::Backward),
            (crate::profile::MAX_LAYER_INDEX, Direction::Backward),
        ] {
            assert_eq!(unpack(pack(i, d)), (i, d));
            assert_ne!(pack(i, d), crate::record::amounts::NO_LAYER);
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
