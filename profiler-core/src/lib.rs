//! Runtime of the brick profiler.
//!
//! One global profiler, off by default. Annotated calls (`#[brick]` from the
//! `profiler` facade) record into per-thread storage with no allocation, no
//! lock and no string work; [`snapshot`] merges everything into a
//! [`Profile`] that reports read, live or from disk.
//!
//! ```
//! # use profiler_core as profiler;
//! use profiler::{BrickId, start_brick, stop_brick};
//! profiler::enable();
//! let timer = start_brick(BrickId::RmsNorm);
//! stop_brick(timer, 4096);
//! let profile = profiler::snapshot();
//! assert_eq!(profile.brick("RmsNorm").map(|b| b.count), Some(1));
//! # profiler::disable();
//! ```
//!
//! Most users depend on the `profiler` facade, which re-exports this crate
//! together with the `#[brick]` and `#[trace_op]` macros.

mod catalogue;
mod clock;
mod control;
mod histogram;
mod layers;
mod legacy;
mod overhead;
mod profile;
mod record;
mod registry;
mod scope;
mod session;
mod site;
mod slab;
mod snapshot;
mod state;
mod stats;
mod summary;
mod sync;
mod timeline;
mod trace;

pub use catalogue::{BrickBottleneck, BrickCategory, BrickId, UnknownBrick};
pub use clock::ClockSource;
pub use control::{
    disable, enable, is_enabled, is_trace_mode, reset, set_brick_bottleneck, set_hardware,
    set_l2_cache_hit_rate, set_rank, set_run_name, set_trace_capacity, set_trace_mode,
    set_zero_copy, snapshot,
};
pub use histogram::{HistBucket, LatencyHistogram};
pub use layers::{Direction, LayerGuard, LayerOp, LayerStats, MAX_LAYER_INDEX, in_layer, layer};
pub use legacy::{
    BrickIdTimer, BrickTimer, all_brick_stats, brick_names, record_elapsed,
    record_elapsed_with_bytes, start, start_brick, stats, stop, stop_brick,
};
pub use overhead::{calibrate_overhead, overhead, set_subtract_overhead};
pub use profile::{
    CategoryEntry, ClockInfo, Counters, HardwareInfo, Overhead, PhaseStats, Profile, ProfileError,
    RunInfo, SCHEMA_VERSION, StepSummary, ThreadInfo, write_atomic,
};
pub use record::{IntoCount, IntoLayerIndex};
pub use registry::registered_sites;
pub use session::{
    PhaseGuard, Schedule, StepGuard, TRAINING_PHASES, in_phase, in_step, phase, set_schedule, step,
};
pub use site::SiteInfo;
pub use stats::{BrickStats, CategoryStats, CycleDiagnosis};
pub use sync::{
    CpuEventTimer, DEFAULT_PENDING_CAPACITY, DeviceEvent, DeviceTimer, SyncMode,
    clear_device_timer, clear_sync_hook, elapsed_ns, finalize, has_pending, pending_count,
    record_deferred, record_deferred_dynamic, reset_epoch, set_device_timer, set_pending_capacity,
    set_sync_hook, set_sync_mode, sync_mode,
};
pub use timeline::{EventKind, ThreadTimeline, Timeline, TimelineEvent};
pub use trace::{
    DEFAULT_ELEMENT_SIZE, DEFAULT_TRACE_ENTRY_CAPACITY, RecordedExecutionTrace, RecordedTraceEntry,
    TensorShape, TraceRecorder, set_trace_entry_capacity,
};

/// Items used by code that `#[brick]` and `#[trace_op]` generate.
///
/// Not public API: anything here may change in any release.
#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;
