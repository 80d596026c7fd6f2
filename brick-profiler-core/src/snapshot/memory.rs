//! The memory part of a snapshot: per-brick tables, layer and phase scopes,
//! steps, allocations outside all of them and the live-bytes track, read
//! into a [`MemoryProfile`].

use std::sync::atomic::Ordering::Relaxed;

use super::convert::Conversion;
use crate::context::phase::phases;
use crate::profile::{
    BrickMemory, LayerMemory, MemoryKind, MemoryProfile, MemorySample, OutsideMemory, PhaseMemory,
    ScopeMemory, StepMemory,
};
use crate::record::layers::unpack;
use crate::record::memory::{
    DEVICE, HOST, KINDS, OUTSIDE, TRACK, TRACK_CAPACITY, TRACK_LEN, read_table, steps,
};
use crate::record::scope_memory::{self, ScopeKey, ScopeTotals};
use crate::record::site::SlotMeta;
use crate::record::state;

/// The kind of a ledger index.
fn kind_of(index: usize) -> MemoryKind {
    if index == DEVICE {
        MemoryKind::Device
    } else {
        MemoryKind::Host
    }
}

/// The name of `slot`, unless it is hidden or unknown.
fn name_of(metas: &[SlotMeta], slot: u32) -> Option<String> {
    metas
        .get(slot as usize)
        .filter(|m| !m.hidden)
        .map(|m| m.name.to_string())
}

/// A scope's totals as a profile reports them.
fn scope_memory(index: usize, t: &ScopeTotals) -> ScopeMemory {
    ScopeMemory {
        kind: kind_of(index),
        calls: t.calls,
        allocated_bytes: t.total.allocated,
        allocations: t.total.allocations,
        freed_bytes: t.total.freed,
        peak_bytes: t.total.peak.max(0).unsigned_abs(),
        retained_bytes: t.total.net,
        self_allocated_bytes: t.self_allocated,
        self_allocations: t.self_allocations,
        self_freed_bytes: t.self_freed,
    }
}

/// Reads the layer and phase scopes' memory into `memory`, in the table's
/// order: layers by context (index, then direction), phases by id (first
/// seen first), host before device within each.
fn scopes(memory: &mut MemoryProfile) {
    let rows = scope_memory::read();
    if rows.is_empty() {
        return;
    }
    let names: Vec<String> = phases().stats.iter().map(|p| p.name.to_string()).collect();
    for (key, index, totals) in rows {
        let used = scope_memory(index, &totals);
        match key {
            ScopeKey::Layer(ctx) => {
                let (layer, direction) = unpack(ctx);
                memory.layers.push(LayerMemory {
                    index: layer,
                    direction,
                    memory: used,
                });
            }
            ScopeKey::Phase(id) => {
                if let Some(name) = names.get(id as usize) {
                    memory.phases.push(PhaseMemory {
                        name: name.clone(),
                        memory: used,
                    });
                }
            }
        }
    }
}

/// Everything charged so far, or `None` when no allocator ever charged.
pub(crate) fn collect(metas: &[SlotMeta], conv: &Conversion) -> Option<MemoryProfile> {
    if !state::MEMORY_TRACKED.load(Relaxed) {
        return None;
    }
    let mut memory = MemoryProfile::default();
    for index in 0..KINDS {
        let Some(table) = read_table(index) else {
            continue;
        };
        table.for_each(|slot, s| {
            let Some(name) = name_of(metas, slot) else {
                return;
            };
            let allocated = s.allocated.load(Relaxed);
            let allocations = s.allocations.load(Relaxed);
            let freed = s.freed.load(Relaxed);
            memory.bricks.push(BrickMemory {
                name,
                kind: kind_of(index),
                calls: s.calls.load(Relaxed),
                allocated_bytes: allocated,
                allocations,
                freed_bytes: freed,
                peak_bytes: s.peak.load(Relaxed).max(0).unsigned_abs(),
                retained_bytes: s.net.load(Relaxed),
                self_allocated_bytes: allocated.saturating_sub(s.child_allocated.load(Relaxed)),
                self_allocations: allocations.saturating_sub(s.child_allocations.load(Relaxed)),
                self_freed_bytes: freed.saturating_sub(s.child_freed.load(Relaxed)),
            });
        });
    }
    memory
        .bricks
        .sort_by(|a, b| (b.allocated_bytes, &a.name).cmp(&(a.allocated_bytes, &b.name)));
    scopes(&mut memory);
    let outside = |index: usize| OutsideMemory {
        allocated_bytes: OUTSIDE[index].allocated.load(Relaxed),
        allocations: OUTSIDE[index].allocations.load(Relaxed),
        freed_bytes: OUTSIDE[index].freed.load(Relaxed),
    };
    memory.outside_host = outside(HOST);
    memory.outside_device = outside(DEVICE);
    let records = steps();
    memory.steps = records
        .list
        .iter()
        .map(|r| StepMemory {
            index: r.index,
            kind: kind_of(r.kind),
            allocated_bytes: r.used.allocated,
            allocations: r.used.allocations,
            freed_bytes: r.used.freed,
            peak_bytes: r.used.peak.max(0).unsigned_abs(),
            peak_brick: name_of(metas, r.peak_brick),
        })
        .collect();
    memory.steps_dropped = records.dropped;
    drop(records);
    let taken = TRACK_LEN.load(Relaxed);
    let kept = taken.min(TRACK_CAPACITY);
    memory.track = TRACK[..kept]
        .iter()
        .map(|s| {
            let who = s.who.load(Relaxed);
            MemorySample {
                t_ns: conv.ns(s.ticks.load(Relaxed).saturating_sub(conv.origin_ticks)),
                thread: u32::try_from(who >> 1).unwrap_or(u32::MAX),
                kind: kind_of((who & 1) as usize),
                live_bytes: s.live.load(Relaxed),
            }
        })
        .collect();
    memory.track.sort_by_key(|s| s.t_ns);
    memory.track_dropped = (taken - kept) as u64;
    Some(memory)
}
