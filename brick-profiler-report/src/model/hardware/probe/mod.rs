//! Measured ceilings of the machine the program runs on: bandwidth of every
//! memory level (a STREAM-style triad on buffers resident in L1, L2 and the
//! last-level cache, and past it for DRAM) and peak FLOP/s per precision
//! (vectorised FMA chains; INT8 and BF16 dot-product chains where the CPU
//! has instructions for them), all on every core, in about a second,
//! watching for other work on the machine. Each probe repeats until its
//! best converges and reports that best with its spread.
//! The hardware module's `measure` returns them as the hardware model,
//! each figure with how it was measured.

mod bandwidth;
mod contention;
mod converge;
mod dot;
mod flops;
mod levels;
mod rounds;
mod sysinfo;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use profiler_core::hardware::{Figure, Measurement, MemoryLevel, Precision, Source};

pub use contention::BUSY_OTHER_RUNNABLE;
pub(crate) use contention::Contention;
pub use converge::{CONVERGED_PCT, FULL_CPU_PCT};
pub use levels::{ASSUMED_LLC_BYTES, MAX_ARRAY_BYTES};
pub(crate) use levels::{cache_level_of, sysfs_source};
pub(crate) use sysinfo::{CacheInfo, cpu_name};

/// Most repetitions of one probe, however far from converged.
const MAX_REPETITIONS: u32 = 200;

/// Shares of the budget the DRAM probe gets against one for every other
/// probe: its rounds stream arrays past the last-level cache, several
/// times longer than a cache or FLOP round.
const DRAM_SHARES: u32 = 4;

/// How to run the probes. The defaults suit a report: every core, arrays
/// sized from the last-level cache, at least three repetitions of each
/// probe, and about a second in all for the probes to converge.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeOptions {
    /// Threads (default: the CPUs this process may use).
    pub threads: Option<usize>,
    /// Bytes of each DRAM-probe array (default: 4x the last-level cache,
    /// the STREAM rule, at least 32 MiB, at most [`MAX_ARRAY_BYTES`] and an
    /// eighth of the available memory).
    pub array_bytes: Option<u64>,
    /// Fewest timed repetitions of each probe; the best is reported.
    pub min_repetitions: u32,
    /// Timed time of all the probes together, split between them (the
    /// DRAM probe, whose rounds are longest, gets four shares, every other
    /// one): past its fewest repetitions, a probe repeats until its best
    /// three agree within [`CONVERGED_PCT`] and its best ran with the whole
    /// of its CPU, or until its share of this is spent.
    pub budget: Duration,
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
            min_repetitions: 3,
            budget: Duration::from_secs(1),
            flops_round: Duration::from_millis(10),
            cache: true,
        }
    }
}

/// What one run of the probes measured, before it becomes the hardware
/// model.
#[derive(Debug, Clone)]
pub(crate) struct Probed {
    /// The processor, as the OS names it (may be empty).
    pub(crate) cpu: String,
    /// When the probes ran, ns since the Unix epoch.
    pub(crate) measured_at_unix_ns: u64,
    /// Bandwidth of DRAM, then of each cache level, fastest first, GB/s.
    pub(crate) memory: Vec<(MemoryLevel, Figure)>,
    /// Peak of each precision measured, TFLOP/s (TOP/s for INT8).
    pub(crate) compute: Vec<(Precision, Figure)>,
    /// The caches sysfs lists, fastest first.
    pub(crate) caches: Vec<CacheInfo>,
    /// What else ran on the machine meanwhile.
    pub(crate) contention: Contention,
    /// Caveats a reader must know.
    pub(crate) notes: Vec<String>,
}

fn threads(options: &ProbeOptions) -> usize {
    options
        .threads
        .or_else(|| std::thread::available_parallelism().ok().map(usize::from))
        .unwrap_or(1)
        .max(1)
}

/// Measures this machine's ceilings as `options` say.
pub(crate) fn run(options: &ProbeOptions) -> Probed {
    let threads = threads(options);
    let caches = sysinfo::caches();
    let int8 = dot::int8_kernel();
    let bf16 = dot::bf16_kernel();
    let kernels = [Some(flops::kernel()), Some(flops::kernel_f64()), int8, bf16];
    let cache_probes = if options.cache { caches.len() } else { 0 };
    let shares = DRAM_SHARES + (cache_probes + kernels.iter().flatten().count()) as u32;
    let plan = converge::Plan {
        min: options.min_repetitions.max(1),
        max: MAX_REPETITIONS.max(options.min_repetitions),
        budget: options.budget,
    };
    let (dram_plan, plan) = (plan.share(DRAM_SHARES, shares), plan.share(1, shares));
    let mut notes = Vec::new();
    let mut watch = contention::Watch::start();
    let memory = levels::dram(
        options.array_bytes,
        dram_plan,
        threads,
        &caches,
        &mut notes,
        &mut watch,
    );
    let cache_levels = if options.cache {
        levels::caches(threads, plan, &caches, &mut notes, &mut watch)
    } else {
        Vec::new()
    };
    let mut peaks = Vec::new();
    for k in kernels.into_iter().flatten() {
        watch.sample();
        peaks.push(peak(k, threads, plan, options.flops_round, &mut watch));
    }
    low_precision_note(&mut notes, int8.is_some(), bf16.is_some());
    let contention = watch.finish();
    closing_notes(&mut notes, &contention);
    let mut memory = vec![(MemoryLevel::Dram, memory)];
    memory.extend(cache_levels);
    Probed {
        cpu: sysinfo::cpu_name(),
        measured_at_unix_ns: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
        memory,
        compute: peaks,
        caches,
        contention,
        notes,
    }
}

/// The notes every measurement ends with: a build without optimisations,
/// ceilings that did not settle, other work seen on the machine.
fn closing_notes(notes: &mut Vec<String>, contention: &Contention) {
    if cfg!(debug_assertions) {
        notes.push(
            "measured by a build without optimisations: the probes run unoptimised loops, so \
             the figures understate this machine (build with --release)"
                .to_owned(),
        );
    }
    if !contention.unsettled.is_empty() {
        notes.push(format!(
            "not every ceiling settled ({}): those ceilings may be low, and a % of them high; \
             the grade rests on the DRAM bandwidth alone",
            contention.unsettled.join("; ")
        ));
    }
    if contention.busy {
        notes.push(format!(
            "the machine was busy while probing ({}): the ceilings may be too low; pin quiet \
             ones with `brick-profiler probe --save` or a hardware preset (PROFILER_HARDWARE)",
            contention.reasons.join("; ")
        ));
    }
}

/// One FMA kernel on every thread, best of the repetitions `plan` runs,
/// TFLOP/s (TOP/s for INT8).
fn peak(
    k: flops::Kernel,
    threads: usize,
    plan: converge::Plan,
    round: Duration,
    watch: &mut contention::Watch,
) -> (Precision, Figure) {
    let t0 = Instant::now();
    let series = flops::measure(k, threads, plan, round);
    let how = Measurement {
        median: series.median() / 1e12,
        method: k.method.to_owned(),
        isa: Some(k.isa.to_owned()),
        threads: threads as u32,
        chains: Some(k.chains),
        lanes: Some(k.lanes),
        repetitions: series.repetitions(),
        best_spread_pct: series.best_spread_pct(),
        duration_ns: t0.elapsed().as_nanos() as u64,
        ..Measurement::default()
    };
    // Every kernel names a precision the model knows (`flops`, `dot`).
    let precision = k.precision.parse().unwrap_or(Precision::Fp32);
    let figure = Figure::new(
        series.best() / 1e12,
        Source::Measured {
            how: Some(Box::new(how)),
        },
    );
    watch.probed(series);
    (precision, figure)
}

/// Says why a BF16 or INT8 peak is absent: each is measured only with an
/// instruction made for it (AVX-512 BF16; VNNI or AVX2's u8 x i8
/// multiply-add), never emulated, since an emulation is no peak.
fn low_precision_note(notes: &mut Vec<String>, int8: bool, bf16: bool) {
    // The x86 ones have kernels (`dot`); only the others go unmeasured.
    let mut found = dot::low_precision_isa();
    found.retain(|isa| !matches!(*isa, "avx512_bf16" | "avx512_vnni" | "avx_vnni"));
    let has = if found.is_empty() {
        String::new()
    } else {
        format!(
            " (the CPU has {}, which the probe does not drive)",
            found.join(", ")
        )
    };
    match (int8, bf16) {
        (true, true) => {}
        (true, false) => notes.push(format!(
            "BF16 peak not measured: no native bf16 instruction{has}; bf16 work runs through \
             FP32 at the FP32 peak or below"
        )),
        (false, true) => notes.push(format!(
            "INT8 peak not measured: no int8 dot-product instruction{has}"
        )),
        (false, false) => notes.push(format!(
            "BF16 and INT8 peaks not measured: no native bf16 or int8 dot-product \
             instruction{has}, so such work runs at the FP32 peak or below"
        )),
    }
}
