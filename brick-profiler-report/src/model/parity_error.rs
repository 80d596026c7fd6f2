//! [`ParityError`]: a parity input that cannot be read, naming the file (or
//! origin), the line and column, and what was wrong.

use std::path::PathBuf;

/// Error reading or writing a parity input.
#[derive(Debug, thiserror::Error)]
pub enum ParityError {
    /// A file could not be read.
    #[error("cannot read `{}`: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// A file could not be written.
    #[error("cannot write `{}`: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// A trace's events could not be written to, or read back from, the
    /// temporary files that hold a large trace.
    #[error("cannot hold the events of `{origin}` in temporary files: {source}")]
    Spill {
        /// The trace.
        origin: String,
        /// Underlying error.
        source: std::io::Error,
    },
    /// A parity profile, trace or mapping that does not parse.
    #[error("malformed {what} `{origin}` at line {line}, column {column}: {message}")]
    Malformed {
        /// `parity profile`, `PyTorch trace`, `op mapping`.
        what: &'static str,
        /// The file, or a name for text given directly.
        origin: String,
        /// 1-based line (0 when unknown).
        line: usize,
        /// 1-based column (0 when unknown).
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// Valid JSON that holds no usable trace.
    #[error("`{origin}` is not a Chrome trace: {reason}")]
    NotATrace {
        /// The file, or a name for text given directly.
        origin: String,
        /// What is missing.
        reason: String,
    },
    /// A value outside its domain.
    #[error("invalid {field} `{value}` in `{origin}`: {reason}")]
    InvalidValue {
        /// The file, or a name for text given directly.
        origin: String,
        /// The field.
        field: String,
        /// The value found.
        value: String,
        /// What is wrong.
        reason: String,
    },
    /// A mapping file whose format the extension does not tell.
    #[error("op mapping `{}`: unknown format, expected a .toml or .json file", path.display())]
    UnknownMappingFormat {
        /// The file.
        path: PathBuf,
    },
}

impl ParityError {
    /// A serde_json error as [`ParityError::Malformed`].
    pub(crate) fn json(what: &'static str, origin: &str, e: &serde_json::Error) -> Self {
        Self::Malformed {
            what,
            origin: origin.to_owned(),
            line: e.line(),
            column: e.column(),
            message: crate::base::json::message(e),
        }
    }
}
