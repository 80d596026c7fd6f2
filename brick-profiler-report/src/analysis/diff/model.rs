//! The result of diffing two runs: per brick (and for the step time) the
//! per-call times on both sides, the shift test and a verdict, plus the
//! criteria used, so the report says how each change was judged.

use profiler_core::alloc::MemoryKind;
use serde::Serialize;

use crate::analysis::scorecard::Severity;

/// How a brick changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Slower beyond the threshold, significant and above the noise floor.
    Regression,
    /// Slower beyond the threshold, but no distribution to test it against:
    /// reported, not counted as a regression unless asked (`strict`).
    Untested,
    /// Beyond the threshold, but within run-to-run noise.
    Noise,
    /// Faster beyond the threshold, significant and above the noise floor.
    Improvement,
    /// Within the threshold.
    Unchanged,
}

impl Verdict {
    /// Lower-case label.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Regression => "regression",
            Self::Untested => "untested",
            Self::Noise => "noise",
            Self::Improvement => "improvement",
            Self::Unchanged => "unchanged",
        }
    }
}

/// The shift test behind a verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShiftTest {
    /// `mann-whitney` (weighted values) or `z-test` (moments).
    pub method: &'static str,
    /// Samples (calls or steps) on the old and new side.
    pub samples: (u64, u64),
    /// Two-sided p-value.
    pub p_value: f64,
    /// New minus old centre, ns.
    pub shift_ns: f64,
    /// The shift must exceed this, ns (`noise_floor_mads` x the old side's
    /// scaled MAD, or its standard deviation for moments).
    pub noise_floor_ns: f64,
    /// `p < alpha` and `|shift|` above the floor.
    pub significant: bool,
}

/// One brick (or the step time) on both sides.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RowDiff {
    /// Brick name, or `step time`.
    pub name: String,
    /// Calls (steps for the step time) before.
    pub old_calls: u64,
    /// Calls after.
    pub new_calls: u64,
    /// Per-call centre before, ns.
    pub old_ns: f64,
    /// Per-call centre after, ns.
    pub new_ns: f64,
    /// Which centre: `median` or `mean`.
    pub center: &'static str,
    /// `(new - old) / old`; `None` when the old centre is 0.
    pub change: Option<f64>,
    /// The shift test, when one could run.
    pub test: Option<ShiftTest>,
    /// The verdict.
    pub verdict: Verdict,
    /// Severity of a regression.
    pub severity: Option<Severity>,
    /// How it was judged, or why it could not be tested.
    pub detail: String,
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
    pub change: Option<f64>,
    /// The verdict.
    pub verdict: Verdict,
    /// Severity of a regression.
    pub severity: Option<Severity>,
    /// What moved.
    pub detail: String,
}

/// The numbers changes are judged by.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Criteria {
    /// Relative change below which nothing is flagged.
    pub warning: f64,
    /// Relative slowdown that makes a regression critical.
    pub critical: f64,
    /// Significance level of the shift test.
    pub alpha: f64,
    /// Noise floor in scaled MADs (standard deviations for moments).
    pub noise_floor_mads: f64,
    /// Samples needed per side before a test runs.
    pub min_samples: usize,
}

/// Two runs compared brick by brick.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProfileDiff {
    /// Label of the old run.
    pub old: String,
    /// Label of the new run.
    pub new: String,
    /// How changes were judged.
    pub criteria: Criteria,
    /// The step time, when both runs have step samples.
    pub step_time: Option<RowDiff>,
    /// Bricks in both runs, most time first.
    pub bricks: Vec<RowDiff>,
    /// Bricks only in the new run.
    pub added: Vec<String>,
    /// Bricks only in the old run.
    pub removed: Vec<String>,
    /// Memory of the bricks both runs tracked, most allocated first.
    pub memory: Vec<MemoryDiff>,
    /// Caveats.
    pub notes: Vec<String>,
}

impl ProfileDiff {
    /// Every row, step time first.
    pub fn rows(&self) -> impl Iterator<Item = &RowDiff> {
        self.step_time.iter().chain(&self.bricks)
    }

    /// Rows judged a regression.
    pub fn regressions(&self) -> impl Iterator<Item = &RowDiff> {
        self.rows().filter(|r| r.verdict == Verdict::Regression)
    }

    /// Whether the new run regressed: a regression, or with `strict` also a
    /// slowdown beyond the threshold that could not be tested.
    #[must_use]
    pub fn regressed(&self, strict: bool) -> bool {
        self.rows()
            .any(|r| r.verdict == Verdict::Regression || (strict && r.verdict == Verdict::Untested))
            || self.memory_regressions().next().is_some()
    }

    /// Memory rows judged a regression.
    pub fn memory_regressions(&self) -> impl Iterator<Item = &MemoryDiff> {
        self.memory
            .iter()
            .filter(|m| m.verdict == Verdict::Regression)
    }

    /// Whether there is a verdict at all: at least one brick is in both
    /// runs. A diff over no common brick judges nothing and passes nothing.
    #[must_use]
    pub fn has_verdict(&self) -> bool {
        !self.bricks.is_empty()
    }

    /// Number of rows with `verdict`.
    #[must_use]
    pub fn count(&self, verdict: Verdict) -> usize {
        self.rows().filter(|r| r.verdict == verdict).count()
    }
}
