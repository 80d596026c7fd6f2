//! The per-op parity bar chart: for every op timed on both sides, our ms per
//! step beside the baseline's (the fastest baseline's, against several),
//! with the ratio at the end of the row and ops above the parity bar marked.

use super::model::{OpGap, PARITY_THRESHOLD, ParityComparison};
use super::multi::MultiParityComparison;
use crate::base::escape::visible;
use crate::base::plot::{Anchor, LinearAxis, Svg};
use crate::base::textfmt::{cut, num};

const WIDTH: f64 = 820.0;
const LEFT: f64 = 200.0;
const RIGHT: f64 = 96.0;
const TOP: f64 = 56.0;
const BOTTOM: f64 = 48.0;
const BAR: f64 = 9.0;
const GAP: f64 = 9.0;
/// Longest op name drawn in full (longer ones are cut; the tooltip has all).
const NAME_CHARS: usize = 28;

const CSS: &str = r#".pr-parity text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 11px; fill: #1f2328; fill: var(--fg, #1f2328); }
.pr-parity .background { fill: #ffffff; fill: var(--bg, #ffffff); }
.pr-parity .title { font-size: 13px; font-weight: 600; }
.pr-parity .tick, .pr-parity .axis-label, .pr-parity .caption { fill: #59636e; fill: var(--muted, #59636e); }
.pr-parity .grid { stroke: #d1d9e0; stroke: var(--border, #d1d9e0); stroke-width: 1; }
.pr-parity .axis { stroke: #59636e; stroke: var(--muted, #59636e); stroke-width: 1; }
.pr-parity .ours { fill: #4e79a7; }
.pr-parity .baseline { fill: #f28e2b; }
.pr-parity .ratio { font-variant-numeric: tabular-nums; }
.pr-parity .slow { fill: #cf222e; font-weight: 600; }
"#;

/// The chart of `gaps`, ours named `ours`, the bars' other side `baseline`.
pub(crate) fn parity_svg(title: &str, ours: &str, baseline: &str, gaps: &[OpGap]) -> String {
    // Names reach the SVG as the terminal shows them: no control or bidi
    // character survives, even in tooltips.
    let (title, ours, baseline) = (visible(title), visible(ours), visible(baseline));
    let (title, ours, baseline) = (title.as_ref(), ours.as_ref(), baseline.as_ref());
    let pitch = 2.0 * BAR + GAP;
    let plot_h = pitch * gaps.len().max(1) as f64;
    let height = TOP + plot_h + BOTTOM;
    let max = gaps
        .iter()
        .flat_map(|g| [g.ours_ms, g.baseline_ms])
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let x = LinearAxis::to(max, LEFT, WIDTH - RIGHT);
    let label = format!("{title}: ms per step per op");
    let mut svg = Svg::new(WIDTH, height, "pr-parity", &label, CSS);
    svg.rect(0.0, 0.0, WIDTH, height, "background", None);
    svg.text(LEFT, 18.0, Anchor::Start, "title", title);
    legend(&mut svg, ours, baseline);
    let (y0, y1) = (TOP, TOP + plot_h);
    axes(&mut svg, &x, (y0, y1), height);
    if gaps.is_empty() {
        svg.text(
            (LEFT + WIDTH - RIGHT) / 2.0,
            y0 + pitch / 2.0 + 4.0,
            Anchor::Middle,
            "caption",
            "no op has time on both sides",
        );
    }
    for (i, g) in gaps.iter().enumerate() {
        gap_bars(
            &mut svg,
            &x,
            y0 + GAP / 2.0 + pitch * i as f64,
            g,
            (ours, baseline),
        );
    }
    svg.finish()
}

/// The two sides' colours and names.
fn legend(svg: &mut Svg, ours: &str, baseline: &str) {
    let mut lx = LEFT;
    for (class, text) in [("ours", ours), ("baseline", baseline)] {
        svg.rect(lx, 30.0, 12.0, 10.0, class, None);
        let shown = cut(text, NAME_CHARS);
        svg.text(lx + 17.0, 39.0, Anchor::Start, "caption", &shown);
        lx += 40.0 + 6.0 * shown.chars().count() as f64;
    }
    svg.text(
        WIDTH - 8.0,
        39.0,
        Anchor::End,
        "caption",
        &format!("ratio = ours / baseline; bold red above {PARITY_THRESHOLD:.2}x"),
    );
}

/// The time axis over the plot's rows `y0..y1`, with its grid and label.
fn axes(svg: &mut Svg, x: &LinearAxis, (y0, y1): (f64, f64), height: f64) {
    for (v, text) in x.ticks() {
        svg.line(x.px(v), y0, x.px(v), y1, "grid");
        svg.text(x.px(v), y1 + 16.0, Anchor::Middle, "tick", &text);
    }
    svg.line(LEFT, y0, LEFT, y1, "axis");
    svg.line(LEFT, y1, WIDTH - RIGHT, y1, "axis");
    svg.text(
        (LEFT + WIDTH - RIGHT) / 2.0,
        height - 10.0,
        Anchor::Middle,
        "axis-label",
        "Time per step (ms)",
    );
}

/// One gap's name, its two bars from `top` down, and its ratio.
fn gap_bars(svg: &mut Svg, x: &LinearAxis, top: f64, g: &OpGap, (ours, baseline): (&str, &str)) {
    let by = g
        .baseline_runtime
        .as_deref()
        .map_or(baseline.into(), visible);
    let slow = g.ratio > PARITY_THRESHOLD;
    let tip = format!(
        "{}: ours {} ms, {by} {} ms per step, ratio {:.2}x{}",
        visible(&g.op),
        num(g.ours_ms),
        num(g.baseline_ms),
        g.ratio,
        if slow { " (above the parity bar)" } else { "" }
    );
    svg.open_group(if slow { "op slow-op" } else { "op" }, Some(&tip));
    svg.text(
        LEFT - 8.0,
        top + BAR + 4.0,
        Anchor::End,
        "name",
        &cut(&g.op, NAME_CHARS),
    );
    for (class, ms, y) in [
        ("ours", g.ours_ms, top),
        ("baseline", g.baseline_ms, top + BAR),
    ] {
        let w = if ms > 0.0 {
            (x.px(ms) - LEFT).max(1.0)
        } else {
            0.0
        };
        svg.rect(
            LEFT,
            y,
            w,
            BAR - 1.0,
            class,
            Some(&format!(
                "{}: {} ms",
                if class == "ours" { ours } else { &by },
                num(ms)
            )),
        );
    }
    svg.text(
        WIDTH - RIGHT + 8.0,
        top + BAR + 4.0,
        Anchor::Start,
        if slow { "ratio slow" } else { "ratio" },
        &format!("{:.2}x", g.ratio),
    );
    svg.close_group();
}

impl ParityComparison {
    /// The per-op bar chart as SVG: ours and the baseline per op (every op
    /// timed on both sides, largest ratio first), ratios at the right, ops
    /// above the parity bar in bold red. Every name is XML-escaped.
    #[must_use]
    pub fn to_svg(&self) -> String {
        parity_svg(
            &format!("Parity: {} vs {}", self.ours, self.baseline),
            &self.ours,
            &self.baseline,
            &self.all_gaps,
        )
    }
}

impl MultiParityComparison {
    /// The per-op bar chart against the fastest baseline per op (named in
    /// each bar's tooltip).
    #[must_use]
    pub fn to_svg(&self) -> String {
        parity_svg(
            &format!("Parity: {} vs {}", self.ours, self.baselines.join(", ")),
            &self.ours,
            "fastest baseline",
            &self.all_gaps,
        )
    }
}
