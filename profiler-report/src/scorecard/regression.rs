//! Regressions against a baseline scorecard. The reference rules (relative
//! throughput and step-time change, absolute wall-coverage drop) apply as
//! is; when both runs carry per-step samples, a slower step must also pass a
//! Mann-Whitney U test and clear the baseline's noise floor to be flagged.
//! A throughput drop is judged by that test only when tokens per step did
//! not change (then it *is* a step-time change); fewer tokens per step is a
//! real regression whatever the step times do.

use super::model::{Regression, Severity, TrainingScorecard};
use super::stats::{mann_whitney, median, scaled_mad};
use super::thresholds::Thresholds;

/// Relative change of tokens per step below which a throughput change is
/// taken to be a step-time change (and judged by the step-time noise test).
const TOKENS_PER_STEP_TOLERANCE: f64 = 0.01;

/// The current run's numbers, already sanitised.
pub(crate) struct Current<'a> {
    pub(crate) throughput_tok_s: Option<f64>,
    pub(crate) step_time_ms: f64,
    pub(crate) wall_coverage: f64,
    pub(crate) step_samples_ms: &'a [f64],
}

/// Whether a slowdown stands out of run-to-run noise.
struct NoiseVerdict {
    significant: bool,
    explanation: String,
}

/// Runs the shift test when both sides have `min_samples` usable samples.
fn noise_verdict(base: &[f64], current: &[f64], t: &Thresholds) -> Option<NoiseVerdict> {
    let usable = |s: &[f64]| -> Vec<f64> {
        s.iter()
            .copied()
            .filter(|x| x.is_finite() && *x > 0.0)
            .collect()
    };
    let (base, current) = (usable(base), usable(current));
    if base.len() < t.min_samples.max(2) || current.len() < t.min_samples.max(2) {
        return None;
    }
    let test = mann_whitney(&current, &base)?;
    let shift = median(&current) - median(&base);
    let floor = t.noise_floor_mads * scaled_mad(&base);
    let p = if test.p_value >= 0.001 {
        format!("{:.3}", test.p_value)
    } else {
        format!("{:.1e}", test.p_value)
    };
    Some(NoiseVerdict {
        significant: test.p_value < t.significance_alpha && shift > floor,
        explanation: format!(
            "Mann-Whitney U on {} vs {} step times: p={p} (alpha {}), median shift {shift:+.2} ms vs noise floor {floor:.2} ms ({}x baseline MAD)",
            current.len(),
            base.len(),
            t.significance_alpha,
            t.noise_floor_mads,
        ),
    })
}

/// Compares the current run with `baseline`. Returns the regressions
/// (throughput, step time, wall coverage, in that order) and notes about
/// changes the noise test declined to flag.
pub(crate) fn detect_regressions(
    baseline: &TrainingScorecard,
    current: &Current<'_>,
    t: &Thresholds,
) -> (Vec<Regression>, Vec<String>) {
    let mut found = Vec::new();
    let mut notes = Vec::new();
    let verdict = noise_verdict(&baseline.step_samples_ms, current.step_samples_ms, t);
    let same_tokens_per_step = current.throughput_tok_s.is_some_and(|tok_s| {
        let base = baseline.throughput_tok_s * baseline.step_time_ms;
        let now = tok_s * current.step_time_ms;
        base > 0.0 && ((now - base) / base).abs() <= TOKENS_PER_STEP_TOLERANCE
    });
    let mut judge = |metric: &str, delta: f64, severity: Severity, by_noise: bool| match &verdict {
        Some(v) if by_noise && !v.significant => notes.push(format!(
            "{metric} {:+.1}% not flagged: within run-to-run noise ({})",
            delta * 100.0,
            v.explanation
        )),
        v => found.push(Regression {
            metric: metric.to_owned(),
            delta,
            severity,
            detail: v
                .as_ref()
                .filter(|_| by_noise)
                .map(|v| v.explanation.clone()),
        }),
    };

    if let Some(throughput) = current.throughput_tok_s
        && baseline.throughput_tok_s > 0.0
    {
        let delta = (throughput - baseline.throughput_tok_s) / baseline.throughput_tok_s;
        if delta < -t.throughput_warning {
            let severity = if delta < -t.throughput_critical {
                Severity::Critical
            } else {
                Severity::Warning
            };
            judge("throughput_tok_s", delta, severity, same_tokens_per_step);
        }
    }

    if baseline.step_time_ms > 0.0 && current.step_time_ms > 0.0 {
        let delta = (current.step_time_ms - baseline.step_time_ms) / baseline.step_time_ms;
        if delta > t.step_time_warning {
            let severity = if delta > t.step_time_critical {
                Severity::Critical
            } else {
                Severity::Warning
            };
            judge("step_time_ms", delta, severity, true);
        }
    }

    if baseline.wall_coverage > 0.0 && current.wall_coverage > 0.0 {
        let delta = current.wall_coverage - baseline.wall_coverage;
        if delta < -t.wall_coverage_drop {
            found.push(Regression {
                metric: "wall_coverage".to_owned(),
                delta,
                severity: Severity::Warning,
                detail: None,
            });
        }
    }
    (found, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(center: f64, spread: f64, n: usize) -> Vec<f64> {
        // Deterministic spread: a symmetric saw-tooth around the centre.
        (0..n)
            .map(|i| center + spread * ((i % 5) as f64 - 2.0) / 2.0)
            .collect()
    }

    #[test]
    fn clear_shift_is_significant_and_noise_is_not() {
        let t = Thresholds::default();
        let base = samples(100.0, 1.0, 30);
        let shifted = samples(115.0, 1.0, 30);
        let v = noise_verdict(&base, &shifted, &t).unwrap();
        assert!(v.significant, "{}", v.explanation);
        assert!(v.explanation.contains("Mann-Whitney"));
        let noisy_base = samples(100.0, 60.0, 30);
        let noisy_cur = samples(112.0, 60.0, 30);
        assert!(
            !noise_verdict(&noisy_base, &noisy_cur, &t)
                .unwrap()
                .significant
        );
    }

    fn scorecard(tok_s: f64, step_ms: f64, samples: Vec<f64>) -> TrainingScorecard {
        let input = crate::StepProfilerInput {
            avg_step_ms: step_ms,
            ..Default::default()
        };
        let hw = crate::HardwareSpec::rtx_4060l();
        let mut sc = crate::compute_training_scorecard(&input, tok_s, &hw, None);
        sc.step_samples_ms = samples;
        sc
    }

    #[test]
    fn fewer_tokens_per_step_is_flagged_whatever_the_step_times() {
        let t = Thresholds::default();
        let steps = samples(100.0, 1.0, 30);
        let base = scorecard(200.0, 100.0, steps.clone());
        // Same step times, a quarter fewer tokens per step.
        let current = Current {
            throughput_tok_s: Some(150.0),
            step_time_ms: 100.0,
            wall_coverage: 0.0,
            step_samples_ms: &steps,
        };
        let (found, notes) = detect_regressions(&base, &current, &t);
        assert_eq!(found.len(), 1, "{notes:?}");
        assert_eq!(
            (found[0].metric.as_str(), found[0].severity),
            ("throughput_tok_s", Severity::Critical)
        );
        // Same tokens per step, step times within noise: not flagged, explained.
        let noisy_base = scorecard(200.0, 100.0, samples(100.0, 60.0, 30));
        let noisy = samples(112.0, 60.0, 30);
        let current = Current {
            throughput_tok_s: Some(200.0 / 1.12),
            step_time_ms: 112.0,
            wall_coverage: 0.0,
            step_samples_ms: &noisy,
        };
        let (found, notes) = detect_regressions(&noisy_base, &current, &t);
        assert!(found.is_empty(), "{found:?}");
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("throughput_tok_s") && n.contains("noise")),
            "{notes:?}"
        );
    }

    #[test]
    fn too_few_samples_fall_back_to_the_reference_rule() {
        let t = Thresholds::default();
        assert!(noise_verdict(&[100.0; 3], &[120.0; 3], &t).is_none());
    }
}
