//! tracing `#[instrument]` with a `tracing-subscriber` `Registry` and a
//! layer that counts span enters (the registry really creates, enters,
//! exits and closes every span).

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use tracing::span;
use tracing::subscriber::Subscriber;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::Registry;

use crate::measure::{call_n, ns_per_call};
use crate::variant::{Batch, Expect, Recorded, Variant};

/// Arguments are skipped so no field is recorded: the other profilers
/// capture none either.
#[tracing::instrument(skip_all)]
#[inline(never)]
fn instrumented(x: u64) -> u64 {
    black_box(x)
}

/// Counts every span enter.
pub(crate) struct CountEnters(pub(crate) Arc<AtomicU64>);

impl<S: Subscriber> Layer<S> for CountEnters {
    fn on_enter(&self, _id: &span::Id, _ctx: Context<'_, S>) {
        self.0.fetch_add(1, Relaxed);
    }
}

/// Installs the subscriber as the global default and returns the variant.
///
/// # Panics
/// If a global subscriber was already set.
#[must_use]
pub fn variant() -> Variant {
    let enters = Arc::new(AtomicU64::new(0));
    let subscriber = Registry::default().with(CountEnters(Arc::clone(&enters)));
    tracing::subscriber::set_global_default(subscriber).expect("no other global subscriber");
    Variant::new(
        "tracing",
        "tracing #[instrument] (Registry + layer)",
        1,
        Expect::Every,
        move |calls| {
            let before = enters.load(Relaxed);
            let timing = ns_per_call(calls, |n| call_n(n, instrumented));
            Batch {
                timing,
                recorded: Recorded::Count(enters.load(Relaxed) - before),
            }
        },
    )
}
