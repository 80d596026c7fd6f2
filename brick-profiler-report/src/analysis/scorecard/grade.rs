//! The scorecard's verdicts: the efficiency [`Grade`], the [`Bottleneck`],
//! and [`Withheld`], the reason a grade is not given when no honest one
//! exists.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::units::{bytes, si, tok_s};

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

/// Why the grade and efficiency were withheld (`null` in JSON) rather than
/// guessed; its `Display` is the reason shown next to them. Serialised as an
/// object tagged by `reason` (`"unknown_peak"`, `"above_ceiling"`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Withheld {
    /// No hardware ceiling was given.
    UnknownPeak,
    /// The ceiling is not a finite, positive throughput: a bandwidth or
    /// bytes per token that is zero, negative, NaN, or so small that the
    /// ceiling is unbounded. The values are `None` where not finite.
    InvalidCeiling {
        /// Peak bandwidth given, GB/s.
        peak_bw_gb_s: Option<f64>,
        /// Bytes per token given.
        bytes_per_token: Option<f64>,
    },
    /// Measured throughput above the ceiling: the ceiling cannot be right
    /// for this run (wrong device, or bytes per token too large).
    AboveCeiling {
        /// Measured throughput, tokens/s.
        throughput_tok_s: f64,
        /// The ceiling, tokens/s.
        peak_tok_s: f64,
    },
    /// Some recorded steps were empty, so the step times (and the
    /// throughput from them) are not a measurement of the work.
    EmptySteps {
        /// Empty steps.
        empty: u64,
        /// Recorded steps.
        steps: u64,
    },
    /// The ceiling was measured while other work ran on the machine, so it
    /// is too low and a grade against it would flatter the run.
    BusyMachine {
        /// The signs of other work the probes saw.
        why: String,
    },
    /// No usable throughput (nothing recorded, no tokens, not finite).
    NoThroughput {
        /// What is missing, in words.
        why: String,
    },
}

impl fmt::Display for Withheld {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownPeak => {
                f.write_str("unknown peak: set PROFILER_HARDWARE=<device> or PROFILER_PEAK_BW_GB_S")
            }
            Self::InvalidCeiling {
                peak_bw_gb_s,
                bytes_per_token,
            } => {
                let bw = peak_bw_gb_s.map_or_else(
                    || "a non-finite bandwidth".to_owned(),
                    |b| format!("{} GB/s", si(b)),
                );
                let per_token =
                    bytes_per_token.map_or_else(|| "a non-finite size".to_owned(), bytes);
                write!(
                    f,
                    "the ceiling ({bw} over {per_token} per token) is not a finite, positive \
                     throughput, so the hardware settings are wrong"
                )
            }
            Self::AboveCeiling {
                throughput_tok_s,
                peak_tok_s,
            } => write!(
                f,
                "throughput {} is above the {} ceiling, so the peak or bytes/token is wrong \
                 for this run",
                tok_s(*throughput_tok_s),
                tok_s(*peak_tok_s)
            ),
            Self::EmptySteps { empty, steps } => write!(
                f,
                "{empty} of {steps} steps were empty, so their times measure nothing"
            ),
            Self::BusyMachine { why } => write!(
                f,
                "the machine was busy while its ceilings were measured ({why}), so the ceiling \
                 may be too low; pin one with `brick-profiler probe --save` on a quiet machine \
                 or PROFILER_HARDWARE=<device>"
            ),
            Self::NoThroughput { why } => f.write_str(why),
        }
    }
}
