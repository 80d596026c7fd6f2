//! The vocabulary of rooflines: [`Precision`] and [`MemoryLevel`] (with
//! names that parse back), where figures come from ([`CeilingSource`]),
//! one ceiling of each kind, and which side of the ridge a kernel is on.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::error::RooflineError;

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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(Bound::Memory.to_string(), "memory-bound");
    }
}
