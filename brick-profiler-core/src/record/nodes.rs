//! Feeding the execution graph (when it is on) from what the thread
//! records: a node per brick call, a scope per step, phase and layer.

use super::graph::ThreadGraph;
use super::site::name_of;
use super::state::GRAPH;
use super::thread::with_slab;
use crate::catalogue::BrickId;
use crate::kernel_data::{NodeKind, ScopeHandle};

/// Adds a brick call of `slot`, `ns` long, to the thread's graph.
#[cold]
#[inline(never)]
pub(crate) fn brick(state: u64, slot: u32, ns: u64, elements: u64, top_level: bool) {
    let kind = match BrickId::from_index(slot as usize) {
        Some(id) => NodeKind::Brick {
            id,
            timing_ns: ns,
            elements,
        },
        None => NodeKind::CustomBrick {
            name: name_of(slot).map_or_else(|| format!("slot {slot}"), |n| n.to_string()),
            timing_ns: ns,
            elements,
        },
    };
    with_graph(state, |g| g.brick(kind, top_level));
}

/// Opens a scope in the thread's graph when the graph is on.
pub(crate) fn open_scope(state: u64, kind: impl FnOnce() -> NodeKind) -> Option<ScopeHandle> {
    if state & GRAPH == 0 {
        return None;
    }
    with_graph(state, |g| g.push_scope(kind()))
}

/// Closes a scope `open_scope` opened.
pub(crate) fn close_scope(state: u64, scope: Option<ScopeHandle>) {
    if let Some(scope) = scope {
        with_graph(state, |g| g.pop_scope(scope));
    }
}

fn with_graph<R>(state: u64, f: impl FnOnce(&mut ThreadGraph) -> R) -> Option<R> {
    with_slab(state, |slab, _| {
        let mut graph = slab
            .graph
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(graph.get_or_insert_with(ThreadGraph::default))
    })
}
