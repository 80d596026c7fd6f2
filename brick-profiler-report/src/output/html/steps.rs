//! The steps section: step time and throughput over the run (charts), the
//! step facts with exact percentiles, and where step time goes by phase.

use std::fmt::Write as _;

use profiler_core::Profile;

use super::charts::bar_cell;
use super::parts::{facts, note, term, th};
use super::step_chart::{StepSeries, step_charts};
use crate::base::glossary::Metric;
use crate::base::plot::quantile;
use crate::base::textfmt::{DASH, int, ms, num, pct, ratio, si};

/// Charts, facts and the phase table.
pub(crate) fn steps(profile: &Profile) -> String {
    let steps = &profile.steps;
    let mut s = String::new();
    if steps.count == 0 {
        s.push_str(&note(
            "No steps recorded: mark each training or inference step with \
             <code>profiler::step(tokens)</code> to get step time, throughput and wall coverage.",
        ));
    } else {
        if let Some(series) = StepSeries::of(steps) {
            chart_figure(&mut s, &series, steps.samples_dropped);
        }
        facts(&mut s, &step_facts(profile));
    }
    phases(&mut s, profile);
    s
}

/// The charts with a caption saying what each mark is.
fn chart_figure(s: &mut String, series: &StepSeries, dropped: u64) {
    s.push_str("<figure class=\"chart-box\">\n");
    s.push_str(&step_charts(series));
    let left_out = if series.left_out.is_empty() {
        String::new()
    } else {
        let n: u64 = series
            .left_out
            .iter()
            .map(|(a, b, _)| b.saturating_sub(*a).saturating_add(1))
            .sum();
        format!(
            " Grey: the {} step{} the schedule left out (hover for which and why).",
            int(n),
            if n == 1 { "" } else { "s" }
        )
    };
    let dropped = if dropped > 0 {
        format!(
            " The {} steps after the first 100,000 are in the totals but not drawn.",
            int(dropped)
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        s,
        "<figcaption>Each recorded step's wall time (top) and tokens per second (bottom, when \
         steps carry tokens) by step index. Dashed line: the median; shaded band: p50 to p90 of \
         step time (p10 to p50 of throughput); red dots: the slowest 10% of steps. Hover a dot \
         for its step.{left_out}{dropped}</figcaption>\n</figure>"
    );
}

/// Recorded and skipped steps, tokens, step-time percentiles, throughput
/// and wall coverage.
fn step_facts(profile: &Profile) -> Vec<(String, String)> {
    let steps = &profile.steps;
    let mut skipped = int(steps.skipped);
    if let Some(sch) = steps.schedule.as_ref().filter(|s| s.active == u64::MAX) {
        let _ = write!(
            skipped,
            " (schedule: {} warm-up steps, then every step)",
            sch.warmup
        );
    } else if let Some(sch) = &steps.schedule {
        let _ = write!(
            skipped,
            " (schedule: wait {}, warm-up {}, active {}, repeat {})",
            sch.wait, sch.warmup, sch.active, sch.repeat
        );
    }
    let mut rows = vec![
        ("Steps recorded".to_owned(), int(steps.count)),
        ("Skipped".to_owned(), skipped),
        ("Tokens".to_owned(), int(steps.tokens)),
        (
            term(Metric::StepTime, "Avg step"),
            format!("{} ms", num(steps.avg_step_ms())),
        ),
    ];
    let mut samples: Vec<f64> = steps.samples_ns.iter().map(|&ns| ms(ns)).collect();
    samples.sort_by(f64::total_cmp);
    if let (Some(lo), Some(hi)) = (samples.first(), samples.last()) {
        let q = |p: f64| quantile(&samples, p).map_or_else(|| DASH.to_owned(), num);
        rows.push((
            term(Metric::Percentiles, "Step time min / p50 / p90 / p99 / max"),
            format!(
                "{} / {} / {} / {} / {} ms",
                num(*lo),
                q(0.5),
                q(0.9),
                q(0.99),
                num(*hi)
            ),
        ));
    }
    if steps.samples_dropped > 0 {
        rows.push((
            "Step samples not kept".to_owned(),
            int(steps.samples_dropped),
        ));
    }
    let tokens = if steps.tokens > 0 && steps.total_ns > 0 {
        format!("{} tok/s", si(steps.tokens_per_s()))
    } else {
        DASH.to_owned()
    };
    rows.push((term(Metric::Throughput, "Throughput"), tokens));
    let coverage = profile
        .wall_coverage()
        .map_or_else(|| DASH.to_owned(), |c| pct(c * 100.0));
    rows.push((term(Metric::WallCoverage, "Wall coverage"), coverage));
    rows
}

/// The phase table, or a note without phases.
fn phases(s: &mut String, profile: &Profile) {
    if profile.phases.is_empty() {
        s.push_str(&note("No phases recorded."));
        return;
    }
    let _ = write!(
        s,
        "<h3>Phases</h3>\n<table class=\"data\">\n<thead><tr><th>Phase</th><th class=\"num\">Calls</th>\
         <th class=\"num\">Total ms</th><th class=\"num\">Avg ms</th>{}\
         <th class=\"bar-cell\"></th></tr></thead>\n<tbody>\n",
        th("% of step time", "num", Some(Metric::WallCoverage))
    );
    for p in &profile.phases {
        let share = ratio(p.in_steps_ns as f64, profile.steps.total_ns as f64).map(|r| r * 100.0);
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td>{}</tr>",
            crate::base::escape::html(&p.name),
            int(p.count),
            num(ms(p.total_ns)),
            if p.count > 0 {
                num(p.avg_ms())
            } else {
                DASH.to_owned()
            },
            share.map_or_else(|| DASH.to_owned(), pct),
            bar_cell(share.unwrap_or(0.0))
        );
    }
    s.push_str("</tbody>\n</table>\n");
}
