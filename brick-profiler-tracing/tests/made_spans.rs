//! Spans found through the per-thread table of the spans a thread made:
//! ids the registry hands out again after a close, callsites alternating
//! on one thread, spans with data of their own between plain ones, spans
//! entered on a thread other than the one that made them, and more spans
//! than the table has entries. Every call lands on its own brick.

use std::sync::{Mutex, MutexGuard, PoisonError};

use profiler_core::{BrickCategory, Direction, Profile};
use profiler_tracing::{BrickLayer, SpanRule};
use tracing::Dispatch;
use tracing_subscriber::prelude::*;

/// The profiler is global: one test at a time.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(PoisonError::into_inner)
}

fn dispatch(layer: BrickLayer) -> Dispatch {
    Dispatch::new(tracing_subscriber::registry().with(layer))
}

/// Runs `body` under a fresh profiler with `dispatch` as the default.
fn profile(dispatch: &Dispatch, body: impl FnOnce()) -> Profile {
    profiler_core::reset();
    profiler_core::enable();
    tracing::dispatcher::with_default(dispatch, body);
    profiler_core::disable();
    profiler_core::snapshot()
}

fn count(profile: &Profile, name: &str) -> u64 {
    profile.brick(name).map_or(0, |b| b.count)
}

#[test]
fn reused_slots_alternating_callsites_and_own_data_keep_their_bricks() {
    let _serial = serial();
    let layer = BrickLayer::builder()
        .rule(SpanRule::named("numbered").layer_per_instance())
        .rule(SpanRule::named("hidden").skip())
        .rule(SpanRule::named("beta").custom("renamed", BrickCategory::Other))
        .build();
    let dispatch = dispatch(layer);
    let profile = profile(&dispatch, || {
        for i in 0..200u32 {
            // Each span is closed before the next is made: the registry
            // hands its slot to the next, and the thread's table entry of
            // that slot passes from callsite to callsite.
            tracing::info_span!("alpha").in_scope(|| {});
            tracing::info_span!("beta").in_scope(|| {});
            tracing::info_span!("hidden").in_scope(|| {});
            if i < 3 {
                tracing::info_span!("numbered").in_scope(|| {});
            }
            tracing::info_span!("fields", layer = i % 2).in_scope(|| {});
            // Made at once, entered after others were made and closed.
            let late = tracing::info_span!("late");
            tracing::info_span!("alpha").in_scope(|| {});
            late.in_scope(|| {});
        }
    });
    assert_eq!(count(&profile, "alpha"), 400);
    assert_eq!(count(&profile, "renamed"), 200);
    assert_eq!(count(&profile, "beta"), 0);
    assert_eq!(count(&profile, "hidden"), 0, "skipped");
    assert_eq!(count(&profile, "numbered"), 3);
    assert_eq!(count(&profile, "fields"), 200);
    assert_eq!(count(&profile, "late"), 200);
    for index in 0..3 {
        let layer = profile.layer(index, Direction::Forward).expect("layer");
        let calls = layer.ops.iter().find(|o| o.name == "numbered");
        assert_eq!(calls.map(|o| o.count), Some(1), "instance {index}");
    }
    let fields = profile.layer(1, Direction::Forward).expect("layer 1");
    let calls = fields.ops.iter().find(|o| o.name == "fields");
    assert_eq!(calls.map(|o| o.count), Some(100), "odd passes");
}

#[test]
fn spans_made_elsewhere_or_past_the_table_are_found_by_lookup() {
    let _serial = serial();
    let dispatch = dispatch(BrickLayer::new());
    let profile = profile(&dispatch, || {
        // More spans alive at once than the table has entries, entered
        // after all were made: older entries were taken by newer spans.
        let many: Vec<_> = (0..600).map(|_| tracing::info_span!("kept")).collect();
        for span in many.iter().rev() {
            span.in_scope(|| {});
        }
        // Made here, entered on a thread that made spans of its own.
        let far = tracing::info_span!("far");
        let inner = tracing::dispatcher::get_default(Clone::clone);
        std::thread::spawn(move || {
            tracing::dispatcher::with_default(&inner, || {
                let own: Vec<_> = (0..300).map(|_| tracing::info_span!("near")).collect();
                for (i, span) in own.iter().enumerate() {
                    span.in_scope(|| {});
                    if i % 100 == 0 {
                        far.in_scope(|| {});
                    }
                }
            });
        })
        .join()
        .expect("the thread ends");
    });
    assert_eq!(count(&profile, "kept"), 600);
    assert_eq!(count(&profile, "near"), 300);
    assert_eq!(count(&profile, "far"), 3);
}
