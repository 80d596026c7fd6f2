//! Small pieces every section is built from: notes, fact tables, table
//! headers that carry their metric's definition, sortable numeric cells,
//! and the bricks in the order the report lists them.

use std::fmt::Write as _;

use profiler_core::{BrickStats, Profile};

use crate::base::escape;
use crate::base::glossary::Metric;
use crate::base::textfmt::DASH;

/// A paragraph explaining why a section has nothing to show, or what it
/// shows (trusted HTML).
pub(crate) fn note(text: &str) -> String {
    format!("<p class=\"note\">{text}</p>\n")
}

/// A two-column table of facts; names and values are already HTML.
pub(crate) fn facts(s: &mut String, rows: &[(String, String)]) {
    s.push_str("<table class=\"facts\">\n<tbody>\n");
    for (name, value) in rows {
        let _ = writeln!(s, "<tr><th scope=\"row\">{name}</th><td>{value}</td></tr>");
    }
    s.push_str("</tbody>\n</table>\n");
}

/// `name` with `metric`'s definition as a tooltip and a link to its
/// glossary entry (`name` is HTML).
pub(crate) fn term(metric: Metric, name: &str) -> String {
    let t = metric.term();
    format!(
        "<a class=\"term\" href=\"#glossary-{}\" title=\"{}\">{name}</a>",
        t.id,
        escape::html(t.text)
    )
}

/// A header cell; `metric` adds its definition as a tooltip, `class` its
/// classes (`num` for numbers, `opt` for a column narrow screens hide).
pub(crate) fn th(name: &str, class: &str, metric: Option<Metric>) -> String {
    let class = if class.is_empty() {
        String::new()
    } else {
        format!(" class=\"{class}\"")
    };
    match metric {
        Some(m) => format!(
            "<th{class} title=\"{}\">{name}</th>",
            escape::html(m.term().text)
        ),
        None => format!("<th{class}>{name}</th>"),
    }
}

/// A numeric cell showing `shown`, sorted by `raw` (`data-v`; a value that
/// is not finite sorts as 0). `class` adds classes after `num`.
pub(crate) fn num_cell(raw: f64, shown: &str, class: &str) -> String {
    let raw = if raw.is_finite() { raw } else { 0.0 };
    let class = if class.is_empty() {
        "num".to_owned()
    } else {
        format!("num {class}")
    };
    format!("<td class=\"{class}\" data-v=\"{raw}\">{shown}</td>")
}

/// A numeric cell with `v` shown by `fmt` when `has`, else a dash that
/// sorts as 0.
pub(crate) fn num_cell_if(has: bool, v: f64, fmt: fn(f64) -> String, class: &str) -> String {
    if has {
        num_cell(v, &fmt(v), class)
    } else {
        num_cell(0.0, DASH, class)
    }
}

/// Bricks by total time, descending (stable for equal times).
pub(crate) fn sorted_bricks(profile: &Profile) -> Vec<&BrickStats> {
    let mut bricks: Vec<_> = profile.bricks.iter().collect();
    bricks.sort_by_key(|b| std::cmp::Reverse(b.total_ns));
    bricks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_carry_their_definition_escaped() {
        let h = th("Self ms", "num", Some(Metric::SelfTime));
        assert!(
            h.starts_with("<th class=\"num\" title=\"A brick&#39;s total time minus"),
            "{h}"
        );
        assert_eq!(th("Brick", "", None), "<th>Brick</th>");
        let t = term(Metric::WallCoverage, "Wall coverage");
        assert!(t.contains("href=\"#glossary-wall-coverage\""), "{t}");
    }

    #[test]
    fn cells_sort_by_a_finite_raw_value() {
        assert_eq!(
            num_cell(f64::NAN, "x", "opt"),
            "<td class=\"num opt\" data-v=\"0\">x</td>"
        );
        assert_eq!(
            num_cell_if(false, 3.0, |v| v.to_string(), ""),
            format!("<td class=\"num\" data-v=\"0\">{DASH}</td>")
        );
    }
}
