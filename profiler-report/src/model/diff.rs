//! What a diff compares: per brick (or kernel), its call count, total time
//! and what is known of its per-call distribution: weighted values (a
//! latency histogram, or individual launches), moments only (mean, standard
//! deviation, count, as Nsight Systems summarises), or nothing but totals.

use profiler_core::alloc::BrickMemory;
use profiler_core::{BrickStats, Profile};
use serde::Serialize;

/// What is known of one brick's per-call times, ns.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Distribution {
    /// Exact values with how many calls took each (individual launches
    /// have weight 1).
    Weighted(Vec<(f64, u64)>),
    /// Latency histogram buckets at their representative point, with the
    /// standard deviation of the binning error at the median bucket (width
    /// / sqrt 12): spread below the histogram's resolution is not seen.
    Histogram {
        /// (point, calls) per bucket.
        values: Vec<(f64, u64)>,
        /// Binning error at the median, ns.
        quantization_ns: f64,
    },
    /// Mean, standard deviation and count only.
    Moments {
        /// Mean, ns.
        mean: f64,
        /// Standard deviation, ns.
        stddev: f64,
        /// Calls.
        n: u64,
    },
    /// Totals only: no test is possible.
    Unknown,
}

/// One brick on one side of a diff.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffEntry {
    /// Brick or kernel name.
    pub name: String,
    /// Calls.
    pub calls: u64,
    /// Total time, ns.
    pub total_ns: f64,
    /// Per-call times.
    pub distribution: Distribution,
}

/// One side of a diff: a run's bricks and step times.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct DiffInput {
    /// Label (usually the file name).
    pub label: String,
    /// Bricks, in the order read.
    pub entries: Vec<DiffEntry>,
    /// Steps recorded (0 when unknown).
    pub steps: u64,
    /// Per-step wall times, ns (empty when unknown).
    pub step_samples_ns: Vec<u64>,
    /// Memory per brick and kind (empty when the run did not track it).
    pub memory: Vec<BrickMemory>,
}

impl DiffInput {
    /// The bricks and step samples of a profile; each brick's latency
    /// histogram is its distribution.
    #[must_use]
    pub fn from_profile(profile: &Profile, label: impl Into<String>) -> Self {
        Self {
            label: label.into(),
            entries: profile
                .bricks
                .iter()
                .filter(|b| b.count > 0)
                .map(|b| DiffEntry {
                    name: b.name.clone(),
                    calls: b.count,
                    total_ns: b.total_ns as f64,
                    distribution: brick_distribution(b),
                })
                .collect(),
            steps: profile.steps.count,
            step_samples_ns: profile.steps.samples_ns.clone(),
            memory: profile
                .memory
                .as_ref()
                .map(|m| m.bricks.clone())
                .unwrap_or_default(),
        }
    }
}

/// A brick's histogram as weighted values. Each bucket stands at the point
/// `2ab / (a + b)` of its range `[a, b]` narrowed by the exact extremes (the
/// estimate `LatencyHistogram::quantile_ns` uses). Without a histogram, a
/// single call or calls that all took the same time are still exact.
fn brick_distribution(b: &BrickStats) -> Distribution {
    let (min, max) = (b.min_ns.min(b.max_ns), b.max_ns);
    if !b.latency.buckets.is_empty() {
        let ranges: Vec<(f64, f64, u64)> = b
            .latency
            .buckets
            .iter()
            .filter(|k| k.count > 0)
            .map(|k| {
                let lo = k.lo_ns.clamp(min, max) as f64;
                let hi = k.hi_ns.saturating_sub(1).max(k.lo_ns).clamp(min, max) as f64;
                (lo, hi, k.count)
            })
            .collect();
        let total: u64 = ranges.iter().map(|r| r.2).sum();
        let mut seen = 0u64;
        let median_width = ranges
            .iter()
            .find(|r| {
                seen += r.2;
                seen >= total.div_ceil(2)
            })
            .map_or(0.0, |r| r.1 - r.0);
        let values = ranges
            .iter()
            .map(|&(lo, hi, n)| {
                let point = if lo + hi > 0.0 {
                    2.0 * lo * hi / (lo + hi)
                } else {
                    0.0
                };
                (point, n)
            })
            .collect();
        return Distribution::Histogram {
            values,
            quantization_ns: median_width / 12f64.sqrt(),
        };
    }
    if b.count == 1 || (b.count > 0 && b.min_ns == b.max_ns) {
        let each = if b.count == 1 {
            b.total_ns as f64
        } else {
            b.min_ns as f64
        };
        return Distribution::Weighted(vec![(each, b.count)]);
    }
    Distribution::Unknown
}

#[cfg(test)]
mod tests {
    use super::*;
    use profiler_core::BrickCategory;
    use profiler_core::stats::{HistBucket, LatencyHistogram};

    #[test]
    fn histograms_become_weighted_points_within_the_extremes() {
        let mut b = BrickStats::new("Gemm", BrickCategory::Other);
        b.count = 5;
        b.total_ns = 500;
        b.min_ns = 90;
        b.max_ns = 130;
        b.latency = LatencyHistogram {
            buckets: vec![
                HistBucket {
                    lo_ns: 80,
                    hi_ns: 101,
                    count: 3,
                },
                HistBucket {
                    lo_ns: 120,
                    hi_ns: 141,
                    count: 2,
                },
            ],
        };
        let Distribution::Histogram {
            values: v,
            quantization_ns,
        } = brick_distribution(&b)
        else {
            panic!("histogram")
        };
        // The median (3rd of 5) is in [90, 100].
        assert!((quantization_ns - 10.0 / 12f64.sqrt()).abs() < 1e-9);
        // [90, 100] -> 2*90*100/190; [120, 130] -> 2*120*130/250.
        assert!((v[0].0 - 18_000.0 / 190.0).abs() < 1e-9);
        assert_eq!(v[0].1, 3);
        assert!((v[1].0 - 124.8).abs() < 1e-9);
        b.latency = LatencyHistogram::default();
        assert_eq!(brick_distribution(&b), Distribution::Unknown);
        b.min_ns = 100;
        b.max_ns = 100;
        assert_eq!(
            brick_distribution(&b),
            Distribution::Weighted(vec![(100.0, 5)])
        );
    }
}
