//! Bandwidth of each memory level: the triad on buffers sized to stay in
//! one cache level (L1, L2, the last-level cache), and on arrays past the
//! last-level cache for DRAM, each sized from the cache sizes sysfs gives.

use std::time::{Duration, Instant};

use profiler_core::hardware::{Figure, Measurement, MemoryLevel, Source};

use super::bandwidth::{TRIAD_BYTES_PER_ELEMENT, triad_resident, triad_shared};
use super::contention::Watch;
use super::converge::{Plan, Series};
use super::sysinfo::{self, CacheInfo};

/// Last-level cache assumed when sysfs does not say (a large server L3).
pub const ASSUMED_LLC_BYTES: u64 = 64 << 20;

/// Largest array the DRAM probe uses by default, bytes (three are needed).
pub const MAX_ARRAY_BYTES: u64 = 256 << 20;

const TRIAD_METHOD: &str = "STREAM triad a[i] = b[i] + s*c[i] on f64 arrays, \
                            24 bytes per element (2 reads + 1 write, write-allocate not counted)";

/// Where cache sizes are read from.
pub(crate) const SYSFS_CACHES: &str = "/sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}";

/// Wall time one cache-probe round aims at: long enough that a timer tick
/// or a wake-up is a small error, short enough that a level's share of the
/// probe's second holds a dozen repetitions.
const CACHE_ROUND: Duration = Duration::from_millis(8);

/// The memory level of cache `level` (1, 2, 3), when the model names it.
pub(crate) fn cache_level_of(level: u32) -> Option<MemoryLevel> {
    format!("L{level}").parse().ok()
}

/// Where cache sizes came from, as their figures say.
pub(crate) fn sysfs_source() -> Source {
    Source::System {
        path: format!("sysfs {SYSFS_CACHES}"),
    }
}

/// A bandwidth figure, GB/s, with how it was measured.
fn measured(gb_s: f64, how: Measurement) -> Figure {
    Figure::new(
        gb_s,
        Source::Measured {
            how: Some(Box::new(how)),
        },
    )
}

/// What a ceiling keeps of its probe's repetitions.
struct Kept {
    /// Best rate, bytes per second.
    best: f64,
    /// Median rate, bytes per second.
    median: f64,
    repetitions: u32,
    best_spread_pct: Option<f64>,
}

/// Notes a median far below the best (the best still stands), and hands
/// the repetitions to the watch.
fn keep(series: Series, notes: &mut Vec<String>, watch: &mut Watch) -> Kept {
    let (best, median) = (series.best(), series.median());
    if median > 0.0 && best > 1.5 * median {
        notes.push(format!(
            "{}: the median repetition ran at {:.1} against the best {:.1} (units of 10^9/s); \
             the best is reported, the others were slowed by noise",
            series.what,
            median / 1e9,
            best / 1e9
        ));
    }
    let kept = Kept {
        best,
        median,
        repetitions: series.repetitions(),
        best_spread_pct: series.best_spread_pct(),
    };
    watch.probed(series);
    kept
}

/// The DRAM triad, with arrays sized against the last-level cache.
/// `array_bytes` as `ProbeOptions::array_bytes` says.
pub(crate) fn dram(
    array_bytes: Option<u64>,
    plan: Plan,
    threads: usize,
    caches: &[CacheInfo],
    notes: &mut Vec<String>,
    watch: &mut Watch,
) -> Figure {
    let llc = caches.last().map(|c| c.bytes * c.instances);
    let (llc_bytes, source) = match llc {
        Some(b) => (b, "sysfs"),
        None => (ASSUMED_LLC_BYTES, "assumed"),
    };
    let available = sysinfo::mem_available();
    let array = match array_bytes {
        Some(b) => {
            // Three arrays must fit in memory: an oversized request is cut to
            // a quarter of what is available rather than aborting the process.
            let limit = available.map_or(u64::MAX, |a| a / 4 / 3);
            if b > limit {
                notes.push(format!(
                    "DRAM probe arrays cut from the {} MiB asked for to {} MiB: only {} MiB of memory is available",
                    b >> 20,
                    limit >> 20,
                    available.unwrap_or(0) >> 20
                ));
            }
            b.min(limit).max(8 * threads as u64)
        }
        None => {
            let cap = available.map_or(MAX_ARRAY_BYTES, |a| MAX_ARRAY_BYTES.min(a / 8));
            let want = (4 * llc_bytes).max(32 << 20);
            if want > cap {
                notes.push(format!(
                    "DRAM probe arrays of {} MiB are below 4x the last-level cache ({} MiB, the STREAM rule) \
                     to keep the probe short: some traffic may hit the cache, so DRAM bandwidth may be overstated",
                    cap >> 20,
                    llc_bytes >> 20
                ));
            }
            want.min(cap)
        }
    };
    if source == "assumed" {
        notes.push(format!(
            "no cache sizes in sysfs: the last-level cache is assumed to be {} MiB",
            ASSUMED_LLC_BYTES >> 20
        ));
    }
    let elements = (array / 8) as usize;
    let t0 = Instant::now();
    let series = triad_shared(super::contention::GRADE_PROBE, threads, elements, plan);
    let kept = keep(series, notes, watch);
    let how = Measurement {
        median: kept.median / 1e9,
        method: TRIAD_METHOD.to_owned(),
        threads: threads as u32,
        buffer_bytes: Some(elements as u64 * 8),
        cache_bytes: Some(llc_bytes),
        cache_bytes_source: source.to_owned(),
        repetitions: kept.repetitions,
        best_spread_pct: kept.best_spread_pct,
        duration_ns: t0.elapsed().as_nanos() as u64,
        ..Measurement::default()
    };
    measured(kept.best / 1e9, how)
}

/// The triad on per-thread buffers filling half of one cache level's share
/// per thread, for every level sysfs lists that the model names (L1, L2,
/// L3), fastest first.
pub(crate) fn caches(
    threads: usize,
    plan: Plan,
    caches: &[CacheInfo],
    notes: &mut Vec<String>,
    watch: &mut Watch,
) -> Vec<(MemoryLevel, Figure)> {
    let mut out = Vec::new();
    for c in caches {
        let Some(level) = cache_level_of(c.level) else {
            continue;
        };
        watch.sample();
        out.push((level, cache_level(threads, plan, c, notes, watch)));
    }
    out
}

fn cache_level(
    threads: usize,
    plan: Plan,
    c: &CacheInfo,
    notes: &mut Vec<String>,
    watch: &mut Watch,
) -> Figure {
    // A thread's share of the level: a private cache (one instance per
    // core or more) is the thread's own; a shared one is split between the
    // threads that share it. Half of it, so the three arrays stay resident;
    // at most 16 MiB a thread whatever sysfs claims.
    let total = c.bytes.saturating_mul(c.instances);
    let share = if c.instances as usize >= threads {
        c.bytes
    } else {
        total / threads.max(1) as u64
    };
    let per_thread = ((share.min(32 << 20) / 2 / TRIAD_BYTES_PER_ELEMENT) as usize).max(64);
    let bytes_per_pass = (per_thread * threads) as f64 * TRIAD_BYTES_PER_ELEMENT as f64;
    // Calibrate: one short round, then as many passes as fill CACHE_ROUND.
    let trial_inner = ((1e8 / bytes_per_pass).ceil() as u32).clamp(1, 1_000_000);
    let once = Plan {
        min: 1,
        max: 1,
        budget: Duration::ZERO,
    };
    let trial = triad_resident("trial", threads, per_thread, once, trial_inner);
    let per_pass_s = trial
        .rounds
        .first()
        .map_or(1e-3, |r| r.wall.as_secs_f64() / f64::from(trial_inner));
    let inner =
        ((CACHE_ROUND.as_secs_f64() / per_pass_s.max(1e-9)).ceil() as u32).clamp(1, 1_000_000);
    let t0 = Instant::now();
    let what = format!("L{} bandwidth", c.level);
    let series = triad_resident(&what, threads, per_thread, plan, inner);
    let kept = keep(series, notes, watch);
    let how = Measurement {
        median: kept.median / 1e9,
        method: format!(
            "{TRIAD_METHOD}; per-thread buffers filling half of a thread's share of L{}, {inner} passes per round",
            c.level
        ),
        threads: threads as u32,
        buffer_bytes: Some((per_thread * threads) as u64 * 8),
        cache_bytes: Some(c.bytes),
        cache_bytes_source: "sysfs".to_owned(),
        repetitions: kept.repetitions,
        best_spread_pct: kept.best_spread_pct,
        duration_ns: t0.elapsed().as_nanos() as u64,
        ..Measurement::default()
    };
    measured(kept.best / 1e9, how)
}
