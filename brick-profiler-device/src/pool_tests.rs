//! The pool over a fake stream: events complete in record order as the fake
//! device advances, and each record lands 1 ms after the previous one; the
//! host clock is set by hand.

use std::collections::VecDeque;
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
    /// Whether the stream says it is idle, and how often it was asked.
    idle: AtomicBool,
    idle_asked: AtomicU64,
    /// The host clock, ns.
    host: AtomicU64,
    /// Host clock readings to give first, in order (then `host`).
    host_reads: Mutex<VecDeque<u64>>,
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
        Ok((end.0.load(SeqCst) as f64 - start.0.load(SeqCst) as f64) as f32)
    }
    fn is_idle(&self) -> bool {
        self.idle_asked.fetch_add(1, SeqCst);
        self.idle.load(SeqCst)
    }
    fn host_now_ns(&self) -> u64 {
        let scripted = self.host_reads.lock().unwrap().pop_front();
        scripted.unwrap_or_else(|| self.host.load(SeqCst))
    }
}

/// A pool over a stream that says it is idle, the host clock at `host_ns`.
fn idle_pool(capacity: usize, host_ns: u64) -> EventPool<FakeStream> {
    let pool = pool(capacity);
    pool.source().idle.store(true, SeqCst);
    pool.source().host.store(host_ns, SeqCst);
    pool
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
    assert!(PoolStats::default().notes("CUDA").is_empty());
    let stats = PoolStats {
        dropped: 3,
        incomplete: 2,
        in_flight: 4,
        ..PoolStats::default()
    };
    let notes = stats.notes("CUDA");
    assert_eq!(notes.len(), 3);
    assert!(
        notes[0].starts_with("CUDA timer: 3 events dropped"),
        "{notes:?}"
    );
    assert!(notes[2].contains("4 events in flight"), "{notes:?}");
}

#[test]
fn an_event_is_the_anchors_host_time_plus_the_device_time_since_it() {
    // The anchor is record 0 (device 0 ms) at host 5 ms; the bricks' events
    // are records 1 and 2.
    let pool = idle_pool(8, 5_000_000);
    let a = pool.record();
    let b = pool.record();
    finish_all(&pool);
    assert_eq!(pool.host_time_ns(a), Some(6_000_000));
    assert_eq!(pool.host_time_ns(b), Some(7_000_000));
    assert_eq!(pool.elapsed_ns(a, b), Some(1_000_000));
    let stats = pool.stats();
    assert_eq!((stats.anchors, stats.created, stats.in_flight), (1, 3, 2));
}

#[test]
fn an_event_is_never_placed_before_its_record_and_its_anchor_learns_from_it() {
    // The anchor (device 0 ms) reads host 5 ms; the device reaches it
    // later than that: a, recorded at host 6.5 ms, is 1 ms after it on the
    // device, so the anchor is worth at least 5.5 ms.
    let pool = idle_pool(8, 5_000_000);
    pool.source()
        .host_reads
        .lock()
        .unwrap()
        .extend([5_000_000, 5_000_000, 6_500_000]);
    let a = pool.record();
    pool.source().host.store(6_600_000, SeqCst);
    let b = pool.record();
    finish_all(&pool);
    assert_eq!(pool.host_time_ns(a), Some(6_500_000), "not 6.0 ms");
    assert_eq!(
        pool.host_time_ns(b),
        Some(7_500_000),
        "1 ms after a, as on the device"
    );
}

#[test]
fn an_unfinished_event_has_no_host_time_yet() {
    let pool = idle_pool(8, 0);
    let a = pool.record();
    assert_eq!(pool.host_time_ns(a), None);
    finish_all(&pool);
    assert_eq!(pool.host_time_ns(a), Some(1_000_000));
}

#[test]
fn a_busy_stream_takes_no_anchor_and_its_events_have_no_host_time() {
    let pool = pool(8);
    let a = pool.record();
    let b = pool.record();
    finish_all(&pool);
    assert_eq!(
        pool.elapsed_ns(a, b),
        Some(1_000_000),
        "durations still resolve"
    );
    assert_eq!((pool.host_time_ns(a), pool.stats().anchors), (None, 0));
}

#[test]
fn a_busy_stream_is_asked_again_only_after_the_retry_gap() {
    let pool = pool(64);
    for _ in 0..3 {
        pool.record();
    }
    assert_eq!(pool.source().idle_asked.load(SeqCst), 1);
    pool.source().host.store(crate::anchor::RETRY_NS, SeqCst);
    pool.record();
    assert_eq!(pool.source().idle_asked.load(SeqCst), 2);
}

#[test]
fn a_second_later_a_new_anchor_is_taken_and_the_old_one_serves_its_events() {
    let pool = idle_pool(8, 0);
    // Anchor 1 is record 0 at host 0; a1 is record 1.
    let a1 = pool.record();
    // Anchor 2 is record 2 at host 2 s; a2 is record 3.
    pool.source().host.store(2_000_000_000, SeqCst);
    let a2 = pool.record();
    finish_all(&pool);
    assert_eq!(pool.host_time_ns(a1), Some(1_000_000));
    assert_eq!(pool.host_time_ns(a2), Some(2_001_000_000));
    assert_eq!(pool.stats().anchors, 2);
    // a1's release frees anchor 1 too: two bricks fit without creating.
    pool.release(a1);
    pool.record();
    pool.record();
    let stats = pool.stats();
    assert_eq!((stats.created, stats.anchors, stats.dropped), (4, 2, 0));
}

#[test]
fn an_anchor_never_takes_a_bricks_last_event() {
    let pool = idle_pool(1, 0);
    let a = pool.record();
    assert_ne!(a, DROPPED);
    finish_all(&pool);
    assert_eq!((pool.host_time_ns(a), pool.stats().anchors), (None, 0));
}

#[test]
fn thousands_of_anchored_bricks_reuse_a_small_pool_without_loss() {
    let pool = idle_pool(4, 0);
    for brick in 0..10_000u64 {
        // Half a second per brick: a new anchor every other brick.
        pool.source().host.store(brick * 500_000_000, SeqCst);
        let a = pool.record();
        let b = pool.record();
        finish_all(&pool);
        let (ha, hb) = (pool.host_time_ns(a), pool.host_time_ns(b));
        assert_eq!(ha.map(|h| h + 1_000_000), hb, "brick {brick}");
        pool.release(a);
        pool.release(b);
    }
    let stats = pool.stats();
    assert_eq!(
        (stats.dropped, stats.in_flight, stats.anchors),
        (0, 0, 5_000)
    );
    assert!(stats.created <= 4);
}
