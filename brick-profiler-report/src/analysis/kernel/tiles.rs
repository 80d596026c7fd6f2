//! The tile table: one row per tile level with samples (time, GFLOP/s,
//! arithmetic intensity, elements, cache misses and, given a valid peak,
//! cache efficiency), as terminal text, Markdown or an HTML fragment; and
//! [`TileSummary`], the table's compact digest as a fixed text table or JSON.

use std::fmt;

use profiler_core::kernel::{TILE_ELEMENT_BYTES, TileLevel, TileStats, TileTable};
use serde::{Deserialize, Serialize};

use super::table::{Align, DASH, Table, duration, int, num};
use crate::base::escape;

/// What the cache-efficiency column can say about `peak_gflops`.
fn peak_note(peak_gflops: Option<f64>) -> String {
    match peak_gflops {
        None => format!("cache efficiency: {DASH} (no peak GFLOP/s given)"),
        Some(p) if p.is_finite() && p > 0.0 => {
            format!("cache efficiency = min(GFLOP/s / {}, 1)", num(p))
        }
        Some(p) if p.is_finite() => {
            format!(
                "cache efficiency: {DASH} (peak GFLOP/s must be > 0, got {})",
                num(p)
            )
        }
        Some(_) => format!("cache efficiency: {DASH} (peak GFLOP/s is not a finite number)"),
    }
}

fn table(tiles: &TileTable, peak_gflops: Option<f64>) -> Option<Table> {
    let mut t = Table::new(&[
        ("Level", Align::Left),
        ("Samples", Align::Right),
        ("Total", Align::Right),
        ("Avg", Align::Right),
        ("Min", Align::Right),
        ("Max", Align::Right),
        ("GFLOP/s", Align::Right),
        ("AI (flop/B)", Align::Right),
        ("Elements", Align::Right),
        ("Cache misses", Align::Right),
        ("Cache eff.", Align::Right),
    ]);
    let mut any = false;
    for s in tiles.iter().filter(|s| !s.is_empty()) {
        any = true;
        let efficiency = peak_gflops
            .and_then(|p| s.checked_cache_efficiency(p))
            .map_or_else(|| DASH.to_owned(), |e| format!("{:.1}%", 100.0 * e));
        t.push(vec![
            s.level.name().to_owned(),
            int(s.count),
            duration(s.total_ns as f64),
            duration(s.avg_us() * 1e3),
            duration(s.min_us() * 1e3),
            duration(s.max_us() * 1e3),
            num(s.gflops()),
            num(s.arithmetic_intensity()),
            int(s.total_elements),
            int(s.cache_misses),
            efficiency,
        ]);
    }
    any.then_some(t)
}

fn notes(peak_gflops: Option<f64>) -> [String; 2] {
    [
        format!("arithmetic intensity assumes {TILE_ELEMENT_BYTES} bytes per element"),
        peak_note(peak_gflops),
    ]
}

/// The tile table as terminal text. `peak_gflops` is the ceiling for cache
/// efficiency; without a valid one the column shows a dash and a note says why.
#[must_use]
pub fn format_tile_table_text(tiles: &TileTable, peak_gflops: Option<f64>) -> String {
    let mut s = "Tiles\n".to_owned();
    match table(tiles, peak_gflops) {
        None => s.push_str("(no tile samples)\n"),
        Some(t) => {
            s.push_str(&t.text());
            for note in notes(peak_gflops) {
                s.push_str(&note);
                s.push('\n');
            }
        }
    }
    s
}

/// The tile table as Markdown (a `### Tiles` section).
#[must_use]
pub fn format_tile_table_markdown(tiles: &TileTable, peak_gflops: Option<f64>) -> String {
    let mut s = "### Tiles\n\n".to_owned();
    match table(tiles, peak_gflops) {
        None => s.push_str("No tile samples.\n"),
        Some(t) => {
            s.push_str(&t.markdown());
            s.push('\n');
            for note in notes(peak_gflops) {
                s.push_str("- ");
                s.push_str(&escape::markdown(&note));
                s.push('\n');
            }
        }
    }
    s
}

/// The tile table as an HTML `<section class="kernel-tiles">`.
#[must_use]
pub fn format_tile_table_html(tiles: &TileTable, peak_gflops: Option<f64>) -> String {
    format!(
        "<section class=\"kernel-tiles\">\n<h2>Tiles</h2>\n{}</section>\n",
        tile_table_body(tiles, peak_gflops)
    )
}

/// The tile table and its notes as HTML, without a heading (the report's
/// section gives it one).
pub(crate) fn tile_table_body(tiles: &TileTable, peak_gflops: Option<f64>) -> String {
    let Some(t) = table(tiles, peak_gflops) else {
        return "<p>No tile samples.</p>\n".to_owned();
    };
    let mut s = t.html("tiles");
    s.push_str("<ul class=\"notes\">\n");
    for note in notes(peak_gflops) {
        s.push_str("<li>");
        s.push_str(&escape::html(&note));
        s.push_str("</li>\n");
    }
    s.push_str("</ul>\n");
    s
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
    /// The summary of the levels of `tiles` with samples; `enabled` says
    /// whether tile profiling was on (an empty table means something
    /// different then).
    #[must_use]
    pub fn new(tiles: &TileTable, enabled: bool) -> Self {
        Self {
            tile_profiling_enabled: enabled,
            tiles: tiles
                .iter()
                .filter(|s| !s.is_empty())
                .map(TileSummaryRow::from)
                .collect(),
        }
    }

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
                escape::visible(t.level.name()),
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
