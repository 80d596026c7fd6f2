//! The tile table: one row per tile level with samples (time, GFLOP/s,
//! arithmetic intensity, elements, cache misses and, given a valid peak,
//! cache efficiency), as terminal text, Markdown or an HTML fragment.

use profiler_core::kernel::{TILE_ELEMENT_BYTES, TileTable};

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
