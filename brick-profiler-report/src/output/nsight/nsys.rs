//! Renderers of an [`NsysReport`]: the terminal table, Markdown and JSON,
//! one row per kernel with its launches, total and per-launch statistics.

use std::fmt::Write as _;

use crate::base::escape;
use crate::base::textfmt::{DASH, duration, pct, pretty_json};
use crate::input::nsight::NsysReport;

impl NsysReport {
    fn share(&self, total_ns: f64) -> String {
        let all: f64 = self.kernels.iter().map(|k| k.total_ns).sum();
        if all > 0.0 {
            pct(total_ns / all * 100.0)
        } else {
            DASH.to_owned()
        }
    }

    /// The terminal table.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "Nsight Systems kernel summary: {}, {} kernel(s)\n",
            escape::visible(&self.origin),
            self.kernels.len()
        );
        let _ = writeln!(
            s,
            "  {:>6}  {:>9}  {:>11}  {:>11}  {:>11}  {:>11}  {:>11}  {:>11}  kernel",
            "share", "launches", "total", "avg", "med", "min", "max", "stddev"
        );
        for k in &self.kernels {
            let opt = |v: Option<f64>| v.map_or_else(|| DASH.to_owned(), duration);
            let _ = writeln!(
                s,
                "  {:>6}  {:>9}  {:>11}  {:>11}  {:>11}  {:>11}  {:>11}  {:>11}  {}",
                self.share(k.total_ns),
                k.instances,
                duration(k.total_ns),
                duration(k.avg_ns),
                opt(k.med_ns),
                duration(k.min_ns),
                duration(k.max_ns),
                opt(k.stddev_ns),
                escape::visible(&k.name)
            );
        }
        for note in &self.notes {
            let _ = writeln!(s, "  note: {}", escape::visible(note));
        }
        s
    }

    /// Markdown: a heading and one table row per kernel.
    #[must_use]
    pub fn to_markdown(&self) -> String {
        let mut s = format!(
            "## Nsight Systems kernel summary\n\nSource: {}, {} kernel(s).\n\n",
            escape::markdown(&self.origin),
            self.kernels.len()
        );
        s.push_str("| Kernel | Share | Launches | Total | Avg | Med | Min | Max | StdDev |\n");
        s.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for k in &self.kernels {
            let opt = |v: Option<f64>| v.map_or_else(|| DASH.to_owned(), duration);
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                escape::markdown(&k.name),
                self.share(k.total_ns),
                k.instances,
                duration(k.total_ns),
                duration(k.avg_ns),
                opt(k.med_ns),
                duration(k.min_ns),
                duration(k.max_ns),
                opt(k.stddev_ns)
            );
        }
        for note in &self.notes {
            let _ = writeln!(s, "\nNote: {}", escape::markdown(note));
        }
        s
    }

    /// Pretty JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        pretty_json(self)
    }
}
