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

/// Writes `text` to `path` atomically, or to stdout without one (or with
/// `-` or `/dev/stdout`), ending it with a newline there.
pub(crate) fn emit(text: &str, path: Option<&Path>) -> Result<(), CliError> {
    match path.filter(|p| !is_stdout(p)) {
        Some(path) => write_file(path, text.as_bytes()),
        None if text.ends_with('\n') => write_stdout(text.as_bytes()),
        None => write_stdout(format!("{text}\n").as_bytes()),
    }
}

/// Writes `bytes` to `path` atomically (temporary file, then rename); a
/// device or FIFO is written in place, and `-` or `/dev/stdout` is stdout.
pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    if is_stdout(path) {
        return write_stdout(bytes);
    }
    profiler_core::fs::write_atomic(path, bytes)
        .map_err(|e| CliError::Output(format!("cannot write `{}`: {e}", path.display())))
}

/// Whether `-o` names standard output. `/dev/stdout` is taken literally too:
/// opened by path it is a link to a pipe or a file that the shell owns, and
/// writing through our own handle is what the user meant.
fn is_stdout(path: &Path) -> bool {
    path == Path::new("-") || path == Path::new("/dev/stdout")
}

fn write_stdout(bytes: &[u8]) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        // A closed pipe (`| head`) is the reader's choice, not a failure.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::Output(format!("cannot write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}
