//! Kernel attribution: each device activity (kernel, memcpy, memset) tied,
//! by its launch call's correlation id, to the bricks, layer, phase and
//! step open on the launching thread; device time per brick (self and
//! total), kernels per brick, launch-to-start gaps and device idle time per
//! brick and per step, and the activities outside every brick, counted
//! apart, as the profile's `DeviceKernels`. Needs no GPU: the CUPTI
//! capture (feature `cupti`) feeds it.
//!
//! ```
//! use profiler_core::kernel::{BrickPath, LaunchContext};
//! use profiler_core::profile::ActivityKind;
//! use profiler_device::attribution::{Activity, Attributor, Launch};
//! let mut attribution = Attributor::new();
//! let context = LaunchContext { bricks: BrickPath::innermost_first(&[7]), ..LaunchContext::default() };
//! attribution.launch(Launch { correlation: 1, api_ns: 100, context });
//! attribution.activity(Activity {
//!     kind: ActivityKind::Kernel, name: "gemm".into(), start_ns: 110, end_ns: 150,
//!     device: 0, stream: 7, correlation: 1, runtime_correlation: None, grid: [4, 1, 1], block: [128, 1, 1],
//!     registers: 32, shared_bytes: 0, bytes: 0,
//! });
//! let summary = attribution.summarize_with(|slot| format!("brick {slot}"));
//! assert_eq!(summary.brick("brick 7").map(|b| b.self_ns), Some(40));
//! ```

mod attribute;
mod records;
mod retention;
mod summary;

pub use attribute::{Attributed, Attributor};
pub use records::{Activity, Launch};
pub use retention::Retention;

#[cfg(test)]
mod tests;
