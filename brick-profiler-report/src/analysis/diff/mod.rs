//! Diffing a run against baselines measure by measure: [`compute_diff`]
//! compares the per-call times of [`RunSummary`](crate::model::run::RunSummary)s
//! (latency histograms, individual launches, or Nsight Systems' moments),
//! the step times and the per-step throughput. Each measure gets an
//! interval for its relative change and a [`Change`]: a regression only
//! when the whole interval lies beyond the threshold, raised to a noise
//! floor of 1.5 times the baselines' own spread when there are several. On a
//! shared machine a wait for a core only adds time, so with enough calls
//! each side's fastest fifth is compared. Memory per brick (bytes
//! and allocations per call, peak bytes) is compared too. Renderers for
//! people (text, Markdown for a pull request, JSON) and for CI tools
//! (Bencher Metric Format, github-action-benchmark, JUnit XML).
//!
//! ```
//! use profiler_report::{diff::compute_diff, run::RunSummary};
//! let p = profiler::Profile::empty();
//! let d = compute_diff(
//!     &[RunSummary::from_profile(&p, "main")],
//!     &RunSummary::from_profile(&p, "branch"),
//!     &Default::default(),
//! );
//! assert!(!d.regressed(false));
//! assert!(!d.has_verdict(), "nothing to judge: no verdict, which fails a gate");
//! ```

mod ci;
mod compute;
mod floor;
mod interval;
mod judge;
mod memory;
mod model;
mod render;
mod stats;

pub use compute::compute_diff;
pub use memory::{ALLOCATIONS_FLOOR, BYTES_FLOOR};
pub use model::{Change, Criteria, CriteriaError, MemoryDiff, Metric, ProfileDiff, RowDiff};
