//! Hardware ceilings: the memory-bound [`HardwareSpec`] the scorecard grades
//! against, a table of known devices ([`DeviceSpec`], [`DEVICES`]) for
//! roofline and MFU, and [`HardwareConfig`], which resolves both from
//! settings (`PROFILER_*` variables given through a lookup function), a JSON
//! file or a profile's recorded hardware.

mod config;
mod devices;
mod spec;

pub use config::{
    ENV_BYTES_PER_TOKEN, ENV_HARDWARE, ENV_HARDWARE_FILE, ENV_PEAK_BW, ENV_PEAK_TFLOPS,
    HardwareConfig, HardwareError,
};
pub use devices::{DEVICES, DeviceSpec};
pub use spec::{DEFAULT_BYTES_PER_TOKEN, HardwareSpec};
