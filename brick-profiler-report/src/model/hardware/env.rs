//! [`Hardware`] from settings: `PROFILER_*` variables looked up through a
//! function (the process environment for `scorecard()`), and the hardware a
//! profile recorded, completed from the preset table.

use profiler_core::hardware::{CeilingError, Figure, Hardware, MemoryLevel, Precision, Source};

use super::error::HardwareError;
use super::file::from_file;
use super::presets::DeviceSpec;

/// Bytes moved per token assumed when none is given: a placeholder (158 MB,
/// a 79M-parameter bf16 model read once per token), not a property of any
/// device. The scorecard then derives the bytes from the bricks' byte
/// annotations when it can, and labels its ceiling a guess when it cannot.
/// Give the real value with `PROFILER_BYTES_PER_TOKEN` or the hardware file.
pub const DEFAULT_BYTES_PER_TOKEN: f64 = 158_000_000.0;

/// Environment variable naming a device or preset (`h100`, `rtx_4060l`, ...).
pub const ENV_HARDWARE: &str = "PROFILER_HARDWARE";
/// Environment variable with the peak memory bandwidth, GB/s.
pub const ENV_PEAK_BW: &str = "PROFILER_PEAK_BW_GB_S";
/// Environment variable with the bytes moved per token.
pub const ENV_BYTES_PER_TOKEN: &str = "PROFILER_BYTES_PER_TOKEN";
/// Environment variable with a dense peak for MFU, TFLOP/s.
pub const ENV_PEAK_TFLOPS: &str = "PROFILER_PEAK_TFLOPS";
/// Environment variable with the path of a hardware file (TOML or JSON).
pub const ENV_HARDWARE_FILE: &str = "PROFILER_HARDWARE_FILE";

/// Resolves hardware from the process environment: only
/// `profiler_report::scorecard()` reads it; everything else takes explicit
/// settings through [`from_vars`].
pub(crate) fn from_env() -> Result<Option<Hardware>, HardwareError> {
    from_vars(|k| std::env::var(k).ok())
}

/// Resolves hardware from `PROFILER_*` settings looked up through `var`
/// (pass `|k| std::env::var(k).ok()` for the process environment).
///
/// In order: `PROFILER_HARDWARE_FILE` (a hardware file, see
/// [`from_file`]); `PROFILER_HARDWARE` (a device of
/// [`DEVICES`](super::presets::DEVICES)); `PROFILER_PEAK_BW_GB_S`.
/// `PROFILER_PEAK_BW_GB_S` replaces a device's DRAM bandwidth,
/// `PROFILER_PEAK_TFLOPS` its BF16 and FP16 peaks, and
/// `PROFILER_BYTES_PER_TOKEN` gives the bytes a token moves; each figure
/// records the variable it came from. `Ok(None)` when nothing is set.
///
/// # Errors
/// [`HardwareError`] naming the variable or file with a bad value.
pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Option<Hardware>, HardwareError> {
    let var = |k: &str| var(k).filter(|v| !v.trim().is_empty());
    if let Some(path) = var(ENV_HARDWARE_FILE) {
        return from_file(path.trim()).map(Some);
    }
    let number = |k: &str| var(k).map(|v| number(k, v.trim())).transpose();
    let bytes = number(ENV_BYTES_PER_TOKEN)?;
    let tflops = number(ENV_PEAK_TFLOPS)?;
    let bw = number(ENV_PEAK_BW)?;
    let mut hw = match var(ENV_HARDWARE) {
        Some(name) => {
            let device = DeviceSpec::lookup(&name).ok_or_else(|| HardwareError::UnknownDevice {
                name: name.clone(),
                origin: ENV_HARDWARE.to_owned(),
                known: DeviceSpec::known_names(),
            })?;
            device.hardware()
        }
        None if bw.is_some() => Hardware::new("custom"),
        None if bytes.is_some() || tflops.is_some() => {
            return Err(HardwareError::MissingBandwidth {
                origin: format!("{ENV_BYTES_PER_TOKEN}/{ENV_PEAK_TFLOPS}"),
            });
        }
        None => return Ok(None),
    };
    let env = |var: &str, value: f64| {
        Figure::new(
            value,
            Source::Env {
                var: var.to_owned(),
            },
        )
    };
    if let Some(bw) = bw {
        hw.set_memory(MemoryLevel::Dram, env(ENV_PEAK_BW, bw))
            .map_err(|e| in_var(ENV_PEAK_BW, e))?;
    }
    if let Some(t) = tflops {
        for p in [Precision::Bf16, Precision::Fp16] {
            hw.set_compute(p, env(ENV_PEAK_TFLOPS, t))
                .map_err(|e| in_var(ENV_PEAK_TFLOPS, e))?;
        }
    }
    if let Some(b) = bytes {
        hw.set_bytes_per_token(env(ENV_BYTES_PER_TOKEN, b))
            .map_err(|e| in_var(ENV_BYTES_PER_TOKEN, e))?;
    }
    Ok(Some(hw))
}

/// The hardware a profile recorded (`profiler::Config::hardware`), as
/// reports judge against it: the named device's presets with every recorded
/// figure in place of the table's, under the recorded name. A recorded
/// figure beyond any real device is set aside, as if absent. `None` when no
/// DRAM bandwidth results.
#[must_use]
pub fn recorded(hardware: &Hardware) -> Option<Hardware> {
    let mut hw = DeviceSpec::lookup(&hardware.name)
        .map_or_else(|| Hardware::new("custom"), DeviceSpec::hardware);
    // The name as the run recorded it.
    if !hardware.name.is_empty() {
        hw.name.clone_from(&hardware.name);
    }
    for (p, f) in hardware.compute_ceilings() {
        let _ = hw.set_compute(p, f.clone());
    }
    for (l, f) in hardware.memory_ceilings() {
        let _ = hw.set_memory(l, f.clone());
    }
    for (l, f) in hardware.cache_sizes() {
        let _ = hw.set_cache_bytes(l, f.clone());
    }
    if let Some(f) = hardware.bytes_per_token() {
        let _ = hw.set_bytes_per_token(f.clone());
    }
    hw.busy.clone_from(&hardware.busy);
    hw.probe.clone_from(&hardware.probe);
    hw.memory(MemoryLevel::Dram).is_some().then_some(hw)
}

/// Parses a variable's text as a number; the model checks its range.
fn number(var: &str, value: &str) -> Result<f64, HardwareError> {
    value.parse().map_err(|_| HardwareError::InvalidValue {
        origin: var.to_owned(),
        value: value.to_owned(),
        reason: "not a number".to_owned(),
    })
}

/// A range error of the model, named after the variable that gave the value.
fn in_var(var: &str, e: CeilingError) -> HardwareError {
    HardwareError::InvalidValue {
        origin: var.to_owned(),
        value: e.value,
        reason: e.reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn env_resolves_device_and_numbers() {
        let c = from_vars(vars(&[(ENV_HARDWARE, "h100")])).unwrap().unwrap();
        assert_eq!(c.memory(MemoryLevel::Dram).unwrap().value, 3350.0);
        assert!(c.bytes_per_token().is_none());
        assert_eq!(c.dense_peak_tflops(), Some(989.0));
        let c = from_vars(vars(&[(ENV_PEAK_BW, "100"), (ENV_BYTES_PER_TOKEN, "1e6")]))
            .unwrap()
            .unwrap();
        assert_eq!(c.bytes_per_token().unwrap().value, 1e6);
        assert_eq!(
            c.memory(MemoryLevel::Dram).unwrap().source,
            Source::Env {
                var: ENV_PEAK_BW.to_owned()
            }
        );
        assert!(from_vars(vars(&[])).unwrap().is_none());
    }

    #[test]
    fn env_rejects_bad_values_naming_the_variable() {
        for bad in ["abc", "NaN", "0", "-3", "inf", "1e308"] {
            let err = from_vars(vars(&[(ENV_PEAK_BW, bad)])).unwrap_err();
            assert!(err.to_string().contains(ENV_PEAK_BW), "{err}");
        }
        let err = from_vars(vars(&[(ENV_HARDWARE, "tpu")])).unwrap_err();
        assert!(matches!(err, HardwareError::UnknownDevice { .. }), "{err}");
        let err = from_vars(vars(&[(ENV_BYTES_PER_TOKEN, "5")])).unwrap_err();
        assert!(
            matches!(err, HardwareError::MissingBandwidth { .. }),
            "{err}"
        );
    }

    #[test]
    fn recorded_hardware_falls_back_to_the_device_table() {
        let c = recorded(&Hardware::new("A100")).unwrap();
        assert_eq!(c.memory(MemoryLevel::Dram).unwrap().value, 2039.0);
        assert_eq!(c.dense_peak_tflops(), Some(312.0));
        assert!(recorded(&Hardware::new("mystery")).is_none());
        let mut tuned = Hardware::new("A100");
        tuned
            .set_memory(MemoryLevel::Dram, Figure::new(1900.0, Source::Profile))
            .unwrap();
        let c = recorded(&tuned).unwrap();
        assert_eq!(c.name, "A100");
        assert_eq!(c.memory(MemoryLevel::Dram).unwrap().source, Source::Profile);
        assert_eq!(c.compute(Precision::Fp32).unwrap().source, Source::Preset);
    }
}
