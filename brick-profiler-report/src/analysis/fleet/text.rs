//! [`FleetReport`] as a terminal table, Markdown and JSON: the verdict
//! first (stragglers and the threshold), then absent ranks and problems,
//! step times per rank, each rank's step by kind (compute, communication,
//! waiting, outside any phase), and the most imbalanced bricks and phases.

use std::fmt;

use super::comm::{Communication, RankTime};
use super::error::{RankProblem, RankRange};
use super::report::{FleetReport, Imbalance, RankSteps};
use crate::analysis::straggler::{Straggler, StragglerIn};
use crate::base::escape::{markdown, visible};
use crate::base::textfmt::{DASH, duration, fixed, pct, pretty_json};

/// Bricks and phases shown in the text reports (the JSON has all).
const SHOWN: usize = 10;
/// Rank rows shown in the text reports (stragglers always are).
const RANK_ROWS: usize = 32;

fn what(s: &Straggler) -> String {
    match &s.what {
        StragglerIn::Step => "median step".to_owned(),
        StragglerIn::OwnWork => "own work (median step less its wait at collectives)".to_owned(),
        StragglerIn::Brick { brick } => format!("brick {} (median call)", visible(brick)),
    }
}

/// A rank's columns: compute, communication, transfer, waiting, outside
/// (a dash where not measured).
fn time_cells(r: &RankTime) -> [String; 5] {
    let comm = |f: fn(&Communication) -> f64| {
        r.communication
            .as_ref()
            .map_or_else(|| DASH.to_owned(), |c| duration(f(c)))
    };
    // A step the profile gives no wall time for is not split: no zeros.
    let split = |ns: f64| {
        if r.unsplit_ns > 0.0 {
            DASH.to_owned()
        } else {
            duration(ns)
        }
    };
    [
        split(r.compute_ns),
        comm(|c| c.total_ns),
        comm(|c| c.transfer_ns),
        comm(|c| c.waiting_ns),
        split(r.outside_ns),
    ]
}

impl FleetReport {
    /// The one-line verdict: who stands out, by what rule.
    #[must_use]
    pub fn verdict(&self) -> String {
        let t = &self.step_threshold;
        let judged = if self.time.has_communication() {
            "median own work (step less wait at collectives)"
        } else {
            "median step"
        };
        let rule = format!(
            "{judged} {}, MAD {}, threshold {} (median + max({} x 1.4826 x MAD, {} of median))",
            duration(t.median_ns),
            duration(t.mad_ns),
            duration(t.threshold_ns),
            fixed(self.settings.rule.mad_k, 1),
            pct(self.settings.rule.min_excess * 100.0),
        );
        match self.straggler_ranks().as_slice() {
            [] => format!("no straggler among {} ranks; {rule}", self.ranks_analysed),
            ranks => {
                let names: Vec<String> = ranks.iter().map(|r| format!("rank {r}")).collect();
                format!("straggler: {}; {rule}", names.join(", "))
            }
        }
    }

    /// Rank rows to show: the first [`RANK_ROWS`] and every straggler.
    fn shown_ranks(&self) -> impl Iterator<Item = &RankSteps> {
        let stragglers = self.straggler_ranks();
        self.ranks
            .iter()
            .enumerate()
            .filter(move |(i, r)| *i < RANK_ROWS || stragglers.binary_search(&r.rank).is_ok())
            .map(|(_, r)| r)
    }

    /// Time rows of the ranks shown.
    fn shown_times(&self) -> impl Iterator<Item = &RankTime> {
        let shown: Vec<u32> = self.shown_ranks().map(|r| r.rank).collect();
        self.time
            .ranks
            .iter()
            .filter(move |t| shown.binary_search(&t.rank).is_ok())
    }

    /// The report as Markdown.
    #[must_use]
    pub fn to_markdown(&self) -> String {
        let mut out = format!(
            "## Fleet: run `{}`, {} of {} ranks\n\n{}\n\n",
            markdown(&self.run_id),
            self.ranks_analysed,
            self.world_size,
            markdown(&self.verdict())
        );
        if !self.absent.is_empty() {
            out.push_str(&format!(
                "Absent ranks: {}\n\n",
                RankRange::list(&self.absent)
            ));
        }
        for p in &self.problems {
            out.push_str(&format!("- {}: {}\n", label(p), markdown(&p.to_string())));
        }
        if !self.stragglers.is_empty() {
            out.push_str("\n| rank | stands out in | value | threshold | over median |\n|---:|---|---:|---:|---:|\n");
            for s in &self.stragglers {
                out.push_str(&format!(
                    "| {} | {} | {} | {} | {} |\n",
                    s.rank,
                    markdown(&what(s)),
                    duration(s.value_ns),
                    duration(s.threshold.threshold_ns),
                    pct(s.excess * 100.0)
                ));
            }
        }
        out.push_str("\n| rank | host | steps | p10 | median | p90 | max |\n|---:|---|---:|---:|---:|---:|---:|\n");
        for r in self.shown_ranks() {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} |\n",
                r.rank,
                markdown(&r.host),
                r.steps,
                duration(r.p10_ns),
                duration(r.median_ns),
                duration(r.p90_ns),
                duration(r.max_ns)
            ));
        }
        out.push_str(&format!("\n{}\n\n", markdown(&self.time.summary())));
        out.push_str("| rank | compute | communication | transfer | waiting | outside |\n|---:|---:|---:|---:|---:|---:|\n");
        for t in self.shown_times() {
            let [a, b, c, d, e] = time_cells(t);
            out.push_str(&format!("| {} | {a} | {b} | {c} | {d} | {e} |\n", t.rank));
        }
        for (title, rows) in [("brick", &self.bricks), ("phase", &self.phases)] {
            out.push_str(&format!(
                "\n| {title} | mean/step | max/step | max/mean | slowest rank |\n|---|---:|---:|---:|---:|\n"
            ));
            for b in rows.iter().take(SHOWN) {
                out.push_str(&format!(
                    "| {} | {} | {} | {} | {} |\n",
                    markdown(&b.name),
                    duration(b.mean_ns),
                    duration(b.max_ns),
                    fixed(b.imbalance, 2),
                    b.slowest_rank
                ));
            }
        }
        out
    }

    /// The report as pretty JSON (every rank, brick and phase; no heat map).
    #[must_use]
    pub fn to_json(&self) -> String {
        pretty_json(self)
    }
}

/// How a problem is introduced: whether it left its rank out.
fn label(p: &RankProblem) -> &'static str {
    if p.leaves_out() {
        "left out"
    } else {
        "warning"
    }
}

fn imbalance_rows(f: &mut fmt::Formatter<'_>, title: &str, rows: &[Imbalance]) -> fmt::Result {
    writeln!(
        f,
        "\n{title:<28} {:>10} {:>10} {:>8} {:>7}",
        "mean/step", "max/step", "max/mean", "slowest"
    )?;
    for b in rows.iter().take(SHOWN) {
        writeln!(
            f,
            "{:<28} {:>10} {:>10} {:>8} {:>7}",
            crate::base::textfmt::fit(&b.name, 28),
            duration(b.mean_ns),
            duration(b.max_ns),
            fixed(b.imbalance, 2),
            b.slowest_rank
        )?;
    }
    Ok(())
}

impl fmt::Display for FleetReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Fleet: run {}, {} of {} ranks analysed",
            visible(&self.run_id),
            self.ranks_analysed,
            self.world_size
        )?;
        writeln!(f, "{}", self.verdict())?;
        if !self.absent.is_empty() {
            writeln!(f, "absent ranks: {}", RankRange::list(&self.absent))?;
        }
        for p in &self.problems {
            writeln!(f, "  {}: {}", label(p), visible(&p.to_string()))?;
        }
        for s in &self.stragglers {
            writeln!(
                f,
                "  rank {} stands out in {}: {} > threshold {} ({} over median)",
                s.rank,
                what(s),
                duration(s.value_ns),
                duration(s.threshold.threshold_ns),
                pct(s.excess * 100.0)
            )?;
        }
        writeln!(
            f,
            "\n{:>6} {:<16} {:>6} {:>10} {:>10} {:>10} {:>10}",
            "rank", "host", "steps", "p10", "median", "p90", "max"
        )?;
        for r in self.shown_ranks() {
            writeln!(
                f,
                "{:>6} {:<16} {:>6} {:>10} {:>10} {:>10} {:>10}",
                r.rank,
                crate::base::textfmt::fit(&r.host, 16),
                r.steps,
                duration(r.p10_ns),
                duration(r.median_ns),
                duration(r.p90_ns),
                duration(r.max_ns)
            )?;
        }
        writeln!(f, "\n{}", self.time.summary())?;
        writeln!(
            f,
            "{:>6} {:>10} {:>13} {:>10} {:>10} {:>10}",
            "rank", "compute", "communication", "transfer", "waiting", "outside"
        )?;
        for t in self.shown_times() {
            let [a, b, c, d, e] = time_cells(t);
            writeln!(f, "{:>6} {a:>10} {b:>13} {c:>10} {d:>10} {e:>10}", t.rank)?;
        }
        imbalance_rows(f, "brick", &self.bricks)?;
        imbalance_rows(f, "phase", &self.phases)
    }
}
