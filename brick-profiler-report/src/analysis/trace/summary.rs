//! [`TraceSummary`]: everything the trace analyses find in one execution
//! trace (ops by time, devices, load balance, communication, slowest
//! entries) as one report with terminal, Markdown and JSON renderers.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

use profiler_core::trace::RecordedExecutionTrace;
use serde::Serialize;

use super::analyzer;
use super::types::{CommunicationBottleneck, DeviceSummary, LoadBalanceMetrics};
use crate::base::escape;
use crate::base::textfmt::{DASH, bytes, duration, num, pct, pretty_json};

/// Slowest entries listed.
const SLOWEST: usize = 10;

/// Communication ops listed: any share of the trace.
const COMM_MIN_RATIO: f64 = 0.0;

/// One operation name's totals.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpRow {
    /// Operation name.
    pub operation: String,
    /// Entries.
    pub count: usize,
    /// Total duration, µs.
    pub total_duration_us: f64,
    /// Mean duration, µs.
    pub avg_duration_us: f64,
    /// Share of the trace's total duration, %.
    pub share_pct: f64,
    /// Output bytes.
    pub total_memory_bytes: usize,
}

/// One of the slowest entries.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SlowEntry {
    /// Step.
    pub step: usize,
    /// Operation name.
    pub operation: String,
    /// Device, when recorded.
    pub device: Option<String>,
    /// Duration, µs.
    pub duration_us: f64,
}

/// The analyses of one execution trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceSummary {
    /// Entries.
    pub entries: usize,
    /// Distinct step indices.
    pub steps: usize,
    /// Total duration, µs.
    pub total_duration_us: f64,
    /// Output bytes of all entries.
    pub total_memory_bytes: usize,
    /// Largest output of one entry, bytes.
    pub peak_memory_bytes: usize,
    /// Operations by total time, descending.
    pub operations: Vec<OpRow>,
    /// Per device (entries without one are not counted).
    pub devices: BTreeMap<String, DeviceSummary>,
    /// Load balance over two or more devices.
    pub load_balance: Option<LoadBalanceMetrics>,
    /// Communication ops by time.
    pub communication: Vec<CommunicationBottleneck>,
    /// The slowest entries.
    pub slowest: Vec<SlowEntry>,
}

/// A size in decimal units; a dash for 0 (sizes not recorded).
fn size(n: usize) -> String {
    if n == 0 {
        DASH.to_owned()
    } else {
        bytes(n as f64)
    }
}

impl TraceSummary {
    /// `16.4 KB output (16.4 KB at most in one entry)`, or that no entry
    /// recorded its output size.
    fn output_sizes(&self) -> String {
        if self.total_memory_bytes == 0 {
            "no output sizes recorded".to_owned()
        } else {
            format!(
                "{} output ({} at most in one entry)",
                size(self.total_memory_bytes),
                size(self.peak_memory_bytes)
            )
        }
    }

    /// Runs every trace analysis on `trace`.
    #[must_use]
    pub fn of(trace: &RecordedExecutionTrace) -> Self {
        let total = trace.total_duration_us;
        let mut operations: Vec<OpRow> = analyzer::operation_summary(trace)
            .into_iter()
            .map(|(operation, s)| OpRow {
                avg_duration_us: if s.count > 0 {
                    s.total_duration_us / s.count as f64
                } else {
                    0.0
                },
                share_pct: if total > 0.0 {
                    s.total_duration_us / total * 100.0
                } else {
                    0.0
                },
                operation,
                count: s.count,
                total_duration_us: s.total_duration_us,
                total_memory_bytes: s.total_memory_bytes,
            })
            .collect();
        operations.sort_by(|a, b| {
            b.total_duration_us
                .total_cmp(&a.total_duration_us)
                .then_with(|| a.operation.cmp(&b.operation))
        });
        Self {
            entries: trace.entries.len(),
            steps: trace
                .entries
                .iter()
                .map(|e| e.step)
                .collect::<std::collections::BTreeSet<_>>()
                .len(),
            total_duration_us: total,
            total_memory_bytes: trace.total_memory_bytes(),
            peak_memory_bytes: trace.peak_memory_bytes(),
            operations,
            devices: analyzer::per_device_summary(trace),
            load_balance: analyzer::load_balance_metrics(trace),
            communication: analyzer::communication_bottlenecks(trace, COMM_MIN_RATIO),
            slowest: trace
                .slowest_ops(SLOWEST)
                .into_iter()
                .map(|e| SlowEntry {
                    step: e.step,
                    operation: e.operation.clone(),
                    device: e.device_id.clone(),
                    duration_us: e.duration_us,
                })
                .collect(),
        }
    }

    /// Markdown: totals, then tables of ops, devices, communication and
    /// the slowest entries.
    #[must_use]
    pub fn to_markdown(&self) -> String {
        let mut s = String::from("## Trace summary\n\n");
        let _ = writeln!(
            s,
            "{} entries over {} steps, {} in total, {}.\n",
            self.entries,
            self.steps,
            duration(self.total_duration_us * 1e3),
            self.output_sizes()
        );
        s.push_str("### Operations\n\n| Operation | Count | Total (µs) | Mean (µs) | Share | Output |\n|---|---:|---:|---:|---:|---:|\n");
        for o in &self.operations {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} |",
                escape::markdown(&o.operation),
                o.count,
                num(o.total_duration_us),
                num(o.avg_duration_us),
                pct(o.share_pct),
                size(o.total_memory_bytes)
            );
        }
        if !self.devices.is_empty() {
            s.push_str("\n### Devices\n\n| Device | Ops | Total (µs) |\n|---|---:|---:|\n");
            for (d, v) in &self.devices {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} |",
                    escape::markdown(d),
                    v.op_count,
                    num(v.total_duration_us)
                );
            }
        }
        if let Some(lb) = &self.load_balance {
            let _ = writeln!(
                s,
                "\nLoad imbalance: {} (busiest device {} µs vs ideal {} µs).",
                pct(lb.imbalance_ratio * 100.0),
                num(lb.max_duration_us),
                num(lb.ideal_duration_us)
            );
        }
        if !self.communication.is_empty() {
            s.push_str("\n### Communication\n\n| Operation | Calls | Total (µs) | Share |\n|---|---:|---:|---:|\n");
            for c in &self.communication {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} |",
                    escape::markdown(&c.operation),
                    c.call_count,
                    num(c.total_duration_us),
                    pct(c.ratio_of_total * 100.0)
                );
            }
        }
        if !self.slowest.is_empty() {
            s.push_str("\n### Slowest entries\n\n| Step | Operation | Device | µs |\n|---:|---|---|---:|\n");
            for e in &self.slowest {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} |",
                    e.step,
                    escape::markdown(&e.operation),
                    e.device
                        .as_deref()
                        .map_or_else(|| DASH.to_owned(), escape::markdown),
                    num(e.duration_us)
                );
            }
        }
        s
    }

    /// Pretty JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        pretty_json(self)
    }
}

impl fmt::Display for TraceSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Trace: {} entries, {} steps, {}, {}",
            self.entries,
            self.steps,
            duration(self.total_duration_us * 1e3),
            self.output_sizes()
        )?;
        writeln!(
            f,
            "  {:<32} {:>7} {:>12} {:>10} {:>7}",
            "operation", "count", "total µs", "mean µs", "share"
        )?;
        for o in &self.operations {
            writeln!(
                f,
                "  {} {:>7} {:>12} {:>10} {:>7}",
                crate::base::textfmt::fit(&o.operation, 32),
                o.count,
                num(o.total_duration_us),
                num(o.avg_duration_us),
                pct(o.share_pct)
            )?;
        }
        for (d, v) in &self.devices {
            writeln!(
                f,
                "  device {}: {} ops, {} µs",
                escape::visible(d),
                v.op_count,
                num(v.total_duration_us)
            )?;
        }
        if let Some(lb) = &self.load_balance {
            writeln!(
                f,
                "  load imbalance {} (busiest {} µs vs ideal {} µs)",
                pct(lb.imbalance_ratio * 100.0),
                num(lb.max_duration_us),
                num(lb.ideal_duration_us)
            )?;
        }
        for c in &self.communication {
            writeln!(
                f,
                "  communication {}: {} calls, {} µs ({} of the trace)",
                escape::visible(&c.operation),
                c.call_count,
                num(c.total_duration_us),
                pct(c.ratio_of_total * 100.0)
            )?;
        }
        for e in &self.slowest {
            writeln!(
                f,
                "  slow: step {} {} on {}: {} µs",
                e.step,
                escape::visible(&e.operation),
                e.device
                    .as_deref()
                    .map_or_else(|| DASH.to_owned(), |d| escape::visible(d).into_owned()),
                num(e.duration_us)
            )?;
        }
        Ok(())
    }
}
