//! [`ExportError`]: what can go wrong rendering an export or writing one
//! (Chrome trace, flamegraph, HTML report) to disk, naming the file or line
//! at fault; and the one atomic write every export uses. Reading traces has
//! its own error, `trace::TraceError`.

use std::path::{Path, PathBuf};

/// Error rendering or writing an export or the HTML report.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// A file could not be written.
    #[error("cannot write `{}`: {source}", path.display())]
    Write {
        /// File that failed.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// A folded-stacks line has no count, or a count that is not a number.
    #[error("folded stacks line {line}: {reason}")]
    FoldedLine {
        /// 1-based line.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// No stack has a positive count: there is nothing to draw.
    #[error("cannot render flamegraph: no stack has a positive count")]
    EmptyFlamegraph,
    /// A Parquet file could not be encoded.
    #[error("cannot encode `{}` as Parquet: {message}", path.display())]
    Parquet {
        /// File that failed.
        path: PathBuf,
        /// The encoder's message.
        message: String,
    },
    /// The flamegraph renderer failed.
    #[error("cannot render flamegraph: {message}")]
    Flamegraph {
        /// The renderer's message.
        message: String,
    },
}

/// Writes `text` to `path` atomically (temporary file, then rename), so a
/// reader never sees a half-written export or report.
pub(crate) fn write_text(path: &Path, text: &str) -> Result<(), ExportError> {
    profiler_core::fs::write_atomic(path, text.as_bytes()).map_err(|source| ExportError::Write {
        path: path.to_path_buf(),
        source,
    })
}
