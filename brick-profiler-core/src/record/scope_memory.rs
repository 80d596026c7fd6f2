//! Memory of layer and phase scopes: each open scope holds a mark of the
//! thread's ledger, taken and closed at the scope's edges (never in the
//! allocator), and what changed in between is added to a process-wide table.
//!
//! A scope's total is everything the thread allocated and freed while it
//! was open, bricks included (as a layer's time is its scope's wall time);
//! its self part is what was allocated with no brick open. Scopes may close
//! in any order; the peak counts from the scope's own entry either way.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::ledger::{self, Level};
use super::memory::{KINDS, Used};
use super::state::{self, MEMORY};
use super::uncharged::uncharged;

/// The scope memory is charged to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum ScopeKey {
    /// A layer context (index and direction packed).
    Layer(u32),
    /// A phase's interned id.
    Phase(u32),
}

/// One scope's totals of one memory kind, summed over its charged entries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ScopeTotals {
    /// Entries that allocated or freed anything.
    pub(crate) calls: u64,
    /// Everything while the scope was open: sums, and the highest peak.
    pub(crate) total: Used,
    /// Bytes allocated with no brick open.
    pub(crate) self_allocated: u64,
    /// Allocations made with no brick open.
    pub(crate) self_allocations: u64,
    /// Bytes freed with no brick open.
    pub(crate) self_freed: u64,
}

/// An open scope's mark of the ledger.
struct ScopeMark {
    token: u64,
    key: ScopeKey,
    generation: u32,
    at: Level,
    /// Highest live bytes seen since entry, as of the last edge.
    high: [i64; KINDS],
    /// The high-water mark the entry interrupted, merged back at close.
    outer: [i64; KINDS],
}

thread_local! {
    /// The thread's open scopes with a mark, oldest first.
    static OPEN: RefCell<Vec<ScopeMark>> = const { RefCell::new(Vec::new()) };
    static NEXT_TOKEN: Cell<u64> = const { Cell::new(1) };
}

/// Every scope's totals, for the reset generation in `generation`.
struct ScopeTable {
    generation: u32,
    rows: BTreeMap<(ScopeKey, usize), ScopeTotals>,
}

static TABLE: Mutex<ScopeTable> = Mutex::new(ScopeTable {
    generation: 0,
    rows: BTreeMap::new(),
});

/// Locks the table, first emptying it when a reset has happened since it
/// was last written (the lock makes the lazy clear safe).
fn table() -> MutexGuard<'static, ScopeTable> {
    let mut t = TABLE.lock().unwrap_or_else(PoisonError::into_inner);
    let generation = state::generation(state::load());
    if t.generation != generation {
        t.generation = generation;
        t.rows.clear();
    }
    t
}

/// Folds the high-water mark `high` into every open scope.
fn fold(open: &mut [ScopeMark], high: [i64; KINDS]) {
    for mark in open {
        for (kept, seen) in mark.high.iter_mut().zip(high) {
            *kept = (*kept).max(seen);
        }
    }
}

/// Opens a mark for the scope `key` on this thread, if memory is tracked
/// and the profiler records; returns the token that closes it.
pub(crate) fn open(key: ScopeKey) -> Option<u64> {
    let state = state::load();
    if !state::is_recording(state) || state & MEMORY == 0 {
        return None;
    }
    OPEN.try_with(|open| {
        let at = ledger::scope_edge(1, None);
        let mut open = open.borrow_mut();
        fold(&mut open, at.high);
        let token = NEXT_TOKEN.with(|t| t.replace(t.get().wrapping_add(1)));
        let mark = ScopeMark {
            token,
            key,
            generation: state::generation(state),
            at,
            high: std::array::from_fn(|kind| at.counts[kind].live),
            outer: at.high,
        };
        uncharged(|| open.push(mark));
        token
    })
    .ok()
}

/// Closes the mark `token` and charges what changed since its entry.
pub(crate) fn close(token: u64) {
    let _ = OPEN.try_with(|open| {
        let mut open = open.borrow_mut();
        let Some(at) = open.iter().rposition(|m| m.token == token) else {
            return;
        };
        let innermost = at + 1 == open.len();
        let restore = if innermost {
            open[at].outer
        } else {
            [i64::MIN; KINDS]
        };
        let now = ledger::scope_edge(-1, Some(restore));
        fold(&mut open, now.high);
        let mark = open.remove(at);
        if let Some(next) = open.get_mut(at) {
            // The next scope now restores what this one interrupted.
            for (kept, saved) in next.outer.iter_mut().zip(mark.outer) {
                *kept = (*kept).max(saved);
            }
        }
        drop(open);
        if mark.generation == state::generation(state::load()) {
            charge(&mark, &now);
        }
    });
}

/// Adds what changed between `mark` and `now` to the table.
fn charge(mark: &ScopeMark, now: &Level) {
    uncharged(|| {
        let mut table = table();
        for kind in 0..KINDS {
            let total = now.counts[kind].since(mark.at.counts[kind], mark.high[kind]);
            if total.allocations == 0 && total.freed == 0 {
                continue;
            }
            let loose = now.loose[kind].since(mark.at.loose[kind], 0);
            let row = table.rows.entry((mark.key, kind)).or_default();
            row.calls += 1;
            row.total.allocated = row.total.allocated.wrapping_add(total.allocated);
            row.total.allocations = row.total.allocations.wrapping_add(total.allocations);
            row.total.freed = row.total.freed.wrapping_add(total.freed);
            row.total.net = row.total.net.wrapping_add(total.net);
            row.total.peak = row.total.peak.max(total.peak);
            row.self_allocated = row.self_allocated.wrapping_add(loose.allocated);
            row.self_allocations = row.self_allocations.wrapping_add(loose.allocations);
            row.self_freed = row.self_freed.wrapping_add(loose.freed);
        }
    });
}

/// Every scope's totals of the current generation: `(key, kind, totals)`.
pub(crate) fn read() -> Vec<(ScopeKey, usize, ScopeTotals)> {
    uncharged(|| {
        table()
            .rows
            .iter()
            .map(|(&(key, kind), &totals)| (key, kind, totals))
            .collect()
    })
}
