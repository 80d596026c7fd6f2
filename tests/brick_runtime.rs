//! The global profiler as `#[brick]` users see it: exact counts from many
//! threads, panics, recursion, async, on/off, custom bricks, snapshots.

mod common;

use std::sync::{Arc, Barrier};
use std::time::Duration;

use profiler::profile::BrickLevel;
use profiler::{BrickCategory, Profile, brick};

#[brick(RmsNorm, elements = 4u64)]
fn tiny_norm(x: u64) -> u64 {
    std::hint::black_box(x + 1)
}

#[test]
fn sixteen_threads_give_exact_counts_including_exited_threads() {
    let _lock = common::exclusive();
    const THREADS: usize = 16;
    const CALLS: u64 = 100_000;
    // Half the threads exit before the snapshot; the other half finish their
    // calls and stay alive until it is taken.
    let finished = Arc::new(Barrier::new(THREADS / 2 + 1));
    let snapshot_taken = Arc::new(Barrier::new(THREADS / 2 + 1));
    let mut exiting = Vec::new();
    let mut lingering = Vec::new();
    for t in 0..THREADS {
        let (finished, snapshot_taken) = (Arc::clone(&finished), Arc::clone(&snapshot_taken));
        let handle = std::thread::spawn(move || {
            for i in 0..CALLS {
                tiny_norm(i);
            }
            if t % 2 == 1 {
                finished.wait();
                snapshot_taken.wait();
            }
        });
        if t % 2 == 0 {
            exiting.push(handle)
        } else {
            lingering.push(handle)
        }
    }
    for h in exiting {
        h.join().expect("worker thread");
    }
    finished.wait();
    let profile = profiler::snapshot();
    snapshot_taken.wait();
    for h in lingering {
        h.join().expect("worker thread");
    }
    let stats = profile.brick("RmsNorm").expect("RmsNorm recorded");
    assert_eq!(stats.count, THREADS as u64 * CALLS);
    assert_eq!(stats.total_elements, THREADS as u64 * CALLS * 4);
    assert!(stats.min_ns <= stats.max_ns);
    assert!(stats.percentile_ns(0.5) <= stats.percentile_ns(0.99));
    assert_eq!(profile.threads.len(), THREADS);
    assert_eq!(
        profile.threads.iter().filter(|t| t.exited).count(),
        THREADS / 2
    );
    assert_eq!(profile.counters.lost(), 0);
    // Exited threads' data survives later snapshots too.
    assert_eq!(common::count("RmsNorm"), THREADS as u64 * CALLS);
}

#[brick("PanickyOp")]
fn panicky(fail: bool) -> u32 {
    assert!(!fail, "requested failure");
    7
}

#[test]
fn a_panicking_brick_is_counted_and_the_profiler_stays_usable() {
    let _lock = common::exclusive();
    let result = std::panic::catch_unwind(|| panicky(true));
    assert!(result.is_err());
    assert_eq!(
        common::count("PanickyOp"),
        1,
        "the unwinding call is a sample"
    );
    assert_eq!(panicky(false), 7);
    assert_eq!(common::count("PanickyOp"), 2);
}

#[brick("Fib")]
fn fib(n: u32) -> u64 {
    if n < 2 {
        return u64::from(n);
    }
    fib(n - 1) + fib(n - 2)
}

#[test]
fn recursion_counts_every_call() {
    let _lock = common::exclusive();
    assert_eq!(fib(15), 610);
    let profile = profiler::snapshot();
    let stats = profile.brick("Fib").expect("Fib recorded");
    assert_eq!(stats.count, 1973, "fib(15) makes 1973 calls");
    // Nested samples are all counted: the sum holds the outermost call and
    // every other one, each at least the shortest.
    assert!(stats.min_ns <= stats.max_ns);
    assert!(stats.total_ns >= stats.max_ns + (stats.count - 1) * stats.min_ns);
}

#[brick("Fallible")]
fn fallible(input: &str) -> Result<u32, std::num::ParseIntError> {
    let value: u32 = input.parse()?;
    if value == 0 {
        return Ok(0);
    }
    Ok(value * 2)
}

#[test]
fn early_return_and_question_mark_are_recorded() {
    let _lock = common::exclusive();
    assert!(fallible("x").is_err());
    assert_eq!(fallible("0"), Ok(0));
    assert_eq!(fallible("21"), Ok(42));
    assert_eq!(common::count("Fallible"), 3);
}

#[test]
fn a_disabled_profiler_records_nothing() {
    let _lock = common::exclusive();
    profiler::disable();
    assert!(!profiler::is_enabled());
    for i in 0..100 {
        tiny_norm(i);
        fib(3);
    }
    let profile = profiler::snapshot();
    assert!(profile.bricks.is_empty(), "{:?}", profile.bricks);
    profiler::enable();
    tiny_norm(1);
    assert_eq!(common::count("RmsNorm"), 1);
}

#[brick("SharedSlotOp", category = Attention)]
fn shared_a() {}

#[brick("SharedSlotOp", category = Attention)]
fn shared_b() {}

#[test]
fn custom_bricks_with_the_same_name_share_one_slot() {
    let _lock = common::exclusive();
    for _ in 0..3 {
        shared_a();
    }
    shared_b();
    let profile = profiler::snapshot();
    let shared: Vec<_> = profile
        .bricks
        .iter()
        .filter(|b| b.name == "SharedSlotOp")
        .collect();
    assert_eq!(shared.len(), 1);
    assert_eq!(shared[0].count, 4);
    assert_eq!(shared[0].category, BrickCategory::Attention);
    assert_eq!(profile.category(BrickCategory::Attention).count, 4);
    let sites = profile
        .sites
        .iter()
        .filter(|s| s.name == "SharedSlotOp")
        .count();
    assert_eq!(sites, 2, "both call sites are registered");
}

#[brick("NeverCalledOp")]
fn never_called() {}

#[test]
fn registered_but_uncalled_bricks_are_listed() {
    let _lock = common::exclusive();
    let _ = never_called as fn();
    let profile = profiler::snapshot();
    let uncalled: Vec<&str> = profile
        .uncalled_sites()
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert!(uncalled.contains(&"NeverCalledOp"), "{uncalled:?}");
    let site = profile
        .sites
        .iter()
        .find(|s| s.name == "NeverCalledOp")
        .expect("site");
    assert!(site.file.ends_with("brick_runtime.rs"));
    assert!(site.module_path.contains("brick_runtime"));
}

#[brick("PinnedTileOp", bytes = 4096u64, flops = 8192u64, level = l2)]
fn pinned_tile() {}

#[test]
fn a_pinned_level_reaches_the_profile_and_its_file() {
    let _lock = common::exclusive();
    profiler::enable();
    pinned_tile();
    let profile = profiler::snapshot();
    let site = profile
        .sites
        .iter()
        .find(|s| s.name == "PinnedTileOp")
        .expect("site");
    assert_eq!(site.level, Some(BrickLevel::L2));
    let unpinned = profile.sites.iter().find(|s| s.name == "NeverCalledOp");
    assert_eq!(unpinned.map(|s| s.level), Some(None));
    let json = serde_json::to_string(&profile).unwrap();
    assert!(json.contains(r#""level":"l2""#));
    let back: Profile = serde_json::from_str(&json).unwrap();
    assert_eq!(back.sites, profile.sites);
}

/// A future that is pending once, sleeping a little before waking itself.
struct SleepOnce(bool);

impl std::future::Future for SleepOnce {
    type Output = ();
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.0 {
            return std::task::Poll::Ready(());
        }
        self.0 = true;
        std::thread::sleep(Duration::from_millis(3));
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}

#[brick("AsyncOp")]
async fn async_op(n: u32) -> u32 {
    SleepOnce(false).await;
    SleepOnce(false).await;
    n + 1
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    struct Noop;
    impl std::task::Wake for Noop {
        fn wake(self: Arc<Self>) {}
    }
    let waker = std::task::Waker::from(Arc::new(Noop));
    let mut cx = std::task::Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let std::task::Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

#[test]
fn async_bricks_cover_the_whole_call_across_awaits_and_stay_send() {
    let _lock = common::exclusive();
    fn assert_send<T: Send>(t: T) -> T {
        t
    }
    let future = assert_send(async_op(1));
    assert_eq!(block_on(future), 2);
    let profile = profiler::snapshot();
    let stats = profile.brick("AsyncOp").expect("AsyncOp recorded");
    assert_eq!(stats.count, 1);
    assert!(
        stats.total_ns >= 6_000_000,
        "both 3 ms awaits are inside the sample: {} ns",
        stats.total_ns
    );
}

#[test]
fn reset_clears_measurements_but_keeps_registrations() {
    let _lock = common::exclusive();
    shared_a();
    tiny_norm(1);
    assert!(common::count("SharedSlotOp") > 0);
    profiler::reset();
    let profile = profiler::snapshot();
    assert!(profile.bricks.is_empty());
    assert!(profile.sites.iter().any(|s| s.name == "SharedSlotOp"));
    shared_a();
    assert_eq!(common::count("SharedSlotOp"), 1);
    assert!(profiler::is_enabled(), "reset keeps settings");
}

#[test]
fn snapshot_round_trips_through_json_and_disk() {
    let _lock = common::exclusive();
    for i in 0..50 {
        tiny_norm(i);
    }
    shared_b();
    let profile = profiler::snapshot();
    let back = Profile::from_json(&profile.to_json()).expect("own JSON parses");
    assert_eq!(back, profile);
    let dir = std::env::temp_dir().join(format!("profiler-roundtrip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("profile.json");
    profile.write(&path).expect("atomic write");
    assert_eq!(Profile::read(&path).expect("read back"), profile);
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(Result::ok)
        .collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left behind");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn summaries_list_recorded_bricks() {
    let _lock = common::exclusive();
    for i in 0..10 {
        tiny_norm(i);
    }
    let profile = profiler::snapshot();
    let json: serde_json::Value =
        serde_json::from_str(&profiler_report::summary_json(&profile)).expect("summary JSON");
    assert_eq!(json["bricks"][0]["name"], "RmsNorm");
    assert_eq!(json["bricks"][0]["count"], 10);
    assert_eq!(json["total_tokens"], 40);
    let text = profiler_report::summary_text(&profile);
    assert!(text.contains("RmsNorm") && text.contains("Norm"), "{text}");
}

#[brick(RmsNorm, elements = n)]
fn with_elements(n: u64) {
    std::hint::black_box(n);
}

#[test]
fn absurd_amounts_saturate_instead_of_wrapping_or_panicking() {
    let _lock = common::exclusive();
    std::thread::spawn(|| with_elements(u64::MAX))
        .join()
        .expect("thread");
    with_elements(u64::MAX);
    with_elements(1);
    let profile = profiler::snapshot();
    let stats = profile.brick("RmsNorm").expect("recorded");
    assert_eq!((stats.count, stats.total_elements), (3, u64::MAX));
    assert_eq!(profile.total_tokens(), u64::MAX);
}

#[brick("CategoryAfterLabel", category = Attention)]
fn category_after_label() {}

#[brick("CategoryAfterStart", category = Attention)]
fn category_after_start() {}

#[brick("CategoryAfterElapsed", category = Attention)]
fn category_after_elapsed() {}

#[brick("CategoryAfterDeferred", category = Attention)]
fn category_after_deferred() {}

#[test]
fn the_category_of_an_annotated_site_wins_whoever_registers_the_name_first() {
    let _lock = common::exclusive();
    // Each name reaches the profiler first through a path that knows no
    // category, then through its annotated call site.
    profiler::compat::set_brick_bottleneck(
        "CategoryAfterLabel",
        profiler::stats::BrickBottleneck::Memory,
    );
    profiler::compat::stop(profiler::compat::start("CategoryAfterStart"), 1);
    profiler::compat::record_elapsed_with_bytes(
        "CategoryAfterElapsed",
        Duration::from_micros(5),
        1,
        8,
        4,
    );
    profiler::sync::record_deferred_dynamic("CategoryAfterDeferred", 0, 1);
    profiler::sync::finalize(profiler::sync::elapsed_ns());
    category_after_label();
    category_after_start();
    category_after_elapsed();
    category_after_deferred();
    let profile = profiler::snapshot();
    for name in [
        "CategoryAfterLabel",
        "CategoryAfterStart",
        "CategoryAfterElapsed",
        "CategoryAfterDeferred",
    ] {
        let brick = profile.brick(name).expect("recorded");
        assert_eq!(brick.category, BrickCategory::Attention, "{name}");
    }
    assert!(
        profile.category(BrickCategory::Attention).count >= 4,
        "their time counts under Attention"
    );
}

#[brick("SelfOuter")]
fn self_outer() {
    self_inner();
    std::thread::sleep(Duration::from_millis(1));
    self_inner();
}

#[brick("SelfInner")]
fn self_inner() {
    std::thread::sleep(Duration::from_millis(1));
}

#[test]
fn self_time_plus_nested_time_is_the_total() {
    let _lock = common::exclusive();
    self_outer();
    self_outer();
    self_inner(); // called on its own: its own child of nothing
    let profile = profiler::snapshot();
    let outer = profile.brick("SelfOuter").expect("outer");
    let inner = profile.brick("SelfInner").expect("inner");
    assert_eq!(inner.count, 5);
    assert_eq!(inner.child_ns, 0, "a leaf has no nested time");
    assert_eq!(inner.self_ns(), inner.total_ns);
    // Four of the five inner calls ran inside the outer ones.
    assert!(outer.child_ns <= inner.total_ns);
    assert!(outer.child_ns >= 4_000_000, "four 1 ms calls nested");
    assert_eq!(outer.self_ns() + outer.child_ns, outer.total_ns);
    assert!(outer.self_ns() >= 2_000_000, "its own two 1 ms sleeps");
}
