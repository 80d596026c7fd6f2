//! Where each rank's step went: one stacked bar per rank (or pooled ranks)
//! of its median step split by phase (a collective as its transfer), then
//! outside any phase, then the wait at collectives for slower ranks, with
//! the fleet's median and the straggler threshold marked.

use std::fmt::Write as _;

use crate::analysis::fleet::{FleetReport, StepBreakdown};
use crate::base::escape::visible;
use crate::base::plot::{Anchor, LinearAxis, Svg};
use crate::base::textfmt::{DASH, duration, fixed, pct};

/// Fills of the phases, in the report's phase order (repeating past ten).
pub(super) const PHASE_FILLS: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#ff9da7",
    "#e15759", "#bab0ac",
];

const WIDTH: f64 = 1100.0;
const LEFT: f64 = 150.0;
const RIGHT: f64 = 110.0;
const TOP: f64 = 58.0;
const BOTTOM: f64 = 44.0;

/// The chart's own rules (scoped to it), phase fills included.
fn css() -> String {
    let mut css = String::from(
        ".fleet-bars .outside { fill: var(--muted); fill-opacity: 0.55; }
.fleet-bars .unsplit { fill: none; stroke: var(--muted); stroke-dasharray: 3 2; }
.fleet-bars .straggler-label { fill: var(--bad); font-weight: 600; }
.fleet-bars line.ref { stroke: var(--fg); stroke-width: 1.2; stroke-dasharray: 5 4; }
.fleet-bars line.ref.threshold { stroke: var(--bad); stroke-dasharray: 2 3; }
.fleet-bars text.ref { fill: var(--muted); }
.fleet-bars text.ref.threshold { fill: var(--bad); }
.fleet-bars g.bar:hover rect { stroke: var(--fg); stroke-width: 0.6; }
.fleet-bars .comm-transfer { fill: #1f4e79; }
.fleet-bars .comm-wait { fill: var(--fg); fill-opacity: 0.72; }
",
    );
    for (i, fill) in PHASE_FILLS.iter().enumerate() {
        let _ = writeln!(css, ".fleet-bars .ph{i} {{ fill: {fill}; }}");
    }
    css
}

/// The class of phase `i`'s segments and swatch.
fn phase_class(i: usize) -> String {
    format!("ph{}", i % PHASE_FILLS.len())
}

/// The bar's label: `rank 2`, or `ranks 0–20 (mean)`.
fn label(b: &StepBreakdown) -> String {
    if b.ranks == 1 {
        format!("rank {}", b.first_rank)
    } else {
        format!("ranks {}–{} (mean)", b.first_rank, b.last_rank)
    }
}

/// The stacked bar chart of `report`'s step splits.
pub(super) fn chart(report: &FleetReport) -> String {
    let bars = &report.charts.breakdown;
    let stragglers = report.straggler_ranks();
    let pitch = if bars.len() <= 16 { 26.0 } else { 16.0 };
    let bar_h = pitch - 6.0;
    let plot_h = pitch * bars.len() as f64;
    let height = TOP + plot_h + BOTTOM;
    let t = &report.step_threshold;
    let max = bars
        .iter()
        .map(|b| b.median_ns)
        .fold(t.threshold_ns.max(t.median_ns), f64::max);
    let x = LinearAxis::to(max / 1e6, LEFT, WIDTH - RIGHT);
    let mut svg = Svg::new(
        WIDTH,
        height,
        "chart fleet-bars",
        "Median step per rank, split by phase, ms",
        &css(),
    );
    legend(&mut svg, report);
    for (v, tick) in x.ticks() {
        let px = x.px(v);
        svg.line(px, TOP, px, TOP + plot_h, "grid");
        svg.text(px, TOP + plot_h + 16.0, Anchor::Middle, "tick", &tick);
    }
    svg.text(
        (LEFT + WIDTH - RIGHT) / 2.0,
        height - 8.0,
        Anchor::Middle,
        "axis-label",
        "median step, ms",
    );
    for (i, b) in bars.iter().enumerate() {
        let y = TOP + pitch * i as f64 + 3.0;
        let class = if b.ranks == 1 && stragglers.contains(&b.first_rank) {
            "straggler-label"
        } else {
            "tick"
        };
        svg.text(
            LEFT - 8.0,
            y + bar_h / 2.0 + 4.0,
            Anchor::End,
            class,
            &label(b),
        );
        bar(&mut svg, report, b, &x, y, bar_h);
    }
    let judged = if report.time.has_communication() {
        " own work (step less waiting)"
    } else {
        ""
    };
    let refs = [
        (
            t.median_ns,
            "ref",
            format!("fleet median{judged} {}", duration(t.median_ns)),
        ),
        (
            t.threshold_ns,
            "ref threshold",
            format!("straggler threshold{judged} {}", duration(t.threshold_ns)),
        ),
    ];
    for (k, (ns, class, text)) in refs.iter().enumerate() {
        let px = x.px(ns / 1e6);
        svg.line(px, TOP - 4.0, px, TOP + plot_h, class);
        svg.text(px, TOP - 8.0 - 13.0 * k as f64, Anchor::Middle, class, text);
    }
    svg.finish()
}

/// One bar: its segments, each with a tooltip, and its value.
fn bar(svg: &mut Svg, report: &FleetReport, b: &StepBreakdown, x: &LinearAxis, y: f64, h: f64) {
    let who = label(b);
    let share = |ns: f64| {
        if b.median_ns > 0.0 {
            pct(100.0 * ns / b.median_ns)
        } else {
            DASH.to_owned()
        }
    };
    // A collective's time is its transfer, in its place among the phases,
    // and the wait for slower ranks, last: the bar up to the wait is the
    // rank's own work, what the straggler threshold judges.
    let mut parts: Vec<(String, String, f64)> = Vec::new();
    let mut waits: Vec<(String, String, f64)> = Vec::new();
    for (i, (p, &ns)) in report.phases.iter().zip(&b.phases_ns).enumerate() {
        let name = visible(&p.name);
        match report.time.transfer_of(&p.name) {
            Some(fastest) => {
                let transfer = fastest.min(ns);
                parts.push((
                    "seg comm-transfer".to_owned(),
                    format!("{name}: transfer (the fastest rank's time at it)"),
                    transfer,
                ));
                waits.push((
                    "seg comm-wait".to_owned(),
                    format!("{name}: waiting for slower ranks"),
                    ns - transfer,
                ));
            }
            None => parts.push((format!("seg {}", phase_class(i)), name.into_owned(), ns)),
        }
    }
    parts.push((
        "seg outside".to_owned(),
        "outside any phase".to_owned(),
        b.outside_ns,
    ));
    parts.extend(waits);
    parts.push((
        "seg unsplit".to_owned(),
        "not split (the profile records no step wall time)".to_owned(),
        b.unsplit_ns,
    ));
    svg.open_group("bar", None);
    let mut at = 0.0;
    for (class, name, ns) in parts {
        if ns <= 0.0 {
            continue;
        }
        let (x0, x1) = (x.px(at / 1e6), x.px((at + ns) / 1e6));
        at += ns;
        let tip = format!(
            "{who} · {name}: {} ({} of its median step {})",
            duration(ns),
            share(ns),
            duration(b.median_ns)
        );
        svg.rect(x0, y, (x1 - x0).max(0.5), h, &class, Some(&tip));
    }
    let median = report.median_step_ns();
    let vs = if median > 0.0 {
        format!(" ({}× fleet median step)", fixed(b.median_ns / median, 2))
    } else {
        String::new()
    };
    let note = if b.scaled {
        " · phases overlap: scaled to the step"
    } else {
        ""
    };
    svg.text(
        x.px(b.median_ns / 1e6) + 5.0,
        y + h / 2.0 + 4.0,
        Anchor::Start,
        "value",
        &format!("{}{vs}{note}", duration(b.median_ns)),
    );
    svg.close_group();
}

/// A swatch for communication and waiting (when recorded), outside any
/// phase, then each phase, on one line.
fn legend(svg: &mut Svg, report: &FleetReport) {
    // Communication, waiting and outside first: a long list of phases
    // may not fit on the line.
    let mut items: Vec<(String, String)> = Vec::new();
    if report.time.has_communication() {
        items.push((
            "comm-transfer".to_owned(),
            "communication: transfer".to_owned(),
        ));
        items.push((
            "comm-wait".to_owned(),
            "waiting for slower ranks".to_owned(),
        ));
    }
    items.push(("outside".to_owned(), "outside any phase".to_owned()));
    items.extend(
        report
            .phases
            .iter()
            .enumerate()
            .filter(|(_, p)| report.time.transfer_of(&p.name).is_none())
            .map(|(i, p)| (phase_class(i), visible(&p.name).into_owned())),
    );
    let (mut lx, ly) = (LEFT, 6.0);
    for (class, name) in items {
        let w = 30.0 + 7.0 * name.chars().count().min(40) as f64;
        if lx + w > WIDTH - RIGHT {
            // One line of legend: the rest are in the tooltips and table.
            svg.text(lx, ly + 10.0, Anchor::Start, "legend", "…");
            break;
        }
        svg.rect(lx, ly, 12.0, 12.0, &class, None);
        svg.text(lx + 17.0, ly + 10.0, Anchor::Start, "legend", &name);
        lx += w;
    }
}
