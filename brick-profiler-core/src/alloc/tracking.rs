//! [`Tracking`]: a global allocator that wraps another and charges each
//! allocation, reallocation and free to the brick running on the thread.

use std::alloc::{GlobalAlloc, Layout};

use crate::record::ledger::{charge_alloc, charge_free};
use crate::record::memory::HOST;
use crate::record::state;

/// Wraps a [`GlobalAlloc`] and charges what it hands out to the innermost
/// brick running on the calling thread (else to the step and "outside").
///
/// ```
/// #[global_allocator]
/// static ALLOC: profiler_core::alloc::Tracking<std::alloc::System> =
///     profiler_core::alloc::Tracking::new(std::alloc::System);
/// # fn main() {}
/// ```
///
/// While the profiler is disabled an allocation costs one relaxed load and
/// two bit tests more than the wrapped allocator. While it records, the charge is a few plain
/// thread-local writes: no lock, no allocation. A reallocation counts as a
/// free of the old size and an allocation of the new one. A free is charged
/// to the brick running when it happens, whichever brick (or thread)
/// allocated the block, so a brick that frees what another allocated shows
/// freed bytes and a negative `retained_bytes`.
#[derive(Debug, Default)]
pub struct Tracking<A> {
    inner: A,
}

impl<A> Tracking<A> {
    /// Wraps `inner`.
    pub const fn new(inner: A) -> Self {
        Self { inner }
    }

    /// The wrapped allocator.
    pub const fn inner(&self) -> &A {
        &self.inner
    }
}

/// Charges an allocation of `bytes` if the profiler is recording.
///
/// The first allocation through the wrapper, recording or not, turns on the
/// memory marks bricks take at entry ([`state::announce_memory`]); `enable`
/// allocates once before recording starts, so no brick call is ever open
/// without its mark (a call entered unmarked would not be charged).
#[inline(always)]
fn on_alloc(bytes: usize) {
    let state = state::load();
    if state & state::MEMORY == 0 {
        state::announce_memory();
    }
    if state::is_recording(state) {
        charge_alloc::<HOST>(state, bytes);
    }
}

/// Charges a free of `bytes` if the profiler is recording.
#[inline(always)]
fn on_free(bytes: usize) {
    let state = state::load();
    if state::is_recording(state) {
        charge_free::<HOST>(state, bytes);
    }
}

// SAFETY: every method forwards to the wrapped allocator with the caller's
// arguments unchanged and returns its result; the charge touches only a
// destructor-free thread-local and never allocates, so it cannot re-enter
// the allocator or unwind.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Tracking<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded under the caller's contract.
        let ptr = unsafe { self.inner.alloc(layout) };
        if !ptr.is_null() {
            on_alloc(layout.size());
        }
        ptr
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded under the caller's contract.
        let ptr = unsafe { self.inner.alloc_zeroed(layout) };
        if !ptr.is_null() {
            on_alloc(layout.size());
        }
        ptr
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded under the caller's contract.
        unsafe { self.inner.dealloc(ptr, layout) };
        on_free(layout.size());
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded under the caller's contract.
        let new = unsafe { self.inner.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            // Free first: a reallocation in place must not look like a peak
            // of both sizes at once.
            on_free(layout.size());
            on_alloc(new_size);
        }
        new
    }
}
