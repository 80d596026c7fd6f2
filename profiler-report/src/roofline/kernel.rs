//! The kernel roofline: compute ceilings per [`Precision`], bandwidth
//! ceilings per [`MemoryLevel`], ridge points, and [`KernelRoofline::classify`]
//! which places a kernel (arithmetic intensity, achieved FLOP/s) on it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::error::{RooflineError, positive};

/// Arithmetic precision of a compute ceiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// 32-bit float.
    Fp32,
    /// 16-bit float.
    Fp16,
    /// TensorFloat-32 (tensor cores).
    Tf32,
    /// 8-bit integer (TOP/s).
    Int8,
    /// bfloat16.
    Bf16,
}

impl Precision {
    /// Every precision, in declaration order.
    pub const ALL: [Self; 5] = [Self::Fp32, Self::Fp16, Self::Tf32, Self::Int8, Self::Bf16];

    /// Display name: `FP32`, `FP16`, `TF32`, `INT8`, `BF16`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Fp32 => "FP32",
            Self::Fp16 => "FP16",
            Self::Tf32 => "TF32",
            Self::Int8 => "INT8",
            Self::Bf16 => "BF16",
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Precision {
    type Err = RooflineError;

    /// Case-insensitive `fp32`, `fp16`, `tf32`, `int8`, `bf16`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| RooflineError::InvalidValue {
                field: "precision".to_owned(),
                value: s.to_owned(),
                reason: "expected fp32, fp16, tf32, int8 or bf16",
            })
    }
}

/// Memory level of a bandwidth ceiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryLevel {
    /// L1 cache / shared memory.
    L1Cache,
    /// L2 cache.
    L2Cache,
    /// Device or main memory.
    Dram,
    /// Host-device link.
    Pcie,
}

impl MemoryLevel {
    /// Every level, fastest first.
    pub const ALL: [Self; 4] = [Self::L1Cache, Self::L2Cache, Self::Dram, Self::Pcie];

    /// Display name: `L1`, `L2`, `DRAM`, `PCIe`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::L1Cache => "L1",
            Self::L2Cache => "L2",
            Self::Dram => "DRAM",
            Self::Pcie => "PCIe",
        }
    }
}

impl fmt::Display for MemoryLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for MemoryLevel {
    type Err = RooflineError;

    /// Case-insensitive `l1`, `l2`, `dram`, `pcie` (also `hbm`, `memory`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "l1" | "l1cache" | "l1_cache" => Ok(Self::L1Cache),
            "l2" | "l2cache" | "l2_cache" => Ok(Self::L2Cache),
            "dram" | "hbm" | "memory" => Ok(Self::Dram),
            "pcie" => Ok(Self::Pcie),
            _ => Err(RooflineError::InvalidValue {
                field: "memory level".to_owned(),
                value: s.to_owned(),
                reason: "expected l1, l2, dram or pcie",
            }),
        }
    }
}

/// Where a roofline's numbers come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CeilingSource {
    /// Vendor datasheet figures.
    Published,
    /// Measured on the machine by micro-benchmarks.
    Measured,
    /// Given by the user (environment, file or code).
    Custom,
}

/// A compute ceiling.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ComputeCeiling {
    /// Precision.
    pub precision: Precision,
    /// Peak, TFLOP/s (TOP/s for INT8).
    pub tflops: f64,
    /// Whether the figure is an estimate.
    pub estimate: bool,
}

/// A bandwidth ceiling.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MemoryCeiling {
    /// Memory level.
    pub level: MemoryLevel,
    /// Bandwidth, GB/s.
    pub gb_s: f64,
    /// Whether the figure is an estimate.
    pub estimate: bool,
}

/// Memory-bound or compute-bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// Left of the ridge: bandwidth limits it.
    Memory,
    /// At or right of the ridge: arithmetic limits it.
    Compute,
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Memory => "memory-bound",
            Self::Compute => "compute-bound",
        })
    }
}

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
        }
    }

    /// Adds (or replaces) the compute ceiling of `precision`, TFLOP/s.
    ///
    /// # Errors
    /// [`RooflineError::InvalidValue`] naming the device and precision when
    /// `tflops` is zero, negative or not finite.
    pub fn with_compute(
        mut self,
        precision: Precision,
        tflops: f64,
        estimate: bool,
    ) -> Result<Self, RooflineError> {
        let tflops = positive(&format!("{} {precision} peak (TFLOP/s)", self.name), tflops)?;
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
    /// `gb_s` is zero, negative or not finite.
    pub fn with_memory(
        mut self,
        level: MemoryLevel,
        gb_s: f64,
        estimate: bool,
    ) -> Result<Self, RooflineError> {
        let gb_s = positive(&format!("{} {level} bandwidth (GB/s)", self.name), gb_s)?;
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
    /// use profiler_report::{Bound, KernelRoofline, MemoryLevel, Precision};
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
        })
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

    #[test]
    fn names_parse_back() {
        for p in Precision::ALL {
            assert_eq!(p.name().parse::<Precision>().unwrap(), p);
        }
        for l in MemoryLevel::ALL {
            assert_eq!(l.name().parse::<MemoryLevel>().unwrap(), l);
        }
        assert!("fp64".parse::<Precision>().is_err());
        assert!("l3".parse::<MemoryLevel>().is_err());
    }
}
