//! The serde form of the execution graph: limits, counters, nodes and
//! edges (the live scope stack is not saved; its depth is, as a counter).
//! A graph read back is validated: ids in order, edges between known nodes.

use serde::{Deserialize, Serialize};

use super::edge::GraphEdge;
use super::error::GraphError;
use super::node::GraphNode;
use super::store::{ExecutionGraph, GraphCounters, GraphLimits};

/// The serde form read back: what was recorded, without the live scope stack.
#[derive(Deserialize)]
struct GraphData {
    #[serde(default)]
    limits: GraphLimits,
    #[serde(default)]
    counters: GraphCounters,
    nodes: Vec<GraphNode>,
    edges: Vec<GraphEdge>,
}

/// The serde form written, borrowed (same fields as [`GraphData`]).
#[derive(Serialize)]
struct GraphDataRef<'a> {
    limits: GraphLimits,
    counters: GraphCounters,
    nodes: &'a [GraphNode],
    edges: &'a [GraphEdge],
}

impl Serialize for ExecutionGraph {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        GraphDataRef {
            limits: self.limits,
            counters: self.counters,
            nodes: &self.nodes,
            edges: &self.edges,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ExecutionGraph {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let data = GraphData::deserialize(deserializer)?;
        Self::try_from(data).map_err(serde::de::Error::custom)
    }
}

impl TryFrom<GraphData> for ExecutionGraph {
    type Error = GraphError;

    fn try_from(data: GraphData) -> Result<Self, GraphError> {
        for (index, node) in data.nodes.iter().enumerate() {
            if node.id.index() != index {
                return Err(GraphError::NodeOutOfOrder { index, id: node.id });
            }
        }
        let mut graph = Self::with_limits(data.limits);
        graph.counters = data.counters;
        graph.inherited_open_scopes = data.counters.open_scopes;
        graph.nodes = data.nodes;
        for (index, edge) in data.edges.iter().enumerate() {
            graph.check_edge(edge).map_err(|e| GraphError::BadEdge {
                index,
                source: Box::new(e),
            })?;
        }
        graph.edges = data.edges;
        Ok(graph)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::BrickId;
    use crate::kernel_data::graph::{KernelNode, NodeKind, TransferDirection, TransferNode};

    fn sample() -> ExecutionGraph {
        let mut g = ExecutionGraph::new();
        let s = g.push_scope(NodeKind::Function {
            name: "forward".into(),
            file: Some("model.rs".into()),
            line: Some(12),
        });
        g.record_brick(BrickId::RmsNorm, 1_200, 4_096);
        g.record_kernel_launch(
            KernelNode::new("gemm")
                .grid(8, 8, 1)
                .block(16, 16, 1)
                .shared_mem(4_096)
                .timing_ns(12_500)
                .arithmetic_intensity(42.5)
                .achieved_tflops(f64::NAN),
        );
        g.record_transfer(TransferNode::new(
            "host",
            "cuda:0",
            1 << 20,
            TransferDirection::H2D,
        ));
        g.add_node(NodeKind::AsyncTask {
            name: "decode".into(),
            poll_count: 3,
            yield_count: 2,
            total_poll_ns: 800,
        });
        g.pop_scope(s).unwrap();
        let _open = g.push_scope(NodeKind::Step { index: 4 });
        g
    }

    #[test]
    fn serde_round_trips_nodes_edges_and_counters() {
        let g = sample();
        let json = serde_json::to_string(&g).unwrap();
        let back: ExecutionGraph = serde_json::from_str(&json).unwrap();
        assert_eq!(back, g, "equal though the scope stack was not saved");
        assert_eq!(back.nodes(), g.nodes());
        assert_eq!(back.edges(), g.edges());
        assert_eq!(back.counters(), g.counters());
        assert_eq!(back.counters().open_scopes, 1);
        assert_eq!(back.scope_depth(), 0);
        // A NaN never reaches the file: the builder refused it.
        assert!(!json.contains("NaN") && json.contains("\"achieved_tflops\":null"));
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["nodes"][1]["kind"], "brick");
        assert_eq!(value["nodes"][1]["id"], 1);
        assert_eq!(value["nodes"][1]["brick"], "RmsNorm");
        assert_eq!(value["edges"][0]["kind"], "contains");
        assert_eq!(value["edges"][0]["weight"], 1.0);
    }

    #[test]
    fn a_graph_read_back_keeps_its_open_scopes_until_closed() {
        let mut back: ExecutionGraph =
            serde_json::from_str(&serde_json::to_string(&sample()).unwrap()).unwrap();
        assert!(back.check_balance().is_err());
        let s = back.push_scope(NodeKind::Step { index: 5 });
        back.pop_scope(s).unwrap();
        assert_eq!(back.counters().open_scopes, 1);
        back.close_all_scopes();
        assert_eq!(back.check_balance(), Ok(()));
    }

    #[test]
    fn malformed_graphs_are_refused_with_the_place_named() {
        let node = |id: u32| serde_json::json!({"id": id, "kind": "layer", "index": 0});
        let out_of_order = serde_json::json!({"nodes": [node(1)], "edges": []});
        let err = serde_json::from_value::<ExecutionGraph>(out_of_order).unwrap_err();
        assert!(
            err.to_string().contains("node at index 0 has id n1"),
            "{err}"
        );
        let dangling = serde_json::json!({
            "nodes": [node(0)],
            "edges": [{"from": 0, "to": 0, "kind": "calls"}, {"from": 0, "to": 3, "kind": "calls"}]
        });
        let err = serde_json::from_value::<ExecutionGraph>(dangling).unwrap_err();
        assert!(
            err.to_string()
                .contains("edge 0: edge from node n0 to itself"),
            "{err}"
        );
        let weight = serde_json::json!({
            "nodes": [node(0), node(1)],
            "edges": [{"from": 0, "to": 1, "kind": "sequence", "weight": -2.0}]
        });
        let err = serde_json::from_value::<ExecutionGraph>(weight).unwrap_err();
        assert!(err.to_string().contains("edge 0: edge weight -2"), "{err}");
        let transfer = serde_json::json!({
            "nodes": [node(0), node(1)],
            "edges": [{"from": 0, "to": 1, "kind": "transfer", "bytes": 8}]
        });
        let err = serde_json::from_value::<ExecutionGraph>(transfer).unwrap_err();
        assert!(
            err.to_string()
                .contains("transfer edge without `direction`"),
            "{err}"
        );
    }

    #[test]
    fn optional_kernel_fields_default_as_the_builder_does() {
        let json = serde_json::json!({
            "nodes": [{"id": 0, "kind": "kernel", "name": "k"}],
            "edges": []
        });
        let g: ExecutionGraph = serde_json::from_value(json).unwrap();
        assert_eq!(g.nodes()[0].kind, NodeKind::Kernel(KernelNode::new("k")));
        assert_eq!(g.limits(), GraphLimits::default());
    }
}
