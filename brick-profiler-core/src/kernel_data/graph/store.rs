//! Storage of the execution graph: nodes, edges, and the node and edge
//! budgets with their drop counters.

use serde::{Deserialize, Serialize};

use super::edge::{DEFAULT_EDGE_WEIGHT, EdgeKind, GraphEdge};
use super::error::GraphError;
use super::node::{GraphNode, NodeId, NodeKind};

/// Default node budget of an [`ExecutionGraph`].
pub const DEFAULT_GRAPH_NODES: usize = 100_000;
/// Default edge budget of an [`ExecutionGraph`].
pub const DEFAULT_GRAPH_EDGES: usize = 4 * DEFAULT_GRAPH_NODES;

/// How much a graph keeps. What does not fit is dropped and counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphLimits {
    /// Most nodes kept (default 100 000).
    pub max_nodes: usize,
    /// Most edges kept (default 400 000).
    pub max_edges: usize,
}

impl Default for GraphLimits {
    fn default() -> Self {
        Self {
            max_nodes: DEFAULT_GRAPH_NODES,
            max_edges: DEFAULT_GRAPH_EDGES,
        }
    }
}

/// What the graph lost or found wrong; every export reports these.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphCounters {
    /// Nodes refused because the node budget was full.
    pub dropped_nodes: u64,
    /// Edges not stored: an endpoint was dropped, or the edge budget was full.
    pub dropped_edges: u64,
    /// Scope pops that did not match their pushes.
    #[serde(default)]
    pub scope_errors: u64,
    /// Scopes open (at serialisation time, for a graph read back).
    #[serde(default)]
    pub open_scopes: u64,
}

impl GraphCounters {
    /// Whether anything was dropped.
    #[must_use]
    pub fn any_dropped(&self) -> bool {
        self.dropped_nodes > 0 || self.dropped_edges > 0
    }
}

/// An open scope: its node (`None` when it was dropped) and sequence number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct OpenScope {
    pub(super) node: Option<NodeId>,
    pub(super) seq: u64,
}

/// A graph of what ran: bricks, kernel launches, transfers and the scopes
/// around them, with hierarchy and precedence edges.
///
/// Recording methods return `Option<NodeId>`: `None` when the node budget
/// was full and the node was dropped (and counted). Methods that take
/// endpoints accept a `NodeId` or such an `Option`, so dropped nodes flow
/// through and the edges touching them are counted as dropped too.
///
/// ```
/// # use profiler_core as profiler;
/// use profiler::kernel::{ExecutionGraph, KernelNode, NodeKind, TransferDirection, TransferNode};
///
/// let mut graph = ExecutionGraph::new();
/// let layer = graph.push_scope(NodeKind::Layer { index: 0 });
/// graph.record_transfer(
///     TransferNode::new("host", "cuda:0", 4096, TransferDirection::H2D).timing_ns(2_000),
/// );
/// let gemm = graph.record_kernel_launch(KernelNode::new("gemm").grid(8, 8, 1));
/// graph.pop_scope(layer).unwrap();
/// // The kernel's time arrives after the device sync.
/// graph.set_timing(gemm.unwrap(), 10_000).unwrap();
///
/// let path = graph.critical_path().unwrap();
/// assert_eq!(path.length_ns, 2_000.0 + 1.0 + 10_000.0); // transfer, edge, kernel
/// assert_eq!(graph.len(), 3);
/// ```
///
/// `profiler_report::graph` draws it as Graphviz DOT or an ASCII tree.
#[derive(Debug, Clone)]
pub struct ExecutionGraph {
    pub(super) nodes: Vec<GraphNode>,
    pub(super) edges: Vec<GraphEdge>,
    pub(super) limits: GraphLimits,
    pub(super) counters: GraphCounters,
    pub(super) scopes: Vec<OpenScope>,
    pub(super) next_scope: u64,
    /// The last kernel or transfer recorded (`Some(None)`: it was dropped).
    pub(super) last_device_op: Option<Option<NodeId>>,
    pub(super) sequence_device_ops: bool,
    /// Open scopes of graphs read back or appended (their stacks are gone).
    pub(super) inherited_open_scopes: u64,
}

/// Graphs are equal when they recorded the same: nodes, edges, limits and
/// counters. The live scope stack is left out, as it is from the JSON form,
/// so a graph equals itself read back.
impl PartialEq for ExecutionGraph {
    fn eq(&self, other: &Self) -> bool {
        self.nodes == other.nodes
            && self.edges == other.edges
            && self.limits == other.limits
            && self.counters == other.counters
    }
}

impl Default for ExecutionGraph {
    fn default() -> Self {
        Self::new()
    }
}

impl ExecutionGraph {
    /// An empty graph with the default budgets.
    #[must_use]
    pub fn new() -> Self {
        Self::with_limits(GraphLimits::default())
    }

    /// An empty graph with the given budgets.
    #[must_use]
    pub fn with_limits(limits: GraphLimits) -> Self {
        Self {
            nodes: Vec::new(),
            edges: Vec::new(),
            limits,
            counters: GraphCounters::default(),
            scopes: Vec::new(),
            next_scope: 0,
            last_device_op: None,
            sequence_device_ops: true,
            inherited_open_scopes: 0,
        }
    }

    /// The budgets.
    #[must_use]
    pub fn limits(&self) -> GraphLimits {
        self.limits
    }

    /// Drop and scope counters.
    #[must_use]
    pub fn counters(&self) -> GraphCounters {
        self.counters
    }

    /// Nodes, in id order.
    #[must_use]
    pub fn nodes(&self) -> &[GraphNode] {
        &self.nodes
    }

    /// Edges, in insertion order.
    #[must_use]
    pub fn edges(&self) -> &[GraphEdge] {
        &self.edges
    }

    /// The node `id`, if it is in the graph.
    #[must_use]
    pub fn node(&self, id: NodeId) -> Option<&GraphNode> {
        self.nodes.get(id.index())
    }

    /// Number of nodes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the graph has no node.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Adds a node with no edge; `None` (counted) when the budget is full.
    pub fn add_node(&mut self, kind: NodeKind) -> Option<NodeId> {
        // Ids are u32: a budget above that still stops at u32::MAX nodes.
        let id = u32::try_from(self.nodes.len()).ok();
        match id {
            Some(id) if self.nodes.len() < self.limits.max_nodes => {
                let id = NodeId::new(id);
                self.nodes.push(GraphNode { id, kind });
                Some(id)
            }
            _ => {
                self.counters.dropped_nodes = self.counters.dropped_nodes.saturating_add(1);
                None
            }
        }
    }

    /// Adds an edge of weight 1. `Ok(false)` when it was dropped (an
    /// endpoint was dropped or the edge budget is full; counted).
    ///
    /// # Errors
    /// An endpoint not in this graph, or `from == to`.
    pub fn add_edge(
        &mut self,
        from: impl Into<Option<NodeId>>,
        to: impl Into<Option<NodeId>>,
        kind: EdgeKind,
    ) -> Result<bool, GraphError> {
        self.add_weighted_edge(from, to, kind, DEFAULT_EDGE_WEIGHT)
    }

    /// Adds an edge with a weight (latency in ns, see [`GraphEdge::weight`]).
    ///
    /// # Errors
    /// An endpoint not in this graph, `from == to`, or a weight that is
    /// negative or not finite.
    pub fn add_weighted_edge(
        &mut self,
        from: impl Into<Option<NodeId>>,
        to: impl Into<Option<NodeId>>,
        kind: EdgeKind,
        weight: f64,
    ) -> Result<bool, GraphError> {
        let (from, to) = (from.into(), to.into());
        // Checked even when an endpoint was dropped: the call is wrong either way.
        for id in [from, to].into_iter().flatten() {
            self.check_node(id)?;
        }
        if let (Some(f), Some(t)) = (from, to)
            && f == t
        {
            return Err(GraphError::SelfLoop { id: f });
        }
        check_weight(weight)?;
        Ok(self.link(from, to, kind, weight))
    }

    /// Stores an edge between checked endpoints, or counts it as dropped.
    pub(super) fn link(
        &mut self,
        from: Option<NodeId>,
        to: Option<NodeId>,
        kind: EdgeKind,
        weight: f64,
    ) -> bool {
        match (from, to) {
            (Some(from), Some(to)) if self.edges.len() < self.limits.max_edges => {
                self.edges.push(GraphEdge {
                    from,
                    to,
                    kind,
                    weight,
                });
                true
            }
            _ => {
                self.counters.dropped_edges = self.counters.dropped_edges.saturating_add(1);
                false
            }
        }
    }

    pub(super) fn check_node(&self, id: NodeId) -> Result<(), GraphError> {
        if id.index() < self.nodes.len() {
            Ok(())
        } else {
            Err(GraphError::UnknownNode {
                id,
                len: self.nodes.len(),
            })
        }
    }

    /// Refreshes the open-scope counter after the stack changed.
    pub(super) fn sync_open_scopes(&mut self) {
        self.counters.open_scopes =
            (self.scopes.len() as u64).saturating_add(self.inherited_open_scopes);
    }

    pub(super) fn check_edge(&self, edge: &GraphEdge) -> Result<(), GraphError> {
        self.check_node(edge.from)?;
        self.check_node(edge.to)?;
        if edge.from == edge.to {
            return Err(GraphError::SelfLoop { id: edge.from });
        }
        check_weight(edge.weight)
    }
}

fn check_weight(weight: f64) -> Result<(), GraphError> {
    if weight.is_finite() && weight >= 0.0 {
        Ok(())
    } else {
        Err(GraphError::InvalidWeight { weight })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_edges_are_typed_errors() {
        let mut g = ExecutionGraph::new();
        let a = g.add_node(NodeKind::Layer { index: 0 }).unwrap();
        let ghost = NodeId::new(7);
        assert_eq!(
            g.add_edge(a, ghost, EdgeKind::Calls),
            Err(GraphError::UnknownNode { id: ghost, len: 1 })
        );
        assert_eq!(
            g.add_edge(None, ghost, EdgeKind::Calls),
            Err(GraphError::UnknownNode { id: ghost, len: 1 })
        );
        assert_eq!(
            g.add_edge(a, a, EdgeKind::Sequence),
            Err(GraphError::SelfLoop { id: a })
        );
        for w in [-1.0, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                g.add_weighted_edge(a, None, EdgeKind::Sequence, w),
                Err(GraphError::InvalidWeight { .. })
            ));
        }
        assert!(g.edges().is_empty());
        assert_eq!(g.counters().dropped_edges, 0, "refused edges are not drops");
    }

    #[test]
    fn a_full_budget_graph_builds_analyses_and_reads_back() {
        // Smoke test of scale (no time assertion): 1 scope + 99 999 kernels fill
        // the 100 000-node budget; 5 more are dropped with their 2 edges each.
        use crate::kernel_data::graph::KernelNode;
        let mut g = ExecutionGraph::new();
        let scope = g.push_scope(NodeKind::function("decode"));
        for i in 0..100_004u64 {
            g.record_kernel_launch(KernelNode::new("k").timing_ns(i % 7 + 1));
        }
        g.pop_scope(scope).unwrap();
        let c = g.counters();
        assert_eq!(
            (g.len(), c.dropped_nodes, c.dropped_edges),
            (DEFAULT_GRAPH_NODES, 5, 10)
        );
        // Launch edges 99 999, sequence edges 99 998.
        assert_eq!(g.edges().len(), 99_999 + 99_998);
        let schedule = g.schedule().unwrap();
        let node_ns: u64 = (0..99_999u64).map(|i| i % 7 + 1).sum();
        let path = schedule.critical_path();
        assert_eq!(path.nodes.len(), 99_999);
        assert_eq!(path.length_ns, node_ns as f64 + 99_998.0);
        assert_eq!(schedule.slack(NodeId::new(1)), Some(0.0));
        let json = serde_json::to_string(&g).unwrap();
        let back: ExecutionGraph = serde_json::from_str(&json).unwrap();
        assert_eq!(back.counters(), c);
    }
}
