//! The memory of the scorecard: the step whose live bytes peaked highest,
//! per memory kind, with the brick that was running at the peak, and each
//! layer's host bytes for the per-layer table.

use std::collections::BTreeMap;

use profiler_core::alloc::{MemoryKind, MemoryProfile};
use serde::{Deserialize, Serialize};

/// The step whose live bytes peaked highest, and the brick running then.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryPeak {
    /// Which memory.
    pub kind: MemoryKind,
    /// The step's index.
    pub step: u64,
    /// Live bytes above the step's start at the peak.
    pub peak_bytes: u64,
    /// The innermost brick at the peak (`None` outside any brick).
    pub brick: Option<String>,
}

impl MemoryPeak {
    /// The peak of each kind in a profile's memory.
    #[must_use]
    pub fn of(memory: Option<&MemoryProfile>) -> Vec<MemoryPeak> {
        let Some(memory) = memory else {
            return Vec::new();
        };
        MemoryKind::ALL
            .iter()
            .filter_map(|&kind| memory.peak_step(kind))
            .map(|s| MemoryPeak {
                kind: s.kind,
                step: s.index,
                peak_bytes: s.peak_bytes,
                brick: s.peak_brick.clone(),
            })
            .collect()
    }

    /// `2.00 MB in step 3, in Matmul`, the brick's name through `escape`.
    pub fn text(&self, escape: impl Fn(&str) -> String) -> String {
        let at = self.brick.as_deref().map_or_else(
            || "outside any brick".to_owned(),
            |b| format!("in {}", escape(b)),
        );
        format!(
            "{} in step {}, {at}",
            crate::base::textfmt::bytes(self.peak_bytes as f64),
            self.step
        )
    }
}

/// One layer's host memory over both directions: bytes allocated inside its
/// scopes (bricks included) and the highest peak above a scope's entry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LayerBytes {
    /// Bytes allocated, per step when the run recorded steps.
    pub(crate) allocated: u64,
    /// Highest live bytes above a scope's entry.
    pub(crate) peak: u64,
}

/// Each layer's host memory by index; empty when no layer scope was charged.
/// Allocated bytes are divided by `steps` (when non-zero), like layer times.
pub(crate) fn layer_bytes(
    memory: Option<&MemoryProfile>,
    steps: u64,
) -> BTreeMap<usize, LayerBytes> {
    let mut layers: BTreeMap<usize, LayerBytes> = BTreeMap::new();
    let scopes = memory.map_or(&[][..], |m| &m.layers[..]);
    for l in scopes.iter().filter(|l| l.memory.kind == MemoryKind::Host) {
        let entry = layers.entry(l.index as usize).or_default();
        entry.allocated = entry
            .allocated
            .saturating_add(l.memory.allocated_bytes / steps.max(1));
        entry.peak = entry.peak.max(l.memory.peak_bytes);
    }
    layers
}

#[cfg(test)]
mod tests {
    use profiler_core::Direction;
    use profiler_core::alloc::{LayerMemory, ScopeMemory};

    use super::*;

    fn scope(
        index: u32,
        direction: Direction,
        kind: MemoryKind,
        allocated: u64,
        peak: u64,
    ) -> LayerMemory {
        LayerMemory {
            index,
            direction,
            memory: ScopeMemory {
                kind,
                calls: 1,
                allocated_bytes: allocated,
                allocations: 1,
                freed_bytes: 0,
                peak_bytes: peak,
                retained_bytes: 0,
                self_allocated_bytes: 0,
                self_allocations: 0,
                self_freed_bytes: 0,
            },
        }
    }

    #[test]
    fn layer_bytes_merge_directions_per_step_and_skip_device_memory() {
        let memory = MemoryProfile {
            layers: vec![
                scope(0, Direction::Forward, MemoryKind::Host, 400, 300),
                scope(0, Direction::Backward, MemoryKind::Host, 800, 500),
                scope(0, Direction::Forward, MemoryKind::Device, 9_000, 9_000),
                scope(3, Direction::Forward, MemoryKind::Host, 40, 10),
            ],
            ..MemoryProfile::default()
        };
        let layers = layer_bytes(Some(&memory), 4);
        assert_eq!(
            layers[&0],
            LayerBytes {
                allocated: 300,
                peak: 500
            }
        );
        assert_eq!(
            layers[&3],
            LayerBytes {
                allocated: 10,
                peak: 10
            }
        );
        assert!(layer_bytes(None, 4).is_empty());
        assert_eq!(
            layer_bytes(Some(&memory), 0)[&3].allocated,
            40,
            "no steps: run totals"
        );
    }
}
