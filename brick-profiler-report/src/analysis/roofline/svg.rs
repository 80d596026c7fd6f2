//! The roofline plot: log-log axes (FLOP/byte against GFLOP/s), one line per
//! bandwidth ceiling and per compute ceiling (equal peaks share a line), the
//! roof the bricks are judged against drawn bold, and one labelled point per
//! annotated brick with its numbers in a tooltip; imported ncu kernels also
//! at every memory level the export measured (`svg_levels`).

use super::bricks::{BrickPoint, BrickRoofline};
use super::kernel::origin;
use super::svg_ceilings::{CHAR_W, ceilings};
use super::svg_levels;
use crate::base::escape::visible;
use crate::base::plot::{Anchor, LogAxis, Rect, Svg, place_labels};
use crate::base::textfmt::{num, pct, si};
use crate::model::hardware::Bound;

const WIDTH: f64 = 820.0;
const HEIGHT: f64 = 540.0;
const LEFT: f64 = 76.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 52.0;
const BOTTOM: f64 = 58.0;
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
        .hardware
        .compute_ceilings()
        .map(|(_, c)| c.value * 1e3)
        .collect();
    let bws: Vec<f64> = r.hardware.memory_ceilings().map(|(_, m)| m.value).collect();
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

/// Where the plotted ceilings come from, in words.
fn source_text(r: &BrickRoofline) -> &'static str {
    origin(
        &r.hardware,
        [
            "published ceilings",
            "ceilings measured on this machine",
            "configured ceilings",
        ],
    )
}

/// The plot as a standalone SVG document (no XML prolog, so it also embeds
/// inline in HTML).
pub(crate) fn roofline_svg(r: &BrickRoofline) -> String {
    let (x, y) = axes(r);
    let label = format!(
        "Roofline of {}: performance against arithmetic intensity",
        visible(&r.hardware.name)
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
            visible(&r.hardware.name),
            source_text(r)
        ),
    );
    legend(&mut svg, r);
    svg_levels::legend(&mut svg, r, WIDTH - RIGHT, 18.0);
    grid(&mut svg, &x, &y, r.precision.operation());
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
    let busy = if r.hardware.busy.is_some() {
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

/// `op`: what the work is counted in (`FLOP`, or `OP` for integer work).
fn grid(svg: &mut Svg, x: &LogAxis, y: &LogAxis, op: &str) {
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
        &format!("Arithmetic intensity ({op}/byte)"),
    );
    svg.text_rotated(
        18.0,
        (y0 + y1) / 2.0,
        -90.0,
        "axis-label",
        &format!("Performance (G{op}/s)"),
    );
}

/// One group per point (marker, label, tooltip); labels placed where they
/// overlap no marker and no earlier label. Returns how many points were
/// drawn without a label (past the label cap; their tooltip names them).
fn points(svg: &mut Svg, r: &BrickRoofline, x: &LogAxis, y: &LogAxis) -> usize {
    let points = &r.points;
    let op = r.precision.operation();
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
            "{}: {} {op}/byte, {} G{op}/s = {} of the {} roof ({} G{op}/s), {}{above}; {} calls, {} ms, {}B per call ({})",
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
