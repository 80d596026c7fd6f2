//! Merging the profiles of a distributed run (one file per rank, e.g.
//! `profile.rank0.json`) into one Chrome trace plus a [`RankReport`].

use std::path::Path;

use profiler_core::Profile;
use serde::Serialize;

use super::chrome::ChromeTrace;
use super::run_facts::{EXPORTER, RunFacts};
use crate::analysis::straggler::StragglerRule;
use crate::analysis::trace::{RankReport, TraceError, read_rank_profiles};
use crate::output::error::{ExportError, write_text};

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
    /// [`ExportError::Write`] naming the path.
    pub fn write_chrome_trace(&self, path: impl AsRef<Path>) -> Result<(), ExportError> {
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
/// finding stragglers by the default [`StragglerRule`].
#[must_use]
pub fn merge_ranks(profiles: &[Profile]) -> MergedTrace {
    let ranked: Vec<(u32, &Profile)> = (0u32..).zip(profiles).collect();
    merge_ranked(&ranked, StragglerRule::default())
}

/// Merges `(rank, profile)` pairs; a rank is a straggler by `rule` (see
/// [`RankReport::new`]).
#[must_use]
pub fn merge_ranked(ranked: &[(u32, &Profile)], rule: StragglerRule) -> MergedTrace {
    let report = RankReport::new(ranked, rule);
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

/// [`read_rank_profiles`] then [`merge_ranked`] with the default rule.
///
/// # Errors
/// As [`read_rank_profiles`].
pub fn merge_rank_files<P: AsRef<Path>>(paths: &[P]) -> Result<MergedTrace, TraceError> {
    let profiles = read_rank_profiles(paths)?;
    let ranked: Vec<(u32, &Profile)> = profiles.iter().map(|(r, p)| (*r, p)).collect();
    Ok(merge_ranked(&ranked, StragglerRule::default()))
}
