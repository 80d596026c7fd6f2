//! The scorecard computation: grade (withheld, with the reason, whenever no
//! honest one exists), bottleneck, launch overhead, regressions and
//! recommendations, from the parts computed by `verdict`, `breakdown` and
//! `regression`. Non-finite inputs are read as 0 or withheld and reported,
//! so no output field is ever NaN.

use std::collections::BTreeMap;

use super::breakdown::{Sanitizer, add_ms, hotspots, layer_summaries};
use super::ceiling::BytesPerTokenSource;
use super::ceiling::Ceiling;
use super::cold::ColdCall;
use super::grade::{Grade, Withheld};
use super::inference::{CeilingUse, ComputeCeiling, InferenceRows};
use super::kind::RunKind;
use super::model::{BaselineComparison, Regression, TrainingScorecard};
use super::recommend::recommend;
use super::regression::{Current, detect_regressions};
use super::shape::RunShape;
use super::thresholds::{CacheCeiling, ScorecardOptions, Thresholds};
use super::tokens::TokenTimes;
use super::units::{bytes, pct, si};
use super::verdict::{Verdict, step_alerts, unknown_peak_note, verdict};
use super::view::{Coverage, RunView, Steps};
use crate::model::step::StepProfilerInput;
use profiler_core::hardware::Hardware;

/// Computes the training scorecard with the standard rules and thresholds:
/// the stable entry point other tools call.
///
/// `throughput_tok_s` is the measured throughput; `hw` gives the ceiling
/// graded against; `baseline` (a saved scorecard) enables regressions.
/// Efficiency is throughput over the memory-bound ceiling, `hw`'s DRAM
/// bandwidth over its bytes per token (the placeholder
/// [`DEFAULT_BYTES_PER_TOKEN`](crate::model::hardware::DEFAULT_BYTES_PER_TOKEN)
/// when it gives none); when `hw` has no DRAM bandwidth, the throughput is
/// above the ceiling, or the ceiling is zero, negative or not finite, the
/// grade and efficiency are withheld (`None`) and
/// `grade_withheld` says why: a clamped 100% would grade a wrong ceiling A.
/// A negative throughput reads as 0 (a warning says so). For custom
/// thresholds, MFU or unknown hardware use `ScorecardBuilder::from_input`.
#[must_use]
pub fn compute_training_scorecard(
    input: &StepProfilerInput,
    throughput_tok_s: f64,
    hw: &Hardware,
    baseline: Option<&TrainingScorecard>,
) -> TrainingScorecard {
    compute(
        &RunView::from_step_log(input, Ok(throughput_tok_s)),
        Ceiling::of(hw).as_ref(),
        baseline,
        &ScorecardOptions::default(),
    )
}

/// Launch overhead by where the coverage came from, or `None` when unknown.
fn launch_overhead(
    run: &RunView,
    measured: &Measured,
    phase_ms: f64,
    s: &mut Sanitizer,
) -> Option<f64> {
    let Measured {
        step_time_ms,
        wall_coverage,
        ..
    } = *measured;
    if run.steps.empty > 0 {
        // Empty steps have no phases: their "uncovered" time is not launch time.
        return None;
    }
    match run.coverage {
        // The standard rule, right for logs whose phase totals are per step
        // (trainers that sum phases over the whole run make it read 0).
        Coverage::Logged(_) if step_time_ms > 0.0 => Some(1.0 - (phase_ms / step_time_ms).min(1.0)),
        Coverage::Logged(_) => Some(0.0),
        Coverage::Measured(_) if run.phases.is_empty() => {
            s.warnings.push(
                "no phases recorded: launch overhead unknown; wrap the parts of each step in \
                 profiler::phase(..)"
                    .to_owned(),
            );
            None
        }
        Coverage::Measured(_) => Some(1.0 - wall_coverage),
    }
}

/// The scorecard computation behind every public entry point.
/// A throughput of `Err(why)` means "not measured" and `hw = None`
/// "unknown peak": the grade is then withheld (never guessed) with the reason.
pub(crate) fn compute(
    run: &RunView,
    hw: Option<&Ceiling>,
    baseline: Option<&TrainingScorecard>,
    options: &ScorecardOptions,
) -> TrainingScorecard {
    let t = &options.thresholds;
    let mut s = Sanitizer::default();
    let measured = Measured::of(run, &mut s);
    let graded = Graded::of(run, &measured, hw, options, &mut s);
    let (transfer_fraction, phase_ms) = phase_split(run, &mut s);
    let launch_overhead = launch_overhead(run, &measured, phase_ms, &mut s);
    let launch_share = launch_overhead.unwrap_or(0.0);
    let bottleneck = t.bottleneck(transfer_fraction, launch_share, graded.efficiency);

    let (forward_backward_ratio, per_layer_summary, op_totals) = layer_summaries(run, &mut s);
    let tok_s = measured.throughput.as_ref().ok().copied();
    let step_time_ms = measured.step_time_ms;
    let device_efficiency =
        device_efficiency(run.device_busy_ms, graded.efficiency, step_time_ms, &mut s);
    let shape = run_shape(run, &op_totals, tok_s, step_time_ms);

    let mut alerts = step_alerts(&run.steps);
    let (step_samples_ms, step_samples_tokens) = samples(&run.steps);
    let current = Current {
        throughput_tok_s: tok_s,
        step_time_ms,
        wall_coverage: measured.wall_coverage,
        step_samples_ms: &step_samples_ms,
        step_samples_tokens: &step_samples_tokens,
        shape: &shape,
    };
    let (regressions, vs_baseline) = against_baseline(baseline, &current, t, &mut alerts);

    let recommendations = recommend(
        graded.grade,
        bottleneck,
        launch_overhead,
        forward_backward_ratio,
        run.device_timed(),
        t,
    );
    let kind = run.kind;
    let mut not_measured = BTreeMap::new();
    let mfu = if kind == RunKind::Training {
        mfu(options, tok_s, &mut s)
    } else {
        if options.model_shape.is_some() {
            not_measured.insert(
                "mfu".to_owned(),
                format!("{kind} run: MFU counts training FLOPs (6N per token)"),
            );
        }
        None
    };
    let recorded = run.recorded.as_ref();
    if !kind.has_backward() {
        not_measured.insert(
            "forward_backward_ratio".to_owned(),
            format!("{kind} run: no backward pass recorded"),
        );
    }
    if recorded.is_some() && run.phases.is_empty() {
        not_measured.insert(
            "wall_coverage".to_owned(),
            "no phases recorded: wrap the parts of each step in profiler::phase(..)".to_owned(),
        );
    }
    let mut warnings = s.warnings;
    let cold = recorded.map_or(&[][..], |r| &r.cold_calls[..]);
    warnings.extend(cold.iter().map(|c| c.warning.clone()));
    // A cold call is a host-time outlier: device times keep every kernel.
    let base = &run.time_base;
    let host_cold: Vec<ColdCall> = cold
        .iter()
        .filter(|c| !base.is_device() || base.on_host(&c.name))
        .cloned()
        .collect();
    let hotspot_ops = hotspots(without_cold_excess(op_totals, &host_cold), t.hotspot_count);
    let inference = recorded.filter(|_| kind == RunKind::Generation).map(|r| {
        let decode = decode_use(&graded, hw, options, &r.tokens);
        let compute = compute_ceiling(options);
        InferenceRows::of(&r.tokens, decode, &compute, t)
    });

    TrainingScorecard {
        grade: graded.grade,
        efficiency: graded.efficiency,
        bottleneck,
        throughput_tok_s: tok_s.unwrap_or(0.0),
        step_time_ms,
        forward_backward_ratio,
        wall_coverage: measured.wall_coverage,
        per_layer_summary,
        hotspot_ops,
        regressions,
        recommendations,
        steps: run.steps.count,
        grade_withheld: graded.withheld,
        hardware: None,
        peak_throughput_tok_s: graded.peak,
        peak_bw_gb_s: hw.map(|h| h.peak_bw_gb_s).filter(|b| b.is_finite()),
        bytes_per_token: hw.map(|h| h.bytes_per_token).filter(|b| b.is_finite()),
        bytes_per_token_source: graded.bytes_per_token_source,
        transfer_fraction,
        launch_overhead,
        device_timed: run.device_timed(),
        mfu,
        empty_steps: run.steps.empty,
        nested_steps: run.steps.nested,
        step_samples_ms,
        step_samples_tokens,
        times_per_step: recorded.is_some_and(|r| r.times_per_step),
        vs_baseline,
        shape: Some(shape),
        alerts,
        warnings,
        run_kind: kind,
        inference,
        time_base: run.time_base.clone(),
        device_busy_ms: run.device_busy_ms,
        device_efficiency,
        not_measured,
        memory_peaks: recorded.map(|r| r.memory_peaks.clone()).unwrap_or_default(),
        launch_gap: recorded.and_then(|r| r.launch_gap),
    }
}

/// The efficiency over the devices' busy time: `efficiency` times step
/// time over busy time. Withheld, with a warning, when the busy time
/// passes the step time (several devices or streams summed) or the result
/// passes the ceiling.
fn device_efficiency(
    busy_ms: Option<f64>,
    efficiency: Option<f64>,
    step_time_ms: f64,
    s: &mut Sanitizer,
) -> Option<f64> {
    let busy_ms = busy_ms.filter(|b| b.is_finite() && *b > 0.0)?;
    let efficiency = efficiency?;
    if busy_ms > step_time_ms {
        s.warnings.push(format!(
            "device busy time per step ({busy_ms:.3} ms) is above the step time \
             ({step_time_ms:.3} ms): several devices are summed; device efficiency withheld"
        ));
        return None;
    }
    let device = efficiency * step_time_ms / busy_ms;
    if !device.is_finite() || device > 1.0 {
        s.warnings.push(format!(
            "throughput over the device's busy time would be {:.1}% of the ceiling: the \
             ceiling is too low for these kernels; device efficiency withheld",
            device * 100.0
        ));
        return None;
    }
    Some(device)
}

/// Op totals with each cold brick's slowest-call excess left out, so one
/// cold call does not rank a hotspot.
fn without_cold_excess(
    mut totals: BTreeMap<String, f64>,
    cold: &[ColdCall],
) -> BTreeMap<String, f64> {
    for c in cold {
        if let Some(ms) = totals.get_mut(&c.name) {
            *ms = (*ms - c.excess_ms).max(0.0);
        }
    }
    totals
}

/// Decode against the bandwidth ceiling, from the scorecard's verdict
/// (a generation run is graded on its decode tokens/s). When the bytes a
/// decode step reads fit in a cache, the basis says so and gives the
/// efficiency against that cache's bandwidth too: the weights can then stay
/// cache-resident, and DRAM bandwidth need not bound decode.
fn decode_use(
    graded: &Graded,
    hw: Option<&Ceiling>,
    options: &ScorecardOptions,
    tokens: &TokenTimes,
) -> CeilingUse {
    let mut basis = match hw {
        Some(c) => format!(
            "memory bandwidth: DRAM {} GB/s ({}) / {} per token ({}: weights read once plus KV cache)",
            si(c.peak_bw_gb_s),
            options
                .bandwidth_source
                .as_deref()
                .unwrap_or("source unknown"),
            bytes(c.bytes_per_token),
            graded
                .bytes_per_token_source
                .map_or("source unknown", BytesPerTokenSource::describe)
        ),
        None => "memory bandwidth: unknown (no hardware)".to_owned(),
    };
    if let (Some(c), Some(e)) = (hw, graded.efficiency) {
        basis.push_str(&cache_resident(c, e, &options.caches, tokens).unwrap_or_default());
    }
    CeilingUse {
        efficiency: graded.efficiency,
        grade: graded.grade,
        ceiling_tok_s: graded.peak,
        basis,
        withheld: graded.withheld.as_ref().map(ToString::to_string),
    }
}

/// `"; the N a decode step reads fit in L3 (...)..."` when the bytes of a
/// decode step (bytes per token times the tokens of a step) fit in one of
/// `caches` (smallest first), with `efficiency` (against DRAM) restated
/// against that cache's bandwidth; `None` when none holds them or the
/// tokens per step are unknown.
fn cache_resident(
    c: &Ceiling,
    efficiency: f64,
    caches: &[CacheCeiling],
    tokens: &TokenTimes,
) -> Option<String> {
    let (decoded, in_steps) = (tokens.decode_work.0, tokens.decodes.1);
    if decoded == 0 || in_steps == 0 {
        return None;
    }
    let per_step = c.bytes_per_token * decoded as f64 / in_steps as f64;
    let cache = caches.iter().find(|k| per_step <= k.bytes)?;
    Some(format!(
        "; the {} a decode step reads fit in {} ({}), so the weights can stay there: against {}'s {} GB/s decode is {}",
        bytes(per_step),
        cache.name,
        bytes(cache.bytes),
        cache.name,
        si(cache.gb_s),
        pct(efficiency * c.peak_bw_gb_s / cache.gb_s),
    ))
}

/// The compute ceiling prefill is graded against: the dense peak, and the
/// FLOPs per token from the model shape (`2N + 2LHQT`, the forward pass).
fn compute_ceiling(options: &ScorecardOptions) -> ComputeCeiling {
    let peak = options
        .peak_flops_per_s
        .filter(|p| p.is_finite() && *p > 0.0)
        .map(|p| {
            let src = options.peak_flops_source.clone();
            (p, src.unwrap_or_else(|| "given".to_owned()))
        });
    let flops_per_token = options.model_shape.map(|m| {
        let attention = m.layers * m.heads * m.head_dim * m.seq_len;
        let f = 2.0 * m.params as f64 + 2.0 * attention as f64;
        (f, "2N + 2LHQT from the model shape".to_owned())
    });
    ComputeCeiling {
        peak,
        flops_per_token,
        busy: options.busy_ceilings.clone(),
    }
}

/// Regressions against `baseline` and the comparison behind them (none
/// without one); a baseline of another shape adds its alert.
fn against_baseline(
    baseline: Option<&TrainingScorecard>,
    current: &Current<'_>,
    t: &Thresholds,
    alerts: &mut Vec<String>,
) -> (Vec<Regression>, Option<BaselineComparison>) {
    let Some(base) = baseline else {
        return (Vec::new(), None);
    };
    let found = detect_regressions(base, current, t);
    alerts.extend(found.alerts);
    (found.regressions, Some(found.comparison))
}

/// The run's headline measurements, each read as a usable number (a
/// warning says when it was not).
struct Measured {
    /// Tokens per second, or why there is no measurement.
    throughput: Result<f64, String>,
    /// Mean step time, ms; non-negative.
    step_time_ms: f64,
    /// Share of wall time covered by phases, clamped to `[0, 1]`.
    wall_coverage: f64,
}

impl Measured {
    fn of(run: &RunView, s: &mut Sanitizer) -> Self {
        let throughput = run.throughput.clone().and_then(|x| {
            if !x.is_finite() {
                s.warnings
                    .push(format!("throughput_tok_s is {x}; not a measurement"));
                Err("throughput_tok_s is not a finite number, so not a measurement".to_owned())
            } else {
                Ok(s.non_negative("throughput_tok_s", x))
            }
        });
        let step_time_ms = s.non_negative("avg_step_ms", run.steps.avg_ms);
        let mut wall_coverage = s.finite("wall_coverage", run.coverage.fraction());
        if !(0.0..=1.0).contains(&wall_coverage) {
            s.warnings.push(format!(
                "wall_coverage {wall_coverage} outside [0, 1]; clamped"
            ));
            wall_coverage = wall_coverage.clamp(0.0, 1.0);
        }
        Self {
            throughput,
            step_time_ms,
            wall_coverage,
        }
    }
}

/// The grade and the ceiling it rests on, or why it is withheld.
struct Graded {
    /// The ceiling, tok/s, shown only where it means something.
    peak: Option<f64>,
    efficiency: Option<f64>,
    withheld: Option<Withheld>,
    grade: Option<Grade>,
    bytes_per_token_source: Option<BytesPerTokenSource>,
}

impl Graded {
    fn of(
        run: &RunView,
        measured: &Measured,
        hw: Option<&Ceiling>,
        options: &ScorecardOptions,
        s: &mut Sanitizer,
    ) -> Self {
        let Verdict {
            peak,
            efficiency,
            withheld,
        } = verdict(
            &measured.throughput,
            hw,
            &run.steps,
            options.busy_ceilings.as_deref(),
        );
        if hw.is_none() {
            s.warnings.push(unknown_peak_note());
        }
        let bytes_per_token_source = hw.map(|h| {
            options
                .bytes_per_token_source
                .unwrap_or_else(|| BytesPerTokenSource::of_ceiling(h))
        });
        if efficiency.is_some() && bytes_per_token_source == Some(BytesPerTokenSource::Default) {
            s.warnings.push(format!(
                "bytes per token is the presets' default of {} (a guess): set \
                 PROFILER_BYTES_PER_TOKEN, or declare `bytes = ...` on the bricks",
                bytes(hw.map_or(0.0, |h| h.bytes_per_token))
            ));
        }
        let grade = efficiency.map(|e| options.thresholds.grade(e));
        // A ceiling from the presets' guessed bytes per token is shown only
        // where it was compared with a throughput (graded, or found below it);
        // elsewhere it would be a number resting on a guess alone.
        let compared = efficiency.is_some()
            || matches!(
                withheld,
                Some(Withheld::AboveCeiling { .. } | Withheld::BusyMachine { .. })
            );
        let peak = peak
            .filter(|_| compared || bytes_per_token_source != Some(BytesPerTokenSource::Default));
        Self {
            peak,
            efficiency,
            withheld,
            grade,
            bytes_per_token_source,
        }
    }
}

/// The share of step time in host-device transfers (phases named `h2d` or
/// `d2h`), at most 1, and the phases' total time, ms.
fn phase_split(run: &RunView, s: &mut Sanitizer) -> (f64, f64) {
    let (mut transfer_pct, mut phase_ms) = (0.0, 0.0);
    for (name, phase) in &run.phases {
        let pct = s.non_negative(&format!("phase `{name}` pct"), phase.pct);
        if name.contains("h2d") || name.contains("d2h") {
            transfer_pct = add_ms(transfer_pct, pct);
        }
        phase_ms = add_ms(
            phase_ms,
            s.non_negative(&format!("phase `{name}` total_ms"), phase.total_ms),
        );
    }
    ((transfer_pct / 100.0).min(1.0), phase_ms)
}

/// Usable per-step samples: finite, non-negative times, with their tokens
/// when every sample has them.
fn samples(steps: &Steps) -> (Vec<f64>, Vec<u64>) {
    let paired = steps.samples_tokens.len() == steps.samples_ms.len();
    let mut times = Vec::with_capacity(steps.samples_ms.len());
    let mut tokens = Vec::new();
    for (i, &ms) in steps.samples_ms.iter().enumerate() {
        if ms.is_finite() && ms >= 0.0 {
            times.push(ms);
            if paired {
                tokens.push(steps.samples_tokens[i]);
            }
        }
    }
    (times, tokens)
}

/// The run's layers, ops and tokens per step.
fn run_shape(
    run: &RunView,
    op_totals: &BTreeMap<String, f64>,
    tok_s: Option<f64>,
    step_time_ms: f64,
) -> RunShape {
    let mut layers: Vec<usize> = run.layers.iter().map(|l| l.layer).collect();
    layers.sort_unstable();
    layers.dedup();
    RunShape {
        layers,
        ops: Some(
            run.host_op_names
                .clone()
                .unwrap_or_else(|| op_totals.keys().cloned().collect()),
        ),
        tokens_per_step: tok_s
            .map(|t| t * step_time_ms / 1e3)
            .filter(|t| t.is_finite() && *t > 0.0),
    }
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
    use crate::analysis::scorecard::grade::{Bottleneck, Withheld};
    use crate::model::step::PhaseData;

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
        let sc = compute_training_scorecard(
            &input,
            100.0,
            &crate::model::hardware::preset("rtx_4060l").unwrap(),
            None,
        );
        assert!((sc.transfer_fraction - 0.35).abs() < 1e-12);
        assert!((sc.launch_overhead.unwrap() - 0.05).abs() < 1e-12);
        assert_eq!(sc.bottleneck, Bottleneck::Transfer);
    }

    #[test]
    fn unknown_peak_omits_the_grade() {
        let sc = compute(
            &RunView::from_step_log(&StepProfilerInput::default(), Ok(500.0)),
            None,
            None,
            &ScorecardOptions::default(),
        );
        assert_eq!(sc.grade, None);
        assert_eq!(sc.efficiency, None);
        assert_eq!(sc.grade_withheld, Some(Withheld::UnknownPeak));
        assert!(
            sc.warnings
                .iter()
                .any(|w| w.contains("unknown peak: set PROFILER_HARDWARE="))
        );
        assert!(sc.peak_unknown());
    }

    #[test]
    fn empty_steps_withhold_the_grade_and_the_launch_verdict() {
        let mut input = StepProfilerInput {
            steps: 10,
            avg_step_ms: 0.001,
            empty_steps: 10,
            ..Default::default()
        };
        input.phases.insert("forward".into(), phase(0.0, 0.0));
        let sc = compute_training_scorecard(
            &input,
            100.0,
            &crate::model::hardware::preset("rtx_4060l").unwrap(),
            None,
        );
        assert_eq!(
            sc.grade_withheld,
            Some(Withheld::EmptySteps {
                empty: 10,
                steps: 10
            })
        );
        assert_eq!(sc.launch_overhead, None);
        assert_ne!(sc.bottleneck, Bottleneck::Launch);
        assert!(
            sc.recommendations
                .iter()
                .all(|r| !r.contains("CUDA graphs"))
        );
        assert!(sc.alerts[0].starts_with("10 of 10 recorded steps were empty"));
        assert!(sc.alerts[0].contains("let _ = profiler::step(n);"));
    }

    fn caches() -> Vec<CacheCeiling> {
        vec![
            CacheCeiling {
                name: "L2",
                bytes: 2e6,
                gb_s: 140.0,
            },
            CacheCeiling {
                name: "L3",
                bytes: 270e6,
                gb_s: 55.0,
            },
        ]
    }

    fn decodes(tokens: u64, steps: usize) -> TokenTimes {
        TokenTimes {
            decodes: (steps, steps),
            decode_work: (tokens, 1_000_000),
            ..TokenTimes::default()
        }
    }

    #[test]
    fn a_decode_step_that_fits_in_a_cache_is_restated_against_it() {
        // 1 MB a token, 4 tokens a step: 4 MB, past L2 (2 MB), in L3.
        let c = Ceiling {
            peak_bw_gb_s: 26.0,
            bytes_per_token: 1e6,
        };
        let note = cache_resident(&c, 0.10, &caches(), &decodes(40, 10)).expect("fits in L3");
        // 10% of 26 GB/s is 2.6 GB/s: 4.7% of L3's 55 GB/s.
        assert!(note.contains("fit in L3"), "{note}");
        assert!(note.ends_with("decode is 4.7%"), "{note}");
        // One token a step: 1 MB fits in L2, the smallest that holds it.
        let note = cache_resident(&c, 0.10, &caches(), &decodes(10, 10)).expect("fits in L2");
        assert!(
            note.contains("fit in L2") && note.ends_with("decode is 1.9%"),
            "{note}"
        );
    }

    #[test]
    fn a_decode_step_past_every_cache_or_of_unknown_tokens_adds_nothing() {
        let big = Ceiling {
            peak_bw_gb_s: 26.0,
            bytes_per_token: 1e9,
        };
        assert_eq!(cache_resident(&big, 0.5, &caches(), &decodes(4, 1)), None);
        let c = Ceiling {
            peak_bw_gb_s: 26.0,
            bytes_per_token: 1e6,
        };
        assert_eq!(cache_resident(&c, 0.5, &caches(), &decodes(0, 0)), None);
        assert_eq!(cache_resident(&c, 0.5, &[], &decodes(4, 1)), None);
    }
}
