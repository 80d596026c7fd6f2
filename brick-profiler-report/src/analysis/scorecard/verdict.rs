//! Whether an honest grade exists: the first problem found (no throughput,
//! empty steps, no ceiling, a ceiling that is not a finite positive number,
//! a throughput above the ceiling) withholds grade and efficiency with the
//! reason; and the alerts about empty and nested steps.

use super::ceiling::Ceiling;
use super::grade::Withheld;
use super::view::Steps;
use crate::model::hardware::DeviceSpec;

/// The note shown when no hardware peak is known.
pub(crate) fn unknown_peak_note() -> String {
    format!(
        "unknown peak: set PROFILER_HARDWARE=<device> ({}) or PROFILER_PEAK_BW_GB_S (and \
         PROFILER_BYTES_PER_TOKEN); grade and efficiency are omitted",
        DeviceSpec::known_names()
    )
}

/// The ceiling graded against, and the grade or the reason it is withheld.
pub(crate) struct Verdict {
    pub(crate) peak: Option<f64>,
    pub(crate) efficiency: Option<f64>,
    pub(crate) withheld: Option<Withheld>,
}

/// Grades `throughput` against `hw`. The first problem found withholds the
/// grade: no throughput, empty steps, no ceiling, an invalid ceiling, a
/// ceiling measured on a busy machine (`busy` says why), a throughput above
/// the ceiling.
pub(crate) fn verdict(
    throughput: &Result<f64, String>,
    hw: Option<&Ceiling>,
    steps: &Steps,
    busy: Option<&str>,
) -> Verdict {
    let peak = hw
        .map(Ceiling::peak_throughput_tok_s)
        .filter(|p| p.is_finite() && *p > 0.0);
    let withheld = |reason| Verdict {
        peak,
        efficiency: None,
        withheld: Some(reason),
    };
    let tok_s = match throughput {
        Err(why) => return withheld(Withheld::NoThroughput { why: why.clone() }),
        Ok(tok_s) => *tok_s,
    };
    if steps.empty > 0 {
        return withheld(Withheld::EmptySteps {
            empty: steps.empty,
            steps: steps.count as u64,
        });
    }
    let Some(hw) = hw else {
        return withheld(Withheld::UnknownPeak);
    };
    let Some(peak) = peak else {
        let finite = |x: f64| x.is_finite().then_some(x);
        return withheld(Withheld::InvalidCeiling {
            peak_bw_gb_s: finite(hw.peak_bw_gb_s),
            bytes_per_token: finite(hw.bytes_per_token),
        });
    };
    if let Some(why) = busy {
        return withheld(Withheld::BusyMachine {
            why: why.to_owned(),
        });
    }
    if tok_s > peak {
        return withheld(Withheld::AboveCeiling {
            throughput_tok_s: tok_s,
            peak_tok_s: peak,
        });
    }
    Verdict {
        peak: Some(peak),
        efficiency: Some(tok_s / peak),
        withheld: None,
    }
}

/// The alerts about empty and nested steps.
pub(crate) fn step_alerts(steps: &Steps) -> Vec<String> {
    let mut alerts = Vec::new();
    if steps.empty > 0 {
        alerts.push(format!(
            "{} of {} recorded steps were empty: each ended before anything ran inside it on \
             its thread. The usual cause is `let _ = profiler::step(n);`, which drops the guard \
             at once; bind it to a named variable (`let _step = profiler::step(n);`) or wrap \
             the step in `profiler::in_step(n, || ...)`. Grade, efficiency and launch overhead \
             are withheld; throughput and step time include these steps and mean little.",
            steps.empty, steps.count
        ));
    }
    if steps.nested > 0 {
        let (noun, were) = match steps.nested {
            1 => ("step", "was"),
            _ => ("steps", "were"),
        };
        alerts.push(format!(
            "{} {noun} {were} opened inside another open step on the same thread and left out \
             of every total (only the outermost step counts): open one step per training step, \
             and do not call profiler::step again in code that runs inside it.",
            steps.nested
        ));
    }
    alerts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::scorecard::compute_training_scorecard;
    use crate::analysis::scorecard::{Bottleneck, TrainingScorecard};
    use crate::model::step::StepProfilerInput;

    fn spec(peak_bw_gb_s: f64, bytes_per_token: f64) -> Ceiling {
        Ceiling {
            peak_bw_gb_s,
            bytes_per_token,
        }
    }

    /// The scorecard of `input` at `tok_s` against `ceiling`, which the
    /// hardware model would refuse to hold.
    fn graded(input: &StepProfilerInput, tok_s: f64, ceiling: &Ceiling) -> TrainingScorecard {
        crate::analysis::scorecard::compute::compute(
            &crate::analysis::scorecard::view::RunView::from_step_log(input, Ok(tok_s)),
            Some(ceiling),
            None,
            &crate::analysis::scorecard::thresholds::ScorecardOptions::default(),
        )
    }

    fn rtx_4060l() -> profiler_core::hardware::Hardware {
        crate::model::hardware::preset("rtx_4060l").unwrap()
    }

    #[test]
    fn throughput_above_the_ceiling_withholds_the_grade() {
        let input = StepProfilerInput::default();
        let rtx = rtx_4060l();
        let sc = compute_training_scorecard(&input, 11_746.0, &rtx, None);
        assert_eq!((sc.grade, sc.efficiency), (None, None));
        assert_eq!(
            sc.grade_withheld
                .as_ref()
                .map(ToString::to_string)
                .as_deref(),
            Some(
                "throughput 11.7 k tok/s is above the 1.62 k tok/s ceiling, so the peak or \
                 bytes/token is wrong for this run"
            )
        );
        assert_ne!(
            sc.bottleneck,
            Bottleneck::Compute,
            "no utilisation to judge by"
        );
        // Exactly at the ceiling is graded: 100% is possible, not clamped to.
        let peak = Ceiling::of(&rtx).unwrap().peak_throughput_tok_s();
        let at = compute_training_scorecard(&input, peak, &rtx, None);
        assert_eq!(at.efficiency, Some(1.0));
    }

    #[test]
    fn a_ceiling_that_is_not_a_finite_positive_throughput_withholds_the_grade() {
        let input = StepProfilerInput::default();
        for (bw, bytes_per_token) in [
            (100.0, 1e-320), // unbounded ceiling
            (0.0, 1e6),
            (-5.0, 1e6),
            (f64::NAN, 1e6),
            (100.0, 0.0),
            (100.0, f64::INFINITY),
        ] {
            let sc = graded(&input, 500.0, &spec(bw, bytes_per_token));
            assert_eq!(
                (sc.grade, sc.efficiency),
                (None, None),
                "{bw} {bytes_per_token}"
            );
            assert!(
                matches!(sc.grade_withheld, Some(Withheld::InvalidCeiling { .. })),
                "{:?}",
                sc.grade_withheld
            );
            assert_eq!(sc.peak_throughput_tok_s, None);
            let json = sc.to_json();
            assert_eq!(TrainingScorecard::from_json(&json).unwrap(), sc, "{json}");
        }
        let sc = graded(&input, 500.0, &spec(100.0, 1e-320));
        assert!(
            sc.grade_withheld
                .unwrap()
                .to_string()
                .starts_with("the ceiling (100 GB/s over 1.0e-320 B per token) is not a finite"),
        );
    }

    #[test]
    fn a_throughput_that_is_not_a_number_is_not_graded() {
        let rtx = rtx_4060l();
        let input = StepProfilerInput::default();
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let sc = compute_training_scorecard(&input, x, &rtx, None);
            assert_eq!(sc.grade, None, "{x}");
            assert_eq!(sc.throughput_tok_s, 0.0);
        }
        // A negative throughput reads as 0 (the compat clamp): grade F.
        let sc = compute_training_scorecard(&input, -10.0, &rtx, None);
        assert_eq!(sc.efficiency, Some(0.0));
    }
}
