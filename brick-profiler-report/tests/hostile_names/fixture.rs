//! The hostile-name fixture: names that broke an output once, or could,
//! and a run that carries them everywhere a name goes. Shared by the
//! report crate's tests and the integration test that decodes the
//! Perfetto trace with Perfetto's own schema.

use profiler_core::{
    BrickCategory, BrickStats, Direction, Profile,
    profile::{LayerOp, LayerStats, PhaseStats, ThreadInfo},
    trace::{
        EventKind, RecordedExecutionTrace, RecordedTraceEntry, ThreadTimeline, Timeline,
        TimelineEvent,
    },
};

/// Names that broke an output once, or could.
pub(crate) fn hostile() -> Vec<String> {
    let mut names: Vec<String> = [
        "microbatch 1",
        "microbatch 2",
        "x 123",
        "x 1.5",
        "evil\nfake_root 999999",
        "gpu;0",
        "a;b",
        "<script>alert(1)</script>",
        "\"quotes\"",
        "'single'",
        "a\\b",
        "\u{202e}rtl override",
        "emoji 🔥🚀",
        "nul\0byte",
        "\x1b[31mred",
        "carriage\rreturn",
        "tab\there",
        "",
        "   ",
        "# comment",
        "pipe | cell",
        "*bold* _em_ `code` [link](x)",
        "amp &amp; &lt;",
        "\u{fffe}nonchar",
        "c1\u{9b}31m",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    names.push("w".repeat(10_000));
    names
}

/// A run in which every hostile name is a brick, a phase, a layer op, a
/// trace op and a device; the thread, run, host and hardware carry one too.
pub(crate) fn profile() -> Profile {
    let names = hostile();
    let mut p = Profile::empty();
    p.run.name = "<script>alert(1)</script>\0\x1b[31mrun".into();
    p.run.host = "host\r\n<b>".into();
    p.run.notes = vec!["note with \x1b[2J and <i>".into()];
    let mut hw = profiler_core::hardware::Hardware::new("hw\n<script>");
    hw.set_memory(
        profiler_core::hardware::MemoryLevel::Dram,
        profiler_core::hardware::Figure::new(100.0, profiler_core::hardware::Source::Given),
    )
    .unwrap();
    p.run.hardware = Some(hw);
    p.threads = vec![ThreadInfo {
        thread: 1,
        name: Some("thread\n;<x>".into()),
        exited: false,
    }];
    p.steps.count = 2;
    p.steps.tokens = 1_024;
    p.steps.total_ns = 2_000_000_000;
    p.steps.samples_ns = vec![1_000_000_000; 2];

    let mut timeline_names = vec!["step 0".to_owned()];
    let mut events = Vec::new();
    let slot = 10_000u64; // ns per name
    events.push(TimelineEvent {
        kind: EventKind::Step,
        name: 0,
        start_ns: 0,
        dur_ns: slot * names.len() as u64 + 1_000,
        layer: None,
        direction: None,
        elements: 0,
        bytes: 0,
        flops: 0,
    });
    let mut trace = RecordedExecutionTrace::new();
    for (i, name) in names.iter().enumerate() {
        let mut brick = BrickStats::new(name, BrickCategory::Other);
        brick.count = 2;
        brick.total_ns = 1_000_000 * (i as u64 + 1);
        brick.min_ns = 400_000;
        brick.max_ns = 600_000;
        p.bricks.push(brick);
        p.phases.push(PhaseStats {
            name: name.clone(),
            count: 2,
            total_ns: 2_000_000 * (i as u64 + 1),
            min_ns: 1,
            max_ns: 2,
            in_steps_ns: 2_000_000 * (i as u64 + 1),
            latency: Default::default(),
        });
        timeline_names.push(name.clone());
        let id = u32::try_from(timeline_names.len() - 1).expect("few names");
        let start = 1_000 + slot * i as u64;
        events.push(TimelineEvent {
            kind: EventKind::Phase,
            name: id,
            start_ns: start,
            dur_ns: 8_000,
            layer: None,
            direction: None,
            elements: 0,
            bytes: 0,
            flops: 0,
        });
        events.push(TimelineEvent {
            kind: EventKind::Brick,
            name: id,
            start_ns: start + 1_000,
            dur_ns: 5_000,
            layer: None,
            direction: None,
            elements: 0,
            bytes: 0,
            flops: 0,
        });
        let mut entry = RecordedTraceEntry::new(i, name.as_str())
            .with_device_id(name.as_str())
            .with_output_shape(vec![2, 3]);
        entry.duration_us = 3.0 + i as f64;
        entry.start_us = Some(i as f64 * 10.0);
        entry.thread = Some(1);
        trace.add_entry(entry);
    }
    p.timeline = Timeline {
        names: timeline_names,
        threads: vec![ThreadTimeline {
            thread: 1,
            name: Some("thread\n;<x>".into()),
            events,
        }],
        dropped: 0,
        device_starts: Vec::new(),
    };
    p.trace = trace;
    let ops: Vec<LayerOp> = names
        .iter()
        .enumerate()
        .map(|(i, name)| LayerOp {
            name: name.clone(),
            count: 2,
            total_ns: 1_000_000 * (i as u64 + 1),
        })
        .collect();
    for direction in [Direction::Forward, Direction::Backward] {
        p.layers.push(LayerStats {
            index: 0,
            direction,
            scope_count: 2,
            scope_ns: 200_000_000,
            ops: ops.clone(),
        });
    }
    p
}
