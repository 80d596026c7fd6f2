//! Parity against several baselines at once: per op the fastest baseline
//! is the bar, and the comparison says which baseline that was.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::coverage::{Coverage, Side, device_ms, step_ms};
use super::model::{
    OpGap, PARITY_THRESHOLD, ParityComparison, TOP_GAPS, Totals, clock_note,
    compute_parity_comparison, ms_per_step, ratio_or_zero, sort_gaps,
};
use crate::model::run::RunSummary;

/// Ours against the best of several baselines.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MultiParityComparison {
    /// Our runtime's name.
    pub ours: String,
    /// The baselines' names, in the order given.
    pub baselines: Vec<String>,
    /// The fastest baseline's tokens/s over ours (0 when ours is 0).
    pub throughput_ratio: f64,
    /// The baseline with the most tokens/s (empty when none has any).
    pub fastest_baseline: String,
    /// Our launches over the fewest any baseline needs (0 when none counts any).
    pub launch_ratio: f64,
    /// The baseline with the fewest launches per step (more than 0).
    pub fewest_launches_baseline: String,
    /// The largest gaps against the per-op bar, ratio descending (at most
    /// [`TOP_GAPS`]); each names the baseline that set the bar.
    pub gaps: Vec<OpGap>,
    /// At least one op compared and every gap within [`PARITY_THRESHOLD`]
    /// of the bar, over all gaps.
    pub parity_achieved: bool,
    /// What the verdict was computed over: the share of our step time the
    /// compared ops account for, and of the fastest baseline's (the
    /// baseline side counts each op at its bar).
    #[serde(default)]
    pub coverage: Coverage,
    /// Every op we and at least one baseline timed, ratio descending.
    pub all_gaps: Vec<OpGap>,
    /// Ops no baseline has time for.
    pub only_ours: Vec<String>,
    /// Ours against each baseline alone, in the order given.
    pub per_baseline: Vec<ParityComparison>,
    /// Notes of every side.
    pub notes: Vec<String>,
}

/// Compares `ours` against every baseline at once: for each op the bar is
/// the fastest baseline that timed it.
///
/// ```
/// use profiler_report::{run::{OpSummary, RunSummary}, parity::compute_parity_multi};
/// let p = |name: &str, ns: u64| RunSummary { name: name.into(),
///     ops: vec![OpSummary::total("RmsNorm", ns)], ..Default::default() };
/// let c = compute_parity_multi(&p("ours", 1_500_000), &[p("pytorch", 1_000_000), p("llama.cpp", 500_000)]);
/// assert_eq!(c.gaps[0].baseline_runtime.as_deref(), Some("llama.cpp"));
/// assert_eq!(c.gaps[0].ratio, 3.0);
/// ```
#[must_use]
pub fn compute_parity_multi(ours: &RunSummary, baselines: &[RunSummary]) -> MultiParityComparison {
    let per_baseline: Vec<ParityComparison> = baselines
        .iter()
        .map(|b| compute_parity_comparison(ours, b))
        .collect();
    let mut notes: Vec<String> = ours
        .notes
        .iter()
        .map(|n| format!("{}: {n}", ours.name))
        .collect();
    let our_ops = ms_per_step(ours);
    let bars = Bars::of(ours, baselines, &mut notes);
    let mut all_gaps: Vec<OpGap> = our_ops
        .iter()
        .filter_map(|(op, &ours_ms)| {
            let (baseline_ms, runtime) = bars.bar.get(op)?;
            Some(OpGap {
                op: op.clone(),
                ours_ms,
                baseline_ms: *baseline_ms,
                ratio: ours_ms / baseline_ms,
                baseline_runtime: Some(runtime.clone()),
            })
        })
        .collect();
    sort_gaps(&mut all_gaps);
    let compared: Vec<&str> = all_gaps.iter().map(|g| g.op.as_str()).collect();
    let bar_ms: BTreeMap<String, f64> = bars
        .bar
        .iter()
        .map(|(op, (ms, _))| (op.clone(), *ms))
        .collect();
    let coverage = Coverage::of(
        Side::of(ours, &our_ops),
        bars.side(ours, &bar_ms),
        &compared,
    );
    let o = Totals::of(ours);
    let fastest = baselines
        .iter()
        .map(|b| (Totals::of(b).throughput_tok_s, &b.name))
        .filter(|(t, _)| *t > 0.0)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let fewest = bars
        .on_our_clock
        .iter()
        .map(|b| (b.launches_per_step.unwrap_or(0), &b.name))
        .filter(|(l, _)| *l > 0)
        .min_by_key(|(l, _)| *l);
    MultiParityComparison {
        ours: ours.name.clone(),
        baselines: baselines.iter().map(|b| b.name.clone()).collect(),
        throughput_ratio: fastest.map_or(0.0, |(t, _)| ratio_or_zero(t, o.throughput_tok_s)),
        fastest_baseline: fastest.map(|(_, n)| n.clone()).unwrap_or_default(),
        launch_ratio: fewest.map_or(0.0, |(l, _)| {
            ratio_or_zero(o.kernel_launches_per_step as f64, l as f64)
        }),
        fewest_launches_baseline: fewest.map(|(_, n)| n.clone()).unwrap_or_default(),
        parity_achieved: !all_gaps.is_empty()
            && all_gaps.iter().all(|g| g.ratio <= PARITY_THRESHOLD),
        coverage,
        gaps: all_gaps.iter().take(TOP_GAPS).cloned().collect(),
        only_ours: our_ops
            .keys()
            .filter(|k| !bars.bar.contains_key(*k))
            .cloned()
            .collect(),
        all_gaps,
        per_baseline,
        notes,
    }
}

/// The per-op bar: the fastest baseline on a clock ours may be compared
/// with.
struct Bars<'a> {
    /// Per op, the fastest baseline: (ms per step, runtime).
    bar: BTreeMap<String, (f64, String)>,
    /// Baselines on a clock ours may be compared with.
    on_our_clock: Vec<&'a RunSummary>,
}

impl<'a> Bars<'a> {
    /// The bars of `baselines`; their notes, and why a baseline on another
    /// clock sets no bar, go to `notes`.
    fn of(ours: &RunSummary, baselines: &'a [RunSummary], notes: &mut Vec<String>) -> Self {
        let mut bar: BTreeMap<String, (f64, String)> = BTreeMap::new();
        let mut on_our_clock: Vec<&RunSummary> = Vec::new();
        for b in baselines {
            notes.extend(b.notes.iter().map(|n| format!("{}: {n}", b.name)));
            if !ours.clock.comparable(b.clock) {
                notes.push(clock_note(ours, b));
                continue;
            }
            on_our_clock.push(b);
            for (op, ms) in ms_per_step(b) {
                let slot = bar.entry(op).or_insert((f64::INFINITY, String::new()));
                if ms < slot.0 {
                    *slot = (ms, b.name.clone());
                }
            }
        }
        Self { bar, on_our_clock }
    }

    /// The bar's side: each op at its fastest baseline, against the
    /// shortest baseline step (and device time).
    fn side<'b>(&self, ours: &RunSummary, bar_ms: &'b BTreeMap<String, f64>) -> Side<'b> {
        let shortest = |time: fn(&RunSummary) -> Option<f64>| {
            let t = self
                .on_our_clock
                .iter()
                .filter_map(|b| time(b))
                .filter(|s| s.is_finite() && *s > 0.0)
                .fold(f64::INFINITY, f64::min);
            t.is_finite().then_some(t)
        };
        Side {
            clock: self.on_our_clock.first().map_or(ours.clock, |b| b.clock),
            step_ms: shortest(step_ms).unwrap_or(0.0),
            device_ms: shortest(device_ms),
            ops: bar_ms,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(runtime: &str, tok_s: f64, launches: u64, ops: &[(&str, f64)]) -> RunSummary {
        RunSummary {
            name: runtime.into(),
            tokens_per_s: Some(tok_s),
            launches_per_step: Some(launches),
            ops: ops
                .iter()
                .map(|(k, v)| crate::model::run::OpSummary::total(*k, (v * 1e6).round() as u64))
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn the_fastest_baseline_per_op_is_the_bar() {
        let ours = p(
            "ours",
            100.0,
            40,
            &[("A", 2.0), ("B", 1.0), ("C", 1.0), ("Mine", 1.0)],
        );
        let torch = p("pytorch", 150.0, 0, &[("A", 1.0), ("B", 2.0)]);
        let llama = p("llama.cpp", 200.0, 20, &[("A", 0.5), ("C", 1.0)]);
        let c = compute_parity_multi(&ours, &[torch, llama]);
        let gaps: Vec<(&str, f64, &str)> = c
            .all_gaps
            .iter()
            .map(|g| {
                (
                    g.op.as_str(),
                    g.ratio,
                    g.baseline_runtime.as_deref().unwrap_or(""),
                )
            })
            .collect();
        assert_eq!(
            gaps,
            [
                ("A", 4.0, "llama.cpp"),
                ("C", 1.0, "llama.cpp"),
                ("B", 0.5, "pytorch")
            ]
        );
        assert!(!c.parity_achieved);
        assert_eq!(c.only_ours, ["Mine"]);
        assert_eq!(
            (c.throughput_ratio, c.fastest_baseline.as_str()),
            (2.0, "llama.cpp")
        );
        assert_eq!(
            (c.launch_ratio, c.fewest_launches_baseline.as_str()),
            (2.0, "llama.cpp")
        );
        assert_eq!(c.per_baseline.len(), 2);
        assert_eq!(c.per_baseline[0].baseline, "pytorch");
    }

    #[test]
    fn no_baselines_means_no_gaps_and_zero_ratios() {
        let c = compute_parity_multi(&p("ours", 1.0, 1, &[("A", 1.0)]), &[]);
        assert!(c.all_gaps.is_empty() && !c.parity_achieved);
        assert_eq!((c.throughput_ratio, c.launch_ratio), (0.0, 0.0));
        assert_eq!(c.only_ours, ["A"]);
    }
}
