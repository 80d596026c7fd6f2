//! [`Bound`]: which roof limits a kernel, the word every placement on a
//! roofline ends in (brick rooflines, Nsight Compute launches).

use std::fmt;

use serde::{Deserialize, Serialize};

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
