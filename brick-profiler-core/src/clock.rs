//! Timestamps for the hot path.
//!
//! Recording reads a raw counter (`rdtsc` on x86_64 with an invariant TSC,
//! `cntvct_el0` on aarch64) and stores ticks; ticks become nanoseconds only
//! when a snapshot is taken, using a ratio measured once against
//! [`std::time::Instant`] after a short settling window and then fixed for
//! the process, so a total converted twice never goes backwards. Where no
//! trustworthy counter exists the ticks are `Instant` nanoseconds and the
//! ratio is exactly 1. The deferred time base (ns since an epoch) lives here
//! too.

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
/// The ns-per-tick ratio, measured once.
static RATIO: OnceLock<f64> = OnceLock::new();

/// Window over which the tick rate is measured; the first conversion waits
/// at most this long, once, if it comes right after start-up. Each end of
/// the window is bracketed by two counter reads (tens of ns), so the ratio
/// is good to about one part in 10^6.
const SETTLE: Duration = Duration::from_millis(20);
/// Brackets wider than this were preempted between their reads: retried.
const MAX_BRACKET_TICKS: u64 = 20_000;

/// Initialises the clock (idempotent) and says whether the raw counter is used.
pub(crate) fn init() -> bool {
    let anchor = ANCHOR.get_or_init(|| {
        let source = detect_counter();
        let (ticks, instant) = if source == ClockSource::Monotonic {
            (0, Instant::now())
        } else {
            bracketed(Instant::now)
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

/// Nanoseconds per tick: 1.0 for the monotonic clock, else measured once
/// between the anchor and the end of the settling window, then fixed.
pub(crate) fn ns_per_tick() -> f64 {
    *RATIO.get_or_init(measure_ratio)
}

fn measure_ratio() -> f64 {
    init();
    let Some(anchor) = ANCHOR.get() else {
        return 1.0;
    };
    if anchor.source == ClockSource::Monotonic {
        return 1.0;
    }
    let remaining = SETTLE.saturating_sub(anchor.instant.elapsed());
    if !remaining.is_zero() {
        std::thread::sleep(remaining);
    }
    let (ticks, instant) = bracketed(Instant::now);
    let ticks = ticks.saturating_sub(anchor.ticks);
    let elapsed = instant.saturating_duration_since(anchor.instant);
    if ticks == 0 || elapsed.is_zero() {
        return 1.0;
    }
    elapsed.as_nanos() as f64 / ticks as f64
}

/// Reads `read` between two counter reads and returns the midpoint tick
/// with it, retrying a few times when a preemption widened the bracket.
fn bracketed<T>(read: impl Fn() -> T) -> (u64, T) {
    let mut best: Option<(u64, u64, T)> = None;
    for _ in 0..8 {
        let t0 = counter();
        let value = read();
        let t1 = counter();
        let width = t1.saturating_sub(t0);
        let mid = t0 / 2 + t1 / 2;
        if best.as_ref().is_none_or(|(w, ..)| width < *w) {
            best = Some((width, mid, value));
        }
        if width <= MAX_BRACKET_TICKS {
            break;
        }
    }
    let (_, mid, value) = best.expect("at least one bracket was taken");
    (mid, value)
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

/// Nanoseconds since the clock's origin by `Instant` (initialising the
/// clock if needed): the host clock device timers place events on. Unlike
/// [`since_epoch_ns`], its zero never moves.
pub(crate) fn host_ns() -> u64 {
    init();
    monotonic_ns()
}

/// `Instant` nanoseconds of the deferred time base's zero, relative to the
/// anchor.
static EPOCH_NS: AtomicU64 = AtomicU64::new(0);

/// Nanoseconds since the deferred epoch, read from `Instant`, so
/// differences are exact whatever the counter's calibration.
pub(crate) fn since_epoch_ns() -> u64 {
    init();
    monotonic_ns().saturating_sub(EPOCH_NS.load(Relaxed))
}

/// Makes "now" the zero of [`since_epoch_ns`].
pub(crate) fn reset_epoch() {
    init();
    EPOCH_NS.store(monotonic_ns(), Relaxed);
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
    fn the_ratio_is_fixed_once_measured() {
        let first = ns_per_tick();
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(ns_per_tick().to_bits(), first.to_bits());
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
