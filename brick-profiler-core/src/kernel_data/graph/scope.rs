//! Scopes: a stack of open function, layer or step nodes. Everything
//! recorded while a scope is open gets an edge from it (contains, or
//! launches for kernels); pops are checked against pushes.

use super::edge::{DEFAULT_EDGE_WEIGHT, EdgeKind};
use super::error::ScopeError;
use super::node::{NodeId, NodeKind};
use super::store::{ExecutionGraph, OpenScope};

/// An open scope, from [`ExecutionGraph::push_scope`]; give it back to
/// [`ExecutionGraph::pop_scope`].
#[must_use = "a scope stays open until popped"]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScopeHandle {
    node: Option<NodeId>,
    seq: u64,
}

impl ScopeHandle {
    /// The scope's node (`None` when it was dropped by the node budget).
    #[must_use]
    pub const fn node(&self) -> Option<NodeId> {
        self.node
    }

    /// Sequence number of the push (unique within a graph; used in errors).
    #[must_use]
    pub const fn seq(&self) -> u64 {
        self.seq
    }
}

impl ExecutionGraph {
    /// The innermost open scope's node (`None` without a scope, or when it
    /// was dropped).
    #[must_use]
    pub fn current_scope(&self) -> Option<NodeId> {
        self.scopes.last().and_then(|s| s.node)
    }

    /// Open scopes.
    #[must_use]
    pub fn scope_depth(&self) -> usize {
        self.scopes.len()
    }

    /// Adds a node with an edge of `kind` from the innermost open scope (none
    /// at top level). An edge from a dropped scope is counted as dropped.
    pub(super) fn add_under_scope(&mut self, node: NodeKind, kind: EdgeKind) -> Option<NodeId> {
        let id = self.add_node(node);
        if let Some(scope) = self.scopes.last().copied() {
            self.link(scope.node, id, kind, DEFAULT_EDGE_WEIGHT);
        }
        id
    }

    /// Adds a node inside the innermost open scope (a contains edge from it).
    pub fn add_in_scope(&mut self, kind: NodeKind) -> Option<NodeId> {
        self.add_under_scope(kind, EdgeKind::Contains)
    }

    /// Opens a scope: adds `kind` inside the current scope and makes it the
    /// innermost. A scope dropped by the budget is still tracked, so pops
    /// stay balanced.
    pub fn push_scope(&mut self, kind: NodeKind) -> ScopeHandle {
        let node = self.add_in_scope(kind);
        let seq = self.next_scope;
        self.next_scope += 1;
        self.scopes.push(OpenScope { node, seq });
        self.sync_open_scopes();
        ScopeHandle { node, seq }
    }

    /// Closes `scope`.
    ///
    /// # Errors
    /// No scope open; `scope` not open; or `scope` open but not innermost
    /// (then it is closed together with the scopes inside it). Every error
    /// is also counted in [`GraphCounters::scope_errors`](super::store::GraphCounters::scope_errors).
    pub fn pop_scope(&mut self, scope: ScopeHandle) -> Result<(), ScopeError> {
        let result = match self.scopes.last() {
            None => Err(ScopeError::NothingOpen { scope: scope.seq }),
            Some(top) if top.seq == scope.seq => {
                self.scopes.pop();
                Ok(())
            }
            Some(top) => {
                let innermost = top.seq;
                match self.scopes.iter().rposition(|s| s.seq == scope.seq) {
                    Some(at) => {
                        let closed = self.scopes.len() - at;
                        self.scopes.truncate(at);
                        Err(ScopeError::NotInnermost {
                            scope: scope.seq,
                            innermost,
                            closed,
                        })
                    }
                    None => Err(ScopeError::NotOpen { scope: scope.seq }),
                }
            }
        };
        self.sync_open_scopes();
        if result.is_err() {
            self.counters.scope_errors = self.counters.scope_errors.saturating_add(1);
        }
        result
    }

    /// Checks that every push was popped, in order.
    ///
    /// # Errors
    /// [`ScopeError::LeftOpen`] while scopes are open, else
    /// [`ScopeError::Unbalanced`] when an earlier pop failed.
    pub fn check_balance(&self) -> Result<(), ScopeError> {
        if self.counters.open_scopes > 0 {
            return Err(ScopeError::LeftOpen {
                open: self.counters.open_scopes,
                innermost: self.scopes.last().map(|s| s.seq),
            });
        }
        match self.counters.scope_errors {
            0 => Ok(()),
            errors => Err(ScopeError::Unbalanced { errors }),
        }
    }

    /// Closes every open scope (e.g. at snapshot time); returns how many.
    /// Closing them this way is not an error, but the balance check before
    /// it says whether it was needed.
    pub fn close_all_scopes(&mut self) -> usize {
        let open = self.scopes.len();
        self.scopes.clear();
        self.inherited_open_scopes = 0;
        self.sync_open_scopes();
        open
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel_data::graph::GraphLimits;

    fn contains_edges(g: &ExecutionGraph) -> Vec<(usize, usize)> {
        g.edges()
            .iter()
            .filter(|e| e.kind == EdgeKind::Contains)
            .map(|e| (e.from.index(), e.to.index()))
            .collect()
    }

    #[test]
    fn balanced_scopes_nest_with_contains_edges() {
        let mut g = ExecutionGraph::new();
        let step = g.push_scope(NodeKind::Step { index: 0 });
        let layer = g.push_scope(NodeKind::Layer { index: 2 });
        assert_eq!((g.scope_depth(), g.current_scope()), (2, layer.node()));
        let inner = g.add_in_scope(NodeKind::function("attn")).unwrap();
        assert_eq!(g.pop_scope(layer), Ok(()));
        let after = g.add_in_scope(NodeKind::function("loss")).unwrap();
        assert_eq!(g.pop_scope(step), Ok(()));
        let top = g.add_in_scope(NodeKind::function("log")).unwrap();
        assert_eq!(
            contains_edges(&g),
            [(0, 1), (1, inner.index()), (0, after.index())]
        );
        assert!(g.edges().iter().all(|e| e.to != top));
        assert_eq!(g.check_balance(), Ok(()));
        assert_eq!(g.counters().open_scopes, 0);
    }

    #[test]
    fn popping_with_nothing_open_is_an_error() {
        let mut g = ExecutionGraph::new();
        let s = g.push_scope(NodeKind::function("f"));
        assert_eq!(g.pop_scope(s), Ok(()));
        assert_eq!(
            g.pop_scope(s),
            Err(ScopeError::NothingOpen { scope: s.seq() })
        );
        assert_eq!(g.counters().scope_errors, 1);
        assert_eq!(g.check_balance(), Err(ScopeError::Unbalanced { errors: 1 }));
    }

    #[test]
    fn popping_an_outer_scope_closes_the_inner_ones() {
        let mut g = ExecutionGraph::new();
        let outer = g.push_scope(NodeKind::function("outer"));
        let mid = g.push_scope(NodeKind::function("mid"));
        let inner = g.push_scope(NodeKind::function("inner"));
        assert_eq!(
            g.pop_scope(mid),
            Err(ScopeError::NotInnermost {
                scope: mid.seq(),
                innermost: inner.seq(),
                closed: 2
            })
        );
        assert_eq!(g.current_scope(), outer.node());
        // `inner` was closed with `mid`: popping it now names it as not open.
        assert_eq!(
            g.pop_scope(inner),
            Err(ScopeError::NotOpen { scope: inner.seq() })
        );
        assert_eq!(g.pop_scope(outer), Ok(()));
        assert_eq!(g.check_balance(), Err(ScopeError::Unbalanced { errors: 2 }));
    }

    #[test]
    fn scopes_left_open_fail_the_balance_check() {
        let mut g = ExecutionGraph::new();
        let _a = g.push_scope(NodeKind::function("a"));
        let b = g.push_scope(NodeKind::function("b"));
        let err = g.check_balance().unwrap_err();
        assert_eq!(
            err,
            ScopeError::LeftOpen {
                open: 2,
                innermost: Some(b.seq())
            }
        );
        assert_eq!(err.to_string(), "2 scopes left open (innermost #1)");
        assert_eq!(g.counters().open_scopes, 2);
        assert_eq!(g.close_all_scopes(), 2);
        assert_eq!(g.check_balance(), Ok(()));
    }

    #[test]
    fn a_dropped_scope_still_balances_and_drops_its_edges() {
        let mut g = ExecutionGraph::with_limits(GraphLimits {
            max_nodes: 1,
            max_edges: 10,
        });
        let outer = g.push_scope(NodeKind::function("kept"));
        let dropped = g.push_scope(NodeKind::function("dropped"));
        assert_eq!(dropped.node(), None);
        assert_eq!(g.add_in_scope(NodeKind::Layer { index: 0 }), None);
        assert_eq!(g.pop_scope(dropped), Ok(()));
        assert_eq!(g.pop_scope(outer), Ok(()));
        let c = g.counters();
        // Nodes: "dropped" and the layer. Edges: kept->dropped, dropped->layer.
        assert_eq!((c.dropped_nodes, c.dropped_edges), (2, 2));
        assert_eq!(g.check_balance(), Ok(()));
    }
}
