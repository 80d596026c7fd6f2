//! Overhead benchmark of the brick profiler against the profilers people
//! use today (fastrace, hotpath, puffin, tracing) and against bare clock
//! reads.
//!
//! The bench binary (`cargo bench -p overhead-bench`) drives these modules:
//! [`subjects`] holds the measured functions, [`baseline`], [`ours`] and
//! [`rivals`] build the variants, [`variant`] runs them in interleaved
//! rounds, [`slots`] measures memory and `snapshot()` in a child process,
//! and [`report`] prints the table, the targets and the JSON file.

pub mod baseline;
pub mod measure;
pub mod ours;
pub mod report;
pub mod rivals;
pub mod slots;
pub mod subjects;
pub mod team;
pub mod variant;
