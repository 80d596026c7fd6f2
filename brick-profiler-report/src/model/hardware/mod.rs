//! Building the hardware model, [`profiler_core::hardware::Hardware`]: from
//! the one preset table ([`DEVICES`], by name with [`preset`]), a TOML or
//! JSON file ([`from_file`]), `PROFILER_*` settings ([`from_vars`]), a
//! profile's recorded hardware ([`recorded`]) or the probes of this machine
//! ([`measure`], with [`probe::ProbeOptions`]); [`resolve`] takes a name or
//! a file, as `--hardware` does.

mod bound;
mod env;
mod error;
mod file;
mod measured;
#[cfg(test)]
pub(crate) use measured::sample_measured;
mod presets;
pub mod probe;
mod saved;

pub use bound::Bound;
pub(crate) use env::from_env;
pub use env::{
    DEFAULT_BYTES_PER_TOKEN, ENV_BYTES_PER_TOKEN, ENV_HARDWARE, ENV_HARDWARE_FILE, ENV_PEAK_BW,
    ENV_PEAK_TFLOPS, from_vars, recorded,
};
pub use error::HardwareError;
pub use file::{FileFormat, from_file, from_text, resolve, to_toml};
pub use measured::measure;
pub use presets::{DEVICES, DeviceSpec, preset};
/// Hardware with the given compute (TFLOP/s) and bandwidth (GB/s)
/// ceilings, each [`Source::Given`](profiler_core::hardware::Source), for
/// the tests of what judges against it.
#[cfg(test)]
pub(crate) fn given(
    name: &str,
    compute: &[(profiler_core::hardware::Precision, f64)],
    memory: &[(profiler_core::hardware::MemoryLevel, f64)],
) -> profiler_core::hardware::Hardware {
    use profiler_core::hardware::{Figure, Hardware, Source};
    let mut hw = Hardware::new(name);
    for (p, v) in compute {
        hw.set_compute(*p, Figure::new(*v, Source::Given)).unwrap();
    }
    for (l, v) in memory {
        hw.set_memory(*l, Figure::new(*v, Source::Given)).unwrap();
    }
    hw
}

pub use saved::{SAVED_DIR, load_saved, save_measured, saved_ceilings_path, saved_file_name};
