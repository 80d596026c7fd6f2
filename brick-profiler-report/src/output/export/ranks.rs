//! Merging the profiles of a distributed run (one file per rank, e.g.
//! `profile.rank0.json`) into one Chrome trace plus a [`RankReport`], or
//! into one Perfetto trace.

use std::io::Write;
use std::path::Path;

use profiler_core::Profile;
use serde::Serialize;

use super::chrome::ChromeTrace;
use super::perfetto::{PerfettoTraceSummary, write_ranks_to};
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
    for (rank, profile, offset) in aligned(ranked) {
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

/// Each rank with its offset (ns): ranks started at different wall-clock
/// times, so each is shifted onto the earliest start (profiles without a
/// start time stay at zero).
fn aligned<'p>(ranked: &[(u32, &'p Profile)]) -> Vec<(u32, &'p Profile, u64)> {
    let first_start = ranked
        .iter()
        .map(|(_, p)| p.run.started_at_unix_ns)
        .filter(|&t| t > 0)
        .min()
        .unwrap_or(0);
    ranked
        .iter()
        .map(|&(rank, p)| {
            (
                rank,
                p,
                p.run.started_at_unix_ns.saturating_sub(first_start),
            )
        })
        .collect()
}

/// Writes `(rank, profile)` pairs into `out` as one Perfetto trace
/// (`trace.pftrace`, streamed as
/// [`write_perfetto_trace_to`](super::perfetto::write_perfetto_trace_to)
/// writes one profile): one process track per rank (pid = rank, named
/// `rank N (host)`), holding that rank's threads, slices, kernels,
/// counters and flows, times aligned as [`merge_ranked`] aligns them; the
/// same slices per rank as the Chrome trace of the merge. The load balance
/// ([`RankReport`]) is [`merge_ranked`]'s alone.
///
/// ```
/// let (mut a, mut b) = (profiler::Profile::empty(), profiler::Profile::empty());
/// b.run.host = "node-1".into();
/// let mut bytes = Vec::new();
/// let written = profiler_report::export::write_ranked_perfetto_trace_to(&[(0, &a), (1, &b)], &mut bytes)?;
/// assert_eq!(written.warnings.len(), 2, "no timeline on either rank");
/// assert!(written.warnings[1].starts_with("rank 1: "));
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Errors
/// The writer's error.
pub fn write_ranked_perfetto_trace_to(
    ranked: &[(u32, &Profile)],
    out: impl Write,
) -> std::io::Result<PerfettoTraceSummary> {
    write_ranks_to(&aligned(ranked), out)
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
