//! [`CudaTimer`]: brick times from CUDA events recorded on the user's
//! stream, an NVTX range per brick (feature `nvtx`), and host timing (with
//! a note) when no CUDA driver is found. The driver is loaded at run time.

use std::sync::Arc;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaContext, CudaEvent, CudaStream};
use profiler_core::sync::{CpuEventTimer, DeviceEvent, DeviceTimer};

use crate::error::DeviceError;
use crate::pool::{DEFAULT_EVENT_CAPACITY, EventPool, EventSource, PoolStats};

/// CUDA events on one stream, as an [`EventSource`].
#[derive(Debug)]
pub struct CudaEvents {
    stream: Arc<CudaStream>,
}

impl CudaEvents {
    /// Events recorded on `stream`.
    pub fn new(stream: Arc<CudaStream>) -> Self {
        Self { stream }
    }
}

fn driver(call: &'static str, e: impl std::fmt::Debug) -> DeviceError {
    DeviceError::Driver {
        call,
        message: format!("{e:?}"),
    }
}

impl EventSource for CudaEvents {
    type Event = CudaEvent;

    fn create(&self) -> Result<CudaEvent, DeviceError> {
        // cudarc's `None` means CU_EVENT_DISABLE_TIMING; timing events need
        // the default flags, passed explicitly.
        self.stream
            .context()
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(|e| driver("cuEventCreate", e))
    }

    fn record(&self, event: &CudaEvent) -> Result<(), DeviceError> {
        event
            .record(&self.stream)
            .map_err(|e| driver("cuEventRecord", e))
    }

    fn is_complete(&self, event: &CudaEvent) -> bool {
        // cuEventQuery: never blocks.
        event.is_complete()
    }

    fn elapsed_ms(&self, start: &CudaEvent, end: &CudaEvent) -> Result<f32, DeviceError> {
        // Synchronises on both events, which the pool asks only once they
        // have completed, so this does not wait.
        start
            .elapsed_ms(end)
            .map_err(|e| driver("cuEventElapsedTime", e))
    }

    fn is_idle(&self) -> bool {
        // cudarc has no safe stream query; cuStreamQuery never blocks.
        if self.stream.context().bind_to_thread().is_err() {
            return false;
        }
        // SAFETY: the stream handle is live while `self.stream` (an Arc)
        // is, and its context is bound to this thread just above;
        // cuStreamQuery only reads the stream's state.
        let status = unsafe { cudarc::driver::sys::cuStreamQuery(self.stream.cu_stream()) };
        status == cudarc::driver::sys::CUresult::CUDA_SUCCESS
    }
}

enum Backend {
    // Boxed: the pool is far larger than the host fallback.
    Cuda(Box<EventPool<CudaEvents>>),
    Host {
        timer: CpuEventTimer,
        why: DeviceError,
    },
}

/// A [`DeviceTimer`] over CUDA events: a bounded pool of timing events
/// recorded on the user's stream, resolved by `finalize` once complete
/// (queried first, so nothing blocks), and, with feature `nvtx`, an NVTX
/// range per brick, step (`step N`), phase and layer (`layer 3 fwd`) when
/// an NVTX tool is attached (see [`crate::nvtx`]), so Nsight Systems shows
/// them and `ncu --nvtx --nvtx-include` filters by them; on the host
/// fallback too (the ranges are host annotations). Without the feature, or
/// without a tool, no name is looked up or made and no NVTX call is made.
///
/// Device starts: when a brick starts on an idle stream (after the
/// previous sync, typically) and no anchor was taken in the last second
/// (`REANCHOR_NS`), an anchor event is recorded first and the host
/// clock read right after; a brick's start is then the anchor's host time
/// plus `cuEventElapsedTime(anchor, start)`. The device reaches the anchor
/// a few microseconds after that read, so no start may fall before its own
/// record call: one that would moves the anchor later (the brick right
/// after the anchor usually sets it). Starts then read late by at most the
/// launch latency (microseconds), never early. On a stream that is never idle no anchor
/// is taken and bricks have no device start (their trace slices start at
/// the launch and say so).
///
/// ```no_run
/// use profiler_device::cuda::CudaTimer;
/// // Probes the driver; without one, bricks are timed on the host.
/// let timer = CudaTimer::on_device(0);
/// if let Some(why) = timer.fallback() {
///     eprintln!("host timing: {why}");
/// }
/// profiler_core::Config::new().device_timer(timer.clone()).enable();
/// ```
///
/// Clones share one pool: install one and keep another for its counts.
#[derive(Clone)]
pub struct CudaTimer {
    backend: Arc<Backend>,
    /// The kernel capture reported at each snapshot, if any.
    #[cfg(feature = "cupti")]
    capture: Option<crate::cupti::CuptiCapture>,
}

impl std::fmt::Debug for CudaTimer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaTimer")
            .field("device", &self.fallback().is_none())
            .field("nvtx", &crate::nvtx::ranges_on())
            .finish_non_exhaustive()
    }
}

impl CudaTimer {
    /// Times bricks with events recorded on `stream` (candle's
    /// `CudaDevice` and cudarc both hand out their `Arc<CudaStream>`).
    pub fn on_stream(stream: Arc<CudaStream>) -> Self {
        Self::with_capacity(stream, DEFAULT_EVENT_CAPACITY)
    }

    /// [`CudaTimer::on_stream`] with at most `events` pooled events; past
    /// them a brick falls back to launch-to-sync time, counted.
    pub fn with_capacity(stream: Arc<CudaStream>, events: usize) -> Self {
        crate::nvtx::decide();
        Self {
            backend: Arc::new(Backend::Cuda(Box::new(EventPool::new(
                CudaEvents::new(stream),
                events,
            )))),
            #[cfg(feature = "cupti")]
            capture: None,
        }
    }

    /// Times bricks on the default stream of device `ordinal`, or on the
    /// host when no CUDA driver or device is found (see
    /// [`CudaTimer::fallback`]); never panics for a missing driver.
    pub fn on_device(ordinal: usize) -> Self {
        match default_stream(ordinal) {
            Ok(stream) => Self::on_stream(stream),
            Err(why) => Self::host(why),
        }
    }

    /// A timer on the host clock, saying why in the profile's notes.
    pub fn host(why: DeviceError) -> Self {
        crate::nvtx::decide();
        Self {
            backend: Arc::new(Backend::Host {
                timer: CpuEventTimer::default(),
                why,
            }),
            #[cfg(feature = "cupti")]
            capture: None,
        }
    }

    /// Also reports every kernel, copy and set `capture` records, under
    /// the brick that launched it: the profile's `device_kernels`, read
    /// (after a flush) at each snapshot.
    ///
    /// ```no_run
    /// use profiler_device::cuda::CudaTimer;
    /// use profiler_device::cupti::{CuptiCapture, CuptiConfig};
    /// let mut timer = CudaTimer::on_device(0);
    /// match CuptiCapture::start(CuptiConfig::default()) {
    ///     Ok(capture) => timer = timer.with_capture(capture),
    ///     Err(why) => eprintln!("no kernel capture: {why}"),
    /// }
    /// profiler_core::Config::new().device_timer(timer).enable();
    /// ```
    #[cfg(feature = "cupti")]
    #[must_use]
    pub fn with_capture(mut self, capture: crate::cupti::CuptiCapture) -> Self {
        self.capture = Some(capture);
        self
    }

    /// Why bricks are timed on the host, or `None` when CUDA events time them.
    pub fn fallback(&self) -> Option<&DeviceError> {
        match &*self.backend {
            Backend::Cuda(_) => None,
            Backend::Host { why, .. } => Some(why),
        }
    }

    /// The event pool's counts (`None` on the host fallback).
    pub fn stats(&self) -> Option<PoolStats> {
        match &*self.backend {
            Backend::Cuda(pool) => Some(pool.stats()),
            Backend::Host { .. } => None,
        }
    }
}

/// The default stream of device `ordinal`, after checking that the driver
/// library loads and initialises (cudarc panics on a missing library).
pub fn default_stream(ordinal: usize) -> Result<Arc<CudaStream>, DeviceError> {
    // SAFETY: only tries to open the library by its usual names.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(DeviceError::NoDriver {
            api: "CUDA",
            reason: "libcuda could not be loaded (no NVIDIA driver on this machine)".into(),
        });
    }
    let no_device = |e: cudarc::driver::DriverError| DeviceError::NoDriver {
        api: "CUDA",
        reason: format!("{e:?}"),
    };
    cudarc::driver::result::init().map_err(no_device)?;
    let context = CudaContext::new(ordinal).map_err(no_device)?;
    Ok(context.default_stream())
}

impl DeviceTimer for CudaTimer {
    fn record_event(&self) -> DeviceEvent {
        match &*self.backend {
            Backend::Cuda(pool) => pool.record(),
            Backend::Host { timer, .. } => timer.record_event(),
        }
    }

    fn elapsed_ns(&self, start: DeviceEvent, end: DeviceEvent) -> Option<u64> {
        match &*self.backend {
            Backend::Cuda(pool) => pool.elapsed_ns(start, end),
            Backend::Host { timer, .. } => timer.elapsed_ns(start, end),
        }
    }

    fn host_time_ns(&self, event: DeviceEvent) -> Option<u64> {
        match &*self.backend {
            Backend::Cuda(pool) => pool.host_time_ns(event),
            Backend::Host { timer, .. } => timer.host_time_ns(event),
        }
    }

    fn release(&self, event: DeviceEvent) {
        if let Backend::Cuda(pool) = &*self.backend {
            pool.release(event);
        }
    }

    fn names_bricks(&self) -> bool {
        crate::nvtx::ranges_on()
    }

    fn brick_started(&self, name: &str) {
        crate::nvtx::push(name);
    }

    fn brick_ended(&self) {
        crate::nvtx::pop();
    }

    fn kernels(&self) -> Option<profiler_core::profile::DeviceKernels> {
        #[cfg(feature = "cupti")]
        if let Some(capture) = &self.capture {
            return Some(capture.summarize());
        }
        None
    }

    fn notes(&self) -> Vec<String> {
        match &*self.backend {
            Backend::Host { why, .. } => {
                vec![format!("CUDA timer fell back to host timing: {why}")]
            }
            Backend::Cuda(pool) => pool.stats().notes("CUDA"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nvtx::calls;

    /// Both paths in one test: it installs the process's profiler.
    #[test]
    fn nvtx_ranges_are_pushed_only_while_a_tool_is_attached() {
        let timer = CudaTimer::host(DeviceError::NoDriver {
            api: "CUDA",
            reason: "test".into(),
        });
        profiler_core::Config::new()
            .device_timer(timer.clone())
            .enable();
        let scopes = || {
            let _step = profiler_core::phase("forward");
            let _layer = profiler_core::layer(0, profiler_core::Direction::Forward);
        };
        calls::set_ranges(false);
        let before = calls::counts();
        scopes();
        assert!(!timer.names_bricks());
        assert_eq!(calls::counts(), before, "no tool: no NVTX call");
        calls::set_ranges(true);
        scopes();
        let (pushes, pops) = calls::counts();
        assert_eq!(
            (pushes - before.0, pops - before.1),
            (2, 2),
            "a tool: one range per phase and layer scope"
        );
        calls::set_ranges(false);
        profiler_core::disable();
    }
}
