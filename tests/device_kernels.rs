//! A device timer that captures kernels puts them in the profile's
//! `device_kernels` at each snapshot; the section survives the JSON round
//! trip and is absent from profiles without a capture.

mod common;

use profiler::brick;
use profiler::profile::{ActivityKind, BrickKernels, DeviceKernels, KernelRow};
use profiler::sync::{CpuEventTimer, DeviceEvent, DeviceTimer};

/// A host-clock timer reporting one captured kernel under `kernels_brick`.
#[derive(Default)]
struct CapturingTimer {
    clock: CpuEventTimer,
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
        Some(captured())
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
    assert_eq!(profile.device_kernels, Some(captured()));
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
