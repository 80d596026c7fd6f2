//! Tile timers for cache-blocked kernels: one hidden slot per tile level,
//! recorded through the same per-thread cells as bricks. While tile
//! profiling is off, `start_tile` and `stop_tile` cost one relaxed load and
//! a branch each, like a disabled `#[brick]`.

use std::sync::OnceLock;

use crate::kernel_data::{TileLevel, TileStats, TileTimer};
use crate::record::amounts::{Amounts, NO_LAYER};
use crate::record::guard::record_finished;
use crate::record::site::intern_hidden;
use crate::record::state::{self, RAW_CLOCK, TILES};
use crate::record::thread::current_layer;

/// The hidden slot of each level, interned on first use.
pub(crate) fn tile_slots() -> [u32; TileLevel::COUNT] {
    static SLOTS: OnceLock<[u32; TileLevel::COUNT]> = OnceLock::new();
    *SLOTS.get_or_init(|| {
        [
            intern_hidden("__tile_macro"),
            intern_hidden("__tile_midi"),
            intern_hidden("__tile_micro"),
        ]
    })
}

/// Starts timing one tile at (`row`, `col`) of `level`. Disarmed (records
/// nothing) unless the profiler records and tile profiling is on
/// (`Config::tile_profiling`).
///
/// ```
/// # use profiler_core as profiler;
/// use profiler::kernel::{TileLevel, start_tile, stop_tile};
/// profiler::Config::new().tile_profiling(true).enable();
/// for (row, col) in [(0, 0), (0, 1)] {
///     let tile = start_tile(TileLevel::Micro, row, col);
///     // the inner blocked loop over this tile
///     stop_tile(tile, 64 * 64, 2 * 64 * 64 * 64);
/// }
/// let tiles = profiler::snapshot().tiles;
/// assert_eq!(tiles.iter().find(|t| t.level == TileLevel::Micro).map(|t| t.count), Some(2));
/// # profiler::Config::new().tile_profiling(false).apply();
/// # profiler::disable();
/// ```
#[inline(always)]
#[must_use = "the tile is timed until passed to `stop_tile`"]
pub fn start_tile(level: TileLevel, row: u32, col: u32) -> TileTimer {
    let state = state::load();
    if state & TILES != 0 && state::is_recording(state) {
        TileTimer::armed(level, row, col, crate::clock::now(state & RAW_CLOCK != 0))
    } else {
        TileTimer::disarmed(level, row, col)
    }
}

/// Stops a tile timer and records the tile with the `elements` it
/// processed and the `flops` it performed (nothing for a disarmed timer).
#[inline(always)]
pub fn stop_tile(timer: TileTimer, elements: u64, flops: u64) {
    if timer.start().is_some() {
        stop(timer, elements, flops, 0);
    }
}

/// [`stop_tile`] with the cache misses the tile caused (e.g. read from
/// hardware counters around it).
#[inline(always)]
pub fn stop_tile_with_misses(timer: TileTimer, elements: u64, flops: u64, cache_misses: u64) {
    if timer.start().is_some() {
        stop(timer, elements, flops, cache_misses);
    }
}

#[inline(never)]
fn stop(timer: TileTimer, elements: u64, flops: u64, cache_misses: u64) {
    let state = state::load();
    let end = crate::clock::now(state & RAW_CLOCK != 0);
    let Some(ticks) = timer.elapsed(end) else {
        return;
    };
    let amounts = Amounts {
        elements,
        // A tile's cell keeps its cache misses where a brick keeps bytes.
        bytes: cache_misses,
        flops,
        layer: NO_LAYER,
    };
    let slot = tile_slots()[timer.level().index()];
    record_finished(
        state,
        slot,
        end.saturating_sub(ticks),
        ticks,
        amounts,
        current_layer(),
    );
}

/// Tile statistics of `level` from its slot's merged cell (ticks already
/// converted to ns by `ns`).
pub(crate) fn tile_stats(
    level: TileLevel,
    count: u64,
    (total_ns, min_ns, max_ns): (u64, u64, u64),
    (elements, cache_misses, flops): (u64, u64, u64),
) -> TileStats {
    TileStats {
        level,
        count,
        total_ns,
        min_ns,
        max_ns,
        total_elements: elements,
        cache_misses,
        total_flops: flops,
    }
}
