//! Text shared by the DOT and ASCII drawings: node details (durations and
//! sizes as every report writes them), names and the counters line. Each
//! drawing escapes this text for its format.

use std::borrow::Cow;
use std::fmt::Write as _;

use profiler_core::kernel::{ExecutionGraph, NodeKind};

use crate::base::textfmt;

/// A duration in the unit that suits it: `512 ns`, `12.5 µs`, `3.2 ms`.
pub(super) fn format_ns(ns: u64) -> String {
    textfmt::duration(ns as f64)
}

/// A size in decimal units: `512 B`, `4.1 KB`, `1.05 MB`.
pub(super) fn format_bytes(bytes: u64) -> String {
    textfmt::bytes(bytes as f64)
}

/// Appends facts about a node beyond its name, each item preceded by `sep`.
// `write!` to a String cannot fail: its results are ignored throughout.
pub(super) fn write_details(out: &mut String, kind: &NodeKind, sep: &str) {
    let time = |out: &mut String, ns: Option<u64>| {
        out.push_str(sep);
        match ns {
            Some(ns) => out.push_str(&format_ns(ns)),
            None => out.push_str("time unknown"),
        }
    };
    match kind {
        NodeKind::Brick {
            timing_ns,
            elements,
            ..
        }
        | NodeKind::CustomBrick {
            timing_ns,
            elements,
            ..
        } => {
            time(out, Some(*timing_ns));
            let _ = write!(out, "{sep}{elements} elements");
        }
        NodeKind::Kernel(k) => {
            let [gx, gy, gz] = k.grid;
            let [bx, by, bz] = k.block;
            let _ = write!(out, "{sep}grid {gx}x{gy}x{gz}{sep}block {bx}x{by}x{bz}");
            if k.shared_mem > 0 {
                let _ = write!(out, "{sep}smem {}", format_bytes(u64::from(k.shared_mem)));
            }
            time(out, k.timing_ns);
            if let Some(ai) = k.arithmetic_intensity.filter(|v| v.is_finite()) {
                let _ = write!(out, "{sep}AI {ai:.2}");
            }
            if let Some(tf) = k.achieved_tflops.filter(|v| v.is_finite()) {
                let _ = write!(out, "{sep}{tf:.2} TFLOP/s");
            }
            if k.ptx_hash != 0 {
                let _ = write!(out, "{sep}ptx {:016x}", k.ptx_hash);
            }
        }
        NodeKind::Transfer(t) => {
            let _ = write!(out, "{sep}{} {}", t.direction, format_bytes(t.bytes));
            time(out, t.timing_ns);
        }
        NodeKind::Function { file, line, .. } => {
            if let Some(file) = file {
                let _ = write!(out, "{sep}{file}");
                if let Some(line) = line {
                    let _ = write!(out, ":{line}");
                }
            }
        }
        NodeKind::Layer { .. } | NodeKind::Step { .. } => {}
        NodeKind::AsyncTask {
            poll_count,
            yield_count,
            total_poll_ns,
            ..
        } => {
            let _ = write!(out, "{sep}{poll_count} polls{sep}{yield_count} yields");
            time(out, Some(*total_poll_ns));
        }
    }
}

/// The node's name, borrowed where the node stores it.
pub(super) fn name_of(kind: &NodeKind) -> Cow<'_, str> {
    match kind {
        NodeKind::Brick { id, .. } => Cow::Borrowed(id.name()),
        NodeKind::CustomBrick { name, .. }
        | NodeKind::Function { name, .. }
        | NodeKind::AsyncTask { name, .. } => Cow::Borrowed(name),
        NodeKind::Kernel(k) => Cow::Borrowed(&k.name),
        other => Cow::Owned(other.name()),
    }
}

/// `5 nodes, 6 edges; dropped 0 nodes, 0 edges` plus scope problems.
pub(super) fn counts_line(graph: &ExecutionGraph) -> String {
    let c = graph.counters();
    let mut s = format!(
        "{} nodes, {} edges; dropped {} nodes, {} edges",
        graph.len(),
        graph.edges().len(),
        c.dropped_nodes,
        c.dropped_edges
    );
    if c.dropped_nodes > 0 || c.dropped_edges > 0 {
        let l = graph.limits();
        let _ = write!(s, " (budget {} nodes, {} edges)", l.max_nodes, l.max_edges);
    }
    if c.open_scopes > 0 {
        let _ = write!(s, "; {} scopes open", c.open_scopes);
    }
    if c.scope_errors > 0 {
        let _ = write!(s, "; {} unbalanced scope pops", c.scope_errors);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_sizes_pick_a_readable_unit() {
        let times: Vec<_> = [0, 999, 1_000, 12_500, 3_200_000, 1_250_000_000]
            .into_iter()
            .map(format_ns)
            .collect();
        assert_eq!(
            times,
            ["0 ns", "999 ns", "1 µs", "12.5 µs", "3.2 ms", "1.25 s"]
        );
        let sizes: Vec<_> = [512, 4_096, 1_572_864, 2 << 30]
            .into_iter()
            .map(format_bytes)
            .collect();
        assert_eq!(sizes, ["512 B", "4.1 KB", "1.57 MB", "2.15 GB"]);
    }
}
