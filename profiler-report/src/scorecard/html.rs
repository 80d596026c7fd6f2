//! HTML fragment rendering: one self-contained `<section>` (no scripts,
//! styles or external assets) for embedding in a larger report. Every string
//! that came from the user or the profiled program is escaped.

use std::fmt::Write as _;

use super::markdown::{bottleneck_text, grade_text};
use super::model::TrainingScorecard;
use crate::escape;

impl TrainingScorecard {
    /// The scorecard as an HTML fragment, `<section
    /// class="training-scorecard">`, for embedding in a page (the HTML
    /// report embeds it); every name is escaped.
    #[must_use]
    pub fn to_html(&self) -> String {
        let mut s = String::new();
        // `write!` to a String cannot fail.
        let _ = render(&mut s, self);
        s
    }
}

fn render(s: &mut String, sc: &TrainingScorecard) -> std::fmt::Result {
    let e = escape::html;
    s.push_str("<section class=\"training-scorecard\">\n<h2>Training Scorecard</h2>\n");
    s.push_str("<table class=\"metrics\">\n<tr><th>Metric</th><th>Value</th></tr>\n");
    let mut row =
        |name: &str, value: String| writeln!(s, "<tr><td>{name}</td><td>{value}</td></tr>");
    row("Grade", format!("<strong>{}</strong>", e(&grade_text(sc))))?;
    let efficiency = if sc.grade.is_some() {
        format!("{:.1}%", sc.efficiency * 100.0)
    } else {
        "n/a".to_owned()
    };
    row("Efficiency", efficiency)?;
    row("Bottleneck", e(&bottleneck_text(sc)))?;
    row("Throughput", format!("{:.0} tok/s", sc.throughput_tok_s))?;
    row("Step time", format!("{:.1} ms", sc.step_time_ms))?;
    row("Fwd/Bwd ratio", format!("{:.2}", sc.forward_backward_ratio))?;
    row("Wall coverage", format!("{:.1}%", sc.wall_coverage * 100.0))?;
    if let Some(hw) = &sc.hardware {
        row("Hardware", e(hw))?;
    }
    if let Some(mfu) = sc.mfu {
        row("MFU", format!("{:.1}%", mfu * 100.0))?;
    }
    s.push_str("</table>\n");

    if !sc.per_layer_summary.is_empty() {
        let unit = if sc.times_per_step {
            " (ms per step)"
        } else {
            ""
        };
        let _ = writeln!(s, "<h3>Per layer{unit}</h3>\n<table class=\"layers\">");
        s.push_str("<tr><th>Layer</th><th>Fwd ms</th><th>Bwd ms</th><th>Bwd/Fwd</th><th>Top op</th><th>Share</th></tr>\n");
        for l in &sc.per_layer_summary {
            let class = if l.non_finite {
                " class=\"non-finite\""
            } else {
                ""
            };
            writeln!(
                s,
                "<tr{class}><td>{}</td><td>{:.2}</td><td>{:.2}</td><td>{:.2}</td><td>{}</td><td>{:.1}%</td></tr>",
                l.layer,
                l.fwd_ms,
                l.bwd_ms,
                l.ratio,
                e(&l.top_op),
                l.top_op_pct
            )?;
        }
        s.push_str("</table>\n");
    }

    if !sc.hotspot_ops.is_empty() {
        s.push_str("<h3>Hotspot Operations</h3>\n<table class=\"hotspots\">\n");
        let unit = if sc.times_per_step {
            "ms / step"
        } else {
            "Total ms"
        };
        let _ = writeln!(s, "<tr><th>Op</th><th>{unit}</th><th>%</th></tr>");
        for (op, ms, pct) in &sc.hotspot_ops {
            writeln!(
                s,
                "<tr><td>{}</td><td>{ms:.1}</td><td>{pct:.1}%</td></tr>",
                e(op)
            )?;
        }
        s.push_str("</table>\n");
    }

    if !sc.regressions.is_empty() {
        s.push_str("<h3>Regressions</h3>\n<ul class=\"regressions\">\n");
        for r in &sc.regressions {
            write!(
                s,
                "<li class=\"{}\"><strong>{}</strong>: {:.1}% ({})",
                r.severity,
                e(&r.metric),
                r.delta * 100.0,
                r.severity
            )?;
            if let Some(detail) = &r.detail {
                write!(s, "<br><small>{}</small>", e(detail))?;
            }
            s.push_str("</li>\n");
        }
        s.push_str("</ul>\n");
    }
    list(s, "Recommendations", "recommendations", &sc.recommendations);
    list(s, "Warnings", "warnings", &sc.warnings);
    s.push_str("</section>\n");
    Ok(())
}

fn list(s: &mut String, title: &str, class: &str, items: &[String]) {
    if items.is_empty() {
        return;
    }
    s.push_str(&format!("<h3>{title}</h3>\n<ul class=\"{class}\">\n"));
    for item in items {
        s.push_str(&format!("<li>{}</li>\n", escape::html(item)));
    }
    s.push_str("</ul>\n");
}
