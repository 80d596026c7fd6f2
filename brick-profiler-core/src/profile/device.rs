//! [`DeviceKernels`]: what ran on the device (kernels, copies, sets, as
//! CUPTI captured them), charged to the brick whose call launched it: device
//! time per brick (self and total), its kernels, launch-to-start gaps and
//! idle time per brick and per step, and what ran outside every brick.

use serde::{Deserialize, Serialize};

use super::layer::Direction;

/// What a device activity did, in Kineto's categories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActivityKind {
    /// A kernel (Kineto's `kernel`).
    Kernel,
    /// A memory copy (Kineto's `gpu_memcpy`).
    #[serde(rename = "gpu_memcpy")]
    Memcpy,
    /// A memory set (Kineto's `gpu_memset`).
    #[serde(rename = "gpu_memset")]
    Memset,
}

impl ActivityKind {
    /// The category Kineto writes in `trace.json`.
    pub fn kineto_category(self) -> &'static str {
        match self {
            Self::Kernel => "kernel",
            Self::Memcpy => "gpu_memcpy",
            Self::Memset => "gpu_memset",
        }
    }
}

/// Launch-to-start gaps: from entering the launch call on the host to the
/// activity's start on the device.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchGaps {
    /// Gaps measured.
    pub count: u64,
    /// Their sum (ns).
    pub total_ns: u64,
    /// The longest (ns).
    pub max_ns: u64,
    /// Activities that started before their launch call was entered (the
    /// two clocks disagree): counted here, never summed.
    #[serde(default)]
    pub before_launch: u64,
}

impl LaunchGaps {
    /// Adds the gap from `api_ns` (launch call entered) to `start_ns`.
    pub fn add(&mut self, api_ns: u64, start_ns: u64) {
        match start_ns.checked_sub(api_ns) {
            Some(gap) => {
                self.count += 1;
                self.total_ns = self.total_ns.saturating_add(gap);
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

/// One kernel (or copy, or set) name: its calls and device times.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelRow {
    /// The name as CUPTI reported it, demangled as Kineto shows it.
    pub name: String,
    /// Kernel, copy or set.
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

impl KernelRow {
    /// The mean device time per call (ns).
    pub fn mean_ns(&self) -> u64 {
        self.total_ns.checked_div(self.calls).unwrap_or(0)
    }
}

/// One brick's device side.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrickKernels {
    /// The brick's name.
    pub brick: String,
    /// Device time of the activities launched with this brick innermost (ns).
    pub self_ns: u64,
    /// Device time of the activities launched while this brick was open,
    /// its children's included, each counted once (ns).
    pub total_ns: u64,
    /// Activities launched with this brick innermost.
    pub activities: u64,
    /// Those activities by name, most device time first.
    pub kernels: Vec<KernelRow>,
    /// Their launch-to-start gaps.
    pub launch_gap: LaunchGaps,
    /// Device idle time between two consecutive activities of one device
    /// both launched with this brick innermost (ns).
    pub idle_ns: u64,
    /// How many such gaps.
    pub idle_gaps: u64,
}

/// One step's device side: how busy the devices were between the step's
/// first activity start and last activity end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepDevice {
    /// The step's index.
    pub step: u64,
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
    pub launch_gap: LaunchGaps,
}

impl StepDevice {
    /// Idle share of the span, or `None` for an empty span.
    pub fn idle_share(&self) -> Option<f64> {
        (self.span_ns > 0).then(|| self.idle_ns as f64 / self.span_ns as f64)
    }
}

/// One layer scope's device side, in one direction: the activities
/// launched while it was the innermost layer open on the launching thread.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayerKernels {
    /// The layer's index.
    pub layer: u32,
    /// Forward or backward.
    pub direction: Direction,
    /// Activities launched inside the layer.
    pub activities: u64,
    /// Their device time (ns), those outside every brick included.
    pub device_ns: u64,
    /// Device self time per innermost brick inside the layer (ns), most
    /// first (ties by name); activities outside every brick are not here.
    pub bricks: Vec<(String, u64)>,
}

/// Activities that belong to no brick: counted apart and named.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelGroup {
    /// How many activities.
    pub activities: u64,
    /// Their device time (ns).
    pub device_ns: u64,
    /// By name, most device time first.
    pub kernels: Vec<KernelRow>,
}

/// One activity as it ran, for the trace: its device span and, when its
/// launch was captured, where it was launched from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelEvent {
    /// The name, as in [`KernelRow::name`].
    pub name: String,
    /// Kernel, copy or set.
    pub kind: ActivityKind,
    /// The device ordinal.
    pub device: u32,
    /// CUPTI's stream id (one trace track per stream).
    pub stream: u32,
    /// CUPTI's correlation id of the launch call.
    pub correlation: u32,
    /// Device start, ns on the profile's timeline (since the run's start;
    /// a device timer reports it on the host clock and the snapshot moves
    /// it to the timeline).
    pub start_ns: u64,
    /// Device time (ns).
    pub dur_ns: u64,
    /// The innermost brick open at the launch, if any.
    pub brick: Option<String>,
    /// The profiler's thread that launched it, when the launch was captured.
    pub thread: Option<u32>,
    /// When the launch call was entered, on the same clock as `start_ns`.
    pub launch_ns: Option<u64>,
    /// Grid dimensions (kernels; zeros otherwise).
    pub grid: [u32; 3],
    /// Block dimensions (kernels; zeros otherwise).
    pub block: [u32; 3],
}

/// Everything the device did, tied to bricks and steps.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceKernels {
    /// Where the records came from (`cupti`).
    pub source: String,
    /// Per brick, most total device time first.
    pub bricks: Vec<BrickKernels>,
    /// Per step, in step order.
    pub steps: Vec<StepDevice>,
    /// Per layer scope and direction, in (layer, direction) order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layers: Vec<LayerKernels>,
    /// Activities launched while no brick was open on the launching thread.
    pub outside_bricks: KernelGroup,
    /// Activities whose launch call was never seen (launched before capture
    /// began, or its launch record was dropped).
    pub unknown_launch: KernelGroup,
    /// Device time of every valid activity (ns): bricks' self times,
    /// outside and unknown together.
    pub device_ns: u64,
    /// Distinct launching threads seen.
    pub threads: u64,
    /// Activities whose brick path was cut (nesting deeper than
    /// `kernel::MAX_PATH`): some bricks' totals miss them.
    pub truncated_paths: u64,
    /// Activities that ended before they started (not summed anywhere).
    pub invalid: u64,
    /// Activity buffers refused because the pool was empty.
    pub dropped_buffers: u64,
    /// Activity records CUPTI reported as dropped.
    pub dropped_records: u64,
    /// Launch records dropped because the launch queue was full, or let go
    /// past the attribution's bound: their activities show under
    /// `unknown_launch`.
    pub dropped_launches: u64,
    /// The last flush failed: records CUPTI still held are missing.
    pub unflushed: bool,
    /// Each activity as it ran, in start order, for the trace (at most
    /// [`DeviceKernels::MAX_EVENTS`]; the first ones are kept).
    #[serde(default)]
    pub events: Vec<KernelEvent>,
    /// Activities left out of `events` past the limit.
    #[serde(default)]
    pub events_omitted: u64,
}

impl DeviceKernels {
    /// The most activities [`DeviceKernels::events`] keeps.
    pub const MAX_EVENTS: usize = 200_000;

    /// The device side of brick `name`, if it launched anything.
    pub fn brick(&self, name: &str) -> Option<&BrickKernels> {
        self.bricks.iter().find(|b| b.brick == name)
    }

    /// The device side of layer `layer` in `direction`, if it launched anything.
    pub fn layer(&self, layer: u32, direction: Direction) -> Option<&LayerKernels> {
        self.layers
            .iter()
            .find(|l| l.layer == layer && l.direction == direction)
    }

    /// Activities captured and attributed (bricks' own, outside every
    /// brick and without a launch; invalid records not counted).
    pub fn activities(&self) -> u64 {
        let bricks: u64 = self.bricks.iter().map(|b| b.activities).sum();
        bricks + self.outside_bricks.activities + self.unknown_launch.activities
    }

    /// The device side of step `step`, if it launched anything.
    pub fn step(&self, step: u64) -> Option<&StepDevice> {
        self.steps.iter().find(|s| s.step == step)
    }

    /// Whether anything was lost (dropped buffers, records or launches,
    /// invalid records, a failed flush): device times are then lower bounds.
    pub fn is_partial(&self) -> bool {
        self.dropped_buffers > 0
            || self.dropped_records > 0
            || self.dropped_launches > 0
            || self.invalid > 0
            || self.unflushed
    }

    /// Lines for the report: what was lost or left outside bricks; none for
    /// a clean capture.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.dropped_buffers > 0 || self.dropped_records > 0 {
            notes.push(format!(
                "device capture lost {} activity buffer(s) and {} record(s): device times \
                 per brick are lower bounds",
                self.dropped_buffers, self.dropped_records
            ));
        }
        if self.dropped_launches > 0 {
            notes.push(format!(
                "{} launch record(s) dropped (the launch queue was full, or past the bound \
                 on launches held): their kernels are listed without a brick",
                self.dropped_launches
            ));
        }
        if self.unflushed {
            notes.push("the last device flush failed: records it still held are missing".into());
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
        if self.events_omitted > 0 {
            notes.push(format!(
                "the trace shows the first {} device activities; {} more are counted but not drawn",
                self.events.len(),
                self.events_omitted
            ));
        }
        if self.truncated_paths > 0 {
            notes.push(format!(
                "{} launch(es) nested too deep to name every open brick: some bricks' totals \
                 miss them",
                self.truncated_paths
            ));
        }
        notes
    }
}
