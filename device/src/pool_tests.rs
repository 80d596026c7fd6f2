//! The pool over a fake stream: events complete in record order as the fake
//! device advances, and each record lands 1 ms after the previous one.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};

use super::*;

/// A fake stream: the n-th record happens at n ms; the device has finished
/// every record below `done`.
#[derive(Default)]
struct FakeStream {
    records: AtomicU64,
    done: AtomicU64,
    fail_records: AtomicBool,
    queried: Mutex<Vec<u64>>,
}

/// A fake event: which record it last was.
struct FakeEvent(AtomicU64);

impl EventSource for FakeStream {
    type Event = FakeEvent;
    fn create(&self) -> Result<FakeEvent, DeviceError> {
        Ok(FakeEvent(AtomicU64::new(u64::MAX)))
    }
    fn record(&self, event: &FakeEvent) -> Result<(), DeviceError> {
        if self.fail_records.load(SeqCst) {
            return Err(DeviceError::Driver {
                call: "record",
                message: "fake failure".into(),
            });
        }
        event.0.store(self.records.fetch_add(1, SeqCst), SeqCst);
        Ok(())
    }
    fn is_complete(&self, event: &FakeEvent) -> bool {
        let n = event.0.load(SeqCst);
        self.queried.lock().unwrap().push(n);
        n < self.done.load(SeqCst)
    }
    fn elapsed_ms(&self, start: &FakeEvent, end: &FakeEvent) -> Result<f32, DeviceError> {
        Ok((end.0.load(SeqCst) - start.0.load(SeqCst)) as f32)
    }
}

fn pool(capacity: usize) -> EventPool<FakeStream> {
    EventPool::new(FakeStream::default(), capacity)
}

fn finish_all(pool: &EventPool<FakeStream>) {
    let s = pool.source();
    s.done.store(s.records.load(SeqCst), SeqCst);
}

#[test]
fn resolves_the_time_between_two_completed_events() {
    let pool = pool(8);
    let a = pool.record();
    pool.record();
    let b = pool.record();
    finish_all(&pool);
    assert_eq!(pool.elapsed_ns(a, b), Some(2_000_000));
    assert_eq!(pool.stats().resolved, 1);
}

#[test]
fn an_unfinished_event_is_not_waited_for() {
    let pool = pool(8);
    let a = pool.record();
    let b = pool.record();
    pool.source().done.store(1, SeqCst);
    assert_eq!(pool.elapsed_ns(a, b), None);
    assert_eq!(pool.stats().incomplete, 1);
    finish_all(&pool);
    assert_eq!(pool.elapsed_ns(a, b), Some(1_000_000));
}

#[test]
fn draining_stops_at_the_first_running_event() {
    let pool = pool(8);
    for _ in 0..5 {
        pool.record();
    }
    pool.source().done.store(2, SeqCst);
    assert_eq!(pool.drain(), 2);
    // Oldest first, and no event after the running one was queried.
    assert_eq!(*pool.source().queried.lock().unwrap(), vec![0, 1, 2]);
    finish_all(&pool);
    assert_eq!(pool.drain(), 3);
    assert_eq!(pool.drain(), 0);
}

#[test]
fn drops_at_capacity_and_counts_them() {
    let pool = pool(2);
    let a = pool.record();
    let b = pool.record();
    let c = pool.record();
    assert_eq!(c, DROPPED);
    assert_eq!(pool.stats().dropped, 1);
    assert_eq!(pool.elapsed_ns(a, c), None);
    // A released event makes room again, and is reused, not recreated.
    pool.release(a);
    assert_ne!(pool.record(), DROPPED);
    assert_eq!(pool.stats().created, 2);
    assert_eq!(pool.stats().in_flight, 2);
    let _ = b;
}

#[test]
fn a_released_handle_is_stale_even_when_its_event_is_reused() {
    let pool = pool(1);
    let a = pool.record();
    pool.release(a);
    let b = pool.record();
    finish_all(&pool);
    assert_ne!(a, b);
    assert_eq!(pool.elapsed_ns(a, b), None);
    assert_eq!(pool.elapsed_ns(b, b), Some(0));
    pool.release(a);
    assert_eq!(pool.stats().in_flight, 1, "a stale release frees nothing");
}

#[test]
fn a_failed_record_is_dropped_and_its_event_kept() {
    let pool = pool(4);
    pool.source().fail_records.store(true, SeqCst);
    assert_eq!(pool.record(), DROPPED);
    pool.source().fail_records.store(false, SeqCst);
    assert_ne!(pool.record(), DROPPED);
    let stats = pool.stats();
    assert_eq!((stats.failed, stats.created, stats.in_flight), (1, 1, 1));
}

#[test]
fn thousands_of_bricks_reuse_a_small_pool_without_loss() {
    let pool = pool(4);
    for brick in 0..10_000u64 {
        let a = pool.record();
        let b = pool.record();
        finish_all(&pool);
        assert_eq!(pool.elapsed_ns(a, b), Some(1_000_000), "brick {brick}");
        pool.release(a);
        pool.release(b);
    }
    let stats = pool.stats();
    assert_eq!(
        (stats.resolved, stats.dropped, stats.created),
        (10_000, 0, 2)
    );
    assert_eq!(stats.in_flight, 0);
}

#[test]
fn a_clean_run_has_no_notes_and_each_problem_has_one() {
    assert!(pool_notes("CUDA", &PoolStats::default()).is_empty());
    let stats = PoolStats {
        dropped: 3,
        incomplete: 2,
        in_flight: 4,
        ..PoolStats::default()
    };
    let notes = pool_notes("CUDA", &stats);
    assert_eq!(notes.len(), 3);
    assert!(
        notes[0].starts_with("CUDA timer: 3 events dropped"),
        "{notes:?}"
    );
    assert!(notes[2].contains("4 events in flight"), "{notes:?}");
}
