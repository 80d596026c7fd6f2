//! [`HardwareConfig`]: hardware resolved from environment variables, a JSON
//! file, or a profile's recorded `HardwareInfo`, with typed errors naming the
//! variable or file at fault.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::devices::DeviceSpec;
use super::spec::{DEFAULT_BYTES_PER_TOKEN, HardwareSpec};

/// Hardware resolved from configuration: the grading spec plus what MFU needs.
#[derive(Debug, Clone, PartialEq)]
pub struct HardwareConfig {
    /// Device or preset name, or `"custom"`.
    pub name: String,
    /// Memory-bound ceiling for grading.
    pub spec: HardwareSpec,
    /// Dense bf16/fp16 peak for MFU, TFLOP/s, when known.
    pub dense_peak_tflops: Option<f64>,
}

/// The JSON file named by `PROFILER_HARDWARE_FILE`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct HardwareFile {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    device: Option<String>,
    #[serde(default)]
    peak_bw_gb_s: Option<f64>,
    #[serde(default)]
    bytes_per_token: Option<f64>,
    #[serde(default)]
    peak_tflops: Option<f64>,
}

/// Environment variable naming a device or preset (`h100`, `rtx_4060l`, ...).
pub const ENV_HARDWARE: &str = "PROFILER_HARDWARE";
/// Environment variable with the peak memory bandwidth, GB/s.
pub const ENV_PEAK_BW: &str = "PROFILER_PEAK_BW_GB_S";
/// Environment variable with the bytes moved per token.
pub const ENV_BYTES_PER_TOKEN: &str = "PROFILER_BYTES_PER_TOKEN";
/// Environment variable with a dense peak for MFU, TFLOP/s.
pub const ENV_PEAK_TFLOPS: &str = "PROFILER_PEAK_TFLOPS";
/// Environment variable with the path of a JSON hardware file.
pub const ENV_HARDWARE_FILE: &str = "PROFILER_HARDWARE_FILE";

impl HardwareConfig {
    /// Resolves hardware from the process environment: only
    /// `profiler_report::scorecard()` reads it; everything else takes
    /// explicit settings through [`HardwareConfig::from_vars`].
    pub(crate) fn from_env() -> Result<Option<Self>, HardwareError> {
        Self::from_vars(|k| std::env::var(k).ok())
    }

    /// Resolves hardware from `PROFILER_*` settings looked up through `var`
    /// (pass `|k| std::env::var(k).ok()` for the process environment).
    ///
    /// In order: `PROFILER_HARDWARE_FILE` (JSON with optional `name`,
    /// `device`, `peak_bw_gb_s`, `bytes_per_token`, `peak_tflops`);
    /// `PROFILER_HARDWARE` (a device of [`DEVICES`](super::devices::DEVICES)); `PROFILER_PEAK_BW_GB_S`.
    /// `PROFILER_BYTES_PER_TOKEN` and `PROFILER_PEAK_TFLOPS` refine the last
    /// two; bytes per token default to [`DEFAULT_BYTES_PER_TOKEN`], a
    /// placeholder the scorecard replaces with the bricks' byte annotations
    /// when it can. `Ok(None)` when nothing is set.
    ///
    /// # Errors
    /// [`HardwareError`] naming the variable or file with a bad value.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Option<Self>, HardwareError> {
        let var = |k: &str| var(k).filter(|v| !v.trim().is_empty());
        if let Some(path) = var(ENV_HARDWARE_FILE) {
            return Self::from_file(path.trim()).map(Some);
        }
        let number = |k: &str| var(k).map(|v| positive(k, v.trim())).transpose();
        let bytes = number(ENV_BYTES_PER_TOKEN)?.unwrap_or(DEFAULT_BYTES_PER_TOKEN);
        let tflops = number(ENV_PEAK_TFLOPS)?;
        let bw = number(ENV_PEAK_BW)?;
        if let Some(name) = var(ENV_HARDWARE) {
            let device = DeviceSpec::lookup(&name).ok_or_else(|| HardwareError::UnknownDevice {
                name: name.clone(),
                origin: ENV_HARDWARE.to_owned(),
                known: DeviceSpec::known_names(),
            })?;
            let mut spec = device.hardware_spec(bytes);
            if let Some(bw) = bw {
                spec.peak_bw_gb_s = bw;
            }
            return Ok(Some(Self {
                name: device.name.to_owned(),
                spec,
                dense_peak_tflops: tflops.or(device.bf16_tflops),
            }));
        }
        match bw {
            Some(peak_bw_gb_s) => Ok(Some(Self {
                name: "custom".to_owned(),
                spec: HardwareSpec {
                    peak_bw_gb_s,
                    bytes_per_token: bytes,
                },
                dense_peak_tflops: tflops,
            })),
            None if var(ENV_BYTES_PER_TOKEN).is_some() || tflops.is_some() => {
                Err(HardwareError::MissingBandwidth {
                    origin: format!("{ENV_BYTES_PER_TOKEN}/{ENV_PEAK_TFLOPS}"),
                })
            }
            None => Ok(None),
        }
    }

    /// Reads a JSON hardware file (see [`HardwareConfig::from_vars`]).
    ///
    /// # Errors
    /// [`HardwareError::ReadFile`], [`HardwareError::MalformedFile`], or a
    /// bad value naming the file and field.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, HardwareError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| HardwareError::ReadFile {
            path: path.to_path_buf(),
            source,
        })?;
        let file: HardwareFile =
            serde_json::from_str(&text).map_err(|e| HardwareError::MalformedFile {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
        let origin = |field: &str| format!("`{}` field `{field}`", path.display());
        let check = |field: &str, v: Option<f64>| {
            v.map(|v| positive(&origin(field), &v.to_string()))
                .transpose()
        };
        let device = match &file.device {
            Some(name) => {
                Some(
                    DeviceSpec::lookup(name).ok_or_else(|| HardwareError::UnknownDevice {
                        name: name.clone(),
                        origin: origin("device"),
                        known: DeviceSpec::known_names(),
                    })?,
                )
            }
            None => None,
        };
        let bw = check("peak_bw_gb_s", file.peak_bw_gb_s)?
            .or(device.map(|d| d.mem_bw_gb_s))
            .ok_or_else(|| HardwareError::MissingBandwidth {
                origin: format!("`{}`", path.display()),
            })?;
        let bytes = check("bytes_per_token", file.bytes_per_token)?;
        let tflops = check("peak_tflops", file.peak_tflops)?;
        Ok(Self {
            name: file
                .name
                .or(device.map(|d| d.name.to_owned()))
                .unwrap_or_else(|| "custom".to_owned()),
            spec: HardwareSpec {
                peak_bw_gb_s: bw,
                bytes_per_token: bytes.unwrap_or(DEFAULT_BYTES_PER_TOKEN),
            },
            dense_peak_tflops: tflops.or(device.and_then(|d| d.bf16_tflops)),
        })
    }

    /// Hardware recorded in a profile (`profiler::Config::hardware`): its
    /// bandwidth, or the bandwidth of the named device. `None` when neither
    /// is usable.
    #[must_use]
    pub fn from_info(info: &profiler_core::profile::HardwareInfo) -> Option<Self> {
        let usable = |v: Option<f64>| v.filter(|x| x.is_finite() && *x > 0.0);
        let device = DeviceSpec::lookup(&info.name);
        let bw = usable(info.peak_bw_gb_s).or(device.map(|d| d.mem_bw_gb_s))?;
        Some(Self {
            name: if info.name.is_empty() {
                "custom".to_owned()
            } else {
                info.name.clone()
            },
            spec: HardwareSpec {
                peak_bw_gb_s: bw,
                bytes_per_token: usable(info.bytes_per_token).unwrap_or(DEFAULT_BYTES_PER_TOKEN),
            },
            dense_peak_tflops: usable(info.peak_tflops).or(device.and_then(|d| d.bf16_tflops)),
        })
    }
}

/// Parses a finite, strictly positive number.
fn positive(origin: &str, value: &str) -> Result<f64, HardwareError> {
    let invalid = |reason: &str| HardwareError::InvalidValue {
        origin: origin.to_owned(),
        value: value.to_owned(),
        reason: reason.to_owned(),
    };
    let x: f64 = value.parse().map_err(|_| invalid("not a number"))?;
    if !x.is_finite() {
        Err(invalid("not finite"))
    } else if x <= 0.0 {
        Err(invalid("must be greater than 0"))
    } else {
        Ok(x)
    }
}

/// Error resolving hardware from the environment or a file.
#[derive(Debug, thiserror::Error)]
pub enum HardwareError {
    /// A number is missing its meaning: non-numeric, NaN/inf, or <= 0.
    #[error("invalid {origin} `{value}`: {reason}")]
    InvalidValue {
        /// The variable, or file and field.
        origin: String,
        /// The text found.
        value: String,
        /// What is wrong.
        reason: String,
    },
    /// A device name not in [`DEVICES`](super::devices::DEVICES).
    #[error("unknown device `{name}` in {origin}; known: {known}")]
    UnknownDevice {
        /// The name given.
        name: String,
        /// The variable, or file and field.
        origin: String,
        /// Accepted names.
        known: String,
    },
    /// Settings given without a bandwidth to apply them to.
    #[error(
        "{origin} given without a bandwidth: set {ENV_HARDWARE}=<device> or {ENV_PEAK_BW}, or `device`/`peak_bw_gb_s` in the file"
    )]
    MissingBandwidth {
        /// Where the incomplete settings came from.
        origin: String,
    },
    /// The hardware file could not be read.
    #[error("cannot read hardware file `{}`: {source}", path.display())]
    ReadFile {
        /// File that failed.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// The hardware file is not the expected JSON.
    #[error("malformed hardware file `{}`: {message}", path.display())]
    MalformedFile {
        /// File that failed.
        path: PathBuf,
        /// What is wrong, with line and column.
        message: String,
    },
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
        let c = HardwareConfig::from_vars(vars(&[(ENV_HARDWARE, "h100")]))
            .unwrap()
            .unwrap();
        assert_eq!(c.spec.peak_bw_gb_s, 3350.0);
        assert_eq!(c.spec.bytes_per_token, DEFAULT_BYTES_PER_TOKEN);
        assert_eq!(c.dense_peak_tflops, Some(989.0));
        let c =
            HardwareConfig::from_vars(vars(&[(ENV_PEAK_BW, "100"), (ENV_BYTES_PER_TOKEN, "1e6")]))
                .unwrap()
                .unwrap();
        assert_eq!(c.spec.peak_throughput_tok_s(), 100_000.0);
        assert!(HardwareConfig::from_vars(vars(&[])).unwrap().is_none());
    }

    #[test]
    fn env_rejects_bad_values_naming_the_variable() {
        for bad in ["abc", "NaN", "0", "-3", "inf"] {
            let err = HardwareConfig::from_vars(vars(&[(ENV_PEAK_BW, bad)])).unwrap_err();
            assert!(err.to_string().contains(ENV_PEAK_BW), "{err}");
        }
        let err = HardwareConfig::from_vars(vars(&[(ENV_HARDWARE, "tpu")])).unwrap_err();
        assert!(matches!(err, HardwareError::UnknownDevice { .. }), "{err}");
        let err = HardwareConfig::from_vars(vars(&[(ENV_BYTES_PER_TOKEN, "5")])).unwrap_err();
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
        let c = HardwareConfig::from_info(&info).unwrap();
        assert_eq!(c.spec.peak_bw_gb_s, 2039.0);
        let unknown = profiler_core::profile::HardwareInfo {
            name: "mystery".to_owned(),
            ..Default::default()
        };
        assert!(HardwareConfig::from_info(&unknown).is_none());
    }
}
