//! The scorecard's layers and ops on device time, when the profile captured
//! kernels: a layer's time is the device time launched inside its scope, a
//! brick's op time its self device time; bricks and layers that launched
//! nothing keep host time and are named in the [`TimeBase`]; activities
//! outside every brick, or without a captured launch, are their own ops.

use std::collections::{BTreeMap, BTreeSet};

use profiler_core::profile::{ActivityKind, DeviceKernels, KernelGroup, KernelRow};
use profiler_core::{Direction, Profile};

use super::time_base::{TimeBase, TimeSource, layer_label};
use crate::model::step::PerLayerData;

/// Layers, ops outside layers and the time base, on device time.
pub(crate) struct DeviceTimes {
    pub(crate) layers: Vec<PerLayerData>,
    pub(crate) ops: BTreeMap<String, f64>,
    pub(crate) base: TimeBase,
    /// The devices' busy time inside steps (ns, over the run), when steps
    /// launched anything.
    pub(crate) busy_ns: Option<u64>,
}

/// Host time of one layer scope in one direction, and its bricks' times.
#[derive(Default)]
struct HostLayer<'a> {
    total_ns: u64,
    ops: Vec<(&'a str, u64)>,
}

/// The device-time view of `profile`, or `None` when it captured no device
/// activity (the scorecard then stays on host time). `ms` turns a run
/// total into ms per step.
pub(crate) fn device_times(profile: &Profile, ms: &impl Fn(u64) -> f64) -> Option<DeviceTimes> {
    let device = profile
        .device_kernels
        .as_ref()
        .filter(|d| d.activities() > 0)?;
    let on_device: BTreeSet<&str> = device.bricks.iter().map(|b| b.brick.as_str()).collect();
    let host_bricks: BTreeSet<&str> = profile
        .bricks
        .iter()
        .map(|b| b.name.as_str())
        .filter(|name| !on_device.contains(name))
        .collect();

    let mut host: BTreeMap<(u32, Direction), HostLayer<'_>> = BTreeMap::new();
    for stats in &profile.layers {
        let entry = host.entry((stats.index, stats.direction)).or_default();
        entry.total_ns = entry.total_ns.saturating_add(stats.total_ns());
        entry
            .ops
            .extend(stats.ops.iter().map(|o| (o.name.as_str(), o.total_ns)));
    }
    let keys: BTreeSet<(u32, Direction)> = host
        .keys()
        .copied()
        .chain(device.layers.iter().map(|l| (l.layer, l.direction)))
        .collect();

    let mut layers: BTreeMap<u32, PerLayerData> = BTreeMap::new();
    let mut host_layers = Vec::new();
    // Each device brick's self time inside layers, to leave the rest outside.
    let mut in_layers: BTreeMap<&str, u64> = BTreeMap::new();
    let empty = HostLayer::default();
    for (index, direction) in keys {
        let entry = layers.entry(index).or_insert_with(|| PerLayerData {
            layer: index as usize,
            ..PerLayerData::default()
        });
        let host_layer = host.get(&(index, direction)).unwrap_or(&empty);
        let (time_ns, ops): (u64, Vec<(&str, u64)>) = match device.layer(index, direction) {
            Some(d) => {
                for (brick, ns) in &d.bricks {
                    let sum = in_layers.entry(brick.as_str()).or_default();
                    *sum = sum.saturating_add(*ns);
                }
                let host_ops = host_layer
                    .ops
                    .iter()
                    .filter(|(name, _)| host_bricks.contains(name))
                    .copied();
                let device_ops = d.bricks.iter().map(|(n, ns)| (n.as_str(), *ns));
                (d.device_ns, device_ops.chain(host_ops).collect())
            }
            None => {
                host_layers.push(layer_label(index as usize, direction.short_name()));
                (host_layer.total_ns, host_layer.ops.clone())
            }
        };
        match direction {
            Direction::Forward => entry.fwd_ms += ms(time_ns),
            Direction::Backward => entry.bwd_ms += ms(time_ns),
        }
        for (name, ns) in ops {
            *entry.ops.entry(name.to_owned()).or_default() += ms(ns);
        }
    }

    let mut ops = BTreeMap::new();
    for b in &device.bricks {
        let outside = b
            .self_ns
            .saturating_sub(in_layers.get(b.brick.as_str()).copied().unwrap_or(0));
        if outside > 0 {
            ops.insert(b.brick.clone(), ms(outside));
        }
    }
    let mut host_in_layers: BTreeMap<&str, u64> = BTreeMap::new();
    for op in profile.layers.iter().flat_map(|l| &l.ops) {
        *host_in_layers.entry(op.name.as_str()).or_default() += op.total_ns;
    }
    for b in profile
        .bricks
        .iter()
        .filter(|b| host_bricks.contains(b.name.as_str()))
    {
        let outside = b
            .total_ns
            .saturating_sub(host_in_layers.get(b.name.as_str()).copied().unwrap_or(0));
        if outside > 0 {
            ops.insert(b.name.clone(), ms(outside));
        }
    }
    for (label, group) in [
        (TimeBase::OUTSIDE_BRICKS, &device.outside_bricks),
        (TimeBase::UNKNOWN_LAUNCH, &device.unknown_launch),
    ] {
        if group.device_ns > 0 {
            ops.insert(label.to_owned(), ms(group.device_ns));
        }
    }

    let (kernels, copies) = counts(device);
    let busy_ns: u64 = device.steps.iter().map(|s| s.busy_ns).sum();
    Some(DeviceTimes {
        layers: layers.into_values().collect(),
        ops,
        base: TimeBase {
            source: TimeSource::Device,
            kernels,
            copies,
            host_bricks: host_bricks.into_iter().map(str::to_owned).collect(),
            host_layers,
            partial: device.is_partial(),
        },
        busy_ns: (busy_ns > 0).then_some(busy_ns),
    })
}

/// Kernels, and copies plus sets, over every brick and group.
fn counts(device: &DeviceKernels) -> (u64, u64) {
    let groups: [&KernelGroup; 2] = [&device.outside_bricks, &device.unknown_launch];
    let rows = device
        .bricks
        .iter()
        .flat_map(|b| &b.kernels)
        .chain(groups.into_iter().flat_map(|g| &g.kernels));
    rows.fold((0, 0), |(kernels, copies), row: &KernelRow| {
        if row.kind == ActivityKind::Kernel {
            (kernels + row.calls, copies)
        } else {
            (kernels, copies + row.calls)
        }
    })
}
