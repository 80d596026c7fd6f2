//! Regressions against a baseline scorecard. The reference thresholds
//! (relative throughput and step-time change, absolute wall-coverage drop)
//! decide which changes matter; per-step samples decide whether a change
//! stands out of run-to-run noise.
//!
//! Throughput and step time are one fact when tokens per step did not
//! change (throughput = tokens per step / step time), so they are judged
//! together: when either crosses its threshold and the samples confirm it,
//! both are listed with the same severity; when the samples do not, neither
//! is, and a note says which condition failed. The samples are per-step
//! throughput (tokens / time of each step) when both runs recorded tokens
//! per step, else step times. When tokens per step changed, fewer tokens
//! per step is a throughput regression whatever the step times do, and
//! step time is judged on its own. A baseline from a differently shaped
//! run (layers, ops, tokens per step) is compared under an alert that says
//! what differs.

use super::model::{BaselineComparison, Regression, Severity, TrainingScorecard};
use super::noise::Samples;
use super::shape::{RunShape, tokens_differ};
use super::thresholds::Thresholds;
use super::units::{si, signed_pct};

/// The current run's numbers, already sanitised.
pub(crate) struct Current<'a> {
    pub(crate) throughput_tok_s: Option<f64>,
    pub(crate) step_time_ms: f64,
    pub(crate) wall_coverage: f64,
    pub(crate) step_samples_ms: &'a [f64],
    /// Tokens of each step in `step_samples_ms`, or empty.
    pub(crate) step_samples_tokens: &'a [u64],
    pub(crate) shape: &'a RunShape,
}

/// What a comparison found.
#[derive(Debug, Default)]
pub(crate) struct Found {
    /// Flagged regressions: throughput, step time, wall coverage.
    pub(crate) regressions: Vec<Regression>,
    /// Every change, and those the noise test declined to flag.
    pub(crate) comparison: BaselineComparison,
    /// A baseline of another shape.
    pub(crate) alerts: Vec<String>,
}

/// The baseline's shape: saved, or read from what older files hold (their
/// layers and tokens per step; ops unknown).
fn baseline_shape(baseline: &TrainingScorecard) -> RunShape {
    baseline.shape.clone().unwrap_or_else(|| {
        let mut layers: Vec<usize> = baseline.per_layer_summary.iter().map(|l| l.layer).collect();
        layers.sort_unstable();
        layers.dedup();
        let tokens = baseline.throughput_tok_s * baseline.step_time_ms / 1e3;
        RunShape {
            layers,
            ops: None,
            tokens_per_step: (tokens.is_finite() && tokens > 0.0).then_some(tokens),
        }
    })
}

/// Severity of a change past `warning` (`critical` beyond), as a positive
/// amount of "worse".
fn severity(worse_by: f64, warning: f64, critical: f64) -> Option<Severity> {
    if worse_by > critical {
        Some(Severity::Critical)
    } else if worse_by > warning {
        Some(Severity::Warning)
    } else {
        None
    }
}

/// A change of one metric: its current value, the relative change, and
/// how bad it is (`None`: within the thresholds).
type Change = (f64, f64, Option<Severity>);

/// Compares the current run with `baseline`.
pub(crate) fn detect_regressions(
    baseline: &TrainingScorecard,
    current: &Current<'_>,
    t: &Thresholds,
) -> Found {
    let mut found = Found::default();
    let base_shape = baseline_shape(baseline);
    let differences = current.shape.differences_from(&base_shape);
    if !differences.is_empty() {
        found.alerts.push(format!(
            "The baseline comes from a differently shaped run ({}): the comparison below is \
             of different work, not of the same job run twice.",
            differences.join("; ")
        ));
    }

    let throughput = current
        .throughput_tok_s
        .filter(|_| baseline.throughput_tok_s > 0.0)
        .map(|now| {
            let delta = (now - baseline.throughput_tok_s) / baseline.throughput_tok_s;
            let sev = severity(-delta, t.throughput_warning, t.throughput_critical);
            (now, delta, sev)
        });
    let step = (baseline.step_time_ms > 0.0 && current.step_time_ms > 0.0).then(|| {
        let delta = (current.step_time_ms - baseline.step_time_ms) / baseline.step_time_ms;
        let sev = severity(delta, t.step_time_warning, t.step_time_critical);
        (current.step_time_ms, delta, sev)
    });

    let same_tokens = matches!(
        (base_shape.tokens_per_step, current.shape.tokens_per_step),
        (Some(b), Some(n)) if !tokens_differ(b, n)
    );
    match (throughput, step) {
        (Some(tp), Some(st)) if same_tokens => {
            judge_together(baseline, current, tp, st, t, &mut found);
        }
        (throughput, step) => {
            if let Some((now, delta, Some(sev))) = throughput {
                found.regressions.push(throughput_alone(
                    baseline,
                    &base_shape,
                    current,
                    (now, delta),
                    sev,
                ));
            }
            if let Some((now, delta, Some(sev))) = step {
                judge_step_time(baseline, current, (now, delta), sev, t, &mut found);
            }
        }
    }

    let coverage_delta = current.wall_coverage - baseline.wall_coverage;
    let both_covered = baseline.wall_coverage > 0.0 && current.wall_coverage > 0.0;
    if both_covered && coverage_delta < -t.wall_coverage_drop {
        let values = (
            baseline.wall_coverage,
            current.wall_coverage,
            coverage_delta,
        );
        found
            .regressions
            .push(entry("wall_coverage", values, Severity::Warning, None));
    }
    found.comparison.throughput = throughput.map(|(_, delta, _)| delta);
    found.comparison.step_time = step.map(|(_, delta, _)| delta);
    found.comparison.wall_coverage = both_covered.then_some(coverage_delta);
    found
}

/// A flagged change of `metric`, from `(baseline, current, delta)`.
fn entry(
    metric: &str,
    (base, now, delta): (f64, f64, f64),
    severity: Severity,
    detail: Option<String>,
) -> Regression {
    Regression {
        metric: metric.to_owned(),
        delta,
        severity,
        detail,
        baseline: Some(base),
        current: Some(now),
    }
}

/// Throughput and step time with unchanged tokens per step: one fact seen
/// twice, so one decision, and the worse severity for both.
fn judge_together(
    baseline: &TrainingScorecard,
    current: &Current<'_>,
    (tp_now, tp_delta, tp_sev): Change,
    (st_now, st_delta, st_sev): Change,
    t: &Thresholds,
    found: &mut Found,
) {
    let Some(sev) = tp_sev.max(st_sev) else {
        return;
    };
    let pair = format!(
        "Throughput {} and step time {}",
        signed_pct(tp_delta),
        signed_pct(st_delta)
    );
    match Samples::shared(
        (&baseline.step_samples_ms, &baseline.step_samples_tokens),
        (current.step_samples_ms, current.step_samples_tokens),
    )
    .verdict(t)
    {
        Some(v) if !v.flagged => {
            found
                .comparison
                .not_flagged
                .push(format!("{pair} not flagged: {}", v.why));
        }
        verdict => {
            let detail = verdict.map(|v| v.why).or_else(|| {
                Some(
                    "tokens per step are unchanged, so throughput and step time are the same \
                     change; no per-step samples to test it against noise"
                        .to_owned(),
                )
            });
            let tp = (baseline.throughput_tok_s, tp_now, tp_delta);
            let st = (baseline.step_time_ms, st_now, st_delta);
            found
                .regressions
                .push(entry("throughput_tok_s", tp, sev, detail.clone()));
            found
                .regressions
                .push(entry("step_time_ms", st, sev, detail));
        }
    }
}

/// A throughput drop when tokens per step changed (or are unknown): fewer
/// tokens per step is a regression whatever the step times do.
fn throughput_alone(
    baseline: &TrainingScorecard,
    base_shape: &RunShape,
    current: &Current<'_>,
    (now, delta): (f64, f64),
    sev: Severity,
) -> Regression {
    let detail = match (base_shape.tokens_per_step, current.shape.tokens_per_step) {
        (Some(b), Some(n)) => Some(format!(
            "tokens per step changed from {} to {}",
            si(b),
            si(n)
        )),
        _ => None,
    };
    let values = (baseline.throughput_tok_s, now, delta);
    entry("throughput_tok_s", values, sev, detail)
}

/// A step-time change judged on its own, against the step-time samples.
fn judge_step_time(
    baseline: &TrainingScorecard,
    current: &Current<'_>,
    (now, delta): (f64, f64),
    sev: Severity,
    t: &Thresholds,
    found: &mut Found,
) {
    match Samples::step_times(&baseline.step_samples_ms, current.step_samples_ms).verdict(t) {
        Some(v) if !v.flagged => found.comparison.not_flagged.push(format!(
            "Step time {} not flagged: {}",
            signed_pct(delta),
            v.why
        )),
        verdict => {
            let values = (baseline.step_time_ms, now, delta);
            let detail = verdict.map(|v| v.why);
            found
                .regressions
                .push(entry("step_time_ms", values, sev, detail));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(tok_s: f64, step_ms: f64) -> TrainingScorecard {
        let input = crate::model::step::StepProfilerInput {
            avg_step_ms: step_ms,
            ..Default::default()
        };
        crate::analysis::scorecard::compute_training_scorecard(
            &input,
            tok_s,
            &crate::hardware::preset("rtx_4060l").unwrap(),
            None,
        )
    }

    fn current<'a>(tok_s: f64, step_ms: f64, shape: &'a RunShape) -> Current<'a> {
        Current {
            throughput_tok_s: Some(tok_s),
            step_time_ms: step_ms,
            wall_coverage: 0.0,
            step_samples_ms: &[],
            step_samples_tokens: &[],
            shape,
        }
    }

    #[test]
    fn one_change_seen_as_throughput_and_step_time_is_listed_twice_alike() {
        // 10.9% slower steps, same tokens per step: throughput -9.8%.
        let shape = RunShape {
            tokens_per_step: Some(20.0),
            ..RunShape::default()
        };
        let found = detect_regressions(
            &card(200.0, 100.0),
            &current(200.0 / 1.109, 110.9, &shape),
            &Thresholds::default(),
        );
        let listed: Vec<(&str, Severity)> = found
            .regressions
            .iter()
            .map(|r| (r.metric.as_str(), r.severity))
            .collect();
        assert_eq!(
            listed,
            [
                ("throughput_tok_s", Severity::Warning),
                ("step_time_ms", Severity::Warning)
            ]
        );
        assert_eq!(found.regressions[0].baseline, Some(200.0));
    }

    #[test]
    fn every_change_is_kept_flagged_or_not() {
        let shape = RunShape {
            tokens_per_step: Some(20.0),
            ..RunShape::default()
        };
        let found = detect_regressions(
            &card(200.0, 100.0),
            &current(210.0, 95.24, &shape),
            &Thresholds::default(),
        );
        assert!(found.regressions.is_empty());
        let c = found.comparison;
        assert!(c.throughput.is_some_and(|d| (d - 0.05).abs() < 1e-12));
        assert!(c.step_time.is_some_and(|d| (d + 0.0476).abs() < 1e-12));
        assert_eq!(c.wall_coverage, None, "neither run measured coverage");
        assert!(c.not_flagged.is_empty());
    }

    #[test]
    fn a_baseline_of_another_shape_is_named_in_an_alert() {
        let base = TrainingScorecard {
            shape: Some(RunShape {
                layers: vec![0, 1, 2, 3],
                ops: None,
                tokens_per_step: Some(20.0),
            }),
            ..card(200.0, 100.0)
        };
        let shape = RunShape {
            layers: vec![0, 1],
            ops: None,
            tokens_per_step: Some(20.0),
        };
        let found = detect_regressions(
            &base,
            &current(200.0, 100.0, &shape),
            &Thresholds::default(),
        );
        assert_eq!(found.alerts.len(), 1);
        assert!(
            found.alerts[0].starts_with(
                "The baseline comes from a differently shaped run (4 layers in the baseline, 2 now)"
            ),
            "{:?}",
            found.alerts
        );
    }
}
