//! [`FleetReport`] as one self-contained HTML page: the verdict, absent
//! ranks and problems, and a rank x step heat map of step times (inline
//! SVG, no script), then the Markdown tables' content as HTML tables.

use super::error::RankRange;
use super::report::FleetReport;
use crate::base::escape::html;
use crate::base::textfmt::{duration, fixed, pct};

/// Cell colour for `ns` against the fleet median: white at or below it,
/// deepening to red at twice the median and beyond.
fn colour(ns: u64, median: f64) -> String {
    let over = if median > 0.0 {
        ((ns as f64 / median) - 1.0).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let fade = (255.0 * (1.0 - over)).round() as u8;
    format!("rgb(255,{fade},{fade})")
}

fn heat_svg(report: &FleetReport) -> String {
    let heat = &report.heat;
    let columns = heat.rows.first().map_or(0, |r| r.cells.len());
    let (cw, ch, left, top) = (4usize, 6usize, 90usize, 20usize);
    let (w, h) = (left + columns * cw + 10, top + heat.rows.len() * ch + 10);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" role=\"img\" \
         aria-label=\"step time per rank and step\">\n<text x=\"{left}\" y=\"12\" font-size=\"11\">\
         steps {} to {} ({} per column) →</text>\n",
        heat.first_step, heat.last_step, heat.steps_per_column,
    );
    let median = report.step_threshold.median_ns;
    for (i, row) in heat.rows.iter().enumerate() {
        let y = top + i * ch;
        let label = RankRange {
            first: row.first_rank,
            last: row.last_rank,
        }
        .to_string();
        svg.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" font-size=\"6\" text-anchor=\"end\">{}</text>\n",
            left - 4,
            y + ch - 1,
            html(&label)
        ));
        for (c, cell) in row.cells.iter().enumerate() {
            if let Some(ns) = cell {
                svg.push_str(&format!(
                    "<rect x=\"{}\" y=\"{y}\" width=\"{cw}\" height=\"{ch}\" fill=\"{}\"><title>{label}: {}</title></rect>\n",
                    left + c * cw,
                    colour(*ns, median),
                    duration(*ns as f64)
                ));
            }
        }
    }
    svg.push_str("</svg>\n");
    svg
}

impl FleetReport {
    /// The report as a self-contained HTML page with the heat map.
    #[must_use]
    pub fn to_html(&self) -> String {
        let mut out = format!(
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <title>Fleet: {}</title><style>body{{font-family:sans-serif;margin:2em}}\
             table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:2px 6px;text-align:right}}\
             </style></head><body>\n<h1>Fleet: run {}, {} of {} ranks</h1>\n<p>{}</p>\n",
            html(&self.run_id),
            html(&self.run_id),
            self.ranks_analysed,
            self.world_size,
            html(&self.verdict())
        );
        if !self.absent.is_empty() {
            out.push_str(&format!(
                "<p>Absent ranks: {}</p>\n",
                RankRange::list(&self.absent)
            ));
        }
        if !self.problems.is_empty() {
            out.push_str("<ul>\n");
            for p in &self.problems {
                out.push_str(&format!("<li>{}</li>\n", html(&p.to_string())));
            }
            out.push_str("</ul>\n");
        }
        out.push_str("<h2>Step time, rank x step</h2>\n<p>White: at or below the fleet median; red: twice it or more.</p>\n");
        out.push_str(&heat_svg(self));
        out.push_str("<h2>Stragglers</h2>\n<table><tr><th>rank</th><th>stands out in</th><th>value</th><th>threshold</th><th>over median</th></tr>\n");
        for s in &self.stragglers {
            let what = match &s.what {
                crate::analysis::straggler::StragglerIn::Step => "median step".to_owned(),
                crate::analysis::straggler::StragglerIn::Brick { brick } => {
                    format!("brick {brick}")
                }
            };
            out.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                s.rank,
                html(&what),
                duration(s.value_ns),
                duration(s.threshold.threshold_ns),
                pct(s.excess * 100.0)
            ));
        }
        out.push_str("</table>\n");
        for (title, rows) in [("Bricks", &self.bricks), ("Phases", &self.phases)] {
            out.push_str(&format!(
                "<h2>{title}</h2>\n<table><tr><th>name</th><th>mean/step</th><th>max/step</th><th>max/mean</th><th>slowest rank</th></tr>\n"
            ));
            for b in rows {
                out.push_str(&format!(
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                    html(&b.name),
                    duration(b.mean_ns),
                    duration(b.max_ns),
                    fixed(b.imbalance, 2),
                    b.slowest_rank
                ));
            }
            out.push_str("</table>\n");
        }
        out.push_str("</body></html>\n");
        out
    }
}
