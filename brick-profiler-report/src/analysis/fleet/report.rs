//! [`FleetReport`]: per-rank step-time distributions, stragglers by the
//! one straggler rule with the threshold used, and per-brick and per-phase
//! load imbalance with the slowest rank, from a run directory.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use super::breakdown::{StepBreakdown, bars};
use super::comm::TimeSplit;
use super::error::{FleetError, RankProblem, RankRange};
use super::heat::HeatMap;
use super::read::{Names, PROFILE_FILE, REPORT_FILE, RankData, RunDir, TRACE_FILE, read_run_dir};
use super::spread::{BrickStrip, RankBox, SlowStep, step_boxes};
use crate::analysis::straggler::{
    Straggler, StragglerIn, StragglerRule, Threshold, median, quantile,
};

/// Least excess over the median that makes a brick straggler, whatever
/// the step rule's `min_excess`.
pub const BRICK_MIN_EXCESS: f64 = 2.0;

/// Least share of the fleet's median step a brick straggler must cost its
/// rank: a brick that loses less than this holds no one back by much, and
/// on shared cores such an excess is scheduling noise.
pub const BRICK_MIN_STEP_COST: f64 = 0.05;

/// How stragglers are told apart from noise: the straggler rule, and
/// which bricks it judges.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FleetSettings {
    /// The straggler rule (steps; bricks take a wider floor).
    #[serde(flatten)]
    pub rule: StragglerRule,
    /// Bricks below this share of the fleet's brick time are not judged
    /// (their times are mostly timer noise).
    pub min_brick_share: f64,
}

impl Default for FleetSettings {
    fn default() -> Self {
        Self {
            rule: StragglerRule::default(),
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
    /// Steps recorded (the profile's count; the times below are of the
    /// step samples it kept).
    pub steps: u64,
    /// Median step time, ns.
    pub median_ns: f64,
    /// 10th percentile, ns.
    pub p10_ns: f64,
    /// 90th percentile, ns.
    pub p90_ns: f64,
    /// Slowest step, ns.
    pub max_ns: f64,
}

/// Load balance of one brick or phase across the ranks analysed (ns per
/// step; a rank that never ran it counts as 0).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Imbalance {
    /// Brick or phase name.
    pub name: String,
    /// Mean over every rank analysed, ns per step.
    pub mean_ns: f64,
    /// The slowest rank's, ns per step.
    pub max_ns: f64,
    /// `max / mean` (1 = balanced).
    pub imbalance: f64,
    /// The slowest rank.
    pub slowest_rank: u32,
}

/// A run directory analysed across ranks.
#[derive(Debug, Clone, Serialize)]
pub struct FleetReport {
    /// The run id most ranks carry.
    pub run_id: String,
    /// Ranks the run has: the largest of the world size most profiles
    /// record and the highest rank found, plus one.
    pub world_size: u64,
    /// Ranks analysed.
    pub ranks_analysed: usize,
    /// Ranks of `0..world_size` not analysed, as ranges.
    pub absent: Vec<RankRange>,
    /// What is wrong with rank directories: why each rank left out was
    /// left out, and ranks analysed under another rank than their
    /// directory's.
    pub problems: Vec<RankProblem>,
    /// The rule's settings.
    pub settings: FleetSettings,
    /// The straggler threshold over the ranks' median steps, or, when the
    /// fleet communicates (`time` has a collective), over their own work:
    /// median step less the wait at collectives.
    pub step_threshold: Threshold,
    /// Each rank's median step by kind: compute, communication (transfer,
    /// waiting for slower ranks), outside any phase.
    pub time: TimeSplit,
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
    /// What the fleet page draws besides; not in the JSON.
    #[serde(skip)]
    pub charts: FleetCharts,
}

/// The numbers the fleet page draws, each bounded whatever the fleet's
/// size: step splits, step-time boxes, slow steps, brick strips, and where
/// each rank's files are.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FleetCharts {
    /// Median steps split by phase, by rank (pooled past a limit).
    pub breakdown: Vec<StepBreakdown>,
    /// Step-time boxes, by rank (pooled past a limit).
    pub boxes: Vec<RankBox>,
    /// The slowest steps beyond their box's whisker, slowest first.
    pub slow_steps: Vec<SlowStep>,
    /// Steps beyond their box's whisker in all (`slow_steps` keeps the
    /// slowest).
    pub slow_step_count: usize,
    /// Each brick's time per rank, in the order of the report's `bricks`.
    pub bricks: Vec<BrickStrip>,
    /// Each rank's files, by rank.
    pub files: Vec<RankFiles>,
}

/// Where a rank's files are, relative to the run directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankFiles {
    /// The rank.
    pub rank: u32,
    /// Its directory (`rank-00002`).
    pub dir: String,
    /// Its profile, `rank-00002/profile.json`.
    pub profile: String,
    /// Its run report, when the directory holds one.
    pub report: Option<String>,
    /// Its Chrome trace, when the directory holds one.
    pub trace: Option<String>,
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

    /// The fleet's median step: the median of the ranks' median steps
    /// (the straggler threshold's median is of own work when ranks
    /// communicate).
    #[must_use]
    pub fn median_step_ns(&self) -> f64 {
        median(&self.ranks.iter().map(|r| r.median_ns).collect::<Vec<_>>())
    }

    /// The largest excess of any straggler (0 without one).
    #[must_use]
    pub fn worst_excess(&self) -> f64 {
        self.stragglers.iter().map(|s| s.excess).fold(0.0, f64::max)
    }

    pub(crate) fn of(run: RunDir, settings: FleetSettings) -> Self {
        let ranks: Vec<RankSteps> = run.ranks.iter().map(rank_steps).collect();
        let analysed = run.ranks.len();
        let phases = per_step(&run.ranks, run.names.len(), |d| &d.phases);
        let phases = imbalances(&phases, &run.names, analysed);
        let phase_names: Vec<&str> = phases.iter().map(|p| p.name.as_str()).collect();
        let splits: Vec<(StepBreakdown, Vec<&str>)> = run
            .ranks
            .iter()
            .zip(&ranks)
            .map(|(d, r)| {
                let has = d.phases.iter().map(|&(n, _)| run.names.get(n)).collect();
                (
                    StepBreakdown::of(d, r.median_ns, &run.names, &phase_names),
                    has,
                )
            })
            .collect();
        let time = TimeSplit::of(&splits, &phase_names);
        // With a collective, every rank's step lasts as long as the
        // slowest's: ranks are judged by their own work, their median step
        // less their wait at the collective.
        let judged: Vec<(u32, f64)> = if time.has_communication() {
            time.ranks
                .iter()
                .map(|t| (t.rank, t.own_work_ns()))
                .collect()
        } else {
            ranks.iter().map(|r| (r.rank, r.median_ns)).collect()
        };
        let (step_threshold, mut stragglers) = if time.has_communication() {
            settings.rule.own_work_stragglers(&judged)
        } else {
            settings.rule.step_stragglers(&judged)
        };
        let bricks = per_step(&run.ranks, run.names.len(), |d| &d.bricks);
        let step_of: HashMap<u32, f64> = judged.into_iter().collect();
        stragglers.extend(brick_stragglers(
            &run,
            &bricks,
            &step_of,
            &step_threshold,
            &settings,
        ));
        stragglers.sort_by(|a, b| a.rank.cmp(&b.rank).then(b.excess.total_cmp(&a.excess)));
        let bricks_by_mean = imbalances(&bricks, &run.names, analysed);
        let mut straggler_ranks: Vec<u32> = stragglers.iter().map(|s| s.rank).collect();
        straggler_ranks.dedup();
        let splits = splits.into_iter().map(|(b, _)| b).collect();
        let charts = FleetCharts::of(&run, splits, &bricks, &bricks_by_mean, &straggler_ranks);
        Self {
            heat: HeatMap::of(&run.ranks),
            time,
            charts,
            bricks: bricks_by_mean,
            phases,
            run_id: run.run_id,
            world_size: run.world_size,
            ranks_analysed: analysed,
            absent: run.absent,
            problems: run.problems,
            settings,
            step_threshold,
            ranks,
            stragglers,
        }
    }
}

impl FleetCharts {
    fn of(
        run: &RunDir,
        splits: Vec<StepBreakdown>,
        per_step: &[Vec<(u32, f64)>],
        bricks: &[Imbalance],
        stragglers: &[u32],
    ) -> Self {
        let (boxes, slow_steps, slow_step_count) = step_boxes(&run.ranks, stragglers);
        let ids: HashMap<&str, usize> = (0..run.names.len())
            .map(|i| (run.names.get(i as u32), i))
            .collect();
        let strips = bricks
            .iter()
            .filter_map(|b| BrickStrip::of(&b.name, &per_step[*ids.get(b.name.as_str())?]))
            .collect();
        let files = run
            .ranks
            .iter()
            .map(|d| {
                let dir = d
                    .file
                    .strip_suffix(PROFILE_FILE)
                    .unwrap_or(&d.file)
                    .trim_end_matches('/')
                    .to_owned();
                RankFiles {
                    rank: d.rank,
                    profile: d.file.clone(),
                    report: d.has_report.then(|| format!("{dir}/{REPORT_FILE}")),
                    trace: d.has_trace.then(|| format!("{dir}/{TRACE_FILE}")),
                    dir,
                }
            })
            .collect();
        Self {
            breakdown: bars(splits, stragglers),
            boxes,
            slow_steps,
            slow_step_count,
            bricks: strips,
            files,
        }
    }
}

/// Ranks that stand out in one brick's median call, taken relative to the
/// rank's own median step: a rank that runs slower throughout (a shared
/// core, a slower node) is the step rule's to name, and a brick stands out
/// only when it takes a larger part of its rank's step. A preempted call
/// stretches a brick's total but not its median, and a rank that only calls
/// a brick more often already shows in its step time. Linear in ranks x
/// bricks: ranks are looked up by key.
fn brick_stragglers(
    run: &RunDir,
    per_step: &[Vec<(u32, f64)>],
    step_of: &HashMap<u32, f64>,
    step_threshold: &Threshold,
    settings: &FleetSettings,
) -> Vec<Straggler> {
    let calls = median_calls(run);
    let analysed = run.ranks.len() as f64;
    let total: f64 = per_step.iter().map(|v| sum(v) / analysed).sum();
    let mut out = Vec::new();
    for (name, per_step) in per_step.iter().enumerate() {
        if per_step.is_empty()
            || total <= 0.0
            || sum(per_step) / analysed / total < settings.min_brick_share
        {
            continue;
        }
        let relative: Vec<(u32, f64, f64)> = calls[name]
            .iter()
            .filter_map(|&(rank, v)| {
                let step = *step_of.get(&rank)?;
                (step > 0.0).then_some((rank, v, step))
            })
            .collect();
        let just: Vec<f64> = relative.iter().map(|(_, v, step)| v / step).collect();
        // One brick's calls are noisier than a whole step: a brick needs
        // a wider margin.
        let t = StragglerRule {
            min_excess: settings.rule.min_excess.max(BRICK_MIN_EXCESS),
            ..settings.rule
        }
        .threshold(&just);
        // A straggler holds the others back by what its brick takes too
        // long: the brick must cost it at least `BRICK_MIN_STEP_COST` of
        // the fleet's median step, and its step must be longer than that
        // median by at least half of the brick's excess. A rank whose step
        // is not (on shared cores, one that lost the CPU in this brick
        // and got it back elsewhere) keeps pace, and no one waits for it.
        let typical = median(&per_step.iter().map(|(_, ns)| *ns).collect::<Vec<_>>());
        let own: HashMap<u32, f64> = per_step.iter().copied().collect();
        let holds_back = |rank: u32, step: f64| {
            let lost = own.get(&rank).copied().unwrap_or(0.0) - typical;
            let behind = step - step_threshold.median_ns;
            lost >= BRICK_MIN_STEP_COST * step_threshold.median_ns && behind >= 0.5 * lost
        };
        for &(rank, v, step) in relative
            .iter()
            .filter(|(rank, v, step)| holds_back(*rank, *step) && t.exceeded_by(v / step))
        {
            // In this rank's nanoseconds: the fleet's relative figures
            // times its own median step.
            out.push(Straggler {
                rank,
                what: StragglerIn::Brick {
                    brick: run.names.get(name as u32).to_owned(),
                },
                value_ns: v,
                threshold: Threshold {
                    median_ns: t.median_ns * step,
                    mad_ns: t.mad_ns * step,
                    threshold_ns: t.threshold_ns * step,
                },
                excess: t.excess(v / step),
            });
        }
    }
    out
}

/// Each brick's `(rank, median call ns)` over the ranks that ran it, by
/// name index.
fn median_calls(run: &RunDir) -> Vec<Vec<(u32, f64)>> {
    let mut calls: Vec<Vec<(u32, f64)>> = vec![Vec::new(); run.names.len()];
    for d in &run.ranks {
        for (&(name, _), &ns) in d.bricks.iter().zip(&d.brick_calls) {
            // A name listed twice in one profile: its first entry's call.
            if calls[name as usize]
                .last()
                .is_some_and(|(r, _)| *r == d.rank)
            {
                continue;
            }
            calls[name as usize].push((d.rank, ns));
        }
    }
    calls
}

/// Step times of one rank: the distribution of the step samples it kept,
/// and the count it recorded.
fn rank_steps(d: &RankData) -> RankSteps {
    let mut times: Vec<f64> = d.steps.iter().map(|&(_, ns)| ns as f64).collect();
    times.sort_by(f64::total_cmp);
    RankSteps {
        rank: d.rank,
        host: d.host.clone(),
        steps: d.step_count,
        median_ns: median(&times),
        p10_ns: quantile(&times, 0.1),
        p90_ns: quantile(&times, 0.9),
        max_ns: times.last().copied().unwrap_or(0.0),
    }
}

/// Each name's `(rank, ns per step)` over the ranks that have it, by name
/// index: a rank's total over the steps it recorded (its step count, not
/// the samples it kept), so ranks that recorded different numbers of steps
/// still compare.
fn per_step(
    ranks: &[RankData],
    names: usize,
    of: impl Fn(&RankData) -> &[(u32, u64)],
) -> Vec<Vec<(u32, f64)>> {
    let mut out: Vec<Vec<(u32, f64)>> = vec![Vec::new(); names];
    for d in ranks {
        let steps = d.step_count.max(1) as f64;
        for &(name, total) in of(d) {
            let per_step = total as f64 / steps;
            // A name listed twice in one profile (a hand-edited file) is
            // one brick: its times add up.
            match out[name as usize].last_mut() {
                Some((rank, ns)) if *rank == d.rank => *ns += per_step,
                _ => out[name as usize].push((d.rank, per_step)),
            }
        }
    }
    out
}

fn sum(values: &[(u32, f64)]) -> f64 {
    values.iter().map(|(_, v)| v).sum()
}

/// Each name's balance: the mean is over all `analysed` ranks, a rank
/// without the name counting 0 (a brick only one of four ranks runs is 4x
/// its mean on that rank).
fn imbalances(by_name: &[Vec<(u32, f64)>], names: &Names, analysed: usize) -> Vec<Imbalance> {
    let mut out: Vec<Imbalance> = by_name
        .iter()
        .enumerate()
        .filter_map(|(name, values)| {
            let (slowest_rank, max_ns) = values
                .iter()
                .copied()
                .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))?;
            let mean_ns = sum(values) / analysed.max(1) as f64;
            Some(Imbalance {
                name: names.get(name as u32).to_owned(),
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
