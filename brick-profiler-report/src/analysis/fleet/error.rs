//! What can go wrong reading a run directory: the directory itself
//! ([`FleetError`]), and each rank directory with something wrong in it
//! ([`RankProblem`], reported by rank and file while the other ranks are
//! analysed). Ranks are counted in [`RankRange`]s, so a run that claims
//! billions of ranks costs no more than the directories it holds.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Serialize, Serializer};

use crate::base::escape::visible;
use crate::input::InputError;

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

/// Consecutive ranks, `first..=last`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RankRange {
    /// The first rank.
    pub first: u32,
    /// The last rank (equal to `first` for one rank).
    pub last: u32,
}

impl RankRange {
    /// The ranks of `0..world` missing from `present` (ascending, each
    /// once), as ranges: as many as there are gaps, never one per rank.
    pub(crate) fn gaps(present: impl IntoIterator<Item = u32>, world: u64) -> Vec<Self> {
        let mut out = Vec::new();
        let mut next = 0u64;
        let mut push = |from: u64, to: u64| {
            // `to` is at most `u32::MAX + 1`, so both ends fit a rank.
            if from < to
                && let (Ok(first), Ok(last)) = (u32::try_from(from), u32::try_from(to - 1))
            {
                out.push(Self { first, last });
            }
        };
        for rank in present {
            let rank = u64::from(rank);
            if rank >= world {
                break;
            }
            push(next, rank);
            next = rank + 1;
        }
        push(next, world.min(u64::from(u32::MAX) + 1));
        out
    }
}

impl RankRange {
    /// Ranges as `1-3, 6, 9-12`.
    pub(crate) fn list(ranges: &[Self]) -> String {
        ranges
            .iter()
            .map(|r| {
                if r.first == r.last {
                    r.first.to_string()
                } else {
                    format!("{}-{}", r.first, r.last)
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for RankRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.first == self.last {
            write!(f, "rank {}", self.first)
        } else {
            write!(f, "ranks {}-{}", self.first, self.last)
        }
    }
}

/// Something wrong with one rank directory. Every kind but
/// [`RankProblem::RankMismatch`] leaves its rank out of the analysis. The
/// message shows text from the files (run ids, quoted JSON) with control
/// and bidi characters escaped, so it is safe to print as it is.
#[derive(Debug, Clone, Serialize, thiserror::Error)]
#[serde(tag = "problem", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RankProblem {
    /// Ranks of the run (by `world_size` or a higher rank's directory)
    /// without a directory.
    #[error("{ranks}: no `rank-NNNNN` directory (absent)")]
    Missing {
        /// The absent ranks.
        ranks: RankRange,
    },
    /// The rank's profile cannot be read: an I/O error, not a regular file,
    /// not a profile, a schema this version does not read, or values no
    /// measurement can produce.
    // The reader's message may quote the file's text: shown visible.
    #[error("rank {rank}: {}", visible(&.source.to_string()))]
    Unreadable {
        /// The rank its directory names.
        rank: u32,
        /// The file, relative to the run directory.
        file: String,
        /// What the profile reader said.
        #[serde(rename = "reason", serialize_with = "as_text")]
        source: Arc<InputError>,
    },
    /// The profile records no step, so it has no step time to compare.
    #[error("rank {rank}: `{file}` records no step")]
    NoSteps {
        /// The rank.
        rank: u32,
        /// The file, relative to the run directory.
        file: String,
    },
    /// The profile belongs to another run.
    #[error(
        "rank {rank}: `{file}` has run id `{}`, not this run's `{}`",
        visible(.run_id),
        visible(.expected)
    )]
    OtherRun {
        /// The rank.
        rank: u32,
        /// The file, relative to the run directory.
        file: String,
        /// The id it carries.
        run_id: String,
        /// The id most ranks carry.
        expected: String,
    },
    /// A second profile claims a rank already analysed.
    #[error("rank {rank} again in `{file}` (already read from `{first}`)")]
    Duplicate {
        /// The rank claimed twice.
        rank: u32,
        /// The file left out, relative to the run directory.
        file: String,
        /// The file analysed for that rank.
        first: String,
    },
    /// The profile's `run.rank` is not its directory's rank. It is analysed
    /// as the rank it records, and its directory's rank counts as absent
    /// unless another directory holds it.
    #[error(
        "`{file}` records rank {rank} (`run.rank`), not its directory's rank {dir_rank}; \
         analysed as rank {rank}"
    )]
    RankMismatch {
        /// The rank the profile records.
        rank: u32,
        /// The rank its directory names.
        dir_rank: u32,
        /// The file, relative to the run directory.
        file: String,
    },
}

impl RankProblem {
    /// Whether this problem leaves its rank out of the analysis (all but a
    /// rank mismatch, which is analysed under the rank it records).
    #[must_use]
    pub fn leaves_out(&self) -> bool {
        !matches!(self, Self::RankMismatch { .. })
    }
}

fn as_text<S: Serializer>(error: &Arc<InputError>, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(error)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranks(first: u32, last: u32) -> RankRange {
        RankRange { first, last }
    }

    #[test]
    fn gaps_are_ranges_whatever_the_world() {
        assert_eq!(
            RankRange::gaps([0, 1, 2, 3, 50_000_000], 50_000_001),
            [ranks(4, 49_999_999)]
        );
        assert_eq!(
            RankRange::gaps([2, 5], 8),
            [ranks(0, 1), ranks(3, 4), ranks(6, 7)]
        );
        assert_eq!(
            RankRange::gaps([0], u64::from(u32::MAX) + 1),
            [ranks(1, u32::MAX)]
        );
        assert_eq!(RankRange::gaps([0, 1], 2), []);
        assert_eq!(RankRange::gaps([], 0), []);
        assert_eq!(ranks(4, 49_999_999).to_string(), "ranks 4-49999999");
        assert_eq!(ranks(4, 4).to_string(), "rank 4");
    }

    #[test]
    fn a_run_id_is_shown_escaped() {
        let p = RankProblem::OtherRun {
            rank: 1,
            file: "rank-00001/profile.json".into(),
            run_id: "\u{1b}]0;owned\u{7}\u{202e}x".into(),
            expected: "job".into(),
        };
        let shown = p.to_string();
        assert!(!shown.chars().any(char::is_control), "{shown:?}");
        assert!(shown.contains("\\x1b]0;owned\\x07\\u{202e}x"), "{shown}");
    }
}
