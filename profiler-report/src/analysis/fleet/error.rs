//! What can go wrong reading a run directory: the directory itself
//! ([`FleetError`]), and each rank that could not be analysed
//! ([`RankProblem`], reported by name while the other ranks are analysed).

use std::path::PathBuf;

use serde::Serialize;

/// The run directory as a whole could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FleetError {
    /// The directory is missing or unreadable.
    #[error("cannot read run directory `{path}`: {source}")]
    Dir {
        /// The run directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// No rank could be analysed (every problem is listed).
    #[error("no rank of `{path}` could be analysed: {}", list(problems))]
    NoRanks {
        /// The run directory.
        path: PathBuf,
        /// Why each rank was left out (empty: no `rank-NNNNN` directory).
        problems: Vec<RankProblem>,
    },
}

fn list(problems: &[RankProblem]) -> String {
    if problems.is_empty() {
        return "no rank-NNNNN directory in it".to_owned();
    }
    problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Why one rank was left out of the analysis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "problem", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RankProblem {
    /// The run has `world_size` ranks but this one has no directory.
    #[error("rank {rank}: no `rank-{rank:05}` directory (absent)")]
    Missing {
        /// The absent rank.
        rank: u32,
    },
    /// The rank's profile is missing, truncated or malformed.
    #[error("`{file}`: {reason}")]
    Unreadable {
        /// The file, relative to the run directory.
        file: String,
        /// What was wrong, with the position for malformed JSON.
        reason: String,
    },
    /// The profile belongs to another run.
    #[error("`{file}`: run id `{run_id}` is not this run's `{expected}`")]
    OtherRun {
        /// The file, relative to the run directory.
        file: String,
        /// The id it carries.
        run_id: String,
        /// The id most ranks carry.
        expected: String,
    },
    /// A second profile claims a rank already analysed.
    #[error("`{file}`: rank {rank} again (already read from `{first}`)")]
    Duplicate {
        /// The rank claimed twice.
        rank: u32,
        /// The file left out, relative to the run directory.
        file: String,
        /// The file analysed for that rank.
        first: String,
    },
}
