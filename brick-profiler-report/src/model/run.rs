//! [`RunSummary`]: one run as the reports over runs read it (diff, parity),
//! built once per source: a brick profile, a saved parity file, a PyTorch
//! trace, an Nsight export. Per name its calls, total time and what is
//! known of its per-call distribution (weighted values, a latency
//! histogram, moments, or nothing but totals), the step samples and count,
//! and the source's name, device and clock. Times are ns: totals and
//! samples as integers, means and distribution points as `f64`; what a
//! source does not give is `None`, never 0.

use profiler_core::alloc::BrickMemory;
use profiler_core::hardware::Precision;
use profiler_core::profile::{PhaseStats, ProfileSummary, RunInfo, StepSummary};
use profiler_core::stats::LatencyHistogram;
use profiler_core::{BrickStats, Profile};
use serde::{Deserialize, Serialize};

/// What is known of one brick's per-call times, ns.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Distribution {
    /// Exact values with how many calls took each (individual launches
    /// have weight 1).
    Weighted(Vec<(f64, u64)>),
    /// Latency histogram buckets: each bucket's range `[lo, hi]`, ns,
    /// narrowed by the exact extremes, with its calls (where in its range
    /// each call fell is not known).
    Histogram {
        /// (lo, hi, calls) per bucket, ascending.
        buckets: Vec<(f64, f64, u64)>,
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

/// One name (a brick, a kernel, an op) of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpSummary {
    /// Brick, kernel or op name.
    pub name: String,
    /// Calls, when the source counts them.
    pub calls: Option<u64>,
    /// Total time over the run's steps (over the whole run without a step
    /// count), ns.
    pub total_ns: u64,
    /// Per-call times.
    pub distribution: Distribution,
    /// The median call, ns, when the source estimates one (a brick's
    /// latency histogram).
    pub median_ns: Option<f64>,
    /// FLOPs per call, when the source counts them (a brick's `flops`).
    pub flops_per_call: Option<f64>,
}

impl OpSummary {
    /// A name with its total time only: no calls counted, no distribution.
    #[must_use]
    pub fn total(name: impl Into<String>, total_ns: u64) -> Self {
        Self {
            name: name.into(),
            calls: None,
            total_ns,
            distribution: Distribution::Unknown,
            median_ns: None,
            flops_per_call: None,
        }
    }

    /// The median call, ns: the source's estimate, else the mean call (0
    /// without calls).
    #[must_use]
    pub fn median_or_mean_ns(&self) -> f64 {
        self.median_ns
            .unwrap_or_else(|| self.total_ns as f64 / self.calls.unwrap_or(0).max(1) as f64)
    }

    /// A brick's calls, total and distribution.
    fn of_brick(b: &BrickStats) -> Self {
        let median_ns = (b.latency.count() > 0).then(|| {
            let min = if b.min_ns == u64::MAX { 0 } else { b.min_ns };
            b.latency.quantile_ns(0.5, min, b.max_ns.max(min)) as f64
        });
        Self {
            name: b.name.clone(),
            calls: Some(b.count),
            total_ns: b.total_ns,
            distribution: brick_distribution(b),
            median_ns,
            flops_per_call: (b.total_flops > 0 && b.count > 0)
                .then(|| b.total_flops as f64 / b.count as f64),
        }
    }
}

/// The clock a run's times were read on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Clock {
    /// Device time: kernels (and copies) as the device ran them.
    Device,
    /// Host time: ranges timed on the CPU (a CPU run, or a GPU run timed
    /// from the host).
    Host,
    /// Not recorded (parity profiles written without it).
    #[default]
    Unknown,
}

impl Clock {
    /// `device clock`, `host clock`, `clock not recorded`.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            Clock::Device => "device clock",
            Clock::Host => "host clock",
            Clock::Unknown => "clock not recorded",
        }
    }

    /// Whether times on `self` and on `other` may be compared: the same
    /// clock, or one not recorded (said next to the verdict).
    #[must_use]
    pub fn comparable(self, other: Clock) -> bool {
        self == other || self == Clock::Unknown || other == Clock::Unknown
    }
}

/// One run as the reports over runs read it: the diff's sides, parity's
/// runtimes.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct RunSummary {
    /// What the run is called: a file's label, a runtime's name (`ours`,
    /// `pytorch`, ...).
    pub name: String,
    /// The device the run used, as the source names it.
    pub device: Option<String>,
    /// The clock the times were read on.
    pub clock: Clock,
    /// The rank of a distributed run's process, when recorded.
    pub rank: Option<u32>,
    /// Ranks in the distributed run, when recorded.
    pub world_size: Option<u32>,
    /// The host the run ran on, when recorded.
    pub host: Option<String>,
    /// The id the ranks of one distributed run share, when recorded.
    pub run_id: Option<String>,
    /// Per name, in the order read (a name may repeat: a hand-edited file).
    pub ops: Vec<OpSummary>,
    /// Phases (forward, backward, ...) with their totals, when recorded.
    pub phases: Vec<OpSummary>,
    /// Steps the op totals cover; `None` when the source counts none (op
    /// totals are then over the whole run, or, from a saved parity file,
    /// per step).
    pub steps: Option<u64>,
    /// Per-step wall times, ns (empty when the source keeps none).
    pub step_samples_ns: Vec<u64>,
    /// The step index of each of `step_samples_ns` (empty when the source
    /// does not say: the samples are then steps 0, 1, ...).
    pub step_index: Vec<u64>,
    /// Tokens of each of `step_samples_ns` (empty when the source does not
    /// count them): per-step throughput for the diff.
    pub step_tokens: Vec<u64>,
    /// Mean step time, ns.
    pub step_ns: Option<f64>,
    /// Tokens per second.
    pub tokens_per_s: Option<f64>,
    /// Kernel launches (or op calls) per step.
    pub launches_per_step: Option<u64>,
    /// Device busy time per step (kernels, memcpy, memset), ns, when the op
    /// times are device time: what their share is of, rather than the step.
    pub device_ns_per_step: Option<f64>,
    /// Memory per brick and kind (empty when the run did not track it).
    pub memory: Vec<BrickMemory>,
    /// The hardware's peak, TFLOP/s, that efficiency is judged against: the
    /// dense peak (BF16, else FP16), else FP32; `None` when not recorded.
    pub peak_tflops: Option<f64>,
    /// How the numbers were obtained and what they lack.
    pub notes: Vec<String>,
}

impl RunSummary {
    /// The summary of a brick profile under `name`: its bricks with calls
    /// (each brick's latency histogram is its distribution), phases, steps
    /// and step samples, memory, and launches as brick calls per step.
    /// Times are on the device clock when the run had a device timer, else
    /// on the host clock.
    #[must_use]
    pub fn from_profile(profile: &Profile, name: impl Into<String>) -> Self {
        let mut run = Self::from_parts(
            &profile.run,
            &profile.steps,
            &profile.bricks,
            &profile.phases,
            name.into(),
        );
        run.memory = profile
            .memory
            .as_ref()
            .map(|m| m.bricks.clone())
            .unwrap_or_default();
        // Only records that would have become brick samples matter here.
        let c = &profile.counters;
        let lost = [
            c.pending,
            c.pending_overflow,
            c.pending_abandoned,
            c.lost_at_thread_exit,
        ]
        .into_iter()
        .fold(0u64, u64::saturating_add);
        if lost > 0 {
            run.notes.push(format!(
                "{lost} brick records are pending, dropped or lost: op times may be low"
            ));
        }
        run
    }

    /// As [`RunSummary::from_profile`], for a profile read for its
    /// aggregates only (no memory, no record counters).
    #[must_use]
    pub fn from_profile_summary(summary: &ProfileSummary, name: impl Into<String>) -> Self {
        Self::from_parts(
            &summary.run,
            &summary.steps,
            &summary.bricks,
            &summary.phases,
            name.into(),
        )
    }

    fn from_parts(
        run: &RunInfo,
        steps: &StepSummary,
        bricks: &[BrickStats],
        phases: &[PhaseStats],
        name: String,
    ) -> Self {
        // A count can be no smaller than the step samples it kept.
        let count = steps.count.max(steps.samples_ns.len() as u64);
        let calls = bricks.iter().fold(0u64, |a, b| a.saturating_add(b.count));
        let known = |s: &str| Some(s.to_owned()).filter(|s| !s.is_empty());
        Self {
            name,
            device: run.hardware.as_ref().and_then(|h| known(&h.name)),
            // A device timer gives device time; without one, bricks are
            // timed on the host.
            clock: if run.device_timer {
                Clock::Device
            } else {
                Clock::Host
            },
            rank: run.rank,
            world_size: run.world_size,
            host: known(&run.host),
            run_id: known(&run.run_id),
            ops: bricks.iter().map(OpSummary::of_brick).collect(),
            phases: phases
                .iter()
                .map(|p| OpSummary {
                    calls: Some(p.count),
                    distribution: phase_distribution(p),
                    ..OpSummary::total(p.name.clone(), p.total_ns)
                })
                .collect(),
            steps: (count > 0).then_some(count),
            step_samples_ns: steps.samples_ns.clone(),
            step_index: steps.samples_index.clone(),
            step_tokens: steps.samples_tokens.clone(),
            step_ns: (steps.count > 0).then(|| steps.total_ns as f64 / steps.count as f64),
            tokens_per_s: Some(steps.tokens_per_s()).filter(|t| *t > 0.0),
            launches_per_step: Some((calls as f64 / steps.count.max(1) as f64).round() as u64),
            device_ns_per_step: None,
            memory: Vec::new(),
            peak_tflops: run
                .hardware
                .as_ref()
                .and_then(|h| h.dense_peak().or_else(|| h.compute(Precision::Fp32)))
                .map(|f| f.value)
                .filter(|p| p.is_finite() && *p > 0.0),
            notes: step_notes(steps),
        }
    }

    /// Steps to divide op totals by for per-step times: the step count, or
    /// 1 when the source counts none.
    #[must_use]
    pub fn per_step_divisor(&self) -> f64 {
        self.steps.unwrap_or(0).max(1) as f64
    }
}

/// What a profile's summary lacks: launches are brick calls, steps or
/// tokens not recorded.
fn step_notes(steps: &StepSummary) -> Vec<String> {
    let mut notes =
        vec!["kernel launches are brick calls (each annotated kernel call counts once)".to_owned()];
    if steps.count == 0 {
        notes.push(
            "no steps recorded: op times are totals over the whole run, not per step, and \
             throughput is unknown; mark steps with profiler::step(tokens)"
                .to_owned(),
        );
    } else if steps.tokens == 0 {
        notes.push("steps carry no token counts: throughput is unknown".to_owned());
    }
    notes
}

/// A brick's histogram as bucket ranges narrowed by the exact extremes.
/// Without a histogram, a single call or calls that all took the same time
/// are still exact.
fn brick_distribution(b: &BrickStats) -> Distribution {
    if !b.latency.buckets.is_empty() {
        return narrowed(&b.latency, b.min_ns.min(b.max_ns), b.max_ns);
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

/// A phase's histogram of occurrences, narrowed by its extremes when the
/// profile has them; unknown without a histogram (profiles before schema
/// 1.4 keep totals and counts only).
fn phase_distribution(p: &PhaseStats) -> Distribution {
    if p.latency.buckets.is_empty() {
        return Distribution::Unknown;
    }
    let (min, max) = if p.max_ns > 0 {
        (p.min_ns.min(p.max_ns), p.max_ns)
    } else {
        (0, u64::MAX)
    };
    narrowed(&p.latency, min, max)
}

/// Bucket ranges (last nanosecond inclusive) clamped to `[min, max]`.
fn narrowed(h: &LatencyHistogram, min: u64, max: u64) -> Distribution {
    let buckets = h
        .buckets
        .iter()
        .filter(|k| k.count > 0)
        .map(|k| {
            let lo = k.lo_ns.clamp(min, max) as f64;
            let hi = k.hi_ns.saturating_sub(1).max(k.lo_ns).clamp(min, max) as f64;
            (lo, hi, k.count)
        })
        .collect();
    Distribution::Histogram { buckets }
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
        let Distribution::Histogram { buckets } = brick_distribution(&b) else {
            panic!("histogram")
        };
        // [80, 101) and [120, 141), narrowed to the extremes 90 and 130.
        assert_eq!(buckets, [(90.0, 100.0, 3), (120.0, 130.0, 2)]);
        b.latency = LatencyHistogram::default();
        assert_eq!(brick_distribution(&b), Distribution::Unknown);
        b.min_ns = 100;
        b.max_ns = 100;
        assert_eq!(
            brick_distribution(&b),
            Distribution::Weighted(vec![(100.0, 5)])
        );
    }

    fn profile(steps: u64) -> Profile {
        let mut p = Profile::empty();
        let mut b = BrickStats::new("RmsNorm", BrickCategory::Norm);
        b.count = 20;
        b.total_ns = 4_000_000;
        let mut idle = BrickStats::new("Idle", BrickCategory::Other);
        idle.count = 4;
        p.bricks = vec![b, idle];
        p.steps.count = steps;
        p.steps.tokens = 256 * steps;
        p.steps.total_ns = 10_000_000 * steps;
        p
    }

    #[test]
    fn a_profile_gives_bricks_with_calls_and_step_figures() {
        let s = RunSummary::from_profile(&profile(4), "ours");
        assert_eq!(s.name, "ours");
        let names: Vec<(&str, Option<u64>, u64)> = s
            .ops
            .iter()
            .map(|o| (o.name.as_str(), o.calls, o.total_ns))
            .collect();
        assert_eq!(
            names,
            [("RmsNorm", Some(20), 4_000_000), ("Idle", Some(4), 0)]
        );
        assert_eq!(s.steps, Some(4));
        assert_eq!(s.launches_per_step, Some(6));
        assert_eq!(s.step_ns, Some(10_000_000.0));
        assert!((s.tokens_per_s.unwrap() - 25_600.0).abs() < 1e-6);
        assert_eq!((s.clock, s.notes.len()), (Clock::Host, 1));
    }

    #[test]
    fn a_profile_read_for_its_aggregates_gives_the_same_summary_and_its_rank() {
        let mut p = profile(4);
        p.run.rank = Some(3);
        p.run.world_size = Some(8);
        p.run.host = "node1".into();
        p.steps.samples_ns = vec![9, 11, 10, 10, 12];
        p.steps.samples_index = vec![4, 5, 6, 7, 8];
        p.bricks[0].min_ns = 100;
        p.bricks[0].max_ns = 400_000;
        p.bricks[0].latency = LatencyHistogram {
            buckets: vec![
                HistBucket {
                    lo_ns: 131_072,
                    hi_ns: 262_144,
                    count: 15,
                },
                HistBucket {
                    lo_ns: 262_144,
                    hi_ns: 524_288,
                    count: 5,
                },
            ],
        };
        let full = RunSummary::from_profile(&p, "r");
        let aggregates = ProfileSummary::from(p.clone());
        assert_eq!(RunSummary::from_profile_summary(&aggregates, "r"), full);
        assert_eq!((full.rank, full.world_size), (Some(3), Some(8)));
        assert_eq!((full.host.as_deref(), full.run_id), (Some("node1"), None));
        // Five samples kept: the count of four is raised to them.
        assert_eq!(full.steps, Some(5));
        assert_eq!(full.step_index, [4, 5, 6, 7, 8]);
        let b = &p.bricks[0];
        assert_eq!(
            full.ops[0].median_ns,
            Some(b.latency.quantile_ns(0.5, b.min_ns, b.max_ns) as f64)
        );
        assert_eq!(full.ops[1].median_or_mean_ns(), 0.0, "no calls timed");
    }

    #[test]
    fn without_steps_the_step_figures_are_unknown_and_a_note_says_so() {
        let mut p = profile(0);
        p.steps.total_ns = 0;
        let s = RunSummary::from_profile(&p, "ours");
        assert_eq!((s.steps, s.step_ns, s.tokens_per_s), (None, None, None));
        assert_eq!(s.launches_per_step, Some(24));
        assert_eq!(s.per_step_divisor(), 1.0);
        assert!(s.notes.iter().any(|n| n.contains("no steps recorded")));
    }
}
