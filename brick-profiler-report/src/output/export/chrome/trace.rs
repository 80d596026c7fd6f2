//! [`ChromeTrace`]: the events of one or more profiles, per track
//! (timeline spans nested, `#[trace_op]` entries, counters, thread names,
//! warnings), printed one event per line in time order as they are
//! walked (see [`order`](super::order)).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;
use std::rc::Rc;

use profiler_core::Profile;
use profiler_core::alloc::MemoryKind;
use serde::Serialize;

use profiler_core::trace::EventKind;

use super::event::{Args, Event, ns_of_us};
use super::feeds::{CounterFeed, KernelFeed, MemoryFeed, OpsFeed, Place, ThreadFeed};
use super::kineto::{self, STREAM, STREAM_TID_BASE};
use super::order::{Feed, Merged, Ordered};
use crate::analysis::trace::nesting::nest;
use crate::output::export::run_facts::{timeline_warning, warnings};

/// Tid offset of the track that holds a thread's `#[trace_op]` entries
/// (entries without a thread go to `OPS_TID_BASE` itself).
pub(crate) const OPS_TID_BASE: u64 = 1_000_000;

/// Events of one or more profiles: metadata gathered, timed events as
/// sources walked lazily and merged in order when printed.
#[derive(Default)]
pub(crate) struct ChromeTrace<'a> {
    meta: Vec<Event<'a>>,
    /// One per thread timeline, kernel list, op track, counter track and
    /// memory kind, in the order their events break ties (see [`Merged`]).
    sources: Vec<Ordered<'a>>,
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

    fn source(&mut self, feed: impl Feed<'a> + 'a) {
        self.sources.push(Ordered::new(Box::new(feed)));
    }

    fn place(&self, pid: u32, tid: u64) -> Place {
        Place {
            pid,
            tid,
            offset: self.offset_ns,
        }
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
        let categories: HashMap<&str, &'static str> = profile
            .bricks
            .iter()
            .map(|b| (b.name.as_str(), b.category.name()))
            .collect();
        let categories = Rc::new(categories);
        let mut tids: BTreeSet<u64> = BTreeSet::new();
        // Captured kernels replace the one slice per brick a timer gives.
        let device = profile.run.device_timer
            && profile
                .device_kernels
                .as_ref()
                .is_none_or(|k| k.events.is_empty());
        for thread in &profile.timeline.threads {
            let tid = u64::from(thread.thread);
            let place = self.place(pid, tid);
            let feed = ThreadFeed::new(
                profile,
                Rc::clone(&categories),
                thread,
                (place, device, self.correlation),
            );
            self.source(feed);
            if device {
                let bricks = thread.events.iter().filter(|e| e.kind == EventKind::Brick);
                let bricks = bricks.count() as u64;
                self.correlation += bricks;
                if bricks > 0 {
                    tids.insert(kineto::stream_tid(0, STREAM));
                }
            }
            tids.insert(tid);
        }
        tids
    }

    /// Captured kernels, copies and sets on one track per device stream,
    /// each with its flow from the launching brick. Returns the tids used.
    fn add_kernels(&mut self, profile: &'a Profile, pid: u32) -> BTreeSet<u64> {
        let Some(kernels) = &profile.device_kernels else {
            return BTreeSet::new();
        };
        let tids = kernels
            .events
            .iter()
            .map(|e| kineto::stream_tid(e.device, e.stream))
            .collect();
        let feed = KernelFeed::new(kernels, (pid, self.offset_ns), self.correlation);
        self.correlation += kernels.events.len() as u64;
        self.source(feed);
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
            let nested = nest(&op_spans(profile, &indices));
            let place = self.place(pid, tid);
            self.source(OpsFeed {
                profile,
                indices,
                nested,
                with_bytes,
                thread,
                place,
                next: 0,
                seq: 0,
            });
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
            self.source(CounterFeed::new(track, (pid, self.offset_ns)));
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
            let place = self.place(pid, 0);
            self.source(MemoryFeed {
                name: format!("live {} bytes", kind.name()),
                live: memory.live_over_run(kind),
                next: 0,
                place,
            });
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

    /// The JSON text: metadata and warnings first, then timed events by ts,
    /// longer first (ties in the order the events were added, so parents
    /// stay before equal children).
    pub(crate) fn finish<T: Serialize>(self, other_data: &T) -> String {
        let mut out = Vec::new();
        // Writing into a Vec cannot fail, and JSON text is UTF-8.
        let _ = self.write_to(&mut out, other_data);
        String::from_utf8(out).unwrap_or_default()
    }

    /// [`finish`](Self::finish) into `out`, one event at a time, merged
    /// from the sources as it goes: neither the text nor the events are
    /// ever held whole. Returns the timed events written (spans, ops,
    /// counters and flows; no metadata).
    pub(crate) fn write_to<T: Serialize>(
        self,
        out: &mut dyn Write,
        other_data: &T,
    ) -> std::io::Result<usize> {
        out.write_all(b"{")?;
        if let Some(header) = &self.header {
            out.write_all(header.as_bytes())?;
        }
        out.write_all(b"\"traceEvents\":[\n")?;
        let mut first = true;
        for event in &self.meta {
            if !std::mem::take(&mut first) {
                out.write_all(b",\n")?;
            }
            serde_json::to_writer(&mut *out, event)?;
        }
        let mut timed = 0;
        for event in Merged::new(self.sources) {
            if !std::mem::take(&mut first) {
                out.write_all(b",\n")?;
            }
            serde_json::to_writer(&mut *out, &event)?;
            timed += 1;
        }
        out.write_all(b"\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":")?;
        serde_json::to_writer(&mut *out, other_data)?;
        out.write_all(b"\n}\n")?;
        Ok(timed)
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
