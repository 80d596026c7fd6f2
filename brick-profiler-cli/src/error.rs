//! Exit statuses and [`CliError`]: every failure names the file (or tool)
//! and the problem, and maps to the exit status CI scripts test.

use std::process::ExitCode;

use profiler_report::input::InputError;
use profiler_report::input::nsight::ImportError;

/// What a run ended with; the discriminant is the process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// The report was produced and every check passed.
    Ok = 0,
    /// A check failed: a regression, a contract not passed, a parity gap
    /// (with `--require-parity`).
    CheckFailed = 1,
    /// Bad usage or input: a missing, unreadable or malformed file, an
    /// unknown preset or contract, options that do not fit the input.
    Input = 2,
    /// An external profiler (`ncu`, `nsys`) is missing, failed or could not
    /// read the GPU counters.
    Tool = 3,
    /// An output file could not be written.
    Output = 4,
}

impl Status {
    pub(crate) fn exit_code(self) -> ExitCode {
        ExitCode::from(self as u8)
    }
}

/// A failure, with the status it exits with.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// Bad usage or input.
    #[error("{0}")]
    Input(String),
    /// An external profiler failed.
    #[error("{0}")]
    Tool(String),
    /// An output could not be written.
    #[error("{0}")]
    Output(String),
}

impl CliError {
    pub(crate) fn status(&self) -> Status {
        match self {
            Self::Input(_) => Status::Input,
            Self::Tool(_) => Status::Tool,
            Self::Output(_) => Status::Output,
        }
    }

    /// An input error from anything that displays.
    pub(crate) fn input(e: impl std::fmt::Display) -> Self {
        Self::Input(e.to_string())
    }
}

impl From<InputError> for CliError {
    fn from(e: InputError) -> Self {
        match e {
            InputError::Import(e) => e.into(),
            other => Self::Input(other.to_string()),
        }
    }
}

impl From<ImportError> for CliError {
    fn from(e: ImportError) -> Self {
        match e {
            ImportError::ToolNotFound { .. }
            | ImportError::Spawn { .. }
            | ImportError::ToolFailed { .. } => Self::Tool(e.to_string()),
            ImportError::CountersRestricted { ref origin } if origin.ends_with(" run") => {
                Self::Tool(e.to_string())
            }
            ImportError::SeveralReports { .. } => Self::Input(format!(
                "{e}: `--report N` for every input, or `FILE#N` for one"
            )),
            other => Self::Input(other.to_string()),
        }
    }
}
