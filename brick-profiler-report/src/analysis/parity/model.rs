//! The parity comparison: [`compute_parity_comparison`] of contract
//! `parity-profiling-v1`, which finds where "ours" is slower per op than a
//! baseline, each side a [`RunSummary`] read per step.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::coverage::{Coverage, Side, step_ms};
use crate::model::run::RunSummary;

/// An op is at parity when ours takes at most this times the baseline.
pub const PARITY_THRESHOLD: f64 = 1.10;

/// Gaps kept in [`ParityComparison::gaps`].
pub const TOP_GAPS: usize = 5;

/// One op timed on both sides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpGap {
    /// Op (brick) name.
    pub op: String,
    /// Our time, ms per step.
    pub ours_ms: f64,
    /// The baseline's time, ms per step.
    pub baseline_ms: f64,
    /// `ours_ms / baseline_ms`: above 1 means we are slower.
    pub ratio: f64,
    /// Which baseline set the bar (comparisons against several baselines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_runtime: Option<String>,
}

/// Ours against one baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParityComparison {
    /// Our runtime's name.
    pub ours: String,
    /// The baseline's name.
    pub baseline: String,
    /// Baseline tokens/s over ours (0 when ours is 0): above 1 means the
    /// baseline is faster.
    pub throughput_ratio: f64,
    /// Our launches over the baseline's (0 when the baseline's are 0).
    pub launch_ratio: f64,
    /// The largest gaps, ratio descending (at most [`TOP_GAPS`]).
    pub gaps: Vec<OpGap>,
    /// At least one op was compared and every gap's ratio is at most
    /// [`PARITY_THRESHOLD`], over all gaps: never true over nothing.
    pub parity_achieved: bool,
    /// What the verdict was computed over.
    #[serde(default)]
    pub coverage: Coverage,
    /// Every op timed on both sides, ratio descending.
    #[serde(default)]
    pub all_gaps: Vec<OpGap>,
    /// Ops only we have time for.
    #[serde(default)]
    pub only_ours: Vec<String>,
    /// Ops only the baseline has time for.
    #[serde(default)]
    pub only_baseline: Vec<String>,
    /// Our tokens/s, launches per step and step time, for the renderers.
    #[serde(default)]
    pub ours_totals: Totals,
    /// The baseline's tokens/s, launches per step and step time.
    #[serde(default)]
    pub baseline_totals: Totals,
    /// Both sides' notes, prefixed by runtime, and ops left out as invalid.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// A runtime's totals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    /// Tokens per second.
    pub throughput_tok_s: f64,
    /// Mean step time, ms.
    pub step_time_ms: f64,
    /// Launches per step.
    pub kernel_launches_per_step: u64,
}

impl Totals {
    pub(crate) fn of(p: &RunSummary) -> Self {
        Self {
            throughput_tok_s: finite_or_zero(p.tokens_per_s.unwrap_or(0.0)),
            step_time_ms: finite_or_zero(step_ms(p).unwrap_or(0.0)),
            kernel_launches_per_step: p.launches_per_step.unwrap_or(0),
        }
    }
}

fn finite_or_zero(v: f64) -> f64 {
    if v.is_finite() && v > 0.0 { v } else { 0.0 }
}

/// `num / den`, or 0 when `den` is 0 (the contract's rule) or the result
/// would not be finite.
pub(crate) fn ratio_or_zero(num: f64, den: f64) -> f64 {
    let r = num / den;
    if den > 0.0 && r.is_finite() { r } else { 0.0 }
}

/// The op times parity compares, ms per step: each op's total over the
/// run's steps (over one, when it counts none), a name listed twice adding
/// up. Ops without time are not timed, so not compared.
#[must_use]
pub fn ms_per_step(p: &RunSummary) -> BTreeMap<String, f64> {
    let per_step = p.per_step_divisor();
    let mut ops = BTreeMap::new();
    for op in p.ops.iter().filter(|o| o.total_ns > 0) {
        *ops.entry(op.name.clone()).or_insert(0.0) += op.total_ns as f64 / 1e6 / per_step;
    }
    ops
}

/// Sorts gaps by ratio descending, then name, so equal ratios keep a
/// stable order.
pub(crate) fn sort_gaps(gaps: &mut [OpGap]) {
    gaps.sort_by(|a, b| b.ratio.total_cmp(&a.ratio).then_with(|| a.op.cmp(&b.op)));
}

/// Compares `ours` against `baseline` (contract `parity-profiling-v1`).
///
/// Gaps are the ops present on both sides with time on both; parity is
/// decided over all of them before the top [`TOP_GAPS`] are kept, and is
/// never achieved without a gap (no op compared: no verdict).
/// [`ParityComparison::coverage`] says what share of each side's step time
/// the compared ops account for.
///
/// ```
/// use profiler_report::{run::{OpSummary, RunSummary}, parity::compute_parity_comparison};
/// let ours = RunSummary { name: "ours".into(), tokens_per_s: Some(50.0), launches_per_step: Some(40),
///     ops: vec![OpSummary::total("RmsNorm", 2_000_000)], ..Default::default() };
/// let base = RunSummary { name: "pytorch".into(), tokens_per_s: Some(100.0), launches_per_step: Some(20),
///     ops: vec![OpSummary::total("RmsNorm", 1_000_000)], ..Default::default() };
/// let c = compute_parity_comparison(&ours, &base);
/// assert_eq!((c.throughput_ratio, c.launch_ratio), (2.0, 2.0));
/// assert_eq!(c.gaps[0].ratio, 2.0);
/// assert!(!c.parity_achieved);
/// ```
#[must_use]
pub fn compute_parity_comparison(ours: &RunSummary, baseline: &RunSummary) -> ParityComparison {
    let mut notes: Vec<String> = ours
        .notes
        .iter()
        .map(|n| format!("{}: {n}", ours.name))
        .chain(
            baseline
                .notes
                .iter()
                .map(|n| format!("{}: {n}", baseline.name)),
        )
        .collect();
    let (o, b) = (Totals::of(ours), Totals::of(baseline));
    let our_ops = ms_per_step(ours);
    let base_ops = ms_per_step(baseline);
    let mut all_gaps: Vec<OpGap> = our_ops
        .iter()
        .filter_map(|(op, &ours_ms)| {
            let &baseline_ms = base_ops.get(op)?;
            Some(OpGap {
                op: op.clone(),
                ours_ms,
                baseline_ms,
                ratio: ours_ms / baseline_ms,
                baseline_runtime: None,
            })
        })
        .collect();
    sort_gaps(&mut all_gaps);
    let compared: Vec<&str> = all_gaps.iter().map(|g| g.op.as_str()).collect();
    let coverage = Coverage::of(
        Side::of(ours, &our_ops),
        Side::of(baseline, &base_ops),
        &compared,
    );
    let parity_achieved = coverage.clocks_agree()
        && !all_gaps.is_empty()
        && all_gaps.iter().all(|g| g.ratio <= PARITY_THRESHOLD);
    // Launches on two clocks count different things (kernels against op
    // calls): no ratio.
    let launch_ratio = if coverage.clocks_agree() {
        ratio_or_zero(
            o.kernel_launches_per_step as f64,
            b.kernel_launches_per_step as f64,
        )
    } else {
        notes.push(clock_note(ours, baseline));
        0.0
    };
    ParityComparison {
        ours: ours.name.clone(),
        baseline: baseline.name.clone(),
        throughput_ratio: ratio_or_zero(b.throughput_tok_s, o.throughput_tok_s),
        launch_ratio,
        gaps: all_gaps.iter().take(TOP_GAPS).cloned().collect(),
        parity_achieved,
        coverage,
        only_ours: our_ops
            .keys()
            .filter(|k| !base_ops.contains_key(*k))
            .cloned()
            .collect(),
        only_baseline: base_ops
            .keys()
            .filter(|k| !our_ops.contains_key(*k))
            .cloned()
            .collect(),
        all_gaps,
        ours_totals: o,
        baseline_totals: b,
        notes,
    }
}

/// Why ops and launches of two sides are not compared.
pub(crate) fn clock_note(ours: &RunSummary, baseline: &RunSummary) -> String {
    format!(
        "{} times ops on the {} and {} on the {}: no per-op verdict and no launch ratio \
         (launches on the device clock are kernels, on the host clock op calls); the ratios \
         listed are for reference only",
        ours.name,
        ours.clock.describe(),
        baseline.name,
        baseline.clock.describe()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::run::{Clock, OpSummary};

    /// `ms` per step as one step's total.
    fn op(name: &str, ms: f64) -> OpSummary {
        OpSummary::total(name, (ms * 1e6).round() as u64)
    }

    fn profile(runtime: &str, tok_s: f64, launches: u64, ops: &[(&str, f64)]) -> RunSummary {
        RunSummary {
            name: runtime.into(),
            tokens_per_s: Some(tok_s),
            step_ns: Some(10e6),
            launches_per_step: Some(launches),
            ops: ops.iter().map(|(k, v)| op(k, *v)).collect(),
            ..RunSummary::default()
        }
    }

    #[test]
    fn two_clocks_give_no_verdict_and_no_launch_ratio() {
        let host = RunSummary {
            clock: Clock::Host,
            ..profile("cpu", 1.0, 290, &[("Activation", 2.0)])
        };
        let device = RunSummary {
            clock: Clock::Device,
            ..profile("gpu", 1.0, 53, &[("Activation", 0.3)])
        };
        let c = compute_parity_comparison(&host, &device);
        assert!(!c.parity_achieved);
        assert_eq!(c.launch_ratio, 0.0);
        assert!(!c.coverage.clocks_agree());
        assert!(
            c.notes.iter().any(|n| n.contains("host clock")),
            "{:?}",
            c.notes
        );
        let same = compute_parity_comparison(
            &host,
            &RunSummary {
                name: "b".into(),
                ..host.clone()
            },
        );
        assert!(same.parity_achieved && same.launch_ratio == 1.0);
    }

    #[test]
    fn zero_throughput_and_zero_launches_give_zero_ratios() {
        let c =
            compute_parity_comparison(&profile("ours", 0.0, 10, &[]), &profile("b", 100.0, 0, &[]));
        assert_eq!(c.throughput_ratio, 0.0);
        assert_eq!(c.launch_ratio, 0.0);
        assert!(!c.parity_achieved, "no gaps: no verdict, never a pass");
        assert_eq!(c.coverage.compared_ops, 0);
        let c = compute_parity_comparison(
            &profile("ours", 50.0, 30, &[]),
            &profile("b", 100.0, 10, &[]),
        );
        assert_eq!((c.throughput_ratio, c.launch_ratio), (2.0, 3.0));
    }

    #[test]
    fn only_ops_on_both_sides_with_time_are_gaps() {
        let ours = profile(
            "ours",
            1.0,
            1,
            &[("A", 2.0), ("B", 1.0), ("OnlyOurs", 3.0), ("Zero", 0.0)],
        );
        let base = profile(
            "b",
            1.0,
            1,
            &[("A", 1.0), ("B", 1.0), ("OnlyBase", 1.0), ("Zero", 1.0)],
        );
        let c = compute_parity_comparison(&ours, &base);
        let names: Vec<&str> = c.all_gaps.iter().map(|g| g.op.as_str()).collect();
        assert_eq!(names, ["A", "B"]);
        assert_eq!(c.only_ours, ["OnlyOurs"]);
        assert_eq!(c.only_baseline, ["OnlyBase", "Zero"]);
    }

    #[test]
    fn parity_holds_at_one_point_one_and_breaks_above() {
        let base = profile("b", 1.0, 1, &[("A", 1.0), ("B", 1.0)]);
        let at = compute_parity_comparison(&profile("o", 1.0, 1, &[("A", 1.1), ("B", 0.5)]), &base);
        assert!(at.parity_achieved);
        let above =
            compute_parity_comparison(&profile("o", 1.0, 1, &[("A", 1.1), ("B", 1.11)]), &base);
        assert!(!above.parity_achieved);
        assert_eq!(above.gaps[0].op, "B");
    }

    #[test]
    fn parity_is_decided_over_all_gaps_before_the_top_five() {
        let base = RunSummary {
            ops: (0..7).map(|i| op(&format!("op{i}"), 1.0)).collect(),
            ..profile("b", 1.0, 1, &[])
        };
        let with = |ratios: [f64; 7]| {
            let mut ours = base.clone();
            ours.name = "o".into();
            ours.ops = (0..7).map(|i| op(&format!("op{i}"), ratios[i])).collect();
            compute_parity_comparison(&ours, &base)
        };
        // Seven gaps, all within 1.10: YES, and five are kept.
        let c = with([1.1, 1.0, 0.9, 1.05, 0.5, 0.7, 1.02]);
        assert!(c.parity_achieved);
        assert_eq!((c.gaps.len(), c.all_gaps.len()), (TOP_GAPS, 7));
        let kept: Vec<f64> = c.gaps.iter().map(|g| g.ratio).collect();
        assert_eq!(kept, [1.1, 1.05, 1.02, 1.0, 0.9]);
        // One of seven above 1.10 (the op listed last): NO.
        let c = with([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.2]);
        assert!(!c.parity_achieved);
        assert_eq!(c.gaps[0].op, "op6");
        assert_eq!(c.gaps.len(), TOP_GAPS);
    }

    #[test]
    fn an_unusable_throughput_is_unknown() {
        let ours = profile("ours", f64::NAN, 1, &[("C", 1.0)]);
        let base = profile("b", 1.0, 1, &[("C", 1.0)]);
        let c = compute_parity_comparison(&ours, &base);
        assert_eq!(c.all_gaps.len(), 1);
        assert_eq!(c.throughput_ratio, 0.0);
        assert_eq!(c.ours_totals.throughput_tok_s, 0.0);
    }

    #[test]
    fn op_totals_are_divided_by_the_steps_and_repeated_names_add_up() {
        let mut p = profile("o", 1.0, 1, &[("A", 2.0), ("A", 1.0), ("Zero", 0.0)]);
        p.steps = Some(4);
        let ops = ms_per_step(&p);
        assert_eq!(ops.len(), 1, "no time, no op: {ops:?}");
        assert_eq!(ops["A"], 0.5 + 0.25);
    }
}
