//! The hardware model: [`Hardware`], compute ceilings per [`Precision`] and
//! bandwidth ceilings per [`MemoryLevel`], each a [`Figure`] carrying its
//! [`Source`]. It is built from the one preset table ([`DEVICES`]), a TOML or
//! JSON file, `PROFILER_*` settings, a profile's recorded hardware or the
//! probes of this machine ([`probe`]); the scorecard's [`HardwareSpec`] and
//! the roofline's `KernelRoofline` are views of it.

mod env;
mod error;
mod file;
mod measured;
#[cfg(test)]
pub(crate) use measured::sample_measured;
mod model;
mod presets;
pub mod probe;
mod saved;
mod source;
mod spec;
mod units;

pub use env::{ENV_BYTES_PER_TOKEN, ENV_HARDWARE, ENV_HARDWARE_FILE, ENV_PEAK_BW, ENV_PEAK_TFLOPS};
pub use error::HardwareError;
pub use file::FileFormat;
pub use model::{Hardware, MAX_BYTES_PER_TOKEN, MAX_CACHE_BYTES};
pub use presets::{DEVICES, DeviceSpec};
pub use saved::{SAVED_DIR, saved_ceilings_path, saved_file_name};
pub use source::{Figure, Source};
pub use spec::{DEFAULT_BYTES_PER_TOKEN, HardwareSpec};
pub(crate) use units::ceiling_problem;
pub use units::{Bound, MAX_BANDWIDTH_GB_S, MAX_TFLOPS, MemoryLevel, Precision, UnitError};
