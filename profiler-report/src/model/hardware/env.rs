//! [`Hardware`] from settings: `PROFILER_*` variables looked up through a
//! function (the process environment for `scorecard()`), and a profile's
//! recorded `HardwareInfo`, in both directions.

use profiler_core::profile::HardwareInfo;

use super::error::HardwareError;
use super::model::Hardware;
use super::presets::DeviceSpec;
use super::source::{Figure, Source};
use super::units::{MemoryLevel, Precision};

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

impl Hardware {
    /// Resolves hardware from the process environment: only
    /// `profiler_report::scorecard()` reads it; everything else takes
    /// explicit settings through [`Hardware::from_vars`].
    pub(crate) fn from_env() -> Result<Option<Self>, HardwareError> {
        Self::from_vars(|k| std::env::var(k).ok())
    }

    /// Resolves hardware from `PROFILER_*` settings looked up through `var`
    /// (pass `|k| std::env::var(k).ok()` for the process environment).
    ///
    /// In order: `PROFILER_HARDWARE_FILE` (a hardware file, see
    /// [`Hardware::from_file`]); `PROFILER_HARDWARE` (a device of
    /// [`DEVICES`](super::presets::DEVICES)); `PROFILER_PEAK_BW_GB_S`.
    /// `PROFILER_PEAK_BW_GB_S` replaces a device's DRAM bandwidth,
    /// `PROFILER_PEAK_TFLOPS` its BF16 and FP16 peaks, and
    /// `PROFILER_BYTES_PER_TOKEN` gives the bytes a token moves; each figure
    /// records the variable it came from. `Ok(None)` when nothing is set.
    ///
    /// # Errors
    /// [`HardwareError`] naming the variable or file with a bad value.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Option<Self>, HardwareError> {
        let var = |k: &str| var(k).filter(|v| !v.trim().is_empty());
        if let Some(path) = var(ENV_HARDWARE_FILE) {
            return Self::from_file(path.trim()).map(Some);
        }
        let number = |k: &str| var(k).map(|v| number(k, v.trim())).transpose();
        let bytes = number(ENV_BYTES_PER_TOKEN)?;
        let tflops = number(ENV_PEAK_TFLOPS)?;
        let bw = number(ENV_PEAK_BW)?;
        let mut hw = match var(ENV_HARDWARE) {
            Some(name) => {
                let device =
                    DeviceSpec::lookup(&name).ok_or_else(|| HardwareError::UnknownDevice {
                        name: name.clone(),
                        origin: ENV_HARDWARE.to_owned(),
                        known: DeviceSpec::known_names(),
                    })?;
                Self::from_device(device)
            }
            None if bw.is_some() => Self::new("custom"),
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

    /// Hardware recorded in a profile (`profiler::Config::hardware`), under
    /// the recorded name: the named device's presets, with the recorded bandwidth, dense peak and
    /// bytes per token in place of the table's where they are usable.
    /// `None` when no DRAM bandwidth results.
    #[must_use]
    pub fn from_info(info: &HardwareInfo) -> Option<Self> {
        let mut hw =
            DeviceSpec::lookup(&info.name).map_or_else(|| Self::new("custom"), Self::from_device);
        // The name as the run recorded it.
        if !info.name.is_empty() {
            hw.name.clone_from(&info.name);
        }
        // A recorded value that cannot be a ceiling is ignored, as if absent:
        // the saved file was validated when read, this only guards ranges.
        let recorded = |v: f64| Figure::new(v, Source::Profile);
        if let Some(bw) = info.peak_bw_gb_s {
            let _ = hw.set_memory(MemoryLevel::Dram, recorded(bw));
        }
        if let Some(t) = info.peak_tflops {
            for p in [Precision::Bf16, Precision::Fp16] {
                let _ = hw.set_compute(p, recorded(t));
            }
        }
        if let Some(b) = info.bytes_per_token {
            let _ = hw.set_bytes_per_token(recorded(b));
        }
        hw.memory(MemoryLevel::Dram).is_some().then_some(hw)
    }

    /// The form a profile records (`profiler::Config::hardware`): name, DRAM
    /// bandwidth, dense peak and bytes per token.
    #[must_use]
    pub fn to_info(&self) -> HardwareInfo {
        HardwareInfo {
            name: self.name.clone(),
            peak_bw_gb_s: self.memory(MemoryLevel::Dram).map(|f| f.value),
            peak_tflops: self.dense_peak_tflops(),
            bytes_per_token: self.bytes_per_token().map(|f| f.value),
        }
    }
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
fn in_var(var: &str, e: HardwareError) -> HardwareError {
    match e {
        HardwareError::InvalidValue { value, reason, .. } => HardwareError::InvalidValue {
            origin: var.to_owned(),
            value,
            reason,
        },
        e => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hardware::DEFAULT_BYTES_PER_TOKEN;

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
        let c = Hardware::from_vars(vars(&[(ENV_HARDWARE, "h100")]))
            .unwrap()
            .unwrap();
        let spec = c.spec().unwrap();
        assert_eq!(spec.peak_bw_gb_s, 3350.0);
        assert_eq!(spec.bytes_per_token, DEFAULT_BYTES_PER_TOKEN);
        assert_eq!(c.dense_peak_tflops(), Some(989.0));
        let c = Hardware::from_vars(vars(&[(ENV_PEAK_BW, "100"), (ENV_BYTES_PER_TOKEN, "1e6")]))
            .unwrap()
            .unwrap();
        assert_eq!(c.spec().unwrap().peak_throughput_tok_s(), 100_000.0);
        assert_eq!(
            c.memory(MemoryLevel::Dram).unwrap().source,
            Source::Env {
                var: ENV_PEAK_BW.to_owned()
            }
        );
        assert!(Hardware::from_vars(vars(&[])).unwrap().is_none());
    }

    #[test]
    fn env_rejects_bad_values_naming_the_variable() {
        for bad in ["abc", "NaN", "0", "-3", "inf", "1e308"] {
            let err = Hardware::from_vars(vars(&[(ENV_PEAK_BW, bad)])).unwrap_err();
            assert!(err.to_string().contains(ENV_PEAK_BW), "{err}");
        }
        let err = Hardware::from_vars(vars(&[(ENV_HARDWARE, "tpu")])).unwrap_err();
        assert!(matches!(err, HardwareError::UnknownDevice { .. }), "{err}");
        let err = Hardware::from_vars(vars(&[(ENV_BYTES_PER_TOKEN, "5")])).unwrap_err();
        assert!(
            matches!(err, HardwareError::MissingBandwidth { .. }),
            "{err}"
        );
    }

    #[test]
    fn profile_hardware_info_falls_back_to_the_device_table() {
        let info = profiler_core::profile::HardwareInfo {
            name: "A100".to_owned(),
            ..Default::default()
        };
        let c = Hardware::from_info(&info).unwrap();
        assert_eq!(c.spec().unwrap().peak_bw_gb_s, 2039.0);
        assert_eq!(c.to_info().peak_tflops, Some(312.0));
        let unknown = profiler_core::profile::HardwareInfo {
            name: "mystery".to_owned(),
            ..Default::default()
        };
        assert!(Hardware::from_info(&unknown).is_none());
    }
}
