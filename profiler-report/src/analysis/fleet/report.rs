//! [`FleetReport`]: per-rank step-time distributions, stragglers by the
//! median/MAD rule with the threshold used, and per-brick and per-phase
//! load imbalance with the slowest rank, from a run directory.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use super::error::{FleetError, RankProblem};
use super::read::{RankData, RunDir, read_run_dir};
use super::stats::{Threshold, median, quantile};

/// Least excess over the median that makes a brick straggler, whatever
/// the step rule's `min_excess`.
pub const BRICK_MIN_EXCESS: f64 = 2.0;

/// Least share of the fleet's median step a brick straggler must cost its
/// rank: a brick that loses less than this holds no one back by much, and
/// on shared cores such an excess is scheduling noise.
pub const BRICK_MIN_STEP_COST: f64 = 0.05;

/// How stragglers are told apart from noise.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FleetSettings {
    /// Robust deviations (1.4826 x MAD) above the median a rank must be.
    pub mad_k: f64,
    /// And at least this fraction above the median (0.2 = 20%).
    pub min_excess: f64,
    /// Bricks below this share of the fleet's brick time are not judged
    /// (their times are mostly timer noise).
    pub min_brick_share: f64,
}

impl Default for FleetSettings {
    fn default() -> Self {
        Self {
            mad_k: 5.0,
            min_excess: 0.2,
            min_brick_share: 0.02,
        }
    }
}

/// One rank's step times.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankSteps {
    /// The rank.
    pub rank: u32,
    /// Its host.
    pub host: String,
    /// Steps recorded.
    pub steps: usize,
    /// Median step time, ns.
    pub median_ns: f64,
    /// 10th percentile, ns.
    pub p10_ns: f64,
    /// 90th percentile, ns.
    pub p90_ns: f64,
    /// Slowest step, ns.
    pub max_ns: f64,
}

/// What a straggler stands out in.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "in", rename_all = "snake_case")]
pub enum StragglerIn {
    /// Its median step time.
    Step,
    /// Its median call of one brick.
    Brick {
        /// The brick.
        brick: String,
    },
}

/// A rank that stands out, with the numbers that made it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Straggler {
    /// The rank.
    pub rank: u32,
    /// Where it stands out.
    #[serde(flatten)]
    pub what: StragglerIn,
    /// Its value, ns (median step, or brick ns per step).
    pub value_ns: f64,
    /// The threshold it passed.
    pub threshold: Threshold,
    /// Its value over the fleet median, minus 1.
    pub excess: f64,
}

/// Load balance of one brick or phase across ranks (ns per step).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Imbalance {
    /// Brick or phase name.
    pub name: String,
    /// Mean over ranks, ns per step.
    pub mean_ns: f64,
    /// The slowest rank's, ns per step.
    pub max_ns: f64,
    /// `max / mean` (1 = balanced).
    pub imbalance: f64,
    /// The slowest rank.
    pub slowest_rank: u32,
}

/// A run directory analysed across ranks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FleetReport {
    /// The run id most ranks carry.
    pub run_id: String,
    /// Ranks the run has (largest of the profiles' world size and the
    /// directories found).
    pub world_size: u32,
    /// Ranks analysed.
    pub ranks_analysed: usize,
    /// Ranks of `0..world_size` not analysed.
    pub absent: Vec<u32>,
    /// Why each left-out rank directory was left out.
    pub problems: Vec<RankProblem>,
    /// The rule's settings.
    pub settings: FleetSettings,
    /// The step-time threshold (median of the ranks' medians).
    pub step_threshold: Threshold,
    /// Step times per rank.
    pub ranks: Vec<RankSteps>,
    /// Ranks that stand out, by rank.
    pub stragglers: Vec<Straggler>,
    /// Bricks by mean time, slowest first.
    pub bricks: Vec<Imbalance>,
    /// Phases by mean time, slowest first.
    pub phases: Vec<Imbalance>,
    /// Step times as rows of ranks (the HTML heat map); not in the JSON.
    #[serde(skip)]
    pub heat: HeatMap,
}

/// Step times, rank x step.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeatMap {
    /// Step indices, ascending (the columns).
    pub steps: Vec<u64>,
    /// `(rank, time of each step in ns, None where it has none)`.
    pub rows: Vec<(u32, Vec<Option<u64>>)>,
}

impl FleetReport {
    /// Reads `run_dir` (its `rank-NNNNN/profile.json` files) and analyses it.
    ///
    /// # Errors
    /// As reading the directory: an unreadable directory or no rank to analyse.
    pub fn from_dir(
        run_dir: impl AsRef<Path>,
        settings: FleetSettings,
    ) -> Result<Self, FleetError> {
        Ok(Self::of(read_run_dir(run_dir.as_ref())?, settings))
    }

    /// The ranks named as stragglers, ascending, each once.
    #[must_use]
    pub fn straggler_ranks(&self) -> Vec<u32> {
        let mut ranks: Vec<u32> = self.stragglers.iter().map(|s| s.rank).collect();
        ranks.dedup();
        ranks
    }

    /// The largest excess of any straggler (0 without one).
    #[must_use]
    pub fn worst_excess(&self) -> f64 {
        self.stragglers.iter().map(|s| s.excess).fold(0.0, f64::max)
    }

    pub(crate) fn of(run: RunDir, settings: FleetSettings) -> Self {
        let ranks: Vec<RankSteps> = run.ranks.iter().map(rank_steps).collect();
        let medians: Vec<f64> = ranks.iter().map(|r| r.median_ns).collect();
        let step_threshold = Threshold::of(&medians, settings.mad_k, settings.min_excess);
        let mut stragglers: Vec<Straggler> = ranks
            .iter()
            .filter(|r| step_threshold.exceeded_by(r.median_ns))
            .map(|r| Straggler {
                rank: r.rank,
                what: StragglerIn::Step,
                value_ns: r.median_ns,
                threshold: step_threshold,
                excess: step_threshold.excess(r.median_ns),
            })
            .collect();
        let bricks = per_step(&run.ranks, |d| &d.bricks);
        let calls = median_calls(&run.ranks);
        let total: f64 = bricks.values().map(|v| mean(v)).sum();
        for (name, per_step) in &bricks {
            if total <= 0.0 || mean(per_step) / total < settings.min_brick_share {
                continue;
            }
            // A brick is judged by its median call, not its time per step:
            // a preempted call stretches a brick's total but not its median,
            // and a rank that only calls a brick more often already shows in
            // its step time. The median call is taken relative to the rank's
            // own median step: a rank that runs slower throughout (a shared
            // core, a slower node) is the step rule's to name, and a brick
            // stands out only when it takes a larger part of its rank's step.
            let Some(values) = calls.get(name) else {
                continue;
            };
            let relative: Vec<(u32, f64, f64)> = values
                .iter()
                .filter_map(|&(rank, v)| {
                    let step = ranks.iter().find(|r| r.rank == rank)?.median_ns;
                    (step > 0.0).then_some((rank, v, step))
                })
                .collect();
            let just: Vec<f64> = relative.iter().map(|(_, v, step)| v / step).collect();
            // One brick's calls are noisier than a whole step: a brick needs
            // a wider margin.
            let floor = settings.min_excess.max(BRICK_MIN_EXCESS);
            let t = Threshold::of(&just, settings.mad_k, floor);
            // A straggler holds the others back by what its brick takes too
            // long: the brick must cost it at least `BRICK_MIN_STEP_COST` of
            // the fleet's median step, and its step must be longer than that
            // median by at least half of the brick's excess. A rank whose step
            // is not (on shared cores, one that lost the CPU in this brick
            // and got it back elsewhere) keeps pace, and no one waits for it.
            let typical = median(&per_step.iter().map(|(_, ns)| *ns).collect::<Vec<_>>());
            let holds_back = |rank: u32, step: f64| {
                let own = per_step
                    .iter()
                    .find(|(r, _)| *r == rank)
                    .map_or(0.0, |(_, ns)| *ns);
                let behind = step - step_threshold.median_ns;
                let lost = own - typical;
                lost >= BRICK_MIN_STEP_COST * step_threshold.median_ns && behind >= 0.5 * lost
            };
            for &(rank, v, step) in relative
                .iter()
                .filter(|(rank, v, step)| holds_back(*rank, *step) && t.exceeded_by(v / step))
            {
                // In this rank's nanoseconds: the fleet's relative figures
                // times its own median step.
                let threshold = Threshold {
                    median_ns: t.median_ns * step,
                    mad_ns: t.mad_ns * step,
                    threshold_ns: t.threshold_ns * step,
                };
                stragglers.push(Straggler {
                    rank,
                    what: StragglerIn::Brick {
                        brick: name.clone(),
                    },
                    value_ns: v,
                    threshold,
                    excess: t.excess(v / step),
                });
            }
        }
        stragglers.sort_by(|a, b| a.rank.cmp(&b.rank).then(b.excess.total_cmp(&a.excess)));
        let phases = per_step(&run.ranks, |d| &d.phases);
        Self {
            heat: heat_map(&run.ranks),
            run_id: run.run_id,
            world_size: run.world_size,
            ranks_analysed: run.ranks.len(),
            absent: run.absent,
            problems: run.problems,
            settings,
            step_threshold,
            ranks,
            stragglers,
            bricks: imbalances(&bricks),
            phases: imbalances(&phases),
        }
    }
}

fn rank_steps(d: &RankData) -> RankSteps {
    let mut times: Vec<f64> = d.steps.iter().map(|&(_, ns)| ns as f64).collect();
    times.sort_by(f64::total_cmp);
    RankSteps {
        rank: d.rank,
        host: d.host.clone(),
        steps: times.len(),
        median_ns: super::stats::median(&times),
        p10_ns: quantile(&times, 0.1),
        p90_ns: quantile(&times, 0.9),
        max_ns: times.last().copied().unwrap_or(0.0),
    }
}

/// Each name's `(rank, ns per recorded step)` over ranks: ranks that
/// recorded different numbers of steps still compare.
fn per_step(
    ranks: &[RankData],
    of: impl Fn(&RankData) -> &Vec<(String, u64)>,
) -> BTreeMap<String, Vec<(u32, f64)>> {
    let mut out: BTreeMap<String, Vec<(u32, f64)>> = BTreeMap::new();
    for d in ranks {
        let steps = d.steps.len().max(1) as f64;
        for (name, total) in of(d) {
            out.entry(name.clone())
                .or_default()
                .push((d.rank, *total as f64 / steps));
        }
    }
    out
}

/// Each brick's median call, ns, per rank.
fn median_calls(ranks: &[RankData]) -> BTreeMap<String, Vec<(u32, f64)>> {
    let mut out: BTreeMap<String, Vec<(u32, f64)>> = BTreeMap::new();
    for d in ranks {
        for (name, ns) in &d.brick_calls {
            out.entry(name.clone()).or_default().push((d.rank, *ns));
        }
    }
    out
}

fn mean(values: &[(u32, f64)]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.iter().map(|(_, v)| v).sum::<f64>() / values.len() as f64
}

fn imbalances(by_name: &BTreeMap<String, Vec<(u32, f64)>>) -> Vec<Imbalance> {
    let mut out: Vec<Imbalance> = by_name
        .iter()
        .filter_map(|(name, values)| {
            let (slowest_rank, max_ns) = values
                .iter()
                .copied()
                .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))?;
            let mean_ns = mean(values);
            Some(Imbalance {
                name: name.clone(),
                mean_ns,
                max_ns,
                imbalance: if mean_ns > 0.0 { max_ns / mean_ns } else { 1.0 },
                slowest_rank,
            })
        })
        .collect();
    out.sort_by(|a, b| b.mean_ns.total_cmp(&a.mean_ns).then(a.name.cmp(&b.name)));
    out
}

fn heat_map(ranks: &[RankData]) -> HeatMap {
    let mut steps: Vec<u64> = ranks
        .iter()
        .flat_map(|d| d.steps.iter().map(|s| s.0))
        .collect();
    steps.sort_unstable();
    steps.dedup();
    let rows = ranks
        .iter()
        .map(|d| {
            let mut row = vec![None; steps.len()];
            for &(index, ns) in &d.steps {
                if let Ok(at) = steps.binary_search(&index) {
                    row[at] = Some(ns);
                }
            }
            (d.rank, row)
        })
        .collect();
    HeatMap { steps, rows }
}
