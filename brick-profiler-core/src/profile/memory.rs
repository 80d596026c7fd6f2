//! Memory in a profile: what each brick, layer, phase and step allocated,
//! freed and peaked at, what ran outside all of them, and live bytes over
//! the run, for host memory and for device memory.

use serde::{Deserialize, Serialize};

use super::layer::Direction;

/// Which memory an amount is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryKind {
    /// The process heap, through the tracking global allocator.
    Host,
    /// Device memory, reported by a GPU allocator.
    Device,
}

impl MemoryKind {
    /// Both kinds, host first.
    pub const ALL: [MemoryKind; 2] = [MemoryKind::Host, MemoryKind::Device];

    /// The kind's name as saved (`host`, `device`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            MemoryKind::Host => "host",
            MemoryKind::Device => "device",
        }
    }
}

/// One brick's memory of one kind. Totals include the bricks called inside
/// (like total time); `self_*` leave them out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrickMemory {
    /// The brick's name.
    pub name: String,
    /// Which memory.
    pub kind: MemoryKind,
    /// Calls that were charged.
    pub calls: u64,
    /// Bytes allocated while the brick ran (reallocations count their new size).
    pub allocated_bytes: u64,
    /// Allocations made while the brick ran.
    pub allocations: u64,
    /// Bytes freed while the brick ran, whoever allocated them.
    pub freed_bytes: u64,
    /// Highest live bytes above the entry's level, over all calls.
    pub peak_bytes: u64,
    /// Allocated minus freed, summed over calls: still live at return
    /// (negative when the brick freed more than it allocated).
    pub retained_bytes: i64,
    /// `allocated_bytes` less the bricks called inside.
    pub self_allocated_bytes: u64,
    /// `allocations` less the bricks called inside.
    pub self_allocations: u64,
    /// `freed_bytes` less the bricks called inside.
    pub self_freed_bytes: u64,
}

impl BrickMemory {
    /// Allocations per call (0 without calls).
    #[must_use]
    pub fn allocations_per_call(&self) -> f64 {
        if self.calls == 0 {
            0.0
        } else {
            self.allocations as f64 / self.calls as f64
        }
    }
}

/// One recorded step's memory of one kind, on the thread that ran it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepMemory {
    /// The step's index.
    pub index: u64,
    /// Which memory.
    pub kind: MemoryKind,
    /// Bytes allocated during the step.
    pub allocated_bytes: u64,
    /// Allocations during the step.
    pub allocations: u64,
    /// Bytes freed during the step.
    pub freed_bytes: u64,
    /// Highest live bytes above the step's starting level.
    pub peak_bytes: u64,
    /// The innermost brick running when the peak was reached (`None`
    /// outside any brick).
    pub peak_brick: Option<String>,
}

/// What a layer or phase scope used of one kind, over its entries on every
/// thread. Totals are everything the thread did while the scope was open,
/// bricks included (as a layer's time is its scope's wall time); `self_*`
/// are what was allocated and freed with no brick open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScopeMemory {
    /// Which memory.
    pub kind: MemoryKind,
    /// Entries of the scope that allocated or freed anything.
    pub calls: u64,
    /// Bytes allocated while the scope was open.
    pub allocated_bytes: u64,
    /// Allocations made while the scope was open.
    pub allocations: u64,
    /// Bytes freed while the scope was open, whoever allocated them.
    pub freed_bytes: u64,
    /// Highest live bytes above the entry's level, over all entries.
    pub peak_bytes: u64,
    /// Allocated minus freed, summed over entries: still live at the exit.
    pub retained_bytes: i64,
    /// Bytes allocated with no brick open.
    pub self_allocated_bytes: u64,
    /// Allocations made with no brick open.
    pub self_allocations: u64,
    /// Bytes freed with no brick open.
    pub self_freed_bytes: u64,
}

/// One layer scope's memory, in one direction, of one kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayerMemory {
    /// Layer index.
    pub index: u32,
    /// Forward or backward.
    pub direction: Direction,
    /// What the scope used.
    #[serde(flatten)]
    pub memory: ScopeMemory,
}

/// One phase's memory of one kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseMemory {
    /// Phase name.
    pub name: String,
    /// What the phase used.
    #[serde(flatten)]
    pub memory: ScopeMemory,
}

/// Allocations made with no brick, layer or phase open, of one kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutsideMemory {
    /// Bytes allocated.
    pub allocated_bytes: u64,
    /// Allocations.
    pub allocations: u64,
    /// Bytes freed.
    pub freed_bytes: u64,
}

/// A counter-track sample: one thread's live bytes of one kind at a moment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemorySample {
    /// Nanoseconds since the run's start.
    pub t_ns: u64,
    /// The thread's number in the memory track.
    pub thread: u32,
    /// Which memory.
    pub kind: MemoryKind,
    /// Bytes allocated minus freed on that thread since recording began.
    pub live_bytes: i64,
}

/// Everything the tracking allocator and device allocators charged.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryProfile {
    /// Bricks with charged calls, by allocated bytes descending.
    #[serde(default)]
    pub bricks: Vec<BrickMemory>,
    /// Recorded steps, in order.
    #[serde(default)]
    pub steps: Vec<StepMemory>,
    /// Layer scopes, by index, forward before backward, host before device.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layers: Vec<LayerMemory>,
    /// Phases, in first-seen order, host before device.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phases: Vec<PhaseMemory>,
    /// Host allocations outside any brick, layer or phase.
    #[serde(default)]
    pub outside_host: OutsideMemory,
    /// Device allocations outside any brick, layer or phase.
    #[serde(default)]
    pub outside_device: OutsideMemory,
    /// Live bytes over the run, sampled when they move by an eighth (at
    /// least 64 KiB) from the thread's last sample.
    #[serde(default)]
    pub track: Vec<MemorySample>,
    /// Samples beyond the track's capacity.
    #[serde(default)]
    pub track_dropped: u64,
    /// Steps beyond the step list's capacity.
    #[serde(default)]
    pub steps_dropped: u64,
}

impl MemoryProfile {
    /// The memory of brick `name` of `kind`, if it was charged.
    #[must_use]
    pub fn brick(&self, name: &str, kind: MemoryKind) -> Option<&BrickMemory> {
        self.bricks
            .iter()
            .find(|b| b.name == name && b.kind == kind)
    }

    /// The memory of layer `index` in `direction` of `kind`, if charged.
    #[must_use]
    pub fn layer(
        &self,
        index: u32,
        direction: Direction,
        kind: MemoryKind,
    ) -> Option<&LayerMemory> {
        self.layers
            .iter()
            .find(|l| l.index == index && l.direction == direction && l.memory.kind == kind)
    }

    /// The memory of phase `name` of `kind`, if charged.
    #[must_use]
    pub fn phase(&self, name: &str, kind: MemoryKind) -> Option<&PhaseMemory> {
        self.phases
            .iter()
            .find(|p| p.name == name && p.memory.kind == kind)
    }

    /// The step whose peak of `kind` was highest.
    #[must_use]
    pub fn peak_step(&self, kind: MemoryKind) -> Option<&StepMemory> {
        self.steps
            .iter()
            .filter(|s| s.kind == kind)
            .max_by_key(|s| (s.peak_bytes, std::cmp::Reverse(s.index)))
    }

    /// Live bytes of `kind` summed over threads, at each sample: (ns, bytes).
    #[must_use]
    pub fn live_over_run(&self, kind: MemoryKind) -> Vec<(u64, i64)> {
        let mut samples: Vec<&MemorySample> =
            self.track.iter().filter(|s| s.kind == kind).collect();
        samples.sort_by_key(|s| s.t_ns);
        let mut last: std::collections::BTreeMap<u32, i64> = std::collections::BTreeMap::new();
        let mut total = 0i64;
        samples
            .into_iter()
            .map(|s| {
                let before = last.insert(s.thread, s.live_bytes).unwrap_or(0);
                total = total.saturating_add(s.live_bytes.saturating_sub(before));
                (s.t_ns, total)
            })
            .collect()
    }

    /// Whether anything was charged.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bricks.is_empty()
            && self.layers.is_empty()
            && self.phases.is_empty()
            && self.steps.is_empty()
            && self.track.is_empty()
            && self.outside_host.allocations == 0
            && self.outside_device.allocations == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_over_run_sums_the_threads_latest_samples() {
        let sample = |t_ns, thread, live_bytes| MemorySample {
            t_ns,
            thread,
            kind: MemoryKind::Host,
            live_bytes,
        };
        let memory = MemoryProfile {
            track: vec![sample(30, 1, 50), sample(10, 1, 100), sample(20, 2, 40)],
            ..MemoryProfile::default()
        };
        assert_eq!(
            memory.live_over_run(MemoryKind::Host),
            vec![(10, 100), (20, 140), (30, 90)]
        );
        assert!(memory.live_over_run(MemoryKind::Device).is_empty());
    }

    #[test]
    fn scope_memory_is_flat_in_json_and_absent_lists_read_as_empty() {
        let used = ScopeMemory {
            kind: MemoryKind::Host,
            calls: 2,
            allocated_bytes: 300,
            allocations: 3,
            freed_bytes: 100,
            peak_bytes: 250,
            retained_bytes: 200,
            self_allocated_bytes: 100,
            self_allocations: 1,
            self_freed_bytes: 0,
        };
        let memory = MemoryProfile {
            layers: vec![LayerMemory {
                index: 3,
                direction: Direction::Backward,
                memory: used.clone(),
            }],
            phases: vec![PhaseMemory {
                name: "forward".into(),
                memory: used,
            }],
            ..MemoryProfile::default()
        };
        let json = serde_json::to_value(&memory).expect("serialises");
        assert_eq!(json["layers"][0]["direction"], "backward");
        assert_eq!(json["layers"][0]["peak_bytes"], 250);
        assert_eq!(json["phases"][0]["self_allocated_bytes"], 100);
        let back: MemoryProfile = serde_json::from_value(json).expect("reads back");
        assert_eq!(back, memory);
        assert!(!back.is_empty());
        let layer = back.layer(3, Direction::Backward, MemoryKind::Host);
        assert_eq!(layer.map(|l| l.memory.retained_bytes), Some(200));
        assert!(back.phase("forward", MemoryKind::Device).is_none());
        let old: MemoryProfile = serde_json::from_str(r#"{"bricks": []}"#).expect("1.2 memory");
        assert!(old.layers.is_empty() && old.phases.is_empty());
        let empty = serde_json::to_value(MemoryProfile::default()).expect("serialises");
        assert!(empty.get("layers").is_none(), "no scopes, no field");
    }
}
