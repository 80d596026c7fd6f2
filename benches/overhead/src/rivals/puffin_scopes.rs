//! puffin `profile_function!` with scopes on, counted through a frame sink.
//!
//! puffin hands a thread's stream to the global profiler (under its mutex)
//! whenever the thread's outermost scope closes; applications nest their
//! scopes under a frame scope, so each batch runs inside one outer scope
//! and ends with `GlobalProfiler::lock().new_frame()`, which builds the
//! frame and calls the sink (inside the all-in CPU window).

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use puffin::GlobalProfiler;

use crate::measure::{call_n, ns_per_call};
use crate::variant::{Batch, Expect, Recorded, Variant};

#[inline(never)]
fn scoped(x: u64) -> u64 {
    puffin::profile_function!();
    black_box(x)
}

/// Turns scopes on, installs the counting sink and returns the variant.
#[must_use]
pub fn variant() -> Variant {
    puffin::set_scopes_on(true);
    let scopes = Arc::new(AtomicU64::new(0));
    let sink = Arc::clone(&scopes);
    GlobalProfiler::lock().add_sink(Box::new(move |frame| {
        sink.fetch_add(frame.meta().num_scopes as u64, Relaxed);
    }));
    Variant::new(
        "puffin",
        "puffin profile_function! (in a frame scope)",
        1,
        Expect::Every,
        move |calls| {
            let before = scopes.load(Relaxed);
            let timing = ns_per_call(calls, |n| {
                puffin::profile_scope!("batch");
                call_n(n, scoped);
            });
            GlobalProfiler::lock().new_frame();
            // The frame also holds the one outer "batch" scope.
            let kept = (scopes.load(Relaxed) - before).saturating_sub(1);
            Batch {
                timing,
                recorded: Recorded::Count(kept),
            }
        },
    )
}
