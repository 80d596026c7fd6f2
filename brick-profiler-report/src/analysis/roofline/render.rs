//! Text renderers of rooflines: Markdown, JSON and the terminal (`Display`)
//! for the analytical [`RooflineResult`] and the per-brick [`BrickRoofline`].
//! Unbounded ceilings read "unbounded"; estimates say so next to the number.

use std::fmt::{self, Write as _};

use super::analytical::RooflineResult;
use super::bricks::{BrickPoint, BrickRoofline};
use super::kernel::{compute, memory, origin};
use super::levels::LevelChoice;
use crate::base::escape::{markdown, visible};
use crate::base::textfmt::{fit, num, pct, si};
use profiler_core::hardware::Hardware;

/// Tokens/s, or "unbounded" for an infinite ceiling.
fn tok_s(v: f64) -> String {
    if v.is_infinite() && v > 0.0 {
        "unbounded".to_owned()
    } else {
        format!("{} tok/s", num(v))
    }
}

/// Where the ceilings of `hw` come from, in words.
fn source(hw: &Hardware) -> &'static str {
    origin(
        hw,
        [
            "published figures",
            "measured on this machine",
            "configured",
        ],
    )
}

fn est(estimate: bool) -> &'static str {
    if estimate { " (estimate)" } else { "" }
}

impl RooflineResult {
    /// Markdown: a heading and a Metric | Value table.
    #[must_use]
    pub fn to_markdown(&self) -> String {
        let mut s = format!("## Roofline: {}\n\n", markdown(&self.hardware));
        s.push_str("| Metric | Value |\n|---|---|\n");
        let _ = writeln!(s, "| Parameters | {} |", self.total_params);
        let _ = writeln!(s, "| Bits per weight | {} |", num(self.bits_per_weight));
        let _ = writeln!(s, "| Model size | {} GB |", num(self.model_bytes / 1e9));
        let e = est(self.estimate);
        let _ = writeln!(s, "| Bandwidth ceiling | {}{e} |", tok_s(self.bw_ceiling));
        let _ = writeln!(
            s,
            "| Compute ceiling | {}{e} |",
            tok_s(self.compute_ceiling)
        );
        let _ = writeln!(
            s,
            "| Throughput ceiling | **{}**{e} |",
            tok_s(self.throughput_ceiling)
        );
        let _ = writeln!(s, "| Bottleneck | {} |", self.bottleneck);
        let _ = writeln!(s, "\nContract: `{}`", self.contract_id);
        s
    }

    /// Pretty JSON (unbounded ceilings are `null`).
    #[must_use]
    pub fn to_json(&self) -> String {
        crate::base::textfmt::pretty_json(self)
    }
}

impl fmt::Display for RooflineResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = est(self.estimate);
        writeln!(
            f,
            "Roofline ({}) on {}",
            self.contract_id,
            visible(&self.hardware)
        )?;
        writeln!(
            f,
            "  model       {} params x {} bits = {} GB",
            self.total_params,
            num(self.bits_per_weight),
            num(self.model_bytes / 1e9)
        )?;
        writeln!(f, "  bandwidth   {}{e}", tok_s(self.bw_ceiling))?;
        writeln!(f, "  compute     {}{e}", tok_s(self.compute_ceiling))?;
        writeln!(
            f,
            "  ceiling     {}{e} ({}-bound)",
            tok_s(self.throughput_ceiling),
            self.bottleneck
        )
    }
}

/// One line per ceiling: `FP32 82.6 TFLOP/s`, `DRAM 1008 GB/s (estimate)`.
pub(crate) fn ceiling_lines(r: &Hardware) -> Vec<String> {
    let mut lines: Vec<String> = r
        .compute_ceilings()
        .map(|(p, f)| {
            format!(
                "{p} {}{}/s{}",
                si(f.value * 1e12),
                p.operation(),
                est(f.is_estimate())
            )
        })
        .collect();
    lines.extend(
        r.memory_ceilings()
            .map(|(l, f)| format!("{l} {}B/s{}", si(f.value * 1e9), est(f.is_estimate()))),
    );
    lines
}

impl BrickRoofline {
    /// One sentence naming the roof the points are judged against (the
    /// level of each brick's when they have their own), and whether the
    /// ceilings were measured on a busy machine.
    #[must_use]
    pub fn summary(&self) -> String {
        let peak = compute(&self.hardware, self.precision).map_or(0.0, |c| c.value);
        let bw = memory(&self.hardware, self.level).map_or(0.0, |m| m.value);
        let busy = if self.hardware.busy.is_some() {
            " Measured on a busy machine: every roof is too low."
        } else {
            ""
        };
        if self.by_working_set {
            let sizes: Vec<String> = self
                .hardware
                .cache_sizes()
                .map(|(l, f)| format!("{l} {}B", si(f.value)))
                .collect();
            let from = self
                .hardware
                .cache_sizes()
                .next()
                .map_or(String::new(), |(_, f)| format!(" from {}", f.source));
            return format!(
                "Each brick judged against the {} roof of {} ({}) at the memory level its bytes per \
                 call fit in (caches {}{from}; DRAM past them): {}FLOP/s peak{}.{busy}",
                self.precision,
                self.hardware.name,
                source(&self.hardware),
                sizes.join(", "),
                si(peak * 1e12),
                est(self.estimate)
            );
        }
        format!(
            "Bricks judged against the {} roof of {} ({}): {}FLOP/s peak, {}B/s, ridge at {} FLOP/byte{}.{busy}",
            self.precision,
            self.hardware.name,
            source(&self.hardware),
            si(peak * 1e12),
            si(bw * 1e9),
            num(self.ridge_point),
            est(self.estimate)
        )
    }

    /// The bound column: the side of the ridge, with the level and where
    /// it came from when bricks have their own (`memory-bound, fits in L1
    /// (sysfs)`, `memory-bound, L2: pinned by annotation`).
    pub(crate) fn bound_text(&self, p: &BrickPoint) -> String {
        if !(self.by_working_set || p.level_choice.is_pinned()) {
            return p.bound.to_string();
        }
        let origin = self.level_origin(p);
        if origin.starts_with(&format!("fits in {} ", p.level)) {
            format!("{}, {origin}", p.bound)
        } else {
            format!("{}, {}: {origin}", p.bound, p.level)
        }
    }

    /// Where a point's level came from: `pinned by --pin`, `pinned by
    /// annotation`, `fits in L2 (sysfs)`, `past every cache (sysfs)`, ...
    #[must_use]
    pub fn level_origin(&self, p: &BrickPoint) -> String {
        if p.level_choice != LevelChoice::WorkingSet {
            return p.level_choice.to_string();
        }
        let sizes: Vec<_> = self.hardware.cache_sizes().collect();
        let from = |source: &profiler_core::hardware::Source| {
            // `sysfs /sys/devices/...`: the kind of source, not the path.
            let source = source.to_string();
            source.split_whitespace().next().unwrap_or("").to_owned()
        };
        if let Some((_, f)) = sizes.iter().find(|(l, _)| *l == p.level) {
            return format!("fits in {} ({})", p.level, from(&f.source));
        }
        // DRAM: past every cache, or in one without a bandwidth roof.
        match sizes
            .iter()
            .find(|(_, f)| p.bytes_per_call <= f.value as u64)
        {
            Some((l, f)) => format!("fits in {l} ({}), which has no roof", from(&f.source)),
            None => format!(
                "past every cache ({})",
                sizes
                    .first()
                    .map_or(String::new(), |(_, f)| from(&f.source))
            ),
        }
    }

    /// Markdown: the roof, a table of annotated bricks, the bricks left out,
    /// and the notes.
    #[must_use]
    pub fn to_markdown(&self) -> String {
        let mut s = format!("## Roofline: {}\n\n", markdown(&self.hardware.name));
        let _ = writeln!(s, "{}\n", markdown(&self.summary()));
        let _ = writeln!(
            s,
            "Ceilings: {}.\n",
            ceiling_lines(&self.hardware).join(", ")
        );
        if self.points.is_empty() {
            s.push_str(
                "No brick carries FLOPs, bytes and time: nothing to place on the roofline.\n",
            );
        } else {
            let op = self.precision.operation();
            let _ = writeln!(
                s,
                "| Brick | Calls | Time (ms) | {op}/byte | G{op}/s | Roof (G{op}/s) | % of roof | Bound |\n\
                 |---|---:|---:|---:|---:|---:|---:|---|",
            );
            for p in &self.points {
                let above = if p.above_roof { " (above roof)" } else { "" };
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} | {} | {}{above} | {} |",
                    markdown(&p.name),
                    p.calls,
                    num(p.total_ns as f64 / 1e6),
                    num(p.arithmetic_intensity),
                    num(p.achieved_gflops),
                    num(p.attainable_gflops),
                    pct(p.roof_pct),
                    self.bound_text(p)
                );
            }
        }
        if !self.device.is_empty() {
            let op = self.precision.operation();
            let _ = writeln!(
                s,
                "\n### On device time\n\n\
                 | Brick | Placed | Calls | Device ms | {op}/byte | G{op}/s | Roof (G{op}/s) | % of roof | Bound |\n\
                 |---|---|---:|---:|---:|---:|---:|---:|---|",
            );
            for d in &self.device {
                let above = if d.above_roof { " (above roof)" } else { "" };
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} | {} | {} | {}{above} | {}, {} |",
                    markdown(&d.brick),
                    markdown(&d.placed()),
                    d.calls,
                    num(d.device_ns as f64 / 1e6),
                    num(d.arithmetic_intensity),
                    num(d.achieved_gflops),
                    num(d.attainable_gflops),
                    pct(d.roof_pct),
                    d.bound,
                    d.level
                );
            }
        }
        if !self.not_annotated.is_empty() {
            s.push_str("\n### Not annotated\n\n");
            for n in &self.not_annotated {
                let _ = writeln!(s, "- {}: no {}", markdown(&n.name), n.missing);
            }
        }
        if !self.notes.is_empty() {
            s.push_str("\n### Notes\n\n");
            for n in &self.notes {
                let _ = writeln!(s, "- {}", markdown(n));
            }
        }
        s
    }

    /// Pretty JSON of everything (ceilings, points, bricks left out, notes).
    #[must_use]
    pub fn to_json(&self) -> String {
        crate::base::textfmt::pretty_json(self)
    }
}

impl fmt::Display for BrickRoofline {
    /// A terminal table.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", visible(&self.summary()))?;
        writeln!(f, "Ceilings: {}", ceiling_lines(&self.hardware).join(", "))?;
        if !self.points.is_empty() {
            writeln!(
                f,
                "{:<28} {:>7} {:>10} {:>9} {:>9} {:>9} {:>8}  bound",
                "brick",
                "calls",
                "time ms",
                format!("{}/B", self.precision.operation()),
                format!("G{}/s", self.precision.operation()),
                "roof",
                "% roof"
            )?;
        }
        for p in &self.points {
            writeln!(
                f,
                "{} {:>7} {:>10} {:>9} {:>9} {:>9} {:>8}{} {}",
                fit(&p.name, 28),
                p.calls,
                num(p.total_ns as f64 / 1e6),
                num(p.arithmetic_intensity),
                num(p.achieved_gflops),
                num(p.attainable_gflops),
                pct(p.roof_pct),
                if p.above_roof { "!" } else { " " },
                self.bound_text(p)
            )?;
        }
        for d in &self.device {
            writeln!(
                f,
                "device: {} {:>7} {:>10} {:>9} {:>9} {:>9} {:>8}{} {}, {}  {}",
                fit(&d.brick, 20),
                d.calls,
                num(d.device_ns as f64 / 1e6),
                num(d.arithmetic_intensity),
                num(d.achieved_gflops),
                num(d.attainable_gflops),
                pct(d.roof_pct),
                if d.above_roof { "!" } else { " " },
                d.bound,
                d.level,
                visible(&d.placed())
            )?;
        }
        if !self.not_annotated.is_empty() {
            let names: Vec<String> = self
                .not_annotated
                .iter()
                .map(|n| format!("{} (no {})", fit(&n.name, 40).trim_end(), n.missing))
                .collect();
            writeln!(f, "Not annotated: {}", names.join(", "))?;
        }
        for n in &self.notes {
            writeln!(f, "note: {}", visible(n))?;
        }
        Ok(())
    }
}
