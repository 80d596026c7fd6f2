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

/// One thread's `#[trace_op]` entries. The lock is only ever contended by a
/// snapshot; `#[trace_op]` allocates shapes anyway, so this is not the
/// zero-cost path that `#[brick]` is.
#[derive(Default)]
pub(crate) struct EntryStore {
    pub(crate) entries: Mutex<Vec<RecordedTraceEntry>>,
    pub(crate) dropped: AtomicU64,
}

impl EntryStore {
    /// Keeps `entry`, or counts it as dropped when the store is full.
    pub(crate) fn push(&self, entry: RecordedTraceEntry) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() < ENTRY_CAPACITY.load(Relaxed) {
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

    /// Forgets every entry and the drop count.
    pub(crate) fn clear(&self) {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        self.dropped.store(0, Relaxed);
    }
}
