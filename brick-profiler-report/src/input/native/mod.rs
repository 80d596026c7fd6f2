//! This project's own files: saved profiles ([`ProfileFormat`]), parity
//! profiles ([`ParityFormat`]), saved scorecards ([`ScorecardFormat`]),
//! execution traces ([`ExecutionTraceFormat`]) and a trainer's log with
//! step-profiler lines ([`StepLogFormat`]).

mod execution_trace;
mod parity;
mod profile;
mod scorecard;
mod step_log;
mod step_parse;

pub use execution_trace::{ExecutionTraceFormat, parse_execution_trace, read_execution_trace};
pub use parity::ParityFormat;
pub use profile::ProfileFormat;
pub use scorecard::ScorecardFormat;
pub use step_log::StepLogFormat;
pub use step_parse::{
    STEP_PROFILER_TAGS, find_last_step_profiler_line, parse_last_step_profiler_line,
    parse_step_profiler_line,
};
