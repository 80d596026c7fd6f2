//! Kernel-level tools: tile statistics for cache-blocked kernels, output
//! checksums that locate where two runs diverge, a PTX registry, and an
//! execution graph of bricks, kernel launches and transfers.
//!
//! Pure data structures: nothing here reads the clock or the global
//! profiler state; the runtime feeds them and a snapshot carries them.

mod checksum;
mod divergence;
mod graph;
mod ptx;
mod tile;
mod tile_table;
mod tile_timer;

pub use checksum::{
    CHECKSUM_FLOATS, ChecksumLog, DEFAULT_CHECKSUM_CAPACITY, FNV_OFFSET_BASIS, FNV_PRIME,
    KernelChecksum, fnv1a_64, fnv1a_f32_checksum,
};
pub use divergence::{DivergenceInfo, DivergenceReport, compare_checksums, find_divergence};
pub use graph::{
    CriticalPath, DEFAULT_EDGE_WEIGHT, DEFAULT_GRAPH_EDGES, DEFAULT_GRAPH_NODES, EdgeKind,
    ExecutionGraph, GraphCounters, GraphEdge, GraphError, GraphLimits, GraphNode, GraphSchedule,
    KernelNode, NodeId, NodeKind, PingPong, PingPongConfig, ScopeError, ScopeHandle,
    TransferDirection, TransferNode,
};
pub use ptx::{PtxEntry, PtxRegistry, ptx_hash};
pub use tile::{TILE_ELEMENT_BYTES, TileLevel, TileStats, UnknownTileLevel};
pub use tile_table::TileTable;
pub use tile_timer::TileTimer;
