//! The fleet page's tables: stragglers, phases and bricks across ranks
//! (each brick with a strip of its time per rank), and every rank with
//! links to its report, trace and profile. Sortable by any column.

use std::fmt::Write as _;

use crate::analysis::fleet::{BrickStrip, FleetReport, Imbalance};
use crate::analysis::straggler::StragglerIn;
use crate::base::escape::{self, visible};
use crate::base::glossary::Metric;
use crate::base::plot::{Anchor, Svg};
use crate::base::textfmt::{DASH, duration, fixed, int, signed_pct};
use crate::output::html::parts::{note, num_cell, num_cell_if, th};

/// Bricks listed at most (the JSON has them all).
pub(super) const BRICKS_SHOWN: usize = 30;

const STRIP_W: f64 = 120.0;
const STRIP_H: f64 = 20.0;
const STRIP_CSS: &str = ".fleet-strip .bin { fill: var(--bar); }
.fleet-strip .bin.slowest { fill: var(--bad); }
.fleet-strip .median { stroke: var(--fg); stroke-width: 1.5; }
";

/// The stragglers, one row per rule that named a rank.
pub(super) fn stragglers(report: &FleetReport) -> String {
    if report.stragglers.is_empty() {
        return note(
            "No rank stands out: every median step, and every judged brick's median call, is within the threshold.",
        );
    }
    let mut s = String::from(
        "<table class=\"data\">\n<thead><tr><th>Rank</th><th>Stands out in</th>\
         <th class=\"num\">Value</th><th class=\"num\">Threshold</th>\
         <th class=\"num\">Over the median</th></tr></thead>\n<tbody>\n",
    );
    for x in &report.stragglers {
        let what = match &x.what {
            StragglerIn::Step => "median step".to_owned(),
            StragglerIn::OwnWork => {
                "own work (median step less its wait at collectives)".to_owned()
            }
            StragglerIn::Brick { brick } => format!("brick {} (median call)", escape::html(brick)),
        };
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td>{what}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td></tr>",
            x.rank,
            duration(x.value_ns),
            duration(x.threshold.threshold_ns),
            signed_pct(x.excess)
        );
    }
    s.push_str("</tbody>\n</table>\n");
    s
}

/// Per phase: mean and slowest rank's time per step and their ratio.
pub(super) fn phases(rows: &[Imbalance]) -> String {
    if rows.is_empty() {
        return note("No phase recorded (profiler::phase): each step shows as outside any phase.");
    }
    let mut s = format!(
        "<table class=\"data sortable\">\n<thead><tr><th>Phase</th>{}{}{}<th class=\"num\">Slowest rank</th></tr></thead>\n<tbody>\n",
        th("Mean/step", "num", None),
        th("Slowest/step", "num", None),
        th("Max/mean", "num", Some(Metric::Imbalance)),
    );
    for p in rows {
        let _ = writeln!(
            s,
            "<tr><td>{}</td>{}{}{}{}</tr>",
            escape::html(&p.name),
            num_cell(p.mean_ns, &duration(p.mean_ns), ""),
            num_cell(p.max_ns, &duration(p.max_ns), ""),
            num_cell(p.imbalance, &fixed(p.imbalance, 2), ""),
            num_cell(f64::from(p.slowest_rank), &p.slowest_rank.to_string(), ""),
        );
    }
    s.push_str("</tbody>\n</table>\n");
    s
}

/// Per brick (the slowest first): its time per step across ranks, the
/// slowest rank and by how much, and its strip.
pub(super) fn bricks(report: &FleetReport) -> String {
    let strips = &report.charts.bricks;
    if strips.is_empty() {
        return note("No brick recorded on any rank.");
    }
    let mut s = format!(
        "<div class=\"scroll\"><table class=\"data sortable\">\n<thead><tr><th>Brick</th><th class=\"num\">Ranks</th>\
         <th class=\"num\">Median/step</th><th class=\"num\">Mean/step</th>\
         <th class=\"num\">Slowest/step</th><th class=\"num\">Slowest rank</th>\
         <th class=\"num\">Slowest vs median</th>{}<th>Across ranks</th></tr></thead>\n<tbody>\n",
        th("Max/mean", "num", Some(Metric::Imbalance)),
    );
    for (b, strip) in report
        .bricks
        .iter()
        .zip(strips)
        .filter(|(b, s)| b.name == s.name)
        .take(BRICKS_SHOWN)
    {
        let excess = strip.slowest_excess();
        let _ = writeln!(
            s,
            "<tr><td>{}</td>{}{}{}{}{}{}{}<td>{}</td></tr>",
            escape::html(&b.name),
            num_cell(strip.ranks as f64, &int(strip.ranks as u64), ""),
            num_cell(strip.median_ns, &duration(strip.median_ns), ""),
            num_cell(b.mean_ns, &duration(b.mean_ns), ""),
            num_cell(strip.max_ns, &duration(strip.max_ns), ""),
            num_cell(
                f64::from(strip.slowest_rank),
                &strip.slowest_rank.to_string(),
                ""
            ),
            num_cell(
                excess.unwrap_or(0.0),
                &excess.map_or_else(|| DASH.to_owned(), signed_pct),
                ""
            ),
            num_cell(b.imbalance, &fixed(b.imbalance, 2), ""),
            strip_svg(strip),
        );
    }
    s.push_str("</tbody>\n</table></div>\n");
    if report.bricks.len() > BRICKS_SHOWN {
        s.push_str(&note(&format!(
            "The {BRICKS_SHOWN} bricks with the most time per step; {} more in <code>--format json</code>.",
            report.bricks.len() - BRICKS_SHOWN
        )));
    }
    s
}

/// A brick's strip: ranks per bin from its fastest rank to its slowest,
/// bar heights by count, the slowest rank's bin in the alarm colour and
/// the median marked.
fn strip_svg(strip: &BrickStrip) -> String {
    let tip = format!(
        "{}: {} ranks, fastest {}, median {}, slowest {} (rank {})",
        visible(&strip.name),
        int(strip.ranks as u64),
        duration(strip.min_ns),
        duration(strip.median_ns),
        duration(strip.max_ns),
        strip.slowest_rank
    );
    let mut svg = Svg::new(STRIP_W, STRIP_H, "fleet-strip", &tip, STRIP_CSS);
    let most = strip.bins.iter().copied().max().unwrap_or(1).max(1) as f64;
    let w = STRIP_W / strip.bins.len().max(1) as f64;
    let last = strip.bins.len().saturating_sub(1);
    for (i, &n) in strip.bins.iter().enumerate().filter(|(_, n)| **n > 0) {
        // At least a third of the height, so a lone rank shows.
        let h = (STRIP_H - 2.0) * (1.0 + 2.0 * f64::from(n) / most) / 3.0;
        let class = if i == last && last > 0 {
            "bin slowest"
        } else {
            "bin"
        };
        svg.rect(
            w * i as f64,
            STRIP_H - h,
            (w - 0.5).max(0.5),
            h,
            class,
            None,
        );
    }
    let width = strip.max_ns - strip.min_ns;
    if width > 0.0 {
        let x = (strip.median_ns - strip.min_ns) / width * STRIP_W;
        svg.line(x, 0.0, x, STRIP_H, "median");
    } else {
        let text = if strip.ranks == 1 {
            "one rank"
        } else {
            "every rank alike"
        };
        svg.text(STRIP_W / 2.0, 14.0, Anchor::Middle, "tick", text);
    }
    svg.finish()
}

/// Column titles of the rank table's time by kind.
const COMPUTE: &str = "time per median step in phases that are no collective";
const COMM: &str = "time per median step in collective phases: transfer and waiting";
const WAIT: &str = "communication beyond the fleet's fastest rank's: waiting for slower ranks";
const OUTSIDE: &str = "host time per median step in no phase";

/// Every rank: its step times against the fleet median, its median step
/// by kind (compute, communication, waiting, outside any phase), and links to its
/// files (`run_dir` leads from the page to the run directory).
pub(super) fn ranks(report: &FleetReport, run_dir: &str) -> String {
    let median = report.median_step_ns();
    let stragglers = report.straggler_ranks();
    let link = |path: &str, text: &str| {
        format!(
            "<a href=\"{}\">{text}</a>",
            escape::html(&escape::href(&format!("{run_dir}{path}")))
        )
    };
    let mut s = format!(
        "<table class=\"data sortable fleet-ranks\">\n<thead><tr><th>Rank</th><th>Host</th>\
         <th class=\"num\">Steps</th>{}<th class=\"num\">p10</th><th class=\"num\">p90</th>\
         <th class=\"num\">Slowest</th><th class=\"num\">vs fleet median</th>\
         <th class=\"num\" title=\"{COMPUTE}\">Compute</th><th class=\"num\" title=\"{COMM}\">Communication</th>\
         <th class=\"num\" title=\"{WAIT}\">Waiting</th><th class=\"num\" title=\"{OUTSIDE}\">Outside any phase</th>\
         <th>Files</th></tr></thead>\n<tbody>\n",
        th("Median step", "num", Some(Metric::StepTime)),
    );
    let files = &report.charts.files;
    let no_comm = if report.time.has_communication() {
        "this rank lacks a collective phase the fleet has"
    } else {
        "no collective phase recorded: not measured"
    };
    for ((r, f), t) in report.ranks.iter().zip(files).zip(&report.time.ranks) {
        let comm = |v: Option<f64>| {
            v.map_or_else(
                || format!("<td class=\"num\" data-v=\"0\" title=\"{no_comm}\">{DASH}</td>"),
                |ns| num_cell(ns, &duration(ns), ""),
            )
        };
        // A step the profile gives no wall time for is not split.
        let has_split = t.unsplit_ns <= 0.0;
        let split = [
            num_cell_if(has_split, t.compute_ns, duration, ""),
            comm(t.communication.map(|c| c.total_ns)),
            comm(t.communication.map(|c| c.waiting_ns)),
            num_cell_if(has_split, t.outside_ns, duration, ""),
        ];
        let straggler = stragglers.binary_search(&r.rank).is_ok();
        let vs = if median > 0.0 {
            r.median_ns / median - 1.0
        } else {
            0.0
        };
        let links = [
            f.report.as_deref().map_or_else(
                || "<span class=\"note\">no report</span>".to_owned(),
                |p| link(p, "report"),
            ),
            f.trace.as_deref().map_or_else(
                || "<span class=\"note\">no trace</span>".to_owned(),
                |p| link(p, "trace"),
            ),
            link(&f.profile, "profile"),
        ];
        let _ = writeln!(
            s,
            "<tr{}><td data-v=\"{}\">{}{}</td><td>{}</td>{}{}{}{}{}{}{}<td>{}</td></tr>",
            if straggler {
                " class=\"straggler\""
            } else {
                ""
            },
            r.rank,
            r.rank,
            if straggler {
                " <strong>straggler</strong>"
            } else {
                ""
            },
            escape::html(&r.host),
            num_cell(r.steps as f64, &int(r.steps), ""),
            num_cell(r.median_ns, &duration(r.median_ns), ""),
            num_cell(r.p10_ns, &duration(r.p10_ns), ""),
            num_cell(r.p90_ns, &duration(r.p90_ns), ""),
            num_cell(r.max_ns, &duration(r.max_ns), ""),
            num_cell(vs, &signed_pct(vs), ""),
            split.concat(),
            links.join(" · ")
        );
    }
    s.push_str("</tbody>\n</table>\n");
    s
}
