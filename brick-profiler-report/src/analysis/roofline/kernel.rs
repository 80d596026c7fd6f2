//! A kernel placed on the roofline of a [`Hardware`]: ridge points,
//! [`classify`] which places a kernel (arithmetic intensity, achieved
//! FLOP/s) on the roof of one precision and memory level, and the checks
//! that a placement can be physical.

use profiler_core::hardware::{Figure, Hardware, MemoryLevel, Precision};
use serde::{Deserialize, Serialize};

use super::error::{RooflineError, positive};
use super::units::{IMPOSSIBLE_TOLERANCE, Impossible};
use crate::model::hardware::Bound;
/// Where a kernel sits on a roofline.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct KernelClassification {
    /// Memory-bound below the ridge point, compute-bound at or above it.
    pub bound: Bound,
    /// The kernel's FLOP per byte.
    pub arithmetic_intensity: f64,
    /// The kernel's FLOP/s.
    pub achieved_flops: f64,
    /// The roof at this intensity, FLOP/s: `min(peak, intensity * bandwidth)`.
    pub attainable_flops: f64,
    /// `achieved / attainable * 100`. Above 100 means the roof does not bound
    /// this kernel (see `above_roof`).
    pub efficiency_pct: f64,
    /// Peak FLOP/s over bandwidth, FLOP/byte.
    pub ridge_point: f64,
    /// `ridge_point - arithmetic_intensity`, FLOP/byte: how much more
    /// intensity would reach the ridge (negative right of it).
    pub distance_to_ridge: f64,
    /// `arithmetic_intensity / ridge_point`: the same distance as a factor.
    pub intensity_vs_ridge: f64,
    /// Achieved exceeds the roof: the ceiling is wrong for this kernel (a
    /// cache-resident working set against a DRAM roof, miscounted FLOPs or
    /// bytes, or a peak that is too low).
    pub above_roof: bool,
    /// Whether either ceiling used is an estimate.
    pub estimate: bool,
    /// Set when the placement cannot be physical: the kernel's FLOPs, bytes
    /// or duration are wrong, and its efficiency means nothing.
    pub impossible: Option<Impossible>,
}

/// The compute ceiling of `precision`, TFLOP/s.
///
/// # Errors
/// [`RooflineError::MissingCeiling`] listing the precisions it has.
pub(crate) fn compute(hw: &Hardware, precision: Precision) -> Result<&Figure, RooflineError> {
    hw.compute(precision).ok_or_else(|| {
        missing(
            hw,
            precision.name(),
            hw.compute_ceilings().map(|(p, _)| p.name()),
        )
    })
}

/// The bandwidth ceiling of `level`, GB/s.
///
/// # Errors
/// [`RooflineError::MissingCeiling`] listing the levels it has.
pub(crate) fn memory(hw: &Hardware, level: MemoryLevel) -> Result<&Figure, RooflineError> {
    hw.memory(level).ok_or_else(|| {
        missing(
            hw,
            level.name(),
            hw.memory_ceilings().map(|(l, _)| l.name()),
        )
    })
}

fn missing<'a>(hw: &Hardware, what: &str, have: impl Iterator<Item = &'a str>) -> RooflineError {
    let have: Vec<&str> = have.collect();
    RooflineError::MissingCeiling {
        device: hw.name.clone(),
        what: what.to_owned(),
        available: if have.is_empty() {
            "none".to_owned()
        } else {
            have.join(", ")
        },
    }
}

/// Where a roofline's figures come from, in words: measured when any figure
/// was, published when every one is the preset table's, else configured.
pub(crate) fn origin(hw: &Hardware, words: [&'static str; 3]) -> &'static str {
    let figures = || {
        hw.compute_ceilings()
            .map(|(_, f)| f)
            .chain(hw.memory_ceilings().map(|(_, f)| f))
    };
    let [published, measured, configured] = words;
    if figures().any(|f| f.source.is_measured()) {
        measured
    } else if figures().all(|f| f.source.is_preset()) {
        published
    } else {
        configured
    }
}

/// Ridge point of `hw`: peak FLOP/s of `precision` over the bandwidth of
/// `level`, FLOP/byte.
///
/// # Errors
/// [`RooflineError::MissingCeiling`] when either ceiling is absent.
pub fn ridge_point(
    hw: &Hardware,
    precision: Precision,
    level: MemoryLevel,
) -> Result<f64, RooflineError> {
    Ok(compute(hw, precision)?.value * 1e12 / (memory(hw, level)?.value * 1e9))
}

/// Places a kernel of `arithmetic_intensity` (FLOP/byte) achieving
/// `achieved_flops` (FLOP/s) on the `precision` / `level` roof of `hw`.
///
/// ```
/// use profiler_report::hardware::preset;
/// use profiler_report::hardware::Bound;
/// use profiler_report::roofline::classify;
/// use profiler::hardware::{MemoryLevel, Precision};
/// let rtx = preset("4090").unwrap();
/// // Ridge: 82.6e12 / 1008e9 ≈ 81.9 FLOP/byte.
/// let c = classify(&rtx, 10.0, 5e12, Precision::Fp32, MemoryLevel::Dram).unwrap();
/// assert_eq!(c.bound, Bound::Memory);
/// assert!((c.efficiency_pct - 5e12 / 10.08e12 * 100.0).abs() < 1e-9);
/// ```
///
/// # Errors
/// [`RooflineError::MissingCeiling`] when `hw` lacks the precision or
/// level; [`RooflineError::InvalidValue`] when the intensity is not finite
/// and positive, or the FLOP/s not finite and non-negative.
pub fn classify(
    hw: &Hardware,
    arithmetic_intensity: f64,
    achieved_flops: f64,
    precision: Precision,
    level: MemoryLevel,
) -> Result<KernelClassification, RooflineError> {
    let ai = positive("arithmetic_intensity", arithmetic_intensity)?;
    let achieved = super::error::non_negative("achieved_flops", achieved_flops)?;
    let compute = compute(hw, precision)?;
    let memory = memory(hw, level)?;
    let (peak, bw) = (compute.value * 1e12, memory.value * 1e9);
    let ridge = peak / bw;
    let attainable = peak.min(ai * bw);
    let efficiency_pct = achieved / attainable * 100.0;
    Ok(KernelClassification {
        bound: if ai < ridge {
            Bound::Memory
        } else {
            Bound::Compute
        },
        arithmetic_intensity: ai,
        achieved_flops: achieved,
        attainable_flops: attainable,
        efficiency_pct,
        ridge_point: ridge,
        distance_to_ridge: ridge - ai,
        intensity_vs_ridge: ai / ridge,
        // A hair of tolerance: a kernel exactly on the roof is not above it.
        above_roof: efficiency_pct > 100.0 * (1.0 + 1e-9),
        estimate: compute.is_estimate() || memory.is_estimate(),
        impossible: impossible(hw, achieved, achieved / ai),
    })
}

/// Why `flops_per_s` (at `bytes_per_s`) cannot run on `hw`, if it cannot:
/// above its highest compute peak, or above its L1 bandwidth, by more than
/// [`IMPOSSIBLE_TOLERANCE`].
#[must_use]
pub fn impossible(hw: &Hardware, flops_per_s: f64, bytes_per_s: f64) -> Option<Impossible> {
    let peak = hw
        .compute_ceilings()
        .map(|(_, f)| f.value * 1e12)
        .fold(0.0, f64::max);
    if peak > 0.0 && flops_per_s > peak * IMPOSSIBLE_TOLERANCE {
        return Some(Impossible::AboveComputePeak {
            factor: flops_per_s / peak,
        });
    }
    let l1 = hw.memory(MemoryLevel::L1Cache)?.value * 1e9;
    (bytes_per_s > l1 * IMPOSSIBLE_TOLERANCE).then(|| Impossible::AboveL1Bandwidth {
        factor: bytes_per_s / l1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use profiler_core::hardware::Source;

    fn device() -> Hardware {
        let mut hw = Hardware::new("dev");
        hw.set_compute(Precision::Fp32, Figure::new(10.0, Source::Given))
            .unwrap();
        hw.set_memory(MemoryLevel::Dram, Figure::new(100.0, Source::Given))
            .unwrap();
        hw
    }
    #[test]
    fn classify_on_both_sides_of_the_ridge() {
        let r = device();
        // Ridge: 10e12 / 100e9 = 100 FLOP/byte.
        assert!(
            (ridge_point(&r, Precision::Fp32, MemoryLevel::Dram).unwrap() - 100.0).abs() < 1e-12
        );
        let below = classify(&r, 10.0, 0.5e12, Precision::Fp32, MemoryLevel::Dram).unwrap();
        assert_eq!(below.bound, Bound::Memory);
        assert!((below.attainable_flops - 1e12).abs() < 1.0);
        assert!((below.efficiency_pct - 50.0).abs() < 1e-9);
        assert!((below.distance_to_ridge - 90.0).abs() < 1e-9);
        assert!((below.intensity_vs_ridge - 0.1).abs() < 1e-12);
        assert!(!below.above_roof);
        let above = classify(&r, 1000.0, 2.5e12, Precision::Fp32, MemoryLevel::Dram).unwrap();
        assert_eq!(above.bound, Bound::Compute);
        assert!((above.attainable_flops - 10e12).abs() < 1.0);
        assert!((above.efficiency_pct - 25.0).abs() < 1e-9);
        assert!(above.distance_to_ridge < 0.0);
        // Exactly on the ridge counts as compute-bound.
        let ridge = classify(&r, 100.0, 10e12, Precision::Fp32, MemoryLevel::Dram).unwrap();
        assert_eq!(ridge.bound, Bound::Compute);
        assert!(!ridge.above_roof);
        let over = classify(&r, 1.0, 1e12, Precision::Fp32, MemoryLevel::Dram).unwrap();
        assert!(over.above_roof && over.efficiency_pct > 100.0);
        assert_eq!(over.impossible, None, "cache-served work may beat DRAM");
    }

    #[test]
    fn rates_beyond_every_ceiling_are_impossible() {
        let r = device();
        // 20 TFLOP/s against a 10 TFLOP/s peak.
        let c = classify(&r, 1000.0, 20e12, Precision::Fp32, MemoryLevel::Dram).unwrap();
        assert!(
            matches!(c.impossible, Some(Impossible::AboveComputePeak { factor }) if (factor - 2.0).abs() < 1e-9)
        );
        assert!(
            c.impossible
                .unwrap()
                .to_string()
                .contains("highest compute peak")
        );
        // Within the tolerance: a fast clock, not an impossibility.
        let c = classify(&r, 1000.0, 11e12, Precision::Fp32, MemoryLevel::Dram).unwrap();
        assert_eq!(c.impossible, None);
        let mut with_l1 = r;
        with_l1
            .set_memory(MemoryLevel::L1Cache, Figure::new(1000.0, Source::Given))
            .unwrap();
        // 5 TFLOP/s at 0.001 FLOP/byte: 5000 TB/s against a 1 TB/s L1.
        let c = classify(&with_l1, 0.001, 5e12, Precision::Fp32, MemoryLevel::Dram).unwrap();
        assert!(matches!(
            c.impossible,
            Some(Impossible::AboveL1Bandwidth { .. })
        ));
    }

    #[test]
    fn missing_ceilings_and_bad_inputs_are_errors() {
        let r = device();
        let e = classify(&r, 1.0, 1.0, Precision::Bf16, MemoryLevel::Dram).unwrap_err();
        assert!(
            matches!(&e, RooflineError::MissingCeiling { what, available, .. } if what == "BF16" && available == "FP32"),
            "{e}"
        );
        let e = classify(&r, 1.0, 1.0, Precision::Fp32, MemoryLevel::Pcie).unwrap_err();
        assert!(e.to_string().contains("PCIe"), "{e}");
        for ai in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = classify(&r, ai, 1.0, Precision::Fp32, MemoryLevel::Dram).unwrap_err();
            assert!(e.to_string().contains("arithmetic_intensity"), "{e}");
        }
        let e = classify(&r, 1.0, f64::NAN, Precision::Fp32, MemoryLevel::Dram).unwrap_err();
        assert!(e.to_string().contains("achieved_flops"), "{e}");
    }

    #[test]
    fn measured_ceilings_become_fp32_dram_and_cache_roofs() {
        let r = crate::model::hardware::sample_measured();
        assert_eq!(r.name, "Test CPU");
        assert_eq!(
            origin(&r, ["published", "measured", "configured"]),
            "measured"
        );
        assert!((compute(&r, Precision::Fp32).unwrap().value - 0.4).abs() < 1e-12);
        assert_eq!(memory(&r, MemoryLevel::L2Cache).unwrap().value, 150.0);
        assert!((ridge_point(&r, Precision::Fp32, MemoryLevel::Dram).unwrap() - 20.0).abs() < 1e-9);
        let h100 = crate::model::hardware::preset("h100").unwrap();
        assert_eq!(
            origin(&h100, ["published", "measured", "configured"]),
            "published"
        );
        assert_eq!(
            origin(&device(), ["published", "measured", "configured"]),
            "configured"
        );
    }
}
