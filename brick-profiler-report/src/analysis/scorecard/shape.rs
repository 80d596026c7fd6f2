//! The shape of a run: its layers, its ops and its tokens per step. Every
//! scorecard saves it, so a baseline from a differently shaped run (other
//! layers, other kernels, other batch) is compared only with a warning that
//! says what differs.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::units::si;

/// Relative change of tokens per step below which two runs count as
/// processing the same tokens per step.
pub(crate) const TOKENS_PER_STEP_TOLERANCE: f64 = 0.01;

/// Ops named in a difference before the rest are counted.
const NAMED_OPS: usize = 4;

/// What a run's steps consisted of.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunShape {
    /// Indices of the layers with recorded times, ascending.
    pub layers: Vec<usize>,
    /// Names of the ops (bricks) with recorded time, sorted; `None` when
    /// not known (a baseline saved before shapes were recorded).
    pub ops: Option<Vec<String>>,
    /// Tokens per step, when known.
    pub tokens_per_step: Option<f64>,
}

/// Whether `a` and `b` differ by more than the tolerance, relative to `a`.
pub(crate) fn tokens_differ(a: f64, b: f64) -> bool {
    a > 0.0 && ((b - a) / a).abs() > TOKENS_PER_STEP_TOLERANCE
}

impl RunShape {
    /// What differs from `baseline` to `self`, one phrase per difference;
    /// empty when the runs have the same shape (as far as both record).
    #[must_use]
    pub fn differences_from(&self, baseline: &RunShape) -> Vec<String> {
        let mut out = Vec::new();
        // A side that recorded no layers or ops does not know them (a
        // trainer's line without them); only compare what both recorded.
        if self.layers != baseline.layers && !self.layers.is_empty() && !baseline.layers.is_empty()
        {
            if self.layers.len() == baseline.layers.len() {
                out.push(format!(
                    "other layer indices ({:?} in the baseline, {:?} now)",
                    baseline.layers, self.layers
                ));
            } else {
                out.push(format!(
                    "{} layers in the baseline, {} now",
                    baseline.layers.len(),
                    self.layers.len()
                ));
            }
        }
        if let (Some(base), Some(now)) = (&baseline.ops, &self.ops)
            && !base.is_empty()
            && !now.is_empty()
        {
            let base: BTreeSet<&String> = base.iter().collect();
            let now: BTreeSet<&String> = now.iter().collect();
            let gone: Vec<&String> = base.difference(&now).copied().collect();
            let new: Vec<&String> = now.difference(&base).copied().collect();
            if !gone.is_empty() {
                out.push(format!("ops only in the baseline: {}", list(&gone)));
            }
            if !new.is_empty() {
                out.push(format!("ops only in this run: {}", list(&new)));
            }
        }
        if let (Some(base), Some(now)) = (baseline.tokens_per_step, self.tokens_per_step)
            && tokens_differ(base, now)
        {
            out.push(format!(
                "{} tokens per step in the baseline, {} now",
                si(base),
                si(now)
            ));
        }
        out
    }
}

/// `a, b, c, d (+3 more)`.
fn list(names: &[&String]) -> String {
    let shown: Vec<&str> = names.iter().take(NAMED_OPS).map(|s| s.as_str()).collect();
    let mut text = shown.join(", ");
    if names.len() > NAMED_OPS {
        text.push_str(&format!(" (+{} more)", names.len() - NAMED_OPS));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(layers: usize, ops: &[&str], tokens: f64) -> RunShape {
        RunShape {
            layers: (0..layers).collect(),
            ops: Some(ops.iter().map(|s| (*s).to_owned()).collect()),
            tokens_per_step: Some(tokens),
        }
    }

    #[test]
    fn same_shape_has_no_differences() {
        let a = shape(4, &["Gemm", "RmsNorm"], 256.0);
        assert!(a.differences_from(&a).is_empty());
        // Within 1% tokens per step.
        assert!(
            shape(4, &["Gemm", "RmsNorm"], 257.0)
                .differences_from(&a)
                .is_empty()
        );
    }

    #[test]
    fn every_difference_is_named() {
        let base = shape(4, &["Gemm", "RmsNorm", "Old"], 256.0);
        let now = shape(2, &["Gemm", "RmsNorm", "New"], 512.0);
        assert_eq!(
            now.differences_from(&base),
            [
                "4 layers in the baseline, 2 now",
                "ops only in the baseline: Old",
                "ops only in this run: New",
                "256 tokens per step in the baseline, 512 now",
            ]
        );
    }

    #[test]
    fn unknown_parts_are_not_compared() {
        let base = RunShape {
            layers: vec![0, 1],
            ops: None,
            tokens_per_step: None,
        };
        let now = shape(2, &["Gemm"], 256.0);
        assert!(now.differences_from(&base).is_empty());
        assert!(now.differences_from(&shape(0, &[], 256.0)).is_empty());
        let many = shape(2, &["a", "b", "c", "d", "e", "f"], 256.0);
        let d = many.differences_from(&shape(2, &["z"], 256.0));
        assert_eq!(
            d,
            [
                "ops only in the baseline: z",
                "ops only in this run: a, b, c, d (+2 more)"
            ]
        );
    }
}
