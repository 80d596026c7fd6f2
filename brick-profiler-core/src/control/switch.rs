//! Switching the global profiler on and off, resetting it, and taking
//! snapshots.

use std::sync::atomic::Ordering::Relaxed;

use crate::context::{phase, step};
use crate::profile::Profile;
use crate::record::facts::run_facts;
use crate::record::state::{self, ENABLED, HOOK_PANICS};
use crate::record::thread::{LOST_AT_EXIT, registry};
use crate::record::{device, pending};

/// Turns recording on. The first call also starts the run clock and the
/// deferred-time epoch, and measures the profiler's own per-call cost (a few
/// milliseconds, once; every profile reports it). With the `off` feature
/// this does nothing.
pub fn enable() {
    if cfg!(feature = "off") {
        return;
    }
    let first = {
        let mut facts = run_facts();
        let first = facts.started.is_none();
        if first {
            facts.mark_start();
            crate::clock::reset_epoch();
        }
        first && facts.overhead.is_none()
    };
    if first {
        crate::overhead::calibrate();
    }
    // A tracking global allocator announces itself on its first allocation;
    // this one makes sure that happens before any brick records, so even the
    // first call of a program that never allocated before takes its memory
    // mark (see `alloc::Tracking`).
    drop(std::hint::black_box(Box::new(0_u8)));
    let mut settings = state::settings();
    settings.enabled = true;
    settings.publish();
}

/// Turns recording off; annotated calls then cost one relaxed load.
pub fn disable() {
    let mut settings = state::settings();
    settings.enabled = false;
    settings.publish();
}

/// Whether recording is on (it may still be paused by a step schedule).
#[must_use]
pub fn is_enabled() -> bool {
    state::load() & ENABLED != 0
}

/// Clears every measurement (bricks, layers, steps, phases, timeline,
/// pending records, counters) and restarts the run clock. Registrations,
/// settings, the schedule and bottleneck labels are kept.
///
/// Each thread clears its own storage the next time it records, so calls
/// in flight on other threads are never torn.
pub fn reset() {
    {
        let mut settings = state::settings();
        settings.generation = settings.generation.wrapping_add(1);
        settings.publish();
    }
    registry().clear_exited();
    step::reset();
    phase::phases().clear();
    pending::clear_local();
    LOST_AT_EXIT.store(0, Relaxed);
    HOOK_PANICS.store(0, Relaxed);
    device::TIMER_PANICS.store(0, Relaxed);
    crate::sync::DEVICE_FALLBACKS.store(0, Relaxed);
    crate::sync::LAUNCH_TO_SYNC.store(0, Relaxed);
    crate::sync::reset_launch_gaps();
    crate::tools::checksums::log().clear();
    crate::record::memory::reset();
    let mut facts = run_facts();
    facts.compressed.clear();
    if facts.started.is_some() {
        facts.mark_start();
    }
}

/// Copies everything recorded so far into a [`Profile`], without stopping
/// recording. Counts are exact for threads that have finished their calls,
/// including threads that have exited.
#[must_use]
pub fn snapshot() -> Profile {
    crate::snapshot::build()
}
