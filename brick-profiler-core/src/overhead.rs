//! Self-calibration: the profiler measures what it costs per call.
//!
//! On a private thread and a hidden slot, it times a loop of empty annotated
//! calls against the same loop unannotated (the cost added to the caller;
//! the fastest of several rounds of each, since noise only adds time),
//! and reads the median duration those empty calls recorded (the floor that
//! every sample carries). Profiles report both; opt-in subtraction removes
//! the floor from brick samples and says so in the profile's notes.

use std::hint::black_box;
use std::time::Instant;

use crate::record::amounts::Amounts;
use crate::record::facts::{Measured, run_facts};
use crate::record::guard::Recording;
use crate::record::site::intern_hidden;
use crate::record::state::{self, ENABLED, RAW_CLOCK};
use crate::record::thread::{mark_internal_thread, with_slab};
use crate::stats::{BUCKETS, bucket_bounds};

/// Calls per timed round.
const CALLS: u32 = 10_000;
/// Timed rounds; each loop's fastest round is kept, since noise only adds.
const ROUNDS: usize = 15;

#[inline(never)]
fn plain(x: u64) -> u64 {
    black_box(x)
}

#[inline(never)]
fn annotated(recording: Recording, slot: u32, x: u64) -> u64 {
    let _guard = recording.enter_slot(slot, Amounts::NONE);
    black_box(x)
}

/// Measures the profiler's per-call cost now (a few milliseconds, on a
/// private thread) and keeps it for every later profile.
pub(crate) fn calibrate() {
    let measured = std::thread::scope(|s| s.spawn(measure).join()).unwrap_or(Measured {
        per_call_ns: 0.0,
        floor_ticks: 0,
        floor_ns: 0.0,
    });
    run_facts().overhead = Some(measured);
}

fn measure() -> Measured {
    mark_internal_thread();
    let slot = intern_hidden("__profiler_overhead");
    // Record exactly as an enabled brick would, whatever the user's settings
    // (which may not even be published yet on the first `enable()`).
    let clock = if crate::clock::init() { RAW_CLOCK } else { 0 };
    let generation = state::load() & !((1 << state::GENERATION_SHIFT) - 1);
    let word = generation | ENABLED | clock;
    let recording = Recording::from_state(word);
    let (mut best_plain, mut best_annotated) = (f64::MAX, f64::MAX);
    for round in 0..=ROUNDS {
        let t0 = Instant::now();
        for i in 0..CALLS {
            plain(u64::from(i));
        }
        let t1 = Instant::now();
        for i in 0..CALLS {
            annotated(recording, slot, u64::from(i));
        }
        let t2 = Instant::now();
        if round > 0 {
            // Round 0 warms caches and allocates the thread's storage.
            best_plain = best_plain.min((t1 - t0).as_nanos() as f64);
            best_annotated = best_annotated.min((t2 - t1).as_nanos() as f64);
        }
    }
    let per_call_ns = (best_annotated - best_plain).max(0.0) / f64::from(CALLS);
    let floor_ticks = with_slab(state::load(), |slab, _| {
        let cell = slab.cell(slot);
        let counts: Vec<u64> = (0..BUCKETS).map(|i| cell.bucket_count(i)).collect();
        median_ticks(&counts)
    })
    .unwrap_or(0);
    let floor_ns = floor_ticks as f64 * crate::clock::ns_per_tick();
    Measured {
        per_call_ns,
        floor_ticks,
        floor_ns,
    }
}

/// Lower bound of the bucket holding the median sample (a conservative
/// floor: subtraction never removes more than the profiler's own cost).
fn median_ticks(counts: &[u64]) -> u64 {
    let total: u64 = counts.iter().sum();
    let mut seen = 0;
    for (i, c) in counts.iter().enumerate() {
        seen += c;
        if seen * 2 >= total && total > 0 {
            return bucket_bounds(i).0;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::bucket;

    #[test]
    fn median_is_the_lower_bound_of_the_middle_bucket() {
        let mut counts = vec![0u64; BUCKETS];
        counts[bucket(10)] = 3;
        counts[bucket(100)] = 5;
        counts[bucket(1000)] = 1;
        assert_eq!(median_ticks(&counts), bucket_bounds(bucket(100)).0);
        assert_eq!(median_ticks(&vec![0; BUCKETS]), 0);
    }
}
