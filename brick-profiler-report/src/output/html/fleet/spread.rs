//! Step time per rank on one axis: a box per rank (or pooled ranks) with
//! its whiskers, stragglers in the alarm colour, the slowest steps beyond
//! their whisker as dots to hover, and the fleet's median and threshold.

use crate::analysis::fleet::{FleetReport, RankBox};
use crate::base::plot::{Anchor, Frame, Rect, Svg};
use crate::base::textfmt::{duration, int};

const WIDTH: f64 = 1100.0;
const HEIGHT: f64 = 320.0;
const AREA: Rect = Rect {
    x0: 70.0,
    y0: 16.0,
    x1: WIDTH - 170.0,
    y1: HEIGHT - 50.0,
};

/// The chart's own rules (scoped to it).
const CSS: &str = ".fleet-spread .box { fill: var(--bar); fill-opacity: 0.35; stroke: var(--bar); stroke-width: 1; }
.fleet-spread .straggler .box { fill: var(--bad); fill-opacity: 0.35; stroke: var(--bad); }
.fleet-spread .whisker { stroke: var(--bar); stroke-width: 1; }
.fleet-spread .straggler .whisker { stroke: var(--bad); }
.fleet-spread .median { stroke: var(--fg); stroke-width: 2; }
.fleet-spread .outlier { fill: #e8871e; stroke: var(--bg); stroke-width: 0.5; }
.fleet-spread .outlier.above { fill: var(--bad); }
.fleet-spread .straggler-label { fill: var(--bad); font-weight: 600; }
.fleet-spread line.ref { stroke: var(--fg); stroke-width: 1; stroke-dasharray: 5 4; }
.fleet-spread line.ref.threshold { stroke: var(--bad); stroke-dasharray: 2 3; }
.fleet-spread text.ref { fill: var(--muted); }
.fleet-spread g.rank:hover .box { fill-opacity: 0.6; }
";

/// `rank 3` or `ranks 8–15`.
fn who(b: &RankBox) -> String {
    if b.first_rank == b.last_rank {
        format!("rank {}", b.first_rank)
    } else {
        format!("ranks {}–{}", b.first_rank, b.last_rank)
    }
}

/// The box plot of `report`'s step times.
pub(super) fn chart(report: &FleetReport) -> String {
    let c = &report.charts;
    // Step times against the fleet's median step; the straggler threshold
    // is of step times only when no collective makes ranks judged by their
    // own work.
    let median = report.median_step_ns();
    let threshold =
        (!report.time.has_communication()).then_some(report.step_threshold.threshold_ns);
    let n = c.boxes.len().max(1) as f64;
    // The axis reaches the whiskers and the threshold with room to spare;
    // slower steps sit on its top edge, their times in their tooltips.
    let y_max = c
        .boxes
        .iter()
        .map(|b| b.whisker_ns)
        .fold(threshold.unwrap_or(median), f64::max)
        * 1.3
        / 1e6;
    // From 0, unless every box sits far above it: then from below the
    // fastest whisker, so boxes a few percent apart can be told apart.
    let y_min = c
        .boxes
        .iter()
        .map(|b| b.low_whisker_ns)
        .fold(f64::INFINITY, f64::min)
        / 1e6;
    let y_min = if y_min.is_finite() && y_min > 0.5 * y_max {
        y_min * 0.9
    } else {
        0.0
    };
    let frame = Frame::new(AREA, (0.0, n), (y_min, y_max));
    let mut svg = Svg::new(
        WIDTH,
        HEIGHT,
        "chart fleet-spread",
        "Step time per rank, ms",
        CSS,
    );
    let x_label = if c.boxes.iter().any(|b| b.first_rank != b.last_rank) {
        "rank (neighbouring ranks pooled into one box)"
    } else {
        "rank"
    };
    frame.axes(
        &mut svg,
        (x_label, "step time, ms"),
        &|_, _| String::new(),
        &|_, l| l.to_owned(),
        true,
    );
    let slot = (AREA.x1 - AREA.x0) / n;
    // Rank labels no closer than 40 px.
    let every = (40.0 / slot).ceil().max(1.0) as usize;
    let centre = |i: usize| AREA.x0 + slot * (i as f64 + 0.5);
    let marked: Vec<f64> = (0..c.boxes.len())
        .filter(|&i| !c.boxes[i].stragglers.is_empty())
        .map(centre)
        .collect();
    for (i, b) in c.boxes.iter().enumerate() {
        let cx = centre(i);
        draw_box(&mut svg, &frame, b, cx, (slot * 0.6).clamp(1.0, 40.0));
        let straggler = !b.stragglers.is_empty();
        // A straggler's label wins over a regular one beside it.
        let crowded = !straggler && marked.iter().any(|m| (m - cx).abs() < 30.0);
        if (i % every == 0 && !crowded) || straggler {
            let class = if straggler { "straggler-label" } else { "tick" };
            let label = if straggler && b.first_rank != b.last_rank {
                format!("{}", b.stragglers[0])
            } else {
                format!("{}", b.first_rank)
            };
            svg.text(cx, AREA.y1 + 16.0, Anchor::Middle, class, &label);
        }
    }
    let index_of = |rank: u32| {
        c.boxes
            .iter()
            .position(|b| (b.first_rank..=b.last_rank).contains(&rank))
    };
    for s in &c.slow_steps {
        let Some(i) = index_of(s.rank) else { continue };
        let cx = AREA.x0 + slot * (i as f64 + 0.5);
        let above = s.ns / 1e6 > frame.y.max();
        if s.ns / 1e6 < frame.y.min() {
            continue;
        }
        let (_, py) = frame.at(0.0, (s.ns / 1e6).min(frame.y.max()));
        let mut tip = format!("rank {}, step {}: {}", s.rank, s.step, duration(s.ns));
        if above {
            tip.push_str(" (above the axis)");
        }
        let class = if above { "outlier above" } else { "outlier" };
        svg.circle(cx, py, 3.0, class, Some(&tip));
    }
    let mut lines = vec![(
        median / 1e6,
        "ref",
        format!("fleet median {}", duration(median)),
    )];
    if let Some(threshold) = threshold {
        lines.push((
            threshold / 1e6,
            "ref threshold",
            format!("threshold {}", duration(threshold)),
        ));
    }
    frame.y_lines(&mut svg, &lines);
    svg.finish()
}

/// One box with its whiskers and median, and a tooltip with its numbers.
fn draw_box(svg: &mut Svg, frame: &Frame, b: &RankBox, cx: f64, w: f64) {
    let class = if b.stragglers.is_empty() {
        "rank".to_owned()
    } else {
        "rank straggler".to_owned()
    };
    let mut tip = format!(
        "{}: median {}, p25–p75 {}–{}, whiskers {}–{}, fastest {}, slowest {} ({} steps)",
        who(b),
        duration(b.median_ns),
        duration(b.p25_ns),
        duration(b.p75_ns),
        duration(b.low_whisker_ns),
        duration(b.whisker_ns),
        duration(b.min_ns),
        duration(b.max_ns),
        int(b.samples as u64)
    );
    if !b.stragglers.is_empty() {
        let names: Vec<String> = b.stragglers.iter().map(u32::to_string).collect();
        tip.push_str(&format!(" · straggler: rank {}", names.join(", ")));
    }
    svg.open_group(&class, Some(&tip));
    let y = |ns: f64| frame.at(0.0, ns / 1e6).1;
    svg.line(cx, y(b.low_whisker_ns), cx, y(b.p25_ns), "whisker");
    svg.line(cx, y(b.p75_ns), cx, y(b.whisker_ns), "whisker");
    let (top, bottom) = (y(b.p75_ns), y(b.p25_ns));
    svg.rect(cx - w / 2.0, top, w, (bottom - top).max(1.0), "box", None);
    svg.line(
        cx - w / 2.0,
        y(b.median_ns),
        cx + w / 2.0,
        y(b.median_ns),
        "median",
    );
    svg.close_group();
}
