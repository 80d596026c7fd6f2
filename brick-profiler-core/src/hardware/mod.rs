//! [`Hardware`]: the one model of a machine. Compute ceilings per
//! precision, bandwidth ceilings per memory level, cache sizes and the bytes
//! a token moves, each a [`Figure`] that says where it came from. A profile
//! records its machine in this form (`RunInfo::hardware`) and every report
//! judges against it; the preset table, hardware files and probes that build
//! one live in `brick-profiler-report`.

mod earlier_ceilings;
mod figure;
mod legacy;
mod measurement;
mod model;
mod units;

pub(crate) use earlier_ceilings::EarlierCeilings;
pub use figure::{Figure, Source};
pub(crate) use legacy::recorded_hardware;
pub use measurement::{Measurement, ProbeRun};
pub use model::{CeilingError, Hardware, MAX_BYTES_PER_TOKEN, MAX_CACHE_BYTES};
pub use units::{
    MAX_BANDWIDTH_GB_S, MAX_TFLOPS, MemoryLevel, Precision, UnitError, ceiling_problem, shown,
};
