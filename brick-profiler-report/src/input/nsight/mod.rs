//! Importers of external profilers' saved output, so week-old Nsight runs
//! get the same reports as a live one:
//!
//! - Nsight Compute `ncu --csv` (the default details page and `--page raw`):
//!   [`read_ncu_csv`] gives an [`NcuReport`]; [`NcuReport::full_profiles`]
//!   (the roofline analysis: `roofline::FullProfileOptions`) gives one
//!   [`FullProfile`] (JSON version `"2.0"`) per kernel launch, classified
//!   on the roofline of the device given or detected, with FLOPs counted,
//!   stated (a GEMM's `2n^3`) or withheld, never invented.
//! - Nsight Systems' CUDA kernel summary (`nsys stats --report
//!   cuda_gpu_kern_sum`, text or CSV): [`read_nsys_stats`] gives an
//!   [`NsysReport`].
//! - Both become a [`Profile`](profiler_core::Profile) whose bricks are
//!   kernels ([`NsysReport::to_profile`], [`full_profiles_to_profile`]) and a
//!   `RunSummary` for diffs.
//! - [`NsightTool`] runs `ncu`/`nsys` found on `PATH` (`tool.rs`), on a
//!   program or to export a binary report for `input::load`.
//! - The formats ([`NcuCsvFormat`], [`NsysStatsFormat`],
//!   [`FullProfilesFormat`]) sit beside their readers; the data they read
//!   ([`NcuReport`], [`NsysReport`], [`FullProfile`]) is the crate's model.
//!
//! ```
//! use profiler_report::input::nsight::parse_ncu_csv;
//! use profiler_report::roofline::FullProfileOptions;
//! let csv = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n\
//!            \"0\",\"void gemm<float, 128>(float const*)\",\"gpu__time_duration.sum\",\"usecond\",\"1,234.5\"\n";
//! let report = parse_ncu_csv(csv, "run.csv").unwrap();
//! let profiles = report.full_profiles(&FullProfileOptions::default()).unwrap();
//! assert_eq!(profiles[0].kernel.name, "void gemm<float, 128>(float const*)");
//! assert_eq!(profiles[0].timing.duration_ns.as_ref().unwrap().value, 1_234_500.0);
//! assert!(profiles[0].roofline.unavailable.is_some()); // no FLOPs, no device: no guess
//! ```

mod convert;
mod device;
pub(crate) mod flop_counters;
pub(crate) mod flops;
mod full_profiles;
mod metric_lookup;
pub(crate) mod ncu_aliases;
mod ncu_csv;
pub(crate) mod ncu_levels;
pub(crate) mod ncu_metrics;
mod ncu_pages;
mod nsys_rows;
mod nsys_sections;
mod nsys_stats;
mod nsys_table;
mod number;
mod tool;

pub use crate::model::nsight::{
    COUNTER_PERMISSION_HINT, ComputeSection, FULL_PROFILE_VERSION, FullProfile, HardwareSection,
    ImportError, KernelSection, LevelPoint, MemorySection, NcuKernel, NcuLayout, NcuMetric,
    NcuReport, NsysForm, NsysKernel, NsysReport, RooflineSection, SourceSection, Sourced,
    ThroughputSection, TimingSection,
};
pub use convert::{full_profiles_to_profile, full_profiles_to_run_summary};
pub use device::device_from_driver_name;
pub use flops::FlopsAssumption;
pub use full_profiles::FullProfilesFormat;
pub use ncu_csv::{
    NcuCsvFormat, first_tool_error, parse_ncu_csv, read_ncu_csv, reports_counters_restricted,
};
pub use nsys_stats::{
    NsysStatsFormat, parse_nsys_report, parse_nsys_stats, parse_nsys_stats_all, read_nsys_stats,
};
pub use tool::{NCU_METRICS, NsightTool, binary_report_tool};
