//! Sync modes, sync hooks, device timers and deferred records.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::time::Duration;

use profiler::{
    BrickId, Direction, brick,
    sync::{CpuEventTimer, DeviceEvent, DeviceTimer, SyncMode},
};

#[brick(LmHead)]
fn lm_head() {
    std::hint::black_box(0);
}

#[test]
fn immediate_mode_runs_the_hook_before_every_stop() {
    let _lock = common::exclusive();
    let calls = Arc::new(AtomicU64::new(0));
    let seen = Arc::clone(&calls);
    profiler::Config::new()
        .sync_hook(move || {
            seen.fetch_add(1, SeqCst);
            std::thread::sleep(Duration::from_micros(200));
        })
        .apply();
    profiler::sync::set_sync_mode(SyncMode::Immediate);
    for _ in 0..5 {
        lm_head();
    }
    assert_eq!(calls.load(SeqCst), 5);
    let profile = profiler::snapshot();
    let stats = profile.brick("LmHead").expect("recorded");
    assert_eq!(stats.count, 5);
    assert!(
        stats.min_ns >= 200_000,
        "the hook's wait is inside the sample: {}",
        stats.min_ns
    );
    profiler::sync::set_sync_mode(SyncMode::None);
    lm_head();
    assert_eq!(calls.load(SeqCst), 5, "no hook outside Immediate mode");
}

#[test]
fn per_layer_mode_runs_the_hook_when_a_layer_ends() {
    let _lock = common::exclusive();
    let calls = Arc::new(AtomicU64::new(0));
    let seen = Arc::clone(&calls);
    profiler::Config::new()
        .sync_hook(move || {
            seen.fetch_add(1, SeqCst);
        })
        .apply();
    profiler::sync::set_sync_mode(SyncMode::PerLayer);
    for i in 0..3 {
        let _layer = profiler::layer(i, Direction::Forward);
        lm_head();
        lm_head();
    }
    assert_eq!(calls.load(SeqCst), 3);
}

#[test]
fn a_panicking_hook_is_contained_and_counted() {
    let _lock = common::exclusive();
    profiler::Config::new()
        .sync_hook(|| panic!("device lost"))
        .apply();
    profiler::sync::set_sync_mode(SyncMode::Immediate);
    lm_head();
    let profile = profiler::snapshot();
    assert_eq!(profile.brick("LmHead").map(|b| b.count), Some(1));
    assert_eq!(profile.counters.sync_hook_panics, 1);
}

#[test]
fn deferred_records_become_samples_at_finalize() {
    let _lock = common::exclusive();
    profiler::sync::reset_epoch();
    profiler::sync::record_deferred(BrickId::RmsNorm, 100, 8);
    profiler::sync::record_deferred_dynamic("MyKernel", 300, 2);
    profiler::sync::record_deferred_dynamic("Softmax", 400, 1);
    assert!(profiler::sync::has_pending());
    assert_eq!(profiler::sync::pending_count(), 3);
    assert!(
        profiler::snapshot().bricks.is_empty(),
        "nothing before finalize"
    );
    assert_eq!(profiler::snapshot().counters.pending, 3);
    profiler::sync::finalize(600);
    assert!(!profiler::sync::has_pending());
    let profile = profiler::snapshot();
    assert_eq!(
        profile
            .brick("RmsNorm")
            .map(|b| (b.count, b.total_ns, b.total_elements)),
        Some((1, 500, 8))
    );
    assert_eq!(
        profile.brick("MyKernel").map(|b| (b.total_ns, b.category)),
        Some((300, profiler::BrickCategory::Other))
    );
    assert_eq!(
        profile.brick("AttentionSoftmax").map(|b| b.total_ns),
        Some(200),
        "known names resolve"
    );
    assert_eq!(profile.counters.pending, 0);
    profiler::sync::record_deferred(BrickId::RmsNorm, 900, 1);
    profiler::sync::finalize(100);
    let stats = profiler::snapshot()
        .brick("RmsNorm")
        .cloned()
        .expect("recorded");
    assert_eq!(
        (stats.count, stats.min_ns),
        (2, 0),
        "end before start saturates to 0"
    );
}

#[test]
fn deferred_records_are_no_ops_while_disabled() {
    let _lock = common::exclusive();
    profiler::disable();
    profiler::sync::record_deferred(BrickId::RmsNorm, 0, 1);
    profiler::sync::record_deferred_dynamic("X", 0, 1);
    assert_eq!(profiler::sync::pending_count(), 0);
}

#[test]
fn deferred_overflow_is_counted_not_lost_silently() {
    let _lock = common::exclusive();
    profiler::Config::new().pending_capacity(10).apply();
    for i in 0..15 {
        profiler::sync::record_deferred(BrickId::Embedding, i, 1);
    }
    assert_eq!(profiler::sync::pending_count(), 10);
    let profile = profiler::snapshot();
    assert_eq!(profile.counters.pending_overflow, 5);
    assert_eq!(profile.counters.pending, 10);
    assert!(profiler_report::summary_text(&profile).contains("5 deferred records dropped"));
    profiler::sync::finalize(1_000);
    assert_eq!(common::count("Embedding"), 10);
}

#[test]
fn records_never_finalized_are_counted_when_their_thread_exits() {
    let _lock = common::exclusive();
    std::thread::spawn(|| {
        profiler::sync::record_deferred(BrickId::Sampling, 0, 1);
        profiler::sync::record_deferred(BrickId::Sampling, 0, 1);
    })
    .join()
    .expect("thread");
    let profile = profiler::snapshot();
    assert_eq!(profile.counters.pending_abandoned, 2);
    assert!(profile.brick("Sampling").is_none());
}

/// A device timer whose "device" takes a fixed 1 µs per kernel, whatever
/// the host does: lets the test tell device time from launch-to-sync time.
struct FixedKernelTimer {
    next: AtomicU64,
}

impl DeviceTimer for FixedKernelTimer {
    fn record_event(&self) -> DeviceEvent {
        DeviceEvent(self.next.fetch_add(1, SeqCst))
    }
    fn elapsed_ns(&self, start: DeviceEvent, end: DeviceEvent) -> Option<u64> {
        (end.0 == start.0 + 1).then_some(1_000)
    }
}

#[test]
fn a_device_timer_attributes_device_time_per_brick_at_finalize() {
    let _lock = common::exclusive();
    profiler::Config::new()
        .device_timer(FixedKernelTimer {
            next: AtomicU64::new(0),
        })
        .apply();
    profiler::sync::set_sync_mode(SyncMode::Deferred);
    for _ in 0..4 {
        lm_head();
    }
    assert_eq!(
        profiler::sync::pending_count(),
        4,
        "bricks wait for the sync"
    );
    std::thread::sleep(Duration::from_millis(2)); // launch-to-sync would be > 2 ms
    profiler::sync::finalize(profiler::sync::elapsed_ns());
    let stats = profiler::snapshot()
        .brick("LmHead")
        .cloned()
        .expect("recorded");
    assert_eq!(
        (stats.count, stats.total_ns),
        (4, 4_000),
        "device time, not launch-to-sync time"
    );
}

/// A device timer whose end events panic: a brick whose body panics then
/// drops its guard while unwinding, and the timer panics a second time.
struct PanickyEndTimer {
    calls: AtomicU64,
}

impl DeviceTimer for PanickyEndTimer {
    fn record_event(&self) -> DeviceEvent {
        let call = self.calls.fetch_add(1, SeqCst);
        assert!(call.is_multiple_of(2), "end event {call} fails");
        DeviceEvent(call)
    }
    fn elapsed_ns(&self, _: DeviceEvent, _: DeviceEvent) -> Option<u64> {
        None
    }
}

#[brick(Sampling)]
fn sample_and_panic() {
    panic!("kernel failed");
}

#[test]
fn a_device_timer_panicking_during_unwinding_is_counted_not_fatal() {
    let _lock = common::exclusive();
    profiler::Config::new()
        .device_timer(PanickyEndTimer {
            calls: AtomicU64::new(0),
        })
        .apply();
    let result = std::panic::catch_unwind(sample_and_panic);
    assert!(result.is_err(), "the body's panic still reaches the caller");
    profiler::sync::finalize(profiler::sync::elapsed_ns());
    let profile = profiler::snapshot();
    assert_eq!(profile.counters.device_timer_panics, 1);
    assert_eq!(
        profile.brick("Sampling").map(|b| b.count),
        Some(1),
        "the call is kept, timed from launch to sync"
    );
}

#[test]
fn the_cpu_event_timer_resolves_to_host_time() {
    let _lock = common::exclusive();
    profiler::Config::new()
        .device_timer(CpuEventTimer::default())
        .apply();
    {
        #[brick("SleepyKernel")]
        fn sleepy() {
            std::thread::sleep(Duration::from_millis(2));
        }
        sleepy();
    }
    profiler::sync::finalize(profiler::sync::elapsed_ns());
    let stats = profiler::snapshot()
        .brick("SleepyKernel")
        .cloned()
        .expect("recorded");
    assert!(
        stats.total_ns >= 2_000_000 && stats.total_ns < 200_000_000,
        "{}",
        stats.total_ns
    );
}

#[test]
fn legacy_string_api_resolves_names_and_records_bytes() {
    let _lock = common::exclusive();
    let timer = profiler::compat::start("Softmax");
    profiler::compat::stop(timer, 16);
    let timer = profiler::compat::start_brick(BrickId::GateProjection);
    profiler::compat::stop_brick(timer, 2);
    profiler::compat::record_elapsed("ZstdCompress", Duration::from_micros(50), 1);
    profiler::compat::record_elapsed_with_bytes(
        "ZstdCompress",
        Duration::from_micros(150),
        1,
        4_000,
        1_000,
    );
    profiler::compat::set_brick_bottleneck(
        "ZstdCompress",
        profiler::stats::BrickBottleneck::Compute,
    );
    let zstd = profiler::compat::stats("ZstdCompress").expect("dynamic brick");
    assert_eq!(
        (zstd.count, zstd.total_bytes, zstd.total_compressed_bytes),
        (2, 4_000, 1_000)
    );
    assert_eq!(zstd.compression_ratio(), 4.0);
    assert!(
        (199_990..=200_010).contains(&zstd.total_ns),
        "{}",
        zstd.total_ns
    );
    assert_eq!(zstd.bottleneck, profiler::stats::BrickBottleneck::Compute);
    assert_eq!(
        profiler::compat::stats("Softmax").map(|s| s.total_elements),
        Some(16)
    );
    assert_eq!(
        profiler::compat::stats("AttentionSoftmax").map(|s| s.count),
        Some(1)
    );
    assert!(profiler::compat::stats("NoSuchBrick").is_none());
    let names = profiler::compat::brick_names();
    for name in ["AttentionSoftmax", "GateProjection", "ZstdCompress"] {
        assert!(names.iter().any(|n| n == name), "{names:?}");
    }
    assert_eq!(profiler::compat::all_brick_stats().len(), names.len());
}

#[test]
fn deferred_and_pre_measured_durations_are_exact_whatever_the_clock_calibration() {
    let _lock = common::exclusive();
    profiler::sync::record_deferred(BrickId::LmHead, 1_000, 1);
    let _ = profiler::snapshot(); // recalibrates the counter's ns-per-tick
    profiler::sync::finalize(1_000_001_000);
    let mut expected = 1_000_000_000u64;
    for i in 0..1_000u64 {
        profiler::sync::record_deferred(BrickId::LmHead, i, 1);
        profiler::sync::finalize(i + 7_919 * i + 13);
        expected += 7_919 * i + 13;
    }
    profiler::compat::record_elapsed("Prefetch", Duration::from_secs(2), 1);
    let profile = profiler::snapshot();
    let head = profile.brick("LmHead").expect("recorded");
    assert_eq!(
        (head.count, head.total_ns, head.max_ns),
        (1_001, expected, 1_000_000_000)
    );
    assert_eq!(head.min_ns, 13);
    assert_eq!(
        profile.brick("Prefetch").map(|b| b.total_ns),
        Some(2_000_000_000)
    );
    assert!(
        profile
            .run
            .notes
            .iter()
            .any(|n| n.contains("1001 deferred samples measure launch-to-sync"))
    );
}

#[test]
fn reset_discards_pending_records_on_every_thread() {
    let _lock = common::exclusive();
    for i in 0..5 {
        profiler::sync::record_deferred(BrickId::Sampling, i, 1);
    }
    profiler::reset();
    assert_eq!(profiler::sync::pending_count(), 0);
    assert_eq!(
        profiler::snapshot().counters.pending,
        0,
        "no stale pending count"
    );

    let (queued_tx, queued_rx) = std::sync::mpsc::channel();
    let (reset_tx, reset_rx) = std::sync::mpsc::channel::<()>();
    let worker = std::thread::spawn(move || {
        for i in 0..7 {
            profiler::sync::record_deferred(BrickId::Sampling, i, 1);
        }
        queued_tx.send(()).expect("main waits");
        reset_rx.recv().expect("main resets");
        assert!(
            !profiler::sync::has_pending(),
            "the reset cleared this thread's queue"
        );
        profiler::sync::finalize(100);
    });
    queued_rx.recv().expect("worker queued");
    assert_eq!(profiler::snapshot().counters.pending, 7);
    profiler::reset();
    reset_tx.send(()).expect("worker waits");
    worker.join().expect("worker");
    let profile = profiler::snapshot();
    assert!(
        profile.brick("Sampling").is_none(),
        "pre-reset records are not finalized"
    );
    assert_eq!(
        (profile.counters.pending, profile.counters.pending_abandoned),
        (0, 0)
    );
}
