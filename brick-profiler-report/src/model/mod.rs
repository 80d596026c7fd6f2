//! The data readers produce and analyses take: a trainer's step-profiler
//! line, saved scorecards, Chrome traces as nested events and the run
//! summary diff, parity and fleet read (public as `profiler_report::run`),
//! with the errors of reading them, and the hardware model (public as
//! `profiler_report::hardware`). No analysis; every other type is public at
//! the report module that uses it (`parity`, `scorecard`, `trace`).

pub(crate) mod chrome_trace;
pub mod hardware;
pub(crate) mod nsight;
pub(crate) mod parity_error;
pub mod run;
pub(crate) mod saved_scorecard;
pub(crate) mod scorecard_error;
pub(crate) mod step;
pub(crate) mod trace_error;
pub(crate) mod trace_meta;

pub(crate) use trace_meta::{TraceDevice, TraceRank};
