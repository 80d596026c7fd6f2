//! [`RankReport`]: load balance and stragglers across the ranks of a
//! distributed run, one [`Profile`] per rank, and reading one profile file
//! per rank.

use std::path::Path;

use profiler_core::{Profile, trace::EventKind};
use serde::{Deserialize, Serialize};

use super::nesting::sorted_events;
use super::types::balance;
use crate::model::trace_error::TraceError;

/// How much slower than its peers a rank's median step must be to count as
/// a straggler, as a fraction (0.10 = 10%).
pub const DEFAULT_STRAGGLER_THRESHOLD: f64 = 0.10;

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
}

/// A rank whose steps are clearly slower than its peers'.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Straggler {
    /// The rank.
    pub rank: u32,
    /// Its median step time, ns.
    pub median_step_ns: f64,
    /// Median of the other ranks' median step times, ns.
    pub baseline_step_ns: f64,
    /// `median_step_ns / baseline_step_ns - 1` (0.30 = 30% slower).
    pub slower_by: f64,
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
    /// Threshold the stragglers were found with.
    pub straggler_threshold: f64,
    /// Stragglers, slowest first.
    pub stragglers: Vec<Straggler>,
}

impl RankReport {
    /// The report of ranked profiles.
    ///
    /// Straggler rule, per rank `r` with sampled steps, against its peers
    /// (the other ranks with sampled steps): let `m` be `r`'s median step
    /// time, `B` the median of the peers' medians and `MAD` the median of
    /// `|peer median - B|`. `r` is a straggler when `m > B x (1 +
    /// threshold)` **and** `m - B > 3 x MAD`: clearly slower than typical,
    /// and by more than the spread between ranks. Peers exclude `r` so a
    /// straggler does not widen its own yardstick; with two ranks each is
    /// compared with the other (the spread is then 0 and the threshold
    /// decides).
    #[must_use]
    pub fn new(ranked: &[(u32, &Profile)], straggler_threshold: f64) -> Self {
        let ranks: Vec<RankStats> = ranked.iter().map(|(r, p)| rank_stats(*r, p)).collect();
        let ratio = |values: Vec<f64>| {
            if values.len() < 2 {
                0.0
            } else {
                balance(values).ratio
            }
        };
        let busy_imbalance_ratio = ratio(ranks.iter().map(|r| r.busy_ns as f64).collect());
        let step_imbalance_ratio = ratio(ranks.iter().filter_map(|r| r.median_step_ns).collect());
        let stragglers = stragglers(&ranks, straggler_threshold);
        Self {
            ranks,
            busy_imbalance_ratio,
            step_imbalance_ratio,
            straggler_threshold,
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
    let mut sorted: Vec<f64> = samples.iter().map(|&s| s as f64).collect();
    let mean = (!samples.is_empty()).then(|| sorted.iter().sum::<f64>() / sorted.len() as f64);
    RankStats {
        rank,
        busy_ns: busy_ns(profile),
        steps: profile.steps.count,
        median_step_ns: median(&mut sorted),
        mean_step_ns: mean,
        min_step_ns: samples.iter().min().copied(),
        max_step_ns: samples.iter().max().copied(),
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

/// Median (mean of the middle two for an even count); `None` when empty.
fn median(values: &mut [f64]) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(values[n / 2]),
        _ => Some((values[n / 2 - 1] + values[n / 2]) / 2.0),
    }
}

fn stragglers(ranks: &[RankStats], threshold: f64) -> Vec<Straggler> {
    let medians: Vec<(u32, f64)> = ranks
        .iter()
        .filter_map(|r| r.median_step_ns.map(|m| (r.rank, m)))
        .collect();
    let mut out = Vec::new();
    for (i, &(rank, m)) in medians.iter().enumerate() {
        let mut peers: Vec<f64> = medians
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, &(_, p))| p)
            .collect();
        let Some(baseline) = median(&mut peers) else {
            continue;
        };
        let mut deviations: Vec<f64> = peers.iter().map(|p| (p - baseline).abs()).collect();
        let mad = median(&mut deviations).unwrap_or(0.0);
        if baseline > 0.0 && m > baseline * (1.0 + threshold) && m - baseline > 3.0 * mad {
            out.push(Straggler {
                rank,
                median_step_ns: m,
                baseline_step_ns: baseline,
                slower_by: m / baseline - 1.0,
            });
        }
    }
    out.sort_by(|a, b| {
        b.slower_by
            .total_cmp(&a.slower_by)
            .then(a.rank.cmp(&b.rank))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranks(medians: &[f64]) -> Vec<RankStats> {
        medians
            .iter()
            .enumerate()
            .map(|(i, &m)| RankStats {
                rank: i as u32,
                busy_ns: 0,
                steps: 1,
                median_step_ns: Some(m),
                mean_step_ns: Some(m),
                min_step_ns: None,
                max_step_ns: None,
            })
            .collect()
    }

    fn found(medians: &[f64]) -> Vec<u32> {
        stragglers(&ranks(medians), DEFAULT_STRAGGLER_THRESHOLD)
            .iter()
            .map(|s| s.rank)
            .collect()
    }

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&mut []), None);
    }

    #[test]
    fn straggler_rule() {
        assert_eq!(found(&[100.0, 130.0]), [1]);
        assert_eq!(found(&[100.0, 105.0]), Vec::<u32>::new());
        // Two slow ranks of four are both found (no masking).
        assert_eq!(found(&[100.0, 100.0, 130.0, 131.0]), [3, 2]);
        // 34% above the typical rank, but ranks spread by 20: within the noise.
        assert_eq!(found(&[80.0, 100.0, 120.0, 134.0]), Vec::<u32>::new());
        assert_eq!(found(&[100.0]), Vec::<u32>::new());
        let s = &stragglers(&ranks(&[100.0, 100.0, 130.0]), 0.1)[0];
        assert!((s.slower_by - 0.3).abs() < 1e-12 && s.baseline_step_ns == 100.0);
    }

    #[test]
    fn ranks_from_file_names() {
        assert_eq!(rank_in_name(Path::new("out/profile.rank12.json")), Some(12));
        assert_eq!(rank_in_name(Path::new("rank3")), Some(3));
        assert_eq!(rank_in_name(Path::new("profile.json")), None);
        assert_eq!(rank_in_name(Path::new("rank.json")), None);
    }
}
