//! The vocabulary of rooflines: where a roofline's figures come from
//! ([`CeilingSource`]), one ceiling of each kind, and which side of the
//! ridge a kernel is on. Precisions and memory levels are the hardware
//! model's.

use std::fmt;

use serde::{Deserialize, Serialize};

pub use crate::hardware::{MemoryLevel, Precision};

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
    fn bounds_read_as_words() {
        assert_eq!(Bound::Memory.to_string(), "memory-bound");
        assert_eq!(Bound::Compute.to_string(), "compute-bound");
    }
}
