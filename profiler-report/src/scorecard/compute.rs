//! The scorecard computation: efficiency and grade, bottleneck, per-layer
//! ratios, hotspots, regressions and recommendations. Non-finite inputs are
//! read as 0 and reported in `warnings`, so no output field is ever NaN.

use std::collections::BTreeMap;

use super::input::StepProfilerInput;
use super::model::{LayerSummary, TrainingScorecard};
use super::recommend::recommend;
use super::regression::{Current, detect_regressions};
use super::thresholds::{LaunchRule, ScorecardOptions};
use crate::hardware::{DeviceSpec, HardwareSpec};

/// Computes the training scorecard with the reference rules and thresholds
/// **(compat)**: the entry point other tools call.
///
/// `throughput_tok_s` is the measured throughput; `hw` gives the ceiling
/// graded against; `baseline` (a saved scorecard) enables regressions. For
/// custom thresholds, MFU or unknown hardware use
/// `ScorecardBuilder::from_input`.
#[must_use]
pub fn compute_training_scorecard(
    input: &StepProfilerInput,
    throughput_tok_s: f64,
    hw: &HardwareSpec,
    baseline: Option<&TrainingScorecard>,
) -> TrainingScorecard {
    compute(
        input,
        Some(throughput_tok_s),
        Some(hw),
        baseline,
        &ScorecardOptions::default(),
    )
}

/// The note shown when no hardware peak is known.
pub(crate) fn unknown_peak_note() -> String {
    format!(
        "unknown peak: set PROFILER_HARDWARE=<device> ({}) or PROFILER_PEAK_BW_GB_S and \
         PROFILER_BYTES_PER_TOKEN; grade and efficiency are omitted",
        DeviceSpec::known_names()
    )
}

/// Adds times without overflowing to infinity (absurd inputs stay finite).
fn add_ms(total: f64, ms: f64) -> f64 {
    (total + ms).min(f64::MAX)
}

/// Reads non-finite values as 0, noting each one.
struct Sanitizer {
    warnings: Vec<String>,
}

impl Sanitizer {
    fn finite(&mut self, what: &str, x: f64) -> f64 {
        if x.is_finite() {
            x
        } else {
            self.warnings.push(format!("{what} is {x}; read as 0"));
            0.0
        }
    }

    fn non_negative(&mut self, what: &str, x: f64) -> f64 {
        let x = self.finite(what, x);
        if x < 0.0 {
            self.warnings
                .push(format!("{what} is negative ({x}); read as 0"));
            0.0
        } else {
            x
        }
    }
}

/// The scorecard computation behind every public entry point.
/// `throughput_tok_s = None` means "not measured" and `hw = None` "unknown
/// peak": the grade is then omitted (never guessed) with a warning.
pub(crate) fn compute(
    input: &StepProfilerInput,
    throughput_tok_s: Option<f64>,
    hw: Option<&HardwareSpec>,
    baseline: Option<&TrainingScorecard>,
    options: &ScorecardOptions,
) -> TrainingScorecard {
    let t = &options.thresholds;
    let mut s = Sanitizer {
        warnings: Vec::new(),
    };
    let throughput = throughput_tok_s.map(|x| s.non_negative("throughput_tok_s", x));
    let step_time_ms = s.non_negative("avg_step_ms", input.avg_step_ms);
    let mut wall_coverage = s.finite("wall_coverage", input.wall_coverage);
    if !(0.0..=1.0).contains(&wall_coverage) {
        s.warnings.push(format!(
            "wall_coverage {wall_coverage} outside [0, 1]; clamped"
        ));
        wall_coverage = wall_coverage.clamp(0.0, 1.0);
    }

    // A zero `bytes_per_token` gives an infinite peak: read as 0 (efficiency 0).
    let peak = hw.map(|h| s.finite("hardware peak throughput", h.peak_throughput_tok_s()));
    if peak.is_none() {
        s.warnings.push(unknown_peak_note());
    }
    let (grade, efficiency) = match (peak, throughput) {
        (Some(peak), Some(tok_s)) => {
            if peak > 0.0 && tok_s > peak {
                s.warnings.push(format!(
                    "throughput {tok_s:.0} tok/s is above the hardware ceiling of {peak:.0} tok/s: \
                     bytes_per_token is probably wrong for this model (efficiency clamped to 100%)"
                ));
            }
            let efficiency = if peak > 0.0 {
                (tok_s / peak).clamp(0.0, 1.0)
            } else {
                0.0
            };
            (Some(t.grade(efficiency)), efficiency)
        }
        _ => (None, 0.0),
    };

    let (mut transfer_pct, mut phase_ms) = (0.0, 0.0);
    for (name, phase) in &input.phases {
        let pct = s.non_negative(&format!("phase `{name}` pct"), phase.pct);
        if name.contains("h2d") || name.contains("d2h") {
            transfer_pct = add_ms(transfer_pct, pct);
        }
        phase_ms = add_ms(
            phase_ms,
            s.non_negative(&format!("phase `{name}` total_ms"), phase.total_ms),
        );
    }
    let transfer_fraction = (transfer_pct / 100.0).min(1.0);
    let launch_overhead = match options.launch_rule {
        LaunchRule::Reference if step_time_ms > 0.0 => 1.0 - (phase_ms / step_time_ms).min(1.0),
        LaunchRule::Reference => 0.0,
        LaunchRule::Uncovered if input.phases.is_empty() => {
            s.warnings.push(
                "no phases recorded: launch overhead unknown; wrap the parts of each step in \
                 profiler::phase(..)"
                    .to_owned(),
            );
            0.0
        }
        LaunchRule::Uncovered => 1.0 - wall_coverage,
    };
    let compute_util = grade.map(|_| efficiency);
    let bottleneck = t.bottleneck(transfer_fraction, launch_overhead, compute_util);

    let (forward_backward_ratio, per_layer_summary, op_totals) = layer_summaries(input, &mut s);
    let hotspot_ops = hotspots(op_totals, t.hotspot_count);

    let step_samples_ms: Vec<f64> = input
        .step_samples_ms
        .iter()
        .copied()
        .filter(|x| x.is_finite() && *x >= 0.0)
        .collect();
    let regressions = match baseline {
        Some(base) => {
            let current = Current {
                throughput_tok_s: throughput,
                step_time_ms,
                wall_coverage,
                step_samples_ms: &step_samples_ms,
            };
            let (found, notes) = detect_regressions(base, &current, t);
            s.warnings.extend(notes);
            found
        }
        None => Vec::new(),
    };

    let recommendations = recommend(
        grade,
        bottleneck,
        launch_overhead,
        forward_backward_ratio,
        t,
    );
    let mfu = mfu(options, throughput, &mut s);

    TrainingScorecard {
        grade,
        efficiency,
        bottleneck,
        throughput_tok_s: throughput.unwrap_or(0.0),
        step_time_ms,
        forward_backward_ratio,
        wall_coverage,
        per_layer_summary,
        hotspot_ops,
        regressions,
        recommendations,
        steps: input.steps,
        hardware: None,
        peak_throughput_tok_s: peak,
        transfer_fraction,
        launch_overhead,
        mfu,
        step_samples_ms,
        times_per_step: false,
        warnings: s.warnings,
    }
}

/// Per-layer summaries, the mean bwd/fwd ratio, and op totals over layers
/// and top-level ops.
fn layer_summaries(
    input: &StepProfilerInput,
    s: &mut Sanitizer,
) -> (f64, Vec<LayerSummary>, BTreeMap<String, f64>) {
    let mut op_totals: BTreeMap<String, f64> = BTreeMap::new();
    let (mut ratio_sum, mut ratio_count) = (0.0, 0usize);
    let mut summaries = Vec::with_capacity(input.per_layer.len());
    for layer in &input.per_layer {
        let before = s.warnings.len();
        let fwd_ms = s.non_negative(&format!("layer {} fwd_ms", layer.layer), layer.fwd_ms);
        let bwd_ms = s.non_negative(&format!("layer {} bwd_ms", layer.layer), layer.bwd_ms);
        let ratio = if fwd_ms > 0.0 {
            s.finite(
                &format!("layer {} bwd/fwd ratio", layer.layer),
                bwd_ms / fwd_ms,
            )
        } else {
            0.0
        };
        let mut top: Option<(&str, f64)> = None;
        let mut layer_total = 0.0;
        for (name, ms) in &layer.ops {
            let ms = s.non_negative(&format!("layer {} op `{name}`", layer.layer), *ms);
            let total = op_totals.entry(name.clone()).or_default();
            *total = add_ms(*total, ms);
            layer_total = add_ms(layer_total, ms);
            // `>=`: on ties the last op in name order wins, as in the reference.
            if top.is_none_or(|(_, best)| ms >= best) {
                top = Some((name, ms));
            }
        }
        let (top_op, top_ms) = top.map_or((String::new(), 0.0), |(n, ms)| (n.to_owned(), ms));
        if ratio > 0.0 && bwd_ms > 0.0 {
            ratio_sum = add_ms(ratio_sum, ratio);
            ratio_count += 1;
        }
        summaries.push(LayerSummary {
            layer: layer.layer,
            fwd_ms,
            bwd_ms,
            ratio,
            top_op,
            top_op_pct: if layer_total > 0.0 {
                top_ms / layer_total * 100.0
            } else {
                0.0
            },
            non_finite: s.warnings.len() > before,
        });
    }
    for (name, ms) in &input.ops {
        let ms = s.non_negative(&format!("op `{name}`"), *ms);
        let total = op_totals.entry(name.clone()).or_default();
        *total = add_ms(*total, ms);
    }
    let avg_ratio = if ratio_count > 0 {
        ratio_sum / ratio_count as f64
    } else {
        0.0
    };
    (avg_ratio, summaries, op_totals)
}

/// Top `count` ops by time as `(name, ms, % of all op time)`; ties keep name order.
fn hotspots(op_totals: BTreeMap<String, f64>, count: usize) -> Vec<(String, f64, f64)> {
    let total = op_totals.values().fold(0.0, |acc, &ms| add_ms(acc, ms));
    let mut ops: Vec<(String, f64, f64)> = op_totals
        .into_iter()
        .map(|(name, ms)| {
            let pct = if total > 0.0 { ms / total * 100.0 } else { 0.0 };
            (name, ms, pct)
        })
        .collect();
    ops.sort_by(|a, b| b.1.total_cmp(&a.1));
    ops.truncate(count);
    ops
}

fn mfu(options: &ScorecardOptions, throughput: Option<f64>, s: &mut Sanitizer) -> Option<f64> {
    let shape = options.model_shape?;
    let Some(peak) = options
        .peak_flops_per_s
        .filter(|p| p.is_finite() && *p > 0.0)
    else {
        s.warnings.push(
            "MFU needs a dense peak FLOP/s: set PROFILER_HARDWARE to a device with a published \
             peak, or PROFILER_PEAK_TFLOPS"
                .to_owned(),
        );
        return None;
    };
    let mfu = shape.mfu(throughput?, peak)?;
    if mfu > 1.0 {
        s.warnings.push(format!(
            "MFU {:.0}% exceeds 100%: check the model shape, token counts and peak",
            mfu * 100.0
        ));
    }
    Some(mfu)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scorecard::Bottleneck;
    use crate::scorecard::input::{PerLayerData, PhaseData};

    fn phase(total_ms: f64, pct: f64) -> PhaseData {
        PhaseData {
            total_ms,
            pct,
            avg_ms: total_ms,
        }
    }

    #[test]
    fn transfer_sums_h2d_and_d2h_phases() {
        let mut input = StepProfilerInput {
            avg_step_ms: 100.0,
            ..Default::default()
        };
        input.phases.insert("h2d".into(), phase(20.0, 20.0));
        input.phases.insert("grad_h2d".into(), phase(10.0, 10.0));
        input.phases.insert("d2h_logits".into(), phase(5.0, 5.0));
        input.phases.insert("forward".into(), phase(60.0, 60.0));
        let sc = compute_training_scorecard(&input, 100.0, &HardwareSpec::rtx_4060l(), None);
        assert!((sc.transfer_fraction - 0.35).abs() < 1e-12);
        assert!((sc.launch_overhead - 0.05).abs() < 1e-12);
        assert_eq!(sc.bottleneck, Bottleneck::Transfer);
    }

    #[test]
    fn layer_ratio_top_op_and_average() {
        let mut a = PerLayerData {
            layer: 0,
            fwd_ms: 2.0,
            bwd_ms: 4.0,
            ..Default::default()
        };
        a.ops.insert("gemm".into(), 3.0);
        a.ops.insert("norm".into(), 1.0);
        let b = PerLayerData {
            layer: 1,
            fwd_ms: 2.0,
            bwd_ms: 0.0,
            ..Default::default()
        };
        let c = PerLayerData {
            layer: 2,
            fwd_ms: 0.0,
            bwd_ms: 5.0,
            ..Default::default()
        };
        let input = StepProfilerInput {
            per_layer: vec![a, b, c],
            ..Default::default()
        };
        let sc = compute_training_scorecard(&input, 1.0, &HardwareSpec::gb10(), None);
        assert_eq!(sc.per_layer_summary[0].ratio, 2.0);
        assert_eq!(sc.per_layer_summary[0].top_op, "gemm");
        assert_eq!(sc.per_layer_summary[0].top_op_pct, 75.0);
        assert_eq!(sc.per_layer_summary[2].ratio, 0.0);
        // Only layer 0 has ratio > 0 and bwd > 0.
        assert_eq!(sc.forward_backward_ratio, 2.0);
        assert_eq!(sc.hotspot_ops[0], ("gemm".to_owned(), 3.0, 75.0));
    }

    #[test]
    fn unknown_peak_omits_the_grade() {
        let sc = compute(
            &StepProfilerInput::default(),
            Some(500.0),
            None,
            None,
            &ScorecardOptions::default(),
        );
        assert_eq!(sc.grade, None);
        assert_eq!(sc.efficiency, 0.0);
        assert!(
            sc.warnings
                .iter()
                .any(|w| w.contains("unknown peak: set PROFILER_HARDWARE="))
        );
        assert!(sc.peak_unknown());
    }
}
