//! [`ScorecardError`]: everything that can go wrong reading scorecard inputs
//! (trainer log lines, baselines, thresholds).

use std::path::PathBuf;

/// Error building a training scorecard.
#[derive(Debug, thiserror::Error)]
pub enum ScorecardError {
    /// The text is not JSON.
    #[error("malformed step_profiler JSON{}: {message} at column {column}", at(*line))]
    MalformedJson {
        /// 1-based line in the log, when scanned from one.
        line: Option<usize>,
        /// 1-based column within the line.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The JSON is not an object.
    #[error("step_profiler JSON{} is not an object", at(*line))]
    NotAnObject {
        /// 1-based line in the log, when scanned from one.
        line: Option<usize>,
    },
    /// The object has no `_profiler` tag.
    #[error(
        "JSON{} has no `_profiler` tag; expected `\"_profiler\": \"step_profiler_v2\"` (or v1)",
        at(*line)
    )]
    MissingTag {
        /// 1-based line in the log, when scanned from one.
        line: Option<usize>,
    },
    /// The `_profiler` tag names another format.
    #[error(
        "JSON{} is tagged `\"_profiler\": {found}`; expected \"step_profiler_v2\" or \"step_profiler_v1\"",
        at(*line)
    )]
    UnknownTag {
        /// 1-based line in the log, when scanned from one.
        line: Option<usize>,
        /// The tag value found (as JSON).
        found: String,
    },
    /// A field has the wrong type or value.
    #[error("invalid field `{field}` in step_profiler JSON{}: {message}", at(*line))]
    InvalidField {
        /// 1-based line in the log, when scanned from one.
        line: Option<usize>,
        /// Path of the field, e.g. `per_layer[2].fwd_ms`.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A log had no tagged line.
    #[error(
        "no step_profiler line in the log ({lines} lines scanned); trainers print one JSON line tagged `\"_profiler\": \"step_profiler_v2\"`"
    )]
    NoProfilerLine {
        /// Lines scanned.
        lines: usize,
    },
    /// A baseline file could not be read.
    #[error("cannot read baseline `{}`: {source}", path.display())]
    BaselineRead {
        /// File that failed.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// A baseline file could not be written.
    #[error("cannot write baseline `{}`: {source}", path.display())]
    BaselineWrite {
        /// File that failed.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// A baseline file is not scorecard JSON.
    #[error("malformed baseline `{}`: {message} at line {line}, column {column}", path.display())]
    BaselineMalformed {
        /// File that failed.
        path: PathBuf,
        /// What is wrong (names the field).
        message: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// A threshold is out of range.
    #[error("invalid threshold `{field}` = {value}: {reason}")]
    InvalidThreshold {
        /// Field of `Thresholds`.
        field: String,
        /// The value given.
        value: f64,
        /// What is wrong.
        reason: String,
    },
}

/// ` (log line N)` or nothing.
fn at(line: Option<usize>) -> String {
    line.map(|n| format!(" (log line {n})")).unwrap_or_default()
}
