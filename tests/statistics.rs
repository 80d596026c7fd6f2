//! Brick statistics end to end: the percentile bound through the recording
//! path, and totals that never go backwards between snapshots.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Duration;

use profiler::brick;

#[test]
fn percentiles_of_equal_samples_and_one_outlier_stay_within_the_bound() {
    let _lock = common::exclusive();
    for _ in 0..100 {
        profiler::compat::record_elapsed("EqualSamples", Duration::from_nanos(1024), 1);
    }
    profiler::compat::record_elapsed("EqualSamples", Duration::from_millis(1), 1);
    let profile = profiler::snapshot();
    let stats = profile.brick("EqualSamples").expect("recorded");
    for q in [0.5, 0.9, 0.99] {
        let got = stats.percentile_ns(q) as f64;
        assert!(
            (got / 1024.0 - 1.0).abs() <= 1.0 / 33.0,
            "p{q}: {got} ns for samples of exactly 1024 ns"
        );
    }
    assert_eq!(stats.percentile_ns(1.0), 1_000_000, "the longest is exact");
    assert_eq!(stats.percentile_ns(0.0), 1024, "the shortest is exact");
}

#[brick("MonotonicOp")]
fn monotonic_op() {
    std::hint::black_box(0u64);
}

#[test]
fn totals_never_go_backwards_between_snapshots() {
    let _lock = common::exclusive();
    let stop = Arc::new(AtomicBool::new(false));
    let worker = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            while !stop.load(Relaxed) {
                monotonic_op();
            }
        })
    };
    while common::count("MonotonicOp") == 0 {
        std::thread::yield_now();
    }
    let (mut count, mut total) = (0, 0);
    for i in 0..400 {
        let profile = profiler::snapshot();
        if let Some(b) = profile.brick("MonotonicOp") {
            assert!(
                b.count >= count,
                "snapshot {i}: count {} < {count}",
                b.count
            );
            assert!(
                b.total_ns >= total,
                "snapshot {i}: total_ns {} < {total}",
                b.total_ns
            );
            (count, total) = (b.count, b.total_ns);
        }
    }
    stop.store(true, Relaxed);
    worker.join().expect("worker");
    assert!(count > 0, "snapshots saw the worker's samples");
}
