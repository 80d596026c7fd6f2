//! [`Attributor`]: collects launch and activity records in any order and
//! ties each activity to the bricks and step open at its launch call.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::records::{Activity, Launch};
use super::summary::{BrickDevice, DeviceAttribution, StepDevice};

/// Launch and activity records gathered so far. Records may come in any
/// order and late (a buffer completed after a snapshot): each
/// [`Attributor::summarize`] reads everything received until then.
#[derive(Debug, Default)]
pub struct Attributor {
    launches: HashMap<u32, Launch>,
    activities: Vec<Activity>,
    dropped_buffers: u64,
    dropped_records: u64,
}

/// An activity with its launch, when one was captured.
pub type Attributed<'a> = (&'a Activity, Option<&'a Launch>);

impl Attributor {
    /// An empty attributor.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a launch record. A correlation id seen twice keeps the later
    /// record (CUPTI does not reuse ids within a process).
    pub fn launch(&mut self, launch: Launch) {
        self.launches.insert(launch.correlation, launch);
    }

    /// Adds an activity record.
    pub fn activity(&mut self, activity: Activity) {
        self.activities.push(activity);
    }

    /// Counts activity buffers dropped (the pool was empty) and records
    /// CUPTI reported as dropped.
    pub fn dropped(&mut self, buffers: u64, records: u64) {
        self.dropped_buffers += buffers;
        self.dropped_records += records;
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

    /// The launch call that made `activity`, if it was captured.
    fn launch_of(&self, activity: &Activity) -> Option<&Launch> {
        self.launches.get(&activity.correlation).or_else(|| {
            activity
                .runtime_correlation
                .and_then(|id| self.launches.get(&id))
        })
    }

    /// Device time per brick and step from everything received so far.
    pub fn summarize(&self) -> DeviceAttribution {
        let mut out = DeviceAttribution {
            dropped_buffers: self.dropped_buffers,
            dropped_records: self.dropped_records,
            ..DeviceAttribution::default()
        };
        let mut threads = BTreeSet::new();
        let valid: Vec<_> = self
            .attributed()
            .into_iter()
            .filter_map(|(a, l)| a.duration_ns().map(|ns| (a, l, ns)))
            .collect();
        out.invalid = (self.activities.len() - valid.len()) as u64;
        for &(activity, launch, ns) in &valid {
            out.device_ns += ns;
            let Some(launch) = launch else {
                out.unknown_launch.add(activity, ns);
                continue;
            };
            threads.insert(launch.thread);
            charge(&mut out, activity, launch, ns);
        }
        out.threads = threads.len();
        idle_between(&mut out, &valid);
        step_spans(&mut out, &valid);
        out
    }
}

/// Charges one activity to its bricks (self to the innermost, total to
/// every distinct open brick) and its step's counts.
fn charge(out: &mut DeviceAttribution, activity: &Activity, launch: &Launch, ns: u64) {
    let path = launch.context.bricks;
    if let Some(step) = launch.context.step {
        let step = out.steps.entry(step).or_default();
        step.activities += 1;
        step.launch_gap.add(launch.api_ns, activity.start_ns);
    }
    let Some(innermost) = path.innermost() else {
        out.outside_bricks.add(activity, ns);
        return;
    };
    if path.is_truncated() {
        out.truncated_paths += 1;
    }
    let brick = out.bricks.entry(innermost).or_default();
    brick.self_ns += ns;
    brick.activities += 1;
    brick.kernels.add(activity, ns);
    brick.launch_gap.add(launch.api_ns, activity.start_ns);
    let ids = path.as_slice();
    for (at, &id) in ids.iter().enumerate() {
        // A recursive brick appears twice in the path: its total counts
        // the activity once.
        if !ids[..at].contains(&id) {
            out.bricks.entry(id).or_default().total_ns += ns;
        }
    }
}

type Valid<'a> = (&'a Activity, Option<&'a Launch>, u64);

/// The innermost brick of an activity's launch.
fn innermost(launch: Option<&Launch>) -> Option<u32> {
    launch.and_then(|l| l.context.bricks.innermost())
}

/// Idle gaps of each device between busy stretches: a gap whose two
/// neighbours (the activity ending last before it, the one starting first
/// after it) were launched with the same brick innermost is that brick's.
fn idle_between(out: &mut DeviceAttribution, valid: &[Valid<'_>]) {
    // (busy until, the innermost brick of the activity ending there)
    let mut busy: HashMap<u32, (u64, Option<u32>)> = HashMap::new();
    for &(activity, launch, _) in valid {
        let brick = innermost(launch);
        match busy.get_mut(&activity.device) {
            Some((until, last)) if activity.start_ns < *until => {
                if activity.end_ns > *until {
                    *until = activity.end_ns;
                    *last = brick;
                }
            }
            Some((until, last)) => {
                let gap = activity.start_ns - *until;
                if gap > 0
                    && let (Some(before), Some(after)) = (*last, brick)
                    && before == after
                {
                    let entry: &mut BrickDevice = out.bricks.entry(after).or_default();
                    entry.idle_ns += gap;
                    entry.idle_gaps += 1;
                }
                *until = activity.end_ns;
                *last = brick;
            }
            None => {
                busy.insert(activity.device, (activity.end_ns, brick));
            }
        }
    }
}

/// Each step's span, busy and idle time per device, summed over devices.
fn step_spans(out: &mut DeviceAttribution, valid: &[Valid<'_>]) {
    // (step, device) -> (first start, merged busy so far, busy until)
    let mut spans: BTreeMap<(u64, u32), (u64, u64, u64)> = BTreeMap::new();
    for &(activity, launch, _) in valid {
        let Some(step) = launch.and_then(|l| l.context.step) else {
            continue;
        };
        let key = (step, activity.device);
        let span = spans
            .entry(key)
            .or_insert((activity.start_ns, 0, activity.start_ns));
        let (_, merged, until) = span;
        // Activities come in start order: only the part past `until` is new.
        if activity.end_ns > *until {
            *merged += activity.end_ns - activity.start_ns.max(*until);
            *until = activity.end_ns;
        }
    }
    for ((step, _), (first, merged, until)) in spans {
        let entry: &mut StepDevice = out.steps.entry(step).or_default();
        let span = until - first;
        entry.span_ns += span;
        entry.busy_ns += merged;
        entry.idle_ns += span - merged;
    }
}
