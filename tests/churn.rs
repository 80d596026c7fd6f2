//! Thread churn in trace mode: many short-lived threads, each recording more
//! timeline events and trace entries than the process may keep. Memory
//! stays within the documented caps (48 bytes per event), every event and
//! entry beyond them is counted as dropped, and a reset returns the budget.
//!
//! Its own test binary, so the peak resident memory it reads is its own.

use profiler::{brick, trace_op};

/// Events the whole process may keep in this test.
const PROCESS_EVENTS: usize = 65_536;
/// Entries the whole process may keep in this test.
const PROCESS_ENTRIES: usize = 10_000;
const THREADS: usize = 2_000;
const CALLS: usize = 500;

#[brick("ChurnOp")]
fn churn_op() {
    std::hint::black_box(0u8);
}

#[trace_op(name = "churn_entry")]
fn churn_entry() {
    std::hint::black_box(0u8);
}

/// Peak resident set size so far, bytes (Linux), if readable.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn run_churn() {
    for batch in 0..THREADS / 100 {
        let workers: Vec<_> = (0..100)
            .map(|i| {
                std::thread::Builder::new()
                    .name(format!("churn-{batch}-{i}"))
                    .spawn(|| {
                        for _ in 0..CALLS {
                            churn_op();
                        }
                        churn_entry();
                        churn_entry();
                    })
                    .expect("spawn")
            })
            .collect();
        for w in workers {
            w.join().expect("worker");
        }
    }
}

#[test]
fn thread_churn_stays_within_the_process_caps() {
    profiler::Config::new()
        .trace_mode(true)
        .trace_process_capacity(PROCESS_EVENTS)
        .trace_entry_process_capacity(PROCESS_ENTRIES)
        .enable();
    let before = peak_rss();
    run_churn();
    let profile = profiler::snapshot();
    let after = peak_rss();

    let kept_events = profile.timeline.event_count() as u64;
    let total_events = (THREADS * CALLS) as u64;
    assert!(
        kept_events <= PROCESS_EVENTS as u64,
        "{kept_events} events kept"
    );
    assert_eq!(
        kept_events + profile.counters.timeline_dropped,
        total_events,
        "every event is kept or counted as dropped"
    );
    let kept_entries = profile.trace.entries.len() as u64;
    assert!(kept_entries <= PROCESS_ENTRIES as u64);
    assert_eq!(
        kept_entries + profile.counters.trace_entries_dropped,
        2 * THREADS as u64
    );
    assert_eq!(
        profile.brick("ChurnOp").map(|b| b.count),
        Some(total_events),
        "counts stay exact whatever the trace caps"
    );
    assert_eq!(profile.run.threads_seen as usize, THREADS);
    assert!(profile.threads.len() <= 1024, "the thread list is bounded");

    // Without the caps these threads would keep 1 000 000 events (48 MB)
    // and their chunks; with them, growth stays near the cap (3 MiB of
    // events) plus allocator slack and the 100 threads alive at a time.
    if let (Some(before), Some(after)) = (before, after) {
        let growth = after.saturating_sub(before);
        let allowed = (PROCESS_EVENTS * 48) as u64 * 2 + 48 * 1024 * 1024;
        assert!(
            growth <= allowed,
            "peak RSS grew by {growth} bytes, more than {allowed}"
        );
    }

    // A reset returns the budget: the next run keeps events again.
    profiler::reset();
    run_churn();
    let again = profiler::snapshot();
    assert!(again.timeline.event_count() > 0, "the budget came back");
    assert!(again.timeline.event_count() <= PROCESS_EVENTS);
}
