//! [`RankReport`]: load balance and stragglers across the ranks of a
//! distributed run, one [`Profile`] per rank, and reading one profile file
//! per rank.

use std::path::Path;

use profiler_core::{Profile, trace::EventKind};
use serde::{Deserialize, Serialize};

use super::nesting::sorted_events;
use super::types::balance;
use crate::analysis::straggler::{
    Straggler, StragglerRule, Threshold, collective_waits, is_collective, median,
};
use crate::model::trace_error::TraceError;

/// Busy time and step times of one rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankStats {
    /// The rank.
    pub rank: u32,
    /// Time inside top-level bricks (bricks not nested in another brick) over
    /// all threads of the timeline, ns; without a timeline, the sum of brick
    /// totals (nested bricks then count twice).
    pub busy_ns: u64,
    /// Steps recorded.
    pub steps: u64,
    /// Median of the sampled step times (`steps.samples_ns`), ns.
    pub median_step_ns: Option<f64>,
    /// Mean of the sampled step times, ns.
    pub mean_step_ns: Option<f64>,
    /// Shortest sampled step, ns.
    pub min_step_ns: Option<u64>,
    /// Longest sampled step, ns.
    pub max_step_ns: Option<u64>,
    /// Its wait at collective phases per step (its mean time per step at
    /// each beyond the fastest rank's), ns; `None` when no rank records a
    /// collective phase or this one lacks one the others have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting_ns: Option<f64>,
}

/// Load balance and stragglers across ranks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankReport {
    /// Per-rank figures, in the order given.
    pub ranks: Vec<RankStats>,
    /// `max(0, (max - ideal) / ideal)` over busy times, `ideal = total /
    /// ranks` (the formula of `load_balance_metrics`); 0 under 2 ranks.
    pub busy_imbalance_ratio: f64,
    /// The same formula over median step times of ranks that have steps.
    pub step_imbalance_ratio: f64,
    /// The straggler rule's settings.
    pub rule: StragglerRule,
    /// The step-time threshold, over the median steps of the ranks with
    /// step samples; when the ranks record a collective phase, over their
    /// own work (median step less `waiting_ns`).
    pub step_threshold: Threshold,
    /// The collective phases the ranks record (empty: stragglers are
    /// judged by median step).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub collectives: Vec<String>,
    /// Ranks whose median step stands out, by rank.
    pub stragglers: Vec<Straggler>,
}

impl RankReport {
    /// The report of ranked profiles; stragglers are the ranks whose median
    /// step stands out among the ranks with step samples, by `rule` (the
    /// fleet report's rule), or, when they record a collective phase, whose
    /// own work (median step less the wait at collectives) does.
    #[must_use]
    pub fn new(ranked: &[(u32, &Profile)], rule: StragglerRule) -> Self {
        let mut ranks: Vec<RankStats> = ranked.iter().map(|(r, p)| rank_stats(*r, p)).collect();
        let mut collectives: Vec<String> = ranked
            .iter()
            .flat_map(|(_, p)| p.phases.iter().map(|ph| ph.name.clone()))
            .filter(|name| is_collective(name))
            .collect();
        collectives.sort();
        collectives.dedup();
        let times: Vec<(u32, Vec<Option<f64>>)> = ranked
            .iter()
            .map(|(r, p)| {
                let steps = p.steps.count.max(1) as f64;
                let at = |c: &String| {
                    let ns = p
                        .phases
                        .iter()
                        .filter(|ph| &ph.name == c)
                        .map(|ph| ph.in_steps_ns)
                        .sum::<u64>();
                    p.phases
                        .iter()
                        .any(|ph| &ph.name == c)
                        .then_some(ns as f64 / steps)
                };
                (*r, collectives.iter().map(at).collect())
            })
            .collect();
        if !collectives.is_empty() {
            for (stats, wait) in ranks.iter_mut().zip(collective_waits(&times)) {
                stats.waiting_ns = wait;
            }
        }
        let ratio = |values: Vec<f64>| {
            if values.len() < 2 {
                0.0
            } else {
                balance(values).ratio
            }
        };
        let busy_imbalance_ratio = ratio(ranks.iter().map(|r| r.busy_ns as f64).collect());
        let step_imbalance_ratio = ratio(ranks.iter().filter_map(|r| r.median_step_ns).collect());
        let medians: Vec<(u32, f64)> = ranks
            .iter()
            .filter_map(|r| {
                r.median_step_ns
                    .map(|m| (r.rank, m - r.waiting_ns.unwrap_or(0.0)))
            })
            .collect();
        let (step_threshold, stragglers) = if collectives.is_empty() {
            rule.step_stragglers(&medians)
        } else {
            rule.own_work_stragglers(&medians)
        };
        Self {
            ranks,
            busy_imbalance_ratio,
            step_imbalance_ratio,
            rule,
            step_threshold,
            collectives,
            stragglers,
        }
    }
}

/// Reads one profile per rank. A file's rank is the profile's own
/// `run.rank`, else the number after `rank` in its name
/// (`profile.rank3.json` is rank 3); files with neither take the ranks no
/// other file claims, in the order given.
///
/// # Errors
/// [`TraceError::Profile`] naming the file and the line/column or field of a
/// bad profile; [`TraceError::DuplicateRank`] when two files claim one rank.
pub fn read_rank_profiles<P: AsRef<Path>>(paths: &[P]) -> Result<Vec<(u32, Profile)>, TraceError> {
    let mut known: Vec<(Option<u32>, &Path, Profile)> = Vec::with_capacity(paths.len());
    for path in paths {
        let path = path.as_ref();
        let profile = Profile::read(path)?;
        let rank = profile.run.rank.or_else(|| rank_in_name(path));
        if let Some(rank) = rank
            && let Some((_, other, _)) = known.iter().find(|(r, _, _)| *r == Some(rank))
        {
            return Err(TraceError::DuplicateRank {
                path: path.to_path_buf(),
                other: other.to_path_buf(),
                rank,
            });
        }
        known.push((rank, path, profile));
    }
    // Files without a rank of their own take the free ranks, in order.
    let taken: Vec<u32> = known.iter().filter_map(|(r, _, _)| *r).collect();
    let mut free = (0u32..).filter(|r| !taken.contains(r));
    let mut out: Vec<(u32, Profile)> = known
        .into_iter()
        .map(|(rank, _, profile)| {
            (
                rank.unwrap_or_else(|| free.next().unwrap_or(u32::MAX)),
                profile,
            )
        })
        .collect();
    out.sort_by_key(|(rank, _)| *rank);
    Ok(out)
}

/// The digits after the last `rank` in a file name.
fn rank_in_name(path: &Path) -> Option<u32> {
    let name = path.file_name()?.to_str()?;
    let (_, after) = name.rsplit_once("rank")?;
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn rank_stats(rank: u32, profile: &Profile) -> RankStats {
    let samples = &profile.steps.samples_ns;
    let times: Vec<f64> = samples.iter().map(|&s| s as f64).collect();
    let mean = (!times.is_empty()).then(|| times.iter().sum::<f64>() / times.len() as f64);
    RankStats {
        rank,
        busy_ns: busy_ns(profile),
        steps: profile.steps.count,
        median_step_ns: (!times.is_empty()).then(|| median(&times)),
        mean_step_ns: mean,
        min_step_ns: samples.iter().min().copied(),
        max_step_ns: samples.iter().max().copied(),
        waiting_ns: None,
    }
}

fn busy_ns(profile: &Profile) -> u64 {
    if profile.timeline.event_count() == 0 {
        return profile.total_ns();
    }
    let mut busy = 0u64;
    for thread in &profile.timeline.threads {
        let mut covered_until = 0u64;
        for e in sorted_events(&thread.events).iter() {
            if e.kind == EventKind::Brick && e.start_ns >= covered_until {
                busy = busy.saturating_add(e.dur_ns);
                covered_until = e.start_ns.saturating_add(e.dur_ns);
            }
        }
    }
    busy
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::straggler::StragglerIn;

    /// A rank of 10 steps of 100 ms, with `allreduce` taking `comm_ms` of
    /// each.
    fn ddp_rank(comm_ms: u64) -> Profile {
        let mut p = Profile::empty();
        p.steps.samples_ns = vec![100_000_000; 10];
        p.steps.count = 10;
        p.phases = vec![profiler_core::profile::PhaseStats {
            name: "allreduce".into(),
            count: 10,
            total_ns: comm_ms * 10_000_000,
            min_ns: 0,
            max_ns: 0,
            in_steps_ns: comm_ms * 10_000_000,
            latency: Default::default(),
        }];
        p
    }

    #[test]
    fn the_merged_trace_judges_communicating_ranks_by_their_own_work() {
        // Equal steps; rank 2 arrives last (5 ms at the collective), the
        // others wait 75 ms for it.
        let profiles: Vec<Profile> = [80, 80, 5, 81].map(ddp_rank).into();
        let ranked: Vec<(u32, &Profile)> = (0..4).zip(&profiles).collect();
        let report = RankReport::new(&ranked, StragglerRule::default());
        assert_eq!(report.collectives, ["allreduce"]);
        assert_eq!(report.ranks[0].waiting_ns, Some(75e6));
        assert_eq!(report.ranks[2].waiting_ns, Some(0.0));
        let named: Vec<u32> = report.stragglers.iter().map(|s| s.rank).collect();
        assert_eq!(named, [2], "{report:?}");
        assert_eq!(report.stragglers[0].what, StragglerIn::OwnWork);
        // Without the collective the same steps name no one.
        let mut plain = profiles.clone();
        plain.iter_mut().for_each(|p| p.phases.clear());
        let ranked: Vec<(u32, &Profile)> = (0..4).zip(&plain).collect();
        let report = RankReport::new(&ranked, StragglerRule::default());
        assert!(report.stragglers.is_empty() && report.collectives.is_empty());
        assert_eq!(report.ranks[0].waiting_ns, None);
    }

    #[test]
    fn ranks_from_file_names() {
        assert_eq!(rank_in_name(Path::new("out/profile.rank12.json")), Some(12));
        assert_eq!(rank_in_name(Path::new("rank3")), Some(3));
        assert_eq!(rank_in_name(Path::new("profile.json")), None);
        assert_eq!(rank_in_name(Path::new("rank.json")), None);
    }
}
