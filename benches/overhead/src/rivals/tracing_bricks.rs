//! tracing `#[instrument]` through this project's `BrickLayer` on a
//! `tracing-subscriber` `Registry`: the `tracing` row's span, recorded as a
//! brick. Its subscriber is the thread's scoped default (the `tracing` row
//! holds the global one), which costs a thread-local lookup per span and a
//! reference count on the dispatcher: the `tracing-scoped` row is the
//! counting layer under the same kind of default, to compare like with like.
//! The `tracing-timed` row is the least a layer that times spans must do:
//! read the raw counter on enter and on exit and keep the difference per
//! thread, with nothing else; the distance from it to `tracing-brick` is
//! what turning the time into a brick costs.

use std::cell::Cell;
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use profiler_tracing::BrickLayer;
use tracing::Dispatch;
use tracing::span;
use tracing::subscriber::Subscriber;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::Registry;

use crate::measure::{call_n, ns_per_call};
use crate::rivals::tracing_spans::CountEnters;
use crate::subjects::raw_counter;
use crate::variant::{Batch, Expect, Recorded, Variant};

/// The brick the span becomes: `#[instrument]` names it after the function.
const BRICK: &str = "bridged";

/// The same body and span settings as the `tracing` row's function.
#[tracing::instrument(skip_all)]
#[inline(never)]
fn bridged(x: u64) -> u64 {
    black_box(x)
}

/// The variant; each batch runs under its own subscriber and takes the
/// recorded count from a profiler snapshot.
#[must_use]
pub fn variant() -> Variant {
    let dispatch = Dispatch::new(Registry::default().with(BrickLayer::new()));
    Variant::new(
        "tracing-brick",
        "tracing #[instrument] (Registry + BrickLayer)",
        1,
        Expect::Every,
        move |calls| {
            profiler::enable();
            profiler::reset();
            let timing = tracing::dispatcher::with_default(&dispatch, || {
                ns_per_call(calls, |n| call_n(n, bridged))
            });
            let profile = profiler::snapshot();
            profiler::disable();
            Batch {
                timing,
                recorded: Recorded::Count(profile.brick(BRICK).map_or(0, |b| b.count)),
            }
        },
    )
}

/// The `tracing` row's counting layer as the thread's scoped default, over
/// the same function as the `tracing-brick` row.
#[must_use]
pub fn scoped_variant() -> Variant {
    let enters = Arc::new(AtomicU64::new(0));
    let dispatch = Dispatch::new(Registry::default().with(CountEnters(Arc::clone(&enters))));
    Variant::new(
        "tracing-scoped",
        "tracing #[instrument] (Registry + layer, scoped)",
        1,
        Expect::Every,
        move |calls| {
            let before = enters.load(Relaxed);
            let timing = tracing::dispatcher::with_default(&dispatch, || {
                ns_per_call(calls, |n| call_n(n, bridged))
            });
            Batch {
                timing,
                recorded: Recorded::Count(enters.load(Relaxed) - before),
            }
        },
    )
}

/// Open spans a thread may nest in the `tracing-timed` row's layer.
const DEPTH: usize = 64;

thread_local! {
    /// Counter reads at the enters of the thread's open spans.
    static STARTS: [Cell<u64>; DEPTH] = const { [const { Cell::new(0) }; DEPTH] };
    /// How many of them are open.
    static OPEN: Cell<usize> = const { Cell::new(0) };
    /// Ticks and spans timed on the thread.
    static TIMED: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

/// Times every span entered, per enter, in raw counter ticks.
struct TimeSpans;

impl<S: Subscriber> Layer<S> for TimeSpans {
    fn on_enter(&self, _id: &span::Id, _ctx: Context<'_, S>) {
        let depth = OPEN.get();
        if depth < DEPTH {
            STARTS.with(|s| s[depth].set(raw_counter()));
        }
        OPEN.set(depth + 1);
    }

    fn on_exit(&self, _id: &span::Id, _ctx: Context<'_, S>) {
        let end = raw_counter();
        let depth = OPEN.get().saturating_sub(1);
        OPEN.set(depth);
        if depth < DEPTH {
            let start = STARTS.with(|s| s[depth].get());
            let (ticks, spans) = TIMED.get();
            TIMED.set((ticks.wrapping_add(end.wrapping_sub(start)), spans + 1));
        }
    }
}

/// A layer that only times spans (two counter reads each), as the thread's
/// scoped default over the same function: the floor of any layer that
/// times spans.
#[must_use]
pub fn timed_variant() -> Variant {
    let dispatch = Dispatch::new(Registry::default().with(TimeSpans));
    Variant::new(
        "tracing-timed",
        "tracing #[instrument] (Registry + timing layer)",
        1,
        Expect::Every,
        move |calls| {
            let (_, before) = TIMED.get();
            let timing = tracing::dispatcher::with_default(&dispatch, || {
                ns_per_call(calls, |n| call_n(n, bridged))
            });
            Batch {
                timing,
                recorded: Recorded::Count(TIMED.get().1 - before),
            }
        },
    )
}
