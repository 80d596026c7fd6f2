//! Measures this machine's ceilings (memory bandwidth, cache bandwidth,
//! peak f32 FLOP/s) and prints them with how they were measured.
//!
//! ```text
//! cargo run --release --example ceilings
//! ```

fn main() -> std::process::ExitCode {
    let c = profiler_report::hardware::probe::measure_ceilings();
    println!("CPU: {}", if c.cpu.is_empty() { "unknown" } else { &c.cpu });
    for bw in [&c.memory_bandwidth, &c.cache_bandwidth]
        .into_iter()
        .flatten()
    {
        println!(
            "{:>5} bandwidth {:>8.1} GB/s (median {:.1}); {} threads, {:.2} MiB per array, best of {} in {:.0} ms",
            bw.level,
            bw.gb_s,
            bw.median_gb_s,
            bw.threads,
            bw.buffer_bytes as f64 / f64::from(1u32 << 20),
            bw.repetitions,
            bw.duration_ns as f64 / 1e6
        );
    }
    if let Some(f) = &c.peak_flops {
        println!(
            "{:>5} peak      {:>8.1} GFLOP/s (median {:.1}); {}, {} threads x {} chains x {} lanes, best of {} in {:.0} ms",
            f.precision.to_uppercase(),
            f.gflops,
            f.median_gflops,
            f.isa,
            f.threads,
            f.chains,
            f.lanes,
            f.repetitions,
            f.duration_ns as f64 / 1e6
        );
    }
    for note in &c.notes {
        println!("note: {note}");
    }
    match profiler_report::hardware::from_measured(&c) {
        Ok(r) => {
            if let Ok(ridge) = profiler_report::roofline::ridge_point(
                &r,
                profiler::hardware::Precision::Fp32,
                profiler::hardware::MemoryLevel::Dram,
            ) {
                println!("FP32/DRAM ridge point: {ridge:.2} FLOP/byte");
            }
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ceilings: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
