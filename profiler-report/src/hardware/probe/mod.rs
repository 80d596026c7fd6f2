//! Measured ceilings of the machine the program runs on: main-memory
//! bandwidth (a STREAM-style triad past the last-level cache), cache
//! bandwidth (the same triad on cache-resident buffers) and peak f32
//! FLOP/s (vectorised FMA chains), all on every core, in well under a
//! second. [`measure_ceilings`] returns them with how they were measured.

mod bandwidth;
mod flops;
mod rounds;
mod sysinfo;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use profiler_core::profile::{BandwidthCeiling, FlopsCeiling, MeasuredCeilings};

use bandwidth::{TRIAD_BYTES_PER_ELEMENT, triad_resident, triad_shared};
use sysinfo::CacheInfo;

/// Last-level cache assumed when sysfs does not say (a large server L3).
pub const ASSUMED_LLC_BYTES: u64 = 64 << 20;

/// Largest array the DRAM probe uses by default, bytes (three are needed).
pub const MAX_ARRAY_BYTES: u64 = 256 << 20;

const TRIAD_METHOD: &str = "STREAM triad a[i] = b[i] + s*c[i] on f64 arrays, \
                            24 bytes per element (2 reads + 1 write, write-allocate not counted)";
const FMA_METHOD: &str = "independent f32 FMA chains x = x*m + a (2 FLOPs per lane)";

/// How to run the probes. The defaults suit a report: every core, arrays
/// sized from the last-level cache, five repetitions.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeOptions {
    /// Threads (default: the CPUs this process may use).
    pub threads: Option<usize>,
    /// Bytes of each DRAM-probe array (default: 4x the last-level cache,
    /// the STREAM rule, at least 32 MiB, at most [`MAX_ARRAY_BYTES`] and an
    /// eighth of the available memory).
    pub array_bytes: Option<u64>,
    /// Timed repetitions of each probe; the best is reported.
    pub repetitions: u32,
    /// Wall time of one FLOP-probe repetition.
    pub flops_round: Duration,
    /// Whether to measure cache bandwidth too.
    pub cache: bool,
}

impl Default for ProbeOptions {
    fn default() -> Self {
        Self {
            threads: None,
            array_bytes: None,
            repetitions: 5,
            flops_round: Duration::from_millis(25),
            cache: true,
        }
    }
}

/// Measures this machine's ceilings with the default [`ProbeOptions`]
/// (a few hundred ms). Keep them in every profile with
/// `profiler::Config::new().measured_ceilings(ceilings).apply()`.
///
/// ```no_run
/// let c = profiler_report::hardware::probe::measure_ceilings();
/// println!("{:.1} GB/s", c.memory_bandwidth.map_or(0.0, |b| b.gb_s));
/// ```
#[must_use]
pub fn measure_ceilings() -> MeasuredCeilings {
    measure_ceilings_with(&ProbeOptions::default())
}

fn threads(options: &ProbeOptions) -> usize {
    options
        .threads
        .or_else(|| std::thread::available_parallelism().ok().map(usize::from))
        .unwrap_or(1)
        .max(1)
}

/// Measures this machine's ceilings as `options` say.
#[must_use]
pub fn measure_ceilings_with(options: &ProbeOptions) -> MeasuredCeilings {
    let threads = threads(options);
    let reps = options.repetitions.max(1);
    let caches = sysinfo::caches();
    let mut notes = Vec::new();
    let memory = dram(options, threads, reps, &caches, &mut notes);
    let cache = if options.cache {
        cache_level(threads, reps, &caches, &mut notes)
    } else {
        None
    };
    let t0 = Instant::now();
    let k = flops::kernel();
    let timed = flops::measure(k, threads, reps, options.flops_round);
    spread_note("FP32 peak", &timed, &mut notes);
    let peak = FlopsCeiling {
        gflops: timed.best() / 1e9,
        median_gflops: timed.median() / 1e9,
        precision: "fp32".to_owned(),
        method: FMA_METHOD.to_owned(),
        isa: k.isa.to_owned(),
        threads: threads as u32,
        chains: k.chains,
        lanes: k.lanes,
        repetitions: reps,
        duration_ns: t0.elapsed().as_nanos() as u64,
    };
    if cfg!(debug_assertions) {
        notes.push(
            "measured by a build without optimisations: the probes run unoptimised loops, so \
             the figures understate this machine (build with --release)"
                .to_owned(),
        );
    }
    MeasuredCeilings {
        cpu: sysinfo::cpu_name(),
        measured_at_unix_ns: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
        memory_bandwidth: Some(memory),
        cache_bandwidth: cache,
        peak_flops: Some(peak),
        notes,
    }
}

/// Notes a best repetition far above the median: the machine was busy (or
/// a timer misbehaved), so the best figure is less certain.
fn spread_note(what: &str, timed: &bandwidth::Timed, notes: &mut Vec<String>) {
    let (best, median) = (timed.best(), timed.median());
    if median > 0.0 && best > 1.5 * median {
        notes.push(format!(
            "{what}: repetitions varied widely (best {:.1}, median {:.1}, in units of 10^9/s); \
             the machine was probably busy, treat the figure as approximate",
            best / 1e9,
            median / 1e9
        ));
    }
}

/// The DRAM triad, with arrays sized against the last-level cache.
fn dram(
    options: &ProbeOptions,
    threads: usize,
    reps: u32,
    caches: &[CacheInfo],
    notes: &mut Vec<String>,
) -> BandwidthCeiling {
    let llc = caches.last().map(|c| c.bytes * c.instances);
    let (llc_bytes, source) = match llc {
        Some(b) => (b, "sysfs"),
        None => (ASSUMED_LLC_BYTES, "assumed"),
    };
    let available = sysinfo::mem_available();
    let array = match options.array_bytes {
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
    let timed = triad_shared(threads, elements, reps);
    spread_note("DRAM bandwidth", &timed, notes);
    BandwidthCeiling {
        gb_s: timed.best() / 1e9,
        median_gb_s: timed.median() / 1e9,
        level: "DRAM".to_owned(),
        method: TRIAD_METHOD.to_owned(),
        threads: threads as u32,
        buffer_bytes: elements as u64 * 8,
        cache_bytes: Some(llc_bytes),
        cache_bytes_source: source.to_owned(),
        repetitions: reps,
        duration_ns: t0.elapsed().as_nanos() as u64,
    }
}

/// The triad on per-thread buffers filling half of each core's L2 (or L1
/// when there is no L2); `None` without cache sizes in sysfs.
fn cache_level(
    threads: usize,
    reps: u32,
    caches: &[CacheInfo],
    notes: &mut Vec<String>,
) -> Option<BandwidthCeiling> {
    let c = caches
        .iter()
        .rev()
        .find(|c| c.level == 2)
        .or_else(|| caches.iter().find(|c| c.level == 1))?;
    // Half the cache, at most 16 MiB a thread whatever sysfs claims.
    let per_thread = ((c.bytes.min(32 << 20) / 2 / TRIAD_BYTES_PER_ELEMENT) as usize).max(64);
    // 4 GB per round: 20-40 ms at typical cache bandwidths, long enough
    // that a timer tick or a wake-up is a small error.
    let bytes_per_pass = (per_thread * threads) as f64 * TRIAD_BYTES_PER_ELEMENT as f64;
    let inner = ((4e9 / bytes_per_pass).ceil() as u32).clamp(1, 1_000_000);
    let t0 = Instant::now();
    let timed = triad_resident(threads, per_thread, reps, inner);
    spread_note(&format!("L{} bandwidth", c.level), &timed, notes);
    Some(BandwidthCeiling {
        gb_s: timed.best() / 1e9,
        median_gb_s: timed.median() / 1e9,
        level: format!("L{}", c.level),
        method: format!(
            "{TRIAD_METHOD}; per-thread buffers filling half of one L{}, {inner} passes per round",
            c.level
        ),
        threads: threads as u32,
        buffer_bytes: (per_thread * threads) as u64 * 8,
        cache_bytes: Some(c.bytes),
        cache_bytes_source: "sysfs".to_owned(),
        repetitions: reps,
        duration_ns: t0.elapsed().as_nanos() as u64,
    })
}
