//! Edges of the execution graph. Hierarchy edges (calls, contains,
//! launches) say what ran inside what; precedence edges (sequence,
//! depends-on, transfer) say what had to finish before what started.

use serde::{Deserialize, Serialize};

use super::node::{NodeId, TransferDirection};

/// Weight of an edge unless given: one ns of latency per hop.
pub const DEFAULT_EDGE_WEIGHT: f64 = 1.0;

/// What an edge says about its endpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EdgeKind {
    /// `from` called `to` (hierarchy).
    Calls,
    /// `to` ran inside scope `from` (hierarchy; added by scopes).
    Contains,
    /// Scope `from` launched kernel `to` (hierarchy).
    Launches,
    /// `to` ran after `from` on the same in-order queue (precedence).
    Sequence,
    /// `to` needs `from` to finish first (precedence).
    DependsOn,
    /// Data moved from `from` to `to` (precedence).
    Transfer {
        /// Bytes moved.
        bytes: u64,
        /// Direction.
        direction: TransferDirection,
    },
}

impl EdgeKind {
    /// Whether the edge orders execution (`from` finishes before `to`
    /// starts). Only these edges enter the critical path; hierarchy edges
    /// do not, because a child's time is already inside its parent's.
    #[must_use]
    pub const fn is_precedence(self) -> bool {
        matches!(
            self,
            Self::Sequence | Self::DependsOn | Self::Transfer { .. }
        )
    }

    /// Whether the edge nests `to` under `from` (the ASCII tree follows these).
    #[must_use]
    pub const fn is_hierarchy(self) -> bool {
        !self.is_precedence()
    }

    /// Snake-case kind name, as in the JSON `kind` field.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Calls => "calls",
            Self::Contains => "contains",
            Self::Launches => "launches",
            Self::Sequence => "sequence",
            Self::DependsOn => "depends_on",
            Self::Transfer { .. } => "transfer",
        }
    }
}

fn default_weight() -> f64 {
    DEFAULT_EDGE_WEIGHT
}

/// A directed edge. For precedence kinds it points in execution order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "EdgeData")]
pub struct GraphEdge {
    /// Source node.
    pub from: NodeId,
    /// Target node.
    pub to: NodeId,
    /// What the edge says.
    #[serde(flatten)]
    pub kind: EdgeKind,
    /// Latency of the hop in ns, added to the critical path (finite, `>= 0`).
    #[serde(default = "default_weight")]
    pub weight: f64,
}

/// Edge kind names as read back.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum KindName {
    Calls,
    Contains,
    Launches,
    Sequence,
    DependsOn,
    Transfer,
}

/// The JSON form of an edge read back: flat fields, no buffering (a graph
/// holds hundreds of thousands of edges).
#[derive(Deserialize)]
struct EdgeData {
    from: NodeId,
    to: NodeId,
    kind: KindName,
    #[serde(default)]
    bytes: Option<u64>,
    #[serde(default)]
    direction: Option<TransferDirection>,
    #[serde(default = "default_weight")]
    weight: f64,
}

impl TryFrom<EdgeData> for GraphEdge {
    type Error = &'static str;

    fn try_from(e: EdgeData) -> Result<Self, Self::Error> {
        let kind = match e.kind {
            KindName::Calls => EdgeKind::Calls,
            KindName::Contains => EdgeKind::Contains,
            KindName::Launches => EdgeKind::Launches,
            KindName::Sequence => EdgeKind::Sequence,
            KindName::DependsOn => EdgeKind::DependsOn,
            KindName::Transfer => EdgeKind::Transfer {
                bytes: e.bytes.ok_or("transfer edge without `bytes`")?,
                direction: e.direction.ok_or("transfer edge without `direction`")?,
            },
        };
        Ok(Self {
            from: e.from,
            to: e.to,
            kind,
            weight: e.weight,
        })
    }
}
