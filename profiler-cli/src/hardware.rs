//! `--hardware`: a device of the hardware table by name (`h100`, `4090`,
//! `rtx_4060l`, ...) or a TOML/JSON file describing one. It gives the
//! roofline ceilings and the scorecard's memory-bound ceiling.
//!
//! The file (`.toml` or `.json`, same keys):
//!
//! ```toml
//! name = "lab RTX 4090"      # display name (default: the device's, else "custom")
//! device = "4090"            # optional: start from a device of the table
//! bytes_per_token = 158e6    # optional: bytes a token moves, for grading
//! estimate = false           # optional: mark the figures as estimates
//! [bandwidth_gb_s]           # GB/s per memory level: l1, l2, dram, pcie
//! dram = 1008
//! [peak_tflops]              # dense TFLOP/s per precision: fp32, fp16, bf16, tf32, int8
//! fp32 = 82.6
//! bf16 = 165
//! ```
//!
//! `peak_bw_gb_s` (= DRAM bandwidth) and a number for `peak_tflops` (= the
//! dense BF16/FP16 peak) are accepted too, as in `PROFILER_HARDWARE_FILE`.

use std::collections::BTreeMap;
use std::path::Path;

use profiler_report::HardwareSpec;
use profiler_report::hardware::{DeviceSpec, HardwareConfig};
use profiler_report::roofline::{CeilingSource, KernelRoofline, MemoryLevel, Precision};
use serde::Deserialize;

use crate::error::CliError;

/// The placeholder bytes per token of a ceiling when none is given; the
/// scorecard prefers the bricks' byte annotations to it and labels which.
const DEFAULT_BYTES_PER_TOKEN: f64 = profiler_report::hardware::DEFAULT_BYTES_PER_TOKEN;

/// Hardware chosen with `--hardware`.
#[derive(Debug, Clone)]
pub(crate) struct Hardware {
    /// How it was given, e.g. `--hardware h100`.
    pub(crate) origin: String,
    /// Its roofline.
    pub(crate) roofline: KernelRoofline,
    /// The scorecard's ceiling, when a DRAM bandwidth is known.
    pub(crate) config: Option<HardwareConfig>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Tflops {
    Dense(f64),
    ByPrecision(BTreeMap<String, f64>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HardwareFile {
    name: Option<String>,
    device: Option<String>,
    bytes_per_token: Option<f64>,
    #[serde(default)]
    estimate: bool,
    #[serde(default)]
    bandwidth_gb_s: BTreeMap<String, f64>,
    peak_bw_gb_s: Option<f64>,
    peak_tflops: Option<Tflops>,
}

impl Hardware {
    /// Resolves `--hardware VALUE`: a file when it names one (or ends in
    /// `.toml`/`.json`), else a device of the table.
    pub(crate) fn resolve(value: &str, bytes_per_token: Option<f64>) -> Result<Self, CliError> {
        let path = Path::new(value);
        let looks_like_file = matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("toml" | "json")
        );
        if path.is_file() || looks_like_file {
            return Self::from_file(path, bytes_per_token);
        }
        let device = DeviceSpec::lookup(value).ok_or_else(|| {
            CliError::Input(format!(
                "--hardware: unknown device `{value}`; known: {} (or a .toml/.json hardware file)",
                DeviceSpec::known_names()
            ))
        })?;
        let bytes = bytes_per_token.unwrap_or(DEFAULT_BYTES_PER_TOKEN);
        Ok(Self {
            origin: format!("--hardware {value}"),
            roofline: KernelRoofline::from_device(device),
            config: Some(HardwareConfig {
                name: device.name.to_owned(),
                spec: device.hardware_spec(bytes),
                dense_peak_tflops: device.bf16_tflops,
            }),
        })
    }

    fn from_file(path: &Path, bytes_per_token: Option<f64>) -> Result<Self, CliError> {
        let shown = path.display();
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::Input(format!("cannot read hardware file `{shown}`: {e}")))?;
        let file: HardwareFile = if path.extension().is_some_and(|e| e == "toml") {
            toml::from_str(&text).map_err(|e| {
                CliError::Input(format!(
                    "malformed hardware file `{shown}`: {}",
                    e.message()
                ))
            })?
        } else {
            serde_json::from_str(&text)
                .map_err(|e| CliError::Input(format!("malformed hardware file `{shown}`: {e}")))?
        };
        let bad = |field: &str, why: String| {
            CliError::Input(format!("hardware file `{shown}` field `{field}`: {why}"))
        };
        let device = match &file.device {
            Some(d) => Some(DeviceSpec::lookup(d).ok_or_else(|| {
                bad(
                    "device",
                    format!("unknown device `{d}`; known: {}", DeviceSpec::known_names()),
                )
            })?),
            None => None,
        };
        let mut roofline = match device {
            Some(d) => KernelRoofline::from_device(d),
            None => KernelRoofline::new("custom", CeilingSource::Custom),
        };
        let customised = !file.bandwidth_gb_s.is_empty()
            || file.peak_bw_gb_s.is_some()
            || file.peak_tflops.is_some();
        if customised {
            roofline.source = CeilingSource::Custom;
        }
        roofline.name = file
            .name
            .clone()
            .or_else(|| device.map(|d| d.name.to_owned()))
            .unwrap_or_else(|| "custom".to_owned());
        let mut levels: Vec<(String, f64)> = file.bandwidth_gb_s.clone().into_iter().collect();
        if let Some(bw) = file.peak_bw_gb_s {
            levels.push(("dram".to_owned(), bw));
        }
        for (level, gb_s) in levels {
            let l: MemoryLevel = level
                .parse()
                .map_err(|e| bad(&format!("bandwidth_gb_s.{level}"), format!("{e}")))?;
            roofline = roofline
                .with_memory(l, gb_s, file.estimate)
                .map_err(|e| bad(&format!("bandwidth_gb_s.{level}"), e.to_string()))?;
        }
        let mut dense = None;
        match &file.peak_tflops {
            Some(Tflops::Dense(t)) => {
                for p in [Precision::Bf16, Precision::Fp16] {
                    roofline = roofline
                        .with_compute(p, *t, file.estimate)
                        .map_err(|e| bad("peak_tflops", e.to_string()))?;
                }
                dense = Some(*t);
            }
            Some(Tflops::ByPrecision(map)) => {
                for (precision, t) in map {
                    let p: Precision = precision
                        .parse()
                        .map_err(|e| bad(&format!("peak_tflops.{precision}"), format!("{e}")))?;
                    roofline = roofline
                        .with_compute(p, *t, file.estimate)
                        .map_err(|e| bad(&format!("peak_tflops.{precision}"), e.to_string()))?;
                    if p == Precision::Bf16 {
                        dense = Some(*t);
                    }
                }
            }
            None => {}
        }
        if roofline.memory_ceilings().is_empty() && roofline.compute_ceilings().is_empty() {
            return Err(CliError::Input(format!(
                "hardware file `{shown}` gives no ceiling: set `device`, or `bandwidth_gb_s` and `peak_tflops`"
            )));
        }
        let given_bytes = bytes_per_token.or(file.bytes_per_token);
        if let Some(b) = given_bytes
            && !(b.is_finite() && b > 0.0)
        {
            return Err(bad(
                "bytes_per_token",
                format!("`{b}` must be a number above 0"),
            ));
        }
        let config = roofline
            .memory(MemoryLevel::Dram)
            .ok()
            .map(|m| HardwareConfig {
                name: roofline.name.clone(),
                spec: HardwareSpec {
                    peak_bw_gb_s: m.gb_s,
                    bytes_per_token: given_bytes.unwrap_or(DEFAULT_BYTES_PER_TOKEN),
                },
                dense_peak_tflops: dense.or(device.and_then(|d| d.bf16_tflops)),
            });
        Ok(Self {
            origin: format!("--hardware {shown}"),
            roofline,
            config,
        })
    }
}
