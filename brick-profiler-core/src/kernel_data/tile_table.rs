//! The three tile levels together: [`TileTable`] is what one thread records
//! into and a snapshot merges; [`TileSummary`] is its printable, JSON-ready
//! digest (one row per level that has samples).

use std::fmt;

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
/// println!("{}", tiles.summary(true));
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

    /// The summary of the levels with samples; `enabled` says whether tile
    /// profiling was on (an empty table means something different then).
    #[must_use]
    pub fn summary(&self, enabled: bool) -> TileSummary {
        TileSummary {
            tile_profiling_enabled: enabled,
            tiles: self
                .iter()
                .filter(|s| !s.is_empty())
                .map(TileSummaryRow::from)
                .collect(),
        }
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

/// One level of a [`TileSummary`], with its derived values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TileSummaryRow {
    /// Tile level.
    pub level: TileLevel,
    /// Samples.
    pub count: u64,
    /// Total time, ns.
    pub total_ns: u64,
    /// Mean time per sample, µs.
    pub avg_us: f64,
    /// Shortest sample, µs.
    pub min_us: f64,
    /// Longest sample, µs.
    pub max_us: f64,
    /// Achieved GFLOP/s.
    pub gflops: f64,
    /// Flops per byte at 4 bytes per element.
    pub arithmetic_intensity: f64,
    /// Elements processed.
    pub total_elements: u64,
    /// Floating-point operations.
    pub total_flops: u64,
    /// Cache misses reported by the caller.
    #[serde(default)]
    pub cache_misses: u64,
}

impl From<&TileStats> for TileSummaryRow {
    fn from(s: &TileStats) -> Self {
        Self {
            level: s.level,
            count: s.count,
            total_ns: s.total_ns,
            avg_us: s.avg_us(),
            min_us: s.min_us(),
            max_us: s.max_us(),
            gflops: s.gflops(),
            arithmetic_intensity: s.arithmetic_intensity(),
            total_elements: s.total_elements,
            total_flops: s.total_flops,
            cache_misses: s.cache_misses,
        }
    }
}

/// Tile statistics of a run, ready to print (`Display`) or serialise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TileSummary {
    /// Whether tile profiling was on.
    pub tile_profiling_enabled: bool,
    /// Levels with at least one sample, outermost first.
    pub tiles: Vec<TileSummaryRow>,
}

impl TileSummary {
    /// Compact JSON: `{"tile_profiling_enabled":..,"tiles":[{"level":"macro",..}]}`.
    #[must_use]
    pub fn to_json(&self) -> String {
        // Plain numbers and strings: serialisation cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl fmt::Display for TileSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "=== Tile Profiling Summary ===")?;
        if !self.tile_profiling_enabled {
            return writeln!(f, "(tile profiling disabled)");
        }
        if self.tiles.is_empty() {
            return writeln!(f, "(no tile samples)");
        }
        writeln!(
            f,
            "{:<6} {:>10} {:>12} {:>10} {:>8} {:>12}",
            "Level", "Samples", "Avg µs", "GFLOP/s", "AI", "Elem/sample"
        )?;
        for t in &self.tiles {
            let per_sample = t.total_elements.checked_div(t.count).unwrap_or(0);
            writeln!(
                f,
                "{:<6} {:>10} {:>12.1} {:>10.2} {:>8.2} {:>12}",
                t.level.name(),
                t.count,
                t.avg_us,
                t.gflops,
                t.arithmetic_intensity,
                per_sample
            )?;
        }
        Ok(())
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

    #[test]
    fn summary_lists_levels_with_samples() {
        let summary = table().summary(true);
        let levels: Vec<_> = summary.tiles.iter().map(|r| r.level).collect();
        assert_eq!(levels, [TileLevel::Macro, TileLevel::Micro]);
        let macro_row = &summary.tiles[0];
        assert_eq!(macro_row.avg_us, 3_000.0);
        assert_eq!(macro_row.min_us, 2_000.0);
        assert_eq!(macro_row.cache_misses, 40);
        assert_eq!(macro_row.gflops, 8e9 / (6e6 / 1e9) / 1e9);
    }

    #[test]
    fn summary_text_is_a_fixed_table() {
        let text = table().summary(true).to_string();
        let expected = "\
=== Tile Profiling Summary ===
Level     Samples       Avg µs    GFLOP/s       AI  Elem/sample
macro           2       3000.0    1333.33   953.67      1048576
micro           1          5.0      13.11     4.00         4096
";
        assert_eq!(text, expected);
        assert_eq!(
            TileTable::new().summary(true).to_string(),
            "=== Tile Profiling Summary ===\n(no tile samples)\n"
        );
        assert_eq!(
            table().summary(false).to_string(),
            "=== Tile Profiling Summary ===\n(tile profiling disabled)\n"
        );
    }

    #[test]
    fn summary_json_has_the_reference_keys() {
        let json: serde_json::Value =
            serde_json::from_str(&table().summary(true).to_json()).unwrap();
        assert_eq!(json["tile_profiling_enabled"], true);
        let row = &json["tiles"][1];
        assert_eq!(row["level"], "micro");
        for key in [
            "count",
            "total_ns",
            "avg_us",
            "min_us",
            "max_us",
            "gflops",
            "arithmetic_intensity",
            "total_elements",
            "total_flops",
        ] {
            assert!(row.get(key).is_some(), "missing {key}");
        }
        assert_eq!(row["total_flops"], 65_536);
    }
}
