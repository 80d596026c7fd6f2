//! Merging the profiles of a distributed run (one file per rank, e.g.
//! `profile.rank0.json`) into one Chrome trace plus a [`RankReport`].

use std::path::Path;

use profiler_core::Profile;
use serde::Serialize;

use super::TraceError;
use super::ranks::{DEFAULT_STRAGGLER_THRESHOLD, RankReport};
use crate::export::{ChromeTrace, EXPORTER, RunFacts, write_text};

/// Several ranks' profiles in one Chrome trace, with their load balance.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedTrace {
    /// Chrome trace JSON: pid = rank, process named `rank N`; `otherData`
    /// holds each rank's run facts and the [`RankReport`].
    pub chrome_json: String,
    /// Load balance and stragglers.
    pub report: RankReport,
}

impl MergedTrace {
    /// Writes [`chrome_json`](Self::chrome_json) to `path` atomically.
    ///
    /// # Errors
    /// [`TraceError::Write`] naming the path.
    pub fn write_chrome_trace(&self, path: impl AsRef<Path>) -> Result<(), TraceError> {
        write_text(path.as_ref(), &self.chrome_json)
    }
}

#[derive(Serialize)]
struct MergedOther<'a> {
    exporter: &'static str,
    ranks: Vec<RunFacts<'a>>,
    rank_report: &'a RankReport,
}

/// Merges profiles whose rank is their position (`profiles[0]` is rank 0),
/// finding stragglers with [`DEFAULT_STRAGGLER_THRESHOLD`].
#[must_use]
pub fn merge_ranks(profiles: &[Profile]) -> MergedTrace {
    let ranked: Vec<(u32, &Profile)> = (0u32..).zip(profiles).collect();
    merge_ranked(&ranked, DEFAULT_STRAGGLER_THRESHOLD)
}

/// Merges `(rank, profile)` pairs; a rank is a straggler by the rule of
/// [`RankReport::new`] with `straggler_threshold` (0.10 = 10% slower).
#[must_use]
pub fn merge_ranked(ranked: &[(u32, &Profile)], straggler_threshold: f64) -> MergedTrace {
    let report = RankReport::new(ranked, straggler_threshold);
    let mut trace = ChromeTrace::default();
    // Ranks started at different wall-clock times: shift each onto the
    // earliest start (profiles without a start time stay at zero).
    let first_start = ranked
        .iter()
        .map(|(_, p)| p.run.started_at_unix_ns)
        .filter(|&t| t > 0)
        .min()
        .unwrap_or(0);
    for &(rank, profile) in ranked {
        let offset = profile.run.started_at_unix_ns.saturating_sub(first_start);
        trace.add_profile(profile, (rank, offset), format!("rank {rank}"), Some(rank));
    }
    let chrome_json = trace.finish(&MergedOther {
        exporter: EXPORTER,
        ranks: ranked
            .iter()
            .map(|&(r, p)| RunFacts::of(p, Some(r)))
            .collect(),
        rank_report: &report,
    });
    MergedTrace {
        chrome_json,
        report,
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

/// [`read_rank_profiles`] then [`merge_ranked`] with the default threshold.
///
/// # Errors
/// As [`read_rank_profiles`].
pub fn merge_rank_files<P: AsRef<Path>>(paths: &[P]) -> Result<MergedTrace, TraceError> {
    let profiles = read_rank_profiles(paths)?;
    let ranked: Vec<(u32, &Profile)> = profiles.iter().map(|(r, p)| (*r, p)).collect();
    Ok(merge_ranked(&ranked, DEFAULT_STRAGGLER_THRESHOLD))
}

/// The digits after the last `rank` in a file name.
fn rank_in_name(path: &Path) -> Option<u32> {
    let name = path.file_name()?.to_str()?;
    let (_, after) = name.rsplit_once("rank")?;
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_from_file_names() {
        assert_eq!(rank_in_name(Path::new("out/profile.rank12.json")), Some(12));
        assert_eq!(rank_in_name(Path::new("rank3")), Some(3));
        assert_eq!(rank_in_name(Path::new("profile.json")), None);
        assert_eq!(rank_in_name(Path::new("rank.json")), None);
    }
}
