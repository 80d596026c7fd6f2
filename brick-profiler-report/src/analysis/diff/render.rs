//! Renderers of a [`ProfileDiff`]: the terminal table (`Display`),
//! Markdown and JSON. Times print with a unit; a change without a test says
//! why.

use std::fmt::{self, Write as _};

use super::model::{MemoryDiff, ProfileDiff, RowDiff, Verdict};
use crate::base::escape;
use crate::base::textfmt::{DASH, bytes, duration as time, pretty_json};

fn change(r: &RowDiff) -> String {
    r.change.map_or_else(
        || DASH.to_owned(),
        |c| {
            if c.is_finite() {
                format!("{:+.1}%", c * 100.0)
            } else {
                DASH.to_owned()
            }
        },
    )
}

fn verdict(r: &RowDiff) -> String {
    match (r.verdict, r.severity) {
        (Verdict::Regression, Some(s)) => format!("REGRESSION ({s})"),
        (v, _) => v.label().to_owned(),
    }
}

fn p_value(r: &RowDiff) -> String {
    r.test.as_ref().map_or_else(
        || DASH.to_owned(),
        |t| {
            if t.p_value >= 0.001 {
                format!("{:.3}", t.p_value)
            } else {
                format!("{:.1e}", t.p_value)
            }
        },
    )
}

impl ProfileDiff {
    fn criteria_line(&self) -> String {
        let c = &self.criteria;
        format!(
            "flagged when the per-call time changes by more than {:.0}% (critical above {:.0}%), \
             the shift test gives p < {} and the shift exceeds {}x the old run's noise",
            c.warning * 100.0,
            c.critical * 100.0,
            c.alpha,
            c.noise_floor_mads
        )
    }

    /// Memory rows that changed.
    fn memory_flagged(&self) -> impl Iterator<Item = &MemoryDiff> {
        self.memory
            .iter()
            .filter(|m| m.verdict != Verdict::Unchanged)
    }

    fn summary(&self) -> String {
        let common = self.bricks.len();
        let over = format!(
            "over {common} brick(s) in both runs, of {} before and {} after",
            common + self.removed.len(),
            common + self.added.len()
        );
        if !self.has_verdict() {
            return format!("no verdict: no brick is in both runs ({over})");
        }
        let regressions = self.count(Verdict::Regression);
        let mut s = format!(
            "{regressions} regression(s), {} improvement(s), {} within noise, {} untested, {over}",
            self.count(Verdict::Improvement),
            self.count(Verdict::Noise),
            self.count(Verdict::Untested)
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

    /// Markdown: a heading, the criteria, a table of every row and the
    /// details of flagged rows.
    #[must_use]
    pub fn to_markdown(&self) -> String {
        let mut s = format!(
            "## Profile diff: {} → {}\n\n{}.\n\n",
            escape::markdown(&self.old),
            escape::markdown(&self.new),
            self.criteria_line()
        );
        s.push_str("| Brick | Calls | Before | After | Change | p | Verdict |\n");
        s.push_str("|---|---:|---:|---:|---:|---:|---|\n");
        for r in self.rows() {
            let _ = writeln!(
                s,
                "| {} | {} → {} | {} | {} | {} | {} | {} |",
                escape::markdown(&r.name),
                r.old_calls,
                r.new_calls,
                time(r.old_ns),
                time(r.new_ns),
                change(r),
                p_value(r),
                if r.verdict == Verdict::Regression {
                    format!("**{}**", verdict(r))
                } else {
                    verdict(r)
                }
            );
        }
        let flagged: Vec<&RowDiff> = self
            .rows()
            .filter(|r| !matches!(r.verdict, Verdict::Unchanged))
            .collect();
        if !flagged.is_empty() {
            s.push_str("\n### Details\n\n");
            for r in flagged {
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
        s
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
                if m.verdict == Verdict::Regression {
                    format!("**{}**", m.verdict.label())
                } else {
                    m.verdict.label().to_owned()
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

impl fmt::Display for ProfileDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Profile diff: {} -> {}",
            escape::visible(&self.old),
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
            .clamp(5, 40);
        writeln!(
            f,
            "  {:<width$}  {:>17}  {:>11}  {:>11}  {:>8}  {:>8}  verdict",
            "brick", "calls", "before", "after", "change", "p"
        )?;
        for (r, name) in rows.iter().zip(&names) {
            let name = crate::base::textfmt::cut(name, width);
            writeln!(
                f,
                "  {name:<width$}  {:>17}  {:>11}  {:>11}  {:>8}  {:>8}  {}",
                format!("{} -> {}", r.old_calls, r.new_calls),
                time(r.old_ns),
                time(r.new_ns),
                change(r),
                p_value(r),
                verdict(r)
            )?;
        }
        for r in rows
            .iter()
            .filter(|r| !matches!(r.verdict, Verdict::Unchanged))
        {
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
                m.verdict.label(),
                escape::visible(&m.detail)
            )?;
        }
        for note in &self.notes {
            writeln!(f, "  note: {}", escape::visible(note))?;
        }
        writeln!(f, "Result: {}", self.summary())
    }
}
