//! Kernel launches, transfers and dependencies in the execution graph
//! (`Config::execution_graph`), on the calling thread's share of it, and
//! the process-wide PTX registry.

use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};

use crate::kernel_data::{EdgeKind, KernelNode, NodeId, PtxRegistry, TransferNode};
use crate::record::graph::ThreadGraph;
use crate::record::guard::recording;
use crate::record::state::GRAPH;
use crate::record::thread::with_slab;

/// Runs `f` on the calling thread's graph while the graph is on.
fn with_graph<R>(f: impl FnOnce(&mut ThreadGraph) -> R) -> Option<R> {
    let state = recording()?.state();
    if state & GRAPH == 0 {
        return None;
    }
    with_slab(state, |slab, _| {
        let mut graph = slab.graph.lock().unwrap_or_else(PoisonError::into_inner);
        f(graph.get_or_insert_with(ThreadGraph::default))
    })
}

/// Records a kernel launch in the current scope, sequenced after the
/// previous launch or transfer of the thread. `None` while the graph is off
/// or when the node budget is spent (the drop is counted).
pub fn record_kernel_launch(kernel: KernelNode) -> Option<NodeId> {
    with_graph(|g| g.graph.record_kernel_launch(kernel)).flatten()
}

/// Records a data transfer in the current scope, sequenced like launches.
pub fn record_transfer(transfer: TransferNode) -> Option<NodeId> {
    with_graph(|g| g.graph.record_transfer(transfer)).flatten()
}

/// Says `after` depends on `before` (both nodes of this thread's graph).
pub fn depends_on(after: NodeId, before: NodeId) {
    with_graph(|g| {
        let _ = g.graph.add_edge(before, after, EdgeKind::DependsOn);
    });
}

/// Sets the time of a launch or transfer once it is known (after a sync).
pub fn set_node_timing(node: NodeId, ns: u64) {
    with_graph(|g| {
        let _ = g.graph.set_timing(node, ns);
    });
}

static PTX: LazyLock<Mutex<PtxRegistry>> = LazyLock::new(Mutex::default);

/// The process-wide PTX registry.
pub(crate) fn ptx() -> MutexGuard<'static, PtxRegistry> {
    PTX.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Registers PTX `source` under its FNV-1a hash (what `KernelNode::ptx_hash`
/// holds), with the kernel's `name` and the file it came from; returns the
/// hash. Every later profile carries the registry.
pub fn register_ptx(source: &str, name: &str, path: Option<&std::path::Path>) -> u64 {
    ptx().register(source, name, path)
}
