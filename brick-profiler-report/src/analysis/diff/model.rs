//! The result of diffing a new run against one or more baselines: per brick,
//! phase, the step time and the throughput, the centres on both sides, the
//! interval of the relative change, the threshold it was judged against and
//! a [`Change`], plus the criteria used, so the report says how each change
//! was judged.

use profiler_core::alloc::MemoryKind;
use serde::Serialize;

use crate::analysis::scorecard::Severity;

/// How a measure changed, judged by its interval against the threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// Worse (slower, lower throughput, more memory): the whole interval
    /// lies beyond the threshold.
    Regression,
    /// Part of the interval lies beyond the threshold, part within it: the
    /// runs cannot tell. Fails only when asked (`strict`) and the estimate
    /// is worse.
    Inconclusive,
    /// Too few samples (or no distribution) for an interval; fails only
    /// when asked (`strict`).
    NotEnoughSamples,
    /// Better (faster, higher throughput, less memory): the whole interval
    /// lies beyond the threshold.
    Improvement,
    /// The whole interval lies within the threshold.
    NoChange,
}

/// What a row measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Per-call time of a brick, ns.
    Latency,
    /// Per-occurrence time of a phase, ns.
    Phase,
    /// Wall time of a step, ns.
    StepTime,
    /// Tokens per second of a step.
    Throughput,
}

impl Metric {
    /// Whether a larger value is worse.
    #[must_use]
    pub fn larger_is_worse(self) -> bool {
        !matches!(self, Self::Throughput)
    }

    /// Unit of the row's centres: `ns` or `tokens/s`.
    #[must_use]
    pub fn unit(self) -> &'static str {
        match self {
            Self::Throughput => "tokens/s",
            _ => "ns",
        }
    }
}

impl Change {
    /// Lower-case label for a row of `metric`: `slower`/`faster` for times,
    /// `lower`/`higher` for throughput.
    #[must_use]
    pub fn label(self, metric: Metric) -> &'static str {
        match (self, metric.larger_is_worse()) {
            (Self::Regression, true) => "slower",
            (Self::Regression, false) => "lower",
            (Self::Improvement, true) => "faster",
            (Self::Improvement, false) => "higher",
            (Self::Inconclusive, _) => "inconclusive",
            (Self::NotEnoughSamples, _) => "not enough samples",
            (Self::NoChange, _) => "no change",
        }
    }
}

/// One measure (a brick's latency, a phase, the step time, the throughput)
/// on both sides.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RowDiff {
    /// Brick or phase name, `step time` or `throughput`.
    pub name: String,
    /// What the row measures.
    pub metric: Metric,
    /// Samples (calls, steps) of the baselines pooled, and of the new run
    /// (all of them, also when only the fastest fifth was compared).
    pub samples: (u64, u64),
    /// Baseline centre (pooled over the baselines), in the metric's unit.
    pub old: f64,
    /// New centre.
    pub new: f64,
    /// Which centre: `median` (distributions), `median of the fastest
    /// fifth` (or `highest` for throughput: distributions with enough
    /// samples, judged on that part) or `mean` (moments, totals).
    pub center: &'static str,
    /// Estimated relative change (Hodges-Lehmann shift over the baseline
    /// centre, or of the means); `None` when the baseline centre is 0.
    pub relative: Option<f64>,
    /// Interval of the relative change at the criteria's confidence, with
    /// a histogram's calls spread evenly within their buckets (where in a
    /// bucket a call fell is not known; its width is not added); `None`
    /// without one.
    pub interval: Option<(f64, f64)>,
    /// The threshold this row was judged against: the largest of the given
    /// one, 1.5 times the baselines' spread, and for a call under 2 µs four
    /// times the given one.
    pub threshold: f64,
    /// Relative spread of the baselines' centres (max - min over their
    /// median), when there were several.
    pub baseline_spread: Option<f64>,
    /// The verdict.
    pub change: Change,
    /// Severity of a regression: critical when the estimate is beyond the
    /// critical threshold.
    pub severity: Option<Severity>,
    /// How it was judged, or why it could not be.
    pub detail: String,
    /// How the interval was computed (test, samples, widening), or why
    /// there is none.
    pub method: String,
    /// The run-wide shift this row's change and interval are relative to
    /// (bricks, when [`Criteria::relative_to_run`]); `None` when absolute.
    pub run_shift: Option<f64>,
    /// FLOPs per call of the new run's brick, when counted: its FLOP/s and
    /// efficiency follow from the latency.
    pub flops_per_call: Option<f64>,
}

/// One brick's memory of one kind on both sides.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryDiff {
    /// Brick name.
    pub name: String,
    /// Which memory.
    pub kind: MemoryKind,
    /// Bytes allocated per call, before and after.
    pub bytes_per_call: (f64, f64),
    /// Allocations per call, before and after.
    pub allocations_per_call: (f64, f64),
    /// Peak bytes, before and after.
    pub peak_bytes: (u64, u64),
    /// The largest relative change of the three (`None` when every old
    /// value is 0 and a new one is not).
    pub relative: Option<f64>,
    /// The verdict (memory is counted exactly: no interval).
    pub change: Change,
    /// Severity of a regression.
    pub severity: Option<Severity>,
    /// What moved.
    pub detail: String,
}

/// The numbers changes are judged by.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Criteria {
    /// Relative change an interval must lie wholly beyond to count (raised
    /// per row to 1.5 times the baselines' spread, and to four times itself for
    /// a call under 2 µs).
    pub threshold: f64,
    /// Relative worsening (the estimate) that makes a regression critical.
    pub critical: f64,
    /// The intervals are at confidence `1 - alpha`.
    pub alpha: f64,
    /// Samples needed per side before an interval is computed.
    pub min_samples: usize,
    /// Judge each brick relative to the run-wide shift (the median change
    /// of the bricks, at least five): a machine that is slower as a whole,
    /// as shared CI runners are from run to run, moves every brick alike
    /// and flags none; one brick that moves against the rest stands out.
    /// A run-wide shift beyond the threshold leaves the step time and
    /// throughput inconclusive rather than failed.
    pub relative_to_run: bool,
}

impl Default for Criteria {
    /// 10% threshold, 20% critical, 95% intervals, 8 samples per side,
    /// bricks relative to the run.
    fn default() -> Self {
        Self {
            threshold: 0.10,
            critical: 0.20,
            alpha: 0.05,
            min_samples: 8,
            relative_to_run: true,
        }
    }
}

/// A [`Criteria`] that cannot judge anything.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CriteriaError {
    /// A threshold that is negative or not finite.
    #[error("{name} must be a finite fraction >= 0, got {value}")]
    Threshold {
        /// `threshold` or `critical`.
        name: &'static str,
        /// The value given.
        value: f64,
    },
    /// A critical threshold below the threshold.
    #[error("critical ({critical}) is below threshold ({threshold})")]
    CriticalBelowThreshold {
        /// The threshold.
        threshold: f64,
        /// The critical threshold.
        critical: f64,
    },
    /// A significance level outside (0, 1).
    #[error("alpha must lie in (0, 1), got {0}")]
    Alpha(f64),
    /// Fewer than 2 samples per side.
    #[error("min_samples must be at least 2, got {0}")]
    MinSamples(usize),
}

impl Criteria {
    /// Checks that the criteria can judge.
    ///
    /// # Errors
    /// The first [`CriteriaError`] found.
    pub fn validate(&self) -> Result<(), CriteriaError> {
        for (name, value) in [("threshold", self.threshold), ("critical", self.critical)] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(CriteriaError::Threshold { name, value });
            }
        }
        if self.critical < self.threshold {
            return Err(CriteriaError::CriticalBelowThreshold {
                threshold: self.threshold,
                critical: self.critical,
            });
        }
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(CriteriaError::Alpha(self.alpha));
        }
        if self.min_samples < 2 {
            return Err(CriteriaError::MinSamples(self.min_samples));
        }
        Ok(())
    }
}

/// A new run compared against its baselines, measure by measure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProfileDiff {
    /// Labels of the baseline runs.
    pub baselines: Vec<String>,
    /// Label of the new run.
    pub new: String,
    /// How changes were judged.
    pub criteria: Criteria,
    /// The new run's hardware peak, TFLOP/s (see
    /// [`RunSummary::peak_tflops`](crate::model::run::RunSummary::peak_tflops)).
    pub peak_tflops: Option<f64>,
    /// The run-wide shift: the median relative change of the bricks with an
    /// interval (at least five), when bricks are judged relative to the run.
    pub run_shift: Option<f64>,
    /// The step time, when both sides have step samples.
    pub step_time: Option<RowDiff>,
    /// Per-step throughput, when both sides count tokens per step.
    pub throughput: Option<RowDiff>,
    /// Phases in both, most time first.
    pub phases: Vec<RowDiff>,
    /// Bricks in both, most time first.
    pub bricks: Vec<RowDiff>,
    /// Bricks only in the new run.
    pub added: Vec<String>,
    /// Bricks only in the baselines.
    pub removed: Vec<String>,
    /// Memory of the bricks both sides tracked, most allocated first.
    pub memory: Vec<MemoryDiff>,
    /// Caveats.
    pub notes: Vec<String>,
}

impl ProfileDiff {
    /// Every timing row: step time, throughput, phases, bricks.
    pub fn rows(&self) -> impl Iterator<Item = &RowDiff> {
        self.step_time
            .iter()
            .chain(&self.throughput)
            .chain(&self.phases)
            .chain(&self.bricks)
    }

    /// Rows judged a regression.
    pub fn regressions(&self) -> impl Iterator<Item = &RowDiff> {
        self.rows().filter(|r| r.change == Change::Regression)
    }

    /// Whether the new run regressed: a regression (timing or memory), or
    /// with `strict` also a row that could not be judged or whose interval
    /// leans worse across the threshold.
    #[must_use]
    pub fn regressed(&self, strict: bool) -> bool {
        let doubtful = |r: &RowDiff| match r.change {
            Change::NotEnoughSamples => true,
            Change::Inconclusive => r.relative.is_some_and(|x| {
                if r.metric.larger_is_worse() {
                    x > 0.0
                } else {
                    x < 0.0
                }
            }),
            _ => false,
        };
        self.rows()
            .any(|r| r.change == Change::Regression || (strict && doubtful(r)))
            || self.memory_regressions().next().is_some()
    }

    /// Memory rows judged a regression.
    pub fn memory_regressions(&self) -> impl Iterator<Item = &MemoryDiff> {
        self.memory
            .iter()
            .filter(|m| m.change == Change::Regression)
    }

    /// Whether there is a verdict at all: at least one brick is in both
    /// sides and at least one measure has an interval. A diff that could
    /// judge nothing (or compares two different programs) passes nothing.
    #[must_use]
    pub fn has_verdict(&self) -> bool {
        !self.bricks.is_empty() && self.rows().any(|r| r.interval.is_some())
    }

    /// Number of rows with `change`.
    #[must_use]
    pub fn count(&self, change: Change) -> usize {
        self.rows().filter(|r| r.change == change).count()
    }
}
