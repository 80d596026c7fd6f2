//! Diffing two runs brick by brick: [`compute_diff`] compares per-call
//! times (latency histograms, individual launches, or Nsight Systems'
//! moments) and the step times, and flags a change only when it is beyond
//! the threshold, significant and above the old run's noise floor, as the
//! scorecard's regressions do.
//!
//! ```
//! use profiler_report::diff::{DiffInput, compute_diff};
//! let p = profiler::Profile::empty();
//! let d = compute_diff(
//!     &DiffInput::from_profile(&p, "old"),
//!     &DiffInput::from_profile(&p, "new"),
//!     &Default::default(),
//! );
//! assert!(!d.regressed(false));
//! ```

mod compute;
mod input;
mod model;
mod render;
mod stats;

pub use compute::compute_diff;
pub use input::{DiffEntry, DiffInput, Distribution};
pub use model::{Criteria, ProfileDiff, RowDiff, ShiftTest, Verdict};
