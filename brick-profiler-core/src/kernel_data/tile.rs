//! Tile-level statistics for hierarchically blocked kernels: macro tiles
//! (L3 / GPU global memory), midi tiles (L2 / shared memory) and micro tiles
//! (registers / SIMD lanes), one [`TileStats`] per level.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Bytes per element assumed by [`TileStats::arithmetic_intensity`] (`f32`).
pub const TILE_ELEMENT_BYTES: u64 = 4;

/// A level of the tile hierarchy.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum TileLevel {
    /// Macro tile: L3 cache / GPU global memory.
    #[default]
    Macro,
    /// Midi tile: L2 cache / GPU shared memory.
    Midi,
    /// Micro tile: registers / SIMD lanes.
    Micro,
}

impl TileLevel {
    /// Number of levels.
    pub const COUNT: usize = 3;
    /// Every level, outermost first.
    pub const ALL: [TileLevel; Self::COUNT] = [Self::Macro, Self::Midi, Self::Micro];

    /// `"macro"`, `"midi"` or `"micro"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Macro => "macro",
            Self::Midi => "midi",
            Self::Micro => "micro",
        }
    }

    /// Position in [`TileLevel::ALL`].
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for TileLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error of `"...".parse::<TileLevel>()`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tile level `{0}`, expected `macro`, `midi` or `micro`")]
pub struct UnknownTileLevel(pub String);

impl FromStr for TileLevel {
    type Err = UnknownTileLevel;

    /// Accepts the level names in any letter case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|level| level.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownTileLevel(s.to_owned()))
    }
}

/// Accumulated samples of one tile level.
///
/// Every derived value is 0 (never NaN or infinite) when its denominator is
/// 0: no samples, no time or no elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileStats {
    /// The level these samples belong to.
    pub level: TileLevel,
    /// Samples.
    pub count: u64,
    /// Total time, ns.
    pub total_ns: u64,
    /// Shortest sample, ns (`u64::MAX` while there is none).
    pub min_ns: u64,
    /// Longest sample, ns.
    pub max_ns: u64,
    /// Elements processed.
    #[serde(default)]
    pub total_elements: u64,
    /// Cache misses reported by the caller (e.g. from perf counters).
    #[serde(default)]
    pub cache_misses: u64,
    /// Floating-point operations performed.
    #[serde(default)]
    pub total_flops: u64,
}

impl Default for TileStats {
    fn default() -> Self {
        Self::new(TileLevel::default())
    }
}

/// `num / den`, 0 when `den` is 0.
fn ratio(num: f64, den: f64) -> f64 {
    if den == 0.0 { 0.0 } else { num / den }
}

impl TileStats {
    /// Empty statistics for `level`.
    #[must_use]
    pub const fn new(level: TileLevel) -> Self {
        Self {
            level,
            count: 0,
            total_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
            total_elements: 0,
            cache_misses: 0,
            total_flops: 0,
        }
    }

    /// Whether no sample was recorded.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Adds one sample. Sums saturate instead of wrapping.
    #[inline]
    pub fn add(&mut self, elapsed_ns: u64, elements: u64, flops: u64, cache_misses: u64) {
        // An empty side's extremes may hold anything (e.g. read from a file).
        if self.count == 0 {
            (self.min_ns, self.max_ns) = (elapsed_ns, elapsed_ns);
        } else {
            self.min_ns = self.min_ns.min(elapsed_ns);
            self.max_ns = self.max_ns.max(elapsed_ns);
        }
        self.count = self.count.saturating_add(1);
        self.total_ns = self.total_ns.saturating_add(elapsed_ns);
        self.total_elements = self.total_elements.saturating_add(elements);
        self.total_flops = self.total_flops.saturating_add(flops);
        self.cache_misses = self.cache_misses.saturating_add(cache_misses);
    }

    /// Adds `other`'s samples. The extremes of an empty side never win (its
    /// `min_ns`/`max_ns` may hold anything, e.g. after deserialisation).
    /// `self.level` is kept: merge stats of the same level.
    pub fn merge(&mut self, other: &TileStats) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            self.min_ns = other.min_ns;
            self.max_ns = other.max_ns;
        } else {
            self.min_ns = self.min_ns.min(other.min_ns);
            self.max_ns = self.max_ns.max(other.max_ns);
        }
        self.count = self.count.saturating_add(other.count);
        self.total_ns = self.total_ns.saturating_add(other.total_ns);
        self.total_elements = self.total_elements.saturating_add(other.total_elements);
        self.cache_misses = self.cache_misses.saturating_add(other.cache_misses);
        self.total_flops = self.total_flops.saturating_add(other.total_flops);
    }

    /// Mean time per sample, µs: `total_ns / count / 1000` (0 without samples).
    #[must_use]
    pub fn avg_us(&self) -> f64 {
        ratio(self.total_ns as f64, self.count as f64) / 1000.0
    }

    /// Shortest sample, µs (0 without samples).
    #[must_use]
    pub fn min_us(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.min_ns as f64 / 1000.0
        }
    }

    /// Longest sample, µs (0 without samples).
    #[must_use]
    pub fn max_us(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.max_ns as f64 / 1000.0
        }
    }

    /// Elements per second: `total_elements / (total_ns / 1e9)` (0 without time).
    #[must_use]
    pub fn throughput(&self) -> f64 {
        ratio(self.total_elements as f64, self.total_ns as f64 / 1e9)
    }

    /// Achieved GFLOP/s: `total_flops / (total_ns / 1e9) / 1e9` (0 without time).
    #[must_use]
    pub fn gflops(&self) -> f64 {
        ratio(self.total_flops as f64, self.total_ns as f64 / 1e9) / 1e9
    }

    /// Flops per byte, assuming [`TILE_ELEMENT_BYTES`] bytes per element:
    /// `total_flops / (total_elements x 4)` (0 without elements).
    #[must_use]
    pub fn arithmetic_intensity(&self) -> f64 {
        ratio(
            self.total_flops as f64,
            self.total_elements as f64 * TILE_ELEMENT_BYTES as f64,
        )
    }

    /// `min(gflops / peak_gflops, 1)`, in `[0, 1]`.
    ///
    /// A peak that is not a finite positive number (0, negative, NaN,
    /// infinite) gives 0, as the reference did for peaks `<= 0`; use
    /// [`TileStats::checked_cache_efficiency`] to tell that case apart from
    /// a measured 0.
    #[must_use]
    pub fn cache_efficiency(&self, peak_gflops: f64) -> f64 {
        self.checked_cache_efficiency(peak_gflops).unwrap_or(0.0)
    }

    /// Like [`TileStats::cache_efficiency`], but `None` when the peak is not
    /// a finite positive number, so a report can withhold the value.
    #[must_use]
    pub fn checked_cache_efficiency(&self, peak_gflops: f64) -> Option<f64> {
        (peak_gflops.is_finite() && peak_gflops > 0.0)
            .then(|| (self.gflops() / peak_gflops).min(1.0))
    }

    /// Mean elements per sample (0 without samples).
    #[must_use]
    pub fn avg_elements(&self) -> f64 {
        ratio(self.total_elements as f64, self.count as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(samples: &[(u64, u64, u64, u64)]) -> TileStats {
        let mut s = TileStats::new(TileLevel::Midi);
        for &(ns, elements, flops, misses) in samples {
            s.add(ns, elements, flops, misses);
        }
        s
    }

    #[test]
    fn levels_have_their_names_and_macro_is_the_default() {
        let names: Vec<_> = TileLevel::ALL.iter().map(|l| l.to_string()).collect();
        assert_eq!(names, ["macro", "midi", "micro"]);
        assert_eq!(TileLevel::default(), TileLevel::Macro);
        assert_eq!("MIDI".parse::<TileLevel>(), Ok(TileLevel::Midi));
        let err = "nano".parse::<TileLevel>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown tile level `nano`, expected `macro`, `midi` or `micro`"
        );
        assert_eq!(
            serde_json::to_string(&TileLevel::Micro).unwrap(),
            "\"micro\""
        );
    }

    #[test]
    fn add_tracks_count_sums_and_extremes() {
        let s = stats(&[(1_000, 10, 20, 1), (500, 5, 6, 2), (2_000, 1, 2, 3)]);
        assert_eq!(
            (s.count, s.total_ns, s.min_ns, s.max_ns),
            (3, 3_500, 500, 2_000)
        );
        assert_eq!(
            (s.total_elements, s.total_flops, s.cache_misses),
            (16, 28, 6)
        );
    }

    #[test]
    fn add_to_an_empty_side_ignores_its_stored_extremes() {
        let mut s = TileStats {
            min_ns: 0,
            max_ns: 99_999,
            ..TileStats::new(TileLevel::Macro)
        };
        s.add(700, 1, 1, 0);
        assert_eq!((s.min_ns, s.max_ns), (700, 700));
    }

    #[test]
    fn sums_saturate() {
        let mut s = stats(&[(u64::MAX, u64::MAX, u64::MAX, u64::MAX)]);
        s.add(5, 5, 5, 5);
        assert_eq!(
            (s.total_ns, s.total_elements, s.total_flops, s.cache_misses),
            (u64::MAX, u64::MAX, u64::MAX, u64::MAX)
        );
    }

    #[test]
    fn derived_values_follow_their_formulas() {
        // 2 samples: 2 ms and 4 ms; 1000 elements; 3e9 flops over 6e6 ns.
        let s = stats(&[
            (2_000_000, 400, 1_000_000_000, 0),
            (4_000_000, 600, 2_000_000_000, 0),
        ]);
        assert_eq!(s.avg_us(), 3_000.0); // 6e6 ns / 2 / 1000
        assert_eq!(s.min_us(), 2_000.0);
        assert_eq!(s.max_us(), 4_000.0);
        assert_eq!(s.throughput(), 1_000.0 / (6e6 / 1e9)); // elements / s
        assert_eq!(s.gflops(), 3e9 / (6e6 / 1e9) / 1e9); // 500 GFLOP/s
        assert!((s.gflops() - 500.0).abs() < 1e-9);
        assert_eq!(s.arithmetic_intensity(), 3e9 / (1_000.0 * 4.0));
        assert_eq!(s.avg_elements(), 500.0);
    }

    #[test]
    fn cache_efficiency_is_clamped_to_one() {
        // 2 GFLOP/s: 2000 flops in 1000 ns.
        let s = stats(&[(1_000, 10, 2_000, 0)]);
        assert_eq!(s.gflops(), 2.0);
        assert_eq!(s.cache_efficiency(4.0), 0.5);
        assert_eq!(s.cache_efficiency(1.0), 1.0);
        assert_eq!(s.checked_cache_efficiency(8.0), Some(0.25));
    }

    #[test]
    fn cache_efficiency_of_an_invalid_peak_is_zero_and_withheld_when_checked() {
        let s = stats(&[(1_000, 10, 2_000, 0)]);
        for peak in [0.0, -0.0, -3.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(s.cache_efficiency(peak), 0.0, "peak {peak}");
            assert_eq!(s.checked_cache_efficiency(peak), None, "peak {peak}");
        }
    }

    #[test]
    fn empty_and_timeless_stats_derive_zero_never_nan() {
        let empty = TileStats::default();
        let timeless = stats(&[(0, 10, 10, 0)]);
        let no_elements = stats(&[(10, 0, 10, 0)]);
        for s in [empty, timeless, no_elements] {
            let values = [
                s.avg_us(),
                s.min_us(),
                s.max_us(),
                s.throughput(),
                s.gflops(),
                s.cache_efficiency(10.0),
                s.avg_elements(),
                s.arithmetic_intensity(),
            ];
            assert!(values.iter().all(|v| v.is_finite()), "{s:?}: {values:?}");
        }
        assert_eq!(empty.avg_us(), 0.0);
        assert_eq!(empty.min_us(), 0.0);
        assert_eq!(timeless.throughput(), 0.0);
        assert_eq!(timeless.gflops(), 0.0);
        assert_eq!(no_elements.arithmetic_intensity(), 0.0);
    }

    #[test]
    fn merge_combines_sums_and_extremes() {
        let mut a = stats(&[(100, 1, 2, 3), (300, 1, 2, 3)]);
        a.merge(&stats(&[(50, 4, 5, 6), (200, 4, 5, 6)]));
        assert_eq!((a.count, a.total_ns, a.min_ns, a.max_ns), (4, 650, 50, 300));
        assert_eq!(
            (a.total_elements, a.total_flops, a.cache_misses),
            (10, 14, 18)
        );
    }

    #[test]
    fn merge_never_takes_the_extremes_of_an_empty_side() {
        let garbage = TileStats {
            min_ns: 1,
            max_ns: 1 << 40,
            ..TileStats::new(TileLevel::Midi)
        };
        let mut a = stats(&[(100, 1, 1, 0)]);
        a.merge(&garbage);
        assert_eq!((a.count, a.min_ns, a.max_ns), (1, 100, 100));
        let mut empty = garbage;
        empty.merge(&stats(&[(70, 1, 1, 0), (90, 1, 1, 0)]));
        assert_eq!((empty.count, empty.min_ns, empty.max_ns), (2, 70, 90));
    }
}
