//! Measures this machine's ceilings (bandwidth of every memory level, peak
//! FLOP/s of every precision) and prints them with how they were measured.
//!
//! ```text
//! cargo run --release --example ceilings
//! ```

use profiler::hardware::{MemoryLevel, Precision};
use profiler_report::hardware::{measure, probe::ProbeOptions};

fn main() -> std::process::ExitCode {
    let hw = match measure(&ProbeOptions::default()) {
        Ok(hw) => hw,
        Err(e) => {
            eprintln!("ceilings: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    println!("CPU: {}", hw.name);
    for (level, f) in hw.memory_ceilings() {
        let Some(how) = f.source.measurement() else {
            continue;
        };
        println!(
            "{level:>5} bandwidth {:>8.1} GB/s (median {:.1}); {} threads, {:.2} MiB per array, best of {} in {:.0} ms",
            f.value,
            how.median,
            how.threads,
            how.buffer_bytes.unwrap_or(0) as f64 / f64::from(1u32 << 20),
            how.repetitions,
            how.duration_ns as f64 / 1e6
        );
    }
    for (precision, f) in hw.compute_ceilings() {
        let Some(how) = f.source.measurement() else {
            continue;
        };
        println!(
            "{:>5} peak      {:>8.1} G{}/s (median {:.1}); {}, {} threads x {} chains x {} lanes, best of {} in {:.0} ms",
            precision.name(),
            f.value * 1e3,
            precision.operation(),
            how.median * 1e3,
            how.isa.as_deref().unwrap_or("?"),
            how.threads,
            how.chains.unwrap_or(0),
            how.lanes.unwrap_or(0),
            how.repetitions,
            how.duration_ns as f64 / 1e6
        );
    }
    for note in hw.probe.iter().flat_map(|p| &p.notes) {
        println!("note: {note}");
    }
    if let Ok(ridge) =
        profiler_report::roofline::ridge_point(&hw, Precision::Fp32, MemoryLevel::Dram)
    {
        println!("FP32/DRAM ridge point: {ridge:.2} FLOP/byte");
    }
    std::process::ExitCode::SUCCESS
}
