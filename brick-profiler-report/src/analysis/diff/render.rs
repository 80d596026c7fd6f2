//! Renderers of a [`ProfileDiff`] for people: the terminal table
//! (`Display`), the Markdown summary fit for a pull-request comment (the
//! rows that changed with their intervals, every row folded away, a link
//! line for the HTML report) and JSON. Rows without an interval say why.

use std::fmt::{self, Write as _};

use super::floor::{SHORT_CALL_FLOOR, SHORT_CALL_NS, SPREAD_FLOOR};
use super::model::{Change, MemoryDiff, Metric, ProfileDiff, RowDiff};
use crate::base::escape;
use crate::base::textfmt::{DASH, bytes, duration, pretty_json, signed_pct};

/// The row's centre in its unit.
pub(super) fn value(r: &RowDiff, x: f64) -> String {
    match r.metric {
        Metric::Throughput => format!("{x:.1} tok/s"),
        _ => duration(x),
    }
}

/// `+15.2% [+12.0%, +18.1%]`, or the estimate alone, or a dash.
pub(super) fn change_text(r: &RowDiff) -> String {
    match (r.relative, r.interval) {
        (Some(x), Some((lo, hi))) => {
            format!("{} [{}, {}]", signed_pct(x), signed_pct(lo), signed_pct(hi))
        }
        (Some(x), None) => format!("{} (no interval)", signed_pct(x)),
        _ => DASH.to_owned(),
    }
}

/// The verdict's words, with the severity of a regression.
pub(super) fn verdict(r: &RowDiff) -> String {
    let label = r.change.label(r.metric);
    match (r.change, r.severity) {
        (Change::Regression, Some(s)) => format!("{} ({s})", label.to_uppercase()),
        _ => label.to_owned(),
    }
}

fn threshold(r: &RowDiff) -> String {
    format!("±{:.1}%", r.threshold * 100.0)
}

impl ProfileDiff {
    /// The baselines as one label.
    pub(super) fn baseline_label(&self) -> String {
        match self.baselines.as_slice() {
            [one] => one.clone(),
            many => format!("{} baselines", many.len()),
        }
    }

    fn criteria_line(&self) -> String {
        let c = &self.criteria;
        format!(
            "a change counts only when its whole {:.0}% interval lies beyond ±{:.0}% (raised per \
             row to {SPREAD_FLOOR}x the baselines' spread when there are several, and to \
             {SHORT_CALL_FLOOR}x for calls under {:.0} µs; critical beyond {:.0}%), with at least \
             {} samples per side; with five times that, each side's fastest fifth is compared \
             and its median is the row's centre",
            (1.0 - c.alpha) * 100.0,
            c.threshold * 100.0,
            SHORT_CALL_NS / 1e3,
            c.critical * 100.0,
            c.min_samples
        )
    }

    /// Memory rows that changed.
    fn memory_flagged(&self) -> impl Iterator<Item = &MemoryDiff> {
        self.memory.iter().filter(|m| m.change != Change::NoChange)
    }

    /// Rows that did not stay within their threshold, regressions first.
    pub(super) fn changed(&self) -> Vec<&RowDiff> {
        let mut rows: Vec<&RowDiff> = self
            .rows()
            .filter(|r| !matches!(r.change, Change::NoChange | Change::NotEnoughSamples))
            .collect();
        rows.sort_by_key(|r| r.change);
        rows
    }

    /// One line: the counts of each verdict over what was compared.
    pub(super) fn summary(&self) -> String {
        let common = self.bricks.len();
        let over = format!(
            "over {common} brick(s) in both, of {} in the baselines and {} in the new run",
            common + self.removed.len(),
            common + self.added.len()
        );
        if !self.has_verdict() {
            let why = if common == 0 {
                "no brick is in both"
            } else {
                "no measure had enough samples for an interval"
            };
            return format!("no verdict: {why} ({over})");
        }
        let mut s = format!(
            "{} regression(s), {} improvement(s), {} inconclusive, {} not enough samples, {} no \
             change, {over}",
            self.count(Change::Regression),
            self.count(Change::Improvement),
            self.count(Change::Inconclusive),
            self.count(Change::NotEnoughSamples),
            self.count(Change::NoChange),
        );
        let memory = self.memory_regressions().count();
        if memory > 0 {
            let _ = write!(s, "; {memory} memory regression(s)");
        }
        if !self.added.is_empty() || !self.removed.is_empty() {
            let _ = write!(
                s,
                "; {} brick(s) added, {} removed",
                self.added.len(),
                self.removed.len()
            );
        }
        s
    }

    fn markdown_row(s: &mut String, r: &RowDiff) {
        let verdict = if r.change == Change::Regression {
            format!("**{}**", verdict(r))
        } else {
            verdict(r)
        };
        let _ = writeln!(
            s,
            "| {} | {} → {} | {} | {} | {} | {} | {verdict} |",
            escape::markdown(&r.name),
            r.samples.0,
            r.samples.1,
            value(r, r.old),
            value(r, r.new),
            change_text(r),
            threshold(r),
        );
    }

    /// Markdown for a pull-request comment: a headline verdict, the rows
    /// that changed with their intervals (every row folded below), memory
    /// changes, notes, and `report_url` as a link line when given.
    #[must_use]
    pub fn to_markdown_with_link(&self, report_url: Option<&str>) -> String {
        let regressions = self.count(Change::Regression) + self.memory_regressions().count();
        let headline = if !self.has_verdict() {
            "⚠️ no verdict".to_owned()
        } else if regressions > 0 {
            format!("❌ {regressions} regression(s)")
        } else {
            "✅ no regression".to_owned()
        };
        let mut s = format!(
            "## Performance: {headline}\n\n{} against {}: {}.\n\n",
            escape::markdown(&self.new),
            escape::markdown(&self.baseline_label()),
            self.criteria_line()
        );
        let head = "| Measure | Samples | Baseline | New | Change [interval] | Threshold | Verdict |\n\
                    |---|---:|---:|---:|---:|---:|---|\n";
        let changed = self.changed();
        if changed.is_empty() {
            s.push_str("No measure moved beyond its threshold.\n");
        } else {
            s.push_str(head);
            for r in &changed {
                Self::markdown_row(&mut s, r);
            }
        }
        let _ = write!(
            s,
            "\n<details><summary>All {} measures</summary>\n\n{head}",
            self.rows().count()
        );
        for r in self.rows() {
            Self::markdown_row(&mut s, r);
        }
        s.push_str("\n</details>\n");
        let why: Vec<&RowDiff> = changed
            .into_iter()
            .filter(|r| r.change == Change::Regression)
            .collect();
        if !why.is_empty() {
            s.push_str("\n### Why\n\n");
            for r in why {
                let _ = writeln!(
                    s,
                    "- {}: {}",
                    escape::markdown(&r.name),
                    escape::markdown(&r.detail)
                );
            }
        }
        for (title, names) in [("Added", &self.added), ("Removed", &self.removed)] {
            if !names.is_empty() {
                let list: Vec<String> = names.iter().map(|n| escape::markdown(n)).collect();
                let _ = writeln!(s, "\n{title}: {}.", list.join(", "));
            }
        }
        self.memory_markdown(&mut s);
        for note in &self.notes {
            let _ = writeln!(s, "\nNote: {}", escape::markdown(note));
        }
        let _ = writeln!(s, "\n**Result:** {}.", self.summary());
        if let Some(url) = report_url {
            // A URL holds no Markdown but may hold parentheses: angle
            // brackets keep it whole.
            let _ = writeln!(
                s,
                "\n[Full HTML report](<{}>)",
                url.replace(['<', '>', '\n'], "")
            );
        }
        s
    }

    /// [`ProfileDiff::to_markdown_with_link`] without a link.
    #[must_use]
    pub fn to_markdown(&self) -> String {
        self.to_markdown_with_link(None)
    }

    /// The Markdown table of the memory rows flagged, when there are any.
    fn memory_markdown(&self, s: &mut String) {
        let memory: Vec<&MemoryDiff> = self.memory_flagged().collect();
        if memory.is_empty() {
            return;
        }
        s.push_str(
            "\n### Memory\n\n| Brick | Memory | Bytes/call | Allocs/call | Peak | Verdict |\n",
        );
        s.push_str("|---|---|---:|---:|---:|---|\n");
        for m in memory {
            let label = memory_label(m.change);
            let _ = writeln!(
                s,
                "| {} | {} | {} → {} | {:.1} → {:.1} | {} → {} | {}: {} |",
                escape::markdown(&m.name),
                m.kind.name(),
                bytes(m.bytes_per_call.0),
                bytes(m.bytes_per_call.1),
                m.allocations_per_call.0,
                m.allocations_per_call.1,
                bytes(m.peak_bytes.0 as f64),
                bytes(m.peak_bytes.1 as f64),
                if m.change == Change::Regression {
                    format!("**{label}**")
                } else {
                    label.to_owned()
                },
                escape::markdown(&m.detail)
            );
        }
    }

    /// Pretty JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        pretty_json(self)
    }
}

/// Words of a memory verdict.
pub(super) fn memory_label(c: Change) -> &'static str {
    match c {
        Change::Regression => "more memory",
        Change::Improvement => "less memory",
        _ => "no change",
    }
}

impl fmt::Display for ProfileDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Profile diff: {} -> {}",
            escape::visible(&self.baseline_label()),
            escape::visible(&self.new)
        )?;
        writeln!(f, "  {}", self.criteria_line())?;
        let rows: Vec<&RowDiff> = self.rows().collect();
        let names: Vec<String> = rows
            .iter()
            .map(|r| escape::visible(&r.name).into_owned())
            .collect();
        let width = names
            .iter()
            .map(|n| n.chars().count())
            .max()
            .unwrap_or(5)
            .clamp(7, 40);
        writeln!(
            f,
            "  {:<width$}  {:>17}  {:>13}  {:>13}  {:>28}  {:>7}  verdict",
            "measure", "samples", "baseline", "new", "change [interval]", "thresh"
        )?;
        for (r, name) in rows.iter().zip(&names) {
            let name = crate::base::textfmt::cut(name, width);
            writeln!(
                f,
                "  {name:<width$}  {:>17}  {:>13}  {:>13}  {:>28}  {:>7}  {}",
                format!("{} -> {}", r.samples.0, r.samples.1),
                value(r, r.old),
                value(r, r.new),
                change_text(r),
                threshold(r),
                verdict(r)
            )?;
        }
        for r in rows.iter().filter(|r| r.change != Change::NoChange) {
            writeln!(
                f,
                "  {}: {}",
                escape::visible(&r.name),
                escape::visible(&r.detail)
            )?;
        }
        for (title, names) in [("added", &self.added), ("removed", &self.removed)] {
            if !names.is_empty() {
                let list: Vec<String> = names
                    .iter()
                    .map(|n| escape::visible(n).into_owned())
                    .collect();
                writeln!(f, "  {title}: {}", list.join(", "))?;
            }
        }
        for m in self.memory_flagged() {
            writeln!(
                f,
                "  memory {} ({}): {}: {}",
                escape::visible(&m.name),
                m.kind.name(),
                memory_label(m.change),
                escape::visible(&m.detail)
            )?;
        }
        for note in &self.notes {
            writeln!(f, "  note: {}", escape::visible(note))?;
        }
        writeln!(f, "Result: {}", self.summary())
    }
}
