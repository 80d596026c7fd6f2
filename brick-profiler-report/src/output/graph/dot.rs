//! Graphviz DOT of an execution graph. Node ids are `n<index>`; names only
//! appear inside escaped labels, so any name gives a valid file. Counters
//! (dropped nodes and edges, scope problems) go into a comment and the
//! graph label.

use std::fmt::Write as _;

use profiler_core::kernel::{DEFAULT_EDGE_WEIGHT, EdgeKind, ExecutionGraph, NodeKind};

use super::text::{counts_line, format_bytes, format_ns, name_of, write_details};
use crate::base::escape;

/// Options of [`dot_with`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DotOptions {
    /// Graph title, shown above the counters in the graph label.
    pub title: String,
    /// Outline the critical path in red (skipped when there is a cycle).
    pub highlight_critical_path: bool,
    /// Lay out left to right instead of top to bottom.
    pub left_to_right: bool,
}

impl Default for DotOptions {
    fn default() -> Self {
        Self {
            title: "execution graph".to_owned(),
            highlight_critical_path: true,
            left_to_right: false,
        }
    }
}

/// Shape and fill colour of a node kind.
fn style(kind: &NodeKind) -> (&'static str, &'static str) {
    match kind {
        NodeKind::Brick { .. } => ("box", "#dbeafe"),
        NodeKind::CustomBrick { .. } => ("box", "#e0e7ff"),
        NodeKind::Kernel(_) => ("box3d", "#fde68a"),
        NodeKind::Transfer(_) => ("cds", "#fecaca"),
        NodeKind::Function { .. } => ("tab", "#e5e7eb"),
        NodeKind::Layer { .. } => ("folder", "#d1fae5"),
        NodeKind::Step { .. } => ("folder", "#f3e8ff"),
        NodeKind::AsyncTask { .. } => ("ellipse", "#fce7f3"),
    }
}

/// Line style, colour and label of an edge kind.
fn edge_style(kind: EdgeKind) -> (&'static str, &'static str, String) {
    match kind {
        EdgeKind::Calls => ("solid", "#4b5563", "calls".to_owned()),
        EdgeKind::Contains => ("dashed", "#9ca3af", String::new()),
        EdgeKind::Launches => ("bold", "#2563eb", "launch".to_owned()),
        EdgeKind::Sequence => ("solid", "#111827", String::new()),
        EdgeKind::DependsOn => ("dotted", "#111827", "depends".to_owned()),
        EdgeKind::Transfer { bytes, direction } => (
            "solid",
            "#7c3aed",
            format!("{direction} {}", format_bytes(bytes)),
        ),
    }
}

/// DOT text of `graph` with the default [`DotOptions`].
#[must_use]
pub fn dot(graph: &ExecutionGraph) -> String {
    dot_with(graph, &DotOptions::default())
}

/// DOT text of `graph`: one labelled node per graph node (kind, name,
/// details and time), every edge styled by kind, the counters in a
/// comment and in the graph label.
///
/// ```
/// use profiler::kernel::{ExecutionGraph, KernelNode};
///
/// let mut graph = ExecutionGraph::new();
/// graph.record_kernel_launch(KernelNode::new("gemm").timing_ns(10_000));
/// let dot = profiler_report::graph::dot(&graph);
/// assert!(dot.contains("digraph execution_graph") && dot.contains("gemm"));
/// ```
#[must_use]
pub fn dot_with(graph: &ExecutionGraph, options: &DotOptions) -> String {
    let path = PathMarks::of(graph);
    let counts = counts_line(graph);
    let mut s = String::with_capacity(256 + 160 * graph.len() + 64 * graph.edges().len());
    let _ = writeln!(s, "// {counts}");
    let _ = writeln!(s, "// {}", path.line);
    s.push_str("digraph execution_graph {\n");
    let _ = writeln!(
        s,
        "  graph [rankdir={}, fontname=\"Helvetica\", labelloc=t, label=\"{}\"];",
        if options.left_to_right { "LR" } else { "TB" },
        escape::dot(&format!("{}\n{counts}\n{}", options.title, path.line))
    );
    s.push_str("  node [fontname=\"Helvetica\", fontsize=10, style=filled];\n");
    s.push_str("  edge [fontname=\"Helvetica\", fontsize=9];\n");
    let highlight = options.highlight_critical_path.then_some(&path);
    write_nodes(&mut s, graph, highlight);
    write_edges(&mut s, graph, highlight);
    s.push_str("}\n");
    s
}

/// The critical path as the drawing marks it.
struct PathMarks {
    /// Whether each node is on the path.
    on_path: Vec<bool>,
    /// Each path node's successor on it (`usize::MAX` when none).
    next_on_path: Vec<usize>,
    /// Its length and node count, or why there is none (a cycle).
    line: String,
}

impl PathMarks {
    fn of(graph: &ExecutionGraph) -> Self {
        let n = graph.len();
        let mut on_path = vec![false; n];
        let mut next_on_path = vec![usize::MAX; n];
        let line = match graph.schedule() {
            Ok(schedule) => {
                let path = schedule.critical_path();
                for (i, id) in path.nodes.iter().enumerate() {
                    on_path[id.index()] = true;
                    if let Some(next) = path.nodes.get(i + 1) {
                        next_on_path[id.index()] = next.index();
                    }
                }
                let mut line = format!(
                    "critical path: {} over {} nodes",
                    format_ns(path.length_ns.round() as u64),
                    path.nodes.len()
                );
                if path.missing_timing > 0 {
                    let _ = write!(line, " (lower bound: {} untimed)", path.missing_timing);
                }
                line
            }
            Err(e) => format!("critical path unavailable: {e}"),
        };
        Self {
            on_path,
            next_on_path,
            line,
        }
    }
}

/// One labelled node per graph node: kind, name, details and time.
fn write_nodes(s: &mut String, graph: &ExecutionGraph, highlight: Option<&PathMarks>) {
    let mut label = String::new();
    for node in graph.nodes() {
        label.clear();
        label.push_str(node.kind.kind_name());
        label.push('\n');
        label.push_str(&name_of(&node.kind));
        write_details(&mut label, &node.kind, "\n");
        let (shape, fill) = style(&node.kind);
        let _ = write!(s, "  {} [label=\"", node.id);
        escape::dot_into(s, &label);
        let _ = write!(s, "\", shape={shape}, fillcolor=\"{fill}\"");
        if highlight.is_some_and(|p| p.on_path[node.id.index()]) {
            s.push_str(", color=\"#dc2626\", penwidth=2");
        }
        s.push_str("];\n");
    }
}

/// Every edge styled by kind, with its weight when not the default.
fn write_edges(s: &mut String, graph: &ExecutionGraph, highlight: Option<&PathMarks>) {
    for edge in graph.edges() {
        let (line, mut color, mut label) = edge_style(edge.kind);
        if edge.weight != DEFAULT_EDGE_WEIGHT {
            if !label.is_empty() {
                label.push(' ');
            }
            let _ = write!(label, "w={}", edge.weight);
        }
        let on_path = edge.kind.is_precedence()
            && highlight.is_some_and(|p| p.next_on_path[edge.from.index()] == edge.to.index());
        if on_path {
            color = "#dc2626";
        }
        let _ = write!(
            s,
            "  {} -> {} [style={line}, color=\"{color}\"",
            edge.from, edge.to
        );
        if on_path {
            s.push_str(", penwidth=2");
        }
        if !label.is_empty() {
            let _ = write!(s, ", label=\"{}\"", escape::dot(&label));
        }
        s.push_str("];\n");
    }
}
