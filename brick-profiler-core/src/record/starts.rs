//! Device starts of one thread's timeline events: a side table beside the
//! event buffer, keyed by an event's position in it, so the buffer's
//! 48-byte events and the hot path stay as they are.
//!
//! `finalize` fills it when a brick's device events resolve to a host time
//! (a cold path, hence the lock); a snapshot reads it with the buffer.

use std::sync::{Mutex, PoisonError};

/// `(position, device start in ticks)`: the position of an event in the
/// thread's buffer, or, once read out, in the events read; ascending.
pub(crate) type Mark = (usize, u64);

/// One thread's device starts. At most one entry per event the buffer
/// kept, so the buffer's bounds bound it too.
#[derive(Debug, Default)]
pub(crate) struct DeviceStarts {
    marks: Mutex<Vec<Mark>>,
}

impl DeviceStarts {
    /// Notes that the event at `position` started on the device at `ticks`.
    /// Owner only, after the event was pushed.
    pub(crate) fn push(&self, position: usize, ticks: u64) {
        self.lock().push((position, ticks));
    }

    /// The marks so far, by position. Any thread.
    pub(crate) fn read(&self) -> Vec<Mark> {
        self.lock().clone()
    }

    /// Forgets every mark (with the buffer, on reset). Owner only.
    pub(crate) fn clear(&self) {
        self.lock().clear();
    }

    // Each update is one push or clear, so a poisoned lock is consistent.
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Mark>> {
        self.marks.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_keep_their_order_and_clear_with_the_buffer() {
        let starts = DeviceStarts::default();
        starts.push(3, 30);
        starts.push(7, 70);
        assert_eq!(starts.read(), [(3, 30), (7, 70)]);
        starts.clear();
        assert!(starts.read().is_empty());
    }
}
