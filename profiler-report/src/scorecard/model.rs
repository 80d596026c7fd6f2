//! The scorecard's output types: per-layer and regression entries, and
//! [`TrainingScorecard`] itself. Field names and serialised forms are
//! stable, so scorecards saved by earlier versions still load.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::grade::{Bottleneck, Grade};

/// One layer's forward/backward summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayerSummary {
    /// Layer index.
    pub layer: usize,
    /// Forward time, ms.
    pub fwd_ms: f64,
    /// Backward time, ms.
    pub bwd_ms: f64,
    /// `bwd_ms / fwd_ms` (0 when forward is 0).
    pub ratio: f64,
    /// The op with the most time in this layer (empty when none).
    pub top_op: String,
    /// The top op's share of the layer's op time, percent.
    pub top_op_pct: f64,
    /// Whether any of the layer's times was NaN or infinite (read as 0).
    #[serde(default)]
    pub non_finite: bool,
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
}

/// The training scorecard: grade, bottleneck, per-layer times, hotspots,
/// regressions and recommendations.
///
/// The first eleven fields are the reference tool's; the rest default when
/// missing so its JSON still loads. `Display` renders the terminal view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainingScorecard {
    /// Efficiency grade; `None` when it cannot be computed honestly (unknown
    /// peak, no steps or no tokens recorded); `warnings` say why.
    #[serde(default)]
    pub grade: Option<Grade>,
    /// Throughput over the hardware ceiling, in `[0, 1]` (0 without a grade).
    pub efficiency: f64,
    /// What limits the step.
    pub bottleneck: Bottleneck,
    /// Measured throughput, tokens/s.
    pub throughput_tok_s: f64,
    /// Mean step time, ms.
    pub step_time_ms: f64,
    /// Mean backward/forward ratio over layers with both times.
    pub forward_backward_ratio: f64,
    /// Share of step time inside phases, `[0, 1]`.
    pub wall_coverage: f64,
    /// Per-layer summaries, in input order.
    pub per_layer_summary: Vec<LayerSummary>,
    /// Top ops as `(name, total ms, % of all op time)`, by time descending.
    pub hotspot_ops: Vec<(String, f64, f64)>,
    /// Regressions against the baseline, throughput first.
    pub regressions: Vec<Regression>,
    /// Concrete next steps.
    pub recommendations: Vec<String>,
    /// Steps recorded.
    #[serde(default)]
    pub steps: usize,
    /// Name of the hardware graded against.
    #[serde(default)]
    pub hardware: Option<String>,
    /// The throughput ceiling graded against, tokens/s.
    #[serde(default)]
    pub peak_throughput_tok_s: Option<f64>,
    /// Share of step time in host-device transfer phases, `[0, 1]`.
    #[serde(default)]
    pub transfer_fraction: f64,
    /// Launch-overhead estimate used for the bottleneck, `[0, 1]`.
    #[serde(default)]
    pub launch_overhead: f64,
    /// Model FLOP utilisation, when the model shape and a dense peak are known.
    #[serde(default)]
    pub mfu: Option<f64>,
    /// Per-step wall times, ms (a baseline's noise model).
    #[serde(default, alias = "baseline_step_samples_ms")]
    pub step_samples_ms: Vec<f64>,
    /// Whether per-layer and hotspot times are per step (scorecards built
    /// from a profile); times from a trainer's line are as the trainer gave them.
    #[serde(default)]
    pub times_per_step: bool,
    /// Caveats: unknown peak, missing steps, sanitised values, skipped tests.
    #[serde(default)]
    pub warnings: Vec<String>,
}

impl TrainingScorecard {
    /// Pretty JSON (every float is finite, so this always succeeds).
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Parses scorecard JSON, including the reference tool's.
    ///
    /// # Errors
    /// [`serde_json::Error`] with line and column.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Whether the grade was withheld because no hardware peak was known.
    #[must_use]
    pub fn peak_unknown(&self) -> bool {
        self.peak_throughput_tok_s.is_none() && self.grade.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grade_thresholds_are_the_compat_ones() {
        assert_eq!(Grade::from_efficiency(0.65), Grade::A);
        assert_eq!(Grade::from_efficiency(0.60), Grade::A);
        assert_eq!(Grade::from_efficiency(0.45), Grade::B);
        assert_eq!(Grade::from_efficiency(0.25), Grade::C);
        assert_eq!(Grade::from_efficiency(0.10), Grade::D);
        assert_eq!(Grade::from_efficiency(0.0999), Grade::F);
        assert!(Grade::F < Grade::D && Grade::D < Grade::C && Grade::B < Grade::A);
    }

    #[test]
    fn enums_serialise_like_the_reference() {
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
    fn reference_json_loads() {
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
    }
}
