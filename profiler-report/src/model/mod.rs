//! The data readers produce and analyses take: a trainer's step-profiler
//! line, saved scorecards, Chrome traces as nested events and run summaries
//! (what diff and parity read), with the errors of reading them, and the
//! hardware model ([`hardware`], also at `profiler_report::hardware`). No
//! analysis.

pub(crate) mod chrome_trace;
pub mod hardware;
pub(crate) mod parity_error;
pub(crate) mod run;
pub(crate) mod saved_scorecard;
pub(crate) mod scorecard_error;
pub(crate) mod step;
pub(crate) mod trace_error;
pub(crate) mod trace_meta;

pub use chrome_trace::ChromeTrace;
pub use parity_error::ParityError;
pub use run::{Clock, Distribution, OpSummary, RunSummary};
pub use saved_scorecard::SavedScorecard;
pub use scorecard_error::ScorecardError;
pub use step::{PerLayerData, PhaseData, StepProfilerInput};
pub use trace_error::TraceError;
pub use trace_meta::{TraceDevice, TraceRank};
