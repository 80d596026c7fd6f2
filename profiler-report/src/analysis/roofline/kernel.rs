//! The kernel roofline: compute ceilings per [`Precision`], bandwidth
//! ceilings per [`MemoryLevel`], ridge points, and [`KernelRoofline::classify`]
//! which places a kernel (arithmetic intensity, achieved FLOP/s) on it.

use serde::{Deserialize, Serialize};

use super::error::{RooflineError, ceiling, positive};
use super::units::{
    Bound, CacheCapacity, CeilingSource, ComputeCeiling, IMPOSSIBLE_TOLERANCE, Impossible,
    MemoryCeiling, MemoryLevel, Precision,
};
use crate::model::hardware::{MAX_BANDWIDTH_GB_S, MAX_TFLOPS};

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

/// Compute and bandwidth ceilings of one device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelRoofline {
    /// Device name.
    pub name: String,
    /// Where the numbers come from.
    pub source: CeilingSource,
    compute: Vec<ComputeCeiling>,
    memory: Vec<MemoryCeiling>,
    /// Cache sizes, fastest level first: what decides the level a brick's
    /// working set is served from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) caches: Vec<CacheCapacity>,
    /// Set when the ceilings were measured while other work ran on the
    /// machine: why they are too low.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy: Option<String>,
}

impl KernelRoofline {
    /// A roofline with no ceilings yet.
    #[must_use]
    pub fn new(name: impl Into<String>, source: CeilingSource) -> Self {
        Self {
            name: name.into(),
            source,
            compute: Vec::new(),
            memory: Vec::new(),
            caches: Vec::new(),
            busy: None,
        }
    }

    /// Adds (or replaces) the compute ceiling of `precision`, TFLOP/s.
    ///
    /// # Errors
    /// [`RooflineError::InvalidValue`] naming the device and precision when
    /// `tflops` is zero, negative, not finite or beyond any real device.
    pub fn with_compute(
        mut self,
        precision: Precision,
        tflops: f64,
        estimate: bool,
    ) -> Result<Self, RooflineError> {
        let field = format!("{} {precision} peak (TFLOP/s)", self.name);
        let tflops = ceiling(&field, tflops, MAX_TFLOPS)?;
        self.compute.retain(|c| c.precision != precision);
        self.compute.push(ComputeCeiling {
            precision,
            tflops,
            estimate,
        });
        self.compute.sort_by_key(|c| c.precision);
        Ok(self)
    }

    /// Adds (or replaces) the bandwidth ceiling of `level`, GB/s.
    ///
    /// # Errors
    /// [`RooflineError::InvalidValue`] naming the device and level when
    /// `gb_s` is zero, negative, not finite or beyond any real device.
    pub fn with_memory(
        mut self,
        level: MemoryLevel,
        gb_s: f64,
        estimate: bool,
    ) -> Result<Self, RooflineError> {
        let field = format!("{} {level} bandwidth (GB/s)", self.name);
        let gb_s = ceiling(&field, gb_s, MAX_BANDWIDTH_GB_S)?;
        self.memory.retain(|m| m.level != level);
        self.memory.push(MemoryCeiling {
            level,
            gb_s,
            estimate,
        });
        self.memory.sort_by_key(|m| m.level);
        Ok(self)
    }

    /// Compute ceilings, in [`Precision`] order.
    #[must_use]
    pub fn compute_ceilings(&self) -> &[ComputeCeiling] {
        &self.compute
    }

    /// Bandwidth ceilings, fastest level first.
    #[must_use]
    pub fn memory_ceilings(&self) -> &[MemoryCeiling] {
        &self.memory
    }

    /// The compute ceiling of `precision`.
    ///
    /// # Errors
    /// [`RooflineError::MissingCeiling`] listing the precisions it has.
    pub fn compute(&self, precision: Precision) -> Result<ComputeCeiling, RooflineError> {
        self.compute
            .iter()
            .find(|c| c.precision == precision)
            .copied()
            .ok_or_else(|| {
                self.missing(
                    precision.name(),
                    self.compute.iter().map(|c| c.precision.name()),
                )
            })
    }

    /// The bandwidth ceiling of `level`.
    ///
    /// # Errors
    /// [`RooflineError::MissingCeiling`] listing the levels it has.
    pub fn memory(&self, level: MemoryLevel) -> Result<MemoryCeiling, RooflineError> {
        self.memory
            .iter()
            .find(|m| m.level == level)
            .copied()
            .ok_or_else(|| self.missing(level.name(), self.memory.iter().map(|m| m.level.name())))
    }

    fn missing<'a>(&self, what: &str, have: impl Iterator<Item = &'a str>) -> RooflineError {
        let have: Vec<&str> = have.collect();
        RooflineError::MissingCeiling {
            device: self.name.clone(),
            what: what.to_owned(),
            available: if have.is_empty() {
                "none".to_owned()
            } else {
                have.join(", ")
            },
        }
    }

    /// Ridge point: peak FLOP/s over bandwidth, FLOP/byte.
    ///
    /// # Errors
    /// [`RooflineError::MissingCeiling`] when either ceiling is absent.
    pub fn ridge_point(
        &self,
        precision: Precision,
        level: MemoryLevel,
    ) -> Result<f64, RooflineError> {
        Ok(self.compute(precision)?.tflops * 1e12 / (self.memory(level)?.gb_s * 1e9))
    }

    /// Places a kernel of `arithmetic_intensity` (FLOP/byte) achieving
    /// `achieved_flops` (FLOP/s) on the `precision` / `level` roof.
    ///
    /// ```
    /// use profiler_report::{hardware::{Bound, MemoryLevel, Precision}, roofline::KernelRoofline};
    /// let rtx = KernelRoofline::rtx_4090();
    /// // Ridge: 82.6e12 / 1008e9 ≈ 81.9 FLOP/byte.
    /// let c = rtx.classify(10.0, 5e12, Precision::Fp32, MemoryLevel::Dram).unwrap();
    /// assert_eq!(c.bound, Bound::Memory);
    /// assert!((c.efficiency_pct - 5e12 / 10.08e12 * 100.0).abs() < 1e-9);
    /// ```
    ///
    /// # Errors
    /// [`RooflineError::MissingCeiling`] when the roofline lacks the
    /// precision or level; [`RooflineError::InvalidValue`] when the intensity
    /// is not finite and positive, or the FLOP/s not finite and non-negative.
    pub fn classify(
        &self,
        arithmetic_intensity: f64,
        achieved_flops: f64,
        precision: Precision,
        level: MemoryLevel,
    ) -> Result<KernelClassification, RooflineError> {
        let ai = positive("arithmetic_intensity", arithmetic_intensity)?;
        let achieved = super::error::non_negative("achieved_flops", achieved_flops)?;
        let compute = self.compute(precision)?;
        let memory = self.memory(level)?;
        let (peak, bw) = (compute.tflops * 1e12, memory.gb_s * 1e9);
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
            estimate: compute.estimate || memory.estimate,
            impossible: self.impossible(achieved, achieved / ai),
        })
    }

    /// Why `flops_per_s` (at `bytes_per_s`) cannot run on this device, if it
    /// cannot: above its highest compute peak, or above its L1 bandwidth,
    /// by more than [`IMPOSSIBLE_TOLERANCE`].
    #[must_use]
    pub fn impossible(&self, flops_per_s: f64, bytes_per_s: f64) -> Option<Impossible> {
        let peak = self
            .compute
            .iter()
            .map(|c| c.tflops * 1e12)
            .fold(0.0, f64::max);
        if peak > 0.0 && flops_per_s > peak * IMPOSSIBLE_TOLERANCE {
            return Some(Impossible::AboveComputePeak {
                factor: flops_per_s / peak,
            });
        }
        let l1 = self.memory(MemoryLevel::L1Cache).ok()?.gb_s * 1e9;
        (bytes_per_s > l1 * IMPOSSIBLE_TOLERANCE).then(|| Impossible::AboveL1Bandwidth {
            factor: bytes_per_s / l1,
        })
    }

    /// A roofline from ceilings already checked (by the hardware model).
    pub(crate) fn from_parts(
        name: String,
        source: CeilingSource,
        mut compute: Vec<ComputeCeiling>,
        mut memory: Vec<MemoryCeiling>,
    ) -> Self {
        compute.sort_by_key(|c| c.precision);
        memory.sort_by_key(|m| m.level);
        Self {
            name,
            source,
            compute,
            memory,
            caches: Vec::new(),
            busy: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device() -> KernelRoofline {
        KernelRoofline::new("dev", CeilingSource::Custom)
            .with_compute(Precision::Fp32, 10.0, false)
            .and_then(|r| r.with_memory(MemoryLevel::Dram, 100.0, false))
            .unwrap()
    }

    #[test]
    fn classify_on_both_sides_of_the_ridge() {
        let r = device();
        // Ridge: 10e12 / 100e9 = 100 FLOP/byte.
        assert!((r.ridge_point(Precision::Fp32, MemoryLevel::Dram).unwrap() - 100.0).abs() < 1e-12);
        let below = r
            .classify(10.0, 0.5e12, Precision::Fp32, MemoryLevel::Dram)
            .unwrap();
        assert_eq!(below.bound, Bound::Memory);
        assert!((below.attainable_flops - 1e12).abs() < 1.0);
        assert!((below.efficiency_pct - 50.0).abs() < 1e-9);
        assert!((below.distance_to_ridge - 90.0).abs() < 1e-9);
        assert!((below.intensity_vs_ridge - 0.1).abs() < 1e-12);
        assert!(!below.above_roof);
        let above = r
            .classify(1000.0, 2.5e12, Precision::Fp32, MemoryLevel::Dram)
            .unwrap();
        assert_eq!(above.bound, Bound::Compute);
        assert!((above.attainable_flops - 10e12).abs() < 1.0);
        assert!((above.efficiency_pct - 25.0).abs() < 1e-9);
        assert!(above.distance_to_ridge < 0.0);
        // Exactly on the ridge counts as compute-bound.
        let ridge = r
            .classify(100.0, 10e12, Precision::Fp32, MemoryLevel::Dram)
            .unwrap();
        assert_eq!(ridge.bound, Bound::Compute);
        assert!(!ridge.above_roof);
        let over = r
            .classify(1.0, 1e12, Precision::Fp32, MemoryLevel::Dram)
            .unwrap();
        assert!(over.above_roof && over.efficiency_pct > 100.0);
        assert_eq!(over.impossible, None, "cache-served work may beat DRAM");
    }

    #[test]
    fn rates_beyond_every_ceiling_are_impossible() {
        let r = device();
        // 20 TFLOP/s against a 10 TFLOP/s peak.
        let c = r
            .classify(1000.0, 20e12, Precision::Fp32, MemoryLevel::Dram)
            .unwrap();
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
        let c = r
            .classify(1000.0, 11e12, Precision::Fp32, MemoryLevel::Dram)
            .unwrap();
        assert_eq!(c.impossible, None);
        let with_l1 = r.with_memory(MemoryLevel::L1Cache, 1000.0, false).unwrap();
        // 5 TFLOP/s at 0.001 FLOP/byte: 5000 TB/s against a 1 TB/s L1.
        let c = with_l1
            .classify(0.001, 5e12, Precision::Fp32, MemoryLevel::Dram)
            .unwrap();
        assert!(matches!(
            c.impossible,
            Some(Impossible::AboveL1Bandwidth { .. })
        ));
    }

    #[test]
    fn missing_ceilings_and_bad_inputs_are_errors() {
        let r = device();
        let e = r
            .classify(1.0, 1.0, Precision::Bf16, MemoryLevel::Dram)
            .unwrap_err();
        assert!(
            matches!(&e, RooflineError::MissingCeiling { what, available, .. } if what == "BF16" && available == "FP32"),
            "{e}"
        );
        let e = r
            .classify(1.0, 1.0, Precision::Fp32, MemoryLevel::Pcie)
            .unwrap_err();
        assert!(e.to_string().contains("PCIe"), "{e}");
        for ai in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = r
                .classify(ai, 1.0, Precision::Fp32, MemoryLevel::Dram)
                .unwrap_err();
            assert!(e.to_string().contains("arithmetic_intensity"), "{e}");
        }
        let e = r
            .classify(1.0, f64::NAN, Precision::Fp32, MemoryLevel::Dram)
            .unwrap_err();
        assert!(e.to_string().contains("achieved_flops"), "{e}");
        let e = KernelRoofline::new("gpu", CeilingSource::Custom)
            .with_compute(Precision::Fp16, f64::INFINITY, false)
            .unwrap_err();
        assert!(e.to_string().contains("gpu FP16 peak"), "{e}");
        let e = KernelRoofline::new("gpu", CeilingSource::Custom)
            .with_memory(MemoryLevel::L2Cache, 0.0, false)
            .unwrap_err();
        assert!(e.to_string().contains("gpu L2 bandwidth"), "{e}");
    }
}
