//! The Parity section of the HTML report: the headline numbers, the per-op
//! bar chart inline, and the table of every op compared.

use std::fmt::Write as _;

use super::coverage::{Coverage, verdict_line};
use super::model::{OpGap, PARITY_THRESHOLD, ParityComparison};
use super::multi::MultiParityComparison;
use crate::base::escape;
use crate::base::section::Section;
use crate::base::textfmt::{DASH, num};

fn ratio_text(ratio: f64, what: &str) -> String {
    if ratio > 0.0 {
        format!("{ratio:.2}x")
    } else {
        format!("{DASH} ({what})")
    }
}

fn body(
    headline: &[(String, String)],
    svg: &str,
    gaps: &[OpGap],
    with_runtime: bool,
    not_compared: &[(&str, &[String])],
    notes: &[String],
) -> String {
    let mut s = String::from("<table class=\"facts\">\n<tbody>\n");
    for (k, v) in headline {
        let _ = writeln!(
            s,
            "<tr><th>{}</th><td>{}</td></tr>",
            escape::html(k),
            escape::html(v)
        );
    }
    s.push_str("</tbody>\n</table>\n");
    let _ = writeln!(s, "<figure class=\"scroll\">\n{svg}</figure>");
    gaps_table(&mut s, gaps, with_runtime);
    for (label, names) in not_compared {
        if !names.is_empty() {
            let names: Vec<String> = names.iter().map(|n| escape::html(n)).collect();
            let _ = writeln!(
                s,
                "<p class=\"note\">{}: {}.</p>",
                escape::html(label),
                names.join(", ")
            );
        }
    }
    for n in notes {
        let _ = writeln!(s, "<p class=\"note\">{}</p>", escape::html(n));
    }
    s
}

/// The sortable table of `gaps` (none without gaps); `with_runtime` adds
/// the column naming each gap's baseline.
fn gaps_table(s: &mut String, gaps: &[OpGap], with_runtime: bool) {
    if gaps.is_empty() {
        return;
    }
    s.push_str("<table class=\"data sortable\">\n<thead><tr><th>Op</th><th class=\"num\">Ours ms</th><th class=\"num\">Baseline ms</th><th class=\"num\">Ratio</th>");
    if with_runtime {
        s.push_str("<th>Baseline</th>");
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    for g in gaps {
        let cell = |v: f64| {
            format!(
                "<td class=\"num\" data-v=\"{}\">{}</td>",
                if v.is_finite() { v } else { 0.0 },
                num(v)
            )
        };
        // Above the parity bar: the ratio in bold.
        let ratio = if g.ratio > PARITY_THRESHOLD {
            format!(
                "<td class=\"num\" data-v=\"{}\"><strong>{}x</strong></td>",
                g.ratio,
                num(g.ratio)
            )
        } else {
            format!(
                "<td class=\"num\" data-v=\"{}\">{}x</td>",
                g.ratio,
                num(g.ratio)
            )
        };
        let _ = write!(
            s,
            "<tr><td>{}</td>{}{}{ratio}",
            escape::html(&g.op),
            cell(g.ours_ms),
            cell(g.baseline_ms)
        );
        if with_runtime {
            let _ = write!(
                s,
                "<td>{}</td>",
                escape::html(g.baseline_runtime.as_deref().unwrap_or(""))
            );
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody>\n</table>\n");
}

fn verdict(achieved: bool, gaps: &[OpGap], coverage: &Coverage, sides: (&str, &str)) -> String {
    verdict_line(
        achieved,
        gaps.iter().map(|g| g.ratio),
        PARITY_THRESHOLD,
        coverage,
        sides,
    )
}

/// The report section (id `parity`) for a comparison against one baseline.
#[must_use]
pub fn parity_section(c: &ParityComparison) -> Section {
    let headline = vec![
        (
            "Parity".to_owned(),
            verdict(
                c.parity_achieved,
                &c.all_gaps,
                &c.coverage,
                (&c.ours, &c.baseline),
            ),
        ),
        (
            "Throughput gap".to_owned(),
            ratio_text(c.throughput_ratio, "a side has no throughput"),
        ),
        (
            "Kernel launches".to_owned(),
            ratio_text(
                c.launch_ratio,
                if c.coverage.clocks_agree() {
                    "no baseline launch count"
                } else {
                    "the two sides count launches on different clocks"
                },
            ),
        ),
        (
            format!("{} per step", c.ours),
            format!(
                "{} ms, {} tok/s, {} launches",
                num(c.ours_totals.step_time_ms),
                num(c.ours_totals.throughput_tok_s),
                c.ours_totals.kernel_launches_per_step
            ),
        ),
        (
            format!("{} per step", c.baseline),
            format!(
                "{} ms, {} tok/s, {} launches",
                num(c.baseline_totals.step_time_ms),
                num(c.baseline_totals.throughput_tok_s),
                c.baseline_totals.kernel_launches_per_step
            ),
        ),
    ];
    let html = body(
        &headline,
        &c.to_svg(),
        &c.all_gaps,
        false,
        &[
            ("Only ours", &c.only_ours),
            ("Only the baseline", &c.only_baseline),
        ],
        &c.notes,
    );
    Section::new(
        "parity",
        format!("Parity: {} vs {}", c.ours, c.baseline),
        html,
    )
}

/// The report section (id `parity`) for a comparison against several
/// baselines.
#[must_use]
pub fn parity_multi_section(c: &MultiParityComparison) -> Section {
    let headline = vec![
        (
            "Parity".to_owned(),
            verdict(
                c.parity_achieved,
                &c.all_gaps,
                &c.coverage,
                (&c.ours, "the baselines' bar"),
            ),
        ),
        (
            "Throughput gap".to_owned(),
            if c.throughput_ratio > 0.0 {
                format!(
                    "{:.2}x (fastest: {})",
                    c.throughput_ratio, c.fastest_baseline
                )
            } else {
                DASH.to_owned()
            },
        ),
        (
            "Kernel launches".to_owned(),
            if c.launch_ratio > 0.0 {
                format!(
                    "{:.2}x (fewest: {})",
                    c.launch_ratio, c.fewest_launches_baseline
                )
            } else {
                DASH.to_owned()
            },
        ),
    ];
    let html = body(
        &headline,
        &c.to_svg(),
        &c.all_gaps,
        true,
        &[("Only ours", &c.only_ours)],
        &c.notes,
    );
    Section::new(
        "parity",
        format!("Parity: {} vs {}", c.ours, c.baselines.join(", ")),
        html,
    )
}
