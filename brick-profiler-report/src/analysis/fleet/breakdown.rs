//! Where each rank's step went: its median step split into the fleet's
//! phases and the time outside any phase. A profile keeps each phase's time
//! inside recorded steps, not per step, so each phase gets its mean time
//! per step and the rest of the median step is outside any phase: a rank
//! slowed by a few long steps keeps its phases' sizes, and the time it
//! lost shows as the segment that grew. Past
//! [`BREAKDOWN_MAX_BARS`] ranks, neighbours are pooled (their mean) and
//! each straggler keeps a bar of its own.

use std::collections::HashMap;

use super::read::{Names, RankData};

/// Most bars of pooled ranks: beyond that, neighbouring ranks share a bar
/// (each straggler keeps its own besides).
pub const BREAKDOWN_MAX_BARS: usize = 48;

/// One rank's median step, split, or the mean of consecutive ranks'. The
/// parts add up to `median_ns`.
#[derive(Debug, Clone, PartialEq)]
pub struct StepBreakdown {
    /// The first rank.
    pub first_rank: u32,
    /// The last rank (equal to `first_rank` for one rank).
    pub last_rank: u32,
    /// Ranks pooled (1 for one rank).
    pub ranks: usize,
    /// The median step (of pooled ranks: the mean of their medians), ns.
    pub median_ns: f64,
    /// Its median step's time in each phase, ns, in the order of the
    /// report's `phases`.
    pub phases_ns: Vec<f64>,
    /// Its median step's time outside any phase, ns.
    pub outside_ns: f64,
    /// The median step when the profile gives no step wall time to split
    /// it by (else 0), ns: shown as not split, never as a phase.
    pub unsplit_ns: f64,
    /// Whether its phases' mean times per step added up to more than the
    /// median step (phases on several threads at once, or a median step
    /// shorter than the mean) and were scaled down to fill it (of any rank
    /// pooled).
    pub scaled: bool,
}

/// The bars of `ranks` (each rank's split, ascending by rank): one a rank
/// up to [`BREAKDOWN_MAX_BARS`], else pooled neighbours, each followed by
/// a bar of its own for each of its `stragglers`.
pub(crate) fn bars(ranks: Vec<StepBreakdown>, stragglers: &[u32]) -> Vec<StepBreakdown> {
    if ranks.len() <= BREAKDOWN_MAX_BARS {
        return ranks;
    }
    let per_bar = ranks.len().div_ceil(BREAKDOWN_MAX_BARS);
    let mut out = Vec::new();
    for chunk in ranks.chunks(per_bar) {
        out.push(pooled(chunk));
        out.extend(
            chunk
                .iter()
                .filter(|b| stragglers.contains(&b.first_rank))
                .cloned(),
        );
    }
    out
}

/// The mean of `chunk`'s splits (not empty).
fn pooled(chunk: &[StepBreakdown]) -> StepBreakdown {
    let n = chunk.len().max(1) as f64;
    let mean = |f: &dyn Fn(&StepBreakdown) -> f64| chunk.iter().map(f).sum::<f64>() / n;
    let phases = chunk.first().map_or(0, |b| b.phases_ns.len());
    StepBreakdown {
        first_rank: chunk.first().map_or(0, |b| b.first_rank),
        last_rank: chunk.last().map_or(0, |b| b.last_rank),
        ranks: chunk.len(),
        median_ns: mean(&|b| b.median_ns),
        phases_ns: (0..phases)
            .map(|i| mean(&|b| b.phases_ns.get(i).copied().unwrap_or(0.0)))
            .collect(),
        outside_ns: mean(&|b| b.outside_ns),
        unsplit_ns: mean(&|b| b.unsplit_ns),
        scaled: chunk.iter().any(|b| b.scaled),
    }
}

impl StepBreakdown {
    /// The split of rank `d`'s median step `median_ns` into `phases` (the
    /// report's phase names, in its order).
    pub(crate) fn of(d: &RankData, median_ns: f64, names: &Names, phases: &[&str]) -> Self {
        let order: HashMap<&str, usize> = phases.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let mut in_steps = vec![0.0; phases.len()];
        for (&(name, _), &ns) in d.phases.iter().zip(&d.phase_in_steps) {
            if let Some(&i) = order.get(names.get(name)) {
                in_steps[i] += ns as f64;
            }
        }
        if d.step_total_ns == 0 || d.steps_in_total == 0 || !median_ns.is_finite() {
            return Self {
                first_rank: d.rank,
                last_rank: d.rank,
                ranks: 1,
                median_ns,
                phases_ns: vec![0.0; phases.len()],
                outside_ns: 0.0,
                unsplit_ns: median_ns,
                scaled: false,
            };
        }
        let steps = d.steps_in_total as f64;
        let per_step: Vec<f64> = in_steps.iter().map(|ns| ns / steps).collect();
        let sum: f64 = per_step.iter().sum();
        let scaled = sum > median_ns;
        let scale = if scaled { median_ns / sum } else { 1.0 };
        let phases_ns: Vec<f64> = per_step.iter().map(|ns| ns * scale).collect();
        let outside_ns = (median_ns - phases_ns.iter().sum::<f64>()).max(0.0);
        Self {
            first_rank: d.rank,
            last_rank: d.rank,
            ranks: 1,
            median_ns,
            phases_ns,
            outside_ns,
            unsplit_ns: 0.0,
            scaled,
        }
    }

    /// The parts: phases, outside any phase, not split; they add up to the
    /// median step.
    #[must_use]
    pub fn total_ns(&self) -> f64 {
        self.phases_ns.iter().sum::<f64>() + self.outside_ns + self.unsplit_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rank of 10 recorded steps taking `step_total_ns` in all.
    fn rank(phases: &[(u32, u64)], step_total_ns: u64) -> (RankData, Names) {
        let mut names = Names::default();
        for n in ["forward", "backward", "optimizer"] {
            names.id(n);
        }
        let data = RankData {
            phases: phases.iter().map(|&(n, _)| (n, 0)).collect(),
            phase_in_steps: phases.iter().map(|&(_, ns)| ns).collect(),
            step_total_ns,
            steps_in_total: 10,
            ..RankData::default()
        };
        (data, names)
    }

    #[test]
    fn segments_add_up_to_the_median_step_with_the_rest_outside_any_phase() {
        // 10 steps of 100 ms: forward 300 ms, backward 500 ms in all.
        let (d, names) = rank(&[(0, 300_000_000), (1, 500_000_000)], 1_000_000_000);
        let b = StepBreakdown::of(&d, 90e6, &names, &["backward", "forward"]);
        assert_eq!(b.phases_ns.len(), 2);
        assert!((b.phases_ns[0] - 50e6).abs() < 1.0, "{b:?}");
        assert!((b.phases_ns[1] - 30e6).abs() < 1.0, "{b:?}");
        assert!((b.outside_ns - 10e6).abs() < 1.0, "{b:?}");
        assert!((b.total_ns() - 90e6).abs() < 1e-3);
        assert!(!b.scaled && b.unsplit_ns == 0.0);
    }

    #[test]
    fn a_rank_slowed_by_long_steps_keeps_its_phases_and_the_extra_time_is_outside() {
        // 10 steps: forward 30 ms and backward 50 ms each; two steps stalled
        // 1 s outside any phase, so the steps took 2.8 s in all and the
        // median step is 100 ms. Splitting by share of wall time would
        // shrink backward to 500/2800 of the median (18 ms).
        let (d, names) = rank(&[(0, 300_000_000), (1, 500_000_000)], 2_800_000_000);
        let b = StepBreakdown::of(&d, 100e6, &names, &["backward", "forward"]);
        assert!((b.phases_ns[0] - 50e6).abs() < 1.0, "{b:?}");
        assert!((b.phases_ns[1] - 30e6).abs() < 1.0, "{b:?}");
        assert!((b.outside_ns - 20e6).abs() < 1.0, "{b:?}");
        assert!(!b.scaled);
    }

    #[test]
    fn overlapping_phases_are_scaled_to_the_step_and_say_so() {
        let (d, names) = rank(&[(0, 800), (1, 800)], 1_000);
        let b = StepBreakdown::of(&d, 50.0, &names, &["forward", "backward"]);
        assert!(b.scaled);
        assert!((b.total_ns() - 50.0).abs() < 1e-9, "{b:?}");
        assert!(b.outside_ns.abs() < 1e-9);
    }

    #[test]
    fn without_a_step_total_the_median_stays_unsplit() {
        let (d, names) = rank(&[(0, 800)], 0);
        let b = StepBreakdown::of(&d, 50.0, &names, &["forward"]);
        assert_eq!((b.unsplit_ns, b.outside_ns), (50.0, 0.0));
        assert_eq!(b.phases_ns, [0.0]);
        // A phase the fleet does not list is left out, not misfiled.
        let (d, names) = rank(&[(2, 500)], 1_000);
        let b = StepBreakdown::of(&d, 10.0, &names, &["forward"]);
        assert_eq!((b.phases_ns[0], b.outside_ns), (0.0, 10.0));
    }

    #[test]
    fn many_ranks_pool_into_bars_that_still_add_up_and_stragglers_keep_theirs() {
        let (d, names) = rank(&[(0, 300), (1, 500)], 1_000);
        let all: Vec<StepBreakdown> = (0..1000u32)
            .map(|r| {
                let median = if r == 600 {
                    400.0
                } else {
                    100.0 + f64::from(r % 10)
                };
                StepBreakdown::of(
                    &RankData {
                        rank: r,
                        ..d.clone()
                    },
                    median,
                    &names,
                    &["forward", "backward"],
                )
            })
            .collect();
        let out = bars(all, &[600]);
        let pooled: Vec<&StepBreakdown> = out.iter().filter(|b| b.ranks > 1).collect();
        assert!(pooled.len() <= BREAKDOWN_MAX_BARS);
        assert_eq!(pooled.iter().map(|b| b.ranks).sum::<usize>(), 1000);
        let own: Vec<&StepBreakdown> = out.iter().filter(|b| b.ranks == 1).collect();
        assert_eq!(own.len(), 1);
        assert_eq!((own[0].first_rank, own[0].median_ns), (600, 400.0));
        for b in &out {
            assert!(
                (b.total_ns() - b.median_ns).abs() < 1e-9 * b.median_ns,
                "{b:?}"
            );
        }
    }
}
