//! The functions CUPTI calls: the API callback on each launch, copy and
//! set call (on the launching thread: the hot path, no lock, no
//! allocation), and the buffer callbacks (on CUPTI's threads or the
//! flushing one: where records are read and attributed).

use std::ffi::c_void;
use std::ptr::addr_of;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

use cudarc::cupti::result::activity::{get_next_record, get_num_dropped_records};
use cudarc::cupti::result::get_timestamp;
use cudarc::cupti::sys::{
    CUpti_Activity, CUpti_ApiCallbackSite, CUpti_CallbackData, CUpti_CallbackDomain,
    CUpti_CallbackId,
};
use cudarc::driver::sys::CUcontext;
use profiler_core::kernel::launch_context;

use super::buffers::BufferPool;
use super::convert::activity;
use super::launches::LaunchLog;
use crate::attribution::{Activity, Attributor, Launch, Retention};

/// What the callbacks share with the capture handle; lives for the process.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) buffers: BufferPool,
    pub(crate) launches: LaunchLog,
    attributor: Mutex<Attributor>,
    /// Buffers CUPTI handed back.
    pub(crate) completed: AtomicU64,
    /// Records CUPTI reported as dropped.
    pub(crate) records_dropped: AtomicU64,
    /// Activity records read.
    pub(crate) activities: AtomicU64,
}

impl Shared {
    pub(crate) fn new(
        buffers: usize,
        buffer_bytes: usize,
        launches: usize,
        retention: Retention,
    ) -> Self {
        Self {
            buffers: BufferPool::new(buffers, buffer_bytes),
            launches: LaunchLog::new(launches),
            attributor: Mutex::new(Attributor::with_retention(retention)),
            completed: AtomicU64::new(0),
            records_dropped: AtomicU64::new(0),
            activities: AtomicU64::new(0),
        }
    }

    /// The attribution, with every launch waiting in the log moved in.
    pub(crate) fn attributor(&self) -> MutexGuard<'_, Attributor> {
        let mut attributor = self
            .attributor
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        self.launches.drain(|launch| attributor.launch(launch));
        attributor
    }

    /// Reads CUPTI's clock and the profiler's host clock together, so the
    /// summary's events land on the host clock.
    pub(crate) fn anchor_now(&self) {
        let mut records_ns = 0;
        // SAFETY: writes one u64 through a valid pointer.
        if unsafe { get_timestamp(&mut records_ns) }.is_ok() {
            let host_ns = profiler_core::sync::host_now_ns();
            self.attributor().anchor(records_ns, host_ns);
        }
    }

    /// Adds the activities of one completed buffer.
    pub(crate) fn add(&self, activities: Vec<Activity>) {
        self.activities.fetch_add(activities.len() as u64, Relaxed);
        self.attributor().activities(activities);
    }
}

/// The capture's state, set once by the first start.
pub(crate) static SHARED: OnceLock<Shared> = OnceLock::new();

/// Called by CUPTI on entry to and exit from each enabled launch, copy and
/// set call, on the calling thread: records where in the run the call was
/// made, under its correlation id.
pub(crate) unsafe extern "C" fn api_callback(
    _userdata: *mut c_void,
    _domain: CUpti_CallbackDomain,
    _cbid: CUpti_CallbackId,
    cbdata: *const c_void,
) {
    let data = cbdata.cast::<CUpti_CallbackData>();
    let Some(shared) = SHARED.get() else { return };
    if data.is_null() {
        return;
    }
    // SAFETY: for the runtime and driver domains `cbdata` points to a
    // `CUpti_CallbackData` valid during the call; the site (an enum) is
    // read as its integer, the id as written.
    let (site, correlation) = unsafe {
        (
            addr_of!((*data).callbackSite)
                .cast::<u32>()
                .read_unaligned(),
            addr_of!((*data).correlationId).read_unaligned(),
        )
    };
    if site != CUpti_ApiCallbackSite::CUPTI_API_ENTER as u32 {
        return;
    }
    let mut api_ns = 0;
    // SAFETY: writes one u64 through a valid pointer.
    if unsafe { get_timestamp(&mut api_ns) }.is_err() {
        return;
    }
    shared.launches.push(Launch {
        correlation,
        api_ns,
        context: launch_context(),
    });
}

/// CUPTI asks for a buffer: one from the pool, or none (CUPTI then drops
/// the records it would have written, and counts them).
pub(crate) unsafe extern "C" fn buffer_requested(
    buffer: *mut *mut u8,
    size: *mut usize,
    max_records: *mut usize,
) {
    let lent = SHARED.get().and_then(|shared| shared.buffers.take());
    let (pointer, bytes) = lent.unwrap_or((std::ptr::null_mut(), 0));
    // SAFETY: CUPTI passes valid out-pointers.
    unsafe {
        *buffer = pointer;
        *size = bytes;
        *max_records = 0;
    }
}

/// CUPTI hands a buffer back: its records are read into the attribution
/// and the buffer returns to the pool.
pub(crate) unsafe extern "C" fn buffer_completed(
    context: CUcontext,
    stream_id: u32,
    buffer: *mut u8,
    _size: usize,
    valid: usize,
) {
    let Some(shared) = SHARED.get() else { return };
    shared.completed.fetch_add(1, Relaxed);
    let mut activities = Vec::new();
    let mut record: *mut CUpti_Activity = std::ptr::null_mut();
    // SAFETY: `buffer` holds `valid` bytes of records CUPTI wrote; each
    // record pointer it returns points into it.
    while unsafe { get_next_record(buffer, valid, &mut record) }.is_ok() {
        // SAFETY: a complete record, as CUPTI returned it.
        if let Some(activity) = unsafe { activity(record.cast_const().cast()) } {
            activities.push(activity);
        }
    }
    let mut dropped = 0;
    // SAFETY: `context` and `stream_id` are the ones CUPTI passed.
    if unsafe { get_num_dropped_records(context, stream_id, &mut dropped) }.is_ok() {
        shared.records_dropped.fetch_add(dropped as u64, Relaxed);
    }
    shared.add(activities);
    shared.buffers.give_back(buffer);
}
