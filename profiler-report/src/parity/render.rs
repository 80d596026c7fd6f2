//! Text renderers of parity comparisons: the contract's Markdown (heading,
//! three bullets, a Top Gaps table) followed by what it leaves out, JSON,
//! and a terminal view. A ratio the contract sets to 0 for lack of data is
//! shown as "n/a" with the reason.

use std::fmt::{self, Write as _};

use super::model::{OpGap, PARITY_THRESHOLD, ParityComparison, Totals};
use super::multi::MultiParityComparison;
use crate::textfmt::{md_cell, md_line, num};

fn throughput_bullet(ratio: f64, ours: &str, o: &Totals, base: &str, b: &Totals) -> String {
    if ratio > 0.0 {
        format!(
            "{ratio:.2}x ({base} {} tok/s, {ours} {} tok/s)",
            num(b.throughput_tok_s),
            num(o.throughput_tok_s)
        )
    } else if o.throughput_tok_s <= 0.0 {
        format!("n/a (no throughput for {ours})")
    } else {
        format!("n/a (no throughput for {base})")
    }
}

fn launch_bullet(ratio: f64, ours: &str, o: &Totals, base: &str, b: &Totals) -> String {
    if ratio > 0.0 {
        format!(
            "{ratio:.2}x ({ours} {}/step, {base} {}/step)",
            o.kernel_launches_per_step, b.kernel_launches_per_step
        )
    } else if b.kernel_launches_per_step == 0 {
        format!("n/a (no launch count for {base})")
    } else {
        format!("n/a (no launch count for {ours})")
    }
}

fn parity_bullet(achieved: bool, all: &[OpGap]) -> String {
    let over = all.iter().filter(|g| g.ratio > PARITY_THRESHOLD).count();
    if achieved {
        format!("YES (all {} ops within {PARITY_THRESHOLD:.2}x)", all.len())
    } else {
        format!(
            "NO ({over} of {} ops above {PARITY_THRESHOLD:.2}x)",
            all.len()
        )
    }
}

/// The Top Gaps table; `with_runtime` adds the column naming the baseline
/// that set each bar.
fn gaps_table(s: &mut String, gaps: &[OpGap], with_runtime: bool) {
    s.push_str("### Top Gaps\n\n");
    if with_runtime {
        s.push_str("| Op | ours (ms) | Baseline (ms) | Ratio | Baseline runtime |\n|---|---|---|---|---|\n");
    } else {
        s.push_str("| Op | ours (ms) | Baseline (ms) | Ratio |\n|---|---|---|---|\n");
    }
    for g in gaps {
        let _ = write!(
            s,
            "| {} | {:.3} | {:.3} | {:.2}x |",
            md_cell(&g.op),
            g.ours_ms,
            g.baseline_ms,
            g.ratio
        );
        if with_runtime {
            let _ = write!(
                s,
                " {} |",
                md_cell(g.baseline_runtime.as_deref().unwrap_or(""))
            );
        }
        s.push('\n');
    }
    if gaps.is_empty() {
        s.push_str("\nNo op has time on both sides.\n");
    }
}

fn tail(s: &mut String, only_ours: &[String], only_baseline: &[String], notes: &[String]) {
    if !only_ours.is_empty() || !only_baseline.is_empty() {
        s.push_str("\n### Not compared\n\n");
        if !only_ours.is_empty() {
            let _ = writeln!(s, "- only ours: {}", md_line(&only_ours.join(", ")));
        }
        if !only_baseline.is_empty() {
            let _ = writeln!(s, "- only baseline: {}", md_line(&only_baseline.join(", ")));
        }
    }
    if !notes.is_empty() {
        s.push_str("\n### Notes\n\n");
        for n in notes {
            let _ = writeln!(s, "- {}", md_line(n));
        }
    }
}

impl ParityComparison {
    /// Markdown: `## Parity: {ours} vs {baseline}`, bullets for the
    /// throughput gap, kernel launches and parity YES/NO, then `### Top
    /// Gaps` (`Op | ours (ms) | Baseline (ms) | Ratio`); after that, ops
    /// only one side timed and the notes.
    #[must_use]
    pub fn to_markdown(&self) -> String {
        let (ours, base) = (md_line(&self.ours), md_line(&self.baseline));
        let (o, b) = (&self.ours_totals, &self.baseline_totals);
        let mut s = format!("## Parity: {ours} vs {base}\n\n");
        let _ = writeln!(
            s,
            "- Throughput gap: {}",
            throughput_bullet(self.throughput_ratio, &ours, o, &base, b)
        );
        let _ = writeln!(
            s,
            "- Kernel launches: {}",
            launch_bullet(self.launch_ratio, &ours, o, &base, b)
        );
        let _ = writeln!(
            s,
            "- Parity: {}\n",
            parity_bullet(self.parity_achieved, &self.all_gaps)
        );
        gaps_table(&mut s, &self.gaps, false);
        tail(&mut s, &self.only_ours, &self.only_baseline, &self.notes);
        s
    }

    /// Pretty JSON of the comparison.
    #[must_use]
    pub fn to_json(&self) -> String {
        crate::textfmt::pretty_json(self)
    }
}

impl MultiParityComparison {
    /// Markdown as [`ParityComparison::to_markdown`], against the best
    /// baseline per op; the table names the baseline that set each bar.
    #[must_use]
    pub fn to_markdown(&self) -> String {
        let ours = md_line(&self.ours);
        let mut s = format!(
            "## Parity: {ours} vs {}\n\n",
            md_line(&self.baselines.join(", "))
        );
        let o = self
            .per_baseline
            .first()
            .map(|c| c.ours_totals)
            .unwrap_or_default();
        let fastest = self
            .per_baseline
            .iter()
            .find(|c| c.baseline == self.fastest_baseline)
            .map(|c| c.baseline_totals)
            .unwrap_or_default();
        let fewest = self
            .per_baseline
            .iter()
            .find(|c| c.baseline == self.fewest_launches_baseline)
            .map(|c| c.baseline_totals)
            .unwrap_or_default();
        let name = |n: &str| {
            if n.is_empty() {
                "any baseline".to_owned()
            } else {
                md_line(n)
            }
        };
        let _ = writeln!(
            s,
            "- Throughput gap: {}",
            throughput_bullet(
                self.throughput_ratio,
                &ours,
                &o,
                &name(&self.fastest_baseline),
                &fastest
            )
        );
        let _ = writeln!(
            s,
            "- Kernel launches: {}",
            launch_bullet(
                self.launch_ratio,
                &ours,
                &o,
                &name(&self.fewest_launches_baseline),
                &fewest
            )
        );
        let _ = writeln!(
            s,
            "- Parity: {}\n",
            parity_bullet(self.parity_achieved, &self.all_gaps)
        );
        gaps_table(&mut s, &self.gaps, true);
        tail(&mut s, &self.only_ours, &[], &self.notes);
        s
    }

    /// Pretty JSON of the comparison (per-baseline comparisons included).
    #[must_use]
    pub fn to_json(&self) -> String {
        crate::textfmt::pretty_json(self)
    }
}

/// `name` on one line, cut to `width` characters, padded to it.
fn fit(name: &str, width: usize) -> String {
    let one: String = name
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if one.chars().count() > width {
        format!(
            "{}…",
            one.chars()
                .take(width.saturating_sub(1))
                .collect::<String>()
        )
    } else {
        format!("{one:<width$}")
    }
}

fn gap_rows(f: &mut fmt::Formatter<'_>, gaps: &[OpGap]) -> fmt::Result {
    if gaps.is_empty() {
        return writeln!(f, "  no op has time on both sides");
    }
    writeln!(
        f,
        "  {:<30} {:>10} {:>10} {:>8}",
        "op", "ours ms", "base ms", "ratio"
    )?;
    for g in gaps {
        let flag = if g.ratio > PARITY_THRESHOLD { " !" } else { "" };
        let by = g
            .baseline_runtime
            .as_deref()
            .map(|r| format!("  ({})", fit(r, 20).trim_end()))
            .unwrap_or_default();
        writeln!(
            f,
            "  {} {:>10.3} {:>10.3} {:>7.2}x{flag}{by}",
            fit(&g.op, 30),
            g.ours_ms,
            g.baseline_ms,
            g.ratio
        )?;
    }
    Ok(())
}

impl fmt::Display for ParityComparison {
    /// A terminal view: the three bullets, then every gap (`!` above 1.10x).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (o, b) = (&self.ours_totals, &self.baseline_totals);
        writeln!(
            f,
            "Parity: {} vs {}",
            fit(&self.ours, 40).trim_end(),
            fit(&self.baseline, 40).trim_end()
        )?;
        writeln!(
            f,
            "  throughput gap   {}",
            throughput_bullet(self.throughput_ratio, &self.ours, o, &self.baseline, b)
        )?;
        writeln!(
            f,
            "  kernel launches  {}",
            launch_bullet(self.launch_ratio, &self.ours, o, &self.baseline, b)
        )?;
        writeln!(
            f,
            "  parity           {}",
            parity_bullet(self.parity_achieved, &self.all_gaps)
        )?;
        gap_rows(f, &self.all_gaps)?;
        for n in &self.notes {
            writeln!(f, "  note: {n}")?;
        }
        Ok(())
    }
}

impl fmt::Display for MultiParityComparison {
    /// A terminal view against the best baseline per op.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Parity: {} vs {}", self.ours, self.baselines.join(", "))?;
        if self.throughput_ratio > 0.0 {
            writeln!(
                f,
                "  throughput gap   {:.2}x (fastest: {})",
                self.throughput_ratio, self.fastest_baseline
            )?;
        } else {
            writeln!(f, "  throughput gap   n/a")?;
        }
        if self.launch_ratio > 0.0 {
            writeln!(
                f,
                "  kernel launches  {:.2}x (fewest: {})",
                self.launch_ratio, self.fewest_launches_baseline
            )?;
        } else {
            writeln!(f, "  kernel launches  n/a")?;
        }
        writeln!(
            f,
            "  parity           {}",
            parity_bullet(self.parity_achieved, &self.all_gaps)
        )?;
        gap_rows(f, &self.all_gaps)?;
        for n in &self.notes {
            writeln!(f, "  note: {n}")?;
        }
        Ok(())
    }
}
