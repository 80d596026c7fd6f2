//! Trace analysis, exports (Chrome, folded, flamegraph, speedscope), rank
//! merging and trace files. Golden files live in `tests/golden/`; rewrite
//! them with `UPDATE_GOLDEN=1 cargo test -p brick-profiler-report --test trace`
//! and review the diff. Exports are tested in `trace/exports.rs`, ranks and
//! trace files in `trace/files.rs`, names that look like folded-stack
//! syntax in `trace/names.rs`, Kineto's conventions for ranks and
//! device time in `trace/kineto.rs`, slice args and counters as Perfetto reads
//! them in `trace/perfetto.rs`.

#[path = "trace/exports.rs"]
mod exports;
#[path = "trace/files.rs"]
mod files;
#[path = "trace/kineto.rs"]
mod kineto;
#[path = "trace/names.rs"]
mod names;
#[path = "trace/perfetto.rs"]
mod perfetto;

use std::time::Duration;

use profiler_core::{
    Direction, Profile,
    profile::ThreadInfo,
    trace::{
        CounterSample, CounterTrack, EventKind, RecordedExecutionTrace, RecordedTraceEntry,
        ThreadTimeline, Timeline, TimelineEvent,
    },
};
use profiler_report::trace;

// ---------------------------------------------------------------- fixtures

fn entry(op: &str, device: Option<&str>, us: u64) -> RecordedTraceEntry {
    let e = RecordedTraceEntry::new(0, op).with_duration(Duration::from_micros(us));
    match device {
        Some(d) => e.with_device_id(d),
        None => e,
    }
}

fn trace_of(entries: Vec<RecordedTraceEntry>) -> RecordedExecutionTrace {
    let mut t = RecordedExecutionTrace::new();
    entries.into_iter().for_each(|e| t.add_entry(e));
    t
}

fn ev(kind: EventKind, name: u32, start_ns: u64, dur_ns: u64) -> TimelineEvent {
    TimelineEvent {
        kind,
        name,
        start_ns,
        dur_ns,
        layer: None,
        direction: None,
        elements: 0,
        bytes: 0,
        flops: 0,
    }
}

/// `e` inside layer 0, forward.
fn in_layer(mut e: TimelineEvent) -> TimelineEvent {
    e.layer = Some(0);
    e.direction = Some(Direction::Forward);
    e
}

/// `e` with a brick call's elements, bytes and FLOPs.
fn amounts(mut e: TimelineEvent) -> TimelineEvent {
    e.elements = 4_096;
    e.bytes = 32_768;
    e.flops = 65_536;
    e
}

/// Step event `e` with its tokens.
fn tokens(mut e: TimelineEvent, tokens: u64) -> TimelineEvent {
    e.elements = tokens;
    e
}

/// A small, fixed profile: two steps on thread 1 (the Attention brick
/// overshoots its layer by 1 ns; layer 0 and its bricks carry their layer,
/// direction and amounts), two bricks on thread 2 (one named `<&>`), four
/// `#[trace_op]` entries, two counters (`loss` on thread 1, `queue <depth>`
/// on thread 2) and some dropped events.
fn golden_profile() -> Profile {
    use EventKind::{Brick, Layer, Phase, Step};
    let mut p = Profile::empty();
    p.run.name = "golden".into();
    p.run.host = "host-a".into();
    p.run.pid = 4242;
    p.run.started_at_unix_ns = 1_700_000_000_000_000_000;
    p.run.wall_ns = 200_000;
    p.run.threads_seen = 2;
    p.run.clock.ns_per_tick = 1.0;
    p.threads = vec![
        ThreadInfo {
            thread: 1,
            name: Some("main".into()),
            exited: false,
        },
        ThreadInfo {
            thread: 2,
            name: None,
            exited: true,
        },
    ];
    p.steps.count = 2;
    p.steps.samples_ns = vec![100_000, 50_000];
    p.steps.total_ns = 150_000;
    let names = [
        "step 0",
        "step 1",
        "forward",
        "layer 0 fwd",
        "RmsNorm",
        "Attention",
    ];
    let names = names.iter().chain(&["Softmax", "opt", "Matmul <&>"]);
    p.timeline = Timeline {
        names: names.map(|s| (*s).to_owned()).collect(),
        threads: vec![
            ThreadTimeline {
                thread: 1,
                name: Some("main".into()),
                events: vec![
                    tokens(ev(Step, 0, 1_000, 100_000), 512),
                    ev(Phase, 2, 1_000, 60_000),
                    in_layer(ev(Layer, 3, 2_000, 50_000)),
                    amounts(in_layer(ev(Brick, 4, 2_500, 10_250))),
                    in_layer(ev(Brick, 5, 13_000, 39_001)),
                    ev(Brick, 6, 20_000, 5_000),
                    ev(Phase, 7, 70_000, 30_000),
                    tokens(ev(Step, 1, 101_000, 50_000), 512),
                    ev(Phase, 2, 101_000, 40_000),
                    in_layer(ev(Layer, 3, 102_000, 30_000)),
                    amounts(in_layer(ev(Brick, 4, 102_500, 9_750))),
                ],
            },
            ThreadTimeline {
                thread: 2,
                name: None,
                events: vec![ev(Brick, 6, 5_000, 2_500), ev(Brick, 8, 10_000, 4_400)],
            },
        ],
        dropped: 3,
        device_starts: Vec::new(),
    };
    p.counters.timeline_dropped = 3;
    let sample = |t_ns, value, thread| CounterSample {
        t_ns,
        value,
        thread,
    };
    p.counter_tracks = vec![
        CounterTrack {
            name: "loss".into(),
            samples: vec![sample(101_000, 2.5, 1), sample(151_000, 2.25, 1)],
        },
        CounterTrack {
            name: "queue <depth>".into(),
            samples: vec![sample(7_000, 3.0, 2)],
        },
    ];
    let op = |step, name: &str, device: Option<&str>, us: f64, start: f64, thread| {
        let mut e = RecordedTraceEntry::new(step, name);
        e.device_id = device.map(str::to_owned);
        e.duration_us = us;
        e.start_us = Some(start);
        e.thread = Some(thread);
        e
    };
    p.trace = trace_of(vec![
        op(0, "matmul", Some("cuda:0"), 12.5, 3.0, 1)
            .with_input_shapes(vec![vec![2, 3], vec![3, 4]])
            .with_output_shape(vec![2, 4]),
        op(0, "allreduce", Some("cuda:1"), 30.0, 20.0, 1).with_output_shape(vec![1024]),
        op(1, "matmul", Some("cuda:0"), 7.25, 102.0, 1).with_output_shape(vec![2, 4]),
        op(1, "relu", None, 0.0, 110.0, 2),
    ]);
    p
}

/// Compares `actual` with `tests/golden/{name}`, or rewrites it when
/// `UPDATE_GOLDEN` is set.
fn golden(name: &str, actual: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).expect("write golden file");
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1)", path.display()));
    assert!(
        expected == actual,
        "{name} differs from the golden file; actual:\n{actual}"
    );
}

// ---------------------------------------------------------------- analyzer

#[test]
fn operation_summary_and_averages_per_op() {
    let mut t = trace_of(vec![
        entry("matmul", None, 100).with_output_shape(vec![10]),
        entry("matmul", None, 200).with_output_shape(vec![20]),
        entry("relu", None, 50).with_output_shape(vec![10]),
    ]);
    let s = trace::operation_summary(&t);
    assert_eq!(s.keys().collect::<Vec<_>>(), ["matmul", "relu"]);
    assert_eq!(
        (s["matmul"].count, s["matmul"].total_memory_bytes),
        (2, 240)
    );
    assert!((s["matmul"].total_duration_us - 300.0).abs() < 1e-9);
    let avg = trace::avg_duration_by_op(&t);
    assert_eq!((avg["matmul"], avg["relu"]), (150.0, 50.0));
    t.entries.clear();
    assert!(trace::operation_summary(&t).is_empty());
    assert!(trace::avg_duration_by_op(&t).is_empty());
}

#[test]
fn memory_hotspots_are_strictly_above_the_threshold() {
    let t = trace_of(vec![
        entry("small", None, 1).with_output_shape(vec![10]), // 80 B
        entry("big", None, 1).with_output_shape(vec![1000]), // 8000 B
        entry("edge", None, 1).with_output_shape(vec![100]), // 800 B
    ]);
    let names = |th| -> Vec<String> {
        trace::memory_hotspots(&t, th)
            .iter()
            .map(|e| e.operation.clone())
            .collect()
    };
    assert_eq!(names(500), ["big", "edge"]);
    assert_eq!(
        names(800),
        ["big"],
        "equal to the threshold is not a hotspot"
    );
    assert!(names(8000).is_empty());
}

#[test]
fn per_device_summary_and_load_balance() {
    let t = trace_of(vec![
        entry("matmul", Some("gpu:1"), 100),
        entry("matmul", Some("gpu:0"), 300),
        entry("host", None, 1000),
    ]);
    let d = trace::per_device_summary(&t);
    assert_eq!(
        d.keys().collect::<Vec<_>>(),
        ["gpu:0", "gpu:1"],
        "no-device entry skipped"
    );
    assert_eq!(d["gpu:0"].op_count, 1);
    let m = trace::load_balance_metrics(&t).expect("two devices");
    assert_eq!(m.device_count, 2);
    assert_eq!(
        (m.total_duration_us, m.ideal_duration_us, m.max_duration_us),
        (400.0, 200.0, 300.0)
    );
    assert!((m.imbalance_ratio - 0.5).abs() < 1e-12);
    let order: Vec<&str> = m
        .per_device_duration_us
        .iter()
        .map(|(d, _)| d.as_str())
        .collect();
    assert_eq!(order, ["gpu:0", "gpu:1"]);

    let zero = trace_of(vec![entry("a", Some("x"), 0), entry("a", Some("y"), 0)]);
    let m = trace::load_balance_metrics(&zero).expect("two devices");
    assert_eq!((m.ideal_duration_us, m.imbalance_ratio), (0.0, 0.0));
    let even = trace_of(vec![entry("a", Some("x"), 5), entry("a", Some("y"), 5)]);
    assert_eq!(
        trace::load_balance_metrics(&even).map(|m| m.imbalance_ratio),
        Some(0.0)
    );

    let one = trace_of(vec![entry("a", Some("x"), 5), entry("b", None, 5)]);
    assert!(trace::load_balance_metrics(&one).is_none(), "one device");
    assert!(trace::load_balance_metrics(&RecordedExecutionTrace::new()).is_none());
}

#[test]
fn communication_bottlenecks_filter_by_ratio_and_sort_by_time() {
    let t = trace_of(vec![
        entry("broadcast", Some("gpu:1"), 300),
        entry("NCCL_AllReduce", Some("gpu:0"), 400),
        entry("matmul", Some("gpu:0"), 200),
        entry("NCCL_AllReduce", Some("gpu:0"), 200),
        entry("p2p_recv", None, 100),
    ]); // total 1200
    let b = trace::communication_bottlenecks(&t, 0.25);
    let got: Vec<(&str, usize)> = b
        .iter()
        .map(|b| (b.operation.as_str(), b.call_count))
        .collect();
    assert_eq!(
        got,
        [("NCCL_AllReduce", 2), ("broadcast", 1)],
        "ratio 0.25 is kept"
    );
    assert!((b[0].ratio_of_total - 0.5).abs() < 1e-12 && b[0].total_duration_us == 600.0);
    assert_eq!(
        trace::communication_bottlenecks(&t, 0.0).len(),
        3,
        "matmul never"
    );
    assert_eq!(trace::communication_bottlenecks(&t, 0.51).len(), 0);
    // The ratio is of the trace's recorded total, floored at 1e-9 µs.
    let mut zero_total = t.clone();
    zero_total.total_duration_us = 0.0;
    let b = trace::communication_bottlenecks(&zero_total, 1.0);
    assert_eq!(b.len(), 3);
    assert!((b[0].ratio_of_total - 600.0 / 1e-9).abs() < 1.0);
    assert!(trace::communication_bottlenecks(&RecordedExecutionTrace::new(), 0.0).is_empty());
}

#[test]
fn collapsed_stacks_weigh_at_least_one_and_sort() {
    let mut t = trace_of(vec![
        entry("matmul", Some("gpu:0"), 123),
        entry("matmul", Some("gpu:0"), 77),
        entry("relu", Some("gpu:1"), 0),
        entry("relu", Some("gpu:1"), 0),
        entry("load", None, 2),
    ]);
    t.add_entry({
        let mut e = entry("tiny", Some("gpu"), 0);
        e.duration_us = 2.5; // rounds half away from zero
        e
    });
    let c = trace::flamegraph_collapsed(&t);
    assert_eq!(
        c, "trace;gpu:0;matmul 200\ntrace;gpu:1;relu 2\ntrace;gpu;tiny 3\ntrace;unknown;load 2",
        "zero durations weigh 1; `gpu:0` sorts before `gpu;` in byte order"
    );
    assert_eq!(
        trace::flamegraph_collapsed(&RecordedExecutionTrace::new()),
        ""
    );
    golden(
        "collapsed.txt",
        &trace::flamegraph_collapsed(&golden_profile().trace),
    );
}

#[test]
fn timeline_bricks_become_entries() {
    let p = golden_profile();
    let t = trace::from_timeline(&p.timeline);
    assert_eq!(t.entries.len(), 6, "bricks only");
    let first = &t.entries[0];
    assert_eq!(
        (first.operation.as_str(), first.device_id.as_deref()),
        ("RmsNorm", Some("thread 1"))
    );
    assert_eq!(
        (first.step, first.duration_us, first.start_us),
        (0, 10.25, Some(2.5))
    );
    let last_rms = t
        .entries
        .iter()
        .rfind(|e| e.operation == "RmsNorm")
        .expect("second RmsNorm");
    assert_eq!(last_rms.step, 1);
    assert_eq!(
        t.entries[1].device_id.as_deref(),
        Some("thread 2"),
        "ordered by start"
    );
    let m = trace::load_balance_metrics(&t).expect("two threads");
    assert_eq!(m.device_count, 2);
    let mut empty = Profile::empty();
    assert!(trace::trace_of(&empty).entries.is_empty());
    empty.timeline = p.timeline.clone();
    assert_eq!(
        trace::trace_of(&empty).entries.len(),
        6,
        "timeline fallback"
    );
    assert_eq!(
        trace::trace_of(&p).entries.len(),
        4,
        "trace_op entries first"
    );
}
