//! The words and numbers every renderer shows (terminal, Markdown, HTML), so
//! the three never disagree: the grade with the reason it is withheld, the
//! ceiling and where its bytes per token came from, the bottleneck with
//! what it rests on, and regression values. Plain text; each renderer
//! escapes it for its format.

use super::ceiling::BytesPerTokenSource;
use super::grade::{Bottleneck, Grade, Withheld};
use super::inference::{CeilingUse, InferenceRows, Percentiles};
use super::model::{BaselineComparison, Regression, TrainingScorecard};
use super::units::{bytes, ms, pct, si, signed_pct, signed_pts, tok_s};
use crate::base::textfmt;
use profiler_core::profile::LaunchGap;

/// Grade cell text: the letter, or `n/a` when it was withheld.
pub(crate) fn grade_text(sc: &TrainingScorecard) -> String {
    sc.grade.map_or_else(|| "n/a".to_owned(), |g| g.to_string())
}

/// Why the grade is withheld, in words (`None` when graded).
pub(crate) fn withheld_text(sc: &TrainingScorecard) -> Option<String> {
    if sc.grade.is_some() {
        return None;
    }
    Some(match &sc.grade_withheld {
        Some(reason) => reason.to_string(),
        // Files written before reasons were recorded.
        None => "see warnings".to_owned(),
    })
}

/// `A`, or `n/a: <reason>`.
pub(crate) fn grade_line(sc: &TrainingScorecard) -> String {
    match withheld_text(sc) {
        Some(why) => format!("n/a: {why}"),
        None => grade_text(sc),
    }
}

/// `1.0% of the 1.15 M tok/s ceiling`, or `n/a`.
pub(crate) fn efficiency_text(sc: &TrainingScorecard) -> String {
    match (sc.efficiency, sc.peak_throughput_tok_s) {
        (Some(e), Some(peak)) => format!("{} of the {} ceiling", pct(e), tok_s(peak)),
        (Some(e), None) => pct(e),
        (None, _) => "n/a".to_owned(),
    }
}

/// `62.0% of the ceiling over 41.2 ms of device busy time per step`,
/// when kernels were captured and a grade exists.
pub(crate) fn device_efficiency_text(sc: &TrainingScorecard) -> Option<String> {
    let (e, busy) = (sc.device_efficiency?, sc.device_busy_ms?);
    Some(format!(
        "{} of the ceiling over {busy:.2} ms of device busy time per step",
        pct(e)
    ))
}

/// How the ceiling was made: `1.15 M tok/s = 256 GB/s (RTX 4060 Laptop) /
/// 222 KB per token (from brick annotations)`; `None` without hardware.
/// `name` escapes the hardware name for the output format; the rest is
/// plain text that needs no escaping.
pub(crate) fn ceiling_text(
    sc: &TrainingScorecard,
    name: impl Fn(&str) -> String,
) -> Option<String> {
    let (bw, per_token) = (sc.peak_bw_gb_s?, sc.bytes_per_token?);
    let on = sc
        .hardware
        .as_deref()
        .filter(|h| *h != "custom")
        .map(|h| format!(" ({})", name(h)))
        .unwrap_or_default();
    let source = sc
        .bytes_per_token_source
        .map(|s| format!(" ({})", s.describe()))
        .unwrap_or_default();
    let parts = format!(
        "{} GB/s{on} / {} per token{source}",
        si(bw),
        bytes(per_token)
    );
    let busy = if matches!(sc.grade_withheld, Some(Withheld::BusyMachine { .. })) {
        ", measured on a busy machine: too low"
    } else {
        ""
    };
    Some(match sc.peak_throughput_tok_s {
        Some(peak) => format!("{} = {parts}{busy}", tok_s(peak)),
        None if sc.bytes_per_token_source == Some(BytesPerTokenSource::Default) => format!(
            "none: the bytes per token are not known ({} is the presets' default, a guess); set \
             PROFILER_BYTES_PER_TOKEN, or declare `bytes = ...` on the bricks",
            bytes(per_token)
        ),
        None => format!("none: {parts} is not a finite, positive throughput"),
    })
}

/// Bottleneck text, qualified when the grade is withheld and the class is
/// the fallback one (compute vs memory cannot be told apart without a
/// valid ceiling).
pub(crate) fn bottleneck_text(sc: &TrainingScorecard) -> String {
    if sc.grade.is_none() && sc.bottleneck == Bottleneck::MemoryBw {
        format!(
            "{} (assumed: no valid ceiling to compare with)",
            sc.bottleneck
        )
    } else {
        sc.bottleneck.to_string()
    }
}

/// The bottleneck with what it rests on, for the terminal and HTML.
pub(crate) fn bottleneck_explained(sc: &TrainingScorecard) -> String {
    let launch = sc.launch_overhead.unwrap_or(0.0);
    match sc.bottleneck {
        Bottleneck::Transfer => format!(
            "transfer: {} of the step in host-device copies (h2d/d2h phases)",
            pct(sc.transfer_fraction)
        ),
        Bottleneck::Launch if sc.device_timed == Some(false) => format!(
            "launch: {} of the step outside every phase (unprofiled host work or gaps)",
            pct(launch)
        ),
        Bottleneck::Launch => format!(
            "launch: {} of the step outside every phase (kernel launches, host gaps)",
            pct(launch)
        ),
        Bottleneck::Compute => format!(
            "compute: throughput at {} of the ceiling",
            sc.efficiency.map_or_else(|| "n/a".to_owned(), pct)
        ),
        Bottleneck::MemoryBw if sc.grade.is_none() => "not determined (memory_bw by default: \
             without a valid ceiling, compute and memory bandwidth cannot be told apart)"
            .to_owned(),
        // The default class, but this far below the ceiling bandwidth is
        // not the limit either: say so rather than claim it.
        Bottleneck::MemoryBw if sc.grade == Some(Grade::F) => format!(
            "none identified (memory_bw by default: no {} rule held, and at {} of the bandwidth \
             ceiling bandwidth is not the limit)",
            default_rules(sc),
            sc.efficiency.map_or_else(|| "n/a".to_owned(), pct)
        ),
        Bottleneck::MemoryBw => format!(
            "memory_bw (the default class: no {} rule held)",
            default_rules(sc)
        ),
    }
}

/// The rules that did not hold before the default class: on a run that
/// timed no device there are no copies or launches, so those rules are
/// named for what they measured there.
fn default_rules(sc: &TrainingScorecard) -> &'static str {
    if sc.device_timed == Some(false) {
        "compute or time-outside-phases"
    } else {
        "transfer, launch or compute"
    }
}

/// What a figure measured over steps shows when the run recorded none (an
/// Nsight import, a run without `profiler::step`): not a zero.
const NO_STEPS: &str = "n/a (no steps recorded)";

/// Whether the run recorded no step, so that step time, throughput and
/// wall coverage are zeros that measure nothing.
fn no_steps(sc: &TrainingScorecard) -> bool {
    sc.steps == 0 && sc.step_time_ms == 0.0 && sc.throughput_tok_s == 0.0
}

/// Mean step time, with the number of steps: `24.3 ms over 197 steps`.
pub(crate) fn step_time_text(sc: &TrainingScorecard) -> String {
    if no_steps(sc) {
        return NO_STEPS.to_owned();
    }
    match sc.steps {
        0 => ms(sc.step_time_ms),
        n => format!("{} over {n} steps", ms(sc.step_time_ms)),
    }
}

/// `n/a: <reason>` for a row the run has no data for (`key` as in JSON).
pub(crate) fn not_measured(sc: &TrainingScorecard, key: &str) -> Option<String> {
    sc.not_measured.get(key).map(|why| format!("n/a: {why}"))
}

/// The share of step time inside phases.
pub(crate) fn wall_coverage_text(sc: &TrainingScorecard) -> String {
    if no_steps(sc) {
        return NO_STEPS.to_owned();
    }
    not_measured(sc, "wall_coverage").unwrap_or_else(|| pct(sc.wall_coverage))
}

/// Throughput with a caveat when empty steps are in it.
pub(crate) fn throughput_text(sc: &TrainingScorecard) -> String {
    if no_steps(sc) {
        return NO_STEPS.to_owned();
    }
    let mut text = tok_s(sc.throughput_tok_s);
    if sc.empty_steps > 0 {
        text.push_str(&format!(
            " (includes {} empty steps: not a measurement)",
            sc.empty_steps
        ));
    }
    text
}

/// The mean backward/forward ratio, or why there is none.
pub(crate) fn ratio_text(sc: &TrainingScorecard) -> String {
    if let Some(na) = not_measured(sc, "forward_backward_ratio") {
        na
    } else if sc.forward_backward_ratio > 0.0 {
        format!("{:.2}", sc.forward_backward_ratio)
    } else {
        "n/a (no layer has both forward and backward times)".to_owned()
    }
}

/// Whether transfer time means something for this run: it has transfer
/// phases, or timed a device, or it is not known (a trainer's line).
pub(crate) fn show_transfer(sc: &TrainingScorecard) -> bool {
    sc.device_timed != Some(false) || sc.transfer_fraction > 0.0
}

/// The launch-overhead row, when it means something: runs that timed a
/// device or whose kind is unknown; and always when it is withheld for a
/// reason the reader must see.
pub(crate) fn launch_text(sc: &TrainingScorecard) -> Option<String> {
    match sc.launch_overhead {
        Some(l) if sc.device_timed != Some(false) => {
            Some(format!("{} of step (time outside every phase)", pct(l)))
        }
        Some(_) => None,
        None if sc.empty_steps > 0 => Some(format!(
            "n/a: {} of {} steps were empty",
            sc.empty_steps, sc.steps
        )),
        None if sc.device_timed == Some(false) => None,
        None => Some("n/a: no phases recorded".to_owned()),
    }
}

/// The launch gap row: `mean 12.0 µs, longest 80.0 µs from launch to
/// device start, over 1200 bricks`.
pub(crate) fn launch_gap_text(gap: &LaunchGap) -> String {
    format!(
        "mean {}, longest {} from launch to device start, over {} device-timed bricks",
        textfmt::duration(gap.mean_ns),
        textfmt::duration(gap.max_ns as f64),
        gap.bricks
    )
}

/// A regression's change: `+10.9%`, or `-6.0 pts` for wall coverage.
pub(crate) fn delta_text(r: &Regression) -> String {
    if r.metric == "wall_coverage" {
        signed_pts(r.delta)
    } else {
        signed_pct(r.delta)
    }
}

/// Every change against the baseline: `throughput +12.6%, step time
/// -11.2%, wall coverage +0.0 pts`.
pub(crate) fn comparison_text(c: &BaselineComparison) -> String {
    let mut parts = Vec::new();
    if let Some(d) = c.throughput {
        parts.push(format!("throughput {}", signed_pct(d)));
    }
    if let Some(d) = c.step_time {
        parts.push(format!("step time {}", signed_pct(d)));
    }
    if let Some(d) = c.wall_coverage {
        parts.push(format!("wall coverage {}", signed_pts(d)));
    }
    if parts.is_empty() {
        "nothing measured in both runs".to_owned()
    } else {
        parts.join(", ")
    }
}

/// A value of a regression's metric in its unit.
fn value_text(metric: &str, v: f64) -> String {
    match metric {
        "throughput_tok_s" => tok_s(v),
        "step_time_ms" => ms(v),
        "wall_coverage" => pct(v),
        _ => si(v),
    }
}

/// `24.4 ms -> 27.1 ms`, when both values are known.
pub(crate) fn values_text(r: &Regression) -> Option<String> {
    let (base, now) = (r.baseline?, r.current?);
    Some(format!(
        "{} -> {}",
        value_text(&r.metric, base),
        value_text(&r.metric, now)
    ))
}

/// One line per regression for a summary: `critical: Step time +25.0%`.
pub(crate) fn regression_summary(sc: &TrainingScorecard) -> String {
    sc.regressions
        .iter()
        .map(|r| format!("{}: {} {}", r.severity, r.label(), delta_text(r)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// `p50 12.1 ms, p90 13.0 ms, p99 13.2 ms over 4 requests`, or
/// `n/a: <reason>`; `p99` only where asked.
fn percentiles_text(
    rows: &InferenceRows,
    key: &str,
    p: Option<&Percentiles>,
    p99: bool,
    what: &str,
) -> String {
    match p {
        Some(p) => {
            let tail = if p99 {
                format!(", p99 {}", ms(p.p99_ms))
            } else {
                String::new()
            };
            // `what` is singular: one request, 22 token gaps.
            let plural = if p.samples == 1 { "" } else { "s" };
            format!(
                "p50 {}, p90 {}{tail} over {} {what}{plural}",
                ms(p.p50_ms),
                ms(p.p90_ms),
                p.samples
            )
        }
        None => na_text(rows, key),
    }
}

fn na_text(rows: &InferenceRows, key: &str) -> String {
    rows.not_available
        .get(key)
        .map_or_else(|| "n/a".to_owned(), |why| format!("n/a: {why}"))
}

/// `12.3% (grade F) of the 1.20 k tok/s ceiling; memory bandwidth: ...`,
/// or `n/a: <why>; <ceiling>`.
fn ceiling_use_text(u: &CeilingUse) -> String {
    match (u.efficiency, u.ceiling_tok_s) {
        (Some(e), Some(peak)) => format!(
            "{} (grade {}) of the {} ceiling; {}",
            pct(e),
            u.grade.map_or_else(|| "n/a".to_owned(), |g| g.to_string()),
            tok_s(peak),
            u.basis
        ),
        _ => format!(
            "n/a: {}; {}",
            u.withheld.as_deref().unwrap_or("no ceiling"),
            u.basis
        ),
    }
}

/// A rate row: `1.23 k tok/s (4096 tokens)` or `n/a: <reason>`.
fn rate_text(rows: &InferenceRows, key: &str, rate: Option<f64>, tokens: u64) -> String {
    rate.map_or_else(
        || na_text(rows, key),
        |r| format!("{} ({tokens} tokens)", tok_s(r)),
    )
}

/// The rows of an inference scorecard as `(label, text)`, in the order
/// every renderer shows them; names as serving benchmarks use them. Text
/// is plain and needs escaping only for the hardware and file names in
/// the ceilings' sources.
pub(crate) fn inference_rows(rows: &InferenceRows) -> Vec<(&'static str, String)> {
    vec![
        ("Decode vs BW", ceiling_use_text(&rows.decode_vs_bandwidth)),
        (
            "Prefill vs FLOPs",
            ceiling_use_text(&rows.prefill_vs_compute),
        ),
        (
            "TTFT",
            percentiles_text(rows, "ttft", rows.ttft.as_ref(), false, "request"),
        ),
        (
            "TPOT",
            percentiles_text(rows, "tpot", rows.tpot.as_ref(), true, "request"),
        ),
        (
            "ITL",
            percentiles_text(rows, "itl", rows.itl.as_ref(), true, "token gap"),
        ),
        (
            "Prefill tok/s",
            rate_text(
                rows,
                "prefill_tok_s",
                rows.prefill_tok_s,
                rows.prefill_tokens,
            ),
        ),
        (
            "Decode tok/s",
            rate_text(rows, "decode_tok_s", rows.decode_tok_s, rows.decode_tokens),
        ),
    ]
}

/// ` (host)` after a time, op or layer that kept host time in a
/// device-time scorecard; nothing otherwise.
pub(crate) fn host_mark(on_host: bool) -> &'static str {
    if on_host { " (host)" } else { "" }
}
