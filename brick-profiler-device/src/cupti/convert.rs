//! CUPTI activity records (kernel, memcpy, memset) read into
//! [`Activity`] values, named as Kineto names them: kernels demangled,
//! copies `Memcpy HtoD (Pageable -> Device)`, sets `Memset (Device)`.
//!
//! Records are read field by field through raw pointers: the record's
//! version differs between CUPTI releases, but the fields read here sit in
//! the prefix every version shares (Kineto reads kernels as
//! `CUpti_ActivityKernel4` for the same reason).

use std::ffi::{CStr, c_char};
use std::ptr::addr_of;

use cudarc::cupti::sys::{
    CUpti_ActivityKernel4, CUpti_ActivityKind, CUpti_ActivityMemcpy, CUpti_ActivityMemset,
};

use profiler_core::profile::ActivityKind;

use crate::attribution::Activity;

/// Reads one record; `None` for a kind this capture does not keep.
///
/// # Safety
/// `record` points to a complete CUPTI activity record whose first 32
/// bits are its kind, as `cuptiActivityGetNextRecord` returns them.
pub(crate) unsafe fn activity(record: *const u8) -> Option<Activity> {
    // SAFETY: every activity record starts with its kind, a 32-bit enum;
    // read as an integer so an unknown kind is no invalid enum value.
    let kind = unsafe { record.cast::<u32>().read_unaligned() };
    // SAFETY: the kind names the record's layout, which each arm reads.
    unsafe {
        if kind == CUpti_ActivityKind::CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL as u32
            || kind == CUpti_ActivityKind::CUPTI_ACTIVITY_KIND_KERNEL as u32
        {
            Some(kernel(record.cast()))
        } else if kind == CUpti_ActivityKind::CUPTI_ACTIVITY_KIND_MEMCPY as u32 {
            Some(memcpy(record.cast()))
        } else if kind == CUpti_ActivityKind::CUPTI_ACTIVITY_KIND_MEMSET as u32 {
            Some(memset(record.cast()))
        } else {
            None
        }
    }
}

/// Reads a field without making a reference to the (packed) record.
macro_rules! field {
    ($record:expr, $name:ident) => {
        // SAFETY: the caller vouches that `$record` points to a complete
        // record of this layout; `addr_of!` makes no reference, and the
        // read is unaligned because the records are packed.
        unsafe { addr_of!((*$record).$name).read_unaligned() }
    };
}

unsafe fn kernel(record: *const CUpti_ActivityKernel4) -> Activity {
    let dims = |x: i32, y: i32, z: i32| [x, y, z].map(|d| u32::try_from(d).unwrap_or(0));
    let shared = i64::from(field!(record, staticSharedMemory))
        + i64::from(field!(record, dynamicSharedMemory));
    Activity {
        kind: ActivityKind::Kernel,
        name: kernel_name(field!(record, name)),
        start_ns: field!(record, start),
        end_ns: field!(record, end),
        device: field!(record, deviceId),
        stream: field!(record, streamId),
        correlation: field!(record, correlationId),
        runtime_correlation: None,
        grid: dims(
            field!(record, gridX),
            field!(record, gridY),
            field!(record, gridZ),
        ),
        block: dims(
            field!(record, blockX),
            field!(record, blockY),
            field!(record, blockZ),
        ),
        registers: field!(record, registersPerThread),
        shared_bytes: u32::try_from(shared).unwrap_or(0),
        bytes: 0,
    }
}

unsafe fn memcpy(record: *const CUpti_ActivityMemcpy) -> Activity {
    let name = format!(
        "Memcpy {} ({} -> {})",
        copy_kind(field!(record, copyKind)),
        memory_kind(u16::from(field!(record, srcKind))),
        memory_kind(u16::from(field!(record, dstKind))),
    );
    let runtime = field!(record, runtimeCorrelationId);
    Activity {
        kind: ActivityKind::Memcpy,
        name,
        start_ns: field!(record, start),
        end_ns: field!(record, end),
        device: field!(record, deviceId),
        stream: field!(record, streamId),
        correlation: field!(record, correlationId),
        runtime_correlation: (runtime != 0).then_some(runtime),
        grid: [0; 3],
        block: [0; 3],
        registers: 0,
        shared_bytes: 0,
        bytes: field!(record, bytes),
    }
}

unsafe fn memset(record: *const CUpti_ActivityMemset) -> Activity {
    Activity {
        kind: ActivityKind::Memset,
        name: format!("Memset ({})", memory_kind(field!(record, memoryKind))),
        start_ns: field!(record, start),
        end_ns: field!(record, end),
        device: field!(record, deviceId),
        stream: field!(record, streamId),
        correlation: field!(record, correlationId),
        runtime_correlation: None,
        grid: [0; 3],
        block: [0; 3],
        registers: 0,
        shared_bytes: 0,
        bytes: field!(record, bytes),
    }
}

/// The kernel's name as Kineto shows it: demangled when it is a mangled
/// C++ name, as given otherwise (`extern "C"` kernels, cudarc's, candle's).
fn kernel_name(raw: *const c_char) -> String {
    if raw.is_null() {
        return "<unknown kernel>".to_owned();
    }
    // SAFETY: CUPTI's kernel names are NUL-terminated strings it keeps
    // alive for the process.
    let raw = unsafe { CStr::from_ptr(raw) }.to_bytes();
    demangle(raw)
}

/// `raw` demangled when it is an Itanium C++ name, else as given (lossy UTF-8).
pub(crate) fn demangle(raw: &[u8]) -> String {
    cpp_demangle::Symbol::new(raw)
        .ok()
        .and_then(|symbol| symbol.demangle().ok())
        .unwrap_or_else(|| String::from_utf8_lossy(raw).into_owned())
}

/// Kineto's words for CUPTI's copy kinds.
pub(crate) fn copy_kind(kind: u8) -> &'static str {
    match kind {
        1 => "HtoD",
        2 => "DtoH",
        3 => "HtoA",
        4 => "AtoH",
        5 => "AtoA",
        6 => "AtoD",
        7 => "DtoA",
        8 => "DtoD",
        9 => "HtoH",
        10 => "PtoP",
        _ => "<unknown>",
    }
}

/// Kineto's words for CUPTI's memory kinds.
pub(crate) fn memory_kind(kind: u16) -> &'static str {
    match kind {
        0 => "Unknown",
        1 => "Pageable",
        2 => "Pinned",
        3 => "Device",
        4 => "Array",
        5 => "Managed",
        6 => "Device Static",
        7 => "Managed Static",
        _ => "Unrecognized",
    }
}

#[cfg(test)]
#[path = "convert_tests.rs"]
mod tests;
