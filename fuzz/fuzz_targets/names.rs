//! Any names for bricks, phases, layer ops, trace ops, devices, threads and
//! the run: every output stays well-formed (JSON parses, SVG is XML, folded
//! stacks read back frame for frame, the terminal summary keeps one row per
//! brick) and the profile's JSON reads back.

#![no_main]

#[path = "../common/mod.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use profiler_core::profile::{LayerOp, LayerStats, PhaseStats, ThreadInfo};
use profiler_core::trace::{
    EventKind, RecordedExecutionTrace, RecordedTraceEntry, ThreadTimeline, Timeline,
    TimelineEvent,
};
use profiler_core::{BrickCategory, BrickStats, Direction, Profile};
use profiler_report::{summary_json, summary_text, trace};

/// Names beyond this many add nothing new but time.
const MAX_NAMES: usize = 32;

fn event(kind: EventKind, name: u32, start_ns: u64, dur_ns: u64) -> TimelineEvent {
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

fn profile(names: &[String]) -> Profile {
    let mut p = Profile::empty();
    p.run.name = names[0].clone();
    p.threads = vec![ThreadInfo {
        thread: 1,
        name: Some(names[names.len() - 1].clone()),
        exited: false,
    }];
    p.steps.count = 1;
    p.steps.tokens = 64;
    p.steps.total_ns = 1_000_000_000;
    p.steps.samples_ns = vec![1_000_000_000];
    let slot = 10_000u64;
    let mut timeline_names = vec!["step 0".to_owned()];
    let mut events = vec![event(EventKind::Step, 0, 0, slot * names.len() as u64 + 1_000)];
    let mut trace = RecordedExecutionTrace::new();
    let mut ops = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let n = i as u64 + 1;
        let mut brick = BrickStats::new(name, BrickCategory::Other);
        brick.count = 2;
        brick.total_ns = 1_000_000 * n;
        brick.min_ns = 400_000 * n;
        brick.max_ns = 600_000 * n;
        p.bricks.push(brick);
        p.phases.push(PhaseStats {
            name: name.clone(),
            count: 1,
            total_ns: 2_000_000 * n,
            min_ns: 2_000_000 * n,
            max_ns: 2_000_000 * n,
            in_steps_ns: 2_000_000 * n,
            latency: Default::default(),
        });
        ops.push(LayerOp {
            name: name.clone(),
            count: 2,
            total_ns: 1_000_000 * n,
        });
        timeline_names.push(name.clone());
        let id = u32::try_from(timeline_names.len() - 1).expect("at most MAX_NAMES + 1");
        let start = 1_000 + slot * i as u64;
        events.push(event(EventKind::Phase, id, start, 8_000));
        events.push(event(EventKind::Brick, id, start + 1_000, 5_000));
        let mut entry = RecordedTraceEntry::new(i, name.as_str()).with_device_id(name.as_str());
        entry.duration_us = 3.0 + i as f64;
        entry.start_us = Some(i as f64 * 10.0);
        entry.thread = Some(1);
        trace.add_entry(entry);
    }
    p.timeline = Timeline {
        names: timeline_names,
        threads: vec![ThreadTimeline {
            thread: 1,
            name: p.threads[0].name.clone(),
            events,
        }],
        dropped: 0,
        device_starts: Vec::new(),
    };
    p.trace = trace;
    for direction in [Direction::Forward, Direction::Backward] {
        p.layers.push(LayerStats {
            index: 0,
            direction,
            scope_count: 1,
            scope_ns: 200_000_000,
            ops: ops.clone(),
        });
    }
    p
}

fuzz_target!(|names: Vec<String>| {
    if names.is_empty() {
        return;
    }
    let names = &names[..names.len().min(MAX_NAMES)];
    let p = profile(names);
    common::check_profile(&p);
    let summary = common::assert_json(&summary_json(&p), "summary JSON");
    assert_eq!(
        summary["bricks"].as_array().map(Vec::len),
        Some(p.bricks.len()),
        "one summary entry per brick"
    );
    // The terminal summary: a title and a total, a blank line, the header,
    // then one row per brick up to the next blank line; no name adds a line
    // or a control character.
    let text = summary_text(&p);
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "the terminal summary holds a control character: {text:?}"
    );
    let rows = text.lines().skip(4).take_while(|l| !l.is_empty()).count();
    assert_eq!(rows, p.bricks.len(), "{text}");
    let collapsed = trace::flamegraph_collapsed(&p.trace);
    common::assert_folded(&collapsed);
    common::assert_flamegraph(&collapsed, &names[0]);
});
