//! [`BrickStats`]: one brick's accumulated samples and the values derived
//! from them (averages, throughput, percentiles, cycle diagnosis).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::histogram::LatencyHistogram;
use super::summary::Summary;
use crate::catalogue::{BrickBottleneck, BrickCategory};

/// Accumulated statistics of one brick across all threads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BrickStats {
    /// Brick name.
    pub name: String,
    /// Category its time counts under.
    #[serde(default)]
    pub category: BrickCategory,
    /// Samples.
    pub count: u64,
    /// Total time, ns.
    pub total_ns: u64,
    /// Time spent in bricks called from this one (on the same thread,
    /// synchronously), ns: `total_ns - child_ns` is the brick's own time.
    /// 0 for `async` bricks and samples measured elsewhere, whose nesting
    /// is not tracked.
    #[serde(default)]
    pub child_ns: u64,
    /// Shortest sample, ns (`u64::MAX` when there is none; `null` in JSON).
    #[serde(with = "crate::sentinel", default = "crate::sentinel::none")]
    pub min_ns: u64,
    /// Longest sample, ns.
    pub max_ns: u64,
    /// Elements (tokens) processed.
    #[serde(default)]
    pub total_elements: u64,
    /// Bytes processed.
    #[serde(default)]
    pub total_bytes: u64,
    /// Compressed bytes produced (`record_elapsed_with_bytes`).
    #[serde(default)]
    pub total_compressed_bytes: u64,
    /// Floating-point operations performed.
    #[serde(default)]
    pub total_flops: u64,
    /// Bottleneck label.
    #[serde(default)]
    pub bottleneck: BrickBottleneck,
    /// Total cycles (time-stamp-counter ticks when that clock is in use, else 0).
    #[serde(default)]
    pub total_cycles: u64,
    /// Fewest cycles of a sample (`u64::MAX` when there is none; `null` in
    /// JSON).
    #[serde(with = "crate::sentinel", default = "crate::sentinel::none")]
    pub min_cycles: u64,
    /// Most cycles of a sample.
    #[serde(default)]
    pub max_cycles: u64,
    /// Latency distribution.
    #[serde(default)]
    pub latency: LatencyHistogram,
}

/// What the cycle counts suggest about a brick (see [`BrickStats::diagnose_from_cycles`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CycleDiagnosis {
    /// No cycle or time data.
    InsufficientData,
    /// Estimated IPC below 0.5.
    MemoryBound,
    /// Estimated IPC above 2.
    ComputeBound,
    /// More than 1 ns per cycle.
    Throttled,
    /// None of the above.
    Balanced,
}

impl fmt::Display for CycleDiagnosis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::InsufficientData => "insufficient data",
            Self::MemoryBound => "memory-bound (low IPC, likely cache misses)",
            Self::ComputeBound => "compute-bound (efficient)",
            Self::Throttled => "throttled or context-switched",
            Self::Balanced => "balanced",
        })
    }
}

pub(super) fn ratio(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

/// Mean µs per sample (0 without samples).
pub(super) fn avg_us(total_ns: u64, count: u64) -> f64 {
    ratio(total_ns, count) / 1000.0
}

/// Elements per second, as the reference computes it (0 without time).
pub(super) fn per_second(elements: u64, total_ns: u64) -> f64 {
    if total_ns == 0 {
        0.0
    } else {
        elements as f64 / (total_ns as f64 / 1e9)
    }
}

/// `part` as a percentage of `whole` (0 when `whole` is 0).
pub(super) fn percent(part: u64, whole: u64) -> f64 {
    100.0 * ratio(part, whole)
}

impl BrickStats {
    /// Empty statistics for `name`.
    #[must_use]
    pub fn new(name: impl Into<String>, category: BrickCategory) -> Self {
        Self {
            name: name.into(),
            category,
            count: 0,
            total_ns: 0,
            child_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
            total_elements: 0,
            total_bytes: 0,
            total_compressed_bytes: 0,
            total_flops: 0,
            bottleneck: BrickBottleneck::Unknown,
            total_cycles: 0,
            min_cycles: u64::MAX,
            max_cycles: 0,
            latency: LatencyHistogram::default(),
        }
    }

    /// The brick's own time, ns: its total minus the time of bricks called
    /// from it.
    #[must_use]
    pub fn self_ns(&self) -> u64 {
        self.total_ns.saturating_sub(self.child_ns)
    }

    /// Mean time per sample, µs (0 when there are none).
    #[must_use]
    pub fn avg_us(&self) -> f64 {
        avg_us(self.total_ns, self.count)
    }

    /// Shortest sample, µs (0 when there are none).
    #[must_use]
    pub fn min_us(&self) -> f64 {
        if self.min_ns == u64::MAX || self.count == 0 {
            0.0
        } else {
            self.min_ns as f64 / 1000.0
        }
    }

    /// Longest sample, µs.
    #[must_use]
    pub fn max_us(&self) -> f64 {
        self.max_ns as f64 / 1000.0
    }

    /// Elements per second (0 when no time was measured).
    #[must_use]
    pub fn throughput(&self) -> f64 {
        per_second(self.total_elements, self.total_ns)
    }

    /// `total_bytes / total_compressed_bytes` (1.0 without compression data).
    #[must_use]
    pub fn compression_ratio(&self) -> f64 {
        if self.total_compressed_bytes == 0 {
            1.0
        } else {
            ratio(self.total_bytes, self.total_compressed_bytes)
        }
    }

    /// Bytes per ns, i.e. GB/s (0 when no time was measured).
    #[must_use]
    pub fn throughput_gbps(&self) -> f64 {
        ratio(self.total_bytes, self.total_ns)
    }

    /// Achieved GFLOP/s: flops per ns.
    #[must_use]
    pub fn gflops(&self) -> f64 {
        ratio(self.total_flops, self.total_ns)
    }

    /// Arithmetic intensity, flops per byte (0 without bytes).
    #[must_use]
    pub fn arithmetic_intensity(&self) -> f64 {
        ratio(self.total_flops, self.total_bytes)
    }

    /// Cycles per element (frequency-invariant cost; lower is better).
    #[must_use]
    pub fn cycles_per_element(&self) -> f64 {
        ratio(self.total_cycles, self.total_elements)
    }

    /// Mean cycles per sample.
    #[must_use]
    pub fn avg_cycles(&self) -> f64 {
        ratio(self.total_cycles, self.count)
    }

    /// Elements per cycle, a rough IPC proxy assuming one instruction per element.
    #[must_use]
    pub fn estimated_ipc(&self) -> f64 {
        ratio(self.total_elements, self.total_cycles)
    }

    /// Diagnosis from cycles: IPC < 0.5 memory-bound, IPC > 2 compute-bound,
    /// more than 1 ns per cycle throttled, else balanced.
    #[must_use]
    pub fn diagnose_from_cycles(&self) -> CycleDiagnosis {
        if self.total_cycles == 0 || self.total_ns == 0 {
            return CycleDiagnosis::InsufficientData;
        }
        let ipc = self.estimated_ipc();
        if ipc < 0.5 {
            CycleDiagnosis::MemoryBound
        } else if ipc > 2.0 {
            CycleDiagnosis::ComputeBound
        } else if ratio(self.total_ns, self.total_cycles) > 1.0 {
            CycleDiagnosis::Throttled
        } else {
            CycleDiagnosis::Balanced
        }
    }

    /// Estimated `q`-quantile of the sample time, ns (0 without samples):
    /// within 3.1% (1/33) of the exact `⌈q·count⌉`-th smallest sample, or
    /// within 1 ns, for samples shorter than about six minutes; the
    /// shortest and longest samples are exact.
    #[must_use]
    pub fn percentile_ns(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        self.latency.quantile_ns(q, self.min_ns, self.max_ns)
    }

    /// Median sample time, µs (within 3.1%; see [`BrickStats::percentile_ns`]).
    #[must_use]
    pub fn p50_us(&self) -> f64 {
        self.percentile_ns(0.50) as f64 / 1000.0
    }

    /// 90th-percentile sample time, µs (within 3.1%).
    #[must_use]
    pub fn p90_us(&self) -> f64 {
        self.percentile_ns(0.90) as f64 / 1000.0
    }

    /// 99th-percentile sample time, µs (within 3.1%).
    #[must_use]
    pub fn p99_us(&self) -> f64 {
        self.percentile_ns(0.99) as f64 / 1000.0
    }

    /// Share of `total_ns` spent in this brick, in percent (0 when the total is 0).
    #[must_use]
    pub fn percentage(&self, total_ns: u64) -> f64 {
        percent(self.total_ns, total_ns)
    }

    /// Folds another brick's statistics into this one (same brick, e.g. another rank).
    ///
    /// The extremes of a side without samples are ignored, whatever they hold.
    pub fn merge(&mut self, other: &BrickStats) {
        let mut time = self.time_summary();
        time.merge(&other.time_summary());
        let mut cycles = self.cycle_summary();
        cycles.merge(&other.cycle_summary());
        (self.count, self.total_ns, self.min_ns, self.max_ns) =
            (time.count, time.total, time.min, time.max);
        (self.total_cycles, self.min_cycles, self.max_cycles) =
            (cycles.total, cycles.min, cycles.max);
        self.child_ns = self.child_ns.saturating_add(other.child_ns);
        self.total_elements = self.total_elements.saturating_add(other.total_elements);
        self.total_bytes = self.total_bytes.saturating_add(other.total_bytes);
        self.total_compressed_bytes = self
            .total_compressed_bytes
            .saturating_add(other.total_compressed_bytes);
        self.total_flops = self.total_flops.saturating_add(other.total_flops);
        self.latency.merge(&other.latency);
    }

    fn time_summary(&self) -> Summary {
        Summary::of(self.count, self.total_ns, self.min_ns, self.max_ns)
    }

    fn cycle_summary(&self) -> Summary {
        Summary::of(
            self.count,
            self.total_cycles,
            self.min_cycles,
            self.max_cycles,
        )
    }
}

#[cfg(test)]
mod tests;
