//! ASCII tree of an execution graph's hierarchy (calls, contains, launches
//! edges): roots are nodes without a parent, children follow in recording
//! order. A node with several parents is drawn once and referenced after
//! that. Names and details pass through the terminal escaper, so each node
//! stays on its line.

use std::fmt::Write as _;

use profiler_core::kernel::{ExecutionGraph, GraphNode};

use super::text::{counts_line, name_of, write_details};
use crate::base::escape;

/// Deepest level drawn; deeper nodes are counted, not drawn, so a long
/// chain cannot produce quadratic output.
pub const MAX_TREE_DEPTH: usize = 64;

/// Appends `name (kind, details...)`.
fn write_node_line(s: &mut String, node: &GraphNode) {
    s.push_str(&escape::visible(&name_of(&node.kind)));
    s.push_str(" (");
    s.push_str(node.kind.kind_name());
    let mut details = String::new();
    write_details(&mut details, &node.kind, ", ");
    if !details.is_empty() {
        // Details hold user text too (file names): keep them on one line.
        s.push_str(&escape::visible(&details));
    }
    s.push(')');
}

/// A node waiting to be drawn: its index, depth, and whether it is the
/// last child of its parent.
struct Pending {
    node: usize,
    depth: usize,
    last: bool,
}

/// The hierarchy of `graph` as an indented tree, then a line with the
/// node, edge, drop and scope counts. `"(empty graph)"` for a graph with
/// no node (the counts line follows only if something was dropped).
///
/// ```
/// use profiler::kernel::{ExecutionGraph, KernelNode, NodeKind};
///
/// let mut graph = ExecutionGraph::new();
/// let layer = graph.push_scope(NodeKind::Layer { index: 0 });
/// graph.record_kernel_launch(KernelNode::new("gemm"));
/// graph.pop_scope(layer).unwrap();
/// let tree = profiler_report::graph::ascii_tree(&graph);
/// assert!(tree.starts_with("layer 0 (layer)\n└── gemm (kernel"));
/// ```
#[must_use]
pub fn ascii_tree(graph: &ExecutionGraph) -> String {
    let n = graph.len();
    if n == 0 {
        let mut s = "(empty graph)\n".to_owned();
        if graph.counters().any_dropped() {
            let _ = writeln!(s, "{}", counts_line(graph));
        }
        return s;
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut has_parent = vec![false; n];
    for e in graph.edges().iter().filter(|e| e.kind.is_hierarchy()) {
        children[e.from.index()].push(e.to.index());
        has_parent[e.to.index()] = true;
    }
    let mut drawn = vec![false; n];
    let mut s = String::with_capacity(64 * n);
    // Roots first; then whatever only a hierarchy cycle reaches.
    let roots = (0..n).filter(|&v| !has_parent[v]).chain(0..n);
    for root in roots {
        if drawn[root] {
            continue;
        }
        draw(graph, root, &children, &mut drawn, &mut s);
    }
    let _ = writeln!(s, "{}", counts_line(graph));
    s
}

/// Draws the subtree under `root` depth-first without recursion.
fn draw(
    graph: &ExecutionGraph,
    root: usize,
    children: &[Vec<usize>],
    drawn: &mut [bool],
    s: &mut String,
) {
    let mut stack = vec![Pending {
        node: root,
        depth: 0,
        last: true,
    }];
    // `lasts[k]`: whether the ancestor at depth k + 1 on the current
    // path is a last child (its column then continues blank, not `│`).
    let mut lasts: Vec<bool> = Vec::new();
    while let Some(p) = stack.pop() {
        let node = &graph.nodes()[p.node];
        lasts.truncate(p.depth.saturating_sub(1));
        for &last in &lasts {
            s.push_str(if last { "    " } else { "│   " });
        }
        if p.depth > 0 {
            s.push_str(if p.last { "└── " } else { "├── " });
            lasts.push(p.last);
        }
        if drawn[p.node] {
            s.push_str(&escape::visible(&name_of(&node.kind)));
            let _ = writeln!(s, " (drawn above as {})", node.id);
            continue;
        }
        drawn[p.node] = true;
        write_node_line(s, node);
        s.push('\n');
        let kids = &children[p.node];
        if kids.is_empty() {
            continue;
        }
        if p.depth + 1 > MAX_TREE_DEPTH {
            let hidden = hide(kids, children, drawn);
            for &last in &lasts {
                s.push_str(if last { "    " } else { "│   " });
            }
            let _ = writeln!(
                s,
                "└── ... {hidden} nodes below not drawn (depth limit {MAX_TREE_DEPTH})"
            );
            continue;
        }
        // Pushed in reverse so they pop in recording order.
        for (i, &child) in kids.iter().enumerate().rev() {
            stack.push(Pending {
                node: child,
                depth: p.depth + 1,
                last: i + 1 == kids.len(),
            });
        }
    }
}

/// Marks every not yet drawn node under `kids` as drawn; returns how many.
fn hide(kids: &[usize], children: &[Vec<usize>], drawn: &mut [bool]) -> usize {
    let mut stack = kids.to_vec();
    let mut hidden = 0;
    while let Some(v) = stack.pop() {
        if !drawn[v] {
            drawn[v] = true;
            hidden += 1;
            stack.extend_from_slice(&children[v]);
        }
    }
    hidden
}
