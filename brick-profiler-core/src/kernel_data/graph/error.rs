//! Typed errors of the execution graph: bad edges, cycles among precedence
//! edges, unbalanced scopes and malformed graphs read back from JSON.

use std::fmt::Write as _;

use super::node::NodeId;

/// How many nodes of a cycle an error message names.
const CYCLE_SHOWN: usize = 12;

/// `n1 -> n2 -> n1`, shortened for long cycles.
fn cycle_text(cycle: &[NodeId]) -> String {
    let mut s = String::new();
    for id in cycle.iter().take(CYCLE_SHOWN) {
        let _ = write!(s, "{id} -> ");
    }
    if cycle.len() > CYCLE_SHOWN {
        let _ = write!(s, "... ({} nodes) -> ", cycle.len());
    }
    match cycle.first() {
        Some(first) => {
            let _ = write!(s, "{first}");
        }
        None => s.push_str("(none)"),
    }
    s
}

/// An edge or analysis the graph refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GraphError {
    /// A node id that is not in this graph.
    #[error("node {id} is not in the graph ({len} nodes)")]
    UnknownNode {
        /// The id given.
        id: NodeId,
        /// Nodes in the graph.
        len: usize,
    },
    /// An edge from a node to itself.
    #[error("edge from node {id} to itself")]
    SelfLoop {
        /// The node.
        id: NodeId,
    },
    /// An edge weight that is negative or not finite.
    #[error("edge weight {weight} is not a finite number >= 0")]
    InvalidWeight {
        /// The weight given.
        weight: f64,
    },
    /// A timing set on a node kind that has none (function, layer, step).
    #[error("node {id} is a {kind} node, which has no timing")]
    NoTiming {
        /// The node.
        id: NodeId,
        /// Its kind name.
        kind: &'static str,
    },
    /// Precedence edges that loop, so no critical path exists.
    #[error("precedence edges form a cycle: {}", cycle_text(.cycle))]
    Cycle {
        /// The nodes of one cycle, in edge order (the last links back to the first).
        cycle: Vec<NodeId>,
    },
    /// A graph read back whose node list is out of order.
    #[error("node at index {index} has id {id}; ids must equal list positions")]
    NodeOutOfOrder {
        /// Position in the list.
        index: usize,
        /// The id found there.
        id: NodeId,
    },
    /// A graph read back with an edge that names a missing node or is invalid.
    #[error("edge {index}: {source}")]
    BadEdge {
        /// Position of the edge in the list.
        index: usize,
        /// What is wrong with it.
        source: Box<GraphError>,
    },
}

/// A scope pushed and popped out of order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ScopeError {
    /// A pop with no scope open.
    #[error("pop of scope #{scope} with no scope open")]
    NothingOpen {
        /// Sequence number of the scope popped.
        scope: u64,
    },
    /// A pop of a scope that is open but not innermost; it and the scopes
    /// inside it were closed.
    #[error("pop of scope #{scope} while scope #{innermost} is innermost; {closed} scopes closed")]
    NotInnermost {
        /// Sequence number of the scope popped.
        scope: u64,
        /// Sequence number of the innermost open scope.
        innermost: u64,
        /// Scopes closed by the pop (the popped one included).
        closed: usize,
    },
    /// A pop of a scope that is not open (popped twice, or from another graph).
    #[error("pop of scope #{scope}, which is not open")]
    NotOpen {
        /// Sequence number of the scope popped.
        scope: u64,
    },
    /// Scopes still open when the balance was checked.
    #[error("{open} scopes left open{}", innermost.map(|s| format!(" (innermost #{s})")).unwrap_or_default())]
    LeftOpen {
        /// How many (including those of graphs read back or appended).
        open: u64,
        /// Sequence number of the innermost, when it is on this graph's stack.
        innermost: Option<u64>,
    },
    /// Earlier pops that did not match their pushes.
    #[error("{errors} scope pops did not match their pushes")]
    Unbalanced {
        /// How many.
        errors: u64,
    },
}
