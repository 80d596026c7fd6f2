//! Allocator overhead: ns per alloc/free pair of 64 bytes through the
//! system allocator, a plain forwarding wrapper of it, the tracking
//! allocator (profiler disabled, enabled, and inside a brick), dhat's heap
//! profiler and a counting allocator (`stats_alloc`), in interleaved rounds.
//!
//! ```text
//! cargo bench -p overhead-bench --bench alloc              # full run (~10 s)
//! cargo bench -p overhead-bench --bench alloc -- --quick   # smoke run
//! cargo bench -p overhead-bench --bench alloc -- --strict  # exit 1 on a missed goal
//! ```
//!
//! Each allocator is called directly (not as the global allocator), so one
//! binary measures them all on the same code path. Goals: tracking adds at
//! most 10 ns per pair over the forwarding wrapper, and under 0.1x what
//! dhat adds. Exits non-zero if the tracking allocator charged fewer
//! allocations than were made.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use profiler::alloc::{MemoryKind, Tracking};
use profiler::brick;
use stats_alloc::StatsAlloc;

/// Pairs per timed batch.
const PAIRS: u64 = 1_000_000;
/// Timed rounds of a full run, and of `--quick`.
const ROUNDS: usize = 15;
const QUICK_ROUNDS: usize = 3;
/// The goal: ns tracking may add per pair over the plain wrapper.
const GOAL_NS: f64 = 10.0;
/// The goal: tracking's added cost over dhat's.
const GOAL_VS_DHAT: f64 = 0.1;

/// Forwards every call to the wrapped allocator: the cost of the wrapper
/// itself, which tracking is compared against.
struct Forward<A>(A);

// SAFETY: every method forwards to the wrapped allocator unchanged.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Forward<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded under the caller's contract.
        unsafe { self.0.alloc(layout) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded under the caller's contract.
        unsafe { self.0.dealloc(ptr, layout) }
    }
}

static FORWARD: Forward<System> = Forward(System);
static TRACKING: Tracking<System> = Tracking::new(System);
static DHAT: dhat::Alloc = dhat::Alloc;
static STATS: StatsAlloc<System> = StatsAlloc::system();

/// `PAIRS` alloc/free pairs of 64 bytes through `a`: ns per pair.
#[inline(never)]
fn pairs<A: GlobalAlloc>(a: &A) -> f64 {
    let layout = Layout::from_size_align(64, 8).expect("a valid layout");
    let start = Instant::now();
    for _ in 0..PAIRS {
        // SAFETY: a non-zero-size layout, and the block is freed with it.
        unsafe {
            let p = black_box(a.alloc(layout));
            assert!(!p.is_null(), "allocation failed");
            a.dealloc(p, layout);
        }
    }
    start.elapsed().as_nanos() as f64 / PAIRS as f64
}

/// The pairs inside a brick: each charge goes to it.
#[brick("AllocPairs")]
fn pairs_in_brick() -> f64 {
    pairs(&TRACKING)
}

/// One measured variant.
struct Variant {
    key: &'static str,
    what: &'static str,
    run: fn() -> f64,
}

const VARIANTS: [Variant; 7] = [
    Variant {
        key: "system",
        what: "System, called directly",
        run: || pairs(&System),
    },
    Variant {
        key: "wrapped",
        what: "System in a forwarding wrapper (no tracking)",
        run: || pairs(&FORWARD),
    },
    Variant {
        key: "tracking-off",
        what: "Tracking<System>, profiler disabled",
        run: || {
            profiler::disable();
            pairs(&TRACKING)
        },
    },
    Variant {
        key: "tracking-on",
        what: "Tracking<System>, profiler enabled, no brick open",
        run: || {
            profiler::enable();
            pairs(&TRACKING)
        },
    },
    Variant {
        key: "tracking-brick",
        what: "Tracking<System>, profiler enabled, inside a brick",
        run: || {
            profiler::enable();
            pairs_in_brick()
        },
    },
    Variant {
        key: "dhat",
        what: "dhat::Alloc with a heap profiler running",
        run: || pairs(&DHAT),
    },
    Variant {
        key: "stats_alloc",
        what: "stats_alloc::StatsAlloc<System> (counting)",
        run: || pairs(&STATS),
    },
];

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let strict = args.iter().any(|a| a == "--strict");
    let rounds = if quick { QUICK_ROUNDS } else { ROUNDS };
    // dhat records only while a profiler is alive; testing mode keeps its
    // results in memory instead of writing a file at the end.
    let _dhat = dhat::Profiler::builder().testing().build();
    profiler::enable();
    profiler::reset();
    // Warm-up: lazy initialisation, caches, the brick's slot.
    for v in &VARIANTS {
        (v.run)();
    }
    profiler::reset();
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); VARIANTS.len()];
    for _ in 0..rounds {
        for (i, v) in VARIANTS.iter().enumerate() {
            samples[i].push((v.run)());
        }
    }
    profiler::enable();
    let charged = profiler::snapshot()
        .memory
        .and_then(|m| {
            m.brick("AllocPairs", MemoryKind::Host)
                .map(|b| b.allocations)
        })
        .unwrap_or(0);
    profiler::disable();
    let ns: Vec<f64> = samples.into_iter().map(median).collect();
    let at = |key: &str| {
        VARIANTS
            .iter()
            .position(|v| v.key == key)
            .map_or(f64::NAN, |i| ns[i])
    };
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "alloc/free pair of 64 bytes: median of {rounds} rounds x {PAIRS} pairs; load average {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "  {:<15} {:>9} {:>12}  what",
        "variant", "ns/pair", "+ vs wrapped"
    );
    let wrapped = at("wrapped");
    for (v, &n) in VARIANTS.iter().zip(&ns) {
        println!(
            "  {:<15} {:>9.2} {:>+12.2}  {}",
            v.key,
            n,
            n - wrapped,
            v.what
        );
    }
    let added = at("tracking-on").max(at("tracking-brick")) - wrapped;
    let dhat_added = at("dhat") - wrapped;
    let ratio = added / dhat_added;
    let mut ok = true;
    let verdict = |met: bool| if met { "met" } else { "MISSED" };
    println!(
        "goal: tracking adds <= {GOAL_NS} ns per pair: {added:.2} ns, {}",
        verdict(added <= GOAL_NS)
    );
    println!(
        "goal: tracking adds < {GOAL_VS_DHAT}x what dhat adds ({dhat_added:.2} ns): {ratio:.3}x, {}",
        verdict(ratio < GOAL_VS_DHAT)
    );
    ok &= added <= GOAL_NS && ratio < GOAL_VS_DHAT;
    let expected = PAIRS * rounds as u64;
    println!("tracking charged {charged} allocations to the brick ({expected} made)");
    if charged != expected {
        eprintln!("error: the tracking allocator missed allocations");
        return ExitCode::FAILURE;
    }
    if strict && !ok {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
