//! [`CuptiCapture`]: every kernel, memcpy and memset through CUPTI's
//! activity API, each tied by its correlation id to the bricks, layer,
//! phase and step open on the thread that launched it
//! ([`crate::attribution`]). CUPTI is loaded at run time: this builds
//! without a CUDA toolkit, and without CUPTI or a GPU `start` says why and
//! the run goes on without capture.
//!
//! Activity buffers come from a fixed pool (an empty pool drops and counts,
//! never blocks); records are read when CUPTI hands a buffer back and at
//! each [`CuptiCapture::summarize`] (which flushes first), never on the
//! launching thread. The launch callback only writes a fixed-size record
//! into a bounded lock-free queue.

mod buffers;
mod callbacks;
mod convert;
mod launches;

use std::sync::Mutex;
use std::sync::atomic::Ordering::Relaxed;

use cudarc::cupti::result::activity;
use cudarc::cupti::result::{enable_callback, get_callback_name, subscribe};
use cudarc::cupti::sys::{self, CUpti_ActivityFlag, CUpti_ActivityKind, CUpti_CallbackDomain};

use self::callbacks::{SHARED, Shared, api_callback, buffer_completed, buffer_requested};
use profiler_core::profile::DeviceKernels;

use crate::attribution::{Attributor, Retention};
use crate::error::DeviceError;

/// How much the capture holds between drains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CuptiConfig {
    /// Activity buffers in the pool.
    pub buffers: usize,
    /// Bytes per buffer.
    pub buffer_bytes: usize,
    /// Launch records held between drains (each ~100 bytes).
    pub launches: usize,
    /// Activity records held for the trace; past them activities are
    /// folded into per-brick, per-kernel sums and dropped.
    pub retention: Retention,
}

impl Default for CuptiConfig {
    /// 16 buffers of 4 MiB (about 170 000 kernel records), 65 536
    /// launches between drains, and as many records held as the trace
    /// draws ([`Retention::default`]).
    fn default() -> Self {
        Self {
            buffers: 16,
            buffer_bytes: 4 << 20,
            launches: 1 << 16,
            retention: Retention::default(),
        }
    }
}

/// What the capture did so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CaptureStats {
    /// Buffers CUPTI handed back.
    pub buffers_completed: u64,
    /// Buffer requests refused because the pool was empty.
    pub buffers_refused: u64,
    /// Activity records CUPTI dropped (no buffer, or a full one).
    pub records_dropped: u64,
    /// Launch records dropped because the launch queue was full.
    pub launches_dropped: u64,
    /// Activity records read.
    pub activities: u64,
    /// Buffers in the pool now (the rest are lent to CUPTI).
    pub buffers_free: usize,
}

/// A running CUPTI capture (one per process: CUPTI takes one subscriber).
/// Copy it freely; every copy reads the same records.
///
/// ```no_run
/// use profiler_device::cupti::{CuptiCapture, CuptiConfig};
/// let capture = match CuptiCapture::start(CuptiConfig::default()) {
///     Ok(capture) => Some(capture),
///     Err(why) => {
///         eprintln!("no kernel capture: {why}");
///         None
///     }
/// };
/// // ... run the model ...
/// if let Some(capture) = capture {
///     let device = capture.summarize();
///     for note in device.notes() {
///         eprintln!("{note}");
///     }
/// }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct CuptiCapture {
    shared: &'static Shared,
}

/// Serialises starts: subscribing twice would fail in CUPTI.
static STARTED: Mutex<bool> = Mutex::new(false);

/// Which calls launch work on the device, by the name CUPTI gives them.
const LAUNCH_CALLS: [&str; 8] = [
    "cuLaunch",
    "cuMemcpy",
    "cuMemset",
    "cuGraphLaunch",
    "cudaLaunch",
    "cudaMemcpy",
    "cudaMemset",
    "cudaGraphLaunch",
];

fn failed(call: &'static str, e: cudarc::cupti::result::CuptiError) -> DeviceError {
    // The result code's name; CuptiError's own Debug may panic when
    // CUPTI cannot describe it.
    DeviceError::Driver {
        call,
        message: format!("{:?}", e.0),
    }
}

impl CuptiCapture {
    /// Starts capturing kernels, copies and sets, with their launches.
    /// A second start in the process returns the running capture (its
    /// first configuration stays).
    ///
    /// # Errors
    /// [`DeviceError::NoDriver`] when libcupti cannot be loaded (no CUDA
    /// toolkit's CUPTI on the library path), [`DeviceError::Driver`] when
    /// CUPTI refuses (another profiler such as Nsight Systems holds it, or
    /// no device): the run goes on without capture.
    pub fn start(config: CuptiConfig) -> Result<Self, DeviceError> {
        let mut started = STARTED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if *started && let Some(shared) = SHARED.get() {
            return Ok(Self { shared });
        }
        // SAFETY: only tries to open the library by its usual names.
        if !unsafe { sys::is_culib_present() } {
            return Err(DeviceError::NoDriver {
                api: "CUPTI",
                reason: "libcupti could not be loaded (install the CUDA toolkit's CUPTI and put \
                         its lib64 folder on LD_LIBRARY_PATH)"
                    .into(),
            });
        }
        let shared = SHARED.get_or_init(|| {
            Shared::new(
                config.buffers,
                config.buffer_bytes,
                config.launches,
                config.retention,
            )
        });
        let mut subscriber: sys::CUpti_SubscriberHandle = std::ptr::null_mut();
        // SAFETY: `subscriber` is a valid out-pointer; the callback is a
        // plain function that lives for the process.
        unsafe { subscribe(&mut subscriber, Some(api_callback), std::ptr::null_mut()) }
            .map_err(|e| failed("cuptiSubscribe", e))?;
        for domain in [
            CUpti_CallbackDomain::CUPTI_CB_DOMAIN_DRIVER_API,
            CUpti_CallbackDomain::CUPTI_CB_DOMAIN_RUNTIME_API,
        ] {
            enable_launch_calls(subscriber, domain)?;
        }
        activity::register_callbacks(Some(buffer_requested), Some(buffer_completed))
            .map_err(|e| failed("cuptiActivityRegisterCallbacks", e))?;
        for kind in [
            CUpti_ActivityKind::CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
            CUpti_ActivityKind::CUPTI_ACTIVITY_KIND_MEMCPY,
            CUpti_ActivityKind::CUPTI_ACTIVITY_KIND_MEMSET,
        ] {
            activity::enable(kind).map_err(|e| failed("cuptiActivityEnable", e))?;
        }
        shared.anchor_now();
        *started = true;
        Ok(Self { shared })
    }

    /// Hands every buffer CUPTI holds back for reading, even partly filled
    /// ones, and moves waiting launches into the attribution.
    ///
    /// # Errors
    /// [`DeviceError::Driver`] when CUPTI's flush fails.
    pub fn flush(&self) -> Result<(), DeviceError> {
        activity::flush_all(CUpti_ActivityFlag::CUPTI_ACTIVITY_FLAG_FLUSH_FORCED as u32)
            .map_err(|e| failed("cuptiActivityFlushAll", e))?;
        drop(self.shared.attributor());
        Ok(())
    }

    /// Flushes, then attributes everything captured so far. A failed flush
    /// leaves the buffers CUPTI still holds out (their records come with a
    /// later call) and is noted in the summary's counts.
    pub fn summarize(&self) -> DeviceKernels {
        let flushed = self.flush();
        self.shared.anchor_now();
        let mut summary = self.shared.attributor().summarize();
        let stats = self.stats();
        summary.dropped_buffers = stats.buffers_refused;
        summary.dropped_records = stats.records_dropped;
        // The attribution's own count is of launches let go past its bound.
        summary.dropped_launches += stats.launches_dropped;
        summary.unflushed = flushed.is_err();
        summary
    }

    /// Forgets the records captured so far (call it with
    /// `profiler::reset`); later summaries start from here. The capture's
    /// counts ([`CuptiCapture::stats`]) keep running.
    pub fn clear(&self) {
        // Records CUPTI still holds belong before the reset: flushed first
        // (a failed flush leaves them to count after it).
        let _ = self.flush();
        self.shared.attributor().clear();
    }

    /// Reads the records held (each activity with its launch; as many as
    /// [`CuptiConfig::retention`] keeps, none in aggregate mode) without
    /// flushing.
    pub fn with_records<R>(&self, f: impl FnOnce(&Attributor) -> R) -> R {
        f(&self.shared.attributor())
    }

    /// The capture's counts.
    pub fn stats(&self) -> CaptureStats {
        let shared = self.shared;
        CaptureStats {
            buffers_completed: shared.completed.load(Relaxed),
            buffers_refused: shared.buffers.refused(),
            records_dropped: shared.records_dropped.load(Relaxed),
            launches_dropped: shared.launches.dropped(),
            activities: shared.activities.load(Relaxed),
            buffers_free: shared.buffers.available(),
        }
    }
}

/// Enables the callbacks of `domain` whose names start like a launch, copy
/// or set call (looked up by name, so new CUDA versions' variants join).
fn enable_launch_calls(
    subscriber: sys::CUpti_SubscriberHandle,
    domain: CUpti_CallbackDomain,
) -> Result<(), DeviceError> {
    // Callback ids run from 1 up; CUPTI answers an error past the last.
    for cbid in 1..4096u32 {
        let mut name = std::ptr::null();
        // SAFETY: `name` is a valid out-pointer.
        if unsafe { get_callback_name(domain, cbid, &mut name) }.is_err() || name.is_null() {
            continue;
        }
        // SAFETY: CUPTI returns a static NUL-terminated name.
        let name = unsafe { std::ffi::CStr::from_ptr(name) }.to_bytes();
        if LAUNCH_CALLS
            .iter()
            .any(|call| name.starts_with(call.as_bytes()))
        {
            // SAFETY: the subscriber was just created.
            unsafe { enable_callback(1, subscriber, domain, cbid) }
                .map_err(|e| failed("cuptiEnableCallback", e))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_cupti_start_says_why_and_the_run_goes_on() {
        // SAFETY: only tries to open the library by its usual names.
        let present = unsafe { sys::is_culib_present() };
        match CuptiCapture::start(CuptiConfig::default()) {
            Err(DeviceError::NoDriver { api, reason }) => {
                assert!(!present, "CUPTI loads, yet start said it does not");
                assert_eq!(api, "CUPTI");
                assert!(reason.contains("libcupti"), "{reason}");
            }
            Err(other) => assert!(present, "unexpected error without CUPTI: {other}"),
            Ok(capture) => {
                assert!(present, "a capture without CUPTI");
                assert_eq!(capture.stats().launches_dropped, 0);
            }
        }
    }
}
