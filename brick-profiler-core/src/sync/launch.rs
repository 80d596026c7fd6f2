//! Launch gaps: how long each device-timed brick waited between its host
//! launch and the start of its work on the device (queueing delay), summed
//! for the profile, and the conversion of a device start on the host clock
//! into the timeline's ticks.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::profile::LaunchGap;

/// Bricks whose device start was known.
static BRICKS: AtomicU64 = AtomicU64::new(0);
/// Sum of their gaps, ns.
static TOTAL_NS: AtomicU64 = AtomicU64::new(0);
/// The longest gap, ns.
static MAX_NS: AtomicU64 = AtomicU64::new(0);

/// Adds one brick's gap: `device_start - launch`, both on the host clock
/// (ns). A device start a little before the launch timestamp (the launch
/// is read after the start event is recorded) counts as no wait.
pub(crate) fn add(launch: u64, device_start: u64) {
    let gap = device_start.saturating_sub(launch);
    BRICKS.fetch_add(1, Relaxed);
    let _ = TOTAL_NS.fetch_update(Relaxed, Relaxed, |t| Some(t.saturating_add(gap)));
    MAX_NS.fetch_max(gap, Relaxed);
}

/// Forgets every gap (on reset).
pub(crate) fn reset() {
    BRICKS.store(0, Relaxed);
    TOTAL_NS.store(0, Relaxed);
    MAX_NS.store(0, Relaxed);
}

/// The gaps so far, or `None` when no brick had a device start.
pub(crate) fn summary() -> Option<LaunchGap> {
    let bricks = BRICKS.load(Relaxed);
    (bricks > 0).then(|| {
        let total_ns = TOTAL_NS.load(Relaxed);
        LaunchGap {
            bricks,
            total_ns,
            mean_ns: total_ns as f64 / bricks as f64,
            max_ns: MAX_NS.load(Relaxed),
        }
    })
}

/// The tick at host time `host` (ns), given `now` read on both clocks
/// together: the distance back (or ahead) from now, in ticks.
pub(crate) fn host_to_ticks(host: u64, (now_host, now_ticks): (u64, u64), ns_per_tick: f64) -> u64 {
    if host <= now_host {
        now_ticks.saturating_sub(crate::clock::to_ticks(now_host - host, ns_per_tick))
    } else {
        now_ticks.saturating_add(crate::clock::to_ticks(host - now_host, ns_per_tick))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_times_map_back_and_ahead_of_now() {
        let now = (10_000, 1_000_000);
        assert_eq!(host_to_ticks(10_000, now, 0.5), 1_000_000);
        assert_eq!(host_to_ticks(9_000, now, 0.5), 998_000);
        assert_eq!(host_to_ticks(10_500, now, 0.5), 1_001_000);
        assert_eq!(host_to_ticks(0, (5, 3), 1.0), 0, "saturates at zero");
    }
}
