//! [`TraceError`]: everything that can go wrong reading traces and rank
//! profiles, with the file, line, column, entry or field that caused it.

use std::path::{Path, PathBuf};

use profiler_core::profile::{InvalidValue, ProfileError};

/// Error reading a trace or a rank profile.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TraceError {
    /// A file could not be read.
    #[error("cannot read trace `{}`: {source}", path.display())]
    Read {
        /// File that failed.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// The text is not valid JSON, or a field has the wrong type.
    #[error("malformed trace{}: {message} at line {line}, column {column}", origin(path.as_deref()))]
    Malformed {
        /// File, if read from one.
        path: Option<PathBuf>,
        /// What is wrong; names the field (`entries[3].duration_us`) when known.
        message: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// A value no measurement can produce: a negative or non-finite time,
    /// durations whose sum overflows.
    #[error("invalid trace{}: {source}", origin(path.as_deref()))]
    Invalid {
        /// File, if read from one.
        path: Option<PathBuf>,
        /// The field (`entries[3].duration_us`) and what is wrong with it.
        source: InvalidValue,
    },
    /// Two rank files claim the same rank.
    #[error("`{}` and `{}` both claim rank {rank}", other.display(), path.display())]
    DuplicateRank {
        /// The second file with that rank.
        path: PathBuf,
        /// The first file with that rank.
        other: PathBuf,
        /// The rank.
        rank: u32,
    },
    /// A profile could not be read (its error names the file and field).
    #[error(transparent)]
    Profile(#[from] ProfileError),
}

fn origin(path: Option<&Path>) -> String {
    path.map(|p| format!(" `{}`", p.display()))
        .unwrap_or_default()
}
