//! Markdown rendering, in the reference layout: a Metric|Value table, then
//! hotspot, regression and recommendation sections when non-empty. Fields
//! beyond the reference (MFU, warnings) only appear when present. Every name
//! and message is escaped, so it renders as its text and never as markup.

use std::fmt::Write as _;

use super::model::TrainingScorecard;
use crate::escape;

/// Grade cell text: the letter, or `n/a` when it was withheld.
pub(crate) fn grade_text(sc: &TrainingScorecard) -> String {
    sc.grade.map_or_else(|| "n/a".to_owned(), |g| g.to_string())
}

/// Bottleneck text, qualified when the peak is unknown and the class is the
/// fallback one (compute vs memory cannot be told apart without a peak).
pub(crate) fn bottleneck_text(sc: &TrainingScorecard) -> String {
    if sc.grade.is_none() && sc.bottleneck == super::grade::Bottleneck::MemoryBw {
        format!("{} (assumed: no peak to compare with)", sc.bottleneck)
    } else {
        sc.bottleneck.to_string()
    }
}

impl TrainingScorecard {
    /// The scorecard as Markdown (the reference layout); names are escaped
    /// so tables and lists keep their shape.
    #[must_use]
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        // `write!` to a String cannot fail.
        let _ = render(&mut s, self);
        s
    }
}

fn render(s: &mut String, sc: &TrainingScorecard) -> std::fmt::Result {
    s.push_str("## Training Scorecard\n\n");
    s.push_str("| Metric | Value |\n|--------|-------|\n");
    writeln!(s, "| Grade | **{}** |", grade_text(sc))?;
    if sc.grade.is_some() {
        writeln!(s, "| Efficiency | {:.1}% |", sc.efficiency * 100.0)?;
    } else {
        s.push_str("| Efficiency | n/a |\n");
    }
    writeln!(s, "| Bottleneck | {} |", bottleneck_text(sc))?;
    writeln!(s, "| Throughput | {:.0} tok/s |", sc.throughput_tok_s)?;
    writeln!(s, "| Step time | {:.1} ms |", sc.step_time_ms)?;
    writeln!(s, "| Fwd/Bwd ratio | {:.2} |", sc.forward_backward_ratio)?;
    writeln!(s, "| Wall coverage | {:.1}% |", sc.wall_coverage * 100.0)?;
    if let Some(mfu) = sc.mfu {
        writeln!(s, "| MFU | {:.1}% |", mfu * 100.0)?;
    }

    if !sc.hotspot_ops.is_empty() {
        s.push_str("\n### Hotspot Operations\n\n");
        s.push_str("| Op | Total ms | % |\n|-----|---------|---|\n");
        for (op, ms, pct) in &sc.hotspot_ops {
            writeln!(s, "| {} | {ms:.1} | {pct:.1}% |", escape::markdown(op))?;
        }
    }

    if !sc.regressions.is_empty() {
        s.push_str("\n### Regressions\n\n");
        for r in &sc.regressions {
            // The trailing space before the newline is the reference's.
            writeln!(
                s,
                "- **{}**: {:.1}% ({}) ",
                escape::markdown(&r.metric),
                r.delta * 100.0,
                r.severity
            )?;
            if let Some(detail) = &r.detail {
                writeln!(s, "  - {}", escape::markdown(detail))?;
            }
        }
    }

    if !sc.recommendations.is_empty() {
        s.push_str("\n### Recommendations\n\n");
        for r in &sc.recommendations {
            writeln!(s, "- {}", escape::markdown(r))?;
        }
    }

    if !sc.warnings.is_empty() {
        s.push_str("\n### Warnings\n\n");
        for w in &sc.warnings {
            writeln!(s, "- {}", escape::markdown(w))?;
        }
    }
    Ok(())
}
