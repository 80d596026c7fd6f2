//! Every number the scorecard judges by ([`Thresholds`], defaulting to the
//! standard values), the model shape behind MFU ([`ModelShape`]), and the
//! options the builder hands to the computation.

use serde::{Deserialize, Serialize};

use super::ceiling::BytesPerTokenSource;
use super::grade::{Bottleneck, Grade};
use crate::model::scorecard_error::ScorecardError;

/// Grading, bottleneck, regression and recommendation thresholds.
/// `Default` gives the standard values scorecard tools share.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Thresholds {
    /// Minimum efficiency for grade A (0.60).
    pub grade_a: f64,
    /// Minimum efficiency for grade B (0.40).
    pub grade_b: f64,
    /// Minimum efficiency for grade C (0.20).
    pub grade_c: f64,
    /// Minimum efficiency for grade D (0.10).
    pub grade_d: f64,
    /// Transfer share above which the bottleneck is Transfer (0.30).
    pub transfer_bottleneck: f64,
    /// Launch overhead above which the bottleneck is Launch (0.40).
    pub launch_bottleneck: f64,
    /// Compute utilisation above which the bottleneck is Compute (0.50).
    pub compute_bottleneck: f64,
    /// Relative throughput drop flagged as a warning (0.10).
    pub throughput_warning: f64,
    /// Relative throughput drop flagged as critical (0.20).
    pub throughput_critical: f64,
    /// Relative step-time rise flagged as a warning (0.10).
    pub step_time_warning: f64,
    /// Relative step-time rise flagged as critical (0.20).
    pub step_time_critical: f64,
    /// Absolute wall-coverage drop flagged as a warning (0.05).
    pub wall_coverage_drop: f64,
    /// Grades at or below this get the bottleneck's advice (C).
    pub advice_grade: Grade,
    /// Grades at or below this may get the launch note (D).
    pub launch_note_grade: Grade,
    /// Launch overhead above which the launch note is given (0.30).
    pub launch_note_overhead: f64,
    /// Hotspot ops listed (10).
    pub hotspot_count: usize,
    /// Significance level of the step-time shift test (0.05).
    pub significance_alpha: f64,
    /// Noise floor: a median shift must exceed this many baseline MADs
    /// (scaled to a standard deviation) to count (2.0).
    pub noise_floor_mads: f64,
    /// Samples needed on both sides before the shift test is used (8).
    pub min_samples: usize,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self {
            grade_a: 0.60,
            grade_b: 0.40,
            grade_c: 0.20,
            grade_d: 0.10,
            transfer_bottleneck: 0.30,
            launch_bottleneck: 0.40,
            compute_bottleneck: 0.50,
            throughput_warning: 0.10,
            throughput_critical: 0.20,
            step_time_warning: 0.10,
            step_time_critical: 0.20,
            wall_coverage_drop: 0.05,
            advice_grade: Grade::C,
            launch_note_grade: Grade::D,
            launch_note_overhead: 0.30,
            hotspot_count: 10,
            significance_alpha: 0.05,
            noise_floor_mads: 2.0,
            min_samples: 8,
        }
    }
}

impl Thresholds {
    /// Grade of an efficiency.
    #[must_use]
    pub fn grade(&self, efficiency: f64) -> Grade {
        if efficiency >= self.grade_a {
            Grade::A
        } else if efficiency >= self.grade_b {
            Grade::B
        } else if efficiency >= self.grade_c {
            Grade::C
        } else if efficiency >= self.grade_d {
            Grade::D
        } else {
            Grade::F
        }
    }

    /// First rule that holds: Transfer, Launch, Compute, else MemoryBw. With
    /// `compute` unknown (no peak) the Compute rule is skipped.
    #[must_use]
    pub fn bottleneck(&self, transfer: f64, launch: f64, compute: Option<f64>) -> Bottleneck {
        if transfer > self.transfer_bottleneck {
            Bottleneck::Transfer
        } else if launch > self.launch_bottleneck {
            Bottleneck::Launch
        } else if compute.is_some_and(|c| c > self.compute_bottleneck) {
            Bottleneck::Compute
        } else {
            Bottleneck::MemoryBw
        }
    }

    /// Checks every number is finite and non-negative, the grade cut-offs
    /// descend, and `significance_alpha` lies in `(0, 1)`.
    ///
    /// # Errors
    /// [`ScorecardError::InvalidThreshold`] naming the field.
    pub fn validate(&self) -> Result<(), ScorecardError> {
        let fields = [
            ("grade_a", self.grade_a),
            ("grade_b", self.grade_b),
            ("grade_c", self.grade_c),
            ("grade_d", self.grade_d),
            ("transfer_bottleneck", self.transfer_bottleneck),
            ("launch_bottleneck", self.launch_bottleneck),
            ("compute_bottleneck", self.compute_bottleneck),
            ("throughput_warning", self.throughput_warning),
            ("throughput_critical", self.throughput_critical),
            ("step_time_warning", self.step_time_warning),
            ("step_time_critical", self.step_time_critical),
            ("wall_coverage_drop", self.wall_coverage_drop),
            ("launch_note_overhead", self.launch_note_overhead),
            ("significance_alpha", self.significance_alpha),
            ("noise_floor_mads", self.noise_floor_mads),
        ];
        let bad = |field: &str, value: f64, reason: &str| ScorecardError::InvalidThreshold {
            field: field.to_owned(),
            value,
            reason: reason.to_owned(),
        };
        for (field, value) in fields {
            if !value.is_finite() || value < 0.0 {
                return Err(bad(field, value, "must be a finite number >= 0"));
            }
        }
        if !(self.grade_a >= self.grade_b
            && self.grade_b >= self.grade_c
            && self.grade_c >= self.grade_d)
        {
            return Err(bad(
                "grade_b",
                self.grade_b,
                "grade cut-offs must descend A >= B >= C >= D",
            ));
        }
        if !(self.significance_alpha > 0.0 && self.significance_alpha < 1.0) {
            return Err(bad(
                "significance_alpha",
                self.significance_alpha,
                "must lie in (0, 1)",
            ));
        }
        Ok(())
    }
}

/// Transformer shape for model FLOPs (PaLM appendix B definition).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelShape {
    /// Parameters, N.
    pub params: u64,
    /// Layers, L.
    pub layers: u64,
    /// Attention heads, H.
    pub heads: u64,
    /// Head dimension, Q.
    pub head_dim: u64,
    /// Sequence length, T.
    pub seq_len: u64,
}

impl ModelShape {
    /// Training FLOPs per token: `6N + 12 * L * H * Q * T`.
    #[must_use]
    pub fn training_flops_per_token(&self) -> f64 {
        6.0 * self.params as f64
            + 12.0
                * self.layers as f64
                * self.heads as f64
                * self.head_dim as f64
                * self.seq_len as f64
    }

    /// Model FLOP utilisation: `tokens/s * flops_per_token / peak FLOP/s`
    /// (`None` unless both are finite and positive).
    #[must_use]
    pub fn mfu(&self, throughput_tok_s: f64, peak_flops_per_s: f64) -> Option<f64> {
        let ok = |x: f64| x.is_finite() && x > 0.0;
        (ok(throughput_tok_s) && ok(peak_flops_per_s))
            .then(|| throughput_tok_s * self.training_flops_per_token() / peak_flops_per_s)
    }
}

/// Everything beyond the standard inputs that shapes a scorecard.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ScorecardOptions {
    /// Judging thresholds.
    pub(crate) thresholds: Thresholds,
    /// Model shape, for MFU.
    pub(crate) model_shape: Option<ModelShape>,
    /// Dense peak FLOP/s (not TFLOP/s), for MFU.
    pub(crate) peak_flops_per_s: Option<f64>,
    /// Where the hardware's bytes per token came from; `None`: judged from
    /// the value (the presets' placeholder is a default, anything else given).
    pub(crate) bytes_per_token_source: Option<BytesPerTokenSource>,
    /// Set when the ceiling was measured on a busy machine: why. The grade
    /// is then withheld.
    pub(crate) busy_ceilings: Option<String>,
    /// Where the DRAM bandwidth figure came from (the hardware's `Source`).
    pub(crate) bandwidth_source: Option<String>,
    /// Where the dense peak came from.
    pub(crate) peak_flops_source: Option<String>,
    /// The caches with both a size and a bandwidth, smallest first: to say
    /// when the bytes a decode step reads fit in one.
    pub(crate) caches: Vec<CacheCeiling>,
}

/// A cache level the hardware gives both a capacity and a bandwidth for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CacheCeiling {
    /// The level's name, e.g. `L3`.
    pub(crate) name: &'static str,
    /// Capacity, bytes.
    pub(crate) bytes: f64,
    /// Bandwidth, GB/s.
    pub(crate) gb_s: f64,
}

impl Grade {
    /// Grade of an efficiency in `[0, 1]` with the default thresholds
    /// (A >= 0.60, B >= 0.40, C >= 0.20, D >= 0.10, else F).
    #[must_use]
    pub fn from_efficiency(efficiency: f64) -> Self {
        Thresholds::default().grade(efficiency)
    }
}

impl Bottleneck {
    /// Classifies with the default thresholds: transfer > 0.30 -> Transfer,
    /// launch > 0.40 -> Launch, compute > 0.50 -> Compute, else MemoryBw.
    #[must_use]
    pub fn classify(transfer: f64, launch: f64, compute: f64) -> Self {
        Thresholds::default().bottleneck(transfer, launch, Some(compute))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palm_flops_and_mfu() {
        let shape = ModelShape {
            params: 1_000_000_000,
            layers: 24,
            heads: 16,
            head_dim: 128,
            seq_len: 2048,
        };
        let expected = 6e9 + 12.0 * 24.0 * 16.0 * 128.0 * 2048.0;
        assert_eq!(shape.training_flops_per_token(), expected);
        let mfu = shape.mfu(1000.0, 100e12).unwrap();
        assert!((mfu - 1000.0 * expected / 100e12).abs() < 1e-12);
        assert_eq!(shape.mfu(0.0, 100e12), None);
        assert_eq!(shape.mfu(f64::NAN, 100e12), None);
    }

    #[test]
    fn custom_thresholds_move_the_grade() {
        let strict = Thresholds {
            grade_d: 0.15,
            ..Thresholds::default()
        };
        assert_eq!(Thresholds::default().grade(0.12), Grade::D);
        assert_eq!(strict.grade(0.12), Grade::F);
    }

    #[test]
    fn bottleneck_skips_compute_rule_without_a_peak() {
        let t = Thresholds::default();
        assert_eq!(t.bottleneck(0.0, 0.0, Some(0.9)), Bottleneck::Compute);
        assert_eq!(t.bottleneck(0.0, 0.0, None), Bottleneck::MemoryBw);
    }

    #[test]
    fn validate_names_the_bad_field() {
        let t = Thresholds {
            step_time_warning: f64::NAN,
            ..Thresholds::default()
        };
        let err = t.validate().unwrap_err().to_string();
        assert!(err.contains("step_time_warning"), "{err}");
        assert!(Thresholds::default().validate().is_ok());
    }
}
