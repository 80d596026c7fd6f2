//! The sources of the Chrome trace's timed events, each walked lazily (a
//! [`Feed`] for [`Ordered`](super::order::Ordered)): a thread's timeline,
//! nested as it is walked (with `ProfilerStep#N` slices and device sides),
//! the captured kernels, an op track, a counter track and a memory kind.

use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;

use profiler_core::Profile;
use profiler_core::profile::{DeviceKernels, KernelEvent};
use profiler_core::trace::{CounterTrack, EventKind, ThreadTimeline, TimelineEvent};

use super::event::{Args, Event, OpArgs, SpanArgs, kind_cat, output_bytes_name, us};
use super::kineto::{self, KernelResources};
use super::order::{Feed, Timed, floors};
use crate::analysis::trace::nesting::{Nested, sorted_events};

/// Where a source's events go: process, track and time offset (ns).
#[derive(Clone, Copy)]
pub(super) struct Place {
    pub(super) pid: u32,
    pub(super) tid: u64,
    pub(super) offset: u64,
}

/// Appends events with rising `seq`.
struct Out<'o, 'a> {
    out: &'o mut Vec<Timed<'a>>,
    seq: &'o mut u64,
}

impl<'a> Out<'_, 'a> {
    fn push(&mut self, ts: u64, dur: u64, event: Event<'a>) {
        self.out.push(Timed {
            ts,
            dur,
            seq: *self.seq,
            event,
        });
        *self.seq += 1;
    }
}

/// A complete (`X`) event over `(start, end)` (offset applied).
fn complete<'a>(
    name: Cow<'a, str>,
    cat: &'static str,
    (start, end): (u64, u64),
    place: Place,
    args: Option<Args<'a>>,
) -> Event<'a> {
    Event {
        name,
        cat: Some(cat),
        ph: "X",
        ts: Some(us(start)),
        dur: Some(us(end - start)),
        pid: place.pid,
        tid: place.tid,
        args,
        ..Event::default()
    }
}

/// A counter (`C`) event at `at` (offset applied).
fn counter<'a>(
    name: Cow<'a, str>,
    cat: &'static str,
    at: u64,
    place: Place,
    args: Args<'a>,
) -> Event<'a> {
    Event {
        name,
        cat: Some(cat),
        ph: "C",
        ts: Some(us(at)),
        pid: place.pid,
        tid: place.tid,
        args: Some(args),
        ..Event::default()
    }
}

/// One thread's timeline spans, nested as they are walked (the rule of
/// [`nest`](crate::analysis::trace::nesting::nest), with only the open
/// slices' ends kept), with Kineto's step slices in a rank's trace and
/// each brick's device side when a device timer timed the bricks.
pub(super) struct ThreadFeed<'a> {
    pub(super) profile: &'a Profile,
    pub(super) categories: Rc<HashMap<&'a str, &'static str>>,
    events: Cow<'a, [TimelineEvent]>,
    /// Device starts in walk order, and their suffix minima (device only).
    starts: Vec<Option<u64>>,
    kernel_floors: Vec<u64>,
    next: usize,
    open: Vec<u64>,
    seq: u64,
    place: Place,
    ranked: bool,
    device: bool,
    /// The last correlation id given.
    correlation: u64,
}

impl<'a> ThreadFeed<'a> {
    /// The feed of `thread`; `correlation` is the last id given before it.
    pub(super) fn new(
        profile: &'a Profile,
        categories: Rc<HashMap<&'a str, &'static str>>,
        thread: &'a ThreadTimeline,
        (place, device, correlation): (Place, bool, u64),
    ) -> Self {
        let (starts, kernel_floors) = if device {
            let by_thread = kineto::device_starts_by_thread(profile);
            let starts = kineto::device_starts_in_order(&by_thread, thread);
            let floors = floors(starts.iter().map(|s| s.unwrap_or(u64::MAX)));
            (starts, floors)
        } else {
            (Vec::new(), Vec::new())
        };
        Self {
            profile,
            categories,
            events: sorted_events(&thread.events),
            starts,
            kernel_floors,
            next: 0,
            open: Vec::new(),
            seq: 0,
            place,
            ranked: profile.run.rank.is_some(),
            device,
            correlation,
        }
    }
}

impl<'a> Feed<'a> for ThreadFeed<'a> {
    fn feed(&mut self, out: &mut Vec<Timed<'a>>) -> Option<u64> {
        let item = self.next;
        let event = *self.events.get(item)?;
        self.next += 1;
        let Place { pid, tid, offset } = self.place;
        let start = event.start_ns;
        while self.open.last().is_some_and(|&end| end <= start) {
            self.open.pop();
        }
        let mut end = start.saturating_add(event.dur_ns);
        if let Some(&parent) = self.open.last() {
            end = end.min(parent);
        }
        self.open.push(end);
        let mut out = Out {
            out,
            seq: &mut self.seq,
        };
        let name = self.profile.timeline.name_of(&event);
        let mut args = SpanArgs::of(&event, name, self.categories.get(name).copied());
        let at = (start.saturating_add(offset), end.saturating_add(offset));
        if self.ranked
            && event.kind == EventKind::Step
            && let Some(step) = kineto::step_name(name)
        {
            // Produced before the step, so the equal slice encloses it.
            out.push(
                at.0,
                at.1 - at.0,
                kineto::profiler_step(step, at, (pid, tid)),
            );
        }
        if self.device && event.kind == EventKind::Brick {
            self.correlation += 1;
            args = Some(SpanArgs::correlated(args, self.correlation));
            let kernel = self.starts.get(item).copied().flatten().map(|start| {
                let start = start.saturating_add(offset);
                (start, start.saturating_add(event.dur_ns))
            });
            let sides = kineto::device_side(name, self.correlation, (at, kernel), (pid, tid));
            for (ts, dur, e) in sides {
                out.push(ts, dur, e);
            }
        }
        let args = args.map(Args::Span);
        let slice = complete(
            Cow::Borrowed(name),
            kind_cat(event.kind),
            at,
            self.place,
            args,
        );
        out.push(at.0, at.1 - at.0, slice);
        Some(match self.events.get(self.next) {
            Some(e) => {
                let kernels = self.kernel_floors.get(self.next).copied();
                e.start_ns
                    .min(kernels.unwrap_or(u64::MAX))
                    .saturating_add(offset)
            }
            None => u64::MAX,
        })
    }
}

/// Captured kernels, copies and sets, each with its flow from the
/// launching thread. `events` keeps them in start order; launches come
/// earlier, hence the suffix minima of their earliest times as bounds.
pub(super) struct KernelFeed<'a> {
    events: &'a [KernelEvent],
    resources: KernelResources<'a>,
    floors: Vec<u64>,
    next: usize,
    seq: u64,
    pid: u32,
    offset: u64,
    correlation: u64,
}

impl<'a> KernelFeed<'a> {
    /// The feed of the captured `kernels`' events; `correlation` is the
    /// last id given before them.
    pub(super) fn new(
        kernels: &'a DeviceKernels,
        (pid, offset): (u32, u64),
        correlation: u64,
    ) -> Self {
        let events = &kernels.events;
        let floors = floors(
            events
                .iter()
                .map(|e| e.start_ns.min(e.launch_ns.unwrap_or(u64::MAX))),
        );
        Self {
            events,
            resources: KernelResources::of(kernels),
            floors,
            next: 0,
            seq: 0,
            pid,
            offset,
            correlation,
        }
    }
}

impl<'a> Feed<'a> for KernelFeed<'a> {
    fn feed(&mut self, out: &mut Vec<Timed<'a>>) -> Option<u64> {
        let event = self.events.get(self.next)?;
        self.next += 1;
        self.correlation += 1;
        let mut out = Out {
            out,
            seq: &mut self.seq,
        };
        let at = (self.pid, self.offset);
        for (ts, dur, e) in kineto::captured(event, self.correlation, at, &self.resources) {
            out.push(ts, dur, e);
        }
        Some(self.floors[self.next].saturating_add(self.offset))
    }
}

/// One op track's `#[trace_op]` entries, nested (the nesting sorts them,
/// so it is computed up front), each with its output size as a counter at
/// its end when any entry has one.
pub(super) struct OpsFeed<'a> {
    pub(super) profile: &'a Profile,
    pub(super) indices: Vec<usize>,
    pub(super) nested: Vec<Nested>,
    pub(super) with_bytes: bool,
    pub(super) thread: u32,
    pub(super) place: Place,
    pub(super) next: usize,
    pub(super) seq: u64,
}

impl<'a> Feed<'a> for OpsFeed<'a> {
    fn feed(&mut self, out: &mut Vec<Timed<'a>>) -> Option<u64> {
        let n = *self.nested.get(self.next)?;
        self.next += 1;
        let offset = self.place.offset;
        let mut out = Out {
            out,
            seq: &mut self.seq,
        };
        let e = &self.profile.trace.entries[self.indices[n.item]];
        let at = (
            n.start_ns.saturating_add(offset),
            n.end_ns.saturating_add(offset),
        );
        let args = Some(Args::Op(OpArgs::of(e)));
        let name = Cow::Borrowed(e.operation.as_str());
        out.push(
            at.0,
            at.1 - at.0,
            complete(name, "op", at, self.place, args),
        );
        if self.with_bytes {
            let name = Cow::Owned(output_bytes_name(self.thread));
            let args = Args::Bytes {
                bytes: e.memory_bytes,
            };
            out.push(at.1, 0, counter(name, "memory", at.1, self.place, args));
        }
        Some(match self.nested.get(self.next) {
            Some(n) => n.start_ns.saturating_add(offset),
            None => u64::MAX,
        })
    }
}

/// A `profiler::counter` track's finite samples (`args.value`), on each
/// sample's recording thread.
pub(super) struct CounterFeed<'a> {
    track: &'a CounterTrack,
    /// Suffix minima of the times, when the samples are out of order.
    floors: Option<Vec<u64>>,
    next: usize,
    pid: u32,
    offset: u64,
}

impl<'a> CounterFeed<'a> {
    pub(super) fn new(track: &'a CounterTrack, (pid, offset): (u32, u64)) -> Self {
        let samples = &track.samples;
        let floors =
            (!samples.is_sorted_by_key(|s| s.t_ns)).then(|| floors(samples.iter().map(|s| s.t_ns)));
        Self {
            track,
            floors,
            next: 0,
            pid,
            offset,
        }
    }
}

impl<'a> Feed<'a> for CounterFeed<'a> {
    fn feed(&mut self, out: &mut Vec<Timed<'a>>) -> Option<u64> {
        let samples = &self.track.samples;
        let sample = samples.get(self.next)?;
        let seq = self.next as u64;
        self.next += 1;
        // Saved files are validated on read; a value built in memory could
        // still be NaN, which no viewer can draw.
        if sample.value.is_finite() {
            let at = sample.t_ns.saturating_add(self.offset);
            let place = Place {
                pid: self.pid,
                tid: u64::from(sample.thread),
                offset: self.offset,
            };
            let args = Args::Value {
                value: sample.value,
            };
            let name = Cow::Borrowed(self.track.name.as_str());
            let event = counter(name, "counter", at, place, args);
            out.push(Timed {
                ts: at,
                dur: 0,
                seq,
                event,
            });
        }
        let bound = match &self.floors {
            Some(floors) => floors[self.next],
            None => samples.get(self.next).map_or(u64::MAX, |s| s.t_ns),
        };
        Some(bound.saturating_add(self.offset))
    }
}

/// Live bytes of one memory kind over the run (in time order), as a
/// counter on track 0.
pub(super) struct MemoryFeed {
    pub(super) name: String,
    pub(super) live: Vec<(u64, i64)>,
    pub(super) next: usize,
    pub(super) place: Place,
}

impl<'a> Feed<'a> for MemoryFeed {
    fn feed(&mut self, out: &mut Vec<Timed<'a>>) -> Option<u64> {
        let &(t_ns, bytes) = self.live.get(self.next)?;
        let seq = self.next as u64;
        self.next += 1;
        let offset = self.place.offset;
        let at = t_ns.saturating_add(offset);
        let args = Args::Value {
            value: bytes as f64,
        };
        let event = counter(
            Cow::Owned(self.name.clone()),
            "memory",
            at,
            self.place,
            args,
        );
        out.push(Timed {
            ts: at,
            dur: 0,
            seq,
            event,
        });
        Some(
            self.live
                .get(self.next)
                .map_or(u64::MAX, |l| l.0.saturating_add(offset)),
        )
    }
}

#[cfg(test)]
mod tests {
    use std::cmp::Reverse;

    use profiler_core::trace::{CounterSample, DeviceStart, Timeline};
    use serde_json::Value;

    use super::*;
    use crate::output::export::chrome::chrome_trace_json;

    fn brick(start_ns: u64, dur_ns: u64) -> TimelineEvent {
        TimelineEvent::span(EventKind::Brick, 0, start_ns, dur_ns)
    }

    /// Device sides that start before their brick and long after the next
    /// ones, counters recorded out of order, two threads: the walk's
    /// reorder buffers still print every event by ts, longer first.
    #[test]
    fn events_come_out_in_order_when_sources_produce_them_out_of_order() {
        let mut p = Profile::empty();
        p.run.device_timer = true;
        let main = (0..50).map(|i| brick(1_000 * i, 900)).collect();
        let other = (0..20).map(|i| brick(2_500 * i + 7, 0)).collect();
        p.timeline = Timeline {
            names: vec!["MatMul".into()],
            threads: vec![
                ThreadTimeline {
                    thread: 0,
                    name: None,
                    events: main,
                },
                ThreadTimeline {
                    thread: 1,
                    name: None,
                    events: other,
                },
            ],
            dropped: 0,
            device_starts: (0..50)
                .map(|i| DeviceStart {
                    thread: 0,
                    event: i,
                    // Before the brick for even calls, far after it else.
                    start_ns: if i % 2 == 0 {
                        (1_000 * u64::from(i)).saturating_sub(300)
                    } else {
                        1_000 * u64::from(i) + 30_000
                    },
                })
                .collect(),
        };
        p.counter_tracks = vec![CounterTrack {
            name: "loss".into(),
            samples: [40_000, 500, 12_000, 500, 3]
                .into_iter()
                .map(|t_ns| CounterSample {
                    t_ns,
                    value: t_ns as f64,
                    thread: 0,
                })
                .collect(),
        }];
        let json: Value = serde_json::from_str(&chrome_trace_json(&p)).unwrap();
        let timed: Vec<(u64, u64, String)> = json["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["ph"] != "M")
            .map(|e| {
                let ns = |v: &Value| (v.as_f64().unwrap_or(0.0) * 1e3).round() as u64;
                (ns(&e["ts"]), ns(&e["dur"]), e["ph"].to_string())
            })
            .collect();
        // 70 bricks, each with its kernel and 2 flow ends; 5 samples.
        assert_eq!(timed.len(), 70 * 4 + 5);
        let keys: Vec<(u64, Reverse<u64>)> = timed.iter().map(|t| (t.0, Reverse(t.1))).collect();
        assert!(keys.is_sorted(), "out of order: {timed:?}");
        let counters: Vec<u64> = timed
            .iter()
            .filter(|t| t.2 == "\"C\"")
            .map(|t| t.0)
            .collect();
        assert_eq!(counters, [3, 500, 500, 12_000, 40_000]);
    }
}
