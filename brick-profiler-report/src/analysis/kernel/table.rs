//! One table, three renderings: aligned terminal text, Markdown and an HTML
//! `<table>`, each escaping cell text for its format; plus the number and
//! time formats the kernel reports share (never `NaN` or `inf`).

use std::fmt::Write as _;

use crate::base::escape;
pub(super) use crate::base::textfmt::{DASH, duration, int, num};

/// Column alignment, which also says what a column holds: names and text
/// (left, escaped for each format) or numbers this crate formatted (right,
/// never escaped: they hold only digits, units and [`DASH`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Align {
    Left,
    Right,
}

/// A header row and body rows of plain (unescaped) cell text.
pub(super) struct Table {
    columns: Vec<(&'static str, Align)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub(super) fn new(columns: &[(&'static str, Align)]) -> Self {
        Self {
            columns: columns.to_vec(),
            rows: Vec::new(),
        }
    }

    pub(super) fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// Aligned columns separated by two spaces; cells kept on one line.
    pub(super) fn text(&self) -> String {
        let cells: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| {
                r.iter()
                    .zip(&self.columns)
                    .map(|(c, (_, align))| match align {
                        Align::Left => escape::visible(c).into_owned(),
                        Align::Right => c.clone(),
                    })
                    .collect()
            })
            .collect();
        let widths: Vec<usize> = (0..self.columns.len())
            .map(|i| {
                cells
                    .iter()
                    .filter_map(|r| r.get(i))
                    .chain(std::iter::once(&self.columns[i].0.to_owned()))
                    .map(|c| c.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut s = String::new();
        let header: Vec<String> = self.columns.iter().map(|c| c.0.to_owned()).collect();
        for row in std::iter::once(&header).chain(&cells) {
            let mut line = String::new();
            for (i, (_, align)) in self.columns.iter().enumerate() {
                let cell = row.get(i).map_or("", String::as_str);
                let w = widths[i];
                let _ = match align {
                    Align::Left => write!(line, "{cell:<w$}  "),
                    Align::Right => write!(line, "{cell:>w$}  "),
                };
            }
            s.push_str(line.trim_end());
            s.push('\n');
        }
        s
    }

    /// A GitHub-flavoured Markdown table.
    pub(super) fn markdown(&self) -> String {
        let mut s = String::new();
        s.push('|');
        for (name, _) in &self.columns {
            let _ = write!(s, " {} |", escape::markdown(name));
        }
        s.push_str("\n|");
        for (_, align) in &self.columns {
            s.push_str(if *align == Align::Right {
                "---:|"
            } else {
                "---|"
            });
        }
        s.push('\n');
        for row in &self.rows {
            s.push('|');
            for (i, (_, align)) in self.columns.iter().enumerate() {
                let cell = row.get(i).map_or("", String::as_str);
                let _ = match align {
                    Align::Left => write!(s, " {} |", escape::markdown(cell)),
                    Align::Right => write!(s, " {cell} |"),
                };
            }
            s.push('\n');
        }
        s
    }

    /// An HTML `<table class="{class}">`; right-aligned cells get `class="num"`.
    pub(super) fn html(&self, class: &str) -> String {
        let mut s = format!("<table class=\"{}\">\n<thead><tr>", escape::html(class));
        for (name, _) in &self.columns {
            let _ = write!(s, "<th>{}</th>", escape::html(name));
        }
        s.push_str("</tr></thead>\n<tbody>\n");
        for row in &self.rows {
            s.push_str("<tr>");
            for (i, (_, align)) in self.columns.iter().enumerate() {
                let cell = escape::html(row.get(i).map_or("", String::as_str));
                let _ = match align {
                    Align::Left => write!(s, "<td>{cell}</td>"),
                    Align::Right => write!(s, "<td class=\"num\">{cell}</td>"),
                };
            }
            s.push_str("</tr>\n");
        }
        s.push_str("</tbody>\n</table>\n");
        s
    }
}

/// `part / whole` as a percentage; [`DASH`] when `whole` is 0 or the
/// ratio is not finite.
pub(super) fn pct(part: f64, whole: f64) -> String {
    if whole == 0.0 {
        return DASH.to_owned();
    }
    crate::base::textfmt::pct(100.0 * part / whole)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_are_a_dash_when_they_cannot_be_shown() {
        assert_eq!(pct(1.0, 0.0), DASH);
        assert_eq!(pct(f64::NAN, 4.0), DASH);
        assert_eq!(pct(f64::INFINITY, 4.0), DASH);
        assert_eq!(pct(1.0, 4.0), "25.0%");
    }

    #[test]
    fn one_table_renders_three_ways_with_escaping() {
        let mut t = Table::new(&[("Name", Align::Left), ("Value", Align::Right)]);
        t.push(vec!["<b>|x\n".into(), "1".into()]);
        t.push(vec!["long name".into(), "12345".into()]);
        assert_eq!(
            t.text(),
            "Name       Value\n<b>|x\\n        1\nlong name  12345\n"
        );
        assert_eq!(
            t.markdown(),
            "| Name | Value |\n|---|---:|\n| \\<b\\>\\|x\\\\n | 1 |\n| long name | 12345 |\n"
        );
        assert_eq!(
            t.html("t"),
            "<table class=\"t\">\n<thead><tr><th>Name</th><th>Value</th></tr></thead>\n<tbody>\n\
             <tr><td>&lt;b&gt;|x\\n</td><td class=\"num\">1</td></tr>\n\
             <tr><td>long name</td><td class=\"num\">12345</td></tr>\n</tbody>\n</table>\n"
        );
    }
}
