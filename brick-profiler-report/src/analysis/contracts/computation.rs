//! The seam through which analyses plug metrics into contract checks: a
//! [`Computation`] computes named [`Metrics`] under a namespace
//! (`scorecard.grade`, `roofline.bw_ceiling_tok_s`), once per profile.
//! [`ScorecardMetrics`] implements it with the project's scorecard.

use std::collections::BTreeMap;

use profiler_core::Profile;

use super::value::Value;
use crate::analysis::scorecard::{
    Bottleneck, ScorecardBuilder, StepProfilerInput, Thresholds, TrainingScorecard,
};
use profiler_core::hardware::Hardware;

/// Named values one computation produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metrics {
    values: BTreeMap<String, Value>,
}

impl Metrics {
    /// No metrics.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) `name`.
    #[must_use]
    pub fn with(mut self, name: impl Into<String>, value: impl Into<Value>) -> Self {
        self.insert(name, value);
        self
    }

    /// Adds (or replaces) `name`.
    pub fn insert(&mut self, name: impl Into<String>, value: impl Into<Value>) {
        self.values.insert(name.into(), value.into());
    }

    /// The value of `name`.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values.get(name)
    }

    /// Every name, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.values.keys().map(String::as_str)
    }
}

/// An analysis whose results contract rules can read, as
/// `<namespace>.<metric>`.
///
/// Implement it for a roofline, a parity comparison or any other analysis,
/// and register it with `Verifier::computation`.
/// It runs at most once per verified profile, and only when a rule reads
/// its namespace.
pub trait Computation: Send + Sync {
    /// The namespace of its metrics (`scorecard`, `roofline`, `parity`).
    fn namespace(&self) -> &str;

    /// Computes every metric for `profile`.
    ///
    /// # Errors
    /// Why the analysis cannot run on this profile (rules reading it are
    /// then reported as unmeasurable, with this reason).
    fn compute(&self, profile: &Profile) -> Result<Metrics, String>;
}

/// The training scorecard as contract metrics (namespace `scorecard`):
/// `grade` (`"A"`..`"F"`, or none when withheld), `efficiency`,
/// `throughput_tok_s`, `peak_tok_s` (none when unknown), `step_time_ms`,
/// `wall_coverage` (these three none without steps), `transfer_fraction`,
/// `launch_overhead`, `bottleneck` (`"transfer"`, `"launch"`, `"compute"`,
/// `"memory_bw"`; none when not determined: the default class without a
/// grade),
/// `forward_backward_ratio`, `steps`, `hotspot_count`, `regression_count`.
///
/// Computed by [`ScorecardBuilder`] from the profile (hardware from the
/// profile's run facts unless given), or from step-profiler input.
#[derive(Debug, Clone, Default)]
pub struct ScorecardMetrics {
    hardware: Option<Hardware>,
    thresholds: Option<Thresholds>,
    input: Option<(StepProfilerInput, f64)>,
}

impl ScorecardMetrics {
    /// Scorecards of the verified profile, hardware from its run facts.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Grades against `hardware`.
    #[must_use]
    pub fn hardware(mut self, hardware: Hardware) -> Self {
        self.hardware = Some(hardware);
        self
    }

    /// Grades with `thresholds` (the contract states the compat ones, so
    /// others can falsify it).
    #[must_use]
    pub fn thresholds(mut self, thresholds: Thresholds) -> Self {
        self.thresholds = Some(thresholds);
        self
    }

    /// Scores step-profiler input measured at `throughput_tok_s` instead of
    /// the profile (e.g. a trainer's log line).
    #[must_use]
    pub fn input(mut self, input: StepProfilerInput, throughput_tok_s: f64) -> Self {
        self.input = Some((input, throughput_tok_s));
        self
    }

    fn scorecard(&self, profile: &Profile) -> Result<TrainingScorecard, String> {
        let mut builder = match &self.input {
            Some((input, tok_s)) => ScorecardBuilder::from_input(input.clone(), *tok_s),
            None => ScorecardBuilder::from_profile(profile),
        };
        if let Some(hw) = &self.hardware {
            builder = builder.hardware(hw.clone());
        }
        if let Some(t) = self.thresholds {
            builder = builder.thresholds(t);
        }
        builder.build().map_err(|e| e.to_string())
    }
}

impl Computation for ScorecardMetrics {
    fn namespace(&self) -> &str {
        "scorecard"
    }

    fn compute(&self, profile: &Profile) -> Result<Metrics, String> {
        let sc = self.scorecard(profile)?;
        // What the scorecard shows as n/a is none here, not the zero or the
        // default class it stores: a run without steps has no step time,
        // throughput or wall coverage, and without a valid ceiling the
        // memory-bandwidth class is a default, not a finding.
        let stepped = !(sc.steps == 0 && sc.step_time_ms == 0.0 && sc.throughput_tok_s == 0.0);
        let measured = |x: f64| stepped.then_some(x);
        // Rows the run has no data for (no phases, no backward pass).
        let has = |key: &str| !sc.not_measured.contains_key(key);
        let bottleneck = (sc.grade.is_some() || sc.bottleneck != Bottleneck::MemoryBw)
            .then(|| sc.bottleneck.as_str());
        Ok(Metrics::new()
            .with("grade", sc.grade.map(|g| g.as_str()))
            .with("efficiency", sc.efficiency)
            .with("throughput_tok_s", measured(sc.throughput_tok_s))
            .with("peak_tok_s", sc.peak_throughput_tok_s)
            .with("step_time_ms", measured(sc.step_time_ms))
            .with(
                "wall_coverage",
                measured(sc.wall_coverage).filter(|_| has("wall_coverage")),
            )
            .with("transfer_fraction", sc.transfer_fraction)
            .with("launch_overhead", sc.launch_overhead)
            .with("bottleneck", bottleneck)
            .with(
                "forward_backward_ratio",
                has("forward_backward_ratio").then_some(sc.forward_backward_ratio),
            )
            .with("steps", sc.steps as u64)
            .with("hotspot_count", sc.hotspot_ops.len() as u64)
            .with("regression_count", sc.regressions.len() as u64))
    }
}
