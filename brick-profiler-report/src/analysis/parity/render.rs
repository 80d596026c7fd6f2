//! Text renderers of parity comparisons: the contract's Markdown (heading,
//! three bullets, a Top Gaps table) followed by what it leaves out, JSON,
//! and a terminal view. A ratio the contract sets to 0 for lack of data is
//! shown as a dash with the reason. Names go through the Markdown escaper
//! or the terminal one (`fit`), never raw.

use std::fmt::{self, Write as _};

use super::coverage::{Coverage, verdict_line};
use super::model::{OpGap, PARITY_THRESHOLD, ParityComparison, Totals};
use super::multi::MultiParityComparison;
use crate::base::escape::{markdown, visible};
use crate::base::textfmt::{DASH, fit, num};

fn throughput_bullet(ratio: f64, ours: &str, o: &Totals, base: &str, b: &Totals) -> String {
    if ratio > 0.0 {
        format!(
            "{ratio:.2}x ({base} {} tok/s, {ours} {} tok/s)",
            num(b.throughput_tok_s),
            num(o.throughput_tok_s)
        )
    } else if o.throughput_tok_s <= 0.0 {
        format!("{DASH} (no throughput for {ours})")
    } else {
        format!("{DASH} (no throughput for {base})")
    }
}

fn launch_bullet(
    ratio: f64,
    clocks_agree: bool,
    (ours, o): (&str, &Totals),
    (base, b): (&str, &Totals),
) -> String {
    if !clocks_agree {
        format!(
            "{DASH} (not compared: {ours} {}/step and {base} {}/step are counted on two clocks)",
            o.kernel_launches_per_step, b.kernel_launches_per_step
        )
    } else if ratio > 0.0 {
        format!(
            "{ratio:.2}x ({ours} {}/step, {base} {}/step)",
            o.kernel_launches_per_step, b.kernel_launches_per_step
        )
    } else if b.kernel_launches_per_step == 0 {
        format!("{DASH} (no launch count for {base})")
    } else {
        format!("{DASH} (no launch count for {ours})")
    }
}

fn parity_bullet(
    achieved: bool,
    all: &[OpGap],
    coverage: &Coverage,
    sides: (&str, &str),
) -> String {
    verdict_line(
        achieved,
        all.iter().map(|g| g.ratio),
        PARITY_THRESHOLD,
        coverage,
        sides,
    )
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
            markdown(&g.op),
            g.ours_ms,
            g.baseline_ms,
            g.ratio
        );
        if with_runtime {
            let runtime = g.baseline_runtime.as_deref().map_or(DASH.into(), markdown);
            let _ = write!(s, " {runtime} |");
        }
        s.push('\n');
    }
    if gaps.is_empty() {
        s.push_str("\nNo op has time on both sides.\n");
    }
}

/// Names in Markdown, each escaped on its own, comma-separated.
fn names(list: &[String]) -> String {
    list.iter()
        .map(|n| markdown(n))
        .collect::<Vec<_>>()
        .join(", ")
}

fn tail(s: &mut String, only_ours: &[String], only_baseline: &[String], notes: &[String]) {
    if !only_ours.is_empty() || !only_baseline.is_empty() {
        s.push_str("\n### Not compared\n\n");
        if !only_ours.is_empty() {
            let _ = writeln!(s, "- only ours: {}", names(only_ours));
        }
        if !only_baseline.is_empty() {
            let _ = writeln!(s, "- only baseline: {}", names(only_baseline));
        }
    }
    if !notes.is_empty() {
        s.push_str("\n### Notes\n\n");
        for n in notes {
            let _ = writeln!(s, "- {}", markdown(n));
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
        let (ours, base) = (markdown(&self.ours), markdown(&self.baseline));
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
            launch_bullet(
                self.launch_ratio,
                self.coverage.clocks_agree(),
                (&ours, o),
                (&base, b)
            )
        );
        let _ = writeln!(
            s,
            "- Parity: {}\n",
            parity_bullet(
                self.parity_achieved,
                &self.all_gaps,
                &self.coverage,
                (&ours, &base)
            )
        );
        gaps_table(&mut s, &self.gaps, false);
        if !self.coverage.clocks_agree() && !self.gaps.is_empty() {
            s.push_str(
                "\nThe two sides are timed on different clocks: these ratios are for reference \
                 only, not a verdict.\n",
            );
        }
        tail(&mut s, &self.only_ours, &self.only_baseline, &self.notes);
        s
    }

    /// Pretty JSON of the comparison.
    #[must_use]
    pub fn to_json(&self) -> String {
        crate::base::textfmt::pretty_json(self)
    }
}

impl MultiParityComparison {
    /// Markdown as [`ParityComparison::to_markdown`], against the best
    /// baseline per op; the table names the baseline that set each bar.
    #[must_use]
    pub fn to_markdown(&self) -> String {
        let ours = markdown(&self.ours);
        let mut s = format!("## Parity: {ours} vs {}\n\n", names(&self.baselines));
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
                markdown(n)
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
                true,
                (&ours, &o),
                (&name(&self.fewest_launches_baseline), &fewest)
            )
        );
        let _ = writeln!(
            s,
            "- Parity: {}\n",
            parity_bullet(
                self.parity_achieved,
                &self.all_gaps,
                &self.coverage,
                (&ours, "the baselines' bar")
            )
        );
        gaps_table(&mut s, &self.gaps, true);
        tail(&mut s, &self.only_ours, &[], &self.notes);
        s
    }

    /// Pretty JSON of the comparison (per-baseline comparisons included).
    #[must_use]
    pub fn to_json(&self) -> String {
        crate::base::textfmt::pretty_json(self)
    }
}

/// The gap rows; `judged`: flag those above the threshold (not when the
/// two sides' clocks differ, where ratios are for reference only).
fn gap_rows(f: &mut fmt::Formatter<'_>, gaps: &[OpGap], judged: bool) -> fmt::Result {
    if gaps.is_empty() {
        return writeln!(f, "  no op has time on both sides");
    }
    writeln!(
        f,
        "  {:<30} {:>10} {:>10} {:>8}{}",
        "op",
        "ours ms",
        "base ms",
        "ratio",
        if judged {
            ""
        } else {
            "  (two clocks: for reference only)"
        }
    )?;
    for g in gaps {
        let flag = if judged && g.ratio > PARITY_THRESHOLD {
            " !"
        } else {
            ""
        };
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
        let (ours, base) = (visible(&self.ours), visible(&self.baseline));
        writeln!(
            f,
            "  throughput gap   {}",
            throughput_bullet(self.throughput_ratio, &ours, o, &base, b)
        )?;
        writeln!(
            f,
            "  kernel launches  {}",
            launch_bullet(
                self.launch_ratio,
                self.coverage.clocks_agree(),
                (&ours, o),
                (&base, b)
            )
        )?;
        writeln!(
            f,
            "  parity           {}",
            parity_bullet(
                self.parity_achieved,
                &self.all_gaps,
                &self.coverage,
                (&ours, &base)
            )
        )?;
        gap_rows(f, &self.all_gaps, self.coverage.clocks_agree())?;
        for n in &self.notes {
            writeln!(f, "  note: {}", visible(n))?;
        }
        Ok(())
    }
}

impl fmt::Display for MultiParityComparison {
    /// A terminal view against the best baseline per op.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let baselines: Vec<_> = self.baselines.iter().map(|b| visible(b)).collect();
        writeln!(
            f,
            "Parity: {} vs {}",
            visible(&self.ours),
            baselines.join(", ")
        )?;
        if self.throughput_ratio > 0.0 {
            writeln!(
                f,
                "  throughput gap   {:.2}x (fastest: {})",
                self.throughput_ratio,
                visible(&self.fastest_baseline)
            )?;
        } else {
            writeln!(f, "  throughput gap   {DASH}")?;
        }
        if self.launch_ratio > 0.0 {
            writeln!(
                f,
                "  kernel launches  {:.2}x (fewest: {})",
                self.launch_ratio,
                visible(&self.fewest_launches_baseline)
            )?;
        } else {
            writeln!(f, "  kernel launches  {DASH}")?;
        }
        writeln!(
            f,
            "  parity           {}",
            parity_bullet(
                self.parity_achieved,
                &self.all_gaps,
                &self.coverage,
                (&visible(&self.ours), "the baselines' bar")
            )
        )?;
        gap_rows(f, &self.all_gaps, true)?;
        for n in &self.notes {
            writeln!(f, "  note: {}", visible(n))?;
        }
        Ok(())
    }
}
