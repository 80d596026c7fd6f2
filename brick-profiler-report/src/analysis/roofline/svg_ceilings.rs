//! The ceilings of the roofline plot: a diagonal per bandwidth level up to
//! the highest peak, a horizontal per compute peak from the fastest
//! bandwidth line (equal peaks share a line), and the roof the bricks are
//! judged against drawn bold.

use super::bricks::BrickRoofline;
use super::kernel::{compute, memory};
use crate::base::plot::{Anchor, LogAxis, Svg};
use crate::base::textfmt::si;
use profiler_core::hardware::MemoryLevel;

/// Width of one label character at the label font size, px (an estimate:
/// SVG has no text metrics without a font).
pub(super) const CHAR_W: f64 = 6.0;

/// Bandwidth diagonals up to the highest peak, compute horizontals from the
/// fastest bandwidth line, then the roof used, bold.
pub(super) fn ceilings(svg: &mut Svg, r: &BrickRoofline, x: &LogAxis, y: &LogAxis) {
    let hw = &r.hardware;
    let max_peak = hw
        .compute_ceilings()
        .map(|(_, c)| c.value * 1e3)
        .fold(0.0, f64::max);
    let max_bw = hw
        .memory_ceilings()
        .map(|(_, m)| m.value)
        .fold(0.0, f64::max);
    for (level, m) in hw.memory_ceilings() {
        let (gb_s, estimate) = (m.value, m.is_estimate());
        let top = if max_peak > 0.0 { max_peak } else { y.max() };
        let xs = x.min().max(y.min() / gb_s);
        let xe = x.max().min(top / gb_s);
        if xs >= xe {
            continue;
        }
        let class = if estimate {
            "ceiling estimate"
        } else {
            "ceiling"
        };
        let (px0, py0, px1, py1) = (x.px(xs), y.px(xs * gb_s), x.px(xe), y.px(xe * gb_s));
        svg.line(px0, py0, px1, py1, class);
        // Label along the line, a little in from its start.
        let angle = (py1 - py0).atan2(px1 - px0).to_degrees();
        let (lx, ly) = (px0 + 0.12 * (px1 - px0), py0 + 0.12 * (py1 - py0));
        let est = if estimate { " (est.)" } else { "" };
        let text = format!("{level} {}B/s{est}", si(gb_s * 1e9));
        svg_rotated_label(svg, lx, ly - 5.0, angle, &text);
    }
    // Equal peaks (e.g. TF32 and BF16 on some GPUs) share one line.
    let mut groups: Vec<(f64, Vec<String>, bool)> = Vec::new();
    for (precision, c) in hw.compute_ceilings() {
        let v = c.value * 1e3;
        match groups.iter_mut().find(|g| (g.0 - v).abs() <= 1e-9 * v) {
            Some(g) => {
                g.1.push(precision.name().to_owned());
                g.2 |= c.is_estimate();
            }
            None => groups.push((v, vec![precision.name().to_owned()], c.is_estimate())),
        }
    }
    for (v, names, estimate) in groups {
        let xs = if max_bw > 0.0 {
            x.min().max(v / max_bw)
        } else {
            x.min()
        };
        if !y.contains(v) || xs >= x.max() {
            continue;
        }
        let class = if estimate {
            "ceiling estimate"
        } else {
            "ceiling"
        };
        svg.line(x.px(xs), y.px(v), x.px(x.max()), y.px(v), class);
        let est = if estimate { " (est.)" } else { "" };
        svg.text(
            x.px(x.max()) - 4.0,
            y.px(v) - 5.0,
            Anchor::End,
            "ceiling-label",
            &format!("{} {}FLOP/s{est}", names.join(" / "), si(v * 1e9)),
        );
    }
    // The roofs used: min(peak, intensity x bandwidth), across the axis.
    let mut levels: Vec<MemoryLevel> = r.points.iter().map(|p| p.level).collect();
    if !r.by_working_set || levels.is_empty() {
        levels.push(r.level);
    }
    levels.sort();
    levels.dedup();
    for level in levels {
        roof(svg, r, level, x, y);
    }
}

/// One roof, bold: the `level` bandwidth up to the ridge, then the peak.
fn roof(svg: &mut Svg, r: &BrickRoofline, level: MemoryLevel, x: &LogAxis, y: &LogAxis) {
    let (Ok(c), Ok(m)) = (
        compute(&r.hardware, r.precision),
        memory(&r.hardware, level),
    ) else {
        return;
    };
    let (peak, bw) = (c.value * 1e3, m.value);
    let ridge = peak / bw;
    let start = x.min().max(y.min() / bw);
    if start < ridge.min(x.max()) {
        svg.line(
            x.px(start),
            y.px(start * bw),
            x.px(ridge.min(x.max())),
            y.px(ridge.min(x.max()) * bw),
            "roof",
        );
    }
    if ridge < x.max() {
        svg.line(
            x.px(ridge.max(x.min())),
            y.px(peak),
            x.px(x.max()),
            y.px(peak),
            "roof",
        );
    }
}

fn svg_rotated_label(svg: &mut Svg, x: f64, y: f64, angle: f64, text: &str) {
    // Rotated text anchors at its middle; shift so it starts near (x, y).
    let half = CHAR_W * text.chars().count() as f64 / 2.0;
    let rad = angle.to_radians();
    svg.text_rotated(
        x + half * rad.cos(),
        y + half * rad.sin(),
        angle,
        "ceiling-label",
        text,
    );
}
