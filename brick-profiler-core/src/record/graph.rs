//! The calling thread's share of the execution graph (when it is on):
//! bricks as nodes, in sequence at the top nesting level, inside the step
//! and layer scopes open on the thread. The owner adds nodes under an
//! uncontended lock that only snapshots also take.

use crate::kernel_data::{EdgeKind, ExecutionGraph, NodeId, NodeKind, ScopeHandle};

/// One thread's graph and where its next brick attaches.
#[derive(Debug, Default)]
pub(crate) struct ThreadGraph {
    pub(crate) graph: ExecutionGraph,
    /// The last brick recorded at the top nesting level: the next one runs
    /// after it.
    last_top_brick: Option<NodeId>,
}

impl ThreadGraph {
    /// Records a finished brick call; a top-level call (not nested in
    /// another brick) is sequenced after the previous top-level one.
    pub(crate) fn brick(&mut self, kind: NodeKind, top_level: bool) {
        let node = self.graph.add_in_scope(kind);
        if top_level && let Some(node) = node {
            if let Some(previous) = self.last_top_brick {
                let _ = self.graph.add_edge(previous, node, EdgeKind::Sequence);
            }
            self.last_top_brick = Some(node);
        }
    }

    /// Opens a step or layer scope.
    pub(crate) fn push_scope(&mut self, kind: NodeKind) -> ScopeHandle {
        self.graph.push_scope(kind)
    }

    /// Closes a scope; a mismatch is counted by the graph, not fatal.
    pub(crate) fn pop_scope(&mut self, scope: ScopeHandle) {
        let _ = self.graph.pop_scope(scope);
    }
}
