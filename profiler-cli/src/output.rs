//! Where reports go: the output format flag, and writing text to stdout or
//! atomically to a file.

use std::io::Write as _;
use std::path::Path;

use clap::ValueEnum;

use crate::error::CliError;

/// Output format of text reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub(crate) enum Format {
    /// Aligned text for a terminal.
    #[default]
    Table,
    /// GitHub-flavoured Markdown (CI job summaries, PR comments).
    Markdown,
    /// Pretty JSON for scripts.
    Json,
}

/// Writes `text` to `path` atomically, or to stdout without one.
pub(crate) fn emit(text: &str, path: Option<&Path>) -> Result<(), CliError> {
    match path {
        Some(path) => write_file(path, text.as_bytes()),
        None => {
            let mut out = std::io::stdout().lock();
            let written = out.write_all(text.as_bytes()).and_then(|()| {
                if text.ends_with('\n') {
                    Ok(())
                } else {
                    out.write_all(b"\n")
                }
            });
            match written.and_then(|()| out.flush()) {
                // A closed pipe (`| head`) is the reader's choice, not a failure.
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(CliError::Output(format!("cannot write to stdout: {e}")))
                }
                _ => Ok(()),
            }
        }
    }
}

/// Writes `bytes` to `path` atomically (temporary file, then rename).
pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    profiler_core::fs::write_atomic(path, bytes)
        .map_err(|e| CliError::Output(format!("cannot write `{}`: {e}", path.display())))
}
