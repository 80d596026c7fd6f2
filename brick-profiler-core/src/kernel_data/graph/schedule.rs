//! Critical path and slack over the precedence edges (sequence,
//! depends-on, transfer); hierarchy edges are left out because a child's
//! time already lies inside its parent's.
//!
//! With `d(v)` the node's time in ns (0 when it has none) and `w(u, v)` the
//! edge weight (ns):
//! - earliest start `ES(v) = max over edges u->v of ES(u) + d(u) + w(u, v)`,
//!   0 without predecessors; earliest finish `EF(v) = ES(v) + d(v)`;
//! - length `L = max EF(v)` over all nodes;
//! - latest finish `LF(v) = min over edges v->s of LS(s) - w(v, s)`, `L`
//!   without successors; latest start `LS(v) = LF(v) - d(v)`;
//! - slack `LS(v) - ES(v)` (>= 0; 0 on a critical path).
//!
//! The critical path ends at the node with the largest `EF` and follows
//! back the predecessor that set each `ES`; ties go to the lowest node id.
//! Its length is `L`: the node times plus the edge weights along it.

use serde::{Deserialize, Serialize};

use super::error::GraphError;
use super::node::NodeId;
use super::store::ExecutionGraph;

/// The longest chain of precedence edges.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CriticalPath {
    /// Nodes in execution order (empty for an empty graph).
    pub nodes: Vec<NodeId>,
    /// Total length, ns: `node_ns + edge_weight`.
    pub length_ns: f64,
    /// Sum of the node times on the path, ns.
    pub node_ns: u64,
    /// Sum of the edge weights on the path, ns.
    pub edge_weight: f64,
    /// Kernels and transfers on the path whose time is unknown (counted as
    /// 0): when non-zero the length is a lower bound.
    pub missing_timing: usize,
}

/// Earliest and latest start of every node, and the critical path.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GraphSchedule {
    earliest: Vec<f64>,
    latest: Vec<f64>,
    critical_path: CriticalPath,
}

impl GraphSchedule {
    /// Total length `L`, ns.
    #[must_use]
    pub fn length_ns(&self) -> f64 {
        self.critical_path.length_ns
    }

    /// The critical path.
    #[must_use]
    pub fn critical_path(&self) -> &CriticalPath {
        &self.critical_path
    }

    /// `ES(id)`, ns.
    #[must_use]
    pub fn earliest_start(&self, id: NodeId) -> Option<f64> {
        self.earliest.get(id.index()).copied()
    }

    /// `LS(id)`, ns.
    #[must_use]
    pub fn latest_start(&self, id: NodeId) -> Option<f64> {
        self.latest.get(id.index()).copied()
    }

    /// `LS(id) - ES(id)`, ns, never negative (rounding of fractional weights
    /// is clamped).
    #[must_use]
    pub fn slack(&self, id: NodeId) -> Option<f64> {
        Some((self.latest_start(id)? - self.earliest_start(id)?).max(0.0))
    }
}

impl ExecutionGraph {
    /// Earliest and latest starts, slack and the critical path (module docs
    /// give the definitions). O(nodes + edges).
    ///
    /// # Errors
    /// [`GraphError::Cycle`] when precedence edges loop.
    pub fn schedule(&self) -> Result<GraphSchedule, GraphError> {
        let out = self.precedence_rows(false);
        let order = self.order(&out)?;
        let n = self.nodes.len();
        let d: Vec<f64> = self
            .nodes
            .iter()
            .map(|node| node.kind.timing_ns().unwrap_or(0) as f64)
            .collect();
        let mut earliest = vec![0.0f64; n];
        let mut pred: Vec<Option<(usize, f64)>> = vec![None; n];
        for id in &order {
            let u = id.index();
            let finish = earliest[u] + d[u];
            for &(v, w) in out.of(u) {
                let candidate = finish + w;
                let better = candidate > earliest[v]
                    || (candidate == earliest[v] && pred[v].is_none_or(|(p, _)| u < p));
                if better {
                    earliest[v] = candidate;
                    pred[v] = Some((u, w));
                }
            }
        }
        // Largest earliest finish; lowest id on ties (`max_by` keeps the last max).
        let end = (0..n).rev().max_by(|&a, &b| {
            (earliest[a] + d[a])
                .partial_cmp(&(earliest[b] + d[b]))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let length = end.map_or(0.0, |v| earliest[v] + d[v]);
        let mut latest = vec![0.0f64; n];
        for id in order.iter().rev() {
            let v = id.index();
            let finish = out
                .of(v)
                .iter()
                .map(|&(s, w)| latest[s] - w)
                .fold(length, f64::min);
            latest[v] = finish - d[v];
        }
        let critical_path = self.trace_back(end, &pred, length);
        Ok(GraphSchedule {
            earliest,
            latest,
            critical_path,
        })
    }

    fn trace_back(
        &self,
        end: Option<usize>,
        pred: &[Option<(usize, f64)>],
        length_ns: f64,
    ) -> CriticalPath {
        let mut path = CriticalPath {
            length_ns,
            ..CriticalPath::default()
        };
        let mut at = end;
        while let Some(v) = at {
            let kind = &self.nodes[v].kind;
            path.nodes.push(self.nodes[v].id);
            path.node_ns = path.node_ns.saturating_add(kind.timing_ns().unwrap_or(0));
            path.missing_timing += usize::from(kind.is_missing_timing());
            at = pred[v].map(|(u, w)| {
                path.edge_weight += w;
                u
            });
        }
        path.nodes.reverse();
        path
    }

    /// The critical path alone (see [`ExecutionGraph::schedule`]).
    ///
    /// # Errors
    /// [`GraphError::Cycle`] when precedence edges loop.
    pub fn critical_path(&self) -> Result<CriticalPath, GraphError> {
        self.schedule().map(|s| s.critical_path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel_data::graph::{EdgeKind, KernelNode, NodeKind};

    /// The DAG worked out by hand (times in ns, edge weights after `w`):
    ///
    /// ```text
    ///        A(10) --w1--> B(20) --w2--> D(15) --w1--> E(1)
    ///          \                          ^           ^
    ///           `--w1--> C(5) ----w1-----'           |
    ///                       `---------w10------------'
    /// ```
    ///
    /// ES: A 0; B 0+10+1 = 11; C 11; D max(11+20+2, 11+5+1) = 33;
    ///     E max(33+15+1, 11+5+10) = 49.  EF: A 10, B 31, C 16, D 48, E 50.
    /// L = 50, path A B D E = 10+20+15+1 (46) + weights 1+2+1 (4).
    /// LS: E 50-1 = 49; D min(49-1) - 15 = 33; C min(33-1, 49-10) - 5 = 27;
    ///     B (33-2) - 20 = 11; A min(11-1, 27-1) - 10 = 0.
    /// Slack: A 0, B 0, C 27-11 = 16, D 0, E 0; the scope F (untimed,
    /// isolated) 50 - 0 = 50.
    fn hand_dag() -> (ExecutionGraph, [NodeId; 6]) {
        let mut g = ExecutionGraph::new();
        g.set_device_sequencing(false);
        let scope = g.push_scope(NodeKind::function("F"));
        let mut k = |name: &str, ns| {
            g.record_kernel_launch(KernelNode::new(name).timing_ns(ns))
                .unwrap()
        };
        let (a, b, c, d, e) = (k("A", 10), k("B", 20), k("C", 5), k("D", 15), k("E", 1));
        for (from, to, w) in [
            (a, b, 1.0),
            (a, c, 1.0),
            (b, d, 2.0),
            (c, d, 1.0),
            (d, e, 1.0),
            (c, e, 10.0),
        ] {
            g.add_weighted_edge(from, to, EdgeKind::DependsOn, w)
                .unwrap();
        }
        let f = scope.node().unwrap();
        g.pop_scope(scope).unwrap();
        (g, [a, b, c, d, e, f])
    }

    #[test]
    fn critical_path_of_the_hand_worked_dag() {
        let (g, [a, b, _, d, e, _]) = hand_dag();
        let path = g.critical_path().unwrap();
        assert_eq!(path.nodes, [a, b, d, e]);
        assert_eq!(path.length_ns, 50.0);
        assert_eq!((path.node_ns, path.edge_weight), (46, 4.0));
        assert_eq!(path.missing_timing, 0);
    }

    #[test]
    fn earliest_latest_and_slack_of_the_hand_worked_dag() {
        let (g, ids) = hand_dag();
        let s = g.schedule().unwrap();
        let es: Vec<f64> = ids
            .iter()
            .map(|&id| s.earliest_start(id).unwrap())
            .collect();
        let ls: Vec<f64> = ids.iter().map(|&id| s.latest_start(id).unwrap()).collect();
        let slack: Vec<f64> = ids.iter().map(|&id| s.slack(id).unwrap()).collect();
        assert_eq!(es, [0.0, 11.0, 11.0, 33.0, 49.0, 0.0]);
        assert_eq!(ls, [0.0, 11.0, 27.0, 33.0, 49.0, 50.0]);
        assert_eq!(slack, [0.0, 0.0, 16.0, 0.0, 0.0, 50.0]);
        assert_eq!(s.length_ns(), 50.0);
        assert_eq!(s.slack(NodeId::new(99)), None);
    }

    #[test]
    fn untimed_kernels_on_the_path_are_counted() {
        let mut g = ExecutionGraph::new();
        g.record_kernel_launch(KernelNode::new("timed").timing_ns(100));
        g.record_kernel_launch(KernelNode::new("untimed"));
        let path = g.critical_path().unwrap();
        assert_eq!(path.nodes.len(), 2);
        assert_eq!((path.length_ns, path.missing_timing), (101.0, 1));
    }

    #[test]
    fn an_empty_graph_has_an_empty_path() {
        let path = ExecutionGraph::new().critical_path().unwrap();
        assert_eq!((path.nodes.len(), path.length_ns), (0, 0.0));
    }

    #[test]
    fn ties_go_to_the_lowest_id() {
        let mut g = ExecutionGraph::new();
        g.set_device_sequencing(false);
        let a = g
            .record_kernel_launch(KernelNode::new("a").timing_ns(5))
            .unwrap();
        let b = g
            .record_kernel_launch(KernelNode::new("b").timing_ns(5))
            .unwrap();
        let c = g
            .record_kernel_launch(KernelNode::new("c").timing_ns(5))
            .unwrap();
        g.depends_on(c, b).unwrap();
        g.depends_on(c, a).unwrap();
        assert_eq!(g.critical_path().unwrap().nodes, [a, c]);
    }
}
