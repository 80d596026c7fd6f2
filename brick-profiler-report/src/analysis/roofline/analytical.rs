//! The analytical roofline of contract `roofline-model-v1`: the decode
//! throughput ceilings of a model of `total_params` weights at
//! `bits_per_weight` on a [`Hardware`], and which one binds.

use std::fmt;

use profiler_core::hardware::{Figure, Hardware, MemoryLevel, Precision};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::error::{RooflineError, non_negative};
use super::kernel::{compute, memory};

/// Contract the analytical roofline implements.
pub const ROOFLINE_CONTRACT_ID: &str = "roofline-model-v1";

/// FLOPs per parameter per token of a forward pass, which decoding runs.
pub const OPS_PER_TOKEN: f64 = 2.0;

/// The two figures the analytical roofline reads from `hw`: the DRAM
/// bandwidth (GB/s) and the dense peak (BF16, else FP16, else FP32;
/// TFLOP/s).
///
/// # Errors
/// [`RooflineError::MissingCeiling`] when `hw` has no DRAM bandwidth or no
/// compute peak of those precisions.
pub(crate) fn analytical_peaks(hw: &Hardware) -> Result<(&Figure, &Figure), RooflineError> {
    let bandwidth = memory(hw, MemoryLevel::Dram)?;
    let peak = match hw.dense_peak() {
        Some(f) => f,
        None => compute(hw, Precision::Fp32)?,
    };
    Ok((bandwidth, peak))
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
/// use profiler::hardware::{Figure, Hardware, MemoryLevel, Precision, Source};
/// use profiler_report::roofline::{RooflineBottleneck, compute_roofline};
/// let mut hw = Hardware::new("lab");
/// hw.set_memory(MemoryLevel::Dram, Figure::new(200.0, Source::Given)).unwrap();
/// hw.set_compute(Precision::Fp32, Figure::new(5.0, Source::Given)).unwrap();
/// let r = compute_roofline(7_000_000_000, 4.0, &hw).unwrap();
/// assert_eq!(r.model_bytes, 3.5e9);
/// assert_eq!(r.bottleneck, RooflineBottleneck::Bandwidth);
/// ```
///
/// The bandwidth is `hw`'s DRAM figure and the compute peak its dense
/// (BF16, else FP16) peak, else its FP32 peak; a forward pass runs
/// [`OPS_PER_TOKEN`] FLOPs per parameter per token.
///
/// # Errors
/// [`RooflineError::MissingCeiling`] when `hw` has no DRAM bandwidth or no
/// compute peak; [`RooflineError::InvalidValue`] when `bits_per_weight` is
/// negative or not finite.
pub fn compute_roofline(
    total_params: u64,
    bits_per_weight: f64,
    hw: &Hardware,
) -> Result<RooflineResult, RooflineError> {
    let (bandwidth, peak) = analytical_peaks(hw)?;
    let bits = non_negative("bits_per_weight", bits_per_weight)?;
    let params = total_params as f64;
    let model_bytes = params * bits / 8.0;
    let bw_ceiling = if model_bytes > 0.0 {
        bandwidth.value / (model_bytes / 1e9)
    } else {
        f64::INFINITY
    };
    let flops_per_token = params * OPS_PER_TOKEN;
    let compute_ceiling = if flops_per_token > 0.0 {
        peak.value * 1e12 / flops_per_token
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
        estimate: bandwidth.is_estimate() || peak.is_estimate(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hardware::preset;
    use profiler_core::hardware::Source;

    fn hw(bw: f64, gflops: f64) -> Hardware {
        let mut hw = Hardware::new("test");
        hw.set_memory(MemoryLevel::Dram, Figure::new(bw, Source::Given))
            .unwrap();
        hw.set_compute(Precision::Fp32, Figure::new(gflops / 1e3, Source::Given))
            .unwrap();
        hw
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
        let r = compute_roofline(0, 4.0, &preset("nvidia_a100").unwrap()).unwrap();
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
        let r = compute_roofline(1000, 0.0, &preset("apple_m_series").unwrap()).unwrap();
        assert_eq!(r.bw_ceiling, f64::INFINITY);
        assert_eq!(r.bottleneck, RooflineBottleneck::Compute);
        assert!(r.throughput_ceiling.is_finite());
    }

    #[test]
    fn missing_figures_and_bad_bits_name_what_is_wrong() {
        let e = compute_roofline(10, 4.0, &Hardware::new("bare")).unwrap_err();
        assert!(
            matches!(&e, RooflineError::MissingCeiling { what, .. } if what == "DRAM"),
            "{e}"
        );
        let mut no_peak = Hardware::new("no peak");
        no_peak
            .set_memory(MemoryLevel::Dram, Figure::new(1.0, Source::Given))
            .unwrap();
        let e = compute_roofline(10, 4.0, &no_peak).unwrap_err();
        assert!(e.to_string().contains("FP32"), "{e}");
        let e = compute_roofline(10, f64::NAN, &hw(1.0, 1.0)).unwrap_err();
        assert!(e.to_string().contains("bits_per_weight"), "{e}");
    }

    #[test]
    fn contract_presets_are_rows_of_the_table() {
        let m = preset("apple_m_series").unwrap();
        let (bw, peak) = analytical_peaks(&m).unwrap();
        assert_eq!((bw.value, peak.value * 1e3), (100.0, 1000.0));
        let a = preset("nvidia-a100").unwrap();
        let (bw, peak) = analytical_peaks(&a).unwrap();
        assert_eq!((bw.value, peak.value * 1e3), (2039.0, 19_500.0));
        let h100 = preset("h100").unwrap();
        assert_eq!(analytical_peaks(&h100).unwrap().1.value, 989.0);
        let laptop = compute_roofline(1000, 4.0, &preset("rtx_4060l").unwrap()).unwrap();
        assert!(laptop.estimate);
    }
}
