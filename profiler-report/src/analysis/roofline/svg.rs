//! The roofline plot: log-log axes (FLOP/byte against GFLOP/s), one line per
//! bandwidth ceiling and per compute ceiling (equal peaks share a line), the
//! roof the bricks are judged against drawn bold, and one labelled point per
//! annotated brick with its numbers in a tooltip; imported ncu kernels also
//! at every memory level the export measured (`svg_levels`).

use super::bricks::{BrickPoint, BrickRoofline};
use super::svg_levels;
use super::units::{Bound, CeilingSource, MemoryLevel};
use crate::base::escape::visible;
use crate::base::plot::{Anchor, LogAxis, Rect, Svg, place_labels};
use crate::base::textfmt::{num, pct, si};

const WIDTH: f64 = 820.0;
const HEIGHT: f64 = 540.0;
const LEFT: f64 = 76.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 52.0;
const BOTTOM: f64 = 58.0;
/// Width of one label character at the label font size, px (an estimate:
/// SVG has no text metrics without a font).
const CHAR_W: f64 = 6.0;
const LINE_H: f64 = 12.0;

/// Plain colours first, theme variables second: a renderer without CSS
/// variables keeps the first declaration, a browser page uses its theme.
const CSS: &str = r#".pr-roofline text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 11px; fill: #1f2328; fill: var(--fg, #1f2328); }
.pr-roofline .background { fill: #ffffff; fill: var(--bg, #ffffff); }
.pr-roofline .tick, .pr-roofline .axis-label, .pr-roofline .caption { fill: #59636e; fill: var(--muted, #59636e); }
.pr-roofline .title { font-size: 13px; font-weight: 600; }
.pr-roofline .grid { stroke: #d1d9e0; stroke: var(--border, #d1d9e0); stroke-width: 1; }
.pr-roofline .minor { stroke: #d1d9e0; stroke: var(--border, #d1d9e0); stroke-width: 0.5; opacity: 0.6; }
.pr-roofline .axis { stroke: #59636e; stroke: var(--muted, #59636e); stroke-width: 1; }
.pr-roofline .ceiling { stroke: #8c959f; stroke-width: 1.4; fill: none; }
.pr-roofline .ceiling.estimate { stroke-dasharray: 6 4; }
.pr-roofline .roof { stroke: #0969da; stroke: var(--accent, #0969da); stroke-width: 2.6; fill: none; }
.pr-roofline .ceiling-label { font-size: 10px; fill: #59636e; fill: var(--muted, #59636e); }
.pr-roofline .memory circle, .pr-roofline circle.memory { fill: #4e79a7; }
.pr-roofline .compute circle, .pr-roofline circle.compute { fill: #f28e2b; }
.pr-roofline .above circle, .pr-roofline circle.above { fill: #e15759; }
.pr-roofline .point circle { stroke: #ffffff; stroke-width: 0.8; }
.pr-roofline .label { font-size: 10px; }
.pr-roofline .leader { stroke: #8c959f; stroke-width: 0.6; }
"#;

/// Axis ranges covering every point, ridge and peak.
fn axes(r: &BrickRoofline) -> (LogAxis, LogAxis) {
    let peaks: Vec<f64> = r
        .roofline
        .compute_ceilings()
        .iter()
        .map(|c| c.tflops * 1e3)
        .collect();
    let bws: Vec<f64> = r
        .roofline
        .memory_ceilings()
        .iter()
        .map(|m| m.gb_s)
        .collect();
    let ridges = peaks.iter().flat_map(|p| bws.iter().map(move |b| p / b));
    let (level_xs, level_ys) = svg_levels::axis_values(r);
    let xs: Vec<f64> = ridges
        .chain(r.points.iter().map(|p| p.arithmetic_intensity))
        .chain(level_xs)
        .collect();
    let max_peak = peaks.iter().copied().fold(0.0, f64::max);
    let ys: Vec<f64> = r
        .points
        .iter()
        .map(|p| p.achieved_gflops)
        .chain([max_peak])
        .chain(level_ys)
        .collect();
    let fold = |v: &[f64], f: fn(f64, f64) -> f64, init: f64| {
        v.iter()
            .copied()
            .filter(|v| v.is_finite() && *v > 0.0)
            .fold(init, f)
    };
    let (x_lo, x_hi) = (fold(&xs, f64::min, f64::INFINITY), fold(&xs, f64::max, 0.0));
    let (y_lo, y_hi) = (fold(&ys, f64::min, f64::INFINITY), fold(&ys, f64::max, 0.0));
    // Room around the data: a third of a decade or more each side.
    let x = LogAxis::covering(x_lo / 3.0, x_hi * 3.0, 3, LEFT, WIDTH - RIGHT);
    let y = LogAxis::covering(y_lo / 3.0, y_hi * 2.0, 3, HEIGHT - BOTTOM, TOP);
    (x, y)
}

fn source_text(s: CeilingSource) -> &'static str {
    match s {
        CeilingSource::Published => "published ceilings",
        CeilingSource::Measured => "ceilings measured on this machine",
        CeilingSource::Custom => "configured ceilings",
    }
}

/// The plot as a standalone SVG document (no XML prolog, so it also embeds
/// inline in HTML).
pub(crate) fn roofline_svg(r: &BrickRoofline) -> String {
    let (x, y) = axes(r);
    let label = format!(
        "Roofline of {}: performance against arithmetic intensity",
        visible(&r.roofline.name)
    );
    let css = if r.hierarchy.is_empty() {
        CSS.to_owned()
    } else {
        format!("{CSS}{}", svg_levels::CSS)
    };
    let mut svg = Svg::new(WIDTH, HEIGHT, "pr-roofline", &label, &css);
    svg.rect(0.0, 0.0, WIDTH, HEIGHT, "background", None);
    svg.text(
        LEFT,
        18.0,
        Anchor::Start,
        "title",
        &format!(
            "Roofline: {} ({})",
            visible(&r.roofline.name),
            source_text(r.roofline.source)
        ),
    );
    legend(&mut svg, r);
    svg_levels::legend(&mut svg, r, WIDTH - RIGHT, 18.0);
    grid(&mut svg, &x, &y);
    ceilings(&mut svg, r, &x, &y);
    svg_levels::draw(&mut svg, r, &x, &y);
    let unlabelled = points(&mut svg, r, &x, &y);
    if unlabelled > 0 {
        svg.text(
            LEFT,
            HEIGHT - 8.0,
            Anchor::Start,
            "caption",
            &format!(
                "{unlabelled} of {} points unlabelled: hover a point for its name",
                r.points.len()
            ),
        );
    }
    if r.points.is_empty() {
        svg.text(
            (LEFT + WIDTH - RIGHT) / 2.0,
            (TOP + HEIGHT - BOTTOM) / 2.0,
            Anchor::Middle,
            "caption",
            "no brick carries FLOPs, bytes and time",
        );
    }
    if !r.not_annotated.is_empty() {
        svg.text(
            WIDTH - RIGHT,
            HEIGHT - 8.0,
            Anchor::End,
            "caption",
            &format!(
                "{} brick(s) without FLOPs or bytes not plotted",
                r.not_annotated.len()
            ),
        );
    }
    svg.finish()
}

fn legend(svg: &mut Svg, r: &BrickRoofline) {
    let y = 36.0;
    let mut lx = LEFT;
    for (class, text) in [
        ("memory", "memory-bound"),
        ("compute", "compute-bound"),
        ("above", "above the roof"),
    ] {
        svg.circle(lx + 4.0, y - 4.0, 4.0, class, None);
        svg.text(lx + 12.0, y, Anchor::Start, "caption", text);
        // Legend text is 11 px, wider than the 10 px labels CHAR_W estimates.
        lx += 36.0 + 7.0 * text.len() as f64;
    }
    svg.line(lx, y - 4.0, lx + 22.0, y - 4.0, "roof");
    let est = if r.estimate { ", estimate" } else { "" };
    let busy = if r.roofline.busy.is_some() {
        ", measured on a busy machine"
    } else {
        ""
    };
    let used = if r.by_working_set {
        format!("roofs used: {} / each brick's level{busy}", r.precision)
    } else {
        format!("roof used: {} / {}{est}{busy}", r.precision, r.level)
    };
    svg.text(lx + 28.0, y, Anchor::Start, "caption", &used);
}

fn grid(svg: &mut Svg, x: &LogAxis, y: &LogAxis) {
    let (x0, x1, y0, y1) = (LEFT, WIDTH - RIGHT, HEIGHT - BOTTOM, TOP);
    for v in x.minor() {
        svg.line(x.px(v), y0, x.px(v), y1, "minor");
    }
    for v in y.minor() {
        svg.line(x0, y.px(v), x1, y.px(v), "minor");
    }
    for (v, label) in x.decades() {
        svg.line(x.px(v), y0, x.px(v), y1, "grid");
        svg.text(x.px(v), y0 + 16.0, Anchor::Middle, "tick", &label);
    }
    for (v, label) in y.decades() {
        svg.line(x0, y.px(v), x1, y.px(v), "grid");
        svg.text(x0 - 6.0, y.px(v) + 4.0, Anchor::End, "tick", &label);
    }
    svg.line(x0, y0, x1, y0, "axis");
    svg.line(x0, y0, x0, y1, "axis");
    svg.text(
        (x0 + x1) / 2.0,
        HEIGHT - 22.0,
        Anchor::Middle,
        "axis-label",
        "Arithmetic intensity (FLOP/byte)",
    );
    svg.text_rotated(
        18.0,
        (y0 + y1) / 2.0,
        -90.0,
        "axis-label",
        "Performance (GFLOP/s)",
    );
}

/// Bandwidth diagonals up to the highest peak, compute horizontals from the
/// fastest bandwidth line, then the roof used, bold.
fn ceilings(svg: &mut Svg, r: &BrickRoofline, x: &LogAxis, y: &LogAxis) {
    let compute = r.roofline.compute_ceilings();
    let memory = r.roofline.memory_ceilings();
    let max_peak = compute.iter().map(|c| c.tflops * 1e3).fold(0.0, f64::max);
    let max_bw = memory.iter().map(|m| m.gb_s).fold(0.0, f64::max);
    for m in memory {
        let top = if max_peak > 0.0 { max_peak } else { y.max() };
        let xs = x.min().max(y.min() / m.gb_s);
        let xe = x.max().min(top / m.gb_s);
        if xs >= xe {
            continue;
        }
        let class = if m.estimate {
            "ceiling estimate"
        } else {
            "ceiling"
        };
        let (px0, py0, px1, py1) = (x.px(xs), y.px(xs * m.gb_s), x.px(xe), y.px(xe * m.gb_s));
        svg.line(px0, py0, px1, py1, class);
        // Label along the line, a little in from its start.
        let angle = (py1 - py0).atan2(px1 - px0).to_degrees();
        let (lx, ly) = (px0 + 0.12 * (px1 - px0), py0 + 0.12 * (py1 - py0));
        let est = if m.estimate { " (est.)" } else { "" };
        let text = format!("{} {}B/s{est}", m.level, si(m.gb_s * 1e9));
        svg_rotated_label(svg, lx, ly - 5.0, angle, &text);
    }
    // Equal peaks (e.g. TF32 and BF16 on some GPUs) share one line.
    let mut groups: Vec<(f64, Vec<String>, bool)> = Vec::new();
    for c in compute {
        let v = c.tflops * 1e3;
        match groups.iter_mut().find(|g| (g.0 - v).abs() <= 1e-9 * v) {
            Some(g) => {
                g.1.push(c.precision.name().to_owned());
                g.2 |= c.estimate;
            }
            None => groups.push((v, vec![c.precision.name().to_owned()], c.estimate)),
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
    let (Ok(c), Ok(m)) = (r.roofline.compute(r.precision), r.roofline.memory(level)) else {
        return;
    };
    let (peak, bw) = (c.tflops * 1e3, m.gb_s);
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

/// One group per point (marker, label, tooltip); labels placed where they
/// overlap no marker and no earlier label. Returns how many points were
/// drawn without a label (past the label cap; their tooltip names them).
fn points(svg: &mut Svg, r: &BrickRoofline, x: &LogAxis, y: &LogAxis) -> usize {
    let points = &r.points;
    // The label names the level when bricks have their own.
    let label_of = |p: &BrickPoint| {
        if r.by_working_set || p.level_choice.is_pinned() {
            format!("{} ({})", visible(&p.name), p.level)
        } else {
            visible(&p.name).into_owned()
        }
    };
    let plot = Rect {
        x0: LEFT,
        y0: TOP,
        x1: WIDTH - RIGHT,
        y1: HEIGHT - BOTTOM,
    };
    let drawn: Vec<(&BrickPoint, f64, f64)> = points
        .iter()
        .map(|p| (p, x.px(p.arithmetic_intensity), y.px(p.achieved_gflops)))
        .filter(|(_, px, py)| px.is_finite() && py.is_finite())
        .collect();
    // Points come largest brick first, so those get the best label spots.
    let specs: Vec<(f64, f64, f64)> = drawn
        .iter()
        .map(|(p, px, py)| (*px, *py, CHAR_W * label_of(p).chars().count() as f64))
        .collect();
    let labels = place_labels(&specs, plot, LINE_H);
    let unlabelled = labels.iter().filter(|l| l.is_none()).count();
    for ((p, px, py), label) in drawn.iter().zip(labels) {
        let class = if p.above_roof {
            "point above"
        } else {
            match p.bound {
                Bound::Memory => "point memory",
                Bound::Compute => "point compute",
            }
        };
        // Names as the terminal shows them: no control or bidi character.
        let name = visible(&p.name);
        let above = match (p.above_roof, p.check) {
            (true, Some(check)) => format!(", above the roof: check its `{check}` annotation"),
            (true, None) => ", above the roof".to_owned(),
            (false, _) => String::new(),
        };
        let tip = format!(
            "{}: {} FLOP/byte, {} GFLOP/s = {} of the {} roof ({} GFLOP/s), {}{above}; {} calls, {} ms, {}B per call ({})",
            name,
            num(p.arithmetic_intensity),
            num(p.achieved_gflops),
            pct(p.roof_pct),
            p.level,
            num(p.attainable_gflops),
            p.bound,
            p.calls,
            num(p.total_ns as f64 / 1e6),
            si(p.bytes_per_call as f64),
            r.level_origin(p)
        );
        svg.open_group(class, Some(&tip));
        svg.circle(*px, *py, 4.5, "", None);
        if let Some(label) = label {
            if let Some((x1, y1, x2, y2)) = label.leader {
                svg.line(x1, y1, x2, y2, "leader");
            }
            svg.text(label.x, label.y, label.anchor, "label", &label_of(p));
        }
        svg.close_group();
    }
    unlabelled
}

impl BrickRoofline {
    /// The roofline plot as SVG: log-log axes with units and decade ticks,
    /// every ceiling of the device (estimates dashed), the roof used in bold,
    /// and one labelled point per annotated brick (its numbers in a
    /// tooltip). Every name is XML-escaped; no coordinate is ever NaN.
    #[must_use]
    pub fn to_svg(&self) -> String {
        roofline_svg(self)
    }
}
