//! The vocabulary of rooflines: where a roofline's figures come from
//! ([`CeilingSource`]), one ceiling of each kind, which side of the ridge a
//! kernel is on, and why a placement cannot be physical. Precisions and memory levels are the hardware
//! model's.

use std::fmt;

use serde::{Deserialize, Serialize};

pub(crate) use crate::model::hardware::{Bound, MemoryLevel, Precision};

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

/// Achieved rates no device of this roofline can reach, beyond
/// [`IMPOSSIBLE_TOLERANCE`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Impossible {
    /// Achieved FLOP/s above the highest compute peak of any precision.
    AboveComputePeak {
        /// Achieved over that peak.
        factor: f64,
    },
    /// Bytes per second (achieved FLOP/s over intensity) above the L1
    /// bandwidth, the fastest level any data is served from.
    AboveL1Bandwidth {
        /// Achieved over that bandwidth.
        factor: f64,
    },
}

impl fmt::Display for Impossible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::AboveComputePeak { factor } => write!(
                f,
                "achieved FLOP/s are {factor:.3e} times the highest compute peak of the device: \
                 the FLOPs or the duration are wrong"
            ),
            Self::AboveL1Bandwidth { factor } => write!(
                f,
                "bytes moved per second are {factor:.3e} times the device's L1 bandwidth: \
                 the bytes or the duration are wrong"
            ),
        }
    }
}

/// The size of one cache level, and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheCapacity {
    /// The level.
    pub level: MemoryLevel,
    /// Size one core sees, bytes.
    pub bytes: u64,
    /// Where the size came from (sysfs, a hardware file, ...).
    pub source: String,
}

/// How far above a device's highest ceiling an achieved rate may sit before
/// it is called impossible: clocks above the rated boost and rounded
/// datasheet figures stay within it.
pub const IMPOSSIBLE_TOLERANCE: f64 = 1.25;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_read_as_words() {
        assert_eq!(Bound::Memory.to_string(), "memory-bound");
        assert_eq!(Bound::Compute.to_string(), "compute-bound");
    }
}
