//! Kernel-level tools: tile statistics for cache-blocked kernels, output
//! checksums that locate where two runs diverge.
//!
//! Pure data structures: nothing here reads the clock or the global
//! profiler state; the runtime feeds them and a snapshot carries them.

mod checksum;
mod divergence;
mod tile;
mod tile_table;

pub use checksum::{
    CHECKSUM_FLOATS, ChecksumLog, DEFAULT_CHECKSUM_CAPACITY, FNV_OFFSET_BASIS, FNV_PRIME,
    KernelChecksum, fnv1a_64, fnv1a_f32_checksum,
};
pub use divergence::{DivergenceInfo, DivergenceReport, compare_checksums, find_divergence};
pub use tile::{TILE_ELEMENT_BYTES, TileLevel, TileStats, TileTimer, UnknownTileLevel};
pub use tile_table::{TileSummary, TileSummaryRow, TileTable};
