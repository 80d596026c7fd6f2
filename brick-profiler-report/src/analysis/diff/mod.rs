//! Diffing two runs brick by brick: [`compute_diff`] compares the per-call
//! times of two [`RunSummary`](crate::model::run::RunSummary)s (latency
//! histograms, individual launches, or Nsight Systems' moments) and the
//! step times, and flags a change only when it is beyond the threshold,
//! significant and above the old run's noise floor, as the scorecard's
//! regressions do. Memory per brick (bytes and allocations per
//! call, peak bytes) is compared too, when both runs tracked it.
//!
//! ```
//! use profiler_report::{diff::compute_diff, run::RunSummary};
//! let p = profiler::Profile::empty();
//! let d = compute_diff(
//!     &RunSummary::from_profile(&p, "old"),
//!     &RunSummary::from_profile(&p, "new"),
//!     &Default::default(),
//! );
//! assert!(!d.regressed(false));
//! ```

mod compute;
mod memory;
mod model;
mod render;
mod stats;

pub use compute::compute_diff;
pub use memory::{ALLOCATIONS_FLOOR, BYTES_FLOOR};
pub use model::{Criteria, MemoryDiff, ProfileDiff, RowDiff, ShiftTest, Verdict};
