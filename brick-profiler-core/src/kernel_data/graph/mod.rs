//! The execution graph: bricks, kernel launches, transfers and async tasks
//! as nodes inside function, layer and step scopes, joined by hierarchy and
//! precedence edges; with a node budget, critical path and slack, ping-pong
//! transfer detection, and its serde form (a profile carries the graph).
//! Drawing it (DOT, an ASCII tree) is the report crate's work.

mod edge;
mod error;
mod json;
mod node;
mod order;
mod pingpong;
mod record;
mod schedule;
mod scope;
mod store;

pub use edge::{DEFAULT_EDGE_WEIGHT, EdgeKind, GraphEdge};
pub use error::{GraphError, ScopeError};
pub use node::{GraphNode, KernelNode, NodeId, NodeKind, TransferDirection, TransferNode};
pub use pingpong::{PingPong, PingPongConfig};
pub use schedule::{CriticalPath, GraphSchedule};
pub use scope::ScopeHandle;
pub use store::{
    DEFAULT_GRAPH_EDGES, DEFAULT_GRAPH_NODES, ExecutionGraph, GraphCounters, GraphLimits,
};
