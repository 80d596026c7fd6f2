//! [`Profile`]: the versioned, serialisable snapshot every report reads,
//! and the data types it is made of.
//!
//! A profile is plain data. It round-trips through JSON, is written
//! atomically, and a reader rejects a newer major schema with a clear error
//! while filling missing optional fields with defaults.

mod aggregates;
mod ceilings;
mod counters;
mod data;
pub(crate) mod identity;
mod io;
mod layer;
mod memory;
mod run;
mod sites;
mod steps;
mod timeline;
mod trace;
mod valid;

pub use crate::clock::ClockSource;
pub use crate::level::{BrickLevel, UnknownBrickLevel};
pub use aggregates::ProfileSummary;
pub use ceilings::{BandwidthCeiling, CacheSize, Contention, FlopsCeiling, MeasuredCeilings};
pub use counters::Counters;
pub use data::{CategoryEntry, Profile, SCHEMA_VERSION};
pub use identity::{IdentitySource, RankIdentity};
pub use io::ProfileError;
pub use layer::{Direction, LayerOp, LayerStats, MAX_LAYER_INDEX};
pub use memory::{
    BrickMemory, LayerMemory, MemoryKind, MemoryProfile, MemorySample, OutsideMemory, PhaseMemory,
    ScopeMemory, StepMemory,
};
pub use run::{ClockInfo, LaunchGap, Overhead, RunInfo, SyncMode, ThreadInfo};
pub use sites::SiteInfo;
pub(crate) use steps::StepRole;
pub use steps::{PhaseStats, Schedule, StepSummary, TRAINING_PHASES};
pub use timeline::{
    CounterSample, CounterTrack, DeviceStart, EventKind, ThreadTimeline, Timeline, TimelineEvent,
};
pub use trace::{DEFAULT_ELEMENT_SIZE, RecordedExecutionTrace, RecordedTraceEntry, TraceRecorder};
pub use valid::InvalidValue;
