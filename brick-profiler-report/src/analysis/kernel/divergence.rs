//! The checksum comparison of two runs: a verdict (the first divergence, as
//! `DivergenceInfo` words it), the counts, then the mismatches and the calls
//! only one run made, as terminal text, Markdown or an HTML fragment.

use std::fmt::Write as _;

use profiler_core::kernel::{DivergenceInfo, DivergenceReport, KernelChecksum};

use super::table::{Align, Table, int};
use crate::base::escape;

/// Most rows per table; the rest are counted.
pub const MAX_DIVERGENCE_ROWS: usize = 100;

/// `DIVERGENCE at 'name' (layer L, pos P): expected 0x.., got 0x..`, with
/// `name` as given (each format escapes it its own way).
fn divergence_line(d: &DivergenceInfo, name: &str) -> String {
    format!(
        "DIVERGENCE at '{}' (layer {}, pos {}): expected 0x{:016X}, got 0x{:016X}",
        name, d.layer_idx, d.position, d.expected, d.actual
    )
}

/// The first divergence of two runs as one terminal line, its kernel name
/// through the terminal escaper: `DIVERGENCE at 'attn' (layer 3, pos 17):
/// expected 0x00000000DEADBEEF, got 0x0000000000000001`.
#[must_use]
pub fn format_divergence_line(d: &DivergenceInfo) -> String {
    divergence_line(d, &escape::visible(&d.name))
}

/// One line saying what the comparison found.
fn verdict(r: &DivergenceReport) -> String {
    match r.first() {
        Some(first) => divergence_line(first, &first.name),
        None if r.reference_len == 0 && r.current_len == 0 => {
            "nothing to compare: neither run recorded checksums".to_owned()
        }
        None if r.is_identical() => {
            format!("identical: all {} calls match", int(r.compared as u64))
        }
        None if r.compared == 0 => "nothing compared: the runs share no call".to_owned(),
        None => format!(
            "no compared call differs ({} compared), but the runs made different calls",
            int(r.compared as u64)
        ),
    }
}

fn counts(r: &DivergenceReport) -> String {
    format!(
        "reference {} calls, current {} calls; compared {}, matching {}, mismatched {}, only in reference {}, only in current {}",
        int(r.reference_len as u64),
        int(r.current_len as u64),
        int(r.compared as u64),
        int(r.matching() as u64),
        int(r.mismatches.len() as u64),
        int(r.only_in_reference.len() as u64),
        int(r.only_in_current.len() as u64),
    )
}

fn hex(v: u64) -> String {
    format!("0x{v:016X}")
}

/// Titled tables (mismatches, one-sided calls) and how many rows each left out.
fn tables(r: &DivergenceReport) -> Vec<(&'static str, Table, usize)> {
    let mut out = Vec::new();
    if !r.mismatches.is_empty() {
        let mut t = Table::new(&[
            ("#", Align::Right),
            ("Kernel", Align::Left),
            ("Layer", Align::Right),
            ("Pos", Align::Right),
            ("Expected", Align::Left),
            ("Got", Align::Left),
            ("Index", Align::Right),
        ]);
        for (i, m) in r.mismatches.iter().take(MAX_DIVERGENCE_ROWS).enumerate() {
            t.push(vec![
                (i + 1).to_string(),
                m.name.clone(),
                m.layer_idx.to_string(),
                m.position.to_string(),
                hex(m.expected),
                hex(m.actual),
                m.current_index.to_string(),
            ]);
        }
        let hidden = r.mismatches.len().saturating_sub(MAX_DIVERGENCE_ROWS);
        out.push(("Mismatches (current run order)", t, hidden));
    }
    let one_sided = |entries: &[KernelChecksum]| {
        let mut t = Table::new(&[
            ("Kernel", Align::Left),
            ("Layer", Align::Right),
            ("Pos", Align::Right),
            ("Checksum", Align::Left),
        ]);
        for c in entries.iter().take(MAX_DIVERGENCE_ROWS) {
            t.push(vec![
                c.name.to_string(),
                c.layer_idx.to_string(),
                c.position.to_string(),
                hex(c.checksum),
            ]);
        }
        (t, entries.len().saturating_sub(MAX_DIVERGENCE_ROWS))
    };
    if !r.only_in_reference.is_empty() {
        let (t, hidden) = one_sided(&r.only_in_reference);
        out.push(("Only in the reference run", t, hidden));
    }
    if !r.only_in_current.is_empty() {
        let (t, hidden) = one_sided(&r.only_in_current);
        out.push(("Only in the current run", t, hidden));
    }
    out
}

fn more(hidden: usize) -> String {
    format!("... and {} more", int(hidden as u64))
}

/// The comparison as terminal text.
#[must_use]
pub fn format_divergence_text(report: &DivergenceReport) -> String {
    let mut s = format!(
        "Checksum divergence\n{}\n{}\n",
        verdict(report),
        counts(report)
    );
    for (title, table, hidden) in tables(report) {
        let _ = write!(s, "\n{title}\n{}", table.text());
        if hidden > 0 {
            let _ = writeln!(s, "{}", more(hidden));
        }
    }
    s
}

/// The comparison as Markdown (a `### Checksum divergence` section).
#[must_use]
pub fn format_divergence_markdown(report: &DivergenceReport) -> String {
    let mut s = format!(
        "### Checksum divergence\n\n**{}**\n\n{}\n",
        escape::markdown(&verdict(report)),
        escape::markdown(&counts(report))
    );
    for (title, table, hidden) in tables(report) {
        let _ = write!(s, "\n#### {title}\n\n{}", table.markdown());
        if hidden > 0 {
            let _ = writeln!(s, "\n{}", escape::markdown(&more(hidden)));
        }
    }
    s
}

/// The comparison as an HTML `<section class="kernel-divergence">`.
#[must_use]
pub fn format_divergence_html(report: &DivergenceReport) -> String {
    format!(
        "<section class=\"kernel-divergence\">\n<h2>Checksum divergence</h2>\n{}</section>\n",
        divergence_body(report)
    )
}

/// The comparison as HTML, without a heading (the report's section gives
/// it one).
pub(crate) fn divergence_body(report: &DivergenceReport) -> String {
    let class = match (
        report.reference_len + report.current_len,
        report.is_identical(),
    ) {
        (0, _) => "empty",
        (_, true) => "identical",
        (_, false) => "diverged",
    };
    let mut s = format!(
        "<p class=\"verdict {class}\">{}</p>\n<p>{}</p>\n",
        escape::html(&verdict(report)),
        escape::html(&counts(report))
    );
    for (title, table, hidden) in tables(report) {
        let _ = write!(
            s,
            "<h3>{}</h3>\n{}",
            escape::html(title),
            table.html("divergence")
        );
        if hidden > 0 {
            let _ = writeln!(s, "<p>{}</p>", escape::html(&more(hidden)));
        }
    }
    s
}
