//! The scorecard's verdicts: the efficiency [`Grade`] and the [`Bottleneck`].

use std::fmt;

use serde::{Deserialize, Serialize};

/// Efficiency grade, ordered `F < D < C < B < A`; serialised as `"A"`..`"F"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Grade {
    /// Efficiency below 0.10.
    F,
    /// Efficiency at least 0.10.
    D,
    /// Efficiency at least 0.20.
    C,
    /// Efficiency at least 0.40.
    B,
    /// Efficiency at least 0.60.
    A,
}

impl Grade {
    /// The letter.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::A => "A",
            Self::B => "B",
            Self::C => "C",
            Self::D => "D",
            Self::F => "F",
        }
    }
}

impl fmt::Display for Grade {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What limits a training step; serialised snake_case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bottleneck {
    /// Host-device transfers take a large share of the step.
    Transfer,
    /// Time outside any phase (kernel launches, host gaps) dominates.
    Launch,
    /// Throughput is near the hardware ceiling.
    Compute,
    /// Memory bandwidth bound: the default class.
    MemoryBw,
}

impl Bottleneck {
    /// The snake_case name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Transfer => "transfer",
            Self::Launch => "launch",
            Self::Compute => "compute",
            Self::MemoryBw => "memory_bw",
        }
    }

    /// Concrete advice for this bottleneck.
    #[must_use]
    pub const fn recommendation(self) -> &'static str {
        match self {
            Self::Transfer => {
                "Host-device transfers dominate the step: keep weights and optimizer state \
                 resident on the device, use pinned host memory with async copies overlapped \
                 with compute, and batch small transfers into one."
            }
            Self::Launch => {
                "Time outside the profiled phases dominates (kernel launches, host gaps): fuse \
                 small kernels, capture the step with CUDA graphs, and batch launches; check \
                 for host-side syncs between kernels."
            }
            Self::Compute => {
                "Compute bound and close to the hardware ceiling: gains now come from doing \
                 less work (algorithmic changes, lower precision, recomputation trade-offs)."
            }
            Self::MemoryBw => {
                "Memory-bandwidth bound: use tensor-core GEMMs in bf16/fp16, fuse elementwise \
                 ops into their producers, and raise arithmetic intensity (larger batch or \
                 sequence per step)."
            }
        }
    }
}

impl fmt::Display for Bottleneck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
