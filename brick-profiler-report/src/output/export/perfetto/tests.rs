//! The Perfetto trace decoded back (with the writer's own messages) shows
//! what the Chrome trace of the same profile shows: the same slices on the
//! same tracks with the same times, nesting and args, the same counters and
//! flows. The Python test in `integration/` decodes with Perfetto's schema.

use std::collections::{BTreeMap, HashMap};

use profiler_core::profile::{
    ActivityKind, BrickKernels, DeviceKernels, KernelEvent, KernelGroup, KernelRow,
};
use profiler_core::trace::{
    CounterSample, CounterTrack, DeviceStart, EventKind, RecordedExecutionTrace,
    RecordedTraceEntry, ThreadTimeline, Timeline, TimelineEvent,
};
use profiler_core::{BrickCategory, BrickStats, Direction, Profile};
use serde_json::{Value, json};

use super::proto::{
    CLOCK_INCREMENTAL, DebugAnnotation, Interned, SEQ_INCREMENTAL_STATE_CLEARED, TYPE_COUNTER,
    TYPE_SLICE_BEGIN, TYPE_SLICE_END, TracePacket,
};
use super::sequence::tests::inflate;
use super::*;
use crate::output::export::chrome::chrome_trace_json;

/// One slice as both formats describe it: track name, name, category, ts
/// and duration (ns), depth on its track, args.
type Slice = (String, String, String, u64, u64, usize, Value);

/// A rank's run with a device timer: steps, a phase, a layer, bricks (one
/// overshooting its phase, one with a device start), counters (one NaN),
/// two threads and `#[trace_op]` entries with output sizes.
fn profile() -> Profile {
    let mut p = Profile::empty();
    p.run.name = "run \"α\"\n".into();
    p.run.pid = 42;
    p.run.rank = Some(1);
    p.run.world_size = Some(2);
    p.run.device_timer = true;
    p.bricks
        .push(BrickStats::new("MatMul", BrickCategory::Other));
    let names = [
        "step 0",
        "forward",
        "MatMul",
        "layer 0",
        "step 1",
        "Soft\0max",
    ];
    let mut brick = TimelineEvent::span(EventKind::Brick, 2, 1_500, 700);
    brick.flops = 8_000;
    brick.bytes = 1_000;
    brick.elements = 10;
    let mut layer = TimelineEvent::span(EventKind::Layer, 3, 1_200, 2_000);
    layer.layer = Some(0);
    layer.direction = Some(Direction::Forward);
    let mut step = TimelineEvent::span(EventKind::Step, 0, 1_000, 10_000);
    step.elements = 64;
    let main = vec![
        step,
        TimelineEvent::span(EventKind::Phase, 1, 1_100, 5_000),
        layer,
        brick,
        // Overshoots the phase (ends at 6_100): clamped to it.
        TimelineEvent::span(EventKind::Brick, 2, 5_000, 2_000),
        TimelineEvent::span(EventKind::Brick, 5, 7_000, 0),
        TimelineEvent::span(EventKind::Step, 4, 11_000, 3_000),
    ];
    let other = vec![TimelineEvent::span(EventKind::Brick, 5, 20_000, 4_000)];
    p.timeline = Timeline {
        names: names.iter().map(|n| (*n).to_owned()).collect(),
        threads: vec![
            ThreadTimeline {
                thread: 0,
                name: Some("main".into()),
                events: main,
            },
            ThreadTimeline {
                thread: 3,
                name: None,
                events: other,
            },
        ],
        dropped: 0,
        device_starts: vec![DeviceStart {
            thread: 0,
            event: 3,
            start_ns: 1_900,
        }],
    };
    p.counter_tracks = vec![CounterTrack {
        name: "loss".into(),
        samples: [(1_000, 2.5), (11_000, f64::NAN), (14_000, 1.25)]
            .into_iter()
            .map(|(t_ns, value)| CounterSample {
                t_ns,
                value,
                thread: 0,
            })
            .collect(),
    }];
    let mut trace = RecordedExecutionTrace::new();
    for (i, op) in ["conv", "relu"].into_iter().enumerate() {
        let mut entry = RecordedTraceEntry::new(i, op).with_output_shape(vec![2, 3]);
        entry.duration_us = 1.5;
        entry.thread = Some(3);
        trace.add_entry(entry);
    }
    p.trace = trace;
    p
}

fn decode(profile: &Profile) -> Vec<TracePacket> {
    let mut bytes = Vec::new();
    write_perfetto_trace_to(profile, &mut bytes).expect("in memory");
    inflate(&bytes)
}

/// An annotation's value as JSON (arrays and dicts nested).
fn value(a: &DebugAnnotation) -> Value {
    if let Some(v) = a.uint_value {
        json!(v)
    } else if let Some(v) = a.int_value {
        json!(v)
    } else if let Some(v) = a.double_value {
        json!(v)
    } else if let Some(v) = &a.string_value {
        json!(v)
    } else if let Some(v) = a.bool_value {
        json!(v)
    } else if let Some(v) = &a.legacy_json_value {
        serde_json::from_str(v).expect("JSON text")
    } else if !a.dict_entries.is_empty() {
        let entries = a.dict_entries.iter();
        Value::Object(
            entries
                .map(|e| (e.name.clone().unwrap_or_default(), value(e)))
                .collect(),
        )
    } else if !a.array_values.is_empty() {
        Value::Array(a.array_values.iter().map(value).collect())
    } else {
        Value::Null
    }
}

/// What the Perfetto trace holds: slices, counter values by track name,
/// and flows as (from slice, to slice) names with their ts.
struct Decoded {
    slices: Vec<Slice>,
    counters: BTreeMap<String, Vec<(u64, f64)>>,
    flows: Vec<((String, u64), (String, u64))>,
}

/// What a sequence's packets share: interned strings by kind (names,
/// categories, keys, string values), default track, incremental clock.
#[derive(Default)]
struct SeqState {
    interned: [HashMap<u64, String>; 4],
    track: Option<u64>,
    clock: Option<u64>,
}

fn perfetto_view(packets: &[TracePacket]) -> Decoded {
    let mut seqs: HashMap<u32, SeqState> = HashMap::new();
    let mut tracks: HashMap<u64, String> = HashMap::new();
    let mut open: HashMap<u64, Vec<Slice>> = HashMap::new();
    let mut last_ts: HashMap<u64, u64> = HashMap::new();
    let mut out = Decoded {
        slices: Vec::new(),
        counters: BTreeMap::new(),
        flows: Vec::new(),
    };
    let (mut starts, mut ends) = (HashMap::new(), HashMap::new());
    for p in packets {
        let seq = seqs
            .entry(p.trusted_packet_sequence_id.expect("sequence"))
            .or_default();
        if p.sequence_flags.unwrap_or(0) & SEQ_INCREMENTAL_STATE_CLEARED != 0 {
            *seq = SeqState::default();
        }
        if let Some(d) = &p.trace_packet_defaults {
            assert_eq!(d.timestamp_clock_id, Some(CLOCK_INCREMENTAL));
            seq.track = d.track_event_defaults.as_ref().and_then(|t| t.track_uuid);
        }
        if let Some(c) = &p.clock_snapshot {
            let clock = c
                .clocks
                .iter()
                .find(|c| c.clock_id == Some(CLOCK_INCREMENTAL));
            seq.clock = clock.and_then(|c| c.timestamp);
            continue;
        }
        if let Some(d) = &p.track_descriptor {
            let name = d.thread.as_ref().and_then(|t| t.thread_name.clone());
            let name = name.or_else(|| d.name.clone()).unwrap_or_default();
            tracks.insert(d.uuid.expect("uuid"), name);
        }
        if let Some(i) = &p.interned_data {
            let values = i.debug_annotation_string_values.iter().map(|v| Interned {
                iid: v.iid,
                name: v.str.clone().map(|s| String::from_utf8(s).expect("UTF-8")),
            });
            let values: Vec<Interned> = values.collect();
            let kinds = [
                &i.event_names,
                &i.event_categories,
                &i.debug_annotation_names,
                &values,
            ];
            for (table, entries) in seq.interned.iter_mut().zip(kinds) {
                for e in entries {
                    let id = e.iid.expect("iid");
                    assert!(table.insert(id, e.name.clone().expect("name")).is_none());
                }
            }
        }
        let Some(e) = &p.track_event else { continue };
        let delta = p.timestamp.expect("ts");
        let ts = match (seq.clock.as_mut(), p.timestamp_clock_id) {
            (Some(clock), None) => {
                *clock += delta;
                *clock
            }
            _ => delta,
        };
        let track = e.track_uuid.or(seq.track).expect("track");
        let [names, cats, keys, values] = &seq.interned;
        let stack = open.entry(track).or_default();
        let last = last_ts.entry(track).or_insert(0);
        if matches!(e.r#type, Some(TYPE_SLICE_BEGIN | TYPE_SLICE_END)) {
            assert!(ts >= *last, "slices of a track in time order: {p:?}");
            *last = ts;
        }
        match e.r#type {
            Some(TYPE_SLICE_BEGIN) => {
                let args: serde_json::Map<String, Value> = e
                    .debug_annotations
                    .iter()
                    .map(|a| {
                        let v = match a.string_value_iid {
                            Some(id) => json!(values[&id]),
                            None => value(a),
                        };
                        (keys[&a.name_iid.expect("key")].clone(), v)
                    })
                    .collect();
                let args = if args.is_empty() {
                    Value::Null
                } else {
                    Value::Object(args)
                };
                let name = names[&e.name_iid.expect("name")].clone();
                let cat = cats[&e.category_iids[0]].clone();
                for &id in &e.flow_ids {
                    assert!(starts.insert(id, (name.clone(), ts)).is_none(), "one start");
                }
                for &id in &e.terminating_flow_ids {
                    ends.insert(id, (name.clone(), ts));
                }
                let depth = stack.len();
                stack.push((tracks[&track].clone(), name, cat, ts, 0, depth, args));
            }
            Some(TYPE_SLICE_END) => {
                let mut slice = stack.pop().expect("an open slice");
                slice.4 = ts - slice.3;
                out.slices.push(slice);
            }
            Some(TYPE_COUNTER) => out
                .counters
                .entry(tracks[&track].clone())
                .or_default()
                .push((ts, e.double_counter_value.expect("value"))),
            _ => {}
        }
    }
    assert!(open.values().all(Vec::is_empty), "every slice ends");
    for (id, from) in starts {
        out.flows.push((from, ends.remove(&id).expect("flow ends")));
    }
    out.slices
        .sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    out.flows.sort();
    out
}

fn ns(v: &Value) -> u64 {
    (v.as_f64().expect("µs") * 1e3).round() as u64
}

fn chrome_view(profile: &Profile) -> Decoded {
    let json: Value = serde_json::from_str(&chrome_trace_json(profile)).expect("JSON");
    let events = json["traceEvents"].as_array().expect("events");
    let key = |e: &Value| (e["pid"].as_u64(), e["tid"].as_u64());
    let thread_names: HashMap<_, _> = events
        .iter()
        .filter(|e| e["name"] == "thread_name")
        .map(|e| (key(e), e["args"]["name"].as_str().expect("name").to_owned()))
        .collect();
    let mut out = Decoded {
        slices: Vec::new(),
        counters: BTreeMap::new(),
        flows: Vec::new(),
    };
    let mut open: HashMap<_, Vec<u64>> = HashMap::new();
    let (mut starts, mut ends) = (HashMap::new(), HashMap::new());
    let mut slices_at: HashMap<_, Vec<(u64, u64, String)>> = HashMap::new();
    for e in events {
        let track = thread_names.get(&key(e)).cloned().unwrap_or_default();
        match e["ph"].as_str() {
            Some("X") => {
                let (ts, dur) = (ns(&e["ts"]), ns(&e["dur"]));
                let stack = open.entry(key(e)).or_default();
                while stack.last().is_some_and(|&end| end <= ts) {
                    stack.pop();
                }
                let name = e["name"].as_str().expect("name").to_owned();
                let cat = e["cat"].as_str().expect("cat").to_owned();
                let args = e["args"].clone();
                out.slices
                    .push((track, name.clone(), cat, ts, dur, stack.len(), args));
                slices_at
                    .entry(key(e))
                    .or_default()
                    .push((ts, ts + dur, name));
                stack.push(ts + dur);
            }
            Some("C") => {
                let name = e["name"].as_str().expect("name").to_owned();
                let args = &e["args"];
                let v = args
                    .get("value")
                    .or_else(|| args.get("bytes"))
                    .expect("value");
                let at = ns(&e["ts"]);
                out.counters
                    .entry(name)
                    .or_default()
                    .push((at, v.as_f64().expect("number")));
            }
            Some("s") => {
                starts.insert(e["id"].as_u64().expect("id"), (key(e), ns(&e["ts"])));
            }
            Some("f") => {
                ends.insert(e["id"].as_u64().expect("id"), (key(e), ns(&e["ts"])));
            }
            _ => {}
        }
    }
    // A flow point binds to the innermost slice open at its time (one
    // starting there included); a point outside every slice binds nowhere
    // and its flow is not drawn.
    let slice_at = |(track, ts): &(_, u64)| {
        let slices = slices_at.get(track)?;
        let inside = |s: &&(u64, u64, String)| s.0 <= *ts && (*ts < s.1 || s.0 == *ts);
        let s = slices.iter().rev().find(inside)?;
        Some((s.2.clone(), s.0))
    };
    for (id, from) in &starts {
        if let (Some(from), Some(to)) = (slice_at(from), slice_at(&ends[id])) {
            out.flows.push((from, to));
        }
    }
    out.slices
        .sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    out.flows.sort();
    out
}

#[test]
fn slices_counters_and_flows_match_the_chrome_trace() {
    let p = profile();
    let (ours, chrome) = (perfetto_view(&decode(&p)), chrome_view(&p));
    assert_eq!(ours.slices, chrome.slices);
    assert_eq!(ours.counters, chrome.counters);
    assert_eq!(ours.flows, chrome.flows);
    // The fixture exercises what it means to: clamping, kernels, steps.
    let find = |name: &str, ts: u64| {
        let s = ours.slices.iter().find(|s| s.1 == name && s.3 == ts);
        s.unwrap_or_else(|| panic!("{name} at {ts}: {:?}", ours.slices))
    };
    assert_eq!(find("MatMul", 5_000).4, 1_100, "clamped to its phase");
    assert_eq!(find("ProfilerStep#0", 1_000).5, 0);
    assert_eq!(find("step 0", 1_000).5, 1, "inside its ProfilerStep");
    let kernel = find("MatMul", 1_900);
    assert_eq!(
        (kernel.0.as_str(), kernel.2.as_str()),
        ("stream 7 (device 0)", "kernel")
    );
    assert_eq!(
        ours.flows.len(),
        4,
        "one per device-timed brick: {:?}",
        ours.flows
    );
    assert_eq!(
        ours.counters["loss"],
        [(1_000, 2.5), (14_000, 1.25)],
        "NaN left out"
    );
    assert_eq!(ours.counters["output bytes, thread 3"].len(), 2);
}

/// CUPTI's records, as a capturing timer leaves them: two kernels on one
/// stream (one launched inside a brick, one inside nothing), a copy on
/// another device's stream, and a kernel whose launch was not seen.
fn captured(mut p: Profile) -> Profile {
    let kernel =
        |name: &str, kind, (device, stream), (start_ns, dur_ns), launch: Option<u64>| KernelEvent {
            name: name.into(),
            kind,
            device,
            stream,
            correlation: 9,
            start_ns,
            dur_ns,
            brick: None,
            thread: launch.map(|_| 0),
            launch_ns: launch,
            grid: [64, 2, 1],
            block: [256, 1, 1],
        };
    p.device_kernels = Some(DeviceKernels {
        source: "cupti".into(),
        events: vec![
            kernel(
                "gemm",
                ActivityKind::Kernel,
                (0, 7),
                (1_800, 300),
                Some(1_600),
            ),
            kernel(
                "copy",
                ActivityKind::Memcpy,
                (1, 13),
                (2_000, 50),
                Some(5_100),
            ),
            kernel("gemm", ActivityKind::Kernel, (0, 7), (2_500, 100), Some(50)),
            kernel("set", ActivityKind::Memset, (0, 7), (3_000, 10), None),
        ],
        // Registers agree between the brick's calls and the rest; shared
        // memory does not, so it is withheld.
        bricks: vec![BrickKernels {
            brick: "MatMul".into(),
            kernels: vec![row(Some(40), Some(5_120))],
            ..BrickKernels::default()
        }],
        outside_bricks: KernelGroup {
            kernels: vec![row(Some(40), Some(4_096))],
            ..KernelGroup::default()
        },
        ..DeviceKernels::default()
    });
    p
}

fn row(registers: Option<u16>, shared_bytes: Option<u32>) -> KernelRow {
    KernelRow {
        name: "gemm".into(),
        kind: ActivityKind::Kernel,
        calls: 1,
        total_ns: 300,
        min_ns: 300,
        max_ns: 300,
        grid: None,
        block: None,
        registers,
        shared_bytes,
    }
}

#[test]
fn captured_kernels_are_slices_on_their_streams_with_flows_from_the_launching_slice() {
    let p = captured(profile());
    let (ours, chrome) = (perfetto_view(&decode(&p)), chrome_view(&p));
    assert_eq!(ours.slices, chrome.slices);
    assert_eq!(ours.flows, chrome.flows);
    let on = |track: &str| ours.slices.iter().filter(|s| s.0 == track).count();
    assert_eq!(on("stream 7 (device 0)"), 3, "the timer's sides give way");
    assert_eq!(on("stream 13 (device 1)"), 1);
    let copy = ours.slices.iter().find(|s| s.1 == "copy").expect("copy");
    assert_eq!((copy.2.as_str(), copy.3, copy.4), ("gpu_memcpy", 2_000, 50));
    assert_eq!(copy.6["device"], 1);
    let gemm = ours.slices.iter().find(|s| s.1 == "gemm").expect("gemm");
    assert_eq!(gemm.6["grid"], json!([64, 2, 1]));
    assert_eq!(gemm.6["correlation"], 1);
    assert_eq!(gemm.6["registers per thread"], 40);
    assert!(
        gemm.6.get("shared memory").is_none(),
        "calls differed: {gemm:?}"
    );
    assert!(copy.6.get("registers per thread").is_none());
    // From the brick open at the launch (MatMul inside its layer), and from
    // the clamped brick for the copy; none from a launch outside slices.
    let flows: Vec<(&str, &str)> = ours
        .flows
        .iter()
        .map(|(from, to)| (from.0.as_str(), to.0.as_str()))
        .collect();
    assert_eq!(flows, [("MatMul", "gemm"), ("MatMul", "copy")]);
}

#[test]
fn names_survive_byte_for_byte_and_are_interned_once_per_sequence() {
    let packets = decode(&profile());
    // (sequence, name) of every interned event name.
    let interned: Vec<(u32, &str)> = packets
        .iter()
        .filter_map(|p| Some((p.trusted_packet_sequence_id?, p.interned_data.as_ref()?)))
        .flat_map(|(seq, i)| i.event_names.iter().map(move |n| (seq, n)))
        .filter_map(|(seq, n)| Some((seq, n.name.as_deref()?)))
        .collect();
    // Thread 0 runs both; the process's sequence (1) names the kernels.
    for (seq, name) in [
        (2, "Soft\0max"),
        (2, "MatMul"),
        (1, "MatMul"),
        (2, "step 1"),
    ] {
        let count = interned.iter().filter(|&&n| n == (seq, name)).count();
        assert_eq!(count, 1, "{name:?} on sequence {seq}: {interned:?}");
    }
    let ids: std::collections::BTreeSet<u32> = interned.iter().map(|(s, _)| *s).collect();
    assert_eq!(
        ids.into_iter().collect::<Vec<_>>(),
        [1, 2, 3],
        "one per thread"
    );
    let process = packets
        .iter()
        .find_map(|p| p.track_descriptor.as_ref())
        .and_then(|d| d.process.as_ref());
    assert_eq!(
        process.and_then(|p| p.process_name.as_deref()),
        Some("run \"α\"\n")
    );
}

#[test]
fn a_profile_without_trace_mode_says_so_in_the_file() {
    let packets = decode(&Profile::empty());
    let names: Vec<&str> = packets
        .iter()
        .filter_map(|p| p.interned_data.as_ref())
        .flat_map(|i| &i.event_names)
        .filter_map(|n| n.name.as_deref())
        .collect();
    assert!(
        names.iter().any(|n| n.starts_with("warning: ")),
        "{names:?}"
    );
}
