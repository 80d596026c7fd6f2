//! Accumulators behind `Attributor::summarize`: per brick slot,
//! per kernel name and for the activities outside bricks, turned into the
//! profile's [`DeviceKernels`](profiler_core::profile::DeviceKernels) rows.

use std::collections::BTreeMap;

use profiler_core::Direction;
use profiler_core::profile::{
    ActivityKind, BrickKernels, KernelGroup, KernelRow, LaunchGaps, LayerKernels,
};

use super::records::Activity;

/// Kernels grouped by (kind, name).
#[derive(Debug, Default, Clone)]
pub(crate) struct Kernels {
    by_name: BTreeMap<(ActivityKind, String), KernelRow>,
}

fn keep_if_same<T: PartialEq>(kept: &mut Option<T>, seen: T) {
    if kept.as_ref().is_some_and(|k| *k != seen) {
        *kept = None;
    }
}

impl Kernels {
    pub(crate) fn add(&mut self, activity: &Activity, ns: u64) {
        let key = (activity.kind, activity.name.clone());
        let Some(row) = self.by_name.get_mut(&key) else {
            self.by_name.insert(
                key,
                KernelRow {
                    name: activity.name.clone(),
                    kind: activity.kind,
                    calls: 1,
                    total_ns: ns,
                    min_ns: ns,
                    max_ns: ns,
                    grid: Some(activity.grid),
                    block: Some(activity.block),
                    registers: Some(activity.registers),
                    shared_bytes: Some(activity.shared_bytes),
                },
            );
            return;
        };
        row.calls += 1;
        row.total_ns = row.total_ns.saturating_add(ns);
        row.min_ns = row.min_ns.min(ns);
        row.max_ns = row.max_ns.max(ns);
        keep_if_same(&mut row.grid, activity.grid);
        keep_if_same(&mut row.block, activity.block);
        keep_if_same(&mut row.registers, activity.registers);
        keep_if_same(&mut row.shared_bytes, activity.shared_bytes);
    }

    /// The rows, most device time first (ties by name).
    pub(crate) fn into_rows(self) -> Vec<KernelRow> {
        let mut rows: Vec<_> = self.by_name.into_values().collect();
        rows.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then(a.name.cmp(&b.name)));
        rows
    }
}

/// One brick slot's sums.
#[derive(Debug, Default, Clone)]
pub(crate) struct BrickSums {
    pub(crate) self_ns: u64,
    pub(crate) total_ns: u64,
    pub(crate) activities: u64,
    pub(crate) kernels: Kernels,
    pub(crate) launch_gap: LaunchGaps,
    pub(crate) idle_ns: u64,
    pub(crate) idle_gaps: u64,
}

impl BrickSums {
    pub(crate) fn into_row(self, brick: String) -> BrickKernels {
        BrickKernels {
            brick,
            self_ns: self.self_ns,
            total_ns: self.total_ns,
            activities: self.activities,
            kernels: self.kernels.into_rows(),
            launch_gap: self.launch_gap,
            idle_ns: self.idle_ns,
            idle_gaps: self.idle_gaps,
        }
    }
}

/// Activities counted apart (outside bricks, or without a launch).
#[derive(Debug, Default, Clone)]
pub(crate) struct GroupSums {
    activities: u64,
    device_ns: u64,
    kernels: Kernels,
}

impl GroupSums {
    pub(crate) fn add(&mut self, activity: &Activity, ns: u64) {
        self.activities += 1;
        self.device_ns = self.device_ns.saturating_add(ns);
        self.kernels.add(activity, ns);
    }

    pub(crate) fn into_group(self) -> KernelGroup {
        KernelGroup {
            activities: self.activities,
            device_ns: self.device_ns,
            kernels: self.kernels.into_rows(),
        }
    }
}

/// One layer scope's sums in one direction.
#[derive(Debug, Default, Clone)]
pub(crate) struct LayerSums {
    activities: u64,
    device_ns: u64,
    /// Self time per innermost brick slot.
    bricks: BTreeMap<u32, u64>,
}

impl LayerSums {
    pub(crate) fn add(&mut self, innermost: Option<u32>, ns: u64) {
        self.activities += 1;
        self.device_ns = self.device_ns.saturating_add(ns);
        if let Some(slot) = innermost {
            let entry = self.bricks.entry(slot).or_default();
            *entry = entry.saturating_add(ns);
        }
    }

    pub(crate) fn into_row(
        self,
        (layer, direction): (u32, Direction),
        name: &impl Fn(u32) -> String,
    ) -> LayerKernels {
        let mut bricks: Vec<(String, u64)> = self
            .bricks
            .into_iter()
            .map(|(slot, ns)| (name(slot), ns))
            .collect();
        bricks.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        LayerKernels {
            layer,
            direction,
            activities: self.activities,
            device_ns: self.device_ns,
            bricks,
        }
    }
}
