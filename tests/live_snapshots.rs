//! Snapshots taken while 32 threads record, with resets in between: every
//! brick of every snapshot is self-consistent (its histogram holds `count`
//! samples, its mean lies between its extremes) and passes the runtime's
//! own contract, not only the final snapshot after the threads stop.
//!
//! Its own test binary: it owns the global profiler while it runs.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use profiler::{Profile, brick};

const THREADS: usize = 32;
const SNAPSHOTS: usize = 300;
/// A reset after every this many snapshots.
const RESET_EVERY: usize = 40;
/// Calls a thread makes between pauses.
const BURST: u64 = 100;
const PAUSE: std::time::Duration = std::time::Duration::from_micros(500);

/// Spins `n` rounds, so durations vary and the extremes differ from the mean.
#[brick(RmsNorm)]
fn short(n: u32) -> u32 {
    (0..n).fold(0u32, |acc, i| std::hint::black_box(acc.wrapping_add(i)))
}

#[brick(Softmax)]
fn long(n: u32) -> u32 {
    (0..n * 8).fold(1u32, |acc, i| std::hint::black_box(acc ^ i))
}

/// What is inconsistent in `profile`'s bricks, in words (empty when nothing).
fn problems(profile: &Profile) -> Vec<String> {
    let mut found = Vec::new();
    for b in &profile.bricks {
        let in_histogram = b.latency.count();
        if in_histogram != b.count {
            found.push(format!(
                "{}: histogram holds {in_histogram} samples, count is {}",
                b.name, b.count
            ));
        }
        let avg_ns = b.total_ns as f64 / b.count.max(1) as f64;
        // 1 ns of slack for the tick-to-ns rounding, as the contract allows.
        if b.count > 0 && !(b.min_ns as f64 <= avg_ns + 1.0 && avg_ns <= b.max_ns as f64 + 1.0) {
            found.push(format!(
                "{}: mean {avg_ns:.1} ns outside [{}, {}] ns over {} calls",
                b.name, b.min_ns, b.max_ns, b.count
            ));
        }
    }
    let report = profiler_report::contracts::verify_contract("brick-profiler-v1", profile)
        .expect("the runtime's contract is embedded");
    for id in ["BP-001", "BP-002", "BP-003", "BP-006"] {
        match report.result(id) {
            Some(r) if r.verdict.is_ok() => {}
            Some(r) => found.push(format!("{id} {:?}: {}", r.verdict, r.detail)),
            None => found.push(format!("{id} is missing from the contract")),
        }
    }
    found
}

#[test]
fn every_live_snapshot_is_self_consistent() {
    profiler::enable();
    let stop = Arc::new(AtomicBool::new(false));
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut calls = 0u64;
                let mut n = t as u32;
                while !stop.load(Relaxed) {
                    for _ in 0..BURST {
                        n = n.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                        short(n % 64);
                        if n.is_multiple_of(16) {
                            long(n % 32);
                        }
                    }
                    calls += BURST;
                    // Bursts with pauses: the snapshotting thread gets its
                    // share of two cores, and threads still stop mid-call.
                    std::thread::sleep(PAUSE);
                }
                calls
            })
        })
        .collect();
    let mut torn = Vec::new();
    let mut with_bricks = 0;
    for i in 0..SNAPSHOTS {
        let profile = profiler::snapshot();
        with_bricks += usize::from(!profile.bricks.is_empty());
        let found = problems(&profile);
        if !found.is_empty() {
            torn.push((i, found));
        }
        if i % RESET_EVERY == RESET_EVERY - 1 {
            profiler::reset();
        }
    }
    stop.store(true, Relaxed);
    let calls: u64 = workers.into_iter().map(|w| w.join().expect("worker")).sum();
    profiler::disable();
    assert!(
        calls > 0 && with_bricks > SNAPSHOTS / 2,
        "the threads recorded"
    );
    assert!(
        torn.is_empty(),
        "{} of {SNAPSHOTS} snapshots were torn; the first: {:?}",
        torn.len(),
        torn.first()
    );
    // Once the threads stop, the final snapshot is exact as well.
    let last = profiler::snapshot();
    assert!(problems(&last).is_empty(), "{:?}", problems(&last));
}
