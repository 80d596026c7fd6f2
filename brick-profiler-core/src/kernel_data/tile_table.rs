//! The three tile levels together: [`TileTable`] is what one thread records
//! into and a snapshot merges (the report crate renders it).

use serde::{Deserialize, Serialize};

use super::tile::{TileLevel, TileStats};
use super::tile_timer::TileTimer;

/// One [`TileStats`] per [`TileLevel`]. Fixed size and `Copy`: recording
/// into it never allocates.
///
/// Serialises as a list of the three levels; a list read back may name a
/// level twice (the entries are merged) or omit one (it stays empty).
///
/// ```
/// # use profiler_core as profiler;
/// use profiler::kernel::{TileLevel, TileTable, TileTimer};
///
/// let mut tiles = TileTable::new();
/// let timer = TileTimer::armed(TileLevel::Macro, 0, 0, 1_000); // start at t = 1000 ns
/// tiles.stop(timer, 251_000, 64 * 64, 2 * 64 * 64 * 64); // 250 µs later
/// let macro_tiles = tiles.get(TileLevel::Macro);
/// assert_eq!(macro_tiles.count, 1);
/// assert!((macro_tiles.gflops() - 2.097152).abs() < 1e-9);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Vec<TileStats>", into = "Vec<TileStats>")]
pub struct TileTable {
    stats: [TileStats; TileLevel::COUNT],
}

impl Default for TileTable {
    fn default() -> Self {
        Self::new()
    }
}

impl TileTable {
    /// A table with no samples.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            stats: [
                TileStats::new(TileLevel::Macro),
                TileStats::new(TileLevel::Midi),
                TileStats::new(TileLevel::Micro),
            ],
        }
    }

    /// Adds one sample to `level`.
    #[inline]
    pub fn record(
        &mut self,
        level: TileLevel,
        elapsed_ns: u64,
        elements: u64,
        flops: u64,
        cache_misses: u64,
    ) {
        self.stats[level.index()].add(elapsed_ns, elements, flops, cache_misses);
    }

    /// Finishes `timer` at `now_ns` (same clock as its start, in ns) and
    /// records the sample; returns whether anything was recorded (a
    /// disarmed timer records nothing).
    #[inline]
    pub fn stop(&mut self, timer: TileTimer, now_ns: u64, elements: u64, flops: u64) -> bool {
        match timer.elapsed(now_ns) {
            Some(ns) => {
                self.record(timer.level(), ns, elements, flops, 0);
                true
            }
            None => false,
        }
    }

    /// The statistics of `level`.
    #[must_use]
    pub fn get(&self, level: TileLevel) -> &TileStats {
        &self.stats[level.index()]
    }

    /// All levels, outermost first.
    pub fn iter(&self) -> impl Iterator<Item = &TileStats> {
        self.stats.iter()
    }

    /// Adds every level of `other`.
    pub fn merge(&mut self, other: &TileTable) {
        for (mine, theirs) in self.stats.iter_mut().zip(&other.stats) {
            mine.merge(theirs);
        }
    }

    /// Whether no level has a sample.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.stats.iter().all(TileStats::is_empty)
    }

    /// Forgets every sample.
    pub fn reset(&mut self) {
        *self = Self::new();
    }
}

impl From<Vec<TileStats>> for TileTable {
    fn from(list: Vec<TileStats>) -> Self {
        let mut table = Self::new();
        for stats in &list {
            table.stats[stats.level.index()].merge(stats);
        }
        table
    }
}

impl From<TileTable> for Vec<TileStats> {
    fn from(table: TileTable) -> Self {
        table.stats.to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> TileTable {
        let mut t = TileTable::new();
        t.record(TileLevel::Macro, 2_000_000, 1_048_576, 4_000_000_000, 10);
        t.record(TileLevel::Macro, 4_000_000, 1_048_576, 4_000_000_000, 30);
        t.record(TileLevel::Micro, 5_000, 4_096, 65_536, 0);
        t
    }

    #[test]
    fn record_and_stop_fill_the_level_they_name() {
        let mut t = table();
        assert_eq!(t.get(TileLevel::Macro).count, 2);
        assert!(t.get(TileLevel::Midi).is_empty());
        assert!(t.stop(TileTimer::armed(TileLevel::Midi, 0, 1, 100), 350, 64, 128));
        assert!(!t.stop(TileTimer::disarmed(TileLevel::Midi, 0, 1), 350, 64, 128));
        let midi = t.get(TileLevel::Midi);
        assert_eq!((midi.count, midi.total_ns, midi.total_flops), (1, 250, 128));
    }

    #[test]
    fn merge_adds_level_by_level() {
        let mut a = table();
        a.merge(&table());
        assert_eq!(a.get(TileLevel::Macro).count, 4);
        assert_eq!(a.get(TileLevel::Micro).total_elements, 8_192);
        assert!(a.get(TileLevel::Midi).is_empty());
        a.reset();
        assert!(a.is_empty());
    }

    #[test]
    fn serde_round_trips_and_merges_repeated_levels() {
        let t = table();
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(serde_json::from_str::<TileTable>(&json).unwrap(), t);
        let mut one = TileStats::new(TileLevel::Midi);
        one.add(10, 1, 1, 0);
        let twice: TileTable = serde_json::from_value(serde_json::json!([one, one])).unwrap();
        assert_eq!(twice.get(TileLevel::Midi).count, 2);
        assert!(twice.get(TileLevel::Macro).is_empty());
    }
}
