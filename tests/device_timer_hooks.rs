//! The device timer's optional hooks: brick names around each brick (what
//! NVTX ranges need) and notes that reach the profile.

mod common;

use std::sync::{Arc, Mutex};

use profiler::brick;
use profiler::sync::{self, CpuEventTimer, DeviceEvent, DeviceTimer};

/// A host-clock timer that logs the names it is told and writes one note.
#[derive(Default)]
struct NamingTimer {
    clock: CpuEventTimer,
    log: Arc<Mutex<Vec<String>>>,
}

impl DeviceTimer for NamingTimer {
    fn record_event(&self) -> DeviceEvent {
        self.clock.record_event()
    }
    fn elapsed_ns(&self, start: DeviceEvent, end: DeviceEvent) -> Option<u64> {
        self.clock.elapsed_ns(start, end)
    }
    fn names_bricks(&self) -> bool {
        true
    }
    fn brick_started(&self, name: &str) {
        self.log.lock().unwrap().push(format!("push {name}"));
    }
    fn brick_ended(&self) {
        self.log.lock().unwrap().push("pop".into());
    }
    fn notes(&self) -> Vec<String> {
        vec!["naming timer: 2 ranges".into()]
    }
}

#[brick("outer_kernel")]
fn outer() {
    inner();
}

#[brick("inner_kernel")]
fn inner() {
    std::hint::black_box(0);
}

#[test]
fn a_naming_timer_sees_each_brick_open_and_close_in_nesting_order() {
    let _lock = common::exclusive();
    let timer = NamingTimer::default();
    let log = Arc::clone(&timer.log);
    profiler::Config::new().device_timer(timer).apply();
    outer();
    sync::finalize(sync::elapsed_ns());
    assert_eq!(
        *log.lock().unwrap(),
        ["push outer_kernel", "push inner_kernel", "pop", "pop"]
    );
    let profile = profiler::snapshot();
    assert_eq!(profile.brick("inner_kernel").map(|b| b.count), Some(1));
    assert!(
        profile
            .run
            .notes
            .iter()
            .any(|n| n == "naming timer: 2 ranges"),
        "{:?}",
        profile.run.notes
    );
}

#[test]
fn a_timer_without_the_hooks_adds_no_notes() {
    let _lock = common::exclusive();
    profiler::Config::new()
        .device_timer(CpuEventTimer::default())
        .apply();
    inner();
    sync::finalize(sync::elapsed_ns());
    let notes = profiler::snapshot().run.notes;
    assert!(!notes.iter().any(|n| n.contains("timer:")), "{notes:?}");
}

#[test]
fn steps_phases_and_layers_open_named_ranges_around_their_bricks() {
    let _lock = common::exclusive();
    let timer = NamingTimer::default();
    let log = Arc::clone(&timer.log);
    profiler::Config::new().device_timer(timer).apply();
    {
        let step = profiler::step(8);
        let phase = profiler::phase("forward");
        let layer = profiler::layer(2u32, profiler::Direction::Forward);
        inner();
        drop(layer);
        drop(phase);
        let index = step.index();
        drop(step);
        sync::finalize(sync::elapsed_ns());
        assert_eq!(
            *log.lock().unwrap(),
            [
                format!("push step {index}"),
                "push forward".into(),
                "push layer 2 fwd".into(),
                "push inner_kernel".into(),
                "pop".into(),
                "pop".into(),
                "pop".into(),
                "pop".into(),
            ]
        );
    }
    profiler::disable();
}
