//! The heat map of step times, rank x step: cells coloured by their ratio
//! to the fleet's median step (one path per colour, so 25,600 cells stay a
//! few hundred KB), axis labels, a legend with the times each colour
//! stands for, and a tooltip (rank, step, time) read from the cells'
//! values by a small script. Binned cells show their bin's slowest step.

use std::fmt::Write as _;

use crate::analysis::fleet::{FleetReport, HeatMap};
use crate::base::plot::{Anchor, LinearAxis, Svg};
use crate::base::textfmt::{duration, fixed, int};

const WIDTH: f64 = 1100.0;
const LEFT: f64 = 120.0;
const PLOT_W: f64 = 900.0;
const TOP: f64 = 56.0;
const BOTTOM: f64 = 46.0;
/// Height of the plot the rows share, px (each row between 5 and 28 px).
const PLOT_H: f64 = 560.0;

/// Colour levels: the upper bound of each as a ratio to the fleet median,
/// and its fill (the last level is open-ended).
const LEVELS: [(f64, &str); 7] = [
    (0.9, "#74add1"),
    (1.1, "#e0f3f8"),
    (1.25, "#fee090"),
    (1.5, "#fdae61"),
    (2.0, "#f46d43"),
    (3.0, "#d73027"),
    (f64::INFINITY, "#a50026"),
];

/// The level of a step time `ns` against the fleet median.
fn level(ns: f64, median: f64) -> usize {
    let r = if median > 0.0 { ns / median } else { 1.0 };
    LEVELS
        .iter()
        .position(|(hi, _)| r <= *hi)
        .unwrap_or(LEVELS.len() - 1)
}

fn css() -> String {
    let mut css = String::from(
        ".fleet-heat .plot-bg { fill: var(--panel); }
.fleet-heat .straggler-label { fill: var(--bad); font-weight: 600; }
.fleet-heat .straggler-mark { fill: var(--bad); }
.fleet-heat .legend-box { stroke: var(--border); stroke-width: 0.5; }
",
    );
    for (i, (_, fill)) in LEVELS.iter().enumerate() {
        let _ = writeln!(css, ".fleet-heat .hl{i} {{ fill: {fill}; }}");
    }
    css
}

/// Geometry: cell width and height.
fn cells(heat: &HeatMap) -> (f64, f64) {
    let columns = heat.rows.first().map_or(1, |r| r.cells.len()).max(1);
    let rows = heat.rows.len().max(1);
    (
        PLOT_W / columns as f64,
        (PLOT_H / rows as f64).clamp(5.0, 28.0),
    )
}

/// `rank 3` or `ranks 8–15`.
fn row_label(first: u32, last: u32) -> String {
    if first == last {
        format!("rank {first}")
    } else {
        format!("ranks {first}–{last}")
    }
}

/// The heat map's SVG and the JSON of its cells' values for the tooltip.
pub(super) fn chart(report: &FleetReport) -> (String, String) {
    let heat = &report.heat;
    let median = report.median_step_ns();
    let (cw, ch) = cells(heat);
    let plot_h = ch * heat.rows.len() as f64;
    let height = TOP + plot_h + BOTTOM;
    let mut svg = Svg::new(
        WIDTH,
        height,
        "chart fleet-heat",
        "Step time per rank and step, coloured by its ratio to the fleet median",
        &css(),
    );
    legend(&mut svg, median);
    svg.rect(LEFT, TOP, PLOT_W, plot_h, "plot-bg", None);
    // Cells in cell units (one column wide, one row high): whole numbers
    // keep 25,600 cells in a few hundred KB.
    svg.open_scaled("heat-cells", (LEFT, TOP), (cw, ch));
    for (i, d) in level_paths(heat, median).iter().enumerate() {
        if !d.is_empty() {
            svg.path(d, &format!("cells hl{i}"), Some(&level_text(i, median)));
        }
    }
    svg.close_group();
    axes(&mut svg, report, ch);
    (svg.finish(), data(heat, median, cw, ch))
}

/// One path per level, in cell units: each row's runs of cells of that
/// level.
fn level_paths(heat: &HeatMap, median: f64) -> Vec<String> {
    let mut paths = vec![String::new(); LEVELS.len()];
    for (r, row) in heat.rows.iter().enumerate() {
        let mut c = 0;
        while c < row.cells.len() {
            let Some(ns) = row.cells[c] else {
                c += 1;
                continue;
            };
            let l = level(ns as f64, median);
            let mut end = c + 1;
            while end < row.cells.len()
                && row.cells[end].is_some_and(|v| level(v as f64, median) == l)
            {
                end += 1;
            }
            let _ = write!(paths[l], "M{c} {r}h{}v1h-{}z", end - c, end - c);
            c = end;
        }
    }
    paths
}

/// What level `i` stands for: its ratio range and times.
fn level_text(i: usize, median: f64) -> String {
    let lo = if i == 0 { 0.0 } else { LEVELS[i - 1].0 };
    let hi = LEVELS[i].0;
    let t = |r: f64| duration(r * median);
    match (i, hi.is_finite()) {
        (0, _) => format!("≤ {}× the fleet median (≤ {})", fixed(hi, 2), t(hi)),
        (_, true) => format!(
            "{}–{}× the fleet median ({}–{})",
            fixed(lo, 2),
            fixed(hi, 2),
            t(lo),
            t(hi)
        ),
        (_, false) => format!("> {}× the fleet median (> {})", fixed(lo, 2), t(lo)),
    }
}

/// The legend: a swatch per level with its ratio, and its times in the
/// swatch's tooltip.
fn legend(svg: &mut Svg, median: f64) {
    svg.text(
        LEFT,
        14.0,
        Anchor::Start,
        "legend",
        &format!(
            "step time vs the fleet median ({}); a binned cell shows its slowest step",
            duration(median)
        ),
    );
    let mut x = LEFT;
    for i in 0..LEVELS.len() {
        let lo = if i == 0 { 0.0 } else { LEVELS[i - 1].0 };
        let hi = LEVELS[i].0;
        let label = match (i, hi.is_finite()) {
            (0, _) => format!("≤ {}×", fixed(hi, 2)),
            (_, true) => format!("{}–{}×", fixed(lo, 2), fixed(hi, 2)),
            (_, false) => format!("> {}×", fixed(lo, 2)),
        };
        svg.rect(
            x,
            24.0,
            14.0,
            14.0,
            &format!("legend-box hl{i}"),
            Some(&level_text(i, median)),
        );
        svg.text(x + 18.0, 35.0, Anchor::Start, "legend", &label);
        x += 28.0 + 7.0 * label.chars().count() as f64;
    }
}

/// Rank labels (as many as fit), stragglers marked, step ticks, axis
/// labels.
fn axes(svg: &mut Svg, report: &FleetReport, ch: f64) {
    let heat = &report.heat;
    let stragglers = report.straggler_ranks();
    let plot_h = ch * heat.rows.len() as f64;
    let every = (13.0 / ch).ceil().max(1.0) as usize;
    for (r, row) in heat.rows.iter().enumerate() {
        let y = TOP + ch * r as f64;
        let own: Vec<u32> = stragglers
            .iter()
            .copied()
            .filter(|s| (row.first_rank..=row.last_rank).contains(s))
            .collect();
        if !own.is_empty() {
            let names: Vec<String> = own.iter().map(u32::to_string).collect();
            let tip = format!("straggler: rank {}", names.join(", "));
            svg.rect(LEFT - 6.0, y, 4.0, ch, "straggler-mark", Some(&tip));
        }
        if r % every == 0 || !own.is_empty() {
            let class = if own.is_empty() {
                "tick"
            } else {
                "straggler-label"
            };
            let label = row_label(row.first_rank, row.last_rank);
            svg.text(LEFT - 10.0, y + ch / 2.0 + 4.0, Anchor::End, class, &label);
        }
    }
    let columns = heat.rows.first().map_or(1, |r| r.cells.len()).max(1) as f64;
    let span = columns * heat.steps_per_column.max(1) as f64;
    let first = heat.first_step as f64;
    let x = LinearAxis::between(first, heat.last_step as f64, 0.0, 1.0);
    let y1 = TOP + plot_h;
    for (v, label) in x.ticks() {
        if v < first || v > heat.last_step as f64 || v.fract() != 0.0 {
            continue;
        }
        let centre = if heat.steps_per_column == 1 { 0.5 } else { 0.0 };
        let px = LEFT + (v - first + centre) / span * PLOT_W;
        svg.line(px, y1, px, y1 + 4.0, "axis");
        svg.text(px, y1 + 16.0, Anchor::Middle, "tick", &label);
    }
    let per = if heat.steps_per_column > 1 {
        format!(" ({} steps a column)", int(heat.steps_per_column))
    } else {
        String::new()
    };
    svg.text(
        LEFT + PLOT_W / 2.0,
        y1 + 34.0,
        Anchor::Middle,
        "axis-label",
        &format!("step index{per}"),
    );
}

/// The cells' values for the tooltip script, as JSON: geometry, row
/// labels and each cell's step time in units of `scale` ns (`null`: no step).
fn data(heat: &HeatMap, median: f64, cw: f64, ch: f64) -> String {
    // Microseconds unless steps are shorter than 100 µs.
    let scale: u64 = if median >= 100_000.0 { 1_000 } else { 1 };
    let mut s = format!(
        "{{\"x0\":{LEFT},\"y0\":{TOP},\"cw\":{cw},\"ch\":{ch},\"first\":{},\"per\":{},\"scale\":{scale},\"rows\":[",
        heat.first_step, heat.steps_per_column
    );
    for (r, row) in heat.rows.iter().enumerate() {
        if r > 0 {
            s.push(',');
        }
        let _ = write!(s, "[{},{},[", row.first_rank, row.last_rank);
        for (c, cell) in row.cells.iter().enumerate() {
            if c > 0 {
                s.push(',');
            }
            match cell {
                Some(ns) => {
                    let _ = write!(s, "{}", ns.div_ceil(scale));
                }
                None => s.push_str("null"),
            }
        }
        s.push_str("]]");
    }
    s.push_str("]}");
    s
}

/// Shows a cell's rank(s), step(s) and time under the pointer, from the
/// JSON in `#fleet-heat-data`. Optional: the map reads without it.
pub(super) const SCRIPT: &str = r#"(function () {
  var svg = document.querySelector("svg.fleet-heat"), src = document.getElementById("fleet-heat-data");
  if (!svg || !src) return;
  var d = JSON.parse(src.textContent), tip = document.createElement("div");
  tip.className = "heat-tip";
  tip.setAttribute("role", "tooltip");
  tip.style.cssText = "position:absolute;display:none;pointer-events:none;padding:4px 8px;font-size:12px;" +
    "background:var(--panel);color:var(--fg);border:1px solid var(--border);border-radius:4px;white-space:nowrap";
  document.body.appendChild(tip);
  function cell(e) {
    var pt = svg.createSVGPoint();
    pt.x = e.clientX; pt.y = e.clientY;
    var p = pt.matrixTransform(svg.getScreenCTM().inverse());
    var c = Math.floor((p.x - d.x0) / d.cw), r = Math.floor((p.y - d.y0) / d.ch);
    var row = d.rows[r];
    if (!row || c < 0 || c >= row[2].length || row[2][c] === null) return null;
    var ranks = row[0] === row[1] ? "rank " + row[0] : "ranks " + row[0] + "\u2013" + row[1];
    var s0 = d.first + c * d.per, steps = d.per === 1 ? "step " + s0 : "steps " + s0 + "\u2013" + (s0 + d.per - 1);
    var ms = row[2][c] * d.scale / 1e6, slowest = (d.per > 1 || row[0] !== row[1]) ? ", slowest " : ": ";
    return ranks + ", " + steps + slowest + ms.toPrecision(4) + " ms";
  }
  svg.addEventListener("mousemove", function (e) {
    var text = cell(e);
    if (!text) { tip.style.display = "none"; return; }
    tip.textContent = text;
    tip.style.left = (e.pageX + 14) + "px";
    tip.style.top = (e.pageY + 14) + "px";
    tip.style.display = "block";
  });
  svg.addEventListener("mouseleave", function () { tip.style.display = "none"; });
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::fleet::HeatRow;

    #[test]
    fn levels_follow_the_ratio_to_the_median() {
        assert_eq!(level(50.0, 100.0), 0);
        assert_eq!(level(100.0, 100.0), 1);
        assert_eq!(level(140.0, 100.0), 3);
        assert_eq!(level(400.0, 100.0), LEVELS.len() - 1);
        assert_eq!(level(5.0, 0.0), 1, "no median: about the median");
    }

    #[test]
    fn runs_of_a_level_merge_in_cell_units() {
        let heat = HeatMap {
            first_step: 0,
            last_step: 4,
            steps_per_column: 1,
            rows: vec![HeatRow {
                first_rank: 0,
                last_rank: 0,
                cells: vec![Some(100), Some(101), None, Some(300), Some(100)],
            }],
        };
        let paths = level_paths(&heat, 100.0);
        assert_eq!(paths[1], "M0 0h2v1h-2zM4 0h1v1h-1z");
        assert_eq!(paths[5], "M3 0h1v1h-1z");
        assert!(paths[0].is_empty());
    }
}
