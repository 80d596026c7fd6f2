//! The calling thread's queue of deferred records (records waiting for
//! `finalize`): owner-local and bounded, so a brick in deferred mode never
//! takes a lock and a forgotten `finalize` cannot grow memory without end.

use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use super::amounts::Amounts;
use super::device::DeviceEvent;

/// One record waiting for `finalize`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pending {
    pub(crate) slot: u32,
    /// Start in the deferred time base (ns since the epoch).
    pub(crate) start_ns: u64,
    pub(crate) amounts: Amounts,
    /// Layer context when the call started.
    pub(crate) layer: u32,
    /// Device events at start and end, when a device timer recorded them.
    pub(crate) device: Option<(DeviceEvent, DeviceEvent)>,
}

/// Default bound of a thread's pending queue.
pub const DEFAULT_PENDING_CAPACITY: usize = 65_536;
static CAPACITY: AtomicUsize = AtomicUsize::new(DEFAULT_PENDING_CAPACITY);

/// Sets the most deferred records a thread may hold (at least one).
pub(crate) fn set_capacity(records: usize) {
    CAPACITY.store(records.max(1), Relaxed);
}

thread_local! {
    static QUEUE: RefCell<Vec<Pending>> = const { RefCell::new(Vec::new()) };
}

/// Queues `pending`; returns the new queue length, or `None` when the queue
/// is full or the thread is tearing down (the caller counts the overflow).
pub(crate) fn try_push(pending: Pending) -> Option<usize> {
    QUEUE
        .try_with(|q| {
            let mut q = q.borrow_mut();
            (q.len() < CAPACITY.load(Relaxed)).then(|| {
                q.push(pending);
                q.len()
            })
        })
        .ok()
        .flatten()
}

/// Hands every queued record to `f`, oldest first. The queue is not
/// borrowed while `f` runs (it may queue records itself), and its
/// allocation is reused afterwards.
pub(crate) fn drain(mut f: impl FnMut(Pending)) {
    let mut taken = QUEUE
        .try_with(|q| std::mem::take(&mut *q.borrow_mut()))
        .unwrap_or_default();
    for pending in taken.drain(..) {
        f(pending);
    }
    let _ = QUEUE.try_with(|q| {
        let mut q = q.borrow_mut();
        if q.is_empty() {
            *q = taken;
        }
    });
}

/// Records queued on the calling thread.
pub(crate) fn len() -> usize {
    QUEUE.try_with(|q| q.borrow().len()).unwrap_or(0)
}

/// Drops the calling thread's queued records (on reset).
pub(crate) fn clear_local() {
    let _ = QUEUE.try_with(|q| q.borrow_mut().clear());
}
