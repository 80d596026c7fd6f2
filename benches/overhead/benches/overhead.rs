//! Overhead benchmark: ns per call of a tiny `#[inline(never)]` function,
//! bare, with two clock reads, under `#[brick]` in each mode, and under
//! fastrace, hotpath, puffin and tracing, in interleaved rounds.
//!
//! ```text
//! cargo bench -p overhead-bench                      # full run (~20 s)
//! cargo bench -p overhead-bench -- --quick           # smoke run
//! cargo bench -p overhead-bench -- --json out.json   # also write JSON
//! cargo bench -p overhead-bench -- --strict          # exit 1 on a missed target
//! cargo bench -p overhead-bench -- --only brick,fastrace --no-slots  # a subset
//! cargo bench -p overhead-bench -- --glibc-trim      # keep glibc's heap trimming
//! ```
//!
//! Exits non-zero if any profiler recorded fewer calls than were made.
//! See docs/PERFORMANCE.md for how to read the results.

use std::process::ExitCode;
use std::rc::Rc;

use clap::Parser;
use overhead_bench::rivals::{
    fastrace_spans, hotpath_measure, puffin_scopes, tracing_bricks, tracing_spans,
};
use overhead_bench::team::Team;
use overhead_bench::variant::{Variant, run_round};
use overhead_bench::{baseline, ours, report, slots};
use serde_json::json;

/// Calls per batch (per thread).
const CALLS: u64 = 200_000;
/// Calls per batch of a debug build (`cargo test --all-targets` runs this
/// binary unoptimised: a smoke run that still checks every count).
const SMOKE_CALLS: u64 = 2_000;
/// Timed rounds of a full run, and of `--quick`.
const ROUNDS: usize = 15;
const QUICK_ROUNDS: usize = 3;
/// Untimed rounds first (caches, branch predictors, lazy initialisation).
const WARMUP_ROUNDS: usize = 1;
/// `snapshot()` repetitions in the 1000 bricks x 16 threads test.
const SNAPSHOTS: usize = 20;
const QUICK_SNAPSHOTS: usize = 5;
/// Threads of the concurrent variants.
const THREADS: usize = 2;

/// Overhead benchmark of the brick profiler against fastrace, hotpath,
/// puffin and tracing.
#[derive(Debug, Parser)]
struct Args {
    /// Fewer rounds and snapshots: a smoke run.
    #[arg(long)]
    quick: bool,
    /// Exit 1 when a target is missed.
    #[arg(long)]
    strict: bool,
    /// Skip the memory-per-slot and snapshot() phase.
    #[arg(long)]
    no_slots: bool,
    /// Leave glibc's heap trimming on (it slows fastrace's per-span buffers).
    #[arg(long)]
    glibc_trim: bool,
    /// Also write the results as JSON to this file.
    #[arg(long)]
    json: Option<String>,
    /// Only the variants with these keys (comma-separated).
    #[arg(long, value_delimiter = ',')]
    only: Option<Vec<String>>,
    /// Internal: run the slots phase as a child process with this many snapshots.
    #[arg(long, hide = true)]
    slots_phase: Option<usize>,
    /// Passed by `cargo bench`; ignored.
    #[arg(long, hide = true)]
    bench: bool,
}

fn machine() -> serde_json::Value {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map_or("unknown".to_owned(), |m| m.trim().to_owned());
    let clocksource =
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .map_or("unknown".to_owned(), |s| s.trim().to_owned());
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    json!({"cpu": model, "cores": cores, "clocksource": clocksource, "arch": std::env::consts::ARCH})
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(snapshots) = args.slots_phase {
        slots::child_main(snapshots);
        return ExitCode::SUCCESS;
    }
    let smoke = cfg!(debug_assertions);
    let quick = args.quick || smoke;
    let rounds = if quick { QUICK_ROUNDS } else { ROUNDS };
    let calls = if smoke { SMOKE_CALLS } else { CALLS };
    let machine = machine();
    println!("overhead benchmark: {machine}");
    if args.glibc_trim {
        println!("glibc heap trimming left on (--glibc-trim)");
    }
    println!(
        "{calls} calls per batch, {WARMUP_ROUNDS} warm-up + {rounds} timed interleaved rounds{}",
        if smoke {
            " (debug build: smoke run, numbers meaningless)"
        } else if quick {
            " (--quick)"
        } else {
            ""
        }
    );

    // First, in a fresh child process: memory per slot/event and snapshot().
    let snapshots = if quick { QUICK_SNAPSHOTS } else { SNAPSHOTS };
    let slots = if args.no_slots {
        None
    } else {
        slots::run_in_child(snapshots)
            .inspect_err(|e| eprintln!("slots phase failed: {e}"))
            .ok()
    };

    // SAFETY: no other thread exists yet in this process (the child above
    // was a separate process), so nothing can read the environment concurrently.
    unsafe { std::env::set_var("HOTPATH_METRICS_SERVER_OFF", "1") };
    if !args.glibc_trim {
        overhead_bench::measure::steady_allocator();
    }
    ours::setup();
    let team = Rc::new(Team::new(THREADS));
    let (fastrace_single, fastrace_multi) = fastrace_spans::variants(Rc::clone(&team));
    let (hotpath, hotpath_single, hotpath_multi) = hotpath_measure::start(Rc::clone(&team));
    let mut variants: Vec<Variant> = baseline::variants();
    variants.extend(ours::variants());
    variants.extend([
        fastrace_single,
        hotpath_single,
        puffin_scopes::variant(),
        tracing_spans::variant(),
        tracing_bricks::scoped_variant(),
        tracing_bricks::timed_variant(),
        tracing_bricks::variant(),
        baseline::team_variant(Rc::clone(&team)),
        ours::team_variant(Rc::clone(&team)),
        fastrace_multi,
        hotpath_multi,
    ]);
    if let Some(only) = &args.only {
        variants.retain(|v| only.iter().any(|k| k == v.key));
    }

    for _ in 0..WARMUP_ROUNDS {
        run_round(&mut variants, calls, false);
    }
    for round in 1..=rounds {
        eprint!("\rround {round}/{rounds}");
        run_round(&mut variants, calls, true);
    }
    eprintln!();

    match hotpath.finish(&mut variants) {
        Ok(r) => {
            println!(
                "\nhotpath report ({}; writing it took {:.1} ms CPU):",
                r.path.display(),
                r.cpu_ns as f64 / 1e6
            );
            for (name, calls, timed, avg) in &r.functions {
                println!("  {name}: {calls} calls, {timed} timed, avg {avg}");
            }
        }
        Err(e) => eprintln!("hotpath report unavailable: {e}"),
    }
    drop(team);

    println!("\n{}", report::table(&variants));
    print_memory(slots.as_ref());
    if let Some(o) = profiler::snapshot().run.overhead {
        println!(
            "profiler self-calibration: {:.1} ns added per call, {:.1} ns floor in each sample",
            o.per_call_ns, o.floor_ns
        );
    }

    let targets = report::targets(&variants, slots.as_ref());
    if smoke {
        println!("\ntargets: not evaluated in a debug build");
    } else {
        println!("\ntargets:\n{}", report::target_lines(&targets));
    }

    let mut failed = false;
    for v in variants.iter().filter(|v| !v.recording_ok()) {
        eprintln!(
            "RECORDING FAILURE: {} ({} thread(s)): {}",
            v.name,
            v.threads,
            v.recorded_text()
        );
        failed = true;
    }
    if slots.as_ref().is_some_and(|s| !s.counts_ok) {
        eprintln!("RECORDING FAILURE: snapshot() missed samples of the 1000 x 16 bricks");
        failed = true;
    }
    if let Some(path) = &args.json {
        let settings = json!({"machine": machine, "calls_per_batch": calls, "rounds": rounds, "warmup_rounds": WARMUP_ROUNDS});
        let doc = report::to_json(&variants, &targets, slots.as_ref(), settings);
        match serde_json::to_string_pretty(&doc).map(|text| std::fs::write(path, text)) {
            Ok(Ok(())) => println!("wrote {path}"),
            Ok(Err(e)) => eprintln!("write {path}: {e}"),
            Err(e) => eprintln!("serialise results: {e}"),
        }
    }
    if failed || (args.strict && !smoke && targets.iter().any(|t| !t.pass())) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn print_memory(slots: Option<&slots::SlotsResult>) {
    let Some(s) = slots else {
        println!("memory and snapshot(): not measured");
        return;
    };
    let bytes = |v: Option<f64>| v.map_or("?".to_owned(), |v| format!("{v:.1}"));
    println!(
        "memory per brick slot per thread ({} threads x {} new slots): {} B reserved (malloc'd), {} B resident (RSS)",
        slots::THREADS,
        slots::BRICKS,
        bytes(s.slot_allocated),
        bytes(s.slot_resident)
    );
    println!(
        "timeline (trace mode) buffer per event ({} events): {} B reserved (malloc'd), {} B resident (RSS)",
        slots::EVENTS - 1,
        bytes(s.event_allocated),
        bytes(s.event_resident)
    );
    if let Some(snap) = s.snapshot() {
        println!(
            "snapshot() with {} live threads x {} bricks: median {:.0} us, min {:.0} us, max {:.0} us ({} snapshots)",
            slots::THREADS,
            slots::BRICKS,
            snap.median / 1e3,
            snap.min / 1e3,
            snap.max / 1e3,
            s.snapshot_ns.len()
        );
    }
}
