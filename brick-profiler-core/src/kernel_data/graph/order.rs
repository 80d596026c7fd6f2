//! Topological order of the precedence edges (Kahn's algorithm), and one
//! concrete cycle when there is none, so analyses report loops instead of
//! running forever.

use std::collections::VecDeque;

use super::edge::GraphEdge;
use super::error::GraphError;
use super::node::NodeId;
use super::store::ExecutionGraph;

/// Precedence edges in compressed rows: `targets[start[v]..start[v + 1]]`.
pub(super) struct Rows {
    start: Vec<usize>,
    targets: Vec<(usize, f64)>,
}

impl Rows {
    pub(super) fn of(&self, v: usize) -> &[(usize, f64)] {
        &self.targets[self.start[v]..self.start[v + 1]]
    }
}

impl ExecutionGraph {
    /// Precedence edges by source (`reverse`: by target), in insertion order.
    pub(super) fn precedence_rows(&self, reverse: bool) -> Rows {
        let ends = |e: &GraphEdge| {
            let (a, b) = (e.from.index(), e.to.index());
            if reverse { (b, a) } else { (a, b) }
        };
        let precedence = || self.edges.iter().filter(|e| e.kind.is_precedence());
        let mut start = vec![0usize; self.nodes.len() + 1];
        for e in precedence() {
            start[ends(e).0 + 1] += 1;
        }
        for v in 0..self.nodes.len() {
            start[v + 1] += start[v];
        }
        let mut cursor = start.clone();
        let mut targets = vec![(0, 0.0); start[self.nodes.len()]];
        for e in precedence() {
            let (a, b) = ends(e);
            targets[cursor[a]] = (b, e.weight);
            cursor[a] += 1;
        }
        Rows { start, targets }
    }

    /// Nodes ordered so every precedence edge points forward (Kahn's
    /// algorithm: ready nodes first-in first-out, the initial ones by
    /// ascending id, so the order is deterministic).
    ///
    /// # Errors
    /// [`GraphError::Cycle`] naming one cycle.
    pub fn topological_order(&self) -> Result<Vec<NodeId>, GraphError> {
        self.order(&self.precedence_rows(false))
    }

    pub(super) fn order(&self, out: &Rows) -> Result<Vec<NodeId>, GraphError> {
        let n = self.nodes.len();
        let mut indegree = vec![0usize; n];
        for &(t, _) in &out.targets {
            indegree[t] += 1;
        }
        let mut ready: VecDeque<usize> = (0..n).filter(|&v| indegree[v] == 0).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(v) = ready.pop_front() {
            order.push(self.nodes[v].id);
            for &(t, _) in out.of(v) {
                indegree[t] -= 1;
                if indegree[t] == 0 {
                    ready.push_back(t);
                }
            }
        }
        if order.len() == n {
            Ok(order)
        } else {
            Err(GraphError::Cycle {
                cycle: self.find_cycle(&indegree),
            })
        }
    }

    /// One cycle among the nodes Kahn's algorithm could not order: each has
    /// an unordered predecessor, so walking back must repeat a node.
    fn find_cycle(&self, indegree: &[usize]) -> Vec<NodeId> {
        let back = self.precedence_rows(true);
        let Some(first) = indegree.iter().position(|&d| d > 0) else {
            return Vec::new();
        };
        let mut seen_at = vec![usize::MAX; self.nodes.len()];
        let mut walk = Vec::new();
        let mut v = first;
        while seen_at[v] == usize::MAX {
            seen_at[v] = walk.len();
            walk.push(v);
            match back.of(v).iter().find(|&&(u, _)| indegree[u] > 0) {
                Some(&(u, _)) => v = u,
                None => return Vec::new(), // unreachable for a real cycle
            }
        }
        let mut cycle: Vec<NodeId> = walk[seen_at[v]..]
            .iter()
            .map(|&i| self.nodes[i].id)
            .collect();
        cycle.reverse();
        cycle
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel_data::graph::{EdgeKind, NodeKind};

    #[test]
    fn a_cycle_is_reported_not_looped() {
        let mut g = ExecutionGraph::new();
        g.set_device_sequencing(false);
        let ids: Vec<NodeId> = (0..4)
            .map(|i| g.add_node(NodeKind::Layer { index: i }).unwrap())
            .collect();
        // 0 -> 1 -> 2 -> 3 -> 1: the cycle is 1, 2, 3.
        for (from, to) in [(0, 1), (1, 2), (2, 3), (3, 1)] {
            g.depends_on(ids[to], ids[from]).unwrap();
        }
        let Err(GraphError::Cycle { cycle }) = g.schedule() else {
            panic!("expected a cycle");
        };
        let mut sorted = cycle.clone();
        sorted.sort();
        assert_eq!(sorted, ids[1..]);
        // Consecutive nodes (and last -> first) are joined by an edge.
        for i in 0..cycle.len() {
            let (from, to) = (cycle[i], cycle[(i + 1) % cycle.len()]);
            assert!(
                g.edges().iter().any(|e| e.from == from && e.to == to),
                "{from}->{to}"
            );
        }
        assert!(g.topological_order().is_err());
        let text = g.critical_path().unwrap_err().to_string();
        assert!(
            text.starts_with("precedence edges form a cycle: n"),
            "{text}"
        );
    }

    #[test]
    fn hierarchy_edges_do_not_order_execution() {
        let mut g = ExecutionGraph::new();
        let a = g.add_node(NodeKind::function("a")).unwrap();
        let b = g.add_node(NodeKind::function("b")).unwrap();
        g.add_edge(a, b, EdgeKind::Calls).unwrap();
        g.add_edge(b, a, EdgeKind::Contains).unwrap();
        assert_eq!(g.topological_order().unwrap(), [a, b]);
    }
}
