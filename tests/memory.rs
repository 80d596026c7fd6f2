//! Memory attribution with the tracking allocator installed: exact bytes,
//! allocations, frees, peaks and retained bytes per brick (self and total),
//! per step, across threads, reallocations, device memory and unwinding.
//! This binary installs the global allocator; one such file per allocator.

mod common;

use std::hint::black_box;

use profiler::alloc::{DeviceMemory, MemoryKind, MemoryProfile, Tracking};
use profiler::brick;

#[global_allocator]
static ALLOC: Tracking<std::alloc::System> = Tracking::new(std::alloc::System);

fn memory() -> MemoryProfile {
    profiler::snapshot()
        .memory
        .expect("the tracking allocator charged memory")
}

/// Host memory of brick `name` in a fresh snapshot.
fn host(name: &str) -> profiler::alloc::BrickMemory {
    memory()
        .brick(name, MemoryKind::Host)
        .unwrap_or_else(|| panic!("no host memory for {name}"))
        .clone()
}

#[brick("MemKnown")]
fn known() -> Vec<u8> {
    let kept = black_box(Vec::<u8>::with_capacity(1000));
    let scratch = black_box(Vec::<u8>::with_capacity(500));
    drop(scratch);
    kept
}

/// Calls every brick once so names are interned and slabs exist.
fn warm_up() {
    drop(known());
    outer();
    consumer(producer());
    grow_and_shrink();
    profiler::reset();
}

#[test]
fn a_brick_is_charged_exactly_what_it_allocated_freed_and_kept() {
    let _lock = common::exclusive();
    warm_up();
    let kept = known();
    drop(kept);
    let m = host("MemKnown");
    assert_eq!(m.calls, 1);
    assert_eq!(m.allocated_bytes, 1500);
    assert_eq!(m.allocations, 2);
    assert_eq!(m.freed_bytes, 500);
    assert_eq!(m.retained_bytes, 1000, "the kept buffer was live at return");
    assert_eq!(m.peak_bytes, 1500, "both buffers were live at once");
    assert_eq!(m.self_allocated_bytes, 1500, "no bricks inside");
    assert!((m.allocations_per_call() - 2.0).abs() < f64::EPSILON);
}

#[brick("MemInner")]
fn inner() {
    black_box(Vec::<u8>::with_capacity(300));
}

#[brick("MemOuter")]
fn outer() -> usize {
    let own = black_box(Vec::<u8>::with_capacity(100));
    inner();
    inner();
    own.capacity()
}

#[test]
fn nested_bricks_split_self_from_total_like_time() {
    let _lock = common::exclusive();
    warm_up();
    outer();
    let (o, i) = (host("MemOuter"), host("MemInner"));
    assert_eq!((i.calls, i.allocated_bytes, i.allocations), (2, 600, 2));
    assert_eq!(i.peak_bytes, 300, "each call peaks at its own buffer");
    assert_eq!(o.allocated_bytes, 700, "the total includes the children");
    assert_eq!(o.allocations, 3);
    assert_eq!(o.self_allocated_bytes, 100);
    assert_eq!(o.self_allocations, 1);
    assert_eq!(o.freed_bytes, 700);
    assert_eq!(o.self_freed_bytes, 100);
    assert_eq!(o.peak_bytes, 400, "own buffer plus one child's at a time");
    assert_eq!(o.retained_bytes, 0);
}

#[brick("MemProducer")]
fn producer() -> Vec<u8> {
    black_box(Vec::with_capacity(256))
}

#[brick("MemConsumer")]
fn consumer(buffer: Vec<u8>) {
    drop(black_box(buffer));
}

#[test]
fn a_buffer_freed_in_another_brick_is_charged_to_the_freeing_brick() {
    let _lock = common::exclusive();
    warm_up();
    consumer(producer());
    let (p, c) = (host("MemProducer"), host("MemConsumer"));
    assert_eq!(
        (p.allocated_bytes, p.freed_bytes, p.retained_bytes),
        (256, 0, 256)
    );
    assert_eq!(
        (c.allocated_bytes, c.freed_bytes, c.retained_bytes),
        (0, 256, -256)
    );
    assert_eq!(c.peak_bytes, 0, "freeing never raises live bytes");
}

#[brick("MemRealloc")]
fn grow_and_shrink() {
    let mut v = black_box(Vec::<u8>::with_capacity(64));
    v.reserve_exact(256);
    assert_eq!(v.capacity(), 256);
    v.shrink_to(32);
    assert_eq!(v.capacity(), 32);
    drop(black_box(v));
}

#[test]
fn reallocations_count_as_a_free_of_the_old_size_and_an_allocation_of_the_new() {
    let _lock = common::exclusive();
    warm_up();
    grow_and_shrink();
    let m = host("MemRealloc");
    assert_eq!(m.allocated_bytes, 64 + 256 + 32);
    assert_eq!(m.allocations, 3);
    assert_eq!(m.freed_bytes, 64 + 256 + 32);
    assert_eq!(m.peak_bytes, 256, "the grown buffer alone, not old and new");
    assert_eq!(m.retained_bytes, 0);
}

#[brick("MemThreaded")]
fn threaded(bytes: usize) {
    black_box(Vec::<u8>::with_capacity(bytes));
}

#[test]
fn threads_charge_their_own_bricks() {
    let _lock = common::exclusive();
    threaded(1);
    profiler::reset();
    let handles: Vec<_> = (1..=4)
        .map(|t| std::thread::spawn(move || threaded(t * 1000)))
        .collect();
    for h in handles {
        h.join().expect("thread");
    }
    let m = host("MemThreaded");
    assert_eq!(m.calls, 4);
    assert_eq!(m.allocated_bytes, 10_000);
    assert_eq!(m.freed_bytes, 10_000);
    assert_eq!(m.peak_bytes, 4000, "the largest single call");
}

struct AllocatesOnDrop(usize);

impl Drop for AllocatesOnDrop {
    fn drop(&mut self) {
        black_box(Vec::<u8>::with_capacity(self.0));
    }
}

#[brick("MemPanicPlain")]
fn panics_plain() {
    let _quiet = AllocatesOnDrop(0);
    std::panic::resume_unwind(Box::new(()));
}

#[brick("MemPanicDrop")]
fn panics_allocating_in_drop() {
    let _noisy = AllocatesOnDrop(77);
    std::panic::resume_unwind(Box::new(()));
}

#[test]
fn an_allocation_in_drop_during_a_panic_is_charged_to_the_unwinding_brick() {
    let _lock = common::exclusive();
    for _ in 0..2 {
        let _ = std::panic::catch_unwind(panics_plain);
        let _ = std::panic::catch_unwind(panics_allocating_in_drop);
    }
    profiler::reset();
    let _ = std::panic::catch_unwind(panics_plain);
    let _ = std::panic::catch_unwind(panics_allocating_in_drop);
    // The unwinder's own allocations are the same in both; the difference
    // is the buffer allocated and freed in `drop`.
    let (plain, noisy) = (host("MemPanicPlain"), host("MemPanicDrop"));
    assert_eq!(noisy.calls, 1, "the brick closed while unwinding");
    assert_eq!(noisy.allocated_bytes - plain.allocated_bytes, 77);
    assert_eq!(noisy.allocations - plain.allocations, 1);
    assert_eq!(noisy.freed_bytes - plain.freed_bytes, 77);
}

#[test]
fn a_step_records_its_peak_and_the_brick_that_reached_it() {
    let _lock = common::exclusive();
    warm_up();
    {
        let _step = profiler::step(1);
        let kept = known();
        drop(black_box(kept));
    }
    let memory = memory();
    let step = memory
        .peak_step(MemoryKind::Host)
        .expect("the step allocated");
    assert_eq!(step.allocated_bytes, 1500);
    assert_eq!(step.allocations, 2);
    assert_eq!(step.freed_bytes, 1500);
    assert_eq!(step.peak_bytes, 1500);
    assert_eq!(step.peak_brick.as_deref(), Some("MemKnown"));
}

struct Pool;
impl DeviceMemory for Pool {}

#[brick("MemDevice")]
fn device_work(pool: &Pool) {
    pool.charge_alloc(4096);
    pool.charge_alloc(1024);
    pool.charge_free(1024);
}

#[test]
fn device_memory_is_charged_under_its_own_kind() {
    let _lock = common::exclusive();
    device_work(&Pool);
    profiler::reset();
    device_work(&Pool);
    let memory = memory();
    let d = memory
        .brick("MemDevice", MemoryKind::Device)
        .expect("device memory charged");
    assert_eq!((d.allocated_bytes, d.allocations), (5120, 2));
    assert_eq!(
        (d.freed_bytes, d.retained_bytes, d.peak_bytes),
        (1024, 4096, 5120)
    );
    assert!(
        memory.brick("MemDevice", MemoryKind::Host).is_none(),
        "no host memory was charged to it"
    );
}

#[test]
fn nothing_is_charged_while_the_profiler_is_disabled() {
    let _lock = common::exclusive();
    warm_up();
    profiler::disable();
    drop(known());
    profiler::enable();
    assert!(memory().brick("MemKnown", MemoryKind::Host).is_none());
}

#[test]
fn live_bytes_are_sampled_when_they_cross_a_threshold() {
    let _lock = common::exclusive();
    let big = black_box(vec![0u8; 4 << 20]);
    let memory = memory();
    drop(big);
    let live = memory.live_over_run(MemoryKind::Host);
    assert!(
        memory.track.iter().any(|s| s.live_bytes >= 3 << 20),
        "a 4 MiB buffer shows in the track: {:?}",
        memory.track
    );
    assert!(!live.is_empty());
}

#[test]
fn saved_profiles_keep_memory_and_old_files_still_read() {
    let _lock = common::exclusive();
    warm_up();
    drop(known());
    let profile = profiler::snapshot();
    let json = serde_json::to_string(&profile).expect("serialise");
    let back: profiler::Profile = serde_json::from_str(&json).expect("read back");
    assert_eq!(back.memory, profile.memory);
    assert_eq!(back.schema_version, profiler::profile::SCHEMA_VERSION);
    let old = include_str!("../fuzz/seeds/profile_json/train_tiny.profile.json");
    let old: profiler::Profile = serde_json::from_str(old).expect("a 1.1 profile reads");
    assert_eq!(old.schema_version, "1.1");
    assert!(old.memory.is_none());
}

#[brick("MemFirstChild")]
fn first_child() {
    black_box(Vec::<u8>::with_capacity(64 * 1024));
}

#[brick("MemFirstParent")]
fn first_parent() {
    black_box(Vec::<u8>::with_capacity(4 * 1024));
    first_child();
}

#[test]
fn the_first_call_of_a_brick_whose_child_runs_for_the_first_time_is_charged() {
    let _lock = common::exclusive();
    profiler::reset();
    for _ in 0..3 {
        first_parent();
    }
    let parent = host("MemFirstParent");
    assert_eq!(parent.calls, 3);
    assert_eq!(parent.allocated_bytes, 3 * (4 + 64) * 1024);
    assert_eq!(parent.self_allocated_bytes, 3 * 4 * 1024);
    let child = host("MemFirstChild");
    assert_eq!(child.calls, 3);
    assert_eq!(child.allocated_bytes, 3 * 64 * 1024);
}
