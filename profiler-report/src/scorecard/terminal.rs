//! Terminal rendering (`Display` of [`TrainingScorecard`]): an aligned
//! metric table, the per-layer forward/backward table, hotspots,
//! regressions, recommendations and warnings. Plain text, no colours; names
//! and messages are shown through one sanitiser (line breaks, escape
//! sequences and bidi controls as visible escapes) so columns stay aligned
//! and nothing reaches the terminal as a control sequence.

use std::fmt::{self, Display, Formatter};

use super::markdown::{bottleneck_text, grade_text};
use super::model::TrainingScorecard;
use crate::escape::visible;

impl Display for TrainingScorecard {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        metrics(self, f)?;
        layers(self, f)?;
        hotspots(self, f)?;
        if !self.regressions.is_empty() {
            writeln!(f, "\nRegressions")?;
            let width = self
                .regressions
                .iter()
                .map(|r| visible(&r.metric).chars().count())
                .max()
                .unwrap_or(0);
            for r in &self.regressions {
                let delta = if r.metric == "wall_coverage" {
                    format!("{:+.1} pts", r.delta * 100.0)
                } else {
                    format!("{:+.1}%", r.delta * 100.0)
                };
                writeln!(
                    f,
                    "  {:<8}  {:<width$}  {delta}",
                    r.severity.to_string(),
                    visible(&r.metric)
                )?;
                if let Some(detail) = &r.detail {
                    writeln!(f, "  {:<8}  {}", "", visible(detail))?;
                }
            }
        }
        list(f, "Recommendations", "-", &self.recommendations)?;
        list(f, "Warnings", "!", &self.warnings)
    }
}

fn metrics(sc: &TrainingScorecard, f: &mut Formatter<'_>) -> fmt::Result {
    let row =
        |f: &mut Formatter<'_>, name: &str, value: String| writeln!(f, "  {name:<16} {value}");
    writeln!(f, "Training scorecard")?;
    let grade = match sc.grade {
        Some(_) => grade_text(sc),
        None if sc.peak_unknown() => {
            "n/a (unknown peak: set PROFILER_HARDWARE=<device>, see warnings)".to_owned()
        }
        None => "n/a (see warnings)".to_owned(),
    };
    row(f, "Grade", grade)?;
    let efficiency = match (sc.grade, sc.peak_throughput_tok_s) {
        (Some(_), Some(peak)) => {
            let on = sc
                .hardware
                .as_deref()
                .map(|h| format!(", {}", visible(h)))
                .unwrap_or_default();
            format!("{:.1}% of {peak:.0} tok/s peak{on}", sc.efficiency * 100.0)
        }
        (Some(_), None) => format!("{:.1}%", sc.efficiency * 100.0),
        (None, _) => "n/a".to_owned(),
    };
    row(f, "Efficiency", efficiency)?;
    row(f, "Bottleneck", bottleneck_text(sc))?;
    row(f, "Throughput", format!("{:.0} tok/s", sc.throughput_tok_s))?;
    let steps = if sc.steps > 0 {
        format!(" over {} steps", sc.steps)
    } else {
        String::new()
    };
    row(f, "Step time", format!("{:.1} ms{steps}", sc.step_time_ms))?;
    row(
        f,
        "Fwd/Bwd ratio",
        format!("{:.2}", sc.forward_backward_ratio),
    )?;
    row(
        f,
        "Wall coverage",
        format!("{:.1}%", sc.wall_coverage * 100.0),
    )?;
    row(
        f,
        "Transfer",
        format!("{:.1}% of step", sc.transfer_fraction * 100.0),
    )?;
    row(
        f,
        "Launch overhead",
        format!("{:.1}% of step", sc.launch_overhead * 100.0),
    )?;
    if let Some(mfu) = sc.mfu {
        row(f, "MFU", format!("{:.1}%", mfu * 100.0))?;
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
        .map(|l| visible(&l.top_op).chars().count())
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
    writeln!(
        f,
        "  {:>5}  {:>10}  {:>10}  {:>7}  {:<op_width$}  {:>6}",
        "layer", "fwd ms", "bwd ms", "bwd/fwd", "top op", "share"
    )?;
    for l in &sc.per_layer_summary {
        let flag = if l.non_finite {
            "  ! non-finite time read as 0"
        } else {
            ""
        };
        writeln!(
            f,
            "  {:>5}  {:>10.2}  {:>10.2}  {:>7.2}  {:<op_width$}  {:>5.1}%{flag}",
            l.layer,
            l.fwd_ms,
            l.bwd_ms,
            l.ratio,
            visible(&l.top_op),
            l.top_op_pct
        )?;
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
        .map(|(n, _, _)| visible(n).chars().count())
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
    for (name, ms, pct) in &sc.hotspot_ops {
        writeln!(f, "  {:<width$}  {ms:>10.1}  {pct:>5.1}%", visible(name))?;
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
