//! Output checksums of kernels, in one bounded process-wide log so that
//! "the first divergence" follows the order calls happened in.

use std::borrow::Cow;
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};

use crate::kernel_data::{ChecksumLog, KernelChecksum};
use crate::record::guard::recording;

static LOG: LazyLock<Mutex<ChecksumLog>> = LazyLock::new(Mutex::default);

/// The process-wide checksum log.
pub(crate) fn log() -> MutexGuard<'static, ChecksumLog> {
    // Writers append or replace whole entries: a poisoned lock is consistent.
    LOG.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Records the checksum of a kernel's output `data` (the FNV-1a 64 of its
/// first 64 floats), keyed by the kernel's `name`, `layer` and `position`
/// (e.g. the token or step). A no-op while the profiler is not recording.
/// Compare two runs with `kernel::find_divergence` or
/// `kernel::compare_checksums` over their `Profile::checksums`.
///
/// ```
/// # use profiler_core as profiler;
/// profiler::enable();
/// let out = vec![0.5f32; 128];
/// profiler::kernel::record_checksum("attention", 0, 7, &out);
/// let checksums = profiler::snapshot().checksums;
/// assert_eq!(checksums[0].checksum, profiler::kernel::fnv1a_f32_checksum(&out[..64]));
/// # profiler::disable();
/// ```
pub fn record_checksum(
    name: impl Into<Cow<'static, str>>,
    layer: u32,
    position: u64,
    data: &[f32],
) {
    if recording().is_none() {
        return;
    }
    let checksum = KernelChecksum::of(name, layer, position, data);
    log().record(checksum);
}
