//! HTML fragment rendering: one self-contained `<section>` (no scripts,
//! styles or external assets) for embedding in a larger report: alerts
//! first, the metrics with the grade (each name with its definition as a
//! tooltip), regressions right under them, then layers, hotspots,
//! recommendations and warnings. Every string that came from the user or
//! the profiled program is escaped.

use std::fmt::Write as _;

use super::model::TrainingScorecard;
use super::text::{
    bottleneck_explained, ceiling_text, comparison_text, delta_text, device_efficiency_text,
    efficiency_text, grade_text, host_mark, inference_rows, launch_gap_text, launch_text,
    not_measured, ratio_text, show_transfer, step_time_text, throughput_text, values_text,
    wall_coverage_text, withheld_text,
};
use super::units::pct;
use crate::base::escape;
use crate::base::glossary::Metric;
use crate::base::textfmt::{self, DASH};

impl TrainingScorecard {
    /// The scorecard as an HTML fragment, `<section
    /// class="training-scorecard">`, for embedding in a page; every name is
    /// escaped and every metric name has its definition as a tooltip.
    #[must_use]
    pub fn to_html(&self) -> String {
        let mut s = String::new();
        // `write!` to a String cannot fail.
        let _ = render(&mut s, self, Embedding::Standalone);
        s
    }

    /// The fragment as the HTML report embeds it: metric names link to the
    /// report's glossary, and the per-layer and hotspot tables are left to
    /// the report's own sections (each table is shown once).
    pub(crate) fn to_html_in_report(&self) -> String {
        let mut s = String::new();
        let _ = render(&mut s, self, Embedding::InReport);
        s
    }
}

/// Where the fragment goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Embedding {
    /// On its own: every table, definitions as tooltips.
    Standalone,
    /// In the HTML report, which has a glossary and its own layer and
    /// hotspot sections.
    InReport,
}

/// A metric's name with its definition as a tooltip, linked to the
/// report's glossary entry when there is one.
fn metric_name(metric: Metric, name: &str, embedding: Embedding) -> String {
    let term = metric.term();
    let tip = escape::html(term.text);
    match embedding {
        Embedding::Standalone => format!("<span title=\"{tip}\">{name}</span>"),
        Embedding::InReport => format!(
            "<a class=\"term\" href=\"#glossary-{}\" title=\"{tip}\">{name}</a>",
            term.id
        ),
    }
}

/// The whole fragment: alerts, metrics, the baseline comparison, the
/// tables (standalone only), recommendations and warnings.
fn render(s: &mut String, sc: &TrainingScorecard, embedding: Embedding) -> std::fmt::Result {
    writeln!(
        s,
        "<section class=\"training-scorecard\">\n<h2>{} Scorecard</h2>",
        sc.run_kind.noun()
    )?;
    alerts(s, sc)?;
    metrics(s, sc, embedding)?;
    baseline(s, sc)?;
    if embedding == Embedding::Standalone {
        layers(s, sc)?;
        hotspots(s, sc)?;
    }
    list(s, "Recommendations", "recommendations", &sc.recommendations);
    list(s, "Warnings", "warnings", &sc.warnings);
    s.push_str("</section>\n");
    Ok(())
}

/// The alerts, in the report page's warning box.
fn alerts(s: &mut String, sc: &TrainingScorecard) -> std::fmt::Result {
    if sc.alerts.is_empty() {
        return Ok(());
    }
    // `alert` is the report page's warning box.
    s.push_str("<div class=\"alert\">\n<ul class=\"alerts\">\n");
    for alert in &sc.alerts {
        writeln!(
            s,
            "<li><strong>Warning:</strong> {}</li>",
            escape::html(alert)
        )?;
    }
    s.push_str("</ul>\n</div>\n");
    Ok(())
}

/// The metrics table: the grade first, each metric's name defined.
fn metrics(s: &mut String, sc: &TrainingScorecard, embedding: Embedding) -> std::fmt::Result {
    let e = escape::html;
    let defined = |metric: Metric, name: &str| metric_name(metric, name, embedding);
    s.push_str("<table class=\"metrics\">\n<tr><th>Metric</th><th>Value</th></tr>\n");
    let mut row =
        |name: String, value: String| writeln!(s, "<tr><td>{name}</td><td>{value}</td></tr>");
    let grade = match withheld_text(sc) {
        Some(why) => format!("<strong>n/a</strong>: {}", e(&why)),
        None => format!("<strong>{}</strong>", e(&grade_text(sc))),
    };
    row("Grade".to_owned(), grade)?;
    if let Some(rows) = &sc.inference {
        for (name, text) in inference_rows(rows) {
            row(name.to_owned(), e(&text))?;
        }
    } else {
        row(
            defined(Metric::Efficiency, "Efficiency"),
            e(&efficiency_text(sc)),
        )?;
        if let Some(device) = device_efficiency_text(sc) {
            row("Device efficiency".to_owned(), e(&device))?;
        }
        if let Some(ceiling) = ceiling_text(sc, escape::html) {
            row("Ceiling".to_owned(), ceiling)?;
        }
    }
    row("Bottleneck".to_owned(), e(&bottleneck_explained(sc)))?;
    if sc.inference.is_none() {
        row(
            defined(Metric::Throughput, "Throughput"),
            e(&throughput_text(sc)),
        )?;
    }
    row(
        defined(Metric::StepTime, "Step time"),
        e(&step_time_text(sc)),
    )?;
    row(defined(Metric::BwdFwd, "Bwd/Fwd ratio"), e(&ratio_text(sc)))?;
    row(
        defined(Metric::WallCoverage, "Wall coverage"),
        e(&wall_coverage_text(sc)),
    )?;
    row("Times".to_owned(), e(&sc.time_base.to_string()))?;
    if show_transfer(sc) {
        row(
            defined(Metric::Transfer, "Transfer"),
            format!("{} of step (h2d/d2h phases)", pct(sc.transfer_fraction)),
        )?;
    }
    if let Some(launch) = launch_text(sc) {
        row(defined(Metric::Launch, "Launch overhead"), e(&launch))?;
    }
    if let Some(hw) = &sc.hardware {
        row("Hardware".to_owned(), e(hw))?;
    }
    if let Some(gap) = &sc.launch_gap {
        row("Launch gap".to_owned(), launch_gap_text(gap))?;
    }
    if let Some(mfu) = sc.mfu {
        row(defined(Metric::Mfu, "MFU"), pct(mfu))?;
    } else if let Some(na) = not_measured(sc, "mfu") {
        row(defined(Metric::Mfu, "MFU"), e(&na))?;
    }
    for peak in &sc.memory_peaks {
        let label = format!("Peak {} memory", peak.kind.name());
        row(defined(Metric::PeakMemory, &label), peak.text(escape::html))?;
    }
    s.push_str("</table>\n");
    Ok(())
}

/// The per-layer table, with memory columns when some layer's memory was
/// tracked.
fn layers(s: &mut String, sc: &TrainingScorecard) -> std::fmt::Result {
    if sc.per_layer_summary.is_empty() {
        return Ok(());
    }
    let unit = if sc.times_per_step {
        " (ms per step)"
    } else {
        ""
    };
    let _ = writeln!(s, "<h3>Per layer{unit}</h3>\n<table class=\"layers\">");
    let memory = sc
        .per_layer_summary
        .iter()
        .any(|l| l.allocated_bytes.is_some());
    let bytes = |b: Option<u64>| b.map_or_else(|| DASH.to_owned(), |b| textfmt::bytes(b as f64));
    let backward = sc.run_kind.has_backward();
    s.push_str("<tr><th>Layer</th><th>Fwd ms</th>");
    if backward {
        s.push_str("<th>Bwd ms</th><th>Bwd/Fwd</th>");
    }
    s.push_str("<th>Top op</th><th>Share</th>");
    if memory {
        s.push_str("<th>Allocated</th><th>Peak</th>");
    }
    s.push_str("</tr>\n");
    for l in &sc.per_layer_summary {
        let class = if l.non_finite {
            " class=\"non-finite\""
        } else {
            ""
        };
        let on_host = |short| host_mark(sc.time_base.layer_on_host(l.layer, short));
        write!(
            s,
            "<tr{class}><td>{}</td><td>{:.2}{}</td>",
            l.layer,
            l.fwd_ms,
            on_host("fwd")
        )?;
        if backward {
            write!(
                s,
                "<td>{:.2}{}</td><td>{:.2}</td>",
                l.bwd_ms,
                on_host("bwd"),
                l.ratio
            )?;
        }
        write!(
            s,
            "<td>{}{}</td><td>{:.1}%</td>",
            escape::html(&l.top_op),
            host_mark(sc.time_base.on_host(&l.top_op)),
            l.top_op_pct
        )?;
        if memory {
            write!(
                s,
                "<td>{}</td><td>{}</td>",
                bytes(l.allocated_bytes),
                bytes(l.peak_bytes)
            )?;
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</table>\n");
    Ok(())
}

/// The hotspot operations table.
fn hotspots(s: &mut String, sc: &TrainingScorecard) -> std::fmt::Result {
    if sc.hotspot_ops.is_empty() {
        return Ok(());
    }
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
            "<tr><td>{}{}</td><td>{ms:.1}</td><td>{pct:.1}%</td></tr>",
            escape::html(op),
            host_mark(sc.time_base.on_host(op))
        )?;
    }
    s.push_str("</table>\n");
    Ok(())
}

/// The comparison with the baseline: every change, the regressions and the
/// changes the noise test did not flag.
fn baseline(s: &mut String, sc: &TrainingScorecard) -> std::fmt::Result {
    let e = escape::html;
    match &sc.vs_baseline {
        Some(c) => writeln!(
            s,
            "<h3>Against the baseline</h3>\n<p>{}</p>",
            e(&comparison_text(c))
        )?,
        // Files saved before comparisons were recorded.
        None if !sc.regressions.is_empty() => s.push_str("<h3>Regressions vs baseline</h3>\n"),
        None => return Ok(()),
    }
    let not_flagged = sc.vs_baseline.as_ref().map_or(&[][..], |c| &c.not_flagged);
    s.push_str("<ul class=\"regressions\">\n");
    if sc.regressions.is_empty() && not_flagged.is_empty() {
        s.push_str("<li>no regression</li>\n");
    }
    for r in &sc.regressions {
        write!(
            s,
            "<li class=\"{}\"><strong>{}</strong> {} ({})",
            r.severity,
            e(r.label()),
            e(&delta_text(r)),
            r.severity
        )?;
        if let Some(values) = values_text(r) {
            write!(s, ": {}", e(&values))?;
        }
        if let Some(detail) = &r.detail {
            write!(s, "<br><small>{}</small>", e(detail))?;
        }
        s.push_str("</li>\n");
    }
    for note in not_flagged {
        writeln!(s, "<li class=\"not-flagged\">{}</li>", e(note))?;
    }
    s.push_str("</ul>\n");
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
