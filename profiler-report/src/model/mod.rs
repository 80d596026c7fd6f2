//! The data readers produce and analyses take: a trainer's step-profiler
//! line, saved scorecards, parity profiles, Chrome traces as nested events
//! and diff inputs, with the errors of reading them, and the hardware model
//! (public as `profiler_report::hardware`). No analysis; each type is
//! public at the report module that uses it (`diff`, `parity`, `scorecard`,
//! `trace`).

pub(crate) mod chrome_trace;
pub(crate) mod diff;
pub mod hardware;
pub(crate) mod nsight;
pub(crate) mod parity;
pub(crate) mod parity_error;
pub(crate) mod saved_scorecard;
pub(crate) mod scorecard_error;
pub(crate) mod step;
pub(crate) mod trace_error;
pub(crate) mod trace_meta;

pub(crate) use trace_meta::{TraceDevice, TraceRank};
