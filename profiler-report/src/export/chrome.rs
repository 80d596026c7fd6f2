//! Chrome Trace Event JSON (the JSON Object Format) from a [`Profile`]:
//! opens in Perfetto (ui.perfetto.dev) and chrome://tracing.
//!
//! Events of one or more profiles are gathered in a [`ChromeTrace`], nested
//! per track with the rule of [`nesting`](crate::trace::nesting), then sorted and
//! printed one event per line (diffable golden files).

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use profiler_core::{Profile, trace::EventKind};
use serde::Serialize;

use super::run_facts::{EXPORTER, RunFacts, timeline_warning, warnings};
use crate::error::ExportError;
use crate::trace::nesting::{event_spans, nest, sorted_events};
use crate::write::write_text;

/// Tid offset of the track that holds a thread's `#[trace_op]` entries
/// (entries without a thread go to `OPS_TID_BASE` itself).
pub(crate) const OPS_TID_BASE: u64 = 1_000_000;

/// A Chrome trace of one profile, as JSON text (the JSON Object Format:
/// `{"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}`).
///
/// - pid = the profile's process id, named after the run (`process_name`);
///   tid = the dense thread number (`thread_name`: its name, or `thread N`).
/// - Timeline events are complete `X` events, `cat` = `step`, `phase`,
///   `layer` or `brick`; `#[trace_op]` entries are `X` events with `cat` =
///   `op` and their step, device and shapes in `args`, on the thread's
///   companion track tid `1_000_000 + thread` (`... ops`). Entries without
///   `start_us` follow the previous entry on their track.
/// - Counters `output bytes, thread N` (`args.bytes`; counters are per
///   process, hence one series per thread) give each op's output size at its
///   end, when any op has one.
/// - `ts`/`dur` are µs with ns precision.
/// - Nesting, per track: events are ordered by start, then longer first,
///   then coarser kind (step, phase, layer, brick); an event that starts
///   before the innermost open event ends is its child, and a child that
///   ends after its parent (rounding, or clock mismatch) is clamped to the
///   parent's end. Events are written by ts, longer first.
/// - Lost records (dropped timeline events and `#[trace_op]` entries, ...)
///   are in `otherData` with the run facts and, when non-zero, appear as
///   process-scoped instant events (`ph: "i"`) at ts 0.
/// - A profile without timeline events (recorded without trace mode) still
///   gives a valid trace, never a silently empty one: a warning instant
///   event at ts 0 (`cat: "warning"`) and `otherData.warnings` say that
///   trace mode was off and how to turn it on; [`write_chrome_trace`]
///   returns the same warning.
///
/// ```
/// let mut profile = profiler_core::Profile::empty();
/// profile.run.name = "demo".into();
/// let json: serde_json::Value =
///     serde_json::from_str(&profiler_report::chrome_trace_json(&profile)).unwrap();
/// assert_eq!(json["traceEvents"][0]["args"]["name"], "demo");
/// assert_eq!(json["displayTimeUnit"], "ns");
/// ```
#[must_use]
pub fn chrome_trace_json(profile: &Profile) -> String {
    render(profile).0
}

/// The trace's JSON and its number of timed events.
fn render(profile: &Profile) -> (String, usize) {
    let mut trace = ChromeTrace::default();
    let name = if profile.run.name.is_empty() {
        "process".to_owned()
    } else {
        profile.run.name.clone()
    };
    trace.add_profile(profile, (profile.run.pid, 0), name, None);
    let events = trace.timed.len();
    let json = trace.finish(&SingleOther {
        exporter: EXPORTER,
        facts: RunFacts::of(profile, None),
    });
    (json, events)
}

/// What [`write_chrome_trace`] wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChromeTraceSummary {
    /// Timed events written (spans, ops and counters; no metadata).
    pub events: usize,
    /// What the trace lacks, e.g. "no timeline events: trace mode was
    /// off, ..."; the same text is in the file. Worth printing.
    pub warnings: Vec<String>,
}

/// Writes [`chrome_trace_json`] to `path` atomically, and says what it
/// wrote: a profile recorded without trace mode gives a trace with no
/// steps, phases, layers or bricks, and the returned warnings (and the
/// file's own warning event) say so rather than leaving a silently empty
/// file.
///
/// ```no_run
/// let written = profiler_report::write_chrome_trace(&profiler_core::snapshot(), "trace.json")?;
/// for warning in &written.warnings {
///     eprintln!("trace.json: {warning}");
/// }
/// # Ok::<(), profiler_report::ExportError>(())
/// ```
///
/// # Errors
/// [`ExportError::Write`] naming the path.
pub fn write_chrome_trace(
    profile: &Profile,
    path: impl AsRef<Path>,
) -> Result<ChromeTraceSummary, ExportError> {
    let (json, events) = render(profile);
    write_text(path.as_ref(), &json)?;
    Ok(ChromeTraceSummary {
        events,
        warnings: timeline_warning(profile).into_iter().collect(),
    })
}

/// Events of one or more profiles, gathered before sorting and printing.
#[derive(Default)]
pub(crate) struct ChromeTrace<'a> {
    meta: Vec<Event<'a>>,
    /// `(ts ns, dur ns, event)`; sorted by ts, then longer first, when printed.
    timed: Vec<(u64, u64, Event<'a>)>,
    /// Added to the times of the profile being added (aligns merged ranks).
    offset_ns: u64,
}

#[derive(Serialize)]
struct SingleOther<'a> {
    exporter: &'static str,
    #[serde(flatten)]
    facts: RunFacts<'a>,
}

#[derive(Serialize)]
struct Event<'a> {
    name: Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cat: Option<&'static str>,
    ph: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ts: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    pid: u32,
    tid: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<Args<'a>>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum Args<'a> {
    Name { name: Cow<'a, str> },
    SortIndex { sort_index: u64 },
    Bytes { bytes: usize },
    Count { count: u64 },
    Op(OpArgs<'a>),
}

#[derive(Serialize)]
struct OpArgs<'a> {
    step: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    device: Option<&'a str>,
    input_shapes: &'a [Vec<usize>],
    output_shape: &'a [usize],
    output_elements: usize,
    memory_bytes: usize,
}

fn us(ns: u64) -> f64 {
    ns as f64 / 1e3
}

/// µs to ns; negative, NaN and infinite times become 0.
fn ns_of_us(us: f64) -> u64 {
    if us.is_finite() && us > 0.0 {
        (us * 1e3).round() as u64
    } else {
        0
    }
}

fn kind_cat(kind: EventKind) -> &'static str {
    match kind {
        EventKind::Step => "step",
        EventKind::Phase => "phase",
        EventKind::Layer => "layer",
        EventKind::Brick => "brick",
    }
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
            s: None,
            args: Some(args),
        });
    }

    fn complete(&mut self, name: &'a str, cat: &'static str, at: (u64, u64), ids: (u32, u64)) {
        self.complete_with(name, cat, at, ids, None);
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
            s: None,
            args,
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
        let mut tids: BTreeSet<u64> = BTreeSet::new();
        for thread in &profile.timeline.threads {
            let events = sorted_events(&thread.events);
            let tid = u64::from(thread.thread);
            for n in nest(&event_spans(&events)) {
                let event = events[n.item];
                let name = profile.timeline.name_of(&event);
                self.complete(
                    name,
                    kind_cat(event.kind),
                    (n.start_ns, n.end_ns),
                    (pid, tid),
                );
            }
            tids.insert(tid);
        }
        tids.extend(self.add_ops(profile, pid));
        self.name_threads(profile, pid, &tids);
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
                args: None,
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
        let mut tracks: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (i, e) in entries.iter().enumerate() {
            tracks.entry(e.thread.unwrap_or(0)).or_default().push(i);
        }
        let mut tids = BTreeSet::new();
        for (thread, indices) in tracks {
            let tid = OPS_TID_BASE + u64::from(thread);
            let mut cursor = 0u64;
            let spans: Vec<(u64, u64, u8)> = indices
                .iter()
                .map(|&i| {
                    let e = &entries[i];
                    let start = e.start_us.map_or(cursor, ns_of_us);
                    let end = start.saturating_add(ns_of_us(e.duration_us));
                    cursor = end;
                    (start, end, 0)
                })
                .collect();
            for n in nest(&spans) {
                let e = &entries[indices[n.item]];
                let args = Args::Op(OpArgs {
                    step: e.step,
                    device: e.device_id.as_deref(),
                    input_shapes: &e.input_shapes,
                    output_shape: &e.output_shape,
                    output_elements: e.output_elements,
                    memory_bytes: e.memory_bytes,
                });
                let at = (n.start_ns, n.end_ns);
                self.complete_with(&e.operation, "op", at, (pid, tid), Some(args));
                if with_bytes {
                    let at = n.end_ns.saturating_add(self.offset_ns);
                    self.timed.push((
                        at,
                        0,
                        Event {
                            // Counters are per process: one series per thread.
                            name: Cow::Owned(format!("output bytes, thread {thread}")),
                            cat: Some("memory"),
                            ph: "C",
                            ts: Some(us(at)),
                            dur: None,
                            pid,
                            tid,
                            s: None,
                            args: Some(Args::Bytes {
                                bytes: e.memory_bytes,
                            }),
                        },
                    ));
                }
            }
            tids.insert(tid);
        }
        tids
    }

    fn name_threads(&mut self, profile: &'a Profile, pid: u32, tids: &BTreeSet<u64>) {
        for &tid in tids {
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
            self.meta(
                "thread_name",
                pid,
                tid,
                Args::Name {
                    name: Cow::Owned(name),
                },
            );
            let sort_index = 2 * thread + u64::from(ops);
            self.meta(
                "thread_sort_index",
                pid,
                tid,
                Args::SortIndex { sort_index },
            );
        }
    }

    /// The JSON text: metadata and warnings first, then timed events by ts,
    /// longer first (stable, so parents stay before equal children).
    pub(crate) fn finish<T: Serialize>(mut self, other_data: &T) -> String {
        self.timed.sort_by_key(|(ts, dur, _)| (*ts, Reverse(*dur)));
        let mut out = String::from("{\"traceEvents\":[\n");
        let events = self.meta.iter().chain(self.timed.iter().map(|(_, _, e)| e));
        for (i, event) in events.enumerate() {
            if i > 0 {
                out.push_str(",\n");
            }
            out.push_str(&to_json(event));
        }
        out.push_str("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":");
        out.push_str(&to_json(other_data));
        out.push_str("\n}\n");
        out
    }
}

/// Serialises our own event types: only strings, integers, floats (NaN
/// prints as `null`) and string-keyed structs, which cannot fail.
pub(crate) fn to_json<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}
