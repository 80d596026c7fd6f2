//! Records laid out as CUPTI writes them, read back without a GPU.

use std::mem::size_of;
use std::ptr::addr_of_mut;

use super::*;

/// A zeroed, 8-byte aligned buffer big enough for a record of type `T`.
fn buffer<T>() -> Vec<u64> {
    vec![0; size_of::<T>().div_ceil(8)]
}

#[test]
fn a_kernel_record_reads_back_with_its_shape_and_demangled_name() {
    let mut raw = buffer::<CUpti_ActivityKernel4>();
    let name = c"_Z4gemmIfEvPT_S1_i";
    let record = raw.as_mut_ptr().cast::<CUpti_ActivityKernel4>();
    // SAFETY: `raw` is large enough and aligned; fields are written in
    // place through raw pointers (kind as its integer value).
    unsafe {
        record
            .cast::<u32>()
            .write(CUpti_ActivityKind::CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL as u32);
        addr_of_mut!((*record).registersPerThread).write_unaligned(40);
        addr_of_mut!((*record).start).write_unaligned(1_000);
        addr_of_mut!((*record).end).write_unaligned(1_750);
        addr_of_mut!((*record).deviceId).write_unaligned(1);
        addr_of_mut!((*record).streamId).write_unaligned(7);
        addr_of_mut!((*record).gridX).write_unaligned(64);
        addr_of_mut!((*record).gridY).write_unaligned(2);
        addr_of_mut!((*record).gridZ).write_unaligned(1);
        addr_of_mut!((*record).blockX).write_unaligned(256);
        addr_of_mut!((*record).blockY).write_unaligned(1);
        addr_of_mut!((*record).blockZ).write_unaligned(1);
        addr_of_mut!((*record).staticSharedMemory).write_unaligned(1024);
        addr_of_mut!((*record).dynamicSharedMemory).write_unaligned(4096);
        addr_of_mut!((*record).correlationId).write_unaligned(99);
        addr_of_mut!((*record).name).write_unaligned(name.as_ptr());
    }
    // SAFETY: a complete record of the kind written above.
    let activity = unsafe { activity(raw.as_ptr().cast()) }.expect("a kernel");
    assert_eq!(activity.kind, ActivityKind::Kernel);
    assert_eq!(activity.name, "void gemm<float>(float*, float*, int)");
    assert_eq!((activity.start_ns, activity.end_ns), (1_000, 1_750));
    assert_eq!((activity.device, activity.stream), (1, 7));
    assert_eq!(activity.correlation, 99);
    assert_eq!(activity.grid, [64, 2, 1]);
    assert_eq!(activity.block, [256, 1, 1]);
    assert_eq!(activity.registers, 40);
    assert_eq!(activity.shared_bytes, 1024 + 4096);
}

#[test]
fn copies_and_sets_are_named_as_kineto_names_them() {
    let mut raw = buffer::<CUpti_ActivityMemcpy>();
    let record = raw.as_mut_ptr().cast::<CUpti_ActivityMemcpy>();
    // SAFETY: as above.
    unsafe {
        record
            .cast::<u32>()
            .write(CUpti_ActivityKind::CUPTI_ACTIVITY_KIND_MEMCPY as u32);
        addr_of_mut!((*record).copyKind).write_unaligned(1);
        addr_of_mut!((*record).srcKind).write_unaligned(1);
        addr_of_mut!((*record).dstKind).write_unaligned(3);
        addr_of_mut!((*record).bytes).write_unaligned(4096);
        addr_of_mut!((*record).start).write_unaligned(5);
        addr_of_mut!((*record).end).write_unaligned(9);
        addr_of_mut!((*record).correlationId).write_unaligned(12);
        addr_of_mut!((*record).runtimeCorrelationId).write_unaligned(11);
    }
    // SAFETY: a complete record of the kind written above.
    let copy = unsafe { activity(raw.as_ptr().cast()) }.expect("a copy");
    assert_eq!(copy.name, "Memcpy HtoD (Pageable -> Device)");
    assert_eq!(
        (copy.kind, copy.bytes, copy.correlation),
        (ActivityKind::Memcpy, 4096, 12)
    );
    assert_eq!(copy.runtime_correlation, Some(11));

    let mut raw = buffer::<CUpti_ActivityMemset>();
    let record = raw.as_mut_ptr().cast::<CUpti_ActivityMemset>();
    // SAFETY: as above.
    unsafe {
        record
            .cast::<u32>()
            .write(CUpti_ActivityKind::CUPTI_ACTIVITY_KIND_MEMSET as u32);
        addr_of_mut!((*record).memoryKind).write_unaligned(3);
        addr_of_mut!((*record).bytes).write_unaligned(64);
        addr_of_mut!((*record).correlationId).write_unaligned(13);
    }
    // SAFETY: a complete record of the kind written above.
    let set = unsafe { activity(raw.as_ptr().cast()) }.expect("a set");
    assert_eq!(set.name, "Memset (Device)");
    assert_eq!((set.kind, set.bytes), (ActivityKind::Memset, 64));
}

#[test]
fn other_kinds_are_skipped_and_plain_names_kept() {
    let raw = [CUpti_ActivityKind::CUPTI_ACTIVITY_KIND_DRIVER as u32 as u64; 8];
    // SAFETY: the kind is read first and no other field of a driver record.
    assert!(unsafe { activity(raw.as_ptr().cast()) }.is_none());
    assert_eq!(
        demangle(b"rms_norm_f32"),
        "rms_norm_f32",
        "extern \"C\" kernels"
    );
    assert_eq!(copy_kind(200), "<unknown>");
    assert_eq!(memory_kind(6), "Device Static");
}
