//! Bodies of the layer, hotspot and flamegraph sections, each rendered
//! from a [`Profile`] (and the scorecard, when given). Every string from
//! the profile is escaped.

use std::fmt::Write as _;

use profiler_core::Profile;

use super::charts::{bar_cell, layer_chart, layer_rows, layer_table};
use super::counters::counter_charts;
use super::latency::{TOP, latency_chart, shown};
use super::parts::{note, sorted_bricks, th};
use crate::analysis::scorecard::{TrainingScorecard, cold_calls};
use crate::base::escape;
use crate::base::glossary::Metric;
use crate::base::textfmt::{ms, num, pct};

/// The per-layer chart and table, or a note when no layers were recorded.
pub(crate) fn layers(profile: &Profile) -> String {
    let rows = layer_rows(profile);
    if rows.is_empty() {
        return note(
            "No layer scopes were recorded. Wrap each layer in \
             <code>profiler::layer(i, Direction::Forward)</code> (or <code>Backward</code>) \
             to see per-layer times.",
        );
    }
    let mut s = String::from("<figure class=\"chart-box\">\n");
    s.push_str(&layer_chart(&rows));
    let span = match profile.steps.count {
        0 => "summed over the run".to_owned(),
        n => format!("per step (mean of {n} steps)"),
    };
    let _ = writeln!(
        s,
        "<figcaption>Wall time inside each layer scope, {span}, {} layers.</figcaption>\n</figure>",
        rows.len()
    );
    s.push_str(&layer_table(&rows));
    s
}

/// The top ops by time, as a table with a bar per row: the scorecard's
/// hotspots when it has any, else the ten slowest bricks.
pub(crate) fn hotspots(profile: &Profile, scorecard: Option<&TrainingScorecard>) -> String {
    let (caption, unit, rows): (&str, &str, Vec<(String, f64, f64)>) = match scorecard
        .filter(|sc| !sc.hotspot_ops.is_empty())
    {
        Some(sc) => (
            "Ops by time, summed over layers and top-level ops (from the scorecard); share of all op time.",
            if sc.times_per_step {
                "ms / step"
            } else {
                "Total ms"
            },
            sc.hotspot_ops.clone(),
        ),
        None => {
            let total = profile.total_ns();
            let rows = sorted_bricks(profile)
                .into_iter()
                .take(10)
                .map(|b| (b.name.clone(), ms(b.total_ns), b.percentage(total)))
                .collect();
            (
                "The ten bricks with the most total time; share of all brick time.",
                "Total ms",
                rows,
            )
        }
    };
    if rows.is_empty() {
        return note("No bricks recorded.");
    }
    let mut s = note(caption);
    let _ = write!(
        s,
        "<table class=\"data\">\n<thead><tr><th>Op</th><th class=\"num\">{unit}</th>\
         {}<th class=\"bar-cell\"></th></tr></thead>\n<tbody>\n",
        th("Share", "num", Some(Metric::Share))
    );
    for (name, total_ms, share) in rows {
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>{}</tr>",
            escape::html(&name),
            num(total_ms),
            pct(share),
            bar_cell(share)
        );
    }
    s.push_str("</tbody>\n</table>\n");
    s
}

/// The flamegraph, inlined. A profile without timeline events (trace mode
/// off) folds to one flat frame per brick, and the caption says so.
pub(crate) fn flamegraph(svg: &str, profile: &Profile) -> String {
    let caption = if profile.timeline.event_count() == 0 {
        "Flat: this run recorded no timeline (trace mode was off), so each brick is one frame \
         weighted by its total time, with no steps, phases or layers above it. For the nested \
         view, enable trace mode with <code>profiler::Config::new().trace_mode(true)</code> \
         before the run."
    } else {
        "Self time per stack of steps, phases, layers and bricks; hover a frame for its time."
    };
    format!(
        "{}<div class=\"flamegraph\">\n{}\n</div>\n",
        note(caption),
        super::embed::inline_svg(svg)
    )
}

/// The latency distribution of the bricks with the most time.
pub(crate) fn latency(profile: &Profile) -> String {
    let bricks = shown(profile);
    let Some(svg) = latency_chart(&bricks) else {
        return note("No brick calls recorded.");
    };
    let cold: String = cold_calls(profile, profile.steps.count.max(1) as f64)
        .iter()
        .map(|c| format!("<li>{}</li>", escape::html(&c.warning)))
        .collect();
    let cold = if cold.is_empty() {
        String::new()
    } else {
        format!(
            "<div class=\"alert\">\n<p><strong>Cold calls:</strong> these bricks spent most of \
             their time in one call; their mean is not their typical cost.</p>\n<ul>{cold}</ul>\n</div>\n"
        )
    };
    format!(
        "{cold}<figure class=\"chart-box\">\n{svg}<figcaption>Time per call of the \
         {} brick{} with the most total time, on one logarithmic axis: bars are calls per time \
         bin (relative to each brick's tallest bin; a rare bin still shows as a sliver), marks \
         are p50, p90, p99 and the slowest call (percentiles within 3.1%). Two groups of bars \
         mean two regimes (a cache that misses, a slow path); a p99 far right of the p50 is a \
         tail worth a look in the trace.</figcaption>\n</figure>\n",
        bricks.len().min(TOP),
        if bricks.len() == 1 { "" } else { "s" }
    )
}

/// One chart per counter, or how to record one.
pub(crate) fn counters(profile: &Profile) -> String {
    if profile.counter_tracks.iter().all(|t| t.samples.is_empty()) {
        return note(
            "No counters recorded. Record a value over the run (a loss, a queue depth) with \
             <code>profiler::counter(\"loss\", value)</code>; it also appears as a counter track \
             in the Chrome trace.",
        );
    }
    let mut s = note(
        "Values recorded with <code>profiler::counter</code>, against time since the run \
         started; the same samples are counter tracks in the Chrome trace.",
    );
    s.push_str(&counter_charts(&profile.counter_tracks));
    s
}
