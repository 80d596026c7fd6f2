//! The analysis floor: each report's computation from the model's data
//! (scorecard, rooflines, parity, diffs, traces, contracts, kernel tools,
//! fleets), with the renderings of its own result. Each module is public
//! at the crate root (`profiler_report::parity`, ...), and only there.

pub mod contracts;
pub mod diff;
pub mod fleet;
pub mod kernel;
pub mod parity;
pub mod roofline;
mod run;
pub mod scorecard;
pub mod straggler;
pub mod trace;
