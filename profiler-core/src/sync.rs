//! Sync modes for asynchronous devices, and deferred records.
//!
//! GPU kernels return before they finish, so a CPU timestamp after a launch
//! measures the launch, not the kernel. [`SyncMode`] picks the remedy:
//! a user sync hook before every stop timestamp (`Immediate`) or at the end
//! of every layer scope (`PerLayer`), or deferred records resolved after the
//! user's one sync per forward pass (`Deferred`), or nothing (`None`).
//!
//! Deferred records wait in a bounded per-thread queue; [`finalize`] on the
//! same thread turns them into samples. With a [`DeviceTimer`] installed,
//! bricks record device events and `finalize` attributes true device time to
//! each brick instead of launch-to-sync time.

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::catalogue::{BrickCategory, BrickId};
use crate::record::{self, Amounts};
use crate::state;

/// When the profiler waits for the device before taking a stop timestamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncMode {
    /// Run the sync hook before every brick's stop timestamp. Accurate, slow.
    Immediate,
    /// Run the sync hook when a layer scope ends.
    PerLayer,
    /// Bricks push pending records; [`finalize`] after the one sync per
    /// forward pass turns them into samples. With a [`DeviceTimer`] the
    /// samples are true device time; without one, `#[brick]` calls record
    /// their CPU time directly (there is nothing to wait for), and explicit
    /// [`record_deferred`] calls measure launch-to-sync time.
    #[default]
    Deferred,
    /// CPU timestamps only.
    None,
}

static MODE: AtomicU8 = AtomicU8::new(SyncMode::Deferred as u8);

fn mode_from_u8(v: u8) -> SyncMode {
    match v {
        0 => SyncMode::Immediate,
        1 => SyncMode::PerLayer,
        2 => SyncMode::Deferred,
        _ => SyncMode::None,
    }
}

/// Sets the sync mode.
pub fn set_sync_mode(mode: SyncMode) {
    let mut settings = state::settings();
    settings.sync_mode = mode;
    MODE.store(mode as u8, Relaxed);
    settings.publish();
}

/// The current sync mode.
#[must_use]
pub fn sync_mode() -> SyncMode {
    mode_from_u8(MODE.load(Relaxed))
}

/// Installs the hook that waits for the device (e.g. a CUDA stream
/// synchronize). It runs before every brick's stop timestamp in
/// [`SyncMode::Immediate`] and at the end of every layer scope in
/// [`SyncMode::PerLayer`]. A panicking hook is caught and counted.
///
/// Hooks are meant to be installed once: a replaced hook is kept alive (a
/// few bytes) because brick calls in flight may still be running it.
pub fn set_sync_hook(hook: impl Fn() + Send + Sync + 'static) {
    let hook: &'static state::SyncHook = Box::leak(Box::new(hook));
    let mut settings = state::settings();
    settings.sync_hook = Some(hook);
    state::publish_callbacks(&settings);
    settings.publish();
}

/// Removes the sync hook.
pub fn clear_sync_hook() {
    let mut settings = state::settings();
    settings.sync_hook = None;
    state::publish_callbacks(&settings);
    settings.publish();
}

/// Sync hook calls that panicked.
pub(crate) static HOOK_PANICS: AtomicU64 = AtomicU64::new(0);

/// Runs the sync hook, if any, containing a panic.
#[cold]
pub(crate) fn run_sync_hook() {
    if let Some(hook) = state::sync_hook()
        && catch_unwind(AssertUnwindSafe(hook)).is_err()
    {
        HOOK_PANICS.fetch_add(1, Relaxed);
    }
}

/// An opaque device event handle issued by a [`DeviceTimer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DeviceEvent(pub u64);

/// Device-side timing, e.g. CUDA events: record an event on the current
/// stream at brick start and end, and read elapsed device time after a sync.
///
/// ```
/// # use profiler_core as profiler;
/// use profiler::{DeviceEvent, DeviceTimer};
/// /// Shape of a CUDA implementation (pseudo-calls in comments).
/// struct CudaEvents;
/// impl DeviceTimer for CudaEvents {
///     fn record_event(&self) -> DeviceEvent {
///         // let e = cuEventCreate(); cuEventRecord(e, stream); handle of e
///         DeviceEvent(0)
///     }
///     fn elapsed_ns(&self, start: DeviceEvent, end: DeviceEvent) -> Option<u64> {
///         // cuEventElapsedTime(&ms, start, end) after the sync
///         Some(0)
///     }
///     fn release(&self, event: DeviceEvent) { /* cuEventDestroy */ }
/// }
/// ```
pub trait DeviceTimer: Send + Sync + 'static {
    /// Records an event in the device's stream order and returns its handle.
    fn record_event(&self) -> DeviceEvent;
    /// Device time between two events, once both have completed (after the
    /// user's sync). `None` if it cannot be resolved; the brick then falls
    /// back to launch-to-sync time and the fallback is counted.
    fn elapsed_ns(&self, start: DeviceEvent, end: DeviceEvent) -> Option<u64>;
    /// Releases an event once it has been resolved.
    fn release(&self, _event: DeviceEvent) {}
}

/// Installs a device timer: in [`SyncMode::Deferred`] every brick records a
/// device event at start and end, resolved by [`finalize`].
///
/// Like sync hooks, timers are meant to be installed once; a replaced timer
/// stays allocated.
pub fn set_device_timer(timer: impl DeviceTimer) {
    let timer: &'static dyn DeviceTimer = Box::leak(Box::new(timer));
    let mut settings = state::settings();
    settings.device_timer = Some(timer);
    state::publish_callbacks(&settings);
    settings.publish();
}

/// Removes the device timer.
pub fn clear_device_timer() {
    let mut settings = state::settings();
    settings.device_timer = None;
    state::publish_callbacks(&settings);
    settings.publish();
}

/// A [`DeviceTimer`] over the host clock: an event is "now". It resolves
/// to the same time a CPU measurement would, which makes it the reference for
/// tests and for checking a real device timer against.
#[derive(Debug)]
pub struct CpuEventTimer {
    origin: Instant,
}

impl Default for CpuEventTimer {
    fn default() -> Self {
        Self {
            origin: Instant::now(),
        }
    }
}

impl DeviceTimer for CpuEventTimer {
    fn record_event(&self) -> DeviceEvent {
        DeviceEvent(u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX))
    }

    fn elapsed_ns(&self, start: DeviceEvent, end: DeviceEvent) -> Option<u64> {
        end.0.checked_sub(start.0)
    }
}

/// One record waiting for [`finalize`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pending {
    pub(crate) slot: u32,
    pub(crate) start_ns: u64,
    pub(crate) amounts: Amounts,
    pub(crate) layer: u32,
    pub(crate) device: Option<(DeviceEvent, DeviceEvent)>,
}

/// Default bound of a thread's pending queue.
pub const DEFAULT_PENDING_CAPACITY: usize = 65_536;
static PENDING_CAPACITY: AtomicUsize = AtomicUsize::new(DEFAULT_PENDING_CAPACITY);

/// Sets the most deferred records a thread may hold before [`finalize`];
/// records beyond it are refused and counted as overflow.
pub fn set_pending_capacity(records: usize) {
    PENDING_CAPACITY.store(records.max(1), Relaxed);
}

/// A thread's queue of deferred records.
pub(crate) type PendingQueue = Vec<Pending>;

thread_local! {
    static QUEUE: RefCell<PendingQueue> = const { RefCell::new(Vec::new()) };
}

/// Queues a deferred record on the calling thread (bounded).
pub(crate) fn push_pending(state: u64, pending: Pending) {
    crate::slab::with_slab(state, |slab, _| {
        let accepted = QUEUE
            .try_with(|q| {
                let mut q = q.borrow_mut();
                if q.len() >= PENDING_CAPACITY.load(Relaxed) {
                    return false;
                }
                q.push(pending);
                slab.pending.store(q.len() as u64, Relaxed);
                true
            })
            .unwrap_or(false);
        if !accepted {
            crate::slab::bump(&slab.pending_overflow, 1);
            if let (Some(timer), Some((a, b))) = (state::device_timer(), pending.device) {
                timer.release(a);
                timer.release(b);
            }
        }
    });
}

/// Drops the calling thread's pending records (on reset).
pub(crate) fn clear_local_pending() {
    let _ = QUEUE.try_with(|q| q.borrow_mut().clear());
}

/// Device elapsed times that could not be resolved and fell back to
/// launch-to-sync time.
pub(crate) static DEVICE_FALLBACKS: AtomicU64 = AtomicU64::new(0);

/// Queues a deferred sample of `brick` that started at `start_ns` (from
/// [`elapsed_ns`]); [`finalize`] completes it. No-op while disabled.
pub fn record_deferred(brick: BrickId, start_ns: u64, elements: u64) {
    deferred(brick as u32, start_ns, elements);
}

/// [`record_deferred`] for a brick named at run time; names of built-in
/// bricks resolve to them, other names get their own slot (category Other).
pub fn record_deferred_dynamic(name: &str, start_ns: u64, elements: u64) {
    let state = state::load();
    if state::is_recording(state) {
        deferred(
            crate::site::intern(name, BrickCategory::Other),
            start_ns,
            elements,
        );
    }
}

fn deferred(slot: u32, start_ns: u64, elements: u64) {
    let state = state::load();
    if !state::is_recording(state) {
        return;
    }
    let amounts = Amounts {
        elements,
        ..Amounts::NONE
    };
    let layer = crate::slab::current_layer();
    push_pending(
        state,
        Pending {
            slot,
            start_ns,
            amounts,
            layer,
            device: None,
        },
    );
}

/// Turns the calling thread's pending records into samples: each lasted
/// `end_ns.saturating_sub(start_ns)` exactly, or its device time when a
/// [`DeviceTimer`] recorded it. Call right after the device sync. Records
/// queued before a [`reset`](crate::reset) are discarded, not finalized.
pub fn finalize(end_ns: u64) {
    let state = state::load();
    // Bring the thread up to the current reset generation first: a reset
    // since the records were queued clears them.
    if crate::slab::with_slab(state, |_, _| ()).is_none() {
        return;
    }
    let timer = state::device_timer();
    // Where "now" is on both clocks, to place the samples on the timeline.
    let now_ticks = crate::clock::now(crate::clock::init());
    let now_ns = elapsed_ns();
    let _ = QUEUE.try_with(|q| {
        for p in q.borrow_mut().drain(..) {
            let device_ns = match (timer, p.device) {
                (Some(timer), Some((start, end))) => {
                    let ns = timer.elapsed_ns(start, end);
                    timer.release(start);
                    timer.release(end);
                    if ns.is_none() {
                        DEVICE_FALLBACKS.fetch_add(1, Relaxed);
                    }
                    ns
                }
                _ => None,
            };
            let launch_to_sync = end_ns.saturating_sub(p.start_ns);
            let elapsed = device_ns.unwrap_or_else(|| {
                LAUNCH_TO_SYNC.fetch_add(1, Relaxed);
                launch_to_sync
            });
            let end_ticks = now_ticks.saturating_sub(crate::clock::to_ticks(
                now_ns.saturating_sub(p.start_ns.saturating_add(elapsed)),
                crate::clock::ns_per_tick_cached(),
            ));
            record::record_measured(state, p.slot, end_ticks, elapsed, p.amounts, p.layer);
        }
    });
    crate::slab::with_slab(state, |slab, _| slab.pending.store(0, Relaxed));
}

/// Deferred samples that measured launch-to-sync time (no device time).
pub(crate) static LAUNCH_TO_SYNC: AtomicU64 = AtomicU64::new(0);

/// Whether the calling thread has records waiting for [`finalize`].
#[must_use]
pub fn has_pending() -> bool {
    pending_count() > 0
}

/// Number of the calling thread's records waiting for [`finalize`] (records
/// queued before a [`reset`](crate::reset) no longer count).
#[must_use]
pub fn pending_count() -> usize {
    if crate::slab::with_slab(state::load(), |_, _| ()).is_none() {
        return 0;
    }
    QUEUE.try_with(|q| q.borrow().len()).unwrap_or(0)
}

/// `Instant` nanoseconds of the epoch, relative to the clock's anchor.
static EPOCH_NS: AtomicU64 = AtomicU64::new(0);

/// Nanoseconds since the epoch (the first `enable()`, or the last
/// [`reset_epoch`]); the time base of [`record_deferred`] and [`finalize`].
/// Read from `Instant`, so differences are exact whatever the counter's
/// calibration.
#[must_use]
pub fn elapsed_ns() -> u64 {
    crate::clock::init();
    crate::clock::monotonic_ns().saturating_sub(EPOCH_NS.load(Relaxed))
}

/// Makes "now" the zero of [`elapsed_ns`]; call at the start of a forward pass.
pub fn reset_epoch() {
    crate::clock::init();
    EPOCH_NS.store(crate::clock::monotonic_ns(), Relaxed);
}
