//! What the Nsight readers produce: an `ncu --csv` export's launches and
//! metrics ([`NcuReport`]), an `nsys stats` kernel summary
//! ([`NsysReport`]), one imported launch with every section the reports
//! derive from it ([`FullProfile`]), and the readers' error
//! ([`ImportError`]). Public at `profiler_report::input::nsight`.

mod error;
mod full;
mod ncu;
mod nsys;

pub(crate) use error::read_text;
pub use error::{COUNTER_PERMISSION_HINT, ImportError};
pub use full::{
    ComputeSection, FULL_PROFILE_VERSION, FullProfile, HardwareSection, KernelSection, LevelPoint,
    MemorySection, RooflineSection, SourceSection, Sourced, ThroughputSection, TimingSection,
};
pub(crate) use ncu::FORMAT as NCU_FORMAT;
pub use ncu::{NcuKernel, NcuLayout, NcuMetric, NcuReport};
pub use nsys::{NsysForm, NsysKernel, NsysReport};
