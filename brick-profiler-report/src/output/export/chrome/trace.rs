//! [`ChromeTrace`]: the events of one or more profiles, gathered per track
//! (timeline spans nested, `#[trace_op]` entries, counters, thread names,
//! warnings), then sorted and printed one event per line.

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;

use profiler_core::Profile;
use profiler_core::alloc::MemoryKind;
use serde::Serialize;

use profiler_core::trace::EventKind;

use super::event::{Args, Event, OpArgs, SpanArgs, kind_cat, ns_of_us, us};
use super::kineto::{self, STREAM, STREAM_TID_BASE};
use crate::analysis::trace::nesting::{event_spans, nest, sorted_events};
use crate::output::export::run_facts::{timeline_warning, warnings};

/// Tid offset of the track that holds a thread's `#[trace_op]` entries
/// (entries without a thread go to `OPS_TID_BASE` itself).
pub(crate) const OPS_TID_BASE: u64 = 1_000_000;

/// Events of one or more profiles, gathered before sorting and printing.
#[derive(Default)]
pub(crate) struct ChromeTrace<'a> {
    meta: Vec<Event<'a>>,
    /// `(ts ns, dur ns, event)`; sorted by ts, then longer first, when printed.
    timed: Vec<(u64, u64, Event<'a>)>,
    /// Added to the times of the profile being added (aligns merged ranks).
    offset_ns: u64,
    /// Kineto's top-level keys, written before `traceEvents`.
    header: Option<String>,
    /// Last correlation id given to a brick's device side.
    correlation: u64,
}

impl<'a> ChromeTrace<'a> {
    fn meta(&mut self, name: &'static str, pid: u32, tid: u64, args: Args<'a>) {
        self.meta.push(Event {
            name: Cow::Borrowed(name),
            cat: None,
            ph: "M",
            ts: None,
            dur: None,
            pid,
            tid,
            args: Some(args),
            ..Event::default()
        });
    }

    fn complete_with(
        &mut self,
        name: &'a str,
        cat: &'static str,
        (start, end): (u64, u64),
        (pid, tid): (u32, u64),
        args: Option<Args<'a>>,
    ) {
        let (start, end) = (
            start.saturating_add(self.offset_ns),
            end.saturating_add(self.offset_ns),
        );
        let event = Event {
            name: Cow::Borrowed(name),
            cat: Some(cat),
            ph: "X",
            ts: Some(us(start)),
            dur: Some(us(end - start)),
            pid,
            tid,
            args,
            ..Event::default()
        };
        self.timed.push((start, end - start, event));
    }

    /// Adds a profile's events under process `pid` named `process_name`,
    /// `offset_ns` later than the trace's time zero.
    pub(crate) fn add_profile(
        &mut self,
        profile: &'a Profile,
        (pid, offset_ns): (u32, u64),
        process_name: String,
        sort_index: Option<u32>,
    ) {
        self.offset_ns = offset_ns;
        let name = Cow::Owned(process_name);
        self.meta("process_name", pid, 0, Args::Name { name });
        if let Some(index) = sort_index {
            let sort_index = u64::from(index);
            self.meta("process_sort_index", pid, 0, Args::SortIndex { sort_index });
        }
        let mut tids = self.add_timeline(profile, pid);
        tids.extend(self.add_kernels(profile, pid));
        tids.extend(self.add_ops(profile, pid));
        self.add_counters(profile, pid);
        self.add_memory(profile, pid);
        self.name_threads(profile, pid, &tids);
        self.add_warnings(profile, pid);
    }

    /// Every thread's timeline spans, nested; Kineto's step slices in a
    /// rank's trace, and device sides when a device timer gave the bricks'
    /// times. Returns the tids used.
    fn add_timeline(&mut self, profile: &'a Profile, pid: u32) -> BTreeSet<u64> {
        let category: HashMap<&str, &'static str> = profile
            .bricks
            .iter()
            .map(|b| (b.name.as_str(), b.category.name()))
            .collect();
        let mut tids: BTreeSet<u64> = BTreeSet::new();
        let ranked = profile.run.rank.is_some();
        // Captured kernels replace the one slice per brick a timer gives.
        let device = profile.run.device_timer
            && profile
                .device_kernels
                .as_ref()
                .is_none_or(|k| k.events.is_empty());
        let device_starts = kineto::device_starts_by_thread(profile);
        for thread in &profile.timeline.threads {
            let events = sorted_events(&thread.events);
            let starts = kineto::device_starts_in_order(&device_starts, thread);
            let tid = u64::from(thread.thread);
            for n in nest(&event_spans(&events)) {
                let event = events[n.item];
                let name = profile.timeline.name_of(&event);
                let mut args = SpanArgs::of(&event, name, category.get(name).copied());
                let at = (
                    n.start_ns.saturating_add(self.offset_ns),
                    n.end_ns.saturating_add(self.offset_ns),
                );
                if ranked
                    && event.kind == EventKind::Step
                    && let Some(step) = kineto::step_name(name)
                {
                    // Pushed before the step, so the equal slice encloses it.
                    let e = kineto::profiler_step(step, at, (pid, tid));
                    self.timed.push((at.0, at.1 - at.0, e));
                }
                if device && event.kind == EventKind::Brick {
                    self.correlation += 1;
                    args = Some(SpanArgs::correlated(args, self.correlation));
                    let kernel = starts.get(n.item).copied().flatten().map(|start| {
                        let start = start.saturating_add(self.offset_ns);
                        (start, start.saturating_add(event.dur_ns))
                    });
                    let spans = (at, kernel);
                    let sides = kineto::device_side(name, self.correlation, spans, (pid, tid));
                    self.timed.extend(sides);
                    tids.insert(kineto::stream_tid(0, STREAM));
                }
                self.complete_with(
                    name,
                    kind_cat(event.kind),
                    (n.start_ns, n.end_ns),
                    (pid, tid),
                    args.map(Args::Span),
                );
            }
            tids.insert(tid);
        }
        tids
    }

    /// Captured kernels, copies and sets on one track per device stream,
    /// each with its flow from the launching brick. Returns the tids used.
    fn add_kernels(&mut self, profile: &'a Profile, pid: u32) -> BTreeSet<u64> {
        let mut tids = BTreeSet::new();
        let Some(kernels) = &profile.device_kernels else {
            return tids;
        };
        for event in &kernels.events {
            self.correlation += 1;
            let sides = kineto::captured(event, self.correlation, (pid, self.offset_ns));
            tids.insert(kineto::stream_tid(event.device, event.stream));
            self.timed.extend(sides);
        }
        tids
    }

    /// The profile's warnings, as instant events at time zero.
    fn add_warnings(&mut self, profile: &Profile, pid: u32) {
        if let Some(warning) = timeline_warning(profile) {
            self.meta.push(Event {
                name: Cow::Owned(format!("warning: {warning}")),
                cat: Some("warning"),
                ph: "i",
                ts: Some(0.0),
                dur: None,
                pid,
                tid: 0,
                s: Some("p"),
                ..Event::default()
            });
        }
        for (warning, count) in warnings(profile) {
            self.meta.push(Event {
                name: Cow::Owned(warning),
                cat: Some("warning"),
                ph: "i",
                ts: Some(0.0),
                dur: None,
                pid,
                tid: 0,
                s: Some("p"),
                args: Some(Args::Count { count }),
                ..Event::default()
            });
        }
    }

    /// `#[trace_op]` entries on their per-thread op tracks, plus an
    /// `output bytes, thread N` counter per thread (each op's output size
    /// when it ends) when any entry has an output size. Entries
    /// without `start_us` (reference files) follow the previous entry on
    /// their track. Returns the tids used.
    fn add_ops(&mut self, profile: &'a Profile, pid: u32) -> BTreeSet<u64> {
        let entries = &profile.trace.entries;
        let with_bytes = entries.iter().any(|e| e.memory_bytes > 0);
        let mut tids = BTreeSet::new();
        for (thread, indices) in op_tracks(profile) {
            let tid = OPS_TID_BASE + u64::from(thread);
            for n in nest(&op_spans(profile, &indices)) {
                let e = &entries[indices[n.item]];
                let args = Args::Op(OpArgs::of(e));
                let at = (n.start_ns, n.end_ns);
                self.complete_with(&e.operation, "op", at, (pid, tid), Some(args));
                if with_bytes {
                    let at = n.end_ns.saturating_add(self.offset_ns);
                    self.timed.push((
                        at,
                        0,
                        Event {
                            name: Cow::Owned(output_bytes_name(thread)),
                            cat: Some("memory"),
                            ph: "C",
                            ts: Some(us(at)),
                            dur: None,
                            pid,
                            tid,
                            args: Some(Args::Bytes {
                                bytes: e.memory_bytes,
                            }),
                            ..Event::default()
                        },
                    ));
                }
            }
            tids.insert(tid);
        }
        tids
    }

    /// Every `profiler::counter` sample as a counter event (`ph: "C"`,
    /// `args.value`), on the recording thread's tid. Chrome and Perfetto
    /// keep counters per process and name, so one name is one track
    /// whichever thread wrote it.
    fn add_counters(&mut self, profile: &'a Profile, pid: u32) {
        for track in &profile.counter_tracks {
            for sample in &track.samples {
                // Saved files are validated on read; a value built in
                // memory could still be NaN, which no viewer can draw.
                if !sample.value.is_finite() {
                    continue;
                }
                let at = sample.t_ns.saturating_add(self.offset_ns);
                let event = Event {
                    name: Cow::Borrowed(&track.name),
                    cat: Some("counter"),
                    ph: "C",
                    ts: Some(us(at)),
                    dur: None,
                    pid,
                    tid: u64::from(sample.thread),
                    args: Some(Args::Value {
                        value: sample.value,
                    }),
                    ..Event::default()
                };
                self.timed.push((at, 0, event));
            }
        }
    }

    /// Live bytes of each memory kind, summed over threads, as one counter
    /// track per kind (`live host bytes`, `live device bytes`): the form
    /// Perfetto draws as a process counter.
    fn add_memory(&mut self, profile: &'a Profile, pid: u32) {
        let Some(memory) = &profile.memory else {
            return;
        };
        for kind in MemoryKind::ALL {
            let name = format!("live {} bytes", kind.name());
            for (t_ns, bytes) in memory.live_over_run(kind) {
                let at = t_ns.saturating_add(self.offset_ns);
                let event = Event {
                    name: Cow::Owned(name.clone()),
                    cat: Some("memory"),
                    ph: "C",
                    ts: Some(us(at)),
                    dur: None,
                    pid,
                    tid: 0,
                    s: None,
                    id: None,
                    bp: None,
                    args: Some(Args::Value {
                        value: bytes as f64,
                    }),
                };
                self.timed.push((at, 0, event));
            }
        }
    }

    fn name_threads(&mut self, profile: &'a Profile, pid: u32, tids: &BTreeSet<u64>) {
        for &tid in tids {
            let (name, sort_index) = thread_name(profile, tid);
            let name = Cow::Owned(name);
            self.meta("thread_name", pid, tid, Args::Name { name });
            self.meta(
                "thread_sort_index",
                pid,
                tid,
                Args::SortIndex { sort_index },
            );
        }
    }

    /// Writes Kineto's top-level keys for `profile` (a one-rank trace).
    pub(crate) fn kineto_header(&mut self, profile: &Profile) {
        self.header = kineto::header(profile);
    }

    /// Timed events gathered so far (spans, ops and counters; no metadata).
    pub(crate) fn timed_events(&self) -> usize {
        self.timed.len()
    }

    /// The JSON text: metadata and warnings first, then timed events by ts,
    /// longer first (stable, so parents stay before equal children).
    pub(crate) fn finish<T: Serialize>(self, other_data: &T) -> String {
        let mut out = Vec::new();
        // Writing into a Vec cannot fail, and JSON text is UTF-8.
        let _ = self.write_to(&mut out, other_data);
        String::from_utf8(out).unwrap_or_default()
    }

    /// [`finish`](Self::finish) into `out`, one event at a time: the text
    /// is never held whole (the events are, to be sorted).
    pub(crate) fn write_to<T: Serialize>(
        mut self,
        out: &mut dyn Write,
        other_data: &T,
    ) -> std::io::Result<()> {
        self.timed.sort_by_key(|(ts, dur, _)| (*ts, Reverse(*dur)));
        out.write_all(b"{")?;
        if let Some(header) = &self.header {
            out.write_all(header.as_bytes())?;
        }
        out.write_all(b"\"traceEvents\":[\n")?;
        let events = self.meta.iter().chain(self.timed.iter().map(|(_, _, e)| e));
        for (i, event) in events.enumerate() {
            if i > 0 {
                out.write_all(b",\n")?;
            }
            serde_json::to_writer(&mut *out, event)?;
        }
        out.write_all(b"\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":")?;
        serde_json::to_writer(&mut *out, other_data)?;
        out.write_all(b"\n}\n")
    }
}

/// The `#[trace_op]` entries by track: thread (0 for none) to the indices
/// of its entries, in recording order.
pub(crate) fn op_tracks(profile: &Profile) -> BTreeMap<u32, Vec<usize>> {
    let mut tracks: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, e) in profile.trace.entries.iter().enumerate() {
        tracks.entry(e.thread.unwrap_or(0)).or_default().push(i);
    }
    tracks
}

/// The spans (ns) of one op track's entries, for [`nest`]: an entry
/// without `start_us` follows the previous entry on its track.
pub(crate) fn op_spans(profile: &Profile, indices: &[usize]) -> Vec<(u64, u64, u8)> {
    let mut cursor = 0u64;
    indices
        .iter()
        .map(|&i| {
            let e = &profile.trace.entries[i];
            let start = e.start_us.map_or(cursor, ns_of_us);
            let end = start.saturating_add(ns_of_us(e.duration_us));
            cursor = end;
            (start, end, 0)
        })
        .collect()
}

/// The counter of an op track's output sizes. Counters are per process:
/// one series per thread.
pub(crate) fn output_bytes_name(thread: u32) -> String {
    format!("output bytes, thread {thread}")
}

/// A track's name and sort index: a timeline thread's (its name, or
/// `thread N`), a thread's op track (`... ops`, `trace ops` for entries
/// without a thread) or the device stream's.
pub(crate) fn thread_name(profile: &Profile, tid: u64) -> (String, u64) {
    if let Some(offset) = tid.checked_sub(STREAM_TID_BASE) {
        let (device, stream) = kineto::stream_of(offset);
        return (format!("stream {stream} (device {device})"), tid);
    }
    let (thread, ops) = match tid.checked_sub(OPS_TID_BASE) {
        Some(t) => (t, true),
        None => (tid, false),
    };
    let known = profile
        .threads
        .iter()
        .find(|t| u64::from(t.thread) == thread)
        .and_then(|t| t.name.as_deref())
        .or_else(|| {
            let t = profile.timeline.threads.iter();
            t.filter(|t| u64::from(t.thread) == thread)
                .find_map(|t| t.name.as_deref())
        });
    let base = match known {
        Some(n) => format!("{n} (thread {thread})"),
        None if ops && thread == 0 => "trace ops".to_owned(),
        None => format!("thread {thread}"),
    };
    let name = if ops && thread > 0 {
        format!("{base} ops")
    } else {
        base
    };
    (name, 2 * thread + u64::from(ops))
}
