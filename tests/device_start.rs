//! Device starts: a timer that says when the device reached a brick's start
//! event places the brick's kernel there (on the timeline and in the Chrome
//! trace) and measures the wait from launch to device start.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use profiler::brick;
use profiler::profile::LaunchGap;
use profiler::sync::{self, CpuEventTimer, DeviceEvent, DeviceTimer};
use profiler::trace::{EventKind, Timeline, TimelineEvent};
use serde_json::Value;

/// The host-clock timer, logging its events' times, optionally claiming
/// the device reached each event `delay_ns` later (a queue ahead of it).
#[derive(Default)]
struct LoggingTimer {
    clock: CpuEventTimer,
    delay_ns: u64,
    /// Say nothing about device starts (a durations-only timer).
    durations_only: bool,
    events: Arc<Mutex<Vec<u64>>>,
}

impl DeviceTimer for LoggingTimer {
    fn record_event(&self) -> DeviceEvent {
        let event = self.clock.record_event();
        self.events.lock().unwrap().push(event.0);
        event
    }
    fn elapsed_ns(&self, start: DeviceEvent, end: DeviceEvent) -> Option<u64> {
        self.clock.elapsed_ns(start, end)
    }
    fn host_time_ns(&self, event: DeviceEvent) -> Option<u64> {
        if self.durations_only {
            return None;
        }
        Some(self.clock.host_time_ns(event)? + self.delay_ns)
    }
}

#[brick("QueuedKernel")]
fn kernel() {
    std::thread::sleep(Duration::from_millis(1));
}

/// Runs `n` bricks a little apart under `timer` in trace mode, finalizes,
/// and returns the snapshot with the host times of the timer's events.
fn run(timer: LoggingTimer, n: usize, trace: bool) -> (profiler::Profile, Vec<u64>) {
    let events = Arc::clone(&timer.events);
    profiler::Config::new()
        .trace_mode(trace)
        .device_timer(timer)
        .apply();
    sync::reset_epoch();
    for _ in 0..n {
        kernel();
        std::thread::sleep(Duration::from_millis(2));
    }
    sync::finalize(sync::elapsed_ns());
    let profile = profiler::snapshot();
    let events = events.lock().unwrap().clone();
    (profile, events)
}

/// The brick events of the one recording thread, with their device starts.
fn bricks(timeline: &Timeline) -> Vec<(TimelineEvent, Option<u64>)> {
    let thread = &timeline.threads[0];
    thread
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind == EventKind::Brick)
        .map(|(i, e)| {
            let start = timeline
                .device_starts
                .iter()
                .find(|d| d.thread == thread.thread && d.event as usize == i)
                .map(|d| d.start_ns);
            (*e, start)
        })
        .collect()
}

#[test]
fn a_brick_starts_on_the_device_where_its_start_event_was_taken() {
    let _lock = common::exclusive();
    let (profile, events) = run(LoggingTimer::default(), 3, true);
    let bricks = bricks(&profile.timeline);
    assert_eq!(bricks.len(), 3);
    let starts: Vec<u64> = bricks
        .iter()
        .map(|(_, s)| s.expect("a device start"))
        .collect();
    // Start events are every other event; their spacing on the timeline is
    // their spacing on the host clock, to the rounding of two conversions.
    let taken: Vec<u64> = events.iter().step_by(2).copied().collect();
    for i in 1..3 {
        let on_timeline = starts[i] - starts[i - 1];
        let on_host = taken[i] - taken[i - 1];
        assert!(
            on_timeline.abs_diff(on_host) <= 10,
            "{on_timeline} vs {on_host}"
        );
    }
    for (event, start) in &bricks {
        // The launch timestamp is read just after the start event.
        assert!(start.unwrap() <= event.start_ns + 10, "{start:?} {event:?}");
    }
    assert_eq!(
        profile.run.launch_gap,
        Some(LaunchGap {
            bricks: 3,
            total_ns: 0,
            mean_ns: 0.0,
            max_ns: 0
        }),
        "a start event taken before the launch timestamp waited for nothing"
    );
}

#[test]
fn a_queued_kernel_is_drawn_at_its_device_start_after_the_launch() {
    let _lock = common::exclusive();
    // A device a whole second behind: its starts lie past the finalize.
    let delay_ns = 1_000_000_000;
    let timer = LoggingTimer {
        delay_ns,
        ..LoggingTimer::default()
    };
    let (profile, _) = run(timer, 2, true);
    let gap = profile.run.launch_gap.expect("gaps measured");
    assert_eq!(gap.bricks, 2);
    // Each gap is the delay less the moment between the start event and
    // the launch timestamp.
    assert!(gap.max_ns <= delay_ns && gap.total_ns > delay_ns, "{gap:?}");
    for (event, start) in bricks(&profile.timeline) {
        let start = start.expect("a device start");
        assert!(start > event.start_ns && start <= event.start_ns + delay_ns + 10);
    }

    let json: Value = serde_json::from_str(&profiler_report::chrome_trace_json(&profile)).unwrap();
    let all = json["traceEvents"].as_array().unwrap();
    let kernels: Vec<&Value> = all.iter().filter(|e| e["cat"] == "kernel").collect();
    let cpu: Vec<&Value> = all.iter().filter(|e| e["cat"] == "brick").collect();
    assert_eq!((kernels.len(), cpu.len()), (2, 2));
    for (kernel, brick) in kernels.iter().zip(&cpu) {
        let (k, b) = (
            kernel["ts"].as_f64().unwrap(),
            brick["ts"].as_f64().unwrap(),
        );
        assert!(k > b + 900_000.0, "kernel at {k} µs, launch at {b} µs");
        assert_eq!(kernel["dur"], brick["dur"], "the device time");
        assert!(
            kernel["args"]["start"]
                .as_str()
                .is_some_and(|s| s.starts_with("device clock, anchored")),
            "{kernel}"
        );
        let id = &kernel["args"]["correlation"];
        let flows: Vec<&Value> = all
            .iter()
            .filter(|e| e["cat"] == "ac2g" && &e["id"] == id)
            .collect();
        assert_eq!(
            (flows[0]["ph"].as_str(), &flows[0]["ts"]),
            (Some("s"), &brick["ts"])
        );
        assert_eq!(
            (flows[1]["ph"].as_str(), &flows[1]["ts"]),
            (Some("f"), &kernel["ts"])
        );
    }
}

#[test]
fn a_durations_only_timer_leaves_kernels_at_the_launch_and_says_so() {
    let _lock = common::exclusive();
    let timer = LoggingTimer {
        durations_only: true,
        ..LoggingTimer::default()
    };
    let (profile, _) = run(timer, 2, true);
    assert!(profile.timeline.device_starts.is_empty());
    assert_eq!(profile.run.launch_gap, None);
    let json: Value = serde_json::from_str(&profiler_report::chrome_trace_json(&profile)).unwrap();
    let all = json["traceEvents"].as_array().unwrap();
    let kernel = all.iter().find(|e| e["cat"] == "kernel").unwrap();
    let brick = all.iter().find(|e| e["cat"] == "brick").unwrap();
    assert_eq!(kernel["ts"], brick["ts"]);
    assert!(
        kernel["args"]["start"]
            .as_str()
            .is_some_and(|s| s.contains("launch on the host") && s.contains("no device start")),
        "{kernel}"
    );
}

#[test]
fn gaps_are_measured_without_trace_mode_and_forgotten_on_reset() {
    let _lock = common::exclusive();
    let (profile, _) = run(LoggingTimer::default(), 4, false);
    assert!(profile.timeline.device_starts.is_empty(), "no timeline");
    assert_eq!(profile.run.launch_gap.map(|g| g.bricks), Some(4));
    profiler::reset();
    assert_eq!(profiler::snapshot().run.launch_gap, None);
}

#[test]
fn device_starts_and_gaps_survive_a_saved_file_and_old_files_read() {
    let _lock = common::exclusive();
    let (profile, _) = run(LoggingTimer::default(), 2, true);
    assert_eq!(profile.timeline.device_starts.len(), 2);
    let back = profiler::Profile::from_json(&profile.to_json()).unwrap();
    assert_eq!(back.timeline.device_starts, profile.timeline.device_starts);
    assert_eq!(back.run.launch_gap, profile.run.launch_gap);
    // A file from before: no `device_starts`, no `launch_gap`.
    let mut old: Value = serde_json::from_str(&profile.to_json()).unwrap();
    old["timeline"]
        .as_object_mut()
        .unwrap()
        .remove("device_starts");
    old["run"].as_object_mut().unwrap().remove("launch_gap");
    let back = profiler::Profile::from_json(&old.to_string()).unwrap();
    assert!(back.timeline.device_starts.is_empty());
    assert_eq!(back.run.launch_gap, None);
}
