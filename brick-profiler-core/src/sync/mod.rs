//! Sync modes for asynchronous devices, and deferred records.
//!
//! GPU kernels return before they finish, so a CPU timestamp after a launch
//! measures the launch, not the kernel. [`SyncMode`] picks the remedy: a
//! sync hook before every stop timestamp (`Immediate`) or at the end of
//! every layer scope (`PerLayer`), or deferred records resolved after the
//! user's one sync per forward pass (`Deferred`, the default), or nothing
//! (`None`). Install the hook or a [`DeviceTimer`] with
//! `profiler::Config`.
//!
//! Deferred records wait in a bounded per-thread queue; [`finalize`] on the
//! same thread turns them into samples. With a [`DeviceTimer`] installed,
//! bricks record device events and `finalize` attributes true device time to
//! each brick instead of launch-to-sync time.
//!
//! ```
//! # use profiler_core as profiler;
//! use profiler::sync::{self, CpuEventTimer, SyncMode};
//! profiler::Config::new()
//!     .sync_mode(SyncMode::Deferred)
//!     .device_timer(CpuEventTimer::default())
//!     .enable();
//! sync::reset_epoch();
//! // ... launch the forward pass's kernels, then wait for the device ...
//! sync::finalize(sync::elapsed_ns());
//! # profiler::disable();
//! ```

mod launch;

pub(crate) use launch::host_to_ticks;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::catalogue::{BrickCategory, BrickId};
pub use crate::profile::run::SyncMode;
use crate::record::amounts::Amounts;
use crate::record::device;
pub use crate::record::device::{CpuEventTimer, DeviceEvent, DeviceTimer};
use crate::record::guard::{push_pending, record_measured};
pub use crate::record::pending::DEFAULT_PENDING_CAPACITY;
use crate::record::pending::{self, Pending};
use crate::record::site;
use crate::record::state::{self, SyncHook};
use crate::record::thread::{current_layer, with_slab};

/// Sets the sync mode.
pub fn set_sync_mode(mode: SyncMode) {
    crate::contract::contract_pre_sync_verification!(mode);
    let mut settings = state::settings();
    settings.sync_mode = mode;
    settings.publish();
}

/// The current sync mode.
#[must_use]
pub fn sync_mode() -> SyncMode {
    state::sync_mode()
}

/// Installs (or, with `None`, removes) the hook that waits for the device.
/// A replaced hook is kept alive (a few bytes): brick calls in flight may
/// still be running it.
pub(crate) fn set_sync_hook(hook: Option<&'static SyncHook>) {
    let mut settings = state::settings();
    settings.sync_hook = hook;
    state::publish_callbacks(&settings);
    settings.publish();
}

/// Installs (or removes) the device timer; a replaced one stays allocated.
pub(crate) fn set_device_timer(timer: Option<&'static dyn DeviceTimer>) {
    let mut settings = state::settings();
    settings.device_timer = timer;
    state::publish_callbacks(&settings);
    settings.publish();
}

/// Device elapsed times that could not be resolved and fell back to
/// launch-to-sync time.
pub(crate) static DEVICE_FALLBACKS: AtomicU64 = AtomicU64::new(0);

/// Deferred samples that measured launch-to-sync time (no device time).
pub(crate) static LAUNCH_TO_SYNC: AtomicU64 = AtomicU64::new(0);

/// Queues a deferred sample of `brick` that started at `start_ns` (from
/// [`elapsed_ns`]); [`finalize`] completes it. No-op while disabled.
pub fn record_deferred(brick: BrickId, start_ns: u64, elements: u64) {
    deferred(|| brick as u32, start_ns, elements);
}

/// [`record_deferred`] for a brick named at run time; names of built-in
/// bricks resolve to them, other names get their own slot (category Other
/// unless an annotated call site declares one).
pub fn record_deferred_dynamic(name: &str, start_ns: u64, elements: u64) {
    deferred(
        || site::intern(name, BrickCategory::Other),
        start_ns,
        elements,
    );
}

fn deferred(slot: impl FnOnce() -> u32, start_ns: u64, elements: u64) {
    let state = state::load();
    if !state::is_recording(state) {
        return;
    }
    let record = Pending {
        slot: slot(),
        start_ns,
        amounts: Amounts {
            elements,
            ..Amounts::NONE
        },
        layer: current_layer(),
        device: None,
    };
    push_pending(state, record);
}

/// Turns the calling thread's pending records into samples: each lasted
/// `end_ns.saturating_sub(start_ns)` exactly, or its device time when a
/// [`DeviceTimer`] recorded it. Call right after the device sync. Records
/// queued before a `reset()` are discarded, not finalized.
///
/// When the timer also says when the device reached a brick's start event
/// ([`DeviceTimer::host_time_ns`]), the brick's timeline event keeps that
/// device start (trace exports draw the kernel there) and the wait from
/// launch to device start joins the profile's launch gaps.
pub fn finalize(end_ns: u64) {
    let state = state::load();
    // Bring the thread up to the current reset generation first: a reset
    // since the records were queued clears them.
    if with_slab(state, |_, _| ()).is_none() {
        return;
    }
    let timer = state::device_timer();
    // Where "now" is on both clocks, to place the samples on the timeline.
    let now_ticks = crate::clock::now(crate::clock::init());
    let now_ns = elapsed_ns();
    let now_host = crate::clock::host_ns();
    // The deferred base's zero on the host clock (the base moves on
    // `reset_epoch`, the host clock never does).
    let epoch_host = now_host.saturating_sub(now_ns);
    let ns_per_tick = crate::clock::ns_per_tick();
    pending::drain(|p| {
        let (device_ns, device_start) = match (timer, p.device) {
            (Some(timer), Some((start, end))) => {
                let ns = device::guarded(|| timer.elapsed_ns(start, end)).flatten();
                let at = ns.and_then(|_| device::guarded(|| timer.host_time_ns(start)).flatten());
                device::guarded(|| {
                    timer.release(start);
                    timer.release(end);
                });
                if ns.is_none() {
                    DEVICE_FALLBACKS.fetch_add(1, Relaxed);
                }
                (ns, at)
            }
            _ => (None, None),
        };
        if let Some(at) = device_start {
            launch::add(p.start_ns.saturating_add(epoch_host), at);
        }
        let start_ticks =
            device_start.map(|at| launch::host_to_ticks(at, (now_host, now_ticks), ns_per_tick));
        let elapsed = device_ns.unwrap_or_else(|| {
            LAUNCH_TO_SYNC.fetch_add(1, Relaxed);
            end_ns.saturating_sub(p.start_ns)
        });
        let end_ticks = now_ticks.saturating_sub(crate::clock::to_ticks(
            now_ns.saturating_sub(p.start_ns.saturating_add(elapsed)),
            ns_per_tick,
        ));
        let (slot, amounts, layer) = (p.slot, p.amounts, p.layer);
        record_measured(state, slot, end_ticks, elapsed, amounts, layer, start_ticks);
    });
    with_slab(state, |slab, _| slab.pending.store(0, Relaxed));
}

/// Whether the calling thread has records waiting for [`finalize`].
#[must_use]
pub fn has_pending() -> bool {
    pending_count() > 0
}

/// Number of the calling thread's records waiting for [`finalize`] (records
/// queued before a `reset()` no longer count).
#[must_use]
pub fn pending_count() -> usize {
    if with_slab(state::load(), |_, _| ()).is_none() {
        return 0;
    }
    pending::len()
}

/// Nanoseconds since the epoch (the first `enable()`, or the last
/// [`reset_epoch`]); the time base of [`record_deferred`] and [`finalize`].
/// Read from `Instant`, so differences are exact whatever the counter's
/// calibration.
#[must_use]
pub fn elapsed_ns() -> u64 {
    crate::clock::since_epoch_ns()
}

/// Now on the profiler's host clock: ns since its origin by the monotonic
/// clock (`Instant`), a zero that never moves (unlike [`elapsed_ns`]'s).
/// A [`DeviceTimer`] reports when the device reached an event on this
/// clock ([`DeviceTimer::host_time_ns`]); `finalize` converts it to the
/// timeline's ticks with a reading of both clocks taken together.
#[must_use]
pub fn host_now_ns() -> u64 {
    crate::clock::host_ns()
}

/// Launch gaps recorded so far (see [`crate::profile::LaunchGap`]).
pub(crate) fn launch_gaps() -> Option<crate::profile::LaunchGap> {
    launch::summary()
}

/// Forgets the launch gaps (on reset).
pub(crate) fn reset_launch_gaps() {
    launch::reset();
}

/// Makes "now" the zero of [`elapsed_ns`]; call at the start of a forward pass.
pub fn reset_epoch() {
    crate::clock::reset_epoch();
}

/// Sets the most deferred records a thread may hold before [`finalize`];
/// records beyond it are refused and counted as overflow.
pub(crate) fn set_pending_capacity(records: usize) {
    pending::set_capacity(records);
}
