//! The hierarchical part of the roofline plot: each imported ncu kernel
//! drawn once per memory level the export measured (a marker in the
//! level's colour, the kernel's markers joined by a thin line, as Nsight
//! Compute's hierarchical roofline does), each level's roof, and a legend
//! naming the levels.

use super::bricks::BrickRoofline;
use super::kernel::compute;
use crate::base::escape::visible;
use crate::base::plot::{Anchor, LogAxis, Svg};
use crate::base::textfmt::{num, si};
use profiler_core::hardware::MemoryLevel;

/// One colour per level; the roofs are drawn in their level's colour too.
pub(super) const CSS: &str = r".pr-roofline .level-l1 { fill: #59a14f; stroke: #59a14f; }
.pr-roofline .level-l2 { fill: #b07aa1; stroke: #b07aa1; }
.pr-roofline .level-l3 { fill: #76b7b2; stroke: #76b7b2; }
.pr-roofline .level-dram { fill: #9c755f; stroke: #9c755f; }
.pr-roofline .level-pcie { fill: #bab0ac; stroke: #bab0ac; }
.pr-roofline line.level-roof { fill: none; stroke-width: 1.6; stroke-dasharray: 2 3; }
.pr-roofline .level-mark { stroke: #ffffff; stroke-width: 0.8; }
.pr-roofline .level-path { fill: none; stroke: #8c959f; stroke-width: 0.8; }
";

/// The CSS class of `level`: `level-l1`, `level-dram`, ...
fn class(level: MemoryLevel) -> String {
    format!("level-{}", level.name().to_ascii_lowercase())
}

/// Intensities and rates the axes must cover: every mark, and every
/// level roof's ridge with the main compute peak.
pub(super) fn axis_values(r: &BrickRoofline) -> (Vec<f64>, Vec<f64>) {
    let peak = compute(&r.hardware, r.precision).map_or(0.0, |c| c.value * 1e3);
    let mut xs: Vec<f64> = r.hierarchy.roofs.iter().map(|l| peak / l.gb_s).collect();
    let mut ys = Vec::new();
    for k in &r.hierarchy.kernels {
        xs.extend(k.marks.iter().map(|m| m.arithmetic_intensity));
        ys.push(k.achieved_gflops);
    }
    (xs, ys)
}

/// The legend of the levels, right-aligned on the title's row.
pub(super) fn legend(svg: &mut Svg, r: &BrickRoofline, right: f64, y: f64) {
    if r.hierarchy.is_empty() {
        return;
    }
    let levels: Vec<MemoryLevel> = r.hierarchy.roofs.iter().map(|l| l.level).collect();
    let width: f64 = levels
        .iter()
        .map(|l| 22.0 + 7.0 * l.name().len() as f64)
        .sum();
    let mut lx = right - width;
    svg.text(lx - 6.0, y, Anchor::End, "caption", "ncu levels:");
    for level in levels {
        svg.circle(lx + 4.0, y - 4.0, 4.0, &class(level), None);
        svg.text(lx + 12.0, y, Anchor::Start, "caption", level.name());
        lx += 22.0 + 7.0 * level.name().len() as f64;
    }
}

/// Each level's roof (dotted, in its colour, up to the ridge with the main
/// compute peak), then each kernel's marks joined by a thin line.
pub(super) fn draw(svg: &mut Svg, r: &BrickRoofline, x: &LogAxis, y: &LogAxis) {
    let Ok(peak) = compute(&r.hardware, r.precision) else {
        return;
    };
    let peak = peak.value * 1e3;
    for roof in &r.hierarchy.roofs {
        let start = x.min().max(y.min() / roof.gb_s);
        let end = x.max().min(peak / roof.gb_s);
        if start >= end {
            continue;
        }
        let tip = format!(
            "{} roof: {}B/s ({})",
            roof.level,
            si(roof.gb_s * 1e9),
            visible(&roof.source)
        );
        svg.open_group("level-roofs", Some(&tip));
        let (x0, y0) = (x.px(start), y.px(start * roof.gb_s));
        let (x1, y1) = (x.px(end), y.px(end * roof.gb_s));
        svg.line(x0, y0, x1, y1, &format!("level-roof {}", class(roof.level)));
        svg.close_group();
    }
    for k in &r.hierarchy.kernels {
        let name = visible(&k.name);
        let at: Vec<String> = k
            .marks
            .iter()
            .map(|m| format!("{} {} FLOP/byte", m.level, num(m.arithmetic_intensity)))
            .collect();
        let tip = format!(
            "{name}: {} GFLOP/s; {}",
            num(k.achieved_gflops),
            at.join(", ")
        );
        svg.open_group("kernel-levels", Some(&tip));
        let py = y.px(k.achieved_gflops);
        let mut path: Vec<(f64, f64)> = k
            .marks
            .iter()
            .map(|m| (x.px(m.arithmetic_intensity), py))
            .collect();
        path.sort_by(|a, b| a.0.total_cmp(&b.0));
        svg.polyline(&path, "level-path");
        for m in &k.marks {
            let tip = format!(
                "{name} at {}: {} FLOP/byte, {} GFLOP/s",
                m.level,
                num(m.arithmetic_intensity),
                num(k.achieved_gflops)
            );
            svg.circle(
                x.px(m.arithmetic_intensity),
                py,
                4.0,
                &format!("level-mark {}", class(m.level)),
                Some(&tip),
            );
        }
        svg.close_group();
    }
}
