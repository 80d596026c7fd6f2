//! Bodies of the built-in report sections, each rendered from a [`Profile`]
//! (and the scorecard, when given). Every string from the profile is escaped.

use std::fmt::Write as _;

use profiler_core::{Profile, profile::ClockSource, sync::SyncMode};

use super::charts::{bar_cell, layer_chart, layer_rows, layer_table};
use super::format::{DASH, duration, int, ms, num, pct, ratio, si, utc_iso8601};
use crate::escape;
use crate::scorecard::TrainingScorecard;

/// Lines a reader must see before trusting the numbers: lost, dropped and
/// pending records first, then the run's notes.
pub(crate) fn warnings(profile: &Profile) -> Vec<String> {
    // The timeline keeps its own drop count; report the larger of the two.
    let mut counters = profile.counters;
    counters.timeline_dropped = counters.timeline_dropped.max(profile.timeline.dropped);
    let mut lines = counters.warnings();
    lines.extend(profile.run.notes.iter().cloned());
    lines
}

/// Run facts, preceded by the warning box when there is anything to warn about.
pub(crate) fn run(profile: &Profile) -> String {
    let mut s = String::new();
    let lines = warnings(profile);
    if !lines.is_empty() {
        let _ = writeln!(
            s,
            "<div class=\"alert\" role=\"alert\">\n<p class=\"alert-title\">⚠ {} warning{}: read before trusting the numbers</p>\n<ul>",
            lines.len(),
            if lines.len() == 1 { "" } else { "s" }
        );
        for line in &lines {
            let _ = writeln!(s, "<li>{}</li>", escape::html(line));
        }
        s.push_str("</ul>\n</div>\n");
    }
    let run = &profile.run;
    let text = |v: &str| {
        if v.is_empty() {
            DASH.to_owned()
        } else {
            escape::html(v)
        }
    };
    let mut rows: Vec<(&str, String)> = vec![
        ("Run", text(&run.name)),
        ("Host", text(&run.host)),
        ("Process id", run.pid.to_string()),
    ];
    if let Some(rank) = run.rank {
        let world = run
            .world_size
            .map_or_else(|| "?".to_owned(), |w| w.to_string());
        rows.push(("Rank", format!("{rank} of {world}")));
    }
    rows.push(("Started (UTC)", utc_iso8601(run.started_at_unix_ns)));
    rows.push(("Wall time", duration(run.wall_ns)));
    rows.push(("Threads", run.threads_seen.to_string()));
    let clock = match run.clock.source {
        ClockSource::Tsc => "TSC",
        ClockSource::CntVct => "CNTVCT",
        ClockSource::Monotonic => "monotonic (Instant)",
    };
    rows.push((
        "Clock",
        format!("{clock}, {} ns/tick", num(run.clock.ns_per_tick)),
    ));
    let sync = match run.sync_mode {
        SyncMode::Immediate => "immediate",
        SyncMode::PerLayer => "per layer",
        SyncMode::Deferred => "deferred",
        SyncMode::None => "none (CPU timestamps)",
    };
    let timer = if run.device_timer {
        "device timer installed"
    } else {
        "no device timer"
    };
    rows.push(("Sync mode", format!("{sync}, {timer}")));
    let overhead = run.overhead.map_or_else(
        || "not calibrated".to_owned(),
        |o| {
            format!(
                "{} ns per call, floor {} ns ({})",
                num(o.per_call_ns),
                num(o.floor_ns),
                if o.subtracted {
                    "subtracted from every sample"
                } else {
                    "not subtracted"
                }
            )
        },
    );
    rows.push(("Profiler overhead", overhead));
    if let Some(hw) = &run.hardware {
        let mut v = escape::html(&hw.name);
        if let Some(bw) = hw.peak_bw_gb_s {
            let _ = write!(v, ", {} GB/s", num(bw));
        }
        if let Some(tf) = hw.peak_tflops {
            let _ = write!(v, ", {} TFLOP/s", num(tf));
        }
        rows.push(("Hardware", v));
    }
    if let Some(rate) = run.l2_cache_hit_rate {
        rows.push(("L2 hit rate", pct(f64::from(rate) * 100.0)));
    }
    facts(&mut s, &rows);
    s
}

/// A two-column table of facts; values are already HTML.
fn facts(s: &mut String, rows: &[(&str, String)]) {
    s.push_str("<table class=\"facts\">\n<tbody>\n");
    for (name, value) in rows {
        let _ = writeln!(s, "<tr><th scope=\"row\">{name}</th><td>{value}</td></tr>");
    }
    s.push_str("</tbody>\n</table>\n");
}

/// A paragraph explaining why a section has nothing to show.
fn note(text: &str) -> String {
    format!("<p class=\"note\">{text}</p>\n")
}

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
         <th class=\"num\">Share</th><th class=\"bar-cell\"></th></tr></thead>\n<tbody>\n",
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

/// Bricks by total time, descending (stable for equal times).
fn sorted_bricks(profile: &Profile) -> Vec<&profiler_core::BrickStats> {
    let mut bricks: Vec<_> = profile.bricks.iter().collect();
    bricks.sort_by_key(|b| std::cmp::Reverse(b.total_ns));
    bricks
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

/// Every brick with its statistics; sortable by clicking a header.
pub(crate) fn bricks(profile: &Profile) -> String {
    if profile.bricks.is_empty() {
        return note("No bricks recorded.");
    }
    let mut s = String::from(
        "<div class=\"scroll\">\n<table class=\"data sortable\">\n<thead><tr><th>Brick</th><th>Category</th>\
         <th class=\"num\">Calls</th><th class=\"num\">Total ms</th><th class=\"num\">Avg µs</th>\
         <th class=\"num\">p50 µs</th><th class=\"num\">p99 µs</th><th class=\"num\">Share</th>\
         <th class=\"num\">Elements/s</th><th class=\"num\">GFLOP/s</th><th class=\"num\">GB/s</th>\
         </tr></thead>\n<tbody>\n",
    );
    let total = profile.total_ns();
    // `data-v` holds the raw number the sort script compares.
    let cell = |raw: f64, shown: String| {
        let raw = if raw.is_finite() { raw } else { 0.0 };
        format!("<td class=\"num\" data-v=\"{raw}\">{shown}</td>")
    };
    let when = |has: bool, v: f64, shown: fn(f64) -> String| {
        if has {
            cell(v, shown(v))
        } else {
            cell(0.0, DASH.to_owned())
        }
    };
    for b in sorted_bricks(profile) {
        let sampled = b.count > 0;
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td>{}</td>{}{}{}{}{}{}{}{}{}</tr>",
            escape::html(&b.name),
            b.category,
            cell(b.count as f64, int(b.count)),
            cell(ms(b.total_ns), num(ms(b.total_ns))),
            when(sampled, b.avg_us(), num),
            when(sampled, b.p50_us(), num),
            when(sampled, b.p99_us(), num),
            cell(b.percentage(total), pct(b.percentage(total))),
            when(b.total_elements > 0 && b.total_ns > 0, b.throughput(), si),
            when(b.total_flops > 0 && b.total_ns > 0, b.gflops(), num),
            when(
                b.total_bytes > 0 && b.total_ns > 0,
                b.throughput_gbps(),
                num
            ),
        );
    }
    s.push_str("</tbody>\n</table>\n</div>\n");
    s
}

/// Step facts and the phase table.
pub(crate) fn steps(profile: &Profile) -> String {
    let steps = &profile.steps;
    let mut s = String::new();
    if steps.count == 0 {
        s.push_str(&note(
            "No steps recorded: mark each training or inference step with \
             <code>profiler::step(tokens)</code> to get step time, throughput and wall coverage.",
        ));
    } else {
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
            ("Steps recorded", int(steps.count)),
            ("Skipped", skipped),
            ("Tokens", int(steps.tokens)),
            ("Avg step", format!("{} ms", num(steps.avg_step_ms()))),
        ];
        let mut samples = steps.samples_ns.clone();
        samples.sort_unstable();
        if let (Some(&lo), Some(&hi)) = (samples.first(), samples.last()) {
            let median = samples[samples.len() / 2];
            rows.push((
                "Step time min / median / max",
                format!("{} / {} / {} ms", num(ms(lo)), num(ms(median)), num(ms(hi))),
            ));
        }
        if steps.samples_dropped > 0 {
            rows.push(("Step samples not kept", int(steps.samples_dropped)));
        }
        let tokens = if steps.tokens > 0 && steps.total_ns > 0 {
            format!("{} tok/s", si(steps.tokens_per_s()))
        } else {
            DASH.to_owned()
        };
        rows.push(("Throughput", tokens));
        let coverage = profile
            .wall_coverage()
            .map_or_else(|| DASH.to_owned(), |c| pct(c * 100.0));
        rows.push(("Wall coverage", coverage));
        facts(&mut s, &rows);
    }
    if profile.phases.is_empty() {
        s.push_str(&note("No phases recorded."));
        return s;
    }
    s.push_str(
        "<h3>Phases</h3>\n<table class=\"data\">\n<thead><tr><th>Phase</th><th class=\"num\">Calls</th>\
         <th class=\"num\">Total ms</th><th class=\"num\">Avg ms</th><th class=\"num\">% of step time</th>\
         <th class=\"bar-cell\"></th></tr></thead>\n<tbody>\n",
    );
    for p in &profile.phases {
        let share = ratio(p.in_steps_ns as f64, steps.total_ns as f64).map(|r| r * 100.0);
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td>{}</tr>",
            escape::html(&p.name),
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
    s
}
