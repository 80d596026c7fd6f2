//! [`Profile`]: the versioned, serialisable snapshot every report reads,
//! and the data types it is made of.
//!
//! A profile is plain data. It round-trips through JSON, is written
//! atomically, and a reader rejects a newer major schema with a clear error
//! while filling missing optional fields with defaults.

mod aggregates;
mod counters;
pub(crate) mod data;
mod device;
mod generation;
pub(crate) mod identity;
mod io;
pub(crate) mod layer;
pub(crate) mod memory;
pub(crate) mod run;
mod sites;
pub(crate) mod steps;
pub(crate) mod timeline;
pub(crate) mod trace;
mod trace_format;
mod valid;

pub use crate::clock::ClockSource;
pub use crate::level::{BrickLevel, UnknownBrickLevel};
pub use aggregates::ProfileSummary;
pub use counters::Counters;
pub use data::{CategoryEntry, SCHEMA_VERSION};
pub use device::{
    ActivityKind, BrickKernels, DeviceKernels, KernelEvent, KernelGroup, KernelRow, LaunchGaps,
    LayerKernels, StepDevice,
};
pub use generation::{GenerationLog, GenerationPhase, MAX_GENERATION_EVENTS, TokenEvent};
// Public at the crate root (`Profile`, `Direction`, `Schedule`), in `alloc`
// (memory), `trace` (timeline, execution trace) and `sync` (`SyncMode`):
// one public path each; the names stay usable here inside the crate.
pub(crate) use data::Profile;
pub use identity::{IdentitySource, RankIdentity};
pub use io::ProfileError;
pub(crate) use layer::Direction;
pub use layer::{LayerOp, LayerStats, MAX_LAYER_INDEX};
pub(crate) use memory::{
    BrickMemory, LayerMemory, MemoryKind, MemoryProfile, MemorySample, OutsideMemory, PhaseMemory,
    ScopeMemory, StepMemory,
};
pub(crate) use run::SyncMode;
pub use run::{ClockInfo, LaunchGap, Overhead, RunInfo, ThreadInfo};
pub use sites::SiteInfo;
pub(crate) use steps::Schedule;
pub(crate) use steps::StepRole;
pub use steps::{PhaseStats, StepSummary, TRAINING_PHASES};
pub(crate) use timeline::{
    CounterSample, CounterTrack, DeviceStart, EventKind, ThreadTimeline, Timeline, TimelineEvent,
};
pub(crate) use trace::{DEFAULT_ELEMENT_SIZE, RecordedExecutionTrace, RecordedTraceEntry};
pub use trace_format::{TraceFormat, UnknownTraceFormat};
pub use valid::InvalidValue;
