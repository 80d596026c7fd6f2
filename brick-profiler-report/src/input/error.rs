//! [`InputError`]: an input that cannot be opened, recognised or read,
//! naming the file and what was wrong with it.

use std::path::PathBuf;

use profiler_core::profile::ProfileError;

use crate::model::nsight::ImportError;
use crate::model::parity_error::ParityError;
use crate::model::scorecard_error::ScorecardError;
use crate::model::trace_error::TraceError;

/// Error opening or reading an input.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file could not be opened or read.
    #[error("cannot read `{}`: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// A device, FIFO, socket or directory rather than a regular file.
    #[error("`{}` is {what}, not a regular file", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is instead (`a character device`, `a FIFO`, ...).
        what: &'static str,
    },
    /// A file past [`MAX_INPUT_BYTES`](super::sniff::MAX_INPUT_BYTES).
    #[error("`{}` holds {size} bytes, past the input limit of {limit} bytes", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// A binary report to export that is not there.
    #[error("cannot read `{origin}`: no such file")]
    NoSuchFile {
        /// The path given.
        origin: String,
    },
    /// A file that holds something other than a run where a run is asked
    /// for.
    #[error(
        "`{origin}` holds {what}, not a profile: give a saved profile.json, an `ncu --csv` \
         export or an `nsys stats` kernel summary"
    )]
    NotARun {
        /// The file.
        origin: String,
        /// What it holds (`a parity profile`).
        what: &'static str,
    },
    /// Nothing but whitespace in the inspected bytes.
    #[error("`{origin}` is empty (only whitespace in its first {inspected} bytes)")]
    Empty {
        /// The file, or a name for bytes given directly.
        origin: String,
        /// Bytes inspected.
        inspected: usize,
    },
    /// Bytes that are not UTF-8 text, of no binary format we read.
    #[error("`{origin}` is not UTF-8 text (a binary report? export it to CSV or JSON first)")]
    NotText {
        /// The file, or a name for bytes given directly.
        origin: String,
    },
    /// A binary file of a format we do not read, named for what it is.
    #[error("`{origin}` is {what}{}: {advice}", if *gzip { " (once decompressed from gzip)" } else { "" })]
    Binary {
        /// The file, or a name for bytes given directly.
        origin: String,
        /// What it is (`a zip archive`, `binary, neither text nor gzip`).
        what: &'static str,
        /// What to give instead.
        advice: &'static str,
        /// Whether it was found inside a gzip file.
        gzip: bool,
    },
    /// A gzip file that does not decompress, or decompresses past the
    /// input limit (or a plain file that grew past it as it was read).
    #[error("cannot read `{origin}`: {reason}")]
    Gzip {
        /// The file, or a name for bytes given directly.
        origin: String,
        /// What went wrong (corrupt or cut stream, past the limit).
        reason: String,
        /// The limit, when it was reached (a gzip bomb).
        past_limit: Option<u64>,
    },
    /// A JSON object whose first bytes hold none of the keys that name a
    /// format (a trace whose `traceEvents` comes after a long first value).
    #[error(
        "`{origin}` is a JSON object whose first {inspected} bytes hold the keys {} but \
         no `traceEvents` (a trace) nor the keys of any other input we read",
        quoted(keys)
    )]
    UnrecognisedJson {
        /// The file, or a name for bytes given directly.
        origin: String,
        /// The top-level keys seen, in order (at most 12).
        keys: Vec<String>,
        /// Bytes inspected.
        inspected: usize,
    },
    /// No format recognises the input.
    #[error(
        "`{origin}` is not a profile, Nsight Compute CSV or Nsight Systems kernel summary, \
         nor any other input we read (it starts with `{start}`)"
    )]
    Unrecognised {
        /// The file, or a name for bytes given directly.
        origin: String,
        /// Its first characters.
        start: String,
    },
    /// Valid JSON of the recognised format with a field of the wrong shape.
    #[error("malformed {format} `{origin}` at line {line}, column {column}: {message}")]
    Malformed {
        /// The format's name in words.
        format: &'static str,
        /// The file, or a name for bytes given directly.
        origin: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A saved profile that does not read.
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// A parity profile or trace that does not read.
    #[error(transparent)]
    Parity(#[from] ParityError),
    /// An execution trace that does not read.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// An Nsight export that does not read.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// A step-profiler log or scorecard that does not read.
    #[error("`{origin}`: {source}")]
    Scorecard {
        /// The file, or a name for bytes given directly.
        origin: String,
        /// What is wrong.
        source: ScorecardError,
    },
}

impl InputError {
    /// A serde_json error of `format` as [`InputError::Malformed`].
    pub(crate) fn json(format: &'static str, origin: &str, e: &serde_json::Error) -> Self {
        Self::Malformed {
            format,
            origin: origin.to_owned(),
            line: e.line(),
            column: e.column(),
            message: crate::base::json::message(e),
        }
    }
}

/// Keys as `` `a`, `b` ``, or `none` (each escaped for a terminal).
fn quoted(keys: &[String]) -> String {
    if keys.is_empty() {
        return "none".to_owned();
    }
    keys.iter()
        .map(|k| format!("`{}`", crate::base::escape::visible(k)))
        .collect::<Vec<_>>()
        .join(", ")
}
