//! Inline charts: the per-layer forward/backward SVG bar chart and the CSS
//! bars of table rows. Charts are static SVG: readable without scripts, with
//! a tooltip (`<title>`) on every bar and the values also written as text.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use profiler_core::alloc::MemoryKind;
use profiler_core::{Direction, Profile};

use crate::base::escape;
use crate::base::textfmt::{self, DASH, fixed, ms, num, pct};

/// Fill of forward bars.
const FWD_FILL: &str = "#4e79a7";
/// Fill of backward bars.
const BWD_FILL: &str = "#f28e2b";

/// One layer's times, summed over the profile's entries for it.
#[derive(Debug, Default)]
pub(crate) struct LayerRow {
    /// Layer index.
    pub(crate) index: u32,
    /// Forward time, ns (`None` when the direction was never recorded).
    pub(crate) fwd_ns: Option<u64>,
    /// Backward time, ns.
    pub(crate) bwd_ns: Option<u64>,
    /// Brick time per op inside the layer, both directions.
    pub(crate) ops: BTreeMap<String, u64>,
    /// Host bytes allocated inside the layer's scopes, both directions (per
    /// step when steps were recorded); `None` when none were tracked.
    pub(crate) allocated_bytes: Option<u64>,
    /// Highest host live bytes above a scope's entry, either direction.
    pub(crate) peak_bytes: Option<u64>,
}

impl LayerRow {
    /// The op with the most time and its share of the layer's op time, %.
    pub(crate) fn top_op(&self) -> Option<(&str, f64)> {
        let total = self
            .ops
            .values()
            .fold(0u64, |acc, &ns| acc.saturating_add(ns));
        // Ties go to the first name, so the choice is stable.
        let (name, &ns) = self
            .ops
            .iter()
            .rev()
            .max_by_key(|(_, ns)| **ns)
            .filter(|(_, ns)| **ns > 0)?;
        Some((name, 100.0 * ns as f64 / total as f64))
    }
}

/// The profile's layers by index, forward and backward side by side.
pub(crate) fn layer_rows(profile: &Profile) -> Vec<LayerRow> {
    // Per step when steps were recorded, so the numbers sit beside the step time.
    let per_step = profile.steps.count.max(1);
    let mut rows: BTreeMap<u32, LayerRow> = BTreeMap::new();
    for stats in &profile.layers {
        let row = rows.entry(stats.index).or_insert_with(|| LayerRow {
            index: stats.index,
            ..LayerRow::default()
        });
        let slot = match stats.direction {
            Direction::Forward => &mut row.fwd_ns,
            Direction::Backward => &mut row.bwd_ns,
        };
        *slot = Some(
            slot.unwrap_or(0)
                .saturating_add(stats.total_ns() / per_step),
        );
        for op in &stats.ops {
            let t = row.ops.entry(op.name.clone()).or_default();
            *t = t.saturating_add(op.total_ns / per_step);
        }
    }
    let scopes = profile.memory.as_ref().map_or(&[][..], |m| &m.layers[..]);
    for l in scopes.iter().filter(|l| l.memory.kind == MemoryKind::Host) {
        if let Some(row) = rows.get_mut(&l.index) {
            let allocated = row.allocated_bytes.unwrap_or(0);
            row.allocated_bytes =
                Some(allocated.saturating_add(l.memory.allocated_bytes / per_step));
            row.peak_bytes = Some(row.peak_bytes.unwrap_or(0).max(l.memory.peak_bytes));
        }
    }
    rows.into_values().collect()
}

/// Geometry of the layer chart for `n` layers: bar thickness, gap between
/// layers, and whether each bar gets its own value label (else one
/// `fwd / bwd` label per layer).
fn geometry(n: usize) -> (f64, f64, bool) {
    match n {
        0..=16 => (12.0, 10.0, true),
        17..=48 => (7.0, 6.0, true),
        _ => (4.0, 5.0, false),
    }
}

const WIDTH: f64 = 720.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 112.0;
const TOP: f64 = 34.0;
const BOTTOM: f64 = 46.0;

/// Horizontal grouped bars: forward and backward ms per layer.
pub(crate) fn layer_chart(rows: &[LayerRow]) -> String {
    let chart = LayerChart::new(rows);
    let class = if chart.per_bar_labels {
        "chart"
    } else {
        "chart dense"
    };
    let height = chart.height;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg class=\"{class}\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {height:.0}\" \
         width=\"{WIDTH}\" height=\"{height:.0}\" role=\"img\" aria-label=\"Forward and backward time per layer, ms\">"
    );
    legend(&mut s);
    chart.grid(&mut s);
    for (i, row) in rows.iter().enumerate() {
        chart.layer(&mut s, i, row);
    }
    s.push_str("</svg>\n");
    s
}

/// The layer chart's frame: bar geometry, plot size and the ms axis.
struct LayerChart {
    /// Bar thickness.
    bar: f64,
    /// Gap between layers.
    gap: f64,
    /// Height of one layer: two bars, a pixel between them, the gap.
    pitch: f64,
    /// Whether each bar gets its own value label.
    per_bar_labels: bool,
    /// Plot width.
    plot_w: f64,
    /// Plot height.
    plot_h: f64,
    /// Whole chart height.
    height: f64,
    /// Tick step, ms.
    step: f64,
    /// Axis end, ms.
    top: f64,
}

impl LayerChart {
    fn new(rows: &[LayerRow]) -> Self {
        let (bar, gap, per_bar_labels) = geometry(rows.len());
        let pitch = 2.0 * bar + 1.0 + gap;
        let plot_h = pitch * rows.len() as f64;
        let max = rows
            .iter()
            .flat_map(|r| [r.fwd_ns, r.bwd_ns])
            .flatten()
            .map(ms)
            .fold(0.0, f64::max);
        let (step, top) = nice_axis(max);
        Self {
            bar,
            gap,
            pitch,
            per_bar_labels,
            plot_w: WIDTH - LEFT - RIGHT,
            plot_h,
            height: TOP + plot_h + BOTTOM,
            step,
            top,
        }
    }

    /// The x position of `v` ms.
    fn x(&self, v: f64) -> f64 {
        LEFT + v / self.top * self.plot_w
    }

    /// Grid lines with their ticks, the axis and its labels.
    fn grid(&self, s: &mut String) {
        let (step, plot_h) = (self.step, self.plot_h);
        let ticks = (self.top / step).round() as usize;
        // As many decimals as the step has: 0, 5, 10 or 0.2, 0.4.
        let decimals = (-step.log10().floor()).max(0.0) as usize;
        for i in 0..=ticks {
            let v = step * i as f64;
            let tx = self.x(v);
            let _ = writeln!(
                s,
                "<line class=\"grid\" x1=\"{tx:.1}\" y1=\"{TOP:.1}\" x2=\"{tx:.1}\" y2=\"{:.1}\"/>\
                 <text class=\"tick\" x=\"{tx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                TOP + plot_h,
                TOP + plot_h + 16.0,
                fixed(v, decimals)
            );
        }
        let _ = writeln!(
            s,
            "<line class=\"axis\" x1=\"{LEFT:.1}\" y1=\"{TOP:.1}\" x2=\"{LEFT:.1}\" y2=\"{:.1}\"/>\
             <text class=\"axis-label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">ms</text>\
             <text class=\"axis-label\" transform=\"translate(14 {:.1}) rotate(-90)\" text-anchor=\"middle\">layer</text>",
            TOP + plot_h,
            LEFT + self.plot_w / 2.0,
            self.height - 8.0,
            TOP + plot_h / 2.0
        );
    }

    /// Layer `i`'s label, its forward and backward bars and their values.
    fn layer(&self, s: &mut String, i: usize, row: &LayerRow) {
        let bar = self.bar;
        let y0 = TOP + self.gap / 2.0 + self.pitch * i as f64;
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" dominant-baseline=\"middle\">L{}</text>",
            LEFT - 6.0,
            y0 + bar + 0.5,
            row.index
        );
        let bars = [
            ("fwd", "forward", FWD_FILL, row.fwd_ns, y0),
            ("bwd", "backward", BWD_FILL, row.bwd_ns, y0 + bar + 1.0),
        ];
        for (class, name, fill, ns, y) in bars {
            let Some(ns) = ns else { continue };
            let v = ms(ns);
            let w = if v > 0.0 {
                (self.x(v) - LEFT).max(1.0)
            } else {
                0.0
            };
            let _ = write!(
                s,
                "<rect class=\"bar {class}\" x=\"{LEFT:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{bar:.1}\" fill=\"{fill}\">\
                 <title>layer {} {name}: {} ms</title></rect>",
                row.index,
                num(v)
            );
            if self.per_bar_labels {
                let _ = write!(
                    s,
                    "<text class=\"value\" x=\"{:.1}\" y=\"{:.1}\" dominant-baseline=\"middle\">{}</text>",
                    LEFT + w + 4.0,
                    y + bar / 2.0,
                    num(v)
                );
            }
            s.push('\n');
        }
        if !self.per_bar_labels {
            let value = |ns: Option<u64>| ns.map_or_else(|| DASH.to_owned(), |ns| num(ms(ns)));
            let longest = [row.fwd_ns, row.bwd_ns]
                .into_iter()
                .flatten()
                .map(ms)
                .fold(0.0, f64::max);
            let _ = writeln!(
                s,
                "<text class=\"value\" x=\"{:.1}\" y=\"{:.1}\" dominant-baseline=\"middle\">{} / {}</text>",
                self.x(longest) + 4.0,
                y0 + bar + 0.5,
                value(row.fwd_ns),
                value(row.bwd_ns)
            );
        }
    }
}

/// The chart's legend: a swatch per direction.
fn legend(s: &mut String) {
    for (i, (fill, label)) in [(FWD_FILL, "forward"), (BWD_FILL, "backward")]
        .into_iter()
        .enumerate()
    {
        let lx = LEFT + 100.0 * i as f64;
        let _ = writeln!(
            s,
            "<rect x=\"{lx:.1}\" y=\"10\" width=\"12\" height=\"12\" fill=\"{fill}\"/>\
             <text x=\"{:.1}\" y=\"20\">{label}</text>",
            lx + 17.0
        );
    }
}

/// A tick step of 1, 2 or 5 times a power of ten giving about five ticks,
/// and the axis end (a multiple of the step at or above `max`).
fn nice_axis(max: f64) -> (f64, f64) {
    let max = if max.is_finite() && max > 0.0 {
        max
    } else {
        1.0
    };
    let raw = max / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = match raw / magnitude {
        r if r <= 1.0 => 1.0,
        r if r <= 2.0 => 2.0,
        r if r <= 5.0 => 5.0,
        _ => 10.0,
    } * magnitude;
    (step, (max / step).ceil() * step)
}

/// A table cell holding a bar `percent` wide (clamped to 0..=100).
pub(crate) fn bar_cell(percent: f64) -> String {
    let w = if percent.is_finite() {
        percent.clamp(0.0, 100.0)
    } else {
        0.0
    };
    format!(
        "<td class=\"bar-cell\"><span class=\"bar\" style=\"width:{}%\"></span></td>",
        fixed(w, 1)
    )
}

/// The per-layer table: fwd ms, bwd ms, bwd/fwd and the top op; the
/// backward columns only when some layer ran backward (a forward-only run
/// has no backward data to show).
pub(crate) fn layer_table(rows: &[LayerRow]) -> String {
    let cell = |ns: Option<u64>| ns.map_or_else(|| DASH.to_owned(), |ns| num(ms(ns)));
    // Memory columns only when some layer's memory was tracked.
    let memory = rows.iter().any(|r| r.allocated_bytes.is_some());
    let backward = rows.iter().any(|r| r.bwd_ns.is_some());
    let bytes = |b: Option<u64>| b.map_or_else(|| DASH.to_owned(), |b| textfmt::bytes(b as f64));
    let mut s = String::from(
        "<table class=\"data\">\n<thead><tr><th>Layer</th><th class=\"num\">Fwd ms</th>",
    );
    if backward {
        s.push_str("<th class=\"num\">Bwd ms</th><th class=\"num\">Bwd/Fwd</th>");
    }
    s.push_str("<th>Top op</th><th class=\"num\">Top op share</th>");
    if memory {
        s.push_str("<th class=\"num\">Allocated</th><th class=\"num\">Peak</th>");
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    let (mut fwd_total, mut bwd_total) = (0u64, 0u64);
    for row in rows {
        fwd_total = fwd_total.saturating_add(row.fwd_ns.unwrap_or(0));
        bwd_total = bwd_total.saturating_add(row.bwd_ns.unwrap_or(0));
        let ratio = match (row.fwd_ns, row.bwd_ns) {
            (Some(f), Some(b)) if f > 0 => fixed(b as f64 / f as f64, 2),
            _ => DASH.to_owned(),
        };
        let (top, share) = row.top_op().map_or_else(
            || (DASH.to_owned(), DASH.to_owned()),
            |(name, share)| (escape::html(name), pct(share)),
        );
        let _ = write!(
            s,
            "<tr><td>{}</td><td class=\"num\">{}</td>",
            row.index,
            cell(row.fwd_ns)
        );
        if backward {
            let _ = write!(
                s,
                "<td class=\"num\">{}</td><td class=\"num\">{ratio}</td>",
                cell(row.bwd_ns)
            );
        }
        let _ = write!(s, "<td>{top}</td><td class=\"num\">{share}</td>");
        if memory {
            let _ = write!(
                s,
                "<td class=\"num\">{}</td><td class=\"num\">{}</td>",
                bytes(row.allocated_bytes),
                bytes(row.peak_bytes)
            );
        }
        s.push_str("</tr>\n");
    }
    let total_ratio = if fwd_total > 0 && bwd_total > 0 {
        fixed(bwd_total as f64 / fwd_total as f64, 2)
    } else {
        DASH.to_owned()
    };
    let backward_totals = if backward {
        format!(
            "<td class=\"num\">{}</td><td class=\"num\">{total_ratio}</td>",
            num(ms(bwd_total))
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        s,
        "</tbody>\n<tfoot><tr><th>Total</th><td class=\"num\">{}</td>{backward_totals}\
         <td></td><td></td>{}</tr></tfoot>\n</table>",
        num(ms(fwd_total)),
        if memory { "<td></td><td></td>" } else { "" }
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forward_only_layer_table_has_no_backward_columns() {
        let row = |index, bwd_ns| LayerRow {
            index,
            fwd_ns: Some(2_000_000),
            bwd_ns,
            ..LayerRow::default()
        };
        let forward = layer_table(&[row(0, None), row(1, None)]);
        assert!(!forward.contains("Bwd"), "{forward}");
        // Every row and the total have the same cells as the header.
        let cells = |line: &str| line.matches("<td").count() + line.matches("<th>").count();
        let header_cells = 4;
        for line in forward
            .lines()
            .filter(|l| l.starts_with("<tr>") || l.contains("<tfoot>"))
        {
            assert_eq!(cells(line), header_cells, "{line}");
        }
        let training = layer_table(&[row(0, Some(4_000_000))]);
        assert!(training.contains("<th class=\"num\">Bwd ms</th>"));
        assert!(training.contains(">2.00</td>"), "bwd/fwd: {training}");
    }

    #[test]
    fn axis_steps_are_round() {
        assert_eq!(nice_axis(0.0), (0.2, 1.0));
        assert_eq!(nice_axis(7.3), (2.0, 8.0));
        assert_eq!(nice_axis(100.0), (20.0, 100.0));
        assert_eq!(nice_axis(f64::NAN), (0.2, 1.0));
        let (step, top) = nice_axis(0.0123);
        assert!((step - 0.005).abs() < 1e-12 && (top - 0.015).abs() < 1e-12);
    }

    #[test]
    fn bars_clamp_to_the_cell() {
        assert!(bar_cell(150.0).contains("width:100.0%"));
        assert!(bar_cell(-3.0).contains("width:0.0%"));
        assert!(bar_cell(f64::NAN).contains("width:0.0%"));
    }

    #[test]
    fn many_layers_get_thinner_bars_and_one_label_per_layer() {
        let rows: Vec<LayerRow> = (0..128)
            .map(|i| LayerRow {
                index: i,
                fwd_ns: Some(1_000_000),
                bwd_ns: Some(2_000_000),
                ..LayerRow::default()
            })
            .collect();
        let svg = layer_chart(&rows);
        assert_eq!(svg.matches("class=\"bar fwd\"").count(), 128);
        assert_eq!(svg.matches("class=\"bar bwd\"").count(), 128);
        assert_eq!(svg.matches(">1.000 / 2.000<").count(), 128);
        assert!(svg.contains(">L127<") && svg.contains("<svg class=\"chart dense\""));
        // Ticks every 0.5 ms, labelled with the step's precision.
        assert!(svg.contains(">0.5</text>") && svg.contains(">2.0</text>"));
        let few = layer_chart(&rows[..3]);
        assert_eq!(few.matches("class=\"value\"").count(), 6);
    }
}
