//! Device memory: what a GPU allocator reports on each allocation and free,
//! charged like host memory under its own kind.

use crate::record::ledger::{charge_alloc, charge_free};
use crate::record::memory::DEVICE;
use crate::record::state;

/// Charges a device allocation of `bytes` to the brick running on the
/// calling thread (a no-op while the profiler is disabled).
pub fn record_device_alloc(bytes: usize) {
    let state = state::load();
    if state::is_recording(state) {
        charge_alloc::<DEVICE>(state, bytes);
    }
}

/// Charges a device free of `bytes` to the brick running on the calling
/// thread, whichever brick allocated the block.
pub fn record_device_free(bytes: usize) {
    let state = state::load();
    if state::is_recording(state) {
        charge_free::<DEVICE>(state, bytes);
    }
}

/// What a device allocator (cudarc's, or a caching allocator) calls so its
/// memory shows per brick. Implement nothing: the provided methods charge
/// the calling thread; call them from the allocator's own alloc and free.
///
/// ```
/// use profiler_core::alloc::DeviceMemory;
///
/// struct Pool;
/// impl DeviceMemory for Pool {}
///
/// let pool = Pool;
/// pool.charge_alloc(1 << 20); // after a successful device allocation
/// pool.charge_free(1 << 20); // when the block goes back
/// ```
pub trait DeviceMemory {
    /// Charges a device allocation of `bytes`.
    fn charge_alloc(&self, bytes: usize) {
        record_device_alloc(bytes);
    }

    /// Charges a device free of `bytes`.
    fn charge_free(&self, bytes: usize) {
        record_device_free(bytes);
    }
}
