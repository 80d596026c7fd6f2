//! The scorecard's output types: per-layer and regression entries, and
//! [`TrainingScorecard`] itself. Field names and serialised forms are
//! stable, so scorecards saved by earlier versions still load.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::ceiling::BytesPerTokenSource;
use super::grade::{Bottleneck, Grade, Withheld};
use super::inference::InferenceRows;
use super::kind::RunKind;
use super::memory::MemoryPeak;
use super::shape::RunShape;
use super::time_base::TimeBase;
use profiler_core::profile::LaunchGap;

/// One layer's forward/backward summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayerSummary {
    /// Layer index.
    pub layer: usize,
    /// Forward time, ms.
    pub fwd_ms: f64,
    /// Backward time, ms (`null` in JSON when the run has no backward pass).
    #[serde(deserialize_with = "null_as_zero")]
    pub bwd_ms: f64,
    /// `bwd_ms / fwd_ms` (0 when forward is 0; `null` in JSON when the run
    /// has no backward pass).
    #[serde(deserialize_with = "null_as_zero")]
    pub ratio: f64,
    /// The op with the most time in this layer (empty when none).
    pub top_op: String,
    /// The top op's share of the layer's op time, percent.
    pub top_op_pct: f64,
    /// Whether any of the layer's times was NaN or infinite (read as 0).
    #[serde(default)]
    pub non_finite: bool,
    /// Host bytes allocated inside the layer's scopes, both directions,
    /// bricks included (per step when steps were recorded); `None` when
    /// the run tracked no memory in this layer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allocated_bytes: Option<u64>,
    /// Highest host live bytes above a scope's entry, either direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_bytes: Option<u64>,
}

/// How bad a regression is; serialised lowercase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Past the warning threshold.
    Warning,
    /// Past the critical threshold.
    Critical,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Warning => "warning",
            Self::Critical => "critical",
        })
    }
}

/// A metric that got worse than the baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Regression {
    /// `throughput_tok_s`, `step_time_ms` or `wall_coverage`.
    pub metric: String,
    /// Relative change (absolute for `wall_coverage`).
    pub delta: f64,
    /// How bad it is.
    pub severity: Severity,
    /// How the change was judged, e.g. the significance test behind it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The baseline's value of the metric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<f64>,
    /// This run's value of the metric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<f64>,
}

impl Regression {
    /// The metric's name for people: `Throughput`, `Step time`,
    /// `Wall coverage` (other names as they are).
    #[must_use]
    pub fn label(&self) -> &str {
        match self.metric.as_str() {
            "throughput_tok_s" => "Throughput",
            "step_time_ms" => "Step time",
            "wall_coverage" => "Wall coverage",
            other => other,
        }
    }
}

/// How this run compares with its baseline, flagged or not.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BaselineComparison {
    /// Relative throughput change, when both runs measured one.
    pub throughput: Option<f64>,
    /// Relative step-time change, when both runs measured one.
    pub step_time: Option<f64>,
    /// Absolute wall-coverage change, when both runs measured one.
    pub wall_coverage: Option<f64>,
    /// Changes past a threshold that the noise test did not flag, each
    /// with the condition that failed.
    pub not_flagged: Vec<String>,
}

/// The training scorecard: grade, bottleneck, per-layer times, hotspots,
/// regressions and recommendations.
///
/// The first eleven fields are the v1 scorecard format's, except that
/// `efficiency` is `null` when the grade is withheld; the rest default when
/// missing, so v1 JSON from other tools and older saved scorecards still
/// load. `Display` renders the terminal view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainingScorecard {
    /// Efficiency grade; `None` when no honest grade exists (no valid
    /// ceiling, throughput above it, nothing measured, empty steps):
    /// `grade_withheld` says why.
    #[serde(default)]
    pub grade: Option<Grade>,
    /// Throughput over the hardware ceiling, in `[0, 1]`; `None` (`null`)
    /// exactly when the grade is withheld. Never clamped: a throughput
    /// above the ceiling withholds the grade instead.
    #[serde(default)]
    pub efficiency: Option<f64>,
    /// What limits the step.
    pub bottleneck: Bottleneck,
    /// Measured throughput, tokens/s.
    pub throughput_tok_s: f64,
    /// Mean step time, ms.
    pub step_time_ms: f64,
    /// Mean **backward/forward** time ratio (`bwd_ms / fwd_ms`) over layers
    /// with both times; shown as "Bwd/Fwd ratio". The key keeps its
    /// v1 name, `forward_backward_ratio`; `null` in JSON when the run has
    /// no backward pass.
    #[serde(deserialize_with = "null_as_zero")]
    pub forward_backward_ratio: f64,
    /// Share of step time inside phases, `[0, 1]`; `null` in JSON when no
    /// phases were recorded.
    #[serde(deserialize_with = "null_as_zero")]
    pub wall_coverage: f64,
    /// Per-layer summaries, in input order.
    pub per_layer_summary: Vec<LayerSummary>,
    /// Top ops as `(name, total ms, % of all op time)`, by time descending.
    pub hotspot_ops: Vec<(String, f64, f64)>,
    /// Regressions against the baseline, throughput first (see also
    /// `vs_baseline`).
    pub regressions: Vec<Regression>,
    /// Concrete next steps.
    pub recommendations: Vec<String>,
    /// Steps recorded.
    #[serde(default)]
    pub steps: usize,
    /// Why `grade` and `efficiency` are `None`.
    #[serde(default)]
    pub grade_withheld: Option<Withheld>,
    /// Name of the hardware graded against.
    #[serde(default)]
    pub hardware: Option<String>,
    /// The throughput ceiling graded against, tokens/s (`None` when
    /// unknown or not a finite, positive number).
    #[serde(default)]
    pub peak_throughput_tok_s: Option<f64>,
    /// The ceiling's peak memory bandwidth, GB/s.
    #[serde(default)]
    pub peak_bw_gb_s: Option<f64>,
    /// The ceiling's bytes moved per token.
    #[serde(default)]
    pub bytes_per_token: Option<f64>,
    /// Where `bytes_per_token` came from.
    #[serde(default)]
    pub bytes_per_token_source: Option<BytesPerTokenSource>,
    /// Share of step time in host-device transfer phases, `[0, 1]`.
    #[serde(default)]
    pub transfer_fraction: f64,
    /// Launch-overhead estimate used for the bottleneck, `[0, 1]`; `None`
    /// when unknown (no phases recorded, or empty steps).
    #[serde(default)]
    pub launch_overhead: Option<f64>,
    /// Whether the run timed device work (a device timer, or a sync mode
    /// that waits for the device); `None` when unknown (a trainer's line).
    /// Transfer and launch overhead are shown for device runs.
    #[serde(default)]
    pub device_timed: Option<bool>,
    /// Model FLOP utilisation, when the model shape and a dense peak are known.
    #[serde(default)]
    pub mfu: Option<f64>,
    /// Recorded steps that ended before anything ran inside them.
    #[serde(default)]
    pub empty_steps: u64,
    /// Steps opened inside another open step (left out of every total).
    #[serde(default)]
    pub nested_steps: u64,
    /// Per-step wall times, ms (a baseline's noise model).
    #[serde(default, alias = "baseline_step_samples_ms")]
    pub step_samples_ms: Vec<f64>,
    /// Tokens of each step in `step_samples_ms` (empty when unknown).
    #[serde(default)]
    pub step_samples_tokens: Vec<u64>,
    /// Whether per-layer and hotspot times are per step (scorecards built
    /// from a profile); times from a trainer's line are as the trainer gave them.
    #[serde(default)]
    pub times_per_step: bool,
    /// How the run compares with the baseline, when one was given.
    #[serde(default)]
    pub vs_baseline: Option<BaselineComparison>,
    /// The run's layers, ops and tokens per step, to tell whether a
    /// baseline comes from the same kind of run.
    #[serde(default)]
    pub shape: Option<RunShape>,
    /// Problems that make headline numbers wrong or meaningless (empty or
    /// nested steps, nothing recorded, a baseline of another shape):
    /// renderers show them first.
    #[serde(default)]
    pub alerts: Vec<String>,
    /// Caveats: unknown peak, missing steps, sanitised values, skipped tests.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// The step with the highest memory peak, per memory kind, when the
    /// run tracked memory.
    #[serde(default)]
    pub memory_peaks: Vec<MemoryPeak>,
    /// The wait from launch to device start of the device-timed bricks,
    /// when the device timer placed their work on the host clock: near zero
    /// while the device waits for work, large while launches run ahead of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch_gap: Option<LaunchGap>,
    /// Training, prefill/decode generation or forward only: it picks the
    /// rows (files without it are training scorecards).
    #[serde(default)]
    pub run_kind: RunKind,
    /// Token latencies, prefill and decode rates and their ceilings, for a
    /// generation run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inference: Option<InferenceRows>,
    /// The devices' busy time per step, ms, when kernels were captured
    /// inside steps (summed over devices).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_busy_ms: Option<f64>,
    /// Throughput over the devices' busy time instead of the step's wall
    /// time, as a share of the same ceiling: how well the kernels use the
    /// hardware while they run. The grade stays on `efficiency` (wall
    /// time: what the run delivers). `None` without captured kernels or
    /// without a grade, or when it would pass the ceiling (warned).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_efficiency: Option<f64>,
    /// The clock of the per-layer and hotspot times: host time, or device
    /// time from the captured kernels with what stayed on host time.
    #[serde(default)]
    pub time_base: TimeBase,
    /// Rows the run has no data for, by JSON key, each with why: their
    /// values are `null` in JSON and `n/a` with the reason in every view.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub not_measured: BTreeMap<String, String>,
}

/// Reads `null` (a row without data) as 0, the value the struct keeps.
fn null_as_zero<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(0.0))
}

impl TrainingScorecard {
    /// Pretty JSON (every float is finite, so this always succeeds). Rows
    /// the run has no data for (`not_measured`, and the per-layer backward
    /// columns of a run without a backward pass) are `null`.
    #[must_use]
    pub fn to_json(&self) -> String {
        let Ok(mut value) = serde_json::to_value(self) else {
            return String::new();
        };
        for key in self.not_measured.keys() {
            if let Some(v) = value.get_mut(key.as_str()) {
                *v = serde_json::Value::Null;
            }
        }
        if !self.run_kind.has_backward()
            && let Some(layers) = value
                .get_mut("per_layer_summary")
                .and_then(|l| l.as_array_mut())
        {
            for layer in layers {
                for key in ["bwd_ms", "ratio"] {
                    if let Some(v) = layer.get_mut(key) {
                        *v = serde_json::Value::Null;
                    }
                }
            }
        }
        serde_json::to_string_pretty(&value).unwrap_or_default()
    }

    /// Parses scorecard JSON, including v1 files from other tools and older
    /// files that wrote a withheld efficiency as `0.0`: with no grade and
    /// no recorded reason, an efficiency of 0 reads as withheld.
    ///
    /// # Errors
    /// [`serde_json::Error`] with line and column.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        let mut sc: Self = serde_json::from_str(text)?;
        if sc.grade.is_none() && sc.grade_withheld.is_none() && sc.efficiency == Some(0.0) {
            sc.efficiency = None;
        }
        Ok(sc)
    }

    /// Whether the grade was withheld because no hardware peak was known.
    #[must_use]
    pub fn peak_unknown(&self) -> bool {
        match &self.grade_withheld {
            Some(reason) => *reason == Withheld::UnknownPeak,
            // Files written before reasons were recorded.
            None => self.peak_throughput_tok_s.is_none() && self.grade.is_none(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grade_thresholds_are_the_standard_ones() {
        assert_eq!(Grade::from_efficiency(0.65), Grade::A);
        assert_eq!(Grade::from_efficiency(0.60), Grade::A);
        assert_eq!(Grade::from_efficiency(0.45), Grade::B);
        assert_eq!(Grade::from_efficiency(0.25), Grade::C);
        assert_eq!(Grade::from_efficiency(0.10), Grade::D);
        assert_eq!(Grade::from_efficiency(0.0999), Grade::F);
        assert!(Grade::F < Grade::D && Grade::D < Grade::C && Grade::B < Grade::A);
    }

    #[test]
    fn enums_serialise_in_the_v1_format() {
        assert_eq!(serde_json::to_string(&Grade::B).unwrap(), "\"B\"");
        assert_eq!(
            serde_json::to_string(&Bottleneck::MemoryBw).unwrap(),
            "\"memory_bw\""
        );
        assert_eq!(
            serde_json::to_string(&Severity::Critical).unwrap(),
            "\"critical\""
        );
        assert_eq!(Bottleneck::MemoryBw.to_string(), "memory_bw");
    }

    #[test]
    fn v1_json_loads() {
        let json = r#"{"grade":"D","efficiency":0.12,"bottleneck":"memory_bw",
            "throughput_tok_s":200.0,"step_time_ms":100.0,"forward_backward_ratio":2.0,
            "wall_coverage":0.9,"per_layer_summary":[{"layer":0,"fwd_ms":1.0,"bwd_ms":2.0,
            "ratio":2.0,"top_op":"gemm","top_op_pct":50.0}],"hotspot_ops":[["gemm",3.0,100.0]],
            "regressions":[{"metric":"wall_coverage","delta":-0.06,"severity":"warning"}],
            "recommendations":[]}"#;
        let sc = TrainingScorecard::from_json(json).unwrap();
        assert_eq!(sc.grade, Some(Grade::D));
        assert_eq!(sc.hotspot_ops[0].0, "gemm");
        assert_eq!(sc.regressions[0].severity, Severity::Warning);
        assert!(sc.step_samples_ms.is_empty());
        assert_eq!(sc.efficiency, Some(0.12));
    }

    #[test]
    fn a_withheld_efficiency_is_null_and_old_zeros_read_as_withheld() {
        let json = r#"{"grade":null,"efficiency":0.0,"bottleneck":"memory_bw",
            "throughput_tok_s":200.0,"step_time_ms":100.0,"forward_backward_ratio":2.0,
            "wall_coverage":0.9,"per_layer_summary":[],"hotspot_ops":[],"regressions":[],
            "recommendations":[]}"#;
        let old = TrainingScorecard::from_json(json).unwrap();
        assert_eq!(old.efficiency, None, "an old file's 0.0 beside no grade");
        assert!(old.peak_unknown());
        let written: serde_json::Value = serde_json::from_str(&old.to_json()).unwrap();
        assert!(written["efficiency"].is_null() && written["grade"].is_null());
        let new = json.replace("\"efficiency\":0.0", "\"efficiency\":null");
        assert_eq!(TrainingScorecard::from_json(&new).unwrap(), old);
        // A real F at 0% keeps its efficiency.
        let graded = json.replace("\"grade\":null", "\"grade\":\"F\"");
        assert_eq!(
            TrainingScorecard::from_json(&graded).unwrap().efficiency,
            Some(0.0)
        );
    }
}
