//! The analytical roofline of contract `roofline-model-v1`: the decode
//! throughput ceilings of a model of `total_params` weights at
//! `bits_per_weight` on a [`HardwareProfile`], and which one binds.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::error::{RooflineError, non_negative, positive};
use crate::model::hardware::DeviceSpec;

/// Contract the analytical roofline implements.
pub const ROOFLINE_CONTRACT_ID: &str = "roofline-model-v1";

/// Bandwidth and compute of a machine for the analytical roofline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HardwareProfile {
    /// Display name.
    pub name: String,
    /// Memory bandwidth, GB/s.
    pub bandwidth_gb_s: f64,
    /// Compute peak, GFLOP/s.
    pub compute_gflops: f64,
    /// FLOPs per parameter per token: 2 for a forward pass, 6 for training.
    pub ops_per_token: f64,
    /// Whether the figures are estimates rather than published or measured.
    #[serde(default)]
    pub estimate: bool,
}

impl HardwareProfile {
    /// Apple M-series: 100 GB/s, 1000 GFLOPS, 2 ops per token.
    #[must_use]
    pub fn apple_m_series() -> Self {
        Self::named("apple_m_series", 100.0, 1000.0)
    }

    /// NVIDIA A100: 2039 GB/s, 19 500 GFLOPS (fp32), 2 ops per token.
    #[must_use]
    pub fn nvidia_a100() -> Self {
        Self::named("nvidia_a100", 2039.0, 19_500.0)
    }

    fn named(name: &str, bandwidth_gb_s: f64, compute_gflops: f64) -> Self {
        Self {
            name: name.to_owned(),
            bandwidth_gb_s,
            compute_gflops,
            ops_per_token: 2.0,
            estimate: false,
        }
    }

    /// A device of the hardware table at its dense bf16/fp16 peak (fp32
    /// where no half-precision figure is published), 2 ops per token.
    #[must_use]
    pub fn from_device(device: &DeviceSpec) -> Self {
        Self {
            name: device.name.to_owned(),
            bandwidth_gb_s: device.mem_bw_gb_s,
            compute_gflops: device.bf16_tflops.unwrap_or(device.fp32_tflops) * 1e3,
            ops_per_token: 2.0,
            estimate: device.estimate,
        }
    }

    /// A preset by name: `apple_m_series`, `nvidia_a100`, or any device of
    /// the hardware table (`h100`, `rtx4090`, ...).
    ///
    /// # Errors
    /// [`RooflineError::UnknownPreset`] listing the names accepted.
    pub fn preset(name: &str) -> Result<Self, RooflineError> {
        match name.trim().to_ascii_lowercase().replace('-', "_").as_str() {
            "apple_m_series" => Ok(Self::apple_m_series()),
            "nvidia_a100" => Ok(Self::nvidia_a100()),
            _ => DeviceSpec::lookup(name)
                .map(Self::from_device)
                .ok_or_else(|| RooflineError::UnknownPreset {
                    name: name.to_owned(),
                    known: format!("apple_m_series, nvidia_a100, {}", DeviceSpec::known_names()),
                }),
        }
    }

    /// Checks every figure is finite and greater than zero.
    ///
    /// # Errors
    /// [`RooflineError::InvalidValue`] naming the field.
    pub fn validate(&self) -> Result<(), RooflineError> {
        positive("bandwidth_gb_s", self.bandwidth_gb_s)?;
        positive("compute_gflops", self.compute_gflops)?;
        positive("ops_per_token", self.ops_per_token)?;
        Ok(())
    }
}

/// Which ceiling binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RooflineBottleneck {
    /// Streaming the weights limits throughput.
    Bandwidth,
    /// Arithmetic limits throughput.
    Compute,
}

impl fmt::Display for RooflineBottleneck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Bandwidth => "bandwidth",
            Self::Compute => "compute",
        })
    }
}

/// Ceilings of one model on one machine. Ceilings of a zero-size model are
/// `f64::INFINITY` (nothing to stream or compute); JSON writes them as
/// `null` and the renderers as "unbounded".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RooflineResult {
    /// Always [`ROOFLINE_CONTRACT_ID`].
    pub contract_id: String,
    /// The hardware's name.
    pub hardware: String,
    /// Parameters of the model.
    pub total_params: u64,
    /// Bits per weight.
    pub bits_per_weight: f64,
    /// `total_params * bits_per_weight / 8`, bytes.
    pub model_bytes: f64,
    /// Memory-bound ceiling, tokens/s: `bandwidth_GB_s / (model_bytes / 1e9)`.
    #[serde(
        serialize_with = "finite_or_null",
        deserialize_with = "null_is_unbounded"
    )]
    pub bw_ceiling: f64,
    /// Compute-bound ceiling, tokens/s:
    /// `compute_GFLOPS * 1e9 / (total_params * ops_per_token)`.
    #[serde(
        serialize_with = "finite_or_null",
        deserialize_with = "null_is_unbounded"
    )]
    pub compute_ceiling: f64,
    /// The lower of the two, tokens/s.
    #[serde(
        serialize_with = "finite_or_null",
        deserialize_with = "null_is_unbounded"
    )]
    pub throughput_ceiling: f64,
    /// `Bandwidth` if `bw_ceiling < compute_ceiling`, else `Compute`.
    pub bottleneck: RooflineBottleneck,
    /// Whether the hardware figures are estimates.
    #[serde(default)]
    pub estimate: bool,
}

fn finite_or_null<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.is_finite() {
        s.serialize_f64(*v)
    } else {
        s.serialize_none()
    }
}

fn null_is_unbounded<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::INFINITY))
}

/// The analytical roofline (contract `roofline-model-v1`).
///
/// A model with no bytes (zero parameters or zero bits) has an unbounded
/// bandwidth ceiling; one with zero parameters also an unbounded compute
/// ceiling (no FLOPs per token), so its throughput ceiling is unbounded and
/// the bottleneck falls to `Compute` by the contract's rule. Never NaN.
///
/// ```
/// use profiler_report::roofline::{HardwareProfile, RooflineBottleneck, compute_roofline};
/// let hw = HardwareProfile { bandwidth_gb_s: 200.0, compute_gflops: 5000.0, ..HardwareProfile::apple_m_series() };
/// let r = compute_roofline(7_000_000_000, 4.0, &hw).unwrap();
/// assert_eq!(r.model_bytes, 3.5e9);
/// assert_eq!(r.bottleneck, RooflineBottleneck::Bandwidth);
/// ```
///
/// # Errors
/// [`RooflineError::InvalidValue`] naming the field when a hardware figure
/// is zero, negative or not finite, or `bits_per_weight` is negative or not
/// finite.
pub fn compute_roofline(
    total_params: u64,
    bits_per_weight: f64,
    hw: &HardwareProfile,
) -> Result<RooflineResult, RooflineError> {
    hw.validate()?;
    let bits = non_negative("bits_per_weight", bits_per_weight)?;
    let params = total_params as f64;
    let model_bytes = params * bits / 8.0;
    let bw_ceiling = if model_bytes > 0.0 {
        hw.bandwidth_gb_s / (model_bytes / 1e9)
    } else {
        f64::INFINITY
    };
    let flops_per_token = params * hw.ops_per_token;
    let compute_ceiling = if flops_per_token > 0.0 {
        hw.compute_gflops * 1e9 / flops_per_token
    } else {
        f64::INFINITY
    };
    let bottleneck = if bw_ceiling < compute_ceiling {
        RooflineBottleneck::Bandwidth
    } else {
        RooflineBottleneck::Compute
    };
    Ok(RooflineResult {
        contract_id: ROOFLINE_CONTRACT_ID.to_owned(),
        hardware: hw.name.clone(),
        total_params,
        bits_per_weight: bits,
        model_bytes,
        bw_ceiling,
        compute_ceiling,
        throughput_ceiling: bw_ceiling.min(compute_ceiling),
        bottleneck,
        estimate: hw.estimate,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hw(bw: f64, gflops: f64) -> HardwareProfile {
        HardwareProfile {
            name: "test".into(),
            bandwidth_gb_s: bw,
            compute_gflops: gflops,
            ops_per_token: 2.0,
            estimate: false,
        }
    }

    #[test]
    fn seven_b_at_four_bits_is_bandwidth_bound() {
        let r = compute_roofline(7_000_000_000, 4.0, &hw(200.0, 5000.0)).unwrap();
        assert_eq!(r.model_bytes, 3.5e9);
        assert!((r.bw_ceiling - 200.0 / 3.5).abs() < 1e-12);
        assert!((r.compute_ceiling - 5000e9 / 14e9).abs() < 1e-9);
        assert_eq!(r.throughput_ceiling, r.bw_ceiling);
        assert_eq!(r.bottleneck, RooflineBottleneck::Bandwidth);
        assert_eq!(r.contract_id, "roofline-model-v1");
    }

    #[test]
    fn tiny_model_on_slow_compute_is_compute_bound() {
        let r = compute_roofline(1_000_000, 16.0, &hw(1000.0, 1.0)).unwrap();
        // bw: 1000 / 0.002 = 500 000 tok/s; compute: 1e9 / 2e6 = 500 tok/s.
        assert!((r.bw_ceiling - 500_000.0).abs() < 1e-6);
        assert!((r.compute_ceiling - 500.0).abs() < 1e-9);
        assert_eq!(r.throughput_ceiling, 500.0);
        assert_eq!(r.bottleneck, RooflineBottleneck::Compute);
    }

    #[test]
    fn a_zero_size_model_is_unbounded_never_nan() {
        let r = compute_roofline(0, 4.0, &HardwareProfile::nvidia_a100()).unwrap();
        assert_eq!(r.model_bytes, 0.0);
        assert_eq!(r.bw_ceiling, f64::INFINITY);
        assert_eq!(r.compute_ceiling, f64::INFINITY);
        assert_eq!(r.throughput_ceiling, f64::INFINITY);
        assert_eq!(r.bottleneck, RooflineBottleneck::Compute);
        let json = serde_json::to_string(&r).unwrap();
        assert!(json.contains("\"bw_ceiling\":null"), "{json}");
        let back: RooflineResult = serde_json::from_str(&json).unwrap();
        assert_eq!(back, r);
        // Zero bits: no bytes to stream, but the compute ceiling is finite.
        let r = compute_roofline(1000, 0.0, &HardwareProfile::apple_m_series()).unwrap();
        assert_eq!(r.bw_ceiling, f64::INFINITY);
        assert_eq!(r.bottleneck, RooflineBottleneck::Compute);
        assert!(r.throughput_ceiling.is_finite());
    }

    #[test]
    fn bad_hardware_names_the_field() {
        for (field, h) in [
            ("bandwidth_gb_s", hw(0.0, 1.0)),
            ("bandwidth_gb_s", hw(-5.0, 1.0)),
            ("compute_gflops", hw(1.0, f64::NAN)),
            ("compute_gflops", hw(1.0, f64::INFINITY)),
        ] {
            let e = compute_roofline(10, 4.0, &h).unwrap_err();
            assert!(
                matches!(&e, RooflineError::InvalidValue { field: f, .. } if f == field),
                "{e}"
            );
        }
        let e = compute_roofline(10, f64::NAN, &hw(1.0, 1.0)).unwrap_err();
        assert!(e.to_string().contains("bits_per_weight"), "{e}");
        let zero_ops = HardwareProfile {
            ops_per_token: 0.0,
            ..hw(1.0, 1.0)
        };
        assert!(compute_roofline(10, 4.0, &zero_ops).is_err());
    }

    #[test]
    fn presets_match_the_contract_and_unknown_names_fail() {
        let m = HardwareProfile::apple_m_series();
        assert_eq!(
            (m.bandwidth_gb_s, m.compute_gflops, m.ops_per_token),
            (100.0, 1000.0, 2.0)
        );
        let a = HardwareProfile::nvidia_a100();
        assert_eq!(
            (a.bandwidth_gb_s, a.compute_gflops, a.ops_per_token),
            (2039.0, 19_500.0, 2.0)
        );
        assert_eq!(HardwareProfile::preset("nvidia-a100").unwrap(), a);
        assert_eq!(
            HardwareProfile::preset("h100").unwrap().compute_gflops,
            989_000.0
        );
        assert!(HardwareProfile::preset("rtx_4060l").unwrap().estimate);
        let e = HardwareProfile::preset("tpu-v9").unwrap_err();
        assert!(matches!(e, RooflineError::UnknownPreset { .. }));
        assert!(e.to_string().contains("tpu-v9") && e.to_string().contains("apple_m_series"));
    }
}
