//! Memory attribution: a global allocator wrapper that charges every
//! allocation to the brick running on the thread, and the calls a device
//! allocator makes to have its memory charged the same way.
//!
//! Install [`Tracking`] as the `#[global_allocator]`; each brick then shows
//! the bytes and allocations it made, the bytes it freed, its peak live
//! bytes from its entry and what was still live when it returned (totals
//! include the bricks called inside, `self_*` leave them out, as for time).
//! What runs with no brick open goes to the enclosing layer scope and phase
//! (whose totals also include their bricks, as their times do), else to
//! "outside". Steps record their peak and the brick that reached it, and
//! live bytes are sampled as a counter track. All of it lands in
//! `Profile::memory`.
//! Without the allocator installed nothing changes.

mod device;
mod tracking;

pub use crate::profile::memory::{
    BrickMemory, LayerMemory, MemoryKind, MemoryProfile, MemorySample, OutsideMemory, PhaseMemory,
    ScopeMemory, StepMemory,
};
pub use device::{DeviceMemory, record_device_alloc, record_device_free};
pub use tracking::Tracking;
