//! Walks a [`Profile`] and writes each event as it is reached: track
//! descriptors first (process, threads, op tracks, device stream), then
//! warnings, each thread's timeline as nested slice begins and ends (with
//! the device side of device-timed bricks and their flows), `#[trace_op]`
//! entries, and counters. The Chrome trace's tracks, names, args and
//! nesting are reused, so both formats show the same run.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::{self, Write};

use profiler_core::Profile;
use profiler_core::alloc::MemoryKind;
use profiler_core::trace::{EventKind, TimelineEvent};
use serde::Serialize;

use super::args::annotations;
use super::proto::{
    CounterDescriptor, ORDER_EXPLICIT, ProcessDescriptor, TYPE_COUNTER, TYPE_INSTANT,
    TYPE_SLICE_BEGIN, TYPE_SLICE_END, ThreadDescriptor, TrackDescriptor, TrackEvent,
    UNIT_SIZE_BYTES,
};
use super::sequence::{Interner, Packets, Sequence};
use crate::analysis::trace::nesting::{nest, sorted_events};
use crate::output::export::chrome::event::{Args, OpArgs, SpanArgs, kind_cat, output_bytes_name};
use crate::output::export::chrome::kineto::{self, STREAM};
use crate::output::export::chrome::trace::{OPS_TID_BASE, op_spans, op_tracks, thread_name};
use crate::output::export::run_facts::{timeline_warning, warnings};

/// What a track is, for its uuid.
#[derive(Clone, Copy)]
enum Role {
    Process = 1,
    Thread = 2,
    Counter = 3,
    /// The device stream of one launching thread.
    Stream = 4,
    /// A captured device stream (by its tid, `kineto::stream_tid`).
    DeviceStream = 5,
}

/// A track's uuid: unique per process, role and id (splitmix64 of the
/// three), never 0.
fn uuid(pid: u32, role: Role, id: u64) -> u64 {
    let mut z = (u64::from(pid) << 8 | role as u64)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .wrapping_add(id);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)).max(1)
}

/// A slice's begin: name, category and args on `track`.
struct Begin<'a, A> {
    track: u64,
    name: &'a str,
    cat: &'static str,
    args: Option<A>,
    flows: Vec<u64>,
    terminates: Option<u64>,
}

/// Writes `profile` to `out` as one process: descriptors, warnings, the
/// device streams, ops and counters on one sequence, each timeline thread
/// on its own.
pub(super) struct Walk<'p, W: Write> {
    profile: &'p Profile,
    out: Packets<W>,
    seq: Sequence,
    pid: u32,
    /// The process track's name.
    name: String,
    /// Added to every time (aligns merged ranks).
    offset: u64,
    process: u64,
    /// Counter tracks described so far (by their id).
    counters: u64,
    /// The timeline thread being walked: its track and sequence.
    thread: Option<(u64, Sequence)>,
    /// Whether each brick gets a device side from the timer (not when
    /// kernels were captured: they replace it, as in the Chrome trace).
    device: bool,
    /// Last correlation (flow) id given.
    correlation: u64,
    /// Captured kernels' flow ids, by launching thread: `(launch ns, id)`
    /// in launch order.
    launches: HashMap<u32, Vec<(u64, u64)>>,
    /// Flow ids bound to a launching slice (the kernel's end of the flow
    /// is written only for these).
    bound: HashSet<u64>,
}

/// Where a walk puts its profile: the process (pid, name), how much later
/// than the trace's time zero its times are (ns), its first packet
/// sequence id and the last flow id given before it. A merged trace walks
/// each rank's profile in turn, each continuing where the last one ended.
pub(super) struct Process {
    pub(super) pid: u32,
    pub(super) name: String,
    pub(super) offset: u64,
    pub(super) first_seq: u32,
    pub(super) correlation: u64,
}

impl Process {
    /// A lone profile's process: its own pid and run name, at time zero.
    pub(super) fn of(profile: &Profile) -> Self {
        let name = if profile.run.name.is_empty() {
            "process".to_owned()
        } else {
            profile.run.name.clone()
        };
        Self {
            pid: profile.run.pid,
            name,
            offset: 0,
            first_seq: 1,
            correlation: 0,
        }
    }
}

impl<'p, W: Write> Walk<'p, W> {
    pub(super) fn new(profile: &'p Profile, out: Packets<W>, process: Process) -> Self {
        let pid = process.pid;
        Self {
            profile,
            out,
            seq: Sequence::new(process.first_seq),
            pid,
            name: process.name,
            offset: process.offset,
            process: uuid(pid, Role::Process, 0),
            counters: 0,
            thread: None,
            device: profile.run.device_timer
                && profile
                    .device_kernels
                    .as_ref()
                    .is_none_or(|k| k.events.is_empty()),
            correlation: process.correlation,
            launches: HashMap::new(),
            bound: HashSet::new(),
        }
    }

    /// Writes the whole profile and returns the packets' writer, the next
    /// free sequence id and the last flow id given.
    pub(super) fn run(mut self) -> io::Result<(Packets<W>, u32, u64)> {
        self.describe_tracks()?;
        self.warnings()?;
        self.timeline()?;
        self.kernels()?;
        self.ops()?;
        self.counters()?;
        self.memory()?;
        let threads = self.profile.timeline.threads.len();
        let next = self.thread_seq(threads);
        Ok((self.out, next, self.correlation))
    }

    /// The sequence id of the `k`th timeline thread (the process's own
    /// sequence comes first).
    fn thread_seq(&self, k: usize) -> u32 {
        let first = u64::from(self.seq.id());
        u32::try_from(first + 1 + k as u64).unwrap_or(u32::MAX)
    }

    fn describe_tracks(&mut self) -> io::Result<()> {
        let profile = self.profile;
        let name = self.name.clone();
        self.seq.track(
            &mut self.out,
            TrackDescriptor {
                uuid: Some(self.process),
                process: Some(ProcessDescriptor {
                    pid: Some(self.pid as i32),
                    process_name: Some(name),
                }),
                child_ordering: Some(ORDER_EXPLICIT),
                ..TrackDescriptor::default()
            },
        )?;
        let mut tids: BTreeSet<u64> = profile
            .timeline
            .threads
            .iter()
            .map(|t| u64::from(t.thread))
            .collect();
        tids.extend(
            op_tracks(profile)
                .keys()
                .map(|&t| OPS_TID_BASE + u64::from(t)),
        );
        for tid in tids {
            let (name, sort_index) = thread_name(profile, tid);
            self.seq.track(
                &mut self.out,
                TrackDescriptor {
                    uuid: Some(uuid(self.pid, Role::Thread, tid)),
                    parent_uuid: Some(self.process),
                    thread: Some(ThreadDescriptor {
                        pid: Some(self.pid as i32),
                        tid: Some(i64::try_from(tid).unwrap_or(i64::MAX)),
                        thread_name: Some(name),
                    }),
                    sibling_order_rank: Some(i32::try_from(sort_index).unwrap_or(i32::MAX)),
                    ..TrackDescriptor::default()
                },
            )?;
        }
        // The device stream is no thread of the process: a named track per
        // launching thread, so kernels that threads launch at overlapping
        // times never mis-nest (slice ends close the track's last begin).
        if self.device {
            let stream = kineto::stream_tid(0, STREAM);
            let (name, sort_index) = thread_name(profile, stream);
            for thread in &profile.timeline.threads {
                if !thread.events.iter().any(|e| e.kind == EventKind::Brick) {
                    continue;
                }
                self.seq.track(
                    &mut self.out,
                    TrackDescriptor {
                        uuid: Some(uuid(self.pid, Role::Stream, u64::from(thread.thread))),
                        parent_uuid: Some(self.process),
                        name: Some(name.clone()),
                        sibling_order_rank: Some(i32::try_from(sort_index).unwrap_or(i32::MAX)),
                        ..TrackDescriptor::default()
                    },
                )?;
            }
        }
        self.describe_device_streams()
    }

    /// One track per captured device stream, named as the Chrome trace's
    /// (`stream S (device D)`).
    fn describe_device_streams(&mut self) -> io::Result<()> {
        let profile = self.profile;
        let Some(kernels) = &profile.device_kernels else {
            return Ok(());
        };
        let streams: BTreeSet<u64> = kernels
            .events
            .iter()
            .map(|e| kineto::stream_tid(e.device, e.stream))
            .collect();
        for tid in streams {
            let (name, sort_index) = thread_name(profile, tid);
            self.seq.track(
                &mut self.out,
                TrackDescriptor {
                    uuid: Some(uuid(self.pid, Role::DeviceStream, tid)),
                    parent_uuid: Some(self.process),
                    name: Some(name),
                    sibling_order_rank: Some(i32::try_from(sort_index).unwrap_or(i32::MAX)),
                    ..TrackDescriptor::default()
                },
            )?;
        }
        Ok(())
    }

    /// The profile's warnings, as instants on the process track at 0.
    fn warnings(&mut self) -> io::Result<()> {
        let process = self.process;
        if let Some(warning) = timeline_warning(self.profile) {
            let name = format!("warning: {warning}");
            self.event(0, process, |i| TrackEvent {
                r#type: Some(TYPE_INSTANT),
                name_iid: Some(i.name(&name)),
                category_iids: vec![i.category("warning")],
                ..TrackEvent::default()
            })?;
        }
        for (warning, count) in warnings(self.profile) {
            self.event(0, process, |i| TrackEvent {
                r#type: Some(TYPE_INSTANT),
                name_iid: Some(i.name(&warning)),
                category_iids: vec![i.category("warning")],
                debug_annotations: annotations(i, &Args::Count { count }),
                ..TrackEvent::default()
            })?;
        }
        Ok(())
    }

    /// Writes an event on `track`: on the walked thread's sequence when it
    /// is that thread's track, else on the process's.
    fn event(
        &mut self,
        ts: u64,
        track: u64,
        event: impl FnOnce(&mut Interner) -> TrackEvent,
    ) -> io::Result<()> {
        let seq = match &mut self.thread {
            Some((own, seq)) if *own == track => seq,
            _ => &mut self.seq,
        };
        seq.event(
            &mut self.out,
            (ts.saturating_add(self.offset), track),
            event,
        )
    }

    fn begin<A: Serialize>(&mut self, ts: u64, b: Begin<'_, A>) -> io::Result<()> {
        self.event(ts, b.track, |i| TrackEvent {
            r#type: Some(TYPE_SLICE_BEGIN),
            name_iid: Some(i.name(b.name)),
            category_iids: vec![i.category(b.cat)],
            debug_annotations: b.args.map(|a| annotations(i, &a)).unwrap_or_default(),
            flow_ids: b.flows,
            terminating_flow_ids: b.terminates.into_iter().collect(),
            ..TrackEvent::default()
        })
    }

    fn end(&mut self, ts: u64, track: u64) -> io::Result<()> {
        self.event(ts, track, |_| TrackEvent {
            r#type: Some(TYPE_SLICE_END),
            ..TrackEvent::default()
        })
    }

    /// Ends the open slices (innermost first) that end at or before `at`.
    fn close(&mut self, open: &mut Vec<u64>, track: u64, at: u64) -> io::Result<()> {
        while let Some(&end) = open.last().filter(|&&end| end <= at) {
            self.end(end, track)?;
            open.pop();
        }
        Ok(())
    }

    /// Each thread's events as nested slices, by the nesting rule of the
    /// Chrome trace (a child that overshoots its parent is clamped to it),
    /// computed as the walk goes: memory is the stack of open slices.
    fn timeline(&mut self) -> io::Result<()> {
        let profile = self.profile;
        let ranked = profile.run.rank.is_some();
        let device = self.device;
        self.index_launches();
        let device_starts = kineto::device_starts_by_thread(profile);
        let categories: HashMap<&str, &'static str> = profile
            .bricks
            .iter()
            .map(|b| (b.name.as_str(), b.category.name()))
            .collect();
        let mut correlation = self.correlation;
        for (k, thread) in profile.timeline.threads.iter().enumerate() {
            let track = uuid(self.pid, Role::Thread, u64::from(thread.thread));
            let id = self.thread_seq(k);
            self.thread = Some((track, Sequence::thread(id, track)));
            let stream = uuid(self.pid, Role::Stream, u64::from(thread.thread));
            let events = sorted_events(&thread.events);
            // One slot per event, so only with a device timer.
            let starts = if device {
                kineto::device_starts_in_order(&device_starts, thread)
            } else {
                Vec::new()
            };
            let mut owners = match self.launches.remove(&thread.thread) {
                Some(launches) => launch_owners(&events, &launches),
                None => HashMap::new(),
            };
            self.bound.extend(owners.values().flatten());
            let mut open: Vec<u64> = Vec::new();
            for (item, event) in events.iter().enumerate() {
                let start = event.start_ns;
                self.close(&mut open, track, start)?;
                let mut end = start.saturating_add(event.dur_ns);
                if let Some(&parent) = open.last() {
                    end = end.min(parent);
                }
                let name = profile.timeline.name_of(event);
                let category = categories.get(name).copied();
                let mut args = SpanArgs::of(event, name, category);
                if ranked
                    && event.kind == EventKind::Step
                    && let Some((step, step_name)) = kineto::step_name(name)
                {
                    let args = Some(Args::Step { step });
                    let cat = "user_annotation";
                    let (flows, terminates) = (Vec::new(), None);
                    let b = Begin {
                        track,
                        name: &step_name,
                        cat,
                        args,
                        flows,
                        terminates,
                    };
                    self.begin(start, b)?;
                    open.push(end);
                }
                let mut flow = None;
                if device && event.kind == EventKind::Brick {
                    correlation += 1;
                    args = Some(SpanArgs::correlated(args, correlation));
                    flow = Some(correlation);
                }
                let cat = kind_cat(event.kind);
                let mut flows: Vec<u64> = flow.into_iter().collect();
                flows.extend(owners.remove(&item).unwrap_or_default());
                let b = Begin {
                    track,
                    name,
                    cat,
                    args,
                    flows,
                    terminates: None,
                };
                self.begin(start, b)?;
                if let Some(id) = flow {
                    let kernel = starts
                        .get(item)
                        .copied()
                        .flatten()
                        .map(|s| (s, s.saturating_add(event.dur_ns)));
                    let ((k_start, k_end), from) = kineto::kernel_span((start, end), kernel);
                    let args = Some(kineto::kernel_args(id, from));
                    let b = Begin {
                        track: stream,
                        name,
                        cat: "kernel",
                        args,
                        flows: Vec::new(),
                        terminates: Some(id),
                    };
                    self.begin(k_start, b)?;
                    self.end(k_end, stream)?;
                }
                open.push(end);
            }
            self.close(&mut open, track, u64::MAX)?;
        }
        self.thread = None;
        self.correlation = correlation;
        Ok(())
    }

    /// Gives each captured kernel its correlation id (after the timer's,
    /// as the Chrome trace numbers them) and files those whose launch was
    /// seen under their launching thread.
    fn index_launches(&mut self) {
        let Some(kernels) = &self.profile.device_kernels else {
            return;
        };
        let base = self.correlation + self.timer_bricks();
        for (i, e) in kernels.events.iter().enumerate() {
            if let (Some(thread), Some(launch)) = (e.thread, e.launch_ns) {
                let id = base + i as u64 + 1;
                self.launches.entry(thread).or_default().push((launch, id));
            }
        }
        for launches in self.launches.values_mut() {
            launches.sort_unstable();
        }
    }

    /// Bricks that get a device side from the timer (they take correlation
    /// ids before the captured kernels).
    fn timer_bricks(&self) -> u64 {
        if !self.device {
            return 0;
        }
        let threads = self.profile.timeline.threads.iter();
        let bricks = threads.flat_map(|t| t.events.iter().filter(|e| e.kind == EventKind::Brick));
        bricks.count() as u64
    }

    /// Captured kernels, copies and sets as slices on their stream's track,
    /// with Kineto's args, each ending the flow from the slice that
    /// launched it (when its launch fell inside one).
    fn kernels(&mut self) -> io::Result<()> {
        let profile = self.profile;
        let Some(kernels) = &profile.device_kernels else {
            return Ok(());
        };
        let resources = kineto::KernelResources::of(kernels);
        for event in &kernels.events {
            self.correlation += 1;
            let id = self.correlation;
            let tid = kineto::stream_tid(event.device, event.stream);
            let track = uuid(self.pid, Role::DeviceStream, tid);
            let b = Begin {
                track,
                name: &event.name,
                cat: event.kind.kineto_category(),
                args: Some(kineto::captured_args(event, id, &resources)),
                flows: Vec::new(),
                terminates: self.bound.contains(&id).then_some(id),
            };
            self.begin(event.start_ns, b)?;
            self.end(event.start_ns.saturating_add(event.dur_ns), track)?;
        }
        Ok(())
    }

    /// `#[trace_op]` entries on their op tracks, and each op track's
    /// output sizes as a counter when any entry has one.
    fn ops(&mut self) -> io::Result<()> {
        let profile = self.profile;
        let entries = &profile.trace.entries;
        let with_bytes = entries.iter().any(|e| e.memory_bytes > 0);
        for (thread, indices) in op_tracks(profile) {
            let track = uuid(self.pid, Role::Thread, OPS_TID_BASE + u64::from(thread));
            let bytes_track = if with_bytes {
                Some(self.counter_track(&output_bytes_name(thread), Some(UNIT_SIZE_BYTES))?)
            } else {
                None
            };
            let mut open = Vec::new();
            for n in nest(&op_spans(profile, &indices)) {
                let e = &entries[indices[n.item]];
                self.close(&mut open, track, n.start_ns)?;
                let args = Some(Args::Op(OpArgs::of(e)));
                let name = e.operation.as_str();
                let b = Begin {
                    track,
                    name,
                    cat: "op",
                    args,
                    flows: Vec::new(),
                    terminates: None,
                };
                self.begin(n.start_ns, b)?;
                open.push(n.end_ns);
                if let Some(counter) = bytes_track {
                    self.value(counter, n.end_ns, e.memory_bytes as f64)?;
                }
            }
            self.close(&mut open, track, u64::MAX)?;
        }
        Ok(())
    }

    /// Describes a counter track named `name` under the process.
    fn counter_track(&mut self, name: &str, unit: Option<i32>) -> io::Result<u64> {
        self.counters += 1;
        let track = uuid(self.pid, Role::Counter, self.counters);
        self.seq.track(
            &mut self.out,
            TrackDescriptor {
                uuid: Some(track),
                parent_uuid: Some(self.process),
                name: Some(name.to_owned()),
                counter: Some(CounterDescriptor { unit }),
                ..TrackDescriptor::default()
            },
        )?;
        Ok(track)
    }

    fn value(&mut self, track: u64, ts: u64, value: f64) -> io::Result<()> {
        self.event(ts, track, |_| TrackEvent {
            r#type: Some(TYPE_COUNTER),
            double_counter_value: Some(value),
            ..TrackEvent::default()
        })
    }

    /// Every `profiler::counter` track, with its finite samples.
    fn counters(&mut self) -> io::Result<()> {
        for counter in &self.profile.counter_tracks {
            let track = self.counter_track(&counter.name, None)?;
            for sample in counter.samples.iter().filter(|s| s.value.is_finite()) {
                self.value(track, sample.t_ns, sample.value)?;
            }
        }
        Ok(())
    }

    /// Live bytes of each memory kind over the run, one counter per kind.
    fn memory(&mut self) -> io::Result<()> {
        let Some(memory) = &self.profile.memory else {
            return Ok(());
        };
        for kind in MemoryKind::ALL {
            let name = format!("live {} bytes", kind.name());
            let mut track = None;
            for (t_ns, bytes) in memory.live_over_run(kind) {
                let id = match track {
                    Some(id) => id,
                    None => *track.insert(self.counter_track(&name, Some(UNIT_SIZE_BYTES))?),
                };
                self.value(id, t_ns, bytes as f64)?;
            }
        }
        Ok(())
    }
}

/// The flow ids of `launches` (`(launch ns, id)` in launch order) by the
/// walk index of the innermost of `events` (walk order) open at each
/// launch, by the nesting rule of the walk; launches outside every slice
/// have none.
fn launch_owners(events: &[TimelineEvent], launches: &[(u64, u64)]) -> HashMap<usize, Vec<u64>> {
    let mut owners: HashMap<usize, Vec<u64>> = HashMap::new();
    let mut open: Vec<(usize, u64)> = Vec::new();
    let mut next = 0;
    for &(launch, id) in launches {
        while let Some(event) = events.get(next).filter(|e| e.start_ns <= launch) {
            while open.last().is_some_and(|&(_, end)| end <= event.start_ns) {
                open.pop();
            }
            let mut end = event.start_ns.saturating_add(event.dur_ns);
            if let Some(&(_, parent)) = open.last() {
                end = end.min(parent);
            }
            open.push((next, end));
            next += 1;
        }
        while open.last().is_some_and(|&(_, end)| end <= launch) {
            open.pop();
        }
        if let Some(&(item, _)) = open.last() {
            owners.entry(item).or_default().push(id);
        }
    }
    owners
}
