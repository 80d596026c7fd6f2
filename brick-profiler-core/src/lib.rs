//! Runtime of the brick profiler.
//!
//! One global profiler, off by default. Annotated calls (`#[brick]` from the
//! `profiler` facade) record into per-thread storage with no allocation, no
//! lock and no string work; [`snapshot`] merges everything into a
//! [`Profile`] that reports read, live or from disk.
//!
//! Most users depend on the `profiler` facade, which re-exports this crate
//! together with the `#[brick]` and `#[trace_op]` macros.
//!
//! The root holds what a run needs: [`enable`]/[`disable`]/[`reset`]/
//! [`snapshot`], [`step`]/[`phase`]/[`layer`] scopes, [`Config`], and the
//! [`Profile`] with its statistics. Specialised parts live in modules:
//! [`sync`] (GPU sync modes, device timers, deferred records), [`trace`]
//! (`#[trace_op]` entries and the trace-mode timeline), [`profile`] and
//! [`stats`] (the data a snapshot holds), [`kernel`] (tile timing, output
//! checksums and divergence, the execution graph), [`compat`] (the string
//! API), [`dynamic`] (bricks whose call sites are made at run time, such as
//! the spans of another instrumentation library), [`fs`] (atomic writes of
//! reports and profiles), [`alloc`] (the tracking allocator and device
//! memory: bytes per brick and step).

mod catalogue;
mod clock;
mod context;
mod contract;
mod control;
mod counter;
mod kernel_data;
mod level;
mod overhead;
mod record;
mod sentinel;
mod snapshot;
mod tools;

pub mod alloc;
pub mod budget;
pub mod compat;
pub mod dynamic;
pub mod fs;
pub mod hardware;
pub mod profile;
pub mod stats;
pub mod sync;
pub mod trace;

/// Kernel-level tools: tile timing for cache-blocked loops, output
/// checksums that find where two runs (a reference and a fast kernel, CPU
/// and GPU, two commits) diverge, and the execution graph of bricks,
/// kernel launches and transfers with its critical path.
///
/// Tiles and the graph are off by default (`Config::tile_profiling`,
/// `Config::execution_graph`); a `Profile` carries what they recorded in
/// `tiles`, `checksums`, `graph` and `ptx`.
pub mod kernel {
    pub use crate::context::launch::{
        BrickPath, LaunchContext, MAX_PATH, brick_name, launch_context,
    };
    pub use crate::kernel_data::{
        CHECKSUM_FLOATS, ChecksumLog, CriticalPath, DEFAULT_CHECKSUM_CAPACITY, DEFAULT_EDGE_WEIGHT,
        DEFAULT_GRAPH_EDGES, DEFAULT_GRAPH_NODES, DivergenceInfo, DivergenceReport, EdgeKind,
        ExecutionGraph, FNV_OFFSET_BASIS, FNV_PRIME, GraphCounters, GraphEdge, GraphError,
        GraphLimits, GraphNode, GraphSchedule, KernelChecksum, KernelNode, NodeId, NodeKind,
        PingPong, PingPongConfig, PtxEntry, PtxRegistry, ScopeError, ScopeHandle,
        TILE_ELEMENT_BYTES, TileLevel, TileStats, TileTable, TileTimer, TransferDirection,
        TransferNode, UnknownTileLevel, compare_checksums, find_divergence, fnv1a_64,
        fnv1a_f32_checksum, ptx_hash,
    };
    pub use crate::tools::checksums::record_checksum;
    pub use crate::tools::graph::{
        depends_on, record_kernel_launch, record_transfer, register_ptx, set_node_timing,
    };
    pub use crate::tools::tiles::{start_tile, stop_tile, stop_tile_with_misses};
}

/// Items used by generated code. Not public API.
#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use catalogue::{BrickCategory, BrickId};
pub use context::counter::counter;
pub use context::layer::{LayerGuard, in_layer, layer};
pub use context::phase::{PhaseGuard, in_phase, phase};
pub use context::step::{StepGuard, in_step, step};
pub use control::{Config, disable, enable, is_enabled, reset, snapshot};
pub use profile::data::Profile;
pub use profile::layer::Direction;
pub use profile::steps::Schedule;
pub use record::rank::rank_identity;
pub use stats::brick::BrickStats;
pub use stats::category::CategoryStats;
