//! Finding a value in a kernel's metrics: the first of several candidate
//! names (raw names, details-page labels) with a usable value and unit,
//! scaled to base units, as a [`Sourced`] number naming where it came from.

use super::number::{Quantity, not_available};
use crate::model::nsight::{NcuKernel, NcuMetric, Sourced};

/// One way to find a value: a metric name, its quantity, and a factor
/// applied after unit scaling (with what the factor means).
pub(crate) struct Candidate {
    pub(crate) name: &'static str,
    pub(crate) quantity: Quantity,
    pub(crate) factor: f64,
    pub(crate) derivation: Option<&'static str>,
}

pub(crate) const fn plain(name: &'static str, quantity: Quantity) -> Candidate {
    Candidate {
        name,
        quantity,
        factor: 1.0,
        derivation: None,
    }
}

pub(crate) const THREADS_PER_WARP: Candidate = Candidate {
    name: "smsp__thread_inst_executed_per_inst_executed.ratio",
    quantity: Quantity::Count,
    factor: 100.0 / 32.0,
    derivation: Some("threads per instruction / 32 threads per warp"),
};

pub(crate) const ACTIVE_THREADS_PER_WARP: Candidate = Candidate {
    name: "Avg. Active Threads Per Warp",
    quantity: Quantity::Count,
    factor: 100.0 / 32.0,
    derivation: Some("active threads per warp / 32"),
};

/// How a metric is named in a source: a raw name as is, a label with its
/// section.
fn describe(m: &NcuMetric) -> String {
    match &m.section {
        Some(section) if !m.name.contains("__") => format!("{} ({section})", m.name),
        _ => m.name.clone(),
    }
}

/// The first candidate present with a usable value.
pub(crate) fn find(
    kernel: &NcuKernel,
    candidates: &[Candidate],
    notes: &mut Vec<String>,
) -> Option<Sourced> {
    for c in candidates {
        for m in kernel.metrics.iter().filter(|m| m.name == c.name) {
            let Some(scale) = c.quantity.scale(&m.unit) else {
                // Labels repeat across sections with other units ("Memory
                // Throughput" is a % and a GB/s); only raw names are checked.
                if c.name.contains("__") {
                    notes.push(format!(
                        "`{}` (line {}) has unit `{}`, which is not {}: ignored",
                        m.name,
                        m.line,
                        m.unit,
                        c.quantity.name()
                    ));
                }
                continue;
            };
            let Some(v) = m.value else {
                if !not_available(&m.text) {
                    notes.push(format!(
                        "`{}` (line {}) value `{}` is not a number: ignored",
                        m.name, m.line, m.text
                    ));
                }
                continue;
            };
            // Times, sizes, shares and counts are never negative.
            if v < 0.0 {
                notes.push(format!(
                    "`{}` (line {}) value `{}` is negative: ignored",
                    m.name, m.line, m.text
                ));
                continue;
            }
            let mut source = describe(m);
            if let Some(how) = c.derivation {
                source = format!("{source}: {how}");
            }
            if m.unit.trim().is_empty()
                && c.quantity != Quantity::Count
                && c.quantity != Quantity::Percent
            {
                source.push_str(" (no unit given: read in base units)");
            }
            return Sourced::new(v * scale * c.factor, source);
        }
    }
    None
}
