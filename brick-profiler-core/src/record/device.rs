//! Device-side timing: the [`DeviceTimer`] trait a GPU backend implements
//! (e.g. with CUDA events) and [`CpuEventTimer`], its host-clock reference.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// An opaque device event handle issued by a [`DeviceTimer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DeviceEvent(pub u64);

/// Device-side timing, e.g. CUDA events: record an event on the current
/// stream at brick start and end, and read elapsed device time after a sync.
///
/// ```
/// # use profiler_core as profiler;
/// use profiler::sync::{DeviceEvent, DeviceTimer};
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
    /// A panic here is caught and counted; the brick then falls back to
    /// host timing.
    fn record_event(&self) -> DeviceEvent;
    /// Device time between two events, once both have completed (after the
    /// user's sync). `None` if it cannot be resolved; the brick then falls
    /// back to launch-to-sync time and the fallback is counted.
    fn elapsed_ns(&self, start: DeviceEvent, end: DeviceEvent) -> Option<u64>;
    /// When the device reached `event`, on the profiler's host clock: ns
    /// since the clock's origin as `profiler::sync::host_now_ns()` reads
    /// it (the monotonic clock, `Instant`, which `finalize` converts to
    /// the timeline's ticks with a reading of both clocks taken together;
    /// a zero that `reset_epoch` does not move). Asked by `finalize` for a
    /// brick's start event, after [`DeviceTimer::elapsed_ns`] resolved and
    /// before the events are released; the kernel slice of the trace then
    /// starts there, and the queueing delay (device start minus host
    /// launch) is measured. `None` (the default) when the timer only knows
    /// durations: the slice starts at the brick's host launch and says so.
    fn host_time_ns(&self, _event: DeviceEvent) -> Option<u64> {
        None
    }
    /// Releases an event once it has been resolved.
    fn release(&self, _event: DeviceEvent) {}
    /// Whether [`DeviceTimer::brick_started`] wants each brick's name (e.g.
    /// for NVTX ranges). Off by default: the lookup takes a lock per call.
    fn names_bricks(&self) -> bool {
        false
    }
    /// Called after a brick's start event, with its name, when
    /// [`DeviceTimer::names_bricks`] is true.
    fn brick_started(&self, _name: &str) {}
    /// Called after the end event of a brick announced to
    /// [`DeviceTimer::brick_started`].
    fn brick_ended(&self) {}
    /// Lines for the profile's notes: what the timer measured, fell back to
    /// or dropped. Read at every snapshot.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
    /// The kernels, copies and sets captured on the device (e.g. through
    /// CUPTI), under the bricks that launched them: the profile's
    /// `device_kernels`, with its events' times on the profiler's host
    /// clock (as [`DeviceTimer::host_time_ns`]; the snapshot moves them to
    /// the timeline). Asked at every snapshot, outside the profiler's
    /// locks; `None` (the default) when the timer captures no kernels.
    fn kernels(&self) -> Option<crate::profile::DeviceKernels> {
        None
    }
}

/// A [`DeviceTimer`] over the host clock: an event is "now" on the
/// profiler's host clock. It resolves to the same time a CPU measurement
/// would, and knows exactly when each event was taken, which makes it the
/// reference for tests and for checking a real device timer against.
#[derive(Debug, Default)]
pub struct CpuEventTimer {
    _private: (),
}

impl DeviceTimer for CpuEventTimer {
    fn record_event(&self) -> DeviceEvent {
        DeviceEvent(crate::clock::host_ns())
    }

    fn elapsed_ns(&self, start: DeviceEvent, end: DeviceEvent) -> Option<u64> {
        end.0.checked_sub(start.0)
    }

    fn host_time_ns(&self, event: DeviceEvent) -> Option<u64> {
        Some(event.0)
    }
}

/// Device-timer calls that panicked; each falls back to host timing.
pub(crate) static TIMER_PANICS: AtomicU64 = AtomicU64::new(0);

/// Runs a device-timer call with a panic caught and counted. A timer that
/// panics inside a brick's drop while the brick's body unwinds would
/// otherwise abort the process.
pub(crate) fn guarded<R>(call: impl FnOnce() -> R) -> Option<R> {
    match catch_unwind(AssertUnwindSafe(call)) {
        Ok(value) => Some(value),
        Err(_) => {
            TIMER_PANICS.fetch_add(1, Relaxed);
            None
        }
    }
}
