//! Why a placement on a roofline cannot be physical ([`Impossible`]) and
//! how far above a ceiling a rate may sit before it is called so.

use std::fmt;

use serde::{Deserialize, Serialize};

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

/// How far above a device's highest ceiling an achieved rate may sit before
/// it is called impossible: clocks above the rated boost and rounded
/// datasheet figures stay within it.
pub const IMPOSSIBLE_TOLERANCE: f64 = 1.25;
