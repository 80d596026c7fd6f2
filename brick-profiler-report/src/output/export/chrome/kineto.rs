//! Kineto's conventions, so Holistic Trace Analysis and Perfetto read a
//! rank's trace as they read `torch.profiler`'s: the `distributedInfo`,
//! `schemaVersion` and `deviceProperties` keys before `traceEvents`, a
//! `ProfilerStep#N` `user_annotation` slice per step, and, when a device
//! timer timed the bricks, each brick's device side as a `kernel` on a
//! stream track linked to it by `correlation` and an `ac2g` flow.

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};

use profiler_core::Profile;
use profiler_core::profile::{ActivityKind, DeviceKernels, KernelEvent};
use profiler_core::trace::{ThreadTimeline, TimelineEvent};
use serde_json::json;

use super::event::{Args, Event, us};
use crate::model::chrome_trace::PRODUCER_KEY;

/// Tid of the device stream track (Kineto's default compute stream is 7).
pub(crate) const STREAM: u32 = 7;
/// Tid offset of a process's device stream tracks: the device ordinal
/// above [`STREAM_BITS`] bits, the stream below.
pub(crate) const STREAM_TID_BASE: u64 = 2_000_000;
/// Bits of a stream track's tid offset that hold the stream.
pub(crate) const STREAM_BITS: u32 = 20;

/// The track of `stream` on `device`.
pub(crate) fn stream_tid(device: u32, stream: u32) -> u64 {
    STREAM_TID_BASE
        + (u64::from(device) << STREAM_BITS)
        + u64::from(stream & ((1 << STREAM_BITS) - 1))
}

/// The device and stream of a stream track's tid offset.
pub(crate) fn stream_of(offset: u64) -> (u64, u64) {
    (offset >> STREAM_BITS, offset & ((1 << STREAM_BITS) - 1))
}

/// The top-level keys Kineto writes before `traceEvents`, each on its own
/// line and ending with a comma; `None` for a single-process run without a
/// device. `distributedInfo` comes first, written `"rank": N` with a space,
/// as the rank scan of Holistic Trace Analysis expects it.
pub(super) fn header(profile: &Profile) -> Option<String> {
    let run = &profile.run;
    let device = device_name(profile);
    if run.rank.is_none() && device.is_none() {
        return None;
    }
    let mut out = String::new();
    if let Some(rank) = run.rank {
        let world = run.world_size.unwrap_or(1);
        out.push_str(&format!(
            "\"distributedInfo\": {{\"rank\": {rank}, \"world_size\": {world}, \"backend\": \"none\"}},\n"
        ));
    }
    out.push_str("\"schemaVersion\": 1,\n");
    // Tells our own traces from torch.profiler's within a reader's sniff.
    out.push_str(&format!(
        "\"{PRODUCER_KEY}\": \"{}\",\n",
        env!("CARGO_PKG_VERSION")
    ));
    if let Some(name) = device {
        let props = json!([{ "id": 0, "name": name }]);
        out.push_str(&format!("\"deviceProperties\": {props},\n"));
    }
    Some(out)
}

/// The device the run timed on: its hardware's name, or "device 0" when
/// only a device timer is known.
fn device_name(profile: &Profile) -> Option<String> {
    match &profile.run.hardware {
        Some(h) if !h.name.is_empty() => Some(h.name.clone()),
        _ => profile.run.device_timer.then(|| "device 0".to_owned()),
    }
}

/// `ProfilerStep#N` for a step slice named `step N`.
pub(crate) fn step_name(name: &str) -> Option<(u64, String)> {
    let n: u64 = name.strip_prefix("step ")?.parse().ok()?;
    Some((n, format!("ProfilerStep#{n}")))
}

/// The `ProfilerStep#N` slice over a step, on the step's track.
pub(super) fn profiler_step<'a>(
    (step, name): (u64, String),
    (start, end): (u64, u64),
    (pid, tid): (u32, u64),
) -> Event<'a> {
    Event {
        name: Cow::Owned(name),
        cat: Some("user_annotation"),
        ph: "X",
        ts: Some(us(start)),
        dur: Some(us(end - start)),
        pid,
        tid,
        args: Some(Args::Step { step }),
        ..Event::default()
    }
}

/// What a kernel slice's start is when the timer said when the device
/// began the brick's work.
pub(super) const KERNEL_START_DEVICE: &str =
    "device clock, anchored to the host clock by the timer; the duration is the device timer's";

/// What a kernel slice's start is when the timer gave only a duration.
pub(super) const KERNEL_START: &str = "the brick's launch on the host (the timer gave no device \
     start, so queueing before the kernel ran is not shown); the duration is the device timer's";

/// Each of a thread's events' device start (ns), in the order the trace
/// walks them: by start, longer first, coarser kind first (stable, as
/// `sorted_events` orders them), so an index of the walk finds its start.
pub(crate) fn device_starts_in_order(
    starts: &BTreeMap<u32, Vec<(u32, u64)>>,
    thread: &ThreadTimeline,
) -> Vec<Option<u64>> {
    let mut by_index = vec![None; thread.events.len()];
    for &(event, start) in starts.get(&thread.thread).into_iter().flatten() {
        if let Some(slot) = by_index.get_mut(event as usize) {
            *slot = Some(start);
        }
    }
    let key = |e: &TimelineEvent| (e.start_ns, Reverse(e.dur_ns), e.kind.rank());
    if thread.events.is_sorted_by_key(key) {
        return by_index;
    }
    let mut order: Vec<usize> = (0..thread.events.len()).collect();
    order.sort_by_key(|&i| key(&thread.events[i]));
    order.into_iter().map(|i| by_index[i]).collect()
}

/// The profile's device starts by thread: `(event index, start ns)`.
pub(crate) fn device_starts_by_thread(profile: &Profile) -> BTreeMap<u32, Vec<(u32, u64)>> {
    let mut by_thread: BTreeMap<u32, Vec<(u32, u64)>> = BTreeMap::new();
    for d in &profile.timeline.device_starts {
        by_thread
            .entry(d.thread)
            .or_default()
            .push((d.event, d.start_ns));
    }
    by_thread
}

/// A brick's device side, each event with its ts and dur (ns) for sorting:
/// the kernel on the stream track, at `kernel` (its device span) when the
/// timer gave a device start, else over the brick's own span `brick`; and
/// the flow from the brick (`s` at its start on its thread) to the kernel
/// (`f` at the kernel's start).
pub(super) fn device_side<'a>(
    name: &'a str,
    correlation: u64,
    (brick, kernel): ((u64, u64), Option<(u64, u64)>),
    (pid, tid): (u32, u64),
) -> [(u64, u64, Event<'a>); 3] {
    let stream_tid = stream_tid(0, STREAM);
    let ((start, end), from) = kernel_span(brick, kernel);
    let flow = |ph: &'static str, at: u64, tid: u64, bp: Option<&'static str>| {
        let event = Event {
            name: Cow::Borrowed("ac2g"),
            cat: Some("ac2g"),
            ph,
            ts: Some(us(at)),
            pid,
            tid,
            id: Some(correlation),
            bp,
            ..Event::default()
        };
        (at, 0, event)
    };
    let kernel = Event {
        name: Cow::Borrowed(name),
        cat: Some("kernel"),
        ph: "X",
        ts: Some(us(start)),
        dur: Some(us(end - start)),
        pid,
        tid: stream_tid,
        args: Some(kernel_args(correlation, from)),
        ..Event::default()
    };
    [
        (start, end - start, kernel),
        flow("s", brick.0, tid, None),
        flow("f", start, stream_tid, Some("e")),
    ]
}

/// A kernel's span and where its start came from: its device span when the
/// timer gave a device start, else its brick's span.
pub(crate) fn kernel_span(
    brick: (u64, u64),
    kernel: Option<(u64, u64)>,
) -> ((u64, u64), &'static str) {
    match kernel {
        Some(span) => (span, KERNEL_START_DEVICE),
        None => (brick, KERNEL_START),
    }
}

/// A kernel's args, as Kineto writes them; `start` says where its start
/// came from.
pub(crate) fn kernel_args(correlation: u64, start: &'static str) -> Args<'static> {
    Args::Kernel {
        device: 0,
        stream: STREAM,
        correlation,
        external_id: correlation,
        start,
        grid: None,
        block: None,
        registers: None,
        shared_memory: None,
    }
}

/// What a captured kernel slice's start is.
pub(super) const KERNEL_START_CAPTURED: &str =
    "device clock as CUPTI recorded it, anchored to the host clock when the profile was taken";

/// Registers per thread and shared memory per block of each kernel name,
/// where every call of the name (in every brick) had the same: CUPTI's
/// records keep them per name and brick, not per activity, so a value that
/// differed between calls is withheld rather than guessed.
#[derive(Default)]
pub(crate) struct KernelResources<'a>(HashMap<&'a str, (Option<u16>, Option<u32>)>);

impl<'a> KernelResources<'a> {
    /// The resources of the kernels of `kernels`.
    pub(crate) fn of(kernels: &'a DeviceKernels) -> Self {
        let groups = kernels.bricks.iter().map(|b| &b.kernels);
        let groups = groups.chain([
            &kernels.outside_bricks.kernels,
            &kernels.unknown_launch.kernels,
        ]);
        let mut by_name: HashMap<&str, (Option<u16>, Option<u32>)> = HashMap::new();
        for row in groups.flatten().filter(|r| r.kind == ActivityKind::Kernel) {
            let seen = (row.registers, row.shared_bytes);
            by_name
                .entry(row.name.as_str())
                .and_modify(|known| {
                    known.0 = known.0.filter(|&r| Some(r) == seen.0);
                    known.1 = known.1.filter(|&s| Some(s) == seen.1);
                })
                .or_insert(seen);
        }
        Self(by_name)
    }
}

/// A captured activity's args as Kineto writes them, under correlation id
/// `id`: device, stream, the id, and a kernel's grid, block, registers and
/// shared memory (the last two from `resources`, when known).
pub(crate) fn captured_args(
    event: &KernelEvent,
    id: u64,
    resources: &KernelResources<'_>,
) -> Args<'static> {
    let kernel = event.kind == ActivityKind::Kernel;
    let shape = kernel.then_some((event.grid, event.block));
    let (registers, shared_memory) = match resources.0.get(event.name.as_str()) {
        Some(&known) if kernel => known,
        _ => (None, None),
    };
    Args::Kernel {
        device: event.device,
        stream: event.stream,
        correlation: id,
        external_id: id,
        start: KERNEL_START_CAPTURED,
        grid: shape.map(|s| s.0),
        block: shape.map(|s| s.1),
        registers,
        shared_memory,
    }
}

/// A captured activity as Kineto writes it, each event with its ts and dur
/// (ns, `offset` added) for sorting: the slice on its device stream's
/// track and, when its launch was captured, the `ac2g` flow from the
/// launching thread (inside the brick that launched it) to the slice.
pub(super) fn captured<'a>(
    event: &'a KernelEvent,
    id: u64,
    (pid, offset): (u32, u64),
    resources: &KernelResources<'_>,
) -> Vec<(u64, u64, Event<'a>)> {
    let tid = stream_tid(event.device, event.stream);
    let start = event.start_ns.saturating_add(offset);
    let slice = Event {
        name: Cow::Borrowed(&event.name),
        cat: Some(event.kind.kineto_category()),
        ph: "X",
        ts: Some(us(start)),
        dur: Some(us(event.dur_ns)),
        pid,
        tid,
        args: Some(captured_args(event, id, resources)),
        ..Event::default()
    };
    let mut out = vec![(start, event.dur_ns, slice)];
    if let (Some(thread), Some(launch)) = (event.thread, event.launch_ns) {
        let flow = |ph: &'static str, at: u64, tid: u64, bp: Option<&'static str>| Event {
            name: Cow::Borrowed("ac2g"),
            cat: Some("ac2g"),
            ph,
            ts: Some(us(at)),
            pid,
            tid,
            id: Some(id),
            bp,
            ..Event::default()
        };
        let launch = launch.saturating_add(offset);
        out.push((launch, 0, flow("s", launch, u64::from(thread), None)));
        out.push((start, 0, flow("f", start, tid, Some("e"))));
    }
    out
}
