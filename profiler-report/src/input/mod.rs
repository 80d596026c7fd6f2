//! Inputs, one layer of the library: every file format the reports read,
//! each a [`Format`] in its own file, listed once in [`registry()`]. [`open`]
//! tells a file's format from its first bytes and reads it into an [`Input`].
//!
//! ```no_run
//! use profiler_report::input::{self, Input};
//! match input::open("run.json")? {
//!     Input::Profile(p) => println!("{} bricks", p.bricks.len()),
//!     other => println!("{}", other.what()),
//! }
//! # Ok::<(), profiler_report::input::InputError>(())
//! ```
//!
//! Reading is bounded: devices, FIFOs and sockets are refused, as are files
//! past [`MAX_INPUT_BYTES`] (4 GiB); a gzip file is decompressed as it is
//! read, and what it holds counts against the same limit; only the first
//! [`SNIFF_BYTES`] (64 KiB) are inspected before the format is known, and no format holds a whole
//! document as an untyped JSON tree. Nsight Compute and Nsight Systems
//! exports are read by the importers of [`nsight`].

mod binary;
mod chrome_batch;
mod chrome_dims;
mod chrome_events;
mod chrome_raw;
mod chrome_stream;
mod chrome_texts;
mod chrome_trace;
mod chrome_window;
mod error;
mod execution_trace;
mod file;
mod format;
mod full_profiles;
mod kineto_meta;
mod ncu_csv;
pub mod nsight;
mod nsys_stats;
mod open;
mod parity_json;
mod profile;
mod pytorch_trace;
mod registry;
mod scorecard_baseline;
mod sniff;
mod step_log;
mod step_parse;
mod trace_read;

pub use crate::base::user_file::{format_extension, open_file, open_reader, read_to_string};
pub use chrome_texts::OTHER_NAMES;
#[cfg(test)]
pub(crate) use chrome_texts::TextLimits;
pub use chrome_trace::ChromeTraceFormat;
pub use error::InputError;
pub use execution_trace::ExecutionTraceFormat;
pub use file::read_text;
pub use format::{Format, Input, Source};
pub use full_profiles::FullProfilesFormat;
pub use ncu_csv::NcuCsvFormat;
pub use nsys_stats::NsysStatsFormat;
pub use open::{detect, open, open_profile_summary, read_bytes};
pub use parity_json::ParityFormat;
pub use profile::ProfileFormat;
pub use pytorch_trace::PytorchTraceFormat;
pub use registry::registry;
pub use scorecard_baseline::ScorecardFormat;
pub use sniff::{Head, JsonRoot, MAX_INPUT_BYTES, SNIFF_BYTES};
pub use step_log::StepLogFormat;
pub use step_parse::{
    STEP_PROFILER_TAGS, find_last_step_profiler_line, parse_last_step_profiler_line,
    parse_step_profiler_line,
};
pub use trace_read::{parse_execution_trace, read_execution_trace};
