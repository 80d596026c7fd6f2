//! tracing `#[instrument]` through this project's `BrickLayer` on a
//! `tracing-subscriber` `Registry`: the `tracing` row's span, recorded as a
//! brick. Its subscriber is the thread's scoped default (the `tracing` row
//! holds the global one), which costs a thread-local lookup per span and a
//! reference count on the dispatcher: the `tracing-scoped` row is the
//! counting layer under the same kind of default, to compare like with like.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use profiler_tracing::BrickLayer;
use tracing::Dispatch;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::Registry;

use crate::measure::{call_n, ns_per_call};
use crate::rivals::tracing_spans::CountEnters;
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
