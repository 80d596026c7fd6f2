//! The calling thread's "profiler at work" flag: allocations the profiler
//! makes for itself (interning a name, a slab's first chunk, a thread's
//! registration) are not charged to the user's bricks.

use std::cell::Cell;

thread_local! {
    /// Destructor-free, so the allocator can read it during thread exit.
    static BUSY: Cell<bool> = const { Cell::new(false) };
}

/// Whether the profiler is allocating for itself on this thread.
#[inline(always)]
pub(crate) fn busy() -> bool {
    BUSY.with(Cell::get)
}

/// Runs `f` with the calling thread's allocations left uncharged.
pub(crate) fn uncharged<R>(f: impl FnOnce() -> R) -> R {
    let was = BUSY.with(|b| b.replace(true));
    let out = f();
    BUSY.with(|b| b.set(was));
    out
}
