//! Post-hoc analyses of a [`RecordedExecutionTrace`], one function each,
//! with the rules established trace tooling uses, so results match theirs.
//!
//! Every analysis is one pass over the entries plus work proportional to the
//! number of distinct names. Hash maps keyed by borrowed names do the
//! counting; results come back in `BTreeMap`s or sorted `Vec`s, so output
//! order never depends on hashing.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use profiler_core::{
    Profile,
    trace::{EventKind, RecordedExecutionTrace, RecordedTraceEntry, Timeline},
};

use super::types::{
    CommunicationBottleneck, DeviceSummary, LoadBalanceMetrics, OperationStats, balance,
};
use crate::base::escape;

/// Substrings of a lower-cased operation name that mark communication.
const COMM_MARKERS: [&str; 7] = [
    "allreduce",
    "all_gather",
    "reduce_scatter",
    "broadcast",
    "send",
    "recv",
    "comm",
];

/// Count, total duration and total output bytes per operation name.
#[must_use]
pub fn operation_summary(trace: &RecordedExecutionTrace) -> BTreeMap<String, OperationStats> {
    let mut map: HashMap<&str, OperationStats> = HashMap::new();
    for entry in &trace.entries {
        let s = map.entry(entry.operation.as_str()).or_default();
        s.count += 1;
        s.total_duration_us += entry.duration_us;
        s.total_memory_bytes = s.total_memory_bytes.saturating_add(entry.memory_bytes);
    }
    map.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

/// Entries whose output is strictly larger than `threshold_bytes`, in
/// trace order.
#[must_use]
pub fn memory_hotspots(
    trace: &RecordedExecutionTrace,
    threshold_bytes: usize,
) -> Vec<&RecordedTraceEntry> {
    trace
        .entries
        .iter()
        .filter(|e| e.memory_bytes > threshold_bytes)
        .collect()
}

/// Mean duration per operation name, µs.
#[must_use]
pub fn avg_duration_by_op(trace: &RecordedExecutionTrace) -> BTreeMap<String, f64> {
    operation_summary(trace)
        .into_iter()
        .map(|(op, s)| {
            let avg = if s.count > 0 {
                s.total_duration_us / s.count as f64
            } else {
                0.0
            };
            (op, avg)
        })
        .collect()
}

/// Totals per device; entries without a device are skipped.
#[must_use]
pub fn per_device_summary(trace: &RecordedExecutionTrace) -> BTreeMap<String, DeviceSummary> {
    let mut map: HashMap<&str, DeviceSummary> = HashMap::new();
    for entry in &trace.entries {
        if let Some(device) = entry.device_id.as_deref() {
            let s = map.entry(device).or_default();
            s.op_count += 1;
            s.total_duration_us += entry.duration_us;
            s.total_memory_bytes = s.total_memory_bytes.saturating_add(entry.memory_bytes);
        }
    }
    map.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

/// How evenly time is spread over devices; `None` under 2 devices.
///
/// `ideal = total / devices`, `imbalance_ratio = max(0, (max - ideal) /
/// ideal)`, 0 when `ideal` is 0.
#[must_use]
pub fn load_balance_metrics(trace: &RecordedExecutionTrace) -> Option<LoadBalanceMetrics> {
    let summary = per_device_summary(trace);
    if summary.len() < 2 {
        return None;
    }
    let per_device_duration_us: Vec<(String, f64)> = summary
        .into_iter()
        .map(|(device, s)| (device, s.total_duration_us))
        .collect();
    let b = balance(per_device_duration_us.iter().map(|(_, t)| *t));
    Some(LoadBalanceMetrics {
        device_count: per_device_duration_us.len(),
        total_duration_us: b.total,
        ideal_duration_us: b.ideal,
        max_duration_us: b.max,
        imbalance_ratio: b.ratio,
        per_device_duration_us,
    })
}

/// Communication operations (lower-cased name contains `allreduce`,
/// `all_gather`, `reduce_scatter`, `broadcast`, `send`, `recv` or `comm`)
/// whose share of `trace.total_duration_us` is at least `min_ratio_of_total`,
/// by total time descending (ties by name).
#[must_use]
pub fn communication_bottlenecks(
    trace: &RecordedExecutionTrace,
    min_ratio_of_total: f64,
) -> Vec<CommunicationBottleneck> {
    let total = trace.total_duration_us.max(1e-9);
    // Aggregate first, classify each distinct name once: no per-entry
    // lower-casing.
    let mut per_op: HashMap<&str, (f64, usize)> = HashMap::new();
    for entry in &trace.entries {
        let agg = per_op.entry(entry.operation.as_str()).or_default();
        agg.0 += entry.duration_us;
        agg.1 += 1;
    }
    let mut out: Vec<CommunicationBottleneck> = per_op
        .into_iter()
        .filter(|(op, _)| is_communication(op))
        .map(|(op, (duration, calls))| CommunicationBottleneck {
            operation: op.to_owned(),
            total_duration_us: duration,
            ratio_of_total: duration / total,
            call_count: calls,
        })
        .filter(|b| b.ratio_of_total >= min_ratio_of_total)
        .collect();
    out.sort_by(|a, b| {
        b.total_duration_us
            .total_cmp(&a.total_duration_us)
            .then_with(|| a.operation.cmp(&b.operation))
    });
    out
}

/// Collapsed stacks `trace;{device or unknown};{op} {weight}`, weight =
/// sum over entries of `max(duration_us, 1)` rounded (saturating at
/// `u64::MAX`); lines sorted and joined by `\n` (no trailing newline).
///
/// Device and op names are folded-stack frames, made safe as in
/// `folded_stacks`: `;` becomes `_`, line breaks
/// and control characters are escaped (`\n`), a blank name is
/// `(unnamed)`, and a name ending in ` <number>` keeps its number behind
/// a no-break space so no reader takes it for a count.
#[must_use]
pub fn flamegraph_collapsed(trace: &RecordedExecutionTrace) -> String {
    let mut per_pair: HashMap<(&str, &str), u64> = HashMap::new();
    for entry in &trace.entries {
        let device = entry.device_id.as_deref().unwrap_or("unknown");
        // `as` saturates: NaN -> max(NaN, 1) = 1, huge -> u64::MAX.
        let weight = entry.duration_us.max(1.0).round() as u64;
        let w = per_pair.entry((device, &entry.operation)).or_default();
        *w = w.saturating_add(weight);
    }
    // Sort by the formatted line (the established order), merging pairs
    // that format alike.
    let mut lines: BTreeMap<String, u64> = BTreeMap::new();
    for ((device, op), weight) in per_pair {
        let (device, op) = (escape::frame(device), escape::frame(op));
        let w = lines.entry(format!("trace;{device};{op}")).or_default();
        *w = w.saturating_add(weight);
    }
    let mut out = String::new();
    for (stack, weight) in lines {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&stack);
        out.push(' ');
        out.push_str(&weight.to_string());
    }
    out
}

/// Brick events of a trace-mode timeline as entries, so the analyses work
/// without `#[trace_op]`: device `thread N`, step = the step (on any
/// thread) whose span holds the brick's start, else the last step begun
/// before it (0 before any), start and inclusive duration in µs (a brick
/// nested in another counts in both). Entries are ordered by start.
#[must_use]
pub fn from_timeline(timeline: &Timeline) -> RecordedExecutionTrace {
    // Steps of every thread, by start: bricks on worker threads belong
    // to the step the driving thread had open.
    let mut steps: Vec<(u64, u64, usize)> = timeline
        .threads
        .iter()
        .flat_map(|t| &t.events)
        .filter(|e| e.kind == EventKind::Step)
        .enumerate()
        .map(|(seen, e)| {
            let index = step_index(timeline.name_of(e)).unwrap_or(seen);
            (e.start_ns, e.start_ns.saturating_add(e.dur_ns), index)
        })
        .collect();
    steps.sort_unstable();
    let step_at = |t: u64| {
        let begun = steps.partition_point(|&(start, _, _)| start <= t);
        begun.checked_sub(1).map_or(0, |i| steps[i].2)
    };
    let mut trace = RecordedExecutionTrace::new();
    for thread in &timeline.threads {
        let device = format!("thread {}", thread.thread);
        for event in thread.events.iter().filter(|e| e.kind == EventKind::Brick) {
            let mut entry =
                RecordedTraceEntry::new(step_at(event.start_ns), timeline.name_of(event))
                    .with_device_id(device.as_str());
            entry.duration_us = event.dur_ns as f64 / 1e3;
            entry.start_us = Some(event.start_ns as f64 / 1e3);
            entry.thread = Some(thread.thread);
            trace.add_entry(entry);
        }
    }
    trace.entries.sort_by(|a, b| {
        a.start_us
            .unwrap_or(0.0)
            .total_cmp(&b.start_us.unwrap_or(0.0))
    });
    trace
}

/// The trace to analyse for a profile: its `#[trace_op]` entries, or the
/// timeline's bricks ([`from_timeline`](from_timeline)) when it has none.
#[must_use]
pub fn trace_of(profile: &Profile) -> Cow<'_, RecordedExecutionTrace> {
    if profile.trace.entries.is_empty() && profile.timeline.event_count() > 0 {
        Cow::Owned(from_timeline(&profile.timeline))
    } else {
        Cow::Borrowed(&profile.trace)
    }
}

/// Whether an operation name marks communication **(compat)**.
fn is_communication(op: &str) -> bool {
    let lower = op.to_ascii_lowercase();
    COMM_MARKERS.iter().any(|m| lower.contains(m))
}

/// `N` of a step event named `step N`.
fn step_index(name: &str) -> Option<usize> {
    name.strip_prefix("step ")?.parse().ok()
}

#[cfg(test)]
mod tests {

    #[test]
    fn timeline_bricks_take_the_step_open_on_any_thread() {
        use profiler_core::trace::{ThreadTimeline, TimelineEvent};
        let ev = TimelineEvent::span;
        let timeline = Timeline {
            names: vec!["step 5".into(), "step 6".into(), "Gemm".into()],
            threads: vec![
                ThreadTimeline {
                    thread: 1,
                    name: None,
                    events: vec![
                        ev(EventKind::Step, 0, 0, 100),
                        ev(EventKind::Step, 1, 100, 100),
                    ],
                },
                ThreadTimeline {
                    thread: 2,
                    name: None,
                    events: vec![
                        ev(EventKind::Brick, 2, 50, 10),
                        ev(EventKind::Brick, 2, 150, 10),
                    ],
                },
            ],
            dropped: 0,
            device_starts: Vec::new(),
        };
        let trace = from_timeline(&timeline);
        let steps: Vec<(usize, Option<&str>)> = trace
            .entries
            .iter()
            .map(|e| (e.step, e.device_id.as_deref()))
            .collect();
        assert_eq!(steps, [(5, Some("thread 2")), (6, Some("thread 2"))]);
    }

    use super::*;

    #[test]
    fn communication_names() {
        for op in [
            "AllReduce",
            "nccl_all_gather",
            "Reduce_Scatter",
            "p2p_send",
            "RECV",
            "comm_x",
        ] {
            assert!(is_communication(op), "{op}");
        }
        for op in ["matmul", "all-gather", "softmax"] {
            assert!(!is_communication(op), "{op}");
        }
    }

    #[test]
    fn step_names() {
        assert_eq!(step_index("step 12"), Some(12));
        assert_eq!(step_index("step"), None);
        assert_eq!(step_index("phase 1"), None);
    }
}
