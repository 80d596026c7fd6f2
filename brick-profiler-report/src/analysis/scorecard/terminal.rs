//! Terminal rendering (`Display` of [`TrainingScorecard`]): alerts first,
//! then an aligned metric table, regressions, the per-layer
//! forward/backward table, hotspots, recommendations and warnings. Plain
//! text, no colours; names and messages are shown through one sanitiser
//! (line breaks, escape sequences and bidi controls as visible escapes) so
//! columns stay aligned and nothing reaches the terminal as a control
//! sequence.

use std::fmt::{self, Display, Formatter};

use super::kind::RunKind;
use super::model::TrainingScorecard;
use super::text::{
    bottleneck_explained, ceiling_text, comparison_text, delta_text, device_efficiency_text,
    efficiency_text, grade_line, host_mark, inference_rows, launch_gap_text, launch_text,
    not_measured, ratio_text, show_transfer, step_time_text, throughput_text, values_text,
    wall_coverage_text,
};
use super::units::pct;
use crate::base::escape::visible;
use crate::base::textfmt::{self, DASH};

impl Display for TrainingScorecard {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self.run_kind {
            RunKind::Training => writeln!(f, "Training scorecard")?,
            kind => writeln!(f, "{} scorecard ({kind} run)", kind.noun())?,
        }
        for alert in &self.alerts {
            writeln!(f, "  !! {}", visible(alert))?;
        }
        metrics(self, f)?;
        baseline(self, f)?;
        layers(self, f)?;
        hotspots(self, f)?;
        list(f, "Recommendations", "-", &self.recommendations)?;
        list(f, "Warnings", "!", &self.warnings)
    }
}

fn metrics(sc: &TrainingScorecard, f: &mut Formatter<'_>) -> fmt::Result {
    let row =
        |f: &mut Formatter<'_>, name: &str, value: String| writeln!(f, "  {name:<16} {value}");
    row(f, "Grade", visible(&grade_line(sc)).into_owned())?;
    if let Some(rows) = &sc.inference {
        for (name, text) in inference_rows(rows) {
            row(f, name, visible(&text).into_owned())?;
        }
    } else {
        row(f, "Efficiency", efficiency_text(sc))?;
        if let Some(device) = device_efficiency_text(sc) {
            row(f, "Device eff.", device)?;
        }
        if let Some(ceiling) = ceiling_text(sc, |n| visible(n).into_owned()) {
            row(f, "Ceiling", ceiling)?;
        }
    }
    row(f, "Bottleneck", bottleneck_explained(sc))?;
    if sc.inference.is_none() {
        row(f, "Throughput", throughput_text(sc))?;
    }
    row(f, "Step time", step_time_text(sc))?;
    row(f, "Bwd/Fwd ratio", ratio_text(sc))?;
    row(f, "Wall coverage", wall_coverage_text(sc))?;
    row(f, "Times", visible(&sc.time_base.to_string()).into_owned())?;
    if show_transfer(sc) {
        row(
            f,
            "Transfer",
            format!("{} of step (h2d/d2h phases)", pct(sc.transfer_fraction)),
        )?;
    }
    if let Some(launch) = launch_text(sc) {
        row(f, "Launch overhead", launch)?;
    }
    if let Some(gap) = &sc.launch_gap {
        row(f, "Launch gap", launch_gap_text(gap))?;
    }
    if let Some(mfu) = sc.mfu {
        row(f, "MFU", pct(mfu))?;
    } else if let Some(na) = not_measured(sc, "mfu") {
        row(f, "MFU", na)?;
    }
    for peak in &sc.memory_peaks {
        let name = format!("Peak {} mem", peak.kind.name());
        row(f, &name, peak.text(|b| visible(b).into_owned()))?;
    }
    Ok(())
}

/// The comparison with the baseline right under the metrics: every change,
/// the regressions with their values and the test behind them (a detail
/// shared by consecutive entries is printed once), and the changes the
/// noise test did not flag, with why.
fn baseline(sc: &TrainingScorecard, f: &mut Formatter<'_>) -> fmt::Result {
    match &sc.vs_baseline {
        Some(c) => writeln!(f, "\nAgainst the baseline: {}", comparison_text(c))?,
        // Files saved before comparisons were recorded.
        None if !sc.regressions.is_empty() => writeln!(f, "\nRegressions vs baseline")?,
        None => return Ok(()),
    }
    let not_flagged = sc.vs_baseline.as_ref().map_or(&[][..], |c| &c.not_flagged);
    if sc.regressions.is_empty() && not_flagged.is_empty() {
        writeln!(f, "  no regression")?;
    }
    let width = sc
        .regressions
        .iter()
        .map(|r| visible(r.label()).chars().count())
        .max()
        .unwrap_or(0);
    for (i, r) in sc.regressions.iter().enumerate() {
        let values = values_text(r)
            .map(|v| format!("  ({v})"))
            .unwrap_or_default();
        writeln!(
            f,
            "  {:<8}  {:<width$}  {:>7}{values}",
            r.severity.to_string(),
            visible(r.label()),
            delta_text(r)
        )?;
        let next_same = sc
            .regressions
            .get(i + 1)
            .is_some_and(|n| n.detail == r.detail);
        if let Some(detail) = r.detail.as_deref().filter(|_| !next_same) {
            writeln!(f, "  {:<8}  {}", "", visible(detail))?;
        }
    }
    for note in not_flagged {
        writeln!(f, "  {}", visible(note))?;
    }
    Ok(())
}

fn layers(sc: &TrainingScorecard, f: &mut Formatter<'_>) -> fmt::Result {
    if sc.per_layer_summary.is_empty() {
        return Ok(());
    }
    let op_width = sc
        .per_layer_summary
        .iter()
        .map(|l| {
            visible(&l.top_op).chars().count() + host_mark(sc.time_base.on_host(&l.top_op)).len()
        })
        .max()
        .unwrap_or(0)
        .max(6);
    writeln!(
        f,
        "\nPer layer{}",
        if sc.times_per_step {
            " (ms per step)"
        } else {
            " (ms)"
        }
    )?;
    // Memory columns only when some layer's memory was tracked.
    let memory = sc
        .per_layer_summary
        .iter()
        .any(|l| l.allocated_bytes.is_some());
    let bytes = |b: Option<u64>| b.map_or_else(|| DASH.to_owned(), |b| textfmt::bytes(b as f64));
    let backward = sc.run_kind.has_backward();
    write!(f, "  {:>5}  {:>10}", "layer", "fwd ms")?;
    if backward {
        write!(f, "  {:>10}  {:>7}", "bwd ms", "bwd/fwd")?;
    }
    write!(f, "  {:<op_width$}  {:>6}", "top op", "share")?;
    if memory {
        write!(f, "  {:>10}  {:>10}", "allocated", "peak")?;
    }
    writeln!(f)?;
    for l in &sc.per_layer_summary {
        let flag = if l.non_finite {
            "  ! non-finite time read as 0"
        } else {
            ""
        };
        let on_host = |short| host_mark(sc.time_base.layer_on_host(l.layer, short));
        write!(f, "  {:>5}  {:>10.2}{}", l.layer, l.fwd_ms, on_host("fwd"))?;
        if backward {
            write!(
                f,
                "  {:>10.2}{}  {:>7.2}",
                l.bwd_ms,
                on_host("bwd"),
                l.ratio
            )?;
        }
        let top = format!(
            "{}{}",
            visible(&l.top_op),
            host_mark(sc.time_base.on_host(&l.top_op))
        );
        write!(f, "  {top:<op_width$}  {:>5.1}%", l.top_op_pct)?;
        if memory {
            write!(
                f,
                "  {:>10}  {:>10}",
                bytes(l.allocated_bytes),
                bytes(l.peak_bytes)
            )?;
        }
        writeln!(f, "{flag}")?;
    }
    Ok(())
}

fn hotspots(sc: &TrainingScorecard, f: &mut Formatter<'_>) -> fmt::Result {
    if sc.hotspot_ops.is_empty() {
        return Ok(());
    }
    let width = sc
        .hotspot_ops
        .iter()
        .map(|(n, _, _)| visible(n).chars().count() + host_mark(sc.time_base.on_host(n)).len())
        .max()
        .unwrap_or(0)
        .max(2);
    writeln!(f, "\nHotspot operations")?;
    let unit = if sc.times_per_step {
        "ms/step"
    } else {
        "total ms"
    };
    writeln!(f, "  {:<width$}  {:>10}  {:>6}", "op", unit, "share")?;
    // Sub-millisecond ops keep their digits instead of printing as 0.0.
    let top = sc.hotspot_ops.first().map_or(0.0, |h| h.1);
    let decimals = if top >= 1.0 { 1 } else { 3 };
    for (name, ms, pct) in &sc.hotspot_ops {
        let name = format!("{}{}", visible(name), host_mark(sc.time_base.on_host(name)));
        writeln!(f, "  {name:<width$}  {ms:>10.decimals$}  {pct:>5.1}%")?;
    }
    Ok(())
}

fn list(f: &mut Formatter<'_>, title: &str, bullet: &str, items: &[String]) -> fmt::Result {
    if items.is_empty() {
        return Ok(());
    }
    writeln!(f, "\n{title}")?;
    for item in items {
        writeln!(f, "  {bullet} {}", visible(item))?;
    }
    Ok(())
}
