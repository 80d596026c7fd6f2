//! The critical-path summary of an execution graph: length (and whether it
//! is only a lower bound), its ends, the heaviest nodes on it, the slowest
//! kernel and what the graph dropped; built once, rendered as terminal
//! text, Markdown or an HTML fragment.

use std::fmt::Write as _;

use profiler_core::kernel::{ExecutionGraph, GraphCounters, NodeId};
use serde::{Deserialize, Serialize};

use super::table::{Align, DASH, Table, duration, int, pct};
use crate::base::escape;

/// Heaviest path nodes listed by default.
pub const DEFAULT_CRITICAL_PATH_ROWS: usize = 20;

/// A node on the critical path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathEntry {
    /// 1-based position on the path.
    pub step: usize,
    /// The node.
    pub id: NodeId,
    /// Its name.
    pub name: String,
    /// Its kind (`kernel`, `transfer`, ...).
    pub kind: String,
    /// Its time, ns (`None`: a kernel or transfer not timed, or a structural node).
    pub time_ns: Option<u64>,
}

/// Everything the critical-path section shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CriticalPathSummary {
    /// Nodes in the graph.
    pub nodes: usize,
    /// Edges in the graph.
    pub edges: usize,
    /// Drop and scope counters of the graph.
    pub counters: GraphCounters,
    /// Why there is no path (precedence edges form a cycle).
    pub error: Option<String>,
    /// Path length, ns: node times plus edge weights.
    pub length_ns: f64,
    /// Node time on the path, ns.
    pub node_ns: u64,
    /// Edge weight on the path, ns.
    pub edge_weight_ns: f64,
    /// Nodes on the path.
    pub path_nodes: usize,
    /// Kernels and transfers on the path with no time (length is then a lower bound).
    pub missing_timing: usize,
    /// First and last node of the path.
    pub ends: Option<(PathEntry, PathEntry)>,
    /// The heaviest timed nodes on the path, by time descending.
    pub heaviest: Vec<PathEntry>,
    /// The slowest timed kernel in the whole graph.
    pub slowest_kernel: Option<PathEntry>,
}

fn entry(graph: &ExecutionGraph, step: usize, id: NodeId) -> Option<PathEntry> {
    let node = graph.node(id)?;
    Some(PathEntry {
        step,
        id,
        name: node.kind.name(),
        kind: node.kind.kind_name().to_owned(),
        time_ns: node.kind.timing_ns(),
    })
}

/// Summarises `graph`'s critical path, listing at most `rows` heaviest nodes.
#[must_use]
pub fn critical_path_summary(graph: &ExecutionGraph, rows: usize) -> CriticalPathSummary {
    let mut summary = CriticalPathSummary {
        nodes: graph.len(),
        edges: graph.edges().len(),
        counters: graph.counters(),
        error: None,
        length_ns: 0.0,
        node_ns: 0,
        edge_weight_ns: 0.0,
        path_nodes: 0,
        missing_timing: 0,
        ends: None,
        heaviest: Vec::new(),
        slowest_kernel: graph.slowest_kernel().and_then(|id| entry(graph, 0, id)),
    };
    let path = match graph.critical_path() {
        Ok(path) => path,
        Err(e) => {
            summary.error = Some(e.to_string());
            return summary;
        }
    };
    summary.length_ns = path.length_ns;
    summary.node_ns = path.node_ns;
    summary.edge_weight_ns = path.edge_weight;
    summary.path_nodes = path.nodes.len();
    summary.missing_timing = path.missing_timing;
    let on_path: Vec<PathEntry> = path
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, &id)| entry(graph, i + 1, id))
        .collect();
    summary.ends = on_path.first().cloned().zip(on_path.last().cloned());
    let mut timed: Vec<PathEntry> = on_path
        .into_iter()
        .filter(|e| e.time_ns.is_some())
        .collect();
    timed.sort_by(|a, b| b.time_ns.cmp(&a.time_ns).then(a.step.cmp(&b.step)));
    timed.truncate(rows);
    summary.heaviest = timed;
    summary
}

fn label(e: &PathEntry) -> String {
    match e.time_ns {
        Some(ns) => format!("{} ({}, {})", e.name, e.kind, duration(ns as f64)),
        None => format!("{} ({})", e.name, e.kind),
    }
}

/// Plain lines: length, ends, slowest kernel, graph counts and warnings.
fn lines(s: &CriticalPathSummary) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(e) = &s.error {
        out.push(format!("critical path unavailable: {e}"));
    } else if s.path_nodes == 0 {
        out.push("critical path: (empty graph)".to_owned());
    } else {
        let mut length = format!(
            "length: {} over {} nodes (node time {} + edge latency {})",
            duration(s.length_ns),
            int(s.path_nodes as u64),
            duration(s.node_ns as f64),
            duration(s.edge_weight_ns)
        );
        if s.missing_timing > 0 {
            let _ = write!(
                length,
                "; a lower bound: {} untimed kernels or transfers on it count as 0",
                s.missing_timing
            );
        }
        out.push(length);
    }
    if let Some((first, last)) = &s.ends {
        out.push(format!("from {} to {}", label(first), label(last)));
    }
    out.push(match &s.slowest_kernel {
        Some(k) => format!("slowest kernel: {}", label(k)),
        None => format!("slowest kernel: {DASH} (no timed kernel)"),
    });
    let c = &s.counters;
    out.push(format!(
        "graph: {} nodes, {} edges; dropped {} nodes, {} edges",
        int(s.nodes as u64),
        int(s.edges as u64),
        int(c.dropped_nodes),
        int(c.dropped_edges)
    ));
    if c.any_dropped() {
        out.push("warning: nodes or edges were dropped over the graph budget; the path covers the kept graph only".to_owned());
    }
    if c.open_scopes > 0 || c.scope_errors > 0 {
        out.push(format!(
            "warning: {} scopes left open, {} unbalanced scope pops",
            c.open_scopes, c.scope_errors
        ));
    }
    out
}

fn heaviest_table(s: &CriticalPathSummary) -> Option<Table> {
    if s.heaviest.is_empty() {
        return None;
    }
    let mut t = Table::new(&[
        ("Position", Align::Right),
        ("Node", Align::Left),
        ("Kind", Align::Left),
        ("Time", Align::Right),
        ("Share of path", Align::Right),
    ]);
    for e in &s.heaviest {
        let ns = e.time_ns.map(|t| t as f64);
        t.push(vec![
            e.step.to_string(),
            e.name.clone(),
            e.kind.clone(),
            ns.map_or_else(|| DASH.to_owned(), duration),
            ns.map_or_else(|| DASH.to_owned(), |t| pct(t, s.length_ns)),
        ]);
    }
    Some(t)
}

/// The summary as terminal text.
#[must_use]
pub fn format_critical_path_text(summary: &CriticalPathSummary) -> String {
    let mut s = "Critical path\n".to_owned();
    for line in lines(summary) {
        let _ = writeln!(s, "{}", escape::visible(&line));
    }
    if let Some(t) = heaviest_table(summary) {
        let _ = write!(s, "\nHeaviest nodes on the path\n{}", t.text());
    }
    s
}

/// The summary as Markdown (a `### Critical path` section).
#[must_use]
pub fn format_critical_path_markdown(summary: &CriticalPathSummary) -> String {
    let mut s = "### Critical path\n\n".to_owned();
    for line in lines(summary) {
        let _ = writeln!(s, "- {}", escape::markdown(&line));
    }
    if let Some(t) = heaviest_table(summary) {
        let _ = write!(s, "\n#### Heaviest nodes on the path\n\n{}", t.markdown());
    }
    s
}

/// The summary as an HTML `<section class="kernel-critical-path">`.
#[must_use]
pub fn format_critical_path_html(summary: &CriticalPathSummary) -> String {
    format!(
        "<section class=\"kernel-critical-path\">\n<h2>Critical path</h2>\n{}</section>\n",
        critical_path_body(summary)
    )
}

/// The summary as HTML, without a heading (the report's section gives it
/// one).
pub(crate) fn critical_path_body(summary: &CriticalPathSummary) -> String {
    let mut s = "<ul>\n".to_owned();
    for line in lines(summary) {
        let _ = writeln!(s, "<li>{}</li>", escape::html(&line));
    }
    s.push_str("</ul>\n");
    if let Some(t) = heaviest_table(summary) {
        let _ = write!(
            s,
            "<h3>Heaviest nodes on the path</h3>\n{}",
            t.html("critical-path")
        );
    }
    s
}
