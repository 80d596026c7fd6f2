//! The analysis floor: each report's computation from the model's data
//! (scorecard, rooflines, parity, diffs, traces, contracts, kernel tools,
//! fleets), with the renderings of its own result. Each module is also at
//! the crate root (`profiler_report::parity`, ...).

pub mod contract;
pub mod diff;
pub mod fleet;
pub mod kernel;
pub mod parity;
pub mod roofline;
pub mod straggler;
pub mod trace;
pub mod training;
