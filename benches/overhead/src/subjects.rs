//! The measured functions: one tiny `#[inline(never)]` body, bare, bracketed
//! by two clock reads, annotated with `#[brick]`, recording a
//! `profiler::counter` sample, and timed as a kernel tile.
//!
//! Every variant has the same body (`black_box` of its argument), so the
//! differences between variants are what the instrumentation adds.

use std::hint::black_box;
use std::time::Instant;

use profiler::brick;

/// The unannotated baseline.
#[inline(never)]
pub fn plain(x: u64) -> u64 {
    black_box(x)
}

/// Two `std::time::Instant` reads around the body (`clock_gettime`, vDSO).
#[inline(never)]
pub fn instant_pair(x: u64) -> u64 {
    let start = Instant::now();
    let out = black_box(x);
    black_box(start.elapsed());
    out
}

/// Two raw counter reads around the body: what the profiler's hot path uses.
#[inline(never)]
pub fn counter_pair(x: u64) -> u64 {
    let start = raw_counter();
    let out = black_box(x);
    black_box(raw_counter().wrapping_sub(start));
    out
}

/// Two `quanta::Instant` reads around the body (TSC, scaled to ns per read).
#[inline(never)]
pub fn quanta_pair(x: u64) -> u64 {
    let start = quanta::Instant::now();
    let out = black_box(x);
    black_box(quanta::Instant::now().duration_since(start));
    out
}

/// Two `minstant::Instant` reads around the body (TSC, fastrace's clock family).
#[inline(never)]
pub fn minstant_pair(x: u64) -> u64 {
    let start = minstant::Instant::now();
    let out = black_box(x);
    black_box(minstant::Instant::now().duration_since(start));
    out
}

/// A built-in brick.
#[brick(RmsNorm)]
#[inline(never)]
pub fn rms_norm(x: u64) -> u64 {
    black_box(x)
}

/// A custom-named brick (slot interned at first use).
#[brick("CustomOp")]
#[inline(never)]
pub fn custom_op(x: u64) -> u64 {
    black_box(x)
}

/// Name of the counter the `counter` variant records.
pub const COUNTER_SERIES: &str = "bench_value";

/// A `profiler::counter` sample per call: what recording a loss or a queue
/// depth each step costs.
#[inline(never)]
pub fn counter_sample(x: u64) -> u64 {
    profiler::counter(COUNTER_SERIES, x as f64);
    black_box(x)
}

/// One micro tile timed around the body: what `kernel::start_tile` /
/// `stop_tile` cost per tile of a blocked loop.
#[inline(never)]
pub fn tile(x: u64) -> u64 {
    use profiler::kernel::{TileLevel, start_tile, stop_tile};
    let timer = start_tile(TileLevel::Micro, 0, (x & 0xff) as u32);
    let out = black_box(x);
    stop_tile(timer, 64, 128);
    out
}

/// Name of the raw counter on this target, for the table.
pub const COUNTER_NAME: &str = if cfg!(target_arch = "x86_64") {
    "rdtsc"
} else if cfg!(target_arch = "aarch64") {
    "cntvct_el0"
} else {
    "Instant (no raw counter)"
};

#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn raw_counter() -> u64 {
    // SAFETY: `rdtsc` has no preconditions on x86_64.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(target_arch = "aarch64")]
#[inline(always)]
pub(crate) fn raw_counter() -> u64 {
    let ticks: u64;
    // SAFETY: reading the virtual count register is allowed at EL0 on every
    // OS Rust supports on aarch64 and has no side effects.
    unsafe { core::arch::asm!("mrs {}, cntvct_el0", out(reg) ticks, options(nomem, nostack)) };
    ticks
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
#[inline(always)]
pub(crate) fn raw_counter() -> u64 {
    use std::sync::OnceLock;
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    ORIGIN.get_or_init(Instant::now).elapsed().as_nanos() as u64
}
