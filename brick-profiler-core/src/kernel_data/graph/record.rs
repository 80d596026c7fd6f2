//! Recording into the execution graph: bricks, kernel launches, transfers,
//! explicit dependencies, late timings (after a device sync) and merging
//! the graphs of several threads.

use super::edge::{DEFAULT_EDGE_WEIGHT, EdgeKind};
use super::error::GraphError;
use super::node::{KernelNode, NodeId, NodeKind, TransferDirection, TransferNode};
use super::store::ExecutionGraph;
use crate::catalogue::BrickId;

impl ExecutionGraph {
    /// Whether kernels and transfers are chained by sequence edges (on by
    /// default; see [`ExecutionGraph::set_device_sequencing`]).
    #[must_use]
    pub fn device_sequencing(&self) -> bool {
        self.sequence_device_ops
    }

    /// With `on`, each kernel launch or transfer gets a sequence edge from
    /// the previous one: one in-order queue, like a single CUDA stream. Turn
    /// it off for several streams and add [`ExecutionGraph::depends_on`]
    /// edges instead.
    pub fn set_device_sequencing(&mut self, on: bool) {
        self.sequence_device_ops = on;
        self.last_device_op = None;
    }

    /// Records a built-in brick call inside the current scope.
    pub fn record_brick(&mut self, id: BrickId, timing_ns: u64, elements: u64) -> Option<NodeId> {
        self.add_in_scope(NodeKind::Brick {
            id,
            timing_ns,
            elements,
        })
    }

    /// Records a custom brick call inside the current scope.
    pub fn record_custom_brick(
        &mut self,
        name: impl Into<String>,
        timing_ns: u64,
        elements: u64,
    ) -> Option<NodeId> {
        self.add_in_scope(NodeKind::CustomBrick {
            name: name.into(),
            timing_ns,
            elements,
        })
    }

    /// Records a kernel launch: a kernel node, a launches edge from the
    /// current scope, and a sequence edge from the previous kernel or
    /// transfer when device sequencing is on.
    pub fn record_kernel_launch(&mut self, kernel: KernelNode) -> Option<NodeId> {
        let id = self.add_under_scope(NodeKind::Kernel(kernel), EdgeKind::Launches);
        self.sequence_after_previous(id);
        id
    }

    /// Records a transfer: a transfer node inside the current scope, and a
    /// sequence edge from the previous kernel or transfer when device
    /// sequencing is on.
    pub fn record_transfer(&mut self, transfer: TransferNode) -> Option<NodeId> {
        let id = self.add_in_scope(NodeKind::Transfer(transfer));
        self.sequence_after_previous(id);
        id
    }

    fn sequence_after_previous(&mut self, id: Option<NodeId>) {
        if !self.sequence_device_ops {
            return;
        }
        if let Some(previous) = self.last_device_op {
            self.link(previous, id, EdgeKind::Sequence, DEFAULT_EDGE_WEIGHT);
        }
        self.last_device_op = Some(id);
    }

    /// Says that `node` cannot start before `prerequisite` finished (a
    /// depends-on edge `prerequisite -> node`).
    ///
    /// # Errors
    /// As [`ExecutionGraph::add_edge`].
    pub fn depends_on(
        &mut self,
        node: impl Into<Option<NodeId>>,
        prerequisite: impl Into<Option<NodeId>>,
    ) -> Result<bool, GraphError> {
        self.add_edge(prerequisite, node, EdgeKind::DependsOn)
    }

    /// Adds a transfer edge: `bytes` moved from `from` to `to`, which
    /// therefore runs after it.
    ///
    /// # Errors
    /// As [`ExecutionGraph::add_edge`].
    pub fn add_transfer_edge(
        &mut self,
        from: impl Into<Option<NodeId>>,
        to: impl Into<Option<NodeId>>,
        bytes: u64,
        direction: TransferDirection,
    ) -> Result<bool, GraphError> {
        self.add_edge(from, to, EdgeKind::Transfer { bytes, direction })
    }

    /// Sets the time of a node once known (e.g. device events resolved after
    /// the sync): the timing of a brick, kernel or transfer, the poll time
    /// of an async task.
    ///
    /// # Errors
    /// An unknown node, or a function, layer or step node (no timing).
    pub fn set_timing(&mut self, id: NodeId, ns: u64) -> Result<(), GraphError> {
        self.check_node(id)?;
        match &mut self.nodes[id.index()].kind {
            NodeKind::Brick { timing_ns, .. } | NodeKind::CustomBrick { timing_ns, .. } => {
                *timing_ns = ns;
            }
            NodeKind::Kernel(k) => k.timing_ns = Some(ns),
            NodeKind::Transfer(t) => t.timing_ns = Some(ns),
            NodeKind::AsyncTask { total_poll_ns, .. } => *total_poll_ns = ns,
            other => {
                return Err(GraphError::NoTiming {
                    id,
                    kind: other.kind_name(),
                });
            }
        }
        Ok(())
    }

    /// The kernel with the longest known time (the lowest id on a tie);
    /// kernels not timed yet are skipped.
    #[must_use]
    pub fn slowest_kernel(&self) -> Option<NodeId> {
        self.nodes
            .iter()
            .filter_map(|n| match &n.kind {
                NodeKind::Kernel(k) => k.timing_ns.map(|t| (t, n.id)),
                _ => None,
            })
            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
            .map(|(_, id)| id)
    }

    /// Appends every node and edge of `other` (e.g. another thread's graph)
    /// under this graph's budgets. Its ids shift by this graph's length;
    /// its counters are added. Nothing is attached to this graph's scopes.
    pub fn append(&mut self, other: &ExecutionGraph) {
        let ids: Vec<Option<NodeId>> = other
            .nodes
            .iter()
            .map(|n| self.add_node(n.kind.clone()))
            .collect();
        for e in &other.edges {
            self.link(ids[e.from.index()], ids[e.to.index()], e.kind, e.weight);
        }
        let (mine, theirs) = (&mut self.counters, other.counters);
        mine.dropped_nodes = mine.dropped_nodes.saturating_add(theirs.dropped_nodes);
        mine.dropped_edges = mine.dropped_edges.saturating_add(theirs.dropped_edges);
        mine.scope_errors = mine.scope_errors.saturating_add(theirs.scope_errors);
        self.inherited_open_scopes = self
            .inherited_open_scopes
            .saturating_add(theirs.open_scopes);
        self.sync_open_scopes();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel_data::graph::GraphLimits;

    fn kinds(g: &ExecutionGraph) -> Vec<(usize, usize, &'static str)> {
        g.edges()
            .iter()
            .map(|e| (e.from.index(), e.to.index(), e.kind.name()))
            .collect()
    }

    #[test]
    fn kernel_launches_hang_off_the_scope_and_follow_each_other() {
        let mut g = ExecutionGraph::new();
        let layer = g.push_scope(NodeKind::Layer { index: 0 });
        let k1 = g.record_kernel_launch(KernelNode::new("qkv")).unwrap();
        let t = g
            .record_transfer(TransferNode::new(
                "host",
                "cuda:0",
                64,
                TransferDirection::H2D,
            ))
            .unwrap();
        let k2 = g.record_kernel_launch(KernelNode::new("attn")).unwrap();
        g.pop_scope(layer).unwrap();
        assert_eq!((k1.index(), t.index(), k2.index()), (1, 2, 3));
        assert_eq!(
            kinds(&g),
            [
                (0, 1, "launches"),
                (0, 2, "contains"),
                (1, 2, "sequence"),
                (0, 3, "launches"),
                (2, 3, "sequence"),
            ]
        );
    }

    #[test]
    fn without_device_sequencing_only_explicit_dependencies_order_kernels() {
        let mut g = ExecutionGraph::new();
        g.set_device_sequencing(false);
        assert!(!g.device_sequencing());
        let a = g.record_kernel_launch(KernelNode::new("a"));
        let b = g.record_kernel_launch(KernelNode::new("b"));
        assert!(g.edges().is_empty());
        assert_eq!(g.depends_on(b, a), Ok(true));
        assert_eq!(kinds(&g), [(0, 1, "depends_on")]);
        assert_eq!(
            g.add_transfer_edge(a, b, 128, TransferDirection::D2D),
            Ok(true)
        );
    }

    #[test]
    fn the_node_budget_drops_and_counts_nodes_and_their_edges() {
        let mut g = ExecutionGraph::with_limits(GraphLimits {
            max_nodes: 3,
            max_edges: 100,
        });
        let scope = g.push_scope(NodeKind::function("forward")); // node 0
        let k1 = g.record_kernel_launch(KernelNode::new("k1")); // node 1: launches
        let k2 = g.record_kernel_launch(KernelNode::new("k2")); // node 2: launches, sequence
        let k3 = g.record_kernel_launch(KernelNode::new("k3")); // dropped: 2 edges dropped
        let k4 = g.record_kernel_launch(KernelNode::new("k4")); // dropped: 2 edges dropped
        g.pop_scope(scope).unwrap();
        assert!(k1.is_some() && k2.is_some());
        assert_eq!((k3, k4), (None, None));
        assert_eq!(g.depends_on(k2, k3), Ok(false)); // 1 more edge dropped
        let c = g.counters();
        assert_eq!((g.len(), g.edges().len()), (3, 3));
        assert_eq!((c.dropped_nodes, c.dropped_edges), (2, 5));
    }

    #[test]
    fn the_edge_budget_drops_and_counts_edges() {
        let mut g = ExecutionGraph::with_limits(GraphLimits {
            max_nodes: 10,
            max_edges: 1,
        });
        let a = g.add_node(NodeKind::Layer { index: 0 });
        let b = g.add_node(NodeKind::Layer { index: 1 });
        assert_eq!(g.add_edge(a, b, EdgeKind::Calls), Ok(true));
        assert_eq!(g.add_edge(b, a, EdgeKind::Calls), Ok(false));
        assert_eq!(g.counters().dropped_edges, 1);
    }

    #[test]
    fn timings_can_be_set_after_the_sync() {
        let mut g = ExecutionGraph::new();
        let k = g.record_kernel_launch(KernelNode::new("gemm")).unwrap();
        let f = g.add_node(NodeKind::function("f")).unwrap();
        assert_eq!(g.node(k).unwrap().kind.timing_ns(), None);
        assert_eq!(g.set_timing(k, 900), Ok(()));
        assert_eq!(g.node(k).unwrap().kind.timing_ns(), Some(900));
        assert_eq!(
            g.set_timing(f, 1),
            Err(GraphError::NoTiming {
                id: f,
                kind: "function"
            })
        );
        assert!(matches!(
            g.set_timing(NodeId::new(9), 1),
            Err(GraphError::UnknownNode { .. })
        ));
    }

    #[test]
    fn the_slowest_kernel_skips_untimed_ones_and_ties_go_to_the_first() {
        let mut g = ExecutionGraph::new();
        assert_eq!(g.slowest_kernel(), None);
        g.record_brick(BrickId::LmHead, 10_000, 1);
        let a = g.record_kernel_launch(KernelNode::new("a").timing_ns(500));
        g.record_kernel_launch(KernelNode::new("untimed"));
        let b = g.record_kernel_launch(KernelNode::new("b").timing_ns(700));
        g.record_kernel_launch(KernelNode::new("c").timing_ns(700));
        assert_eq!(g.slowest_kernel(), b);
        assert_ne!(g.slowest_kernel(), a);
    }

    #[test]
    fn append_shifts_ids_and_adds_counters_under_the_budget() {
        let mut other = ExecutionGraph::with_limits(GraphLimits {
            max_nodes: 2,
            max_edges: 10,
        });
        let s = other.push_scope(NodeKind::Step { index: 1 });
        other.record_custom_brick("MyOp", 5, 1);
        other.record_custom_brick("Dropped", 5, 1);
        other.pop_scope(s).unwrap();
        let mut g = ExecutionGraph::with_limits(GraphLimits {
            max_nodes: 3,
            max_edges: 10,
        });
        g.add_node(NodeKind::Step { index: 0 });
        g.add_node(NodeKind::Layer { index: 0 });
        g.append(&other);
        // other: 2 nodes, 1 edge kept, 1 node and 1 edge dropped. Only its
        // step fits here, so its brick and the edge to it are dropped too.
        assert_eq!((g.len(), g.edges().len()), (3, 0));
        assert_eq!(g.nodes()[2].kind, NodeKind::Step { index: 1 });
        let c = g.counters();
        assert_eq!((c.dropped_nodes, c.dropped_edges), (2, 2));
    }
}
