//! `#[trace_op]` entries of one thread, bounded: entries beyond the
//! capacity are dropped and counted, never silently lost.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, PoisonError};

use crate::counter::bump;
use crate::profile::RecordedTraceEntry;

/// Default bound of a thread's `#[trace_op]` entries.
pub const DEFAULT_TRACE_ENTRY_CAPACITY: usize = 100_000;
static ENTRY_CAPACITY: AtomicUsize = AtomicUsize::new(DEFAULT_TRACE_ENTRY_CAPACITY);

/// Sets how many `#[trace_op]` entries each thread keeps; later entries are
/// dropped and counted.
pub(crate) fn set_capacity(entries: usize) {
    ENTRY_CAPACITY.store(entries, Relaxed);
}

/// Default process-wide bound of `#[trace_op]` entries (live and exited
/// threads together).
pub const DEFAULT_PROCESS_ENTRY_CAPACITY: usize = 1_000_000;
static PROCESS_CAPACITY: AtomicUsize = AtomicUsize::new(DEFAULT_PROCESS_ENTRY_CAPACITY);
/// Entries the process holds.
static HELD: AtomicUsize = AtomicUsize::new(0);

/// Sets the process-wide bound of `#[trace_op]` entries.
pub(crate) fn set_process_capacity(entries: usize) {
    PROCESS_CAPACITY.store(entries, Relaxed);
}

/// Returns `n` entries to the process budget.
pub(crate) fn release(n: usize) {
    let _ = HELD.fetch_update(Relaxed, Relaxed, |held| Some(held.saturating_sub(n)));
}

/// One thread's `#[trace_op]` entries. The lock is only ever contended by a
/// snapshot; `#[trace_op]` allocates shapes anyway, so this is not the
/// zero-cost path that `#[brick]` is.
#[derive(Default)]
pub(crate) struct EntryStore {
    pub(crate) entries: Mutex<Vec<RecordedTraceEntry>>,
    pub(crate) dropped: AtomicU64,
}

impl EntryStore {
    /// Keeps `entry`, or counts it as dropped when the thread's store or
    /// the process budget is full.
    pub(crate) fn push(&self, entry: RecordedTraceEntry) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let cap = PROCESS_CAPACITY.load(Relaxed);
        let room = entries.len() < ENTRY_CAPACITY.load(Relaxed)
            && HELD
                .fetch_update(Relaxed, Relaxed, |held| (held < cap).then_some(held + 1))
                .is_ok();
        if room {
            entries.push(entry);
        } else {
            drop(entries);
            bump(&self.dropped, 1);
        }
    }

    /// Entries kept.
    pub(crate) fn len(&self) -> usize {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Forgets every entry and the drop count, returning the entries'
    /// share of the process budget.
    pub(crate) fn clear(&self) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        release(entries.len());
        entries.clear();
        self.dropped.store(0, Relaxed);
    }
}
