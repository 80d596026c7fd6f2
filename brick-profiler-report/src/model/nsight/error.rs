//! [`ImportError`]: what can go wrong reading an Nsight Compute or Nsight
//! Systems export, or running the tools, naming the file, line and field.

use std::path::PathBuf;

/// How to let a user read the GPU performance counters (`ERR_NVGPUCTRPERM`).
pub const COUNTER_PERMISSION_HINT: &str = "the GPU performance counters are restricted to \
administrators (ERR_NVGPUCTRPERM). Run the profiler as root (sudo), or allow all users: add \
`options nvidia NVreg_RestrictProfilingToAdminUsers=0` to a file in /etc/modprobe.d/ and reload \
the nvidia kernel module (or reboot); in a container, also pass --cap-add=SYS_ADMIN. \
See https://developer.nvidia.com/ERR_NVGPUCTRPERM";

/// Error importing a profiler export or running a profiler.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The file could not be read.
    #[error("cannot read `{}`: {source}", path.display())]
    Read {
        /// File that failed.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// The input is not text (e.g. a binary `.ncu-rep` or `.nsys-rep`).
    #[error("`{origin}` is not UTF-8 text: {hint}")]
    NotText {
        /// File or stream.
        origin: String,
        /// What to do instead.
        hint: &'static str,
    },
    /// The input is not in the expected format at all.
    #[error("`{origin}` is not {format}: {reason}")]
    NotRecognised {
        /// File or stream.
        origin: String,
        /// The format expected.
        format: &'static str,
        /// What is missing.
        reason: String,
    },
    /// A line of the input is malformed (truncated, wrong field count, bad
    /// number, inconsistent values).
    #[error("`{origin}` line {line}: {reason}")]
    Malformed {
        /// File or stream.
        origin: String,
        /// 1-based line.
        line: usize,
        /// What is wrong, naming the field.
        reason: String,
    },
    /// The input parses but holds no kernel.
    #[error("`{origin}` has no kernels: {reason}")]
    NoKernels {
        /// File or stream.
        origin: String,
        /// Why (the tool's own message when it gave one).
        reason: String,
    },
    /// The output holds several kernel summaries (several runs) and the
    /// caller asked for one.
    #[error(
        "`{origin}` holds {} kernel summaries, one per run: {}; pick one of them by its \
         number (1 to {})",
        reports.len(),
        reports.iter().enumerate().map(|(i, r)| format!("#{} at {r}", i + 1)).collect::<Vec<_>>().join(", "),
        reports.len()
    )]
    SeveralReports {
        /// File or stream.
        origin: String,
        /// Each summary: its line, run and kernel count.
        reports: Vec<String>,
    },
    /// The tool's capture failed: its output holds an `==ERROR==` line and
    /// no data.
    #[error(
        "`{origin}` line {line}: the capture failed, the tool reported `{message}`; no kernel was profiled"
    )]
    CaptureFailed {
        /// File or stream.
        origin: String,
        /// 1-based line of the first `==ERROR==` line.
        line: usize,
        /// That line, as the tool printed it.
        message: String,
    },
    /// Nsight Compute's human-readable output (ncu without `--csv`): its
    /// `Section:` tables are not read.
    #[error(
        "`{origin}` is Nsight Compute's human-readable output ({launches} kernel launch(es) in \
         `Section:` tables), which is not read: rerun ncu with `--csv` (`ncu --csv --page details \
         ...`, or `--page raw` for every metric), or export a saved report with `ncu --import \
         REPORT.ncu-rep --csv --page details`"
    )]
    NotCsv {
        /// File or stream.
        origin: String,
        /// Launches the output shows (`Section: GPU Speed Of Light` tables).
        launches: usize,
    },
    /// ncu wrote its results to a report file and printed no table.
    #[error(
        "`{origin}` line {line}: ncu saved its results to `{report}` and printed no table: export \
         them with `ncu --import {report} --csv --page details` (or `--page raw` for every metric)"
    )]
    SavedToReport {
        /// File or stream.
        origin: String,
        /// 1-based line of `==PROF== Report: ...`.
        line: usize,
        /// The report file it names.
        report: String,
    },
    /// The profiler could not read the performance counters.
    #[error("`{origin}`: {COUNTER_PERMISSION_HINT}")]
    CountersRestricted {
        /// File or tool run.
        origin: String,
    },
    /// The tool is not on `PATH`.
    #[error("`{tool}` was not found on PATH: {hint}")]
    ToolNotFound {
        /// Tool name.
        tool: String,
        /// Where to get it.
        hint: &'static str,
    },
    /// The tool could not be started.
    #[error("cannot run `{}`: {source}", program.display())]
    Spawn {
        /// Program run.
        program: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// The tool ran and failed.
    #[error("`{tool}` failed ({status}){}", if output.is_empty() { String::new() } else { format!(":\n{output}") })]
    ToolFailed {
        /// Tool name.
        tool: String,
        /// Exit status, as the OS describes it.
        status: String,
        /// The end of its output.
        output: String,
    },
    /// An option does not fit the input.
    #[error("{option}: {reason}")]
    InvalidOption {
        /// The option.
        option: String,
        /// Why it does not apply.
        reason: String,
    },
}

impl ImportError {
    /// `origin` line `line`: `reason`.
    pub(crate) fn malformed(origin: &str, line: usize, reason: impl Into<String>) -> Self {
        Self::Malformed {
            origin: origin.to_owned(),
            line,
            reason: reason.into(),
        }
    }
}

/// Reads `path` as UTF-8 text; `hint` says what to do with a binary file.
pub(crate) fn read_text(path: &std::path::Path, hint: &'static str) -> Result<String, ImportError> {
    use crate::base::user_file::{self, Refusal};
    user_file::read_text(path).map_err(|r| match r {
        Refusal::NotText { .. } => ImportError::NotText {
            origin: path.display().to_string(),
            hint,
        },
        other => ImportError::Read {
            path: path.to_path_buf(),
            source: other.into_io(),
        },
    })
}
