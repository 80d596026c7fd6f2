//! Which brick each event of a trace is: annotations, ops and modules by
//! the mapping, backward nodes through their forward op's sequence number,
//! and the outermost mapped range over each event, so that no time is
//! counted twice.

use std::collections::HashMap;

use super::mapping::OpMapping;
use super::tree::{BACKWARD_PREFIX, Tree};
use crate::model::chrome_trace::{Cat, Event};

/// What an op's brick depends on: its name, input shapes and module path.
type OpKey<'a> = (&'a str, Option<&'a str>, Option<u32>);

/// Each event's own brick, before nesting: annotations and ops by the
/// mapping, backward nodes through their forward op's sequence number.
pub(super) fn own_maps(
    events: &[Event],
    tree: &Tree,
    mapping: &OpMapping,
    notes: &mut Vec<String>,
) -> Vec<Option<String>> {
    // Rules are tried in order, with globs: once per distinct op, name,
    // shapes and module path, not once per event.
    let mut ops: HashMap<OpKey<'_>, Option<&str>> = HashMap::new();
    let mut own: Vec<Option<String>> = events
        .iter()
        .enumerate()
        .map(|(i, e)| match e.cat {
            Cat::Annotation => mapping.annotation(&e.name).map(str::to_owned),
            Cat::CpuOp if !e.name.starts_with(BACKWARD_PREFIX) => {
                let key = (e.name.as_ref(), e.dims.as_deref(), tree.module[i]);
                let brick = ops.entry(key).or_insert_with(|| {
                    mapping.op_in(&e.name, e.dims.as_deref(), tree.module_path(i))
                });
                brick.map(str::to_owned)
            }
            Cat::Module => tree
                .module_path(i)
                .and_then(|p| mapping.module(p))
                .map(str::to_owned),
            _ => None,
        })
        .collect();
    let forward_root = roots(events, &own);
    // The op that created autograd node N is the last forward op recording
    // sequence number N (ops that create no node report the next number).
    let in_backward = |i: usize| tree.in_backward[i];
    let mut creator: HashMap<i64, usize> = HashMap::new();
    for (i, e) in events.iter().enumerate() {
        if e.cat == Cat::CpuOp
            && let Some(seq) = e.seq()
            && !in_backward(i)
        {
            let slot = creator.entry(seq).or_insert(i);
            if events[*slot].ts <= e.ts {
                *slot = i;
            }
        }
    }
    let mut linked = 0usize;
    for (i, e) in events.iter().enumerate() {
        let Some(node) = e.name.strip_prefix(BACKWARD_PREFIX) else {
            continue;
        };
        if e.cat != Cat::CpuOp {
            continue;
        }
        let forward = e
            .seq()
            .and_then(|s| creator.get(&s))
            .and_then(|&f| forward_root[f])
            .and_then(|r| own[r].clone());
        own[i] = match forward {
            Some(name) => {
                linked += 1;
                Some(mapping.backward_name(&name))
            }
            None => mapping.op(node).map(str::to_owned),
        };
    }
    if linked > 0 {
        notes.push(format!(
            "{linked} backward nodes mapped through their forward op's sequence number"
        ));
    }
    own
}

/// For each event, the outermost enclosing event (itself included) with a
/// brick. Parents come before children in the sorted order.
pub(super) fn roots(events: &[Event], own: &[Option<String>]) -> Vec<Option<usize>> {
    let mut root: Vec<Option<usize>> = vec![None; events.len()];
    for i in 0..events.len() {
        root[i] = events[i]
            .parent()
            .and_then(|p| root[p])
            .or(own[i].as_ref().map(|_| i));
    }
    root
}
