//! A device timer that captures kernels puts them in the profile's
//! `device_kernels` at each snapshot; the section survives the JSON round
//! trip and is absent from profiles without a capture.

mod common;

use std::sync::Mutex;

use profiler::brick;
use profiler::profile::{ActivityKind, BrickKernels, DeviceKernels, KernelEvent, KernelRow};
use profiler::sync::{CpuEventTimer, DeviceEvent, DeviceTimer};

/// A host-clock timer reporting one captured kernel under `kernels_brick`,
/// and events at the host times it is given.
#[derive(Default)]
struct CapturingTimer {
    clock: CpuEventTimer,
    events_at: Mutex<Vec<u64>>,
}

fn event(start_ns: u64) -> KernelEvent {
    KernelEvent {
        name: "gemm".into(),
        kind: ActivityKind::Kernel,
        device: 0,
        stream: 7,
        correlation: 1,
        start_ns,
        dur_ns: 10,
        brick: Some("kernels_brick".into()),
        thread: Some(0),
        launch_ns: Some(start_ns),
        grid: [1, 1, 1],
        block: [32, 1, 1],
    }
}

fn captured() -> DeviceKernels {
    DeviceKernels {
        source: "cupti".into(),
        bricks: vec![BrickKernels {
            brick: "kernels_brick".into(),
            self_ns: 750,
            total_ns: 750,
            activities: 1,
            kernels: vec![KernelRow {
                name: "void gemm<float>(float*, float*, int)".into(),
                kind: ActivityKind::Kernel,
                calls: 1,
                total_ns: 750,
                min_ns: 750,
                max_ns: 750,
                grid: Some([64, 2, 1]),
                block: Some([256, 1, 1]),
                registers: Some(40),
                shared_bytes: Some(5120),
            }],
            ..BrickKernels::default()
        }],
        device_ns: 750,
        ..DeviceKernels::default()
    }
}

impl DeviceTimer for CapturingTimer {
    fn record_event(&self) -> DeviceEvent {
        self.clock.record_event()
    }
    fn elapsed_ns(&self, start: DeviceEvent, end: DeviceEvent) -> Option<u64> {
        self.clock.elapsed_ns(start, end)
    }
    fn kernels(&self) -> Option<DeviceKernels> {
        let events = self
            .events_at
            .lock()
            .unwrap()
            .iter()
            .map(|&at| event(at))
            .collect();
        Some(DeviceKernels {
            events,
            ..captured()
        })
    }
}

#[brick("kernels_brick")]
fn launches() {
    std::hint::black_box(0);
}

#[test]
fn a_capturing_timer_fills_device_kernels_and_they_round_trip() {
    let _lock = common::exclusive();
    profiler::Config::new()
        .device_timer(CapturingTimer::default())
        .apply();
    launches();
    profiler::sync::finalize(profiler::sync::elapsed_ns());
    let profile = profiler::snapshot();
    profiler::Config::new().apply();
    profiler::disable();
    assert_eq!(
        profile.device_kernels.as_ref().map(|k| &k.bricks),
        Some(&captured().bricks)
    );
    let json = serde_json::to_string(&profile).expect("serialises");
    assert!(json.contains("\"kind\":\"kernel\""), "Kineto's category");
    let back: profiler::Profile = serde_json::from_str(&json).expect("reads back");
    assert_eq!(back.device_kernels, profile.device_kernels);
}

#[test]
fn without_a_capture_the_profile_has_no_device_kernels_key() {
    let _lock = common::exclusive();
    profiler::Config::new().enable();
    launches();
    let profile = profiler::snapshot();
    profiler::disable();
    assert_eq!(profile.device_kernels, None);
    let json = serde_json::to_string(&profile).expect("serialises");
    assert!(
        !json.contains("\"device_kernels\":"),
        "older readers see nothing new"
    );
}

#[test]
fn captured_events_move_from_the_host_clock_onto_the_timeline() {
    let _lock = common::exclusive();
    let timer = std::sync::Arc::new(CapturingTimer::default());
    profiler::Config::new()
        .device_timer(SharedTimer(std::sync::Arc::clone(&timer)))
        .trace_mode(true)
        .apply();
    let before = profiler::sync::host_now_ns();
    launches();
    profiler::sync::finalize(profiler::sync::elapsed_ns());
    let after = profiler::sync::host_now_ns();
    timer.events_at.lock().unwrap().extend([before, after]);
    let profile = profiler::snapshot();
    profiler::Config::new().apply();
    profiler::disable();
    let kernels = profile.device_kernels.expect("captured");
    let brick = profile
        .timeline
        .threads
        .iter()
        .flat_map(|t| &t.events)
        .find(|e| profile.timeline.name_of(e) == "kernels_brick")
        .expect("the brick is on the timeline");
    let (early, late) = (&kernels.events[0], &kernels.events[1]);
    assert!(
        early.start_ns <= brick.start_ns,
        "{} after {}",
        early.start_ns,
        brick.start_ns
    );
    assert!(
        late.start_ns >= brick.start_ns + brick.dur_ns,
        "read after the brick ended"
    );
    assert_eq!(
        early.launch_ns,
        Some(early.start_ns),
        "launch times move too"
    );
}

/// Installs a shared timer (the test keeps a handle to feed it).
struct SharedTimer(std::sync::Arc<CapturingTimer>);

impl DeviceTimer for SharedTimer {
    fn record_event(&self) -> DeviceEvent {
        self.0.record_event()
    }
    fn elapsed_ns(&self, start: DeviceEvent, end: DeviceEvent) -> Option<u64> {
        self.0.elapsed_ns(start, end)
    }
    fn kernels(&self) -> Option<DeviceKernels> {
        self.0.kernels()
    }
}
