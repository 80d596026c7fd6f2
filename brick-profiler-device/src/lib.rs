//! Device timers for the brick profiler: CUDA events through cudarc
//! (feature `cuda`) and GPU timestamp queries through wgpu (feature `wgpu`),
//! each a `profiler_core::sync::DeviceTimer` that `finalize` reads.
//!
//! Install one with `profiler::Config::new().device_timer(timer)` and keep
//! the default deferred sync mode: bricks then record device events, and
//! `profiler::sync::finalize` (after the device sync) attributes each
//! brick's device time. The event bookkeeping that needs no GPU lives in
//! [`pool`], behind a small trait, so other event APIs can reuse it.
//!
//! Both timers also place each brick's device start on the profiler's host
//! clock (`DeviceTimer::host_time_ns`) through an anchor, a point known on
//! both clocks, taken when the device is idle and again about once a
//! second ([`REANCHOR_NS`]); the trace then draws the kernel where it ran.

mod anchor;
pub mod attribution;
mod error;
pub mod pool;
mod pool_stats;

#[cfg(feature = "cuda")]
pub mod cuda;
#[cfg(feature = "cupti")]
pub mod cupti;
#[cfg(feature = "cuda")]
pub mod nvtx;
#[cfg(feature = "wgpu")]
pub mod wgpu;

pub use anchor::REANCHOR_NS;
pub use error::DeviceError;
