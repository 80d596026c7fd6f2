//! The vocabulary of hardware ceilings: [`Precision`] and [`MemoryLevel`]
//! (with names that parse back), and the plausibility check every ceiling
//! passes, whoever gives it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

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
    /// 64-bit float.
    Fp64,
}

impl Precision {
    /// Every precision, in declaration order.
    pub const ALL: [Self; 6] = [
        Self::Fp32,
        Self::Fp16,
        Self::Tf32,
        Self::Int8,
        Self::Bf16,
        Self::Fp64,
    ];

    /// Display name: `FP32`, `FP16`, `TF32`, `INT8`, `BF16`, `FP64`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Fp32 => "FP32",
            Self::Fp16 => "FP16",
            Self::Tf32 => "TF32",
            Self::Int8 => "INT8",
            Self::Bf16 => "BF16",
            Self::Fp64 => "FP64",
        }
    }
}

impl Precision {
    /// What a peak in this precision counts: `"OP"` for INT8 (integer
    /// operations), `"FLOP"` for the others.
    #[must_use]
    pub fn operation(self) -> &'static str {
        match self {
            Self::Int8 => "OP",
            _ => "FLOP",
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Precision {
    type Err = UnitError;

    /// Case-insensitive `fp64`, `fp32`, `fp16`, `tf32`, `int8`, `bf16`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnitError {
                what: "precision",
                value: s.to_owned(),
                expected: "fp64, fp32, tf32, fp16, bf16 or int8",
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
    /// Last-level cache beyond L2 (L3 on CPUs).
    L3Cache,
    /// Device or main memory.
    Dram,
    /// Host-device link.
    Pcie,
}

impl MemoryLevel {
    /// Every level, fastest first.
    pub const ALL: [Self; 5] = [
        Self::L1Cache,
        Self::L2Cache,
        Self::L3Cache,
        Self::Dram,
        Self::Pcie,
    ];

    /// Display name: `L1`, `L2`, `L3`, `DRAM`, `PCIe`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::L1Cache => "L1",
            Self::L2Cache => "L2",
            Self::L3Cache => "L3",
            Self::Dram => "DRAM",
            Self::Pcie => "PCIe",
        }
    }
}

impl From<crate::level::BrickLevel> for MemoryLevel {
    /// The level a `#[brick(level = ..)]` annotation names.
    fn from(level: crate::level::BrickLevel) -> Self {
        match level {
            crate::level::BrickLevel::L1 => Self::L1Cache,
            crate::level::BrickLevel::L2 => Self::L2Cache,
            crate::level::BrickLevel::L3 => Self::L3Cache,
            crate::level::BrickLevel::Dram => Self::Dram,
        }
    }
}

impl fmt::Display for MemoryLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for MemoryLevel {
    type Err = UnitError;

    /// Case-insensitive `l1`, `l2`, `l3` (or `llc`), `dram` (or `hbm`,
    /// `memory`), `pcie`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "l1" | "l1cache" | "l1_cache" => Ok(Self::L1Cache),
            "l2" | "l2cache" | "l2_cache" => Ok(Self::L2Cache),
            "l3" | "l3cache" | "l3_cache" | "llc" => Ok(Self::L3Cache),
            "dram" | "hbm" | "memory" => Ok(Self::Dram),
            "pcie" => Ok(Self::Pcie),
            _ => Err(UnitError {
                what: "memory level",
                value: s.to_owned(),
                expected: "l1, l2, l3 (llc), dram or pcie",
            }),
        }
    }
}

/// A precision or memory level name that is not known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {what} `{value}`: expected {expected}")]
pub struct UnitError {
    /// `precision` or `memory level`.
    pub what: &'static str,
    /// The text given.
    pub value: String,
    /// The names accepted.
    pub expected: &'static str,
}

/// Fastest bandwidth any ceiling may claim, GB/s: 100 PB/s, beyond the
/// aggregate on-chip SRAM bandwidth of the largest wafer-scale parts.
pub const MAX_BANDWIDTH_GB_S: f64 = 1e8;

/// Highest compute peak any ceiling may claim, TFLOP/s (10 EFLOP/s).
pub const MAX_TFLOPS: f64 = 1e7;

/// Why `value` cannot be a ceiling no larger than `max`, if it cannot: not a
/// number, not finite, not above zero, or beyond any real device.
#[must_use]
pub fn ceiling_problem(value: f64, max: f64) -> Option<&'static str> {
    if value.is_nan() {
        Some("not a number")
    } else if !value.is_finite() {
        Some("not finite")
    } else if value <= 0.0 {
        Some("must be greater than 0")
    } else if value > max {
        Some("beyond any real device")
    } else {
        None
    }
}

/// A value as an error shows it: plain, or in exponent form when plain
/// would run to hundreds of digits.
#[must_use]
pub fn shown(value: f64) -> String {
    if value != 0.0 && !(1e-6..1e15).contains(&value.abs()) {
        format!("{value:e}")
    } else {
        value.to_string()
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
        assert_eq!("llc".parse::<MemoryLevel>(), Ok(MemoryLevel::L3Cache));
        let e = "fp128".parse::<Precision>().unwrap_err();
        assert!(e.to_string().contains("`fp128`"), "{e}");
        assert!("l4".parse::<MemoryLevel>().is_err());
    }

    #[test]
    fn implausible_ceilings_say_why() {
        assert_eq!(ceiling_problem(1008.0, MAX_BANDWIDTH_GB_S), None);
        assert_eq!(
            ceiling_problem(1e308, MAX_BANDWIDTH_GB_S),
            Some("beyond any real device")
        );
        assert_eq!(ceiling_problem(f64::NAN, 1.0), Some("not a number"));
        assert_eq!(ceiling_problem(f64::INFINITY, 1.0), Some("not finite"));
        assert_eq!(ceiling_problem(-1.0, 1.0), Some("must be greater than 0"));
        assert_eq!(shown(1e308), "1e308");
        assert_eq!(shown(-5.0), "-5");
    }
}
