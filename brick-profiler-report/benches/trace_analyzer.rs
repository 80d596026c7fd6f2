//! Throughput check of the trace analyses (`profiler_report::trace`):
//! every analysis must handle 10 million entries in under 2 s (release
//! build, 2 cores).
//!
//! Builds a synthetic trace (48 operation names, 8 devices), times each
//! analysis as the best of 3 runs, prints a table and exits with status 1
//! when one is over the limit. `TRACE_BENCH_ENTRIES` overrides the size.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use profiler_core::trace::{RecordedExecutionTrace, RecordedTraceEntry};
use profiler_report::trace;

const DEFAULT_ENTRIES: usize = 10_000_000;
const LIMIT: Duration = Duration::from_secs(2);
const RUNS: usize = 3;

/// A named analysis run over the trace.
type Analysis<'a> = (&'static str, Box<dyn Fn() + 'a>);

fn synthetic_trace(n: usize) -> RecordedExecutionTrace {
    let kinds = [
        "matmul",
        "softmax",
        "rms_norm",
        "rope",
        "gelu",
        "AllReduce",
        "all_gather",
        "send",
    ];
    let names: Vec<String> = (0..48)
        .map(|i| format!("{}_{i}", kinds[i % kinds.len()]))
        .collect();
    let devices: Vec<String> = (0..8).map(|d| format!("cuda:{d}")).collect();
    let mut trace = RecordedExecutionTrace::new();
    trace.entries.reserve_exact(n);
    // A fixed LCG: the same trace on every run, no dependency.
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    for i in 0..n {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        let r = state >> 33;
        let mut entry = RecordedTraceEntry::new(i / 1000, names[(r % 48) as usize].as_str())
            .with_device_id(devices[(r >> 8) as usize % 8].as_str());
        entry.duration_us = (r % 5000) as f64 / 10.0;
        entry.memory_bytes = ((r >> 12) % (1 << 22)) as usize;
        trace.add_entry(entry);
    }
    trace
}

fn best_of(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() -> ExitCode {
    let n = std::env::var("TRACE_BENCH_ENTRIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_ENTRIES);
    let start = Instant::now();
    let trace = synthetic_trace(n);
    println!("built {n} entries in {:.2?}\n", start.elapsed());

    let t = &trace;
    let analyses: [Analysis<'_>; 7] = [
        (
            "operation_summary",
            Box::new(|| drop(black_box(trace::operation_summary(t)))),
        ),
        (
            "memory_hotspots",
            Box::new(|| drop(black_box(trace::memory_hotspots(t, 1 << 21)))),
        ),
        (
            "avg_duration_by_op",
            Box::new(|| drop(black_box(trace::avg_duration_by_op(t)))),
        ),
        (
            "per_device_summary",
            Box::new(|| drop(black_box(trace::per_device_summary(t)))),
        ),
        (
            "load_balance_metrics",
            Box::new(|| drop(black_box(trace::load_balance_metrics(t)))),
        ),
        (
            "communication_bottlenecks",
            Box::new(|| drop(black_box(trace::communication_bottlenecks(t, 0.01)))),
        ),
        (
            "flamegraph_collapsed",
            Box::new(|| drop(black_box(trace::flamegraph_collapsed(t)))),
        ),
    ];
    println!(
        "{:<28} {:>12} {:>14}  limit {:?}",
        "analysis", "best of 3", "ns/entry", LIMIT
    );
    let mut over = Vec::new();
    for (name, run) in &analyses {
        let best = best_of(RUNS, run);
        let per_entry = best.as_nanos() as f64 / n.max(1) as f64;
        let flag = if best > LIMIT { "  OVER" } else { "" };
        println!("{name:<28} {:>12.3?} {per_entry:>14.1}{flag}", best);
        if best > LIMIT {
            over.push(*name);
        }
    }
    if over.is_empty() {
        ExitCode::SUCCESS
    } else {
        eprintln!("\nover {LIMIT:?}: {}", over.join(", "));
        ExitCode::FAILURE
    }
}
