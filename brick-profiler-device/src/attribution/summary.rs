//! What the attribution produces: device time per brick (self and total),
//! its kernels, launch-to-start gaps and idle time, per step, outside every
//! brick, and what was lost on the way.

use std::collections::BTreeMap;

use profiler_core::kernel::MAX_PATH;

use super::records::{Activity, ActivityKind};

/// Launch-to-start gaps: from entering the launch call on the host to the
/// activity's start on the device.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GapStats {
    /// Gaps measured.
    pub count: u64,
    /// Their sum (ns).
    pub total_ns: u64,
    /// The longest (ns).
    pub max_ns: u64,
    /// Activities that started before their launch call was entered (the
    /// two clocks disagree): counted here, never summed.
    pub before_launch: u64,
}

impl GapStats {
    pub(crate) fn add(&mut self, api_ns: u64, start_ns: u64) {
        match start_ns.checked_sub(api_ns) {
            Some(gap) => {
                self.count += 1;
                self.total_ns += gap;
                self.max_ns = self.max_ns.max(gap);
            }
            None => self.before_launch += 1,
        }
    }

    /// The mean gap (ns), or `None` when none was measured.
    pub fn mean_ns(&self) -> Option<u64> {
        self.total_ns.checked_div(self.count)
    }
}

/// One kernel (or copy, or set) name under a brick: its calls and times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelStats {
    /// The name as CUPTI reported it.
    pub name: String,
    /// Kernel, memcpy or memset.
    pub kind: ActivityKind,
    /// Activities of this name.
    pub calls: u64,
    /// Their device time (ns).
    pub total_ns: u64,
    /// The shortest (ns).
    pub min_ns: u64,
    /// The longest (ns).
    pub max_ns: u64,
    /// The grid every call had, or `None` when calls differed.
    pub grid: Option<[u32; 3]>,
    /// The block every call had, or `None` when calls differed.
    pub block: Option<[u32; 3]>,
    /// Registers per thread every call had, or `None` when calls differed.
    pub registers: Option<u16>,
    /// Shared memory per block every call had, or `None` when calls differed.
    pub shared_bytes: Option<u32>,
}

impl KernelStats {
    fn first(activity: &Activity, ns: u64) -> Self {
        Self {
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
        }
    }

    fn add(&mut self, activity: &Activity, ns: u64) {
        self.calls += 1;
        self.total_ns += ns;
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
        keep_if_same(&mut self.grid, activity.grid);
        keep_if_same(&mut self.block, activity.block);
        keep_if_same(&mut self.registers, activity.registers);
        keep_if_same(&mut self.shared_bytes, activity.shared_bytes);
    }

    /// The mean device time per call (ns).
    pub fn mean_ns(&self) -> u64 {
        self.total_ns.checked_div(self.calls).unwrap_or(0)
    }
}

fn keep_if_same<T: PartialEq>(kept: &mut Option<T>, seen: T) {
    if kept.as_ref().is_some_and(|k| *k != seen) {
        *kept = None;
    }
}

/// Kernels grouped by (kind, name), heaviest first once finished.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelList {
    by_name: BTreeMap<(ActivityKind, String), KernelStats>,
}

impl KernelList {
    pub(crate) fn add(&mut self, activity: &Activity, ns: u64) {
        match self
            .by_name
            .get_mut(&(activity.kind, activity.name.clone()))
        {
            Some(stats) => stats.add(activity, ns),
            None => {
                self.by_name.insert(
                    (activity.kind, activity.name.clone()),
                    KernelStats::first(activity, ns),
                );
            }
        }
    }

    /// The kernels, most device time first (ties by name).
    pub fn heaviest_first(&self) -> Vec<&KernelStats> {
        let mut list: Vec<_> = self.by_name.values().collect();
        list.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then(a.name.cmp(&b.name)));
        list
    }

    /// The stats of one name, if it ran.
    pub fn get(&self, kind: ActivityKind, name: &str) -> Option<&KernelStats> {
        self.by_name.get(&(kind, name.to_owned()))
    }

    /// How many distinct names ran.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// Whether nothing ran.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }
}

/// One brick's device side.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BrickDevice {
    /// Device time of the activities launched with this brick innermost (ns).
    pub self_ns: u64,
    /// Device time of the activities launched while this brick was open,
    /// its children's included, each counted once (ns).
    pub total_ns: u64,
    /// Activities launched with this brick innermost.
    pub activities: u64,
    /// Those activities by name.
    pub kernels: KernelList,
    /// Their launch-to-start gaps.
    pub launch_gap: GapStats,
    /// Device idle time between two consecutive activities of the device
    /// both launched with this brick innermost (ns).
    pub idle_ns: u64,
    /// How many such gaps.
    pub idle_gaps: u64,
}

/// One step's device side: how busy each device was between the step's
/// first activity start and last activity end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StepDevice {
    /// Activities launched in the step.
    pub activities: u64,
    /// From first start to last end, summed over devices (ns).
    pub span_ns: u64,
    /// Time at least one of the step's activities ran, summed over devices
    /// (overlapping streams counted once) (ns).
    pub busy_ns: u64,
    /// `span_ns - busy_ns`: the device sat idle inside the step (ns).
    pub idle_ns: u64,
    /// Launch-to-start gaps of the step's activities.
    pub launch_gap: GapStats,
}

impl StepDevice {
    /// Idle share of the span, or `None` for an empty span.
    pub fn idle_share(&self) -> Option<f64> {
        (self.span_ns > 0).then(|| self.idle_ns as f64 / self.span_ns as f64)
    }
}

/// Activities that belong to no brick: counted apart and named.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unattributed {
    /// How many activities.
    pub activities: u64,
    /// Their device time (ns).
    pub device_ns: u64,
    /// By name.
    pub kernels: KernelList,
}

impl Unattributed {
    pub(crate) fn add(&mut self, activity: &Activity, ns: u64) {
        self.activities += 1;
        self.device_ns += ns;
        self.kernels.add(activity, ns);
    }
}

/// Everything the device did, tied to bricks and steps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceAttribution {
    /// Per brick id (the core's brick slot).
    pub bricks: BTreeMap<u32, BrickDevice>,
    /// Per step index.
    pub steps: BTreeMap<u64, StepDevice>,
    /// Activities launched while no brick was open on the launching thread.
    pub outside_bricks: Unattributed,
    /// Activities whose launch call was never seen (launched before capture
    /// began, or its launch record was lost).
    pub unknown_launch: Unattributed,
    /// Activities whose brick path was cut at [`MAX_PATH`]: outer
    /// bricks' totals miss them.
    pub truncated_paths: u64,
    /// Activities that ended before they started (not summed anywhere).
    pub invalid: u64,
    /// Activity buffers dropped because the pool was empty.
    pub dropped_buffers: u64,
    /// Activity records CUPTI reported as dropped.
    pub dropped_records: u64,
    /// Launch records dropped because the launch queue was full: their
    /// activities show under `unknown_launch`.
    pub dropped_launches: u64,
    /// The last flush failed: records CUPTI still held are missing.
    pub unflushed: bool,
    /// Distinct launching threads seen.
    pub threads: usize,
    /// Device time of every valid activity (ns): bricks' self times,
    /// outside and unknown together.
    pub device_ns: u64,
}

impl DeviceAttribution {
    /// Whether anything was lost (dropped buffers or records, invalid
    /// records): device times are then lower bounds.
    pub fn is_partial(&self) -> bool {
        self.dropped_buffers > 0
            || self.dropped_records > 0
            || self.dropped_launches > 0
            || self.invalid > 0
            || self.unflushed
    }

    /// Profile notes: what was lost or left outside bricks, none when clean.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.dropped_buffers > 0 || self.dropped_records > 0 {
            notes.push(format!(
                "CUPTI capture lost {} activity buffer(s) and {} record(s): device times \
                 per brick are lower bounds",
                self.dropped_buffers, self.dropped_records
            ));
        }
        if self.dropped_launches > 0 {
            notes.push(format!(
                "{} launch record(s) dropped (the launch queue was full): their kernels are \
                 listed without a brick",
                self.dropped_launches
            ));
        }
        if self.unflushed {
            notes.push("the last CUPTI flush failed: records it still held are missing".into());
        }
        if self.invalid > 0 {
            notes.push(format!(
                "{} activity record(s) ended before they started and were left out",
                self.invalid
            ));
        }
        if self.outside_bricks.activities > 0 {
            notes.push(format!(
                "{} device activit(ies) launched outside every brick ({} ns), listed apart",
                self.outside_bricks.activities, self.outside_bricks.device_ns
            ));
        }
        if self.unknown_launch.activities > 0 {
            notes.push(format!(
                "{} device activit(ies) without a captured launch ({} ns), listed apart",
                self.unknown_launch.activities, self.unknown_launch.device_ns
            ));
        }
        if self.truncated_paths > 0 {
            notes.push(format!(
                "{} launch(es) nested deeper than {} bricks: the outermost bricks' totals \
                 miss them",
                self.truncated_paths, MAX_PATH
            ));
        }
        notes
    }
}
