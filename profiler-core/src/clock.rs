//! Timestamps for the hot path.
//!
//! Recording reads a raw counter (`rdtsc` on x86_64 with an invariant TSC,
//! `cntvct_el0` on aarch64) and stores ticks; ticks become nanoseconds only
//! when a snapshot is taken, using a ratio calibrated against
//! [`std::time::Instant`] over the whole run. Where no trustworthy counter
//! exists the ticks are `Instant` nanoseconds and the ratio is exactly 1.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// Which counter produced the timestamps of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockSource {
    /// x86_64 time-stamp counter (invariant, constant rate).
    Tsc,
    /// aarch64 generic timer virtual count.
    CntVct,
    /// `std::time::Instant` (the OS monotonic clock).
    #[default]
    Monotonic,
}

/// The calibration anchor: a counter reading and an `Instant` taken together.
struct Anchor {
    source: ClockSource,
    ticks: u64,
    instant: Instant,
}

static ANCHOR: OnceLock<Anchor> = OnceLock::new();
/// Bits of the last measured ns-per-tick ratio (0 before the first).
static CACHED_RATIO: AtomicU64 = AtomicU64::new(0);

/// Shortest window over which the tick rate is measured; calibration waits
/// at most this long, once, if a snapshot comes right after start-up.
const MIN_CALIBRATION: Duration = Duration::from_millis(5);

/// Initialises the clock (idempotent) and says whether the raw counter is used.
pub(crate) fn init() -> bool {
    let anchor = ANCHOR.get_or_init(|| {
        let source = detect_counter();
        let instant = Instant::now();
        let ticks = if source == ClockSource::Monotonic {
            0
        } else {
            counter()
        };
        Anchor {
            source,
            ticks,
            instant,
        }
    });
    anchor.source != ClockSource::Monotonic
}

/// The clock in use (initialising it if needed).
pub(crate) fn source() -> ClockSource {
    init();
    ANCHOR.get().map_or(ClockSource::Monotonic, |a| a.source)
}

/// Reads the clock. `raw` says whether the counter or `Instant` is in use; the
/// caller passes the bit it read from the profiler state so this costs one
/// predictable branch.
#[inline(always)]
pub(crate) fn now(raw: bool) -> u64 {
    if raw { counter() } else { monotonic_ns() }
}

/// Nanoseconds since the anchor by `Instant` (the fallback tick).
#[cold]
#[inline(never)]
pub(crate) fn monotonic_ns() -> u64 {
    ANCHOR.get().map_or(0, |a| {
        u64::try_from(a.instant.elapsed().as_nanos()).unwrap_or(u64::MAX)
    })
}

/// Nanoseconds per tick: 1.0 for the monotonic clock, else measured between
/// the anchor and now.
pub(crate) fn ns_per_tick() -> f64 {
    init();
    let Some(anchor) = ANCHOR.get() else {
        return 1.0;
    };
    if anchor.source == ClockSource::Monotonic {
        CACHED_RATIO.store(1.0f64.to_bits(), Relaxed);
        return 1.0;
    }
    let remaining = MIN_CALIBRATION.saturating_sub(anchor.instant.elapsed());
    if !remaining.is_zero() {
        std::thread::sleep(remaining);
    }
    // Bracket the Instant read by two counter reads and use their midpoint.
    let t0 = counter();
    let elapsed = anchor.instant.elapsed();
    let t1 = counter();
    let ticks = (t0 / 2 + t1 / 2).saturating_sub(anchor.ticks);
    if ticks == 0 {
        return 1.0;
    }
    let ratio = elapsed.as_nanos() as f64 / ticks as f64;
    CACHED_RATIO.store(ratio.to_bits(), Relaxed);
    ratio
}

/// The last ratio measured by [`ns_per_tick`], measuring it once if needed:
/// cheap enough for per-call conversions (deferred time base).
pub(crate) fn ns_per_tick_cached() -> f64 {
    let bits = CACHED_RATIO.load(Relaxed);
    if bits != 0 {
        return f64::from_bits(bits);
    }
    ns_per_tick()
}

/// Converts ticks to nanoseconds with a given ratio, rounding to nearest.
#[inline]
pub(crate) fn to_ns(ticks: u64, ns_per_tick: f64) -> u64 {
    // `as` saturates for out-of-range floats, which is what we want here.
    (ticks as f64 * ns_per_tick).round() as u64
}

/// Converts nanoseconds to ticks with a given ratio, rounding to nearest.
#[inline]
pub(crate) fn to_ticks(ns: u64, ns_per_tick: f64) -> u64 {
    if ns_per_tick <= 0.0 {
        return ns;
    }
    (ns as f64 / ns_per_tick).round() as u64
}

#[cfg(target_arch = "x86_64")]
fn detect_counter() -> ClockSource {
    if std::env::var_os("PROFILER_CLOCK").is_some_and(|v| v == "monotonic") {
        return ClockSource::Monotonic;
    }
    // CPUID leaf 0x8000_0007, EDX bit 8: invariant TSC (constant rate, runs in
    // all C-states). Hypervisors often hide the bit even when the host TSC is
    // stable; Linux then tells us whether it trusts the TSC as clocksource.
    let max_ext = core::arch::x86_64::__cpuid(0x8000_0000).eax;
    let invariant =
        max_ext >= 0x8000_0007 && core::arch::x86_64::__cpuid(0x8000_0007).edx & (1 << 8) != 0;
    let kernel_trusts_tsc =
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .is_ok_and(|s| s.trim() == "tsc");
    if invariant || kernel_trusts_tsc {
        ClockSource::Tsc
    } else {
        ClockSource::Monotonic
    }
}

#[cfg(target_arch = "aarch64")]
fn detect_counter() -> ClockSource {
    if std::env::var_os("PROFILER_CLOCK").is_some_and(|v| v == "monotonic") {
        return ClockSource::Monotonic;
    }
    ClockSource::CntVct
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn detect_counter() -> ClockSource {
    ClockSource::Monotonic
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn counter() -> u64 {
    // SAFETY: `rdtsc` has no preconditions. It is not serialising, which is
    // fine: bricks measure work far longer than the reorder window.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(target_arch = "aarch64")]
#[inline(always)]
fn counter() -> u64 {
    let ticks: u64;
    // SAFETY: reading the virtual count register is allowed at EL0 on every
    // OS Rust supports on aarch64 and has no side effects.
    unsafe { core::arch::asm!("mrs {}, cntvct_el0", out(reg) ticks, options(nomem, nostack)) };
    ticks
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
#[inline(always)]
fn counter() -> u64 {
    monotonic_ns()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_advance_and_convert_to_real_time() {
        let raw = init();
        let ratio = ns_per_tick();
        assert!(ratio.is_finite() && ratio > 0.0);
        let t0 = now(raw);
        let wall = Instant::now();
        std::thread::sleep(Duration::from_millis(20));
        let ticks = now(raw) - t0;
        let measured = to_ns(ticks, ratio) as f64;
        let expected = wall.elapsed().as_nanos() as f64;
        assert!(
            (measured / expected - 1.0).abs() < 0.05,
            "{measured} vs {expected}"
        );
    }

    #[test]
    fn conversions_round_trip_nanoseconds() {
        for ratio in [1.0, 0.3337, 0.5, 41.67] {
            for ns in [0, 1, 499, 500, 123_456_789] {
                let back = to_ns(to_ticks(ns, ratio), ratio);
                let tolerance = (ratio / 2.0).ceil() as u64;
                assert!(back.abs_diff(ns) <= tolerance, "{ns} at {ratio}: {back}");
            }
        }
    }
}
