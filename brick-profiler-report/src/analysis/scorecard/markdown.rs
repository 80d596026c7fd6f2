//! Markdown rendering, in the v1 layout: a Metric|Value table, then
//! hotspot, regression and recommendation sections when non-empty. What
//! goes beyond v1 appears only when present: alerts as quoted
//! warnings above the table; a Regressions row beside the grade; Ceiling
//! and MFU rows; a Warnings section. Every name and message is escaped, so
//! it renders as its text and never as markup.

use std::fmt::Write as _;

use super::model::TrainingScorecard;
use super::text::{
    bottleneck_text, ceiling_text, comparison_text, delta_text, device_efficiency_text, grade_text,
    host_mark, inference_rows, launch_gap_text, not_measured, ratio_text, regression_summary,
    step_time_text, throughput_text, wall_coverage_text, withheld_text,
};
use crate::base::escape;

impl TrainingScorecard {
    /// The scorecard as Markdown (the v1 layout); names are escaped
    /// so tables and lists keep their shape.
    #[must_use]
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        // `write!` to a String cannot fail.
        let _ = render(&mut s, self);
        s
    }
}

/// The whole document: alerts, the metrics table, then the sections that
/// have something to say.
fn render(s: &mut String, sc: &TrainingScorecard) -> std::fmt::Result {
    writeln!(s, "## {} Scorecard\n", sc.run_kind.noun())?;
    for alert in &sc.alerts {
        writeln!(s, "> **Warning:** {}\n", escape::markdown(alert))?;
    }
    metrics(s, sc)?;
    hotspots(s, sc)?;
    regressions(s, sc)?;
    if !sc.recommendations.is_empty() {
        s.push_str("\n### Recommendations\n\n");
        for r in &sc.recommendations {
            writeln!(s, "- {}", escape::markdown(r))?;
        }
    }
    // Changes the noise test did not flag are caveats of the comparison.
    let not_flagged = sc.vs_baseline.as_ref().map_or(&[][..], |c| &c.not_flagged);
    if !sc.warnings.is_empty() || !not_flagged.is_empty() {
        s.push_str("\n### Warnings\n\n");
        for w in sc.warnings.iter().chain(not_flagged) {
            writeln!(s, "- {}", escape::markdown(w))?;
        }
    }
    Ok(())
}

/// The Metric|Value table: the grade, regressions in brief, then each
/// metric.
fn metrics(s: &mut String, sc: &TrainingScorecard) -> std::fmt::Result {
    s.push_str("| Metric | Value |\n|--------|-------|\n");
    match withheld_text(sc) {
        Some(why) => writeln!(s, "| Grade | **n/a**: {} |", escape::markdown(&why))?,
        None => writeln!(s, "| Grade | **{}** |", grade_text(sc))?,
    }
    match &sc.vs_baseline {
        Some(c) if sc.regressions.is_empty() => {
            writeln!(s, "| Regressions | none ({}) |", comparison_text(c))?;
        }
        _ if !sc.regressions.is_empty() => writeln!(
            s,
            "| Regressions | {} |",
            escape::markdown(&regression_summary(sc))
        )?,
        _ => {}
    }
    if let Some(rows) = &sc.inference {
        for (name, text) in inference_rows(rows) {
            writeln!(s, "| {name} | {} |", escape::markdown(&text))?;
        }
    } else {
        match sc.efficiency {
            Some(e) => writeln!(s, "| Efficiency | {:.1}% |", e * 100.0)?,
            None => s.push_str("| Efficiency | n/a |\n"),
        }
        if let Some(device) = device_efficiency_text(sc) {
            writeln!(s, "| Device efficiency | {device} |")?;
        }
        if let Some(ceiling) = ceiling_text(sc, escape::markdown) {
            writeln!(s, "| Ceiling | {ceiling} |")?;
        }
    }
    writeln!(s, "| Bottleneck | {} |", bottleneck_text(sc))?;
    if sc.inference.is_none() {
        writeln!(s, "| Throughput | {} |", throughput_text(sc))?;
    }
    writeln!(s, "| Step time | {} |", step_time_text(sc))?;
    // Fixed texts and numbers: nothing from the user to escape.
    writeln!(s, "| Bwd/Fwd ratio | {} |", ratio_text(sc))?;
    writeln!(s, "| Wall coverage | {} |", wall_coverage_text(sc))?;
    // Host time is the v1 layout's own: the row appears for device time.
    if sc.time_base.is_device() {
        writeln!(
            s,
            "| Times | {} |",
            escape::markdown(&sc.time_base.to_string())
        )?;
    }
    if let Some(gap) = &sc.launch_gap {
        writeln!(s, "| Launch gap | {} |", launch_gap_text(gap))?;
    }
    if let Some(mfu) = sc.mfu {
        writeln!(s, "| MFU | {:.1}% |", mfu * 100.0)?;
    } else if let Some(na) = not_measured(sc, "mfu") {
        writeln!(s, "| MFU | {} |", escape::markdown(&na))?;
    }
    for peak in &sc.memory_peaks {
        let text = peak.text(escape::markdown);
        writeln!(s, "| Peak {} memory | {text} |", peak.kind.name())?;
    }
    Ok(())
}

/// The hotspot operations, when any.
fn hotspots(s: &mut String, sc: &TrainingScorecard) -> std::fmt::Result {
    if sc.hotspot_ops.is_empty() {
        return Ok(());
    }
    s.push_str("\n### Hotspot Operations\n\n");
    s.push_str("| Op | Total ms | % |\n|-----|---------|---|\n");
    for (op, ms, pct) in &sc.hotspot_ops {
        writeln!(
            s,
            "| {}{} | {ms:.1} | {pct:.1}% |",
            escape::markdown(op),
            host_mark(sc.time_base.on_host(op))
        )?;
    }
    Ok(())
}

/// The flagged regressions with their details, when any.
fn regressions(s: &mut String, sc: &TrainingScorecard) -> std::fmt::Result {
    if sc.regressions.is_empty() {
        return Ok(());
    }
    s.push_str("\n### Regressions\n\n");
    for r in &sc.regressions {
        // The trailing space before the newline is part of the v1 layout.
        writeln!(
            s,
            "- **{}**: {} ({}) ",
            escape::markdown(&r.metric),
            delta_text(r),
            r.severity
        )?;
        if let Some(detail) = &r.detail {
            writeln!(s, "  - {}", escape::markdown(detail))?;
        }
    }
    Ok(())
}
