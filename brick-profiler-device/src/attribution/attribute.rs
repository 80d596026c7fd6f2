//! [`Attributor`]: collects launch and activity records in any order and
//! ties each activity to the bricks and step open at its launch call.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use profiler_core::Direction;
use profiler_core::kernel::brick_name;
use profiler_core::profile::{DeviceKernels, KernelEvent, StepDevice};

use super::records::{Activity, Launch};
use super::retention::Retention;
use super::summary::{BrickSums, GroupSums, LayerSums};

/// Launch and activity records gathered so far. Records may come in any
/// order and late (a buffer completed after a snapshot): each
/// [`Attributor::summarize`] reads everything received until then. What
/// it holds is bounded: activity records by its [`Retention`] (the rest
/// are folded into running sums and dropped), launch records by
/// [`Attributor::MAX_LAUNCHES`] (the oldest go first, counted).
#[derive(Debug, Default)]
pub struct Attributor {
    launches: BTreeMap<u32, Launch>,
    activities: Vec<Activity>,
    retention: Retention,
    /// Activities past the retention, attributed on arrival.
    folded: Folded,
    launches_evicted: u64,
    dropped_buffers: u64,
    dropped_records: u64,
    /// (records' clock, host clock) read together, if given.
    anchor: Option<(u64, u64)>,
}

/// An activity with its launch, when one was captured.
pub type Attributed<'a> = (&'a Activity, Option<&'a Launch>);

/// Sums while summarizing.
#[derive(Debug, Default, Clone)]
struct Sums {
    bricks: BTreeMap<u32, BrickSums>,
    steps: BTreeMap<u64, StepDevice>,
    layers: BTreeMap<(u32, Direction), LayerSums>,
    outside: GroupSums,
    unknown: GroupSums,
    truncated: u64,
}

type Valid<'a> = (&'a Activity, Option<&'a Launch>, u64);

/// Per device: (busy until, the innermost brick of the activity ending there).
type Busy = HashMap<u32, (u64, Option<u32>)>;
/// (step, device) -> (first start, merged busy so far, busy until).
type Spans = BTreeMap<(u64, u32), (u64, u64, u64)>;

/// The running sums of the activities folded on arrival.
#[derive(Debug, Default)]
struct Folded {
    sums: Sums,
    busy: Busy,
    spans: Spans,
    device_ns: u64,
    threads: BTreeSet<u32>,
    valid: u64,
    invalid: u64,
}

impl Attributor {
    /// Launch records held at most (about 100 bytes each): past them the
    /// oldest (lowest correlation id) is let go and counted with the
    /// dropped launches; a later activity of that launch shows without one.
    pub const MAX_LAUNCHES: usize = 1 << 18;

    /// An empty attributor keeping records for the trace
    /// ([`Retention::default`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty attributor holding records as `retention` says.
    pub fn with_retention(retention: Retention) -> Self {
        Self {
            retention,
            ..Self::default()
        }
    }

    /// Adds a launch record. A correlation id seen twice keeps the later
    /// record (CUPTI does not reuse ids within a process).
    pub fn launch(&mut self, launch: Launch) {
        self.launches.insert(launch.correlation, launch);
        while self.launches.len() > Self::MAX_LAUNCHES {
            self.launches.pop_first();
            self.launches_evicted += 1;
        }
    }

    /// Adds an activity record: kept while the retention allows, else
    /// attributed now and folded into the sums.
    pub fn activity(&mut self, activity: Activity) {
        if self.activities.len() < self.retention.max_records() {
            self.activities.push(activity);
        } else {
            self.fold(&activity);
        }
    }

    /// Adds the activities of one buffer, in device start order (so the
    /// ones folded on arrival see their idle gaps in order).
    pub fn activities(&mut self, mut batch: Vec<Activity>) {
        batch.sort_by_key(|a| (a.start_ns, a.end_ns));
        batch.into_iter().for_each(|a| self.activity(a));
    }

    /// Activity and launch records held now (the memory that grows with
    /// the run; the folded sums grow only with distinct bricks, kernel
    /// names and steps).
    pub fn records_held(&self) -> (usize, usize) {
        (self.activities.len(), self.launches.len())
    }

    /// Attributes one activity now and adds it to the running sums.
    fn fold(&mut self, activity: &Activity) {
        let Some(ns) = activity.duration_ns() else {
            self.folded.invalid += 1;
            return;
        };
        let launch = self.launch_of(activity).copied();
        let folded = &mut self.folded;
        folded.valid += 1;
        folded.device_ns = folded.device_ns.saturating_add(ns);
        match &launch {
            Some(launch) => {
                if let Some(thread) = launch.context.thread {
                    folded.threads.insert(thread);
                }
                charge(&mut folded.sums, activity, launch, ns);
            }
            None => folded.sums.unknown.add(activity, ns),
        }
        let valid = (activity, launch.as_ref(), ns);
        idle_step(&mut folded.sums, &mut folded.busy, valid);
        span_step(&mut folded.spans, valid);
    }

    /// Counts activity buffers dropped (the pool was empty) and records
    /// CUPTI reported as dropped.
    pub fn dropped(&mut self, buffers: u64, records: u64) {
        self.dropped_buffers += buffers;
        self.dropped_records += records;
    }

    /// Forgets every record and count so far (a profiler reset); the
    /// clock anchor stays.
    pub fn clear(&mut self) {
        *self = Self {
            anchor: self.anchor,
            retention: self.retention,
            ..Self::default()
        };
    }

    /// A reading of the records' clock (CUPTI's) and the profiler's host
    /// clock (`profiler::sync::host_now_ns`) taken together: the summary's
    /// events are placed on the host clock through the latest one. Without
    /// one, the records' clock is taken as the host clock.
    pub fn anchor(&mut self, records_ns: u64, host_ns: u64) {
        self.anchor = Some((records_ns, host_ns));
    }

    /// `records_ns` on the host clock.
    fn to_host(&self, records_ns: u64) -> u64 {
        match self.anchor {
            Some((records, host)) if records_ns >= records => {
                host.saturating_add(records_ns - records)
            }
            Some((records, host)) => host.saturating_sub(records - records_ns),
            None => records_ns,
        }
    }

    /// The launch call that made `activity`, if it was captured.
    fn launch_of(&self, activity: &Activity) -> Option<&Launch> {
        self.launches.get(&activity.correlation).or_else(|| {
            activity
                .runtime_correlation
                .and_then(|id| self.launches.get(&id))
        })
    }

    /// Each activity received, in device start order, with its launch.
    pub fn attributed(&self) -> Vec<Attributed<'_>> {
        let mut list: Vec<_> = self
            .activities
            .iter()
            .map(|a| (a, self.launch_of(a)))
            .collect();
        list.sort_by_key(|(a, _)| (a.start_ns, a.end_ns, a.device, a.stream));
        list
    }

    /// Device time per brick and step from everything received so far,
    /// bricks named by the profiler's brick table.
    pub fn summarize(&self) -> DeviceKernels {
        self.summarize_with(|slot| {
            brick_name(slot).map_or_else(|| format!("brick #{slot}"), |n| n.to_string())
        })
    }

    /// [`Attributor::summarize`] with bricks named by `name`.
    pub fn summarize_with(&self, name: impl Fn(u32) -> String) -> DeviceKernels {
        let valid: Vec<Valid<'_>> = self
            .attributed()
            .into_iter()
            .filter_map(|(a, l)| a.duration_ns().map(|ns| (a, l, ns)))
            .collect();
        let folded = &self.folded;
        let mut sums = folded.sums.clone();
        let mut threads = folded.threads.clone();
        let mut device_ns = folded.device_ns;
        for &(activity, launch, ns) in &valid {
            device_ns = device_ns.saturating_add(ns);
            match launch {
                Some(launch) => {
                    if let Some(thread) = launch.context.thread {
                        threads.insert(thread);
                    }
                    charge(&mut sums, activity, launch, ns);
                }
                None => sums.unknown.add(activity, ns),
            }
        }
        idle_between(&mut sums, &valid);
        let mut spans = Spans::new();
        for &activity in &valid {
            span_step(&mut spans, activity);
        }
        finish_spans(&mut sums, &spans);
        finish_spans(&mut sums, &folded.spans);
        let mut bricks: Vec<_> = sums
            .bricks
            .into_iter()
            .map(|(slot, brick)| brick.into_row(name(slot)))
            .collect();
        bricks.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then(a.brick.cmp(&b.brick)));
        let events = valid
            .iter()
            .take(DeviceKernels::MAX_EVENTS)
            .map(|&(activity, launch, ns)| self.event(activity, launch, ns, &name))
            .collect();
        DeviceKernels {
            source: "cupti".to_owned(),
            bricks,
            steps: sums.steps.into_values().collect(),
            layers: sums
                .layers
                .into_iter()
                .map(|(key, layer)| layer.into_row(key, &name))
                .collect(),
            outside_bricks: sums.outside.into_group(),
            unknown_launch: sums.unknown.into_group(),
            device_ns,
            threads: threads.len() as u64,
            truncated_paths: sums.truncated,
            invalid: (self.activities.len() - valid.len()) as u64 + folded.invalid,
            dropped_buffers: self.dropped_buffers,
            dropped_records: self.dropped_records,
            dropped_launches: self.launches_evicted,
            unflushed: false,
            events,
            events_omitted: valid.len().saturating_sub(DeviceKernels::MAX_EVENTS) as u64
                + folded.valid,
        }
    }

    /// One activity for the trace, its times on the host clock.
    fn event(
        &self,
        activity: &Activity,
        launch: Option<&Launch>,
        ns: u64,
        name: &impl Fn(u32) -> String,
    ) -> KernelEvent {
        KernelEvent {
            name: activity.name.clone(),
            kind: activity.kind,
            device: activity.device,
            stream: activity.stream,
            correlation: activity.correlation,
            start_ns: self.to_host(activity.start_ns),
            dur_ns: ns,
            brick: innermost(launch).map(name),
            thread: launch.and_then(|l| l.context.thread),
            launch_ns: launch.map(|l| self.to_host(l.api_ns)),
            grid: activity.grid,
            block: activity.block,
        }
    }
}

/// Charges one activity to its bricks (self to the innermost, total to
/// every distinct open brick) and its step's counts.
fn charge(sums: &mut Sums, activity: &Activity, launch: &Launch, ns: u64) {
    let path = launch.context.bricks;
    if let Some(step) = launch.context.step {
        let entry = sums.steps.entry(step).or_insert_with(|| StepDevice {
            step,
            ..StepDevice::default()
        });
        entry.activities += 1;
        entry.launch_gap.add(launch.api_ns, activity.start_ns);
    }
    if let Some(key) = launch.context.layer {
        sums.layers
            .entry(key)
            .or_default()
            .add(path.innermost(), ns);
    }
    let Some(innermost) = path.innermost() else {
        sums.outside.add(activity, ns);
        return;
    };
    if path.is_truncated() {
        sums.truncated += 1;
    }
    let brick = sums.bricks.entry(innermost).or_default();
    brick.self_ns = brick.self_ns.saturating_add(ns);
    brick.activities += 1;
    brick.kernels.add(activity, ns);
    brick.launch_gap.add(launch.api_ns, activity.start_ns);
    let ids = path.as_slice();
    for (at, &id) in ids.iter().enumerate() {
        // A recursive brick appears twice in the path: its total counts
        // the activity once.
        if !ids[..at].contains(&id) {
            let total = &mut sums.bricks.entry(id).or_default().total_ns;
            *total = total.saturating_add(ns);
        }
    }
}

/// The innermost brick of an activity's launch.
fn innermost(launch: Option<&Launch>) -> Option<u32> {
    launch.and_then(|l| l.context.bricks.innermost())
}

/// Idle gaps of each device between busy stretches: a gap whose two
/// neighbours (the activity ending last before it, the one starting first
/// after it) were launched with the same brick innermost is that brick's.
fn idle_between(sums: &mut Sums, valid: &[Valid<'_>]) {
    let mut busy = Busy::new();
    for &activity in valid {
        idle_step(sums, &mut busy, activity);
    }
}

/// [`idle_between`] for the next activity in start order.
fn idle_step(sums: &mut Sums, busy: &mut Busy, (activity, launch, _): Valid<'_>) {
    let brick = innermost(launch);
    let Some((until, last)) = busy.get_mut(&activity.device) else {
        busy.insert(activity.device, (activity.end_ns, brick));
        return;
    };
    if activity.start_ns < *until {
        if activity.end_ns > *until {
            *until = activity.end_ns;
            *last = brick;
        }
        return;
    }
    let gap = activity.start_ns - *until;
    if gap > 0
        && let (Some(before), Some(after)) = (*last, brick)
        && before == after
    {
        let entry = sums.bricks.entry(after).or_default();
        entry.idle_ns = entry.idle_ns.saturating_add(gap);
        entry.idle_gaps += 1;
    }
    *until = activity.end_ns;
    *last = brick;
}

/// Extends the step's span on the activity's device with the next activity
/// in start order.
fn span_step(spans: &mut Spans, (activity, launch, _): Valid<'_>) {
    let Some(step) = launch.and_then(|l| l.context.step) else {
        return;
    };
    let (_, merged, until) =
        spans
            .entry((step, activity.device))
            .or_insert((activity.start_ns, 0, activity.start_ns));
    // Activities come in start order: only the part past `until` is new.
    if activity.end_ns > *until {
        *merged += activity.end_ns - activity.start_ns.max(*until);
        *until = activity.end_ns;
    }
}

/// Adds each step's span, busy and idle time per device, summed over devices.
fn finish_spans(sums: &mut Sums, spans: &Spans) {
    for (&(step, _), &(first, merged, until)) in spans {
        let entry = sums.steps.entry(step).or_insert_with(|| StepDevice {
            step,
            ..StepDevice::default()
        });
        let span = until - first;
        entry.span_ns += span;
        entry.busy_ns += merged;
        entry.idle_ns += span - merged;
    }
}
