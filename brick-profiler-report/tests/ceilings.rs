//! The ceiling probes against simple loops written here: the probe's
//! bandwidth is not below a plain single-thread copy loop over buffers of
//! the same size, and its FLOP peak is not below one scalar multiply-add
//! chain. Only these lower bounds are compared; no fixed numbers.

use std::hint::black_box;
use std::time::{Duration, Instant};

use profiler_core::hardware::{Measurement, MemoryLevel, Precision};
use profiler_report::{
    hardware::measure,
    hardware::probe::ProbeOptions,
    roofline::{BrickRoofline, ridge_point},
};

/// How `f` was measured: every figure the probes give says.
fn how(f: &profiler_core::hardware::Figure) -> &Measurement {
    f.source.measurement().expect("how it was measured")
}

const ARRAY_BYTES: u64 = 32 << 20;

/// Best GB/s of a plain single-thread copy of `ARRAY_BYTES` (16 bytes
/// counted per element: one read, one write).
#[allow(clippy::needless_range_loop, clippy::manual_memcpy)] // the plain loop is the point
fn copy_loop_gb_s() -> f64 {
    let n = (ARRAY_BYTES / 8) as usize;
    let src = vec![1.0f64; n];
    let mut dst = vec![0.0f64; n];
    let mut best = Duration::MAX;
    for _ in 0..3 {
        let t0 = Instant::now();
        for i in 0..n {
            dst[i] = src[i];
        }
        black_box(&mut dst);
        best = best.min(t0.elapsed());
    }
    (n as f64 * 16.0) / best.as_secs_f64() / 1e9
}

/// Best GFLOP/s of one dependent scalar multiply-add chain.
fn scalar_loop_gflops() -> f64 {
    let iters = 20_000_000u64;
    let (m, a) = (black_box(0.9999f32), black_box(0.0001f32));
    let mut best = Duration::MAX;
    for _ in 0..3 {
        let mut x = black_box(0.5f32);
        let t0 = Instant::now();
        for _ in 0..iters {
            x = x * m + a;
        }
        black_box(x);
        best = best.min(t0.elapsed());
    }
    (iters as f64 * 2.0) / best.as_secs_f64() / 1e9
}

#[test]
fn probes_beat_plain_loops_and_say_how_they_measured() {
    let options = ProbeOptions {
        array_bytes: Some(ARRAY_BYTES),
        // Best of many: the test machine may be busy.
        min_repetitions: 8,
        ..ProbeOptions::default()
    };
    let hw = measure(&options).unwrap();
    let dram = hw.memory(MemoryLevel::Dram).expect("bandwidth measured");
    let bw = how(dram);
    let copy = copy_loop_gb_s();
    eprintln!("triad {:.1} GB/s, copy loop {copy:.1} GB/s", dram.value);
    assert!(
        dram.value >= copy,
        "triad {} GB/s below a copy loop's {copy} GB/s",
        dram.value
    );
    assert_eq!(bw.buffer_bytes, Some(ARRAY_BYTES));
    assert!(bw.method.contains("triad") && bw.method.contains("24 bytes"));
    assert!(bw.threads >= 1 && bw.repetitions >= 8 && bw.duration_ns > 0);
    // The spread of the best three is stated beside the best.
    assert!(
        bw.best_spread_pct
            .is_some_and(|s| (0.0..100.0).contains(&s)),
        "{bw:?}"
    );
    assert!(bw.median > 0.0 && bw.median <= dram.value);
    assert!(matches!(
        bw.cache_bytes_source.as_str(),
        "sysfs" | "assumed"
    ));

    let fp32 = hw.compute(Precision::Fp32).expect("peak measured");
    let (gflops, f) = (fp32.value * 1e3, how(fp32));
    let isa = f.isa.as_deref().unwrap_or_default();
    let scalar = scalar_loop_gflops();
    eprintln!("FMA peak {gflops:.1} GFLOP/s ({isa}), scalar loop {scalar:.2} GFLOP/s");
    assert!(
        gflops >= scalar,
        "FMA peak {gflops} GFLOP/s below a scalar loop's {scalar}"
    );
    assert!(
        ["avx512f", "avx2+fma", "neon", "portable"].contains(&isa),
        "{isa}"
    );
    let lanes = f.chains.unwrap_or(0) * f.lanes.unwrap_or(0);
    assert!(lanes >= 8 && f.repetitions >= 8 && f.duration_ns > 0);
    assert!(
        f.best_spread_pct.is_some_and(|s| (0.0..100.0).contains(&s)),
        "{f:?}"
    );

    // The ceilings make a roofline, and they survive a profile round trip
    // with how each was measured.
    assert!(ridge_point(&hw, Precision::Fp32, MemoryLevel::Dram).unwrap() > 0.0);
    let mut profile = profiler_core::Profile::empty();
    profile.run.hardware = Some(hw.clone());
    let back = profiler_core::Profile::from_json(&profile.to_json()).unwrap();
    assert_eq!(back.run.hardware, Some(hw));
}

#[test]
fn one_thread_and_no_cache_probe_are_honoured() {
    let hw = measure(&ProbeOptions {
        threads: Some(1),
        array_bytes: Some(4 << 20),
        min_repetitions: 2,
        budget: Duration::from_millis(100),
        flops_round: Duration::from_millis(5),
        cache: false,
    })
    .unwrap();
    assert_eq!(hw.memory_ceilings().count(), 1, "DRAM alone");
    let threads = |f: Option<&profiler_core::hardware::Figure>| f.map(|f| how(f).threads);
    assert_eq!(threads(hw.memory(MemoryLevel::Dram)), Some(1));
    assert_eq!(threads(hw.compute(Precision::Fp32)), Some(1));
    assert!(hw.probe.as_ref().unwrap().measured_at_unix_ns > 0);
}

/// This machine's INT8 peak: measured with the int8 multiply-add
/// instructions the CPU has (AVX2's `vpmaddubsw` + `vpmaddwd` on an x86-64
/// without VNNI), saying which; usable as the roof of `--precision int8`.
/// A BF16 peak only where a native instruction exists, else a note.
#[test]
fn int8_is_measured_with_its_own_instructions_and_bf16_never_emulated() {
    let roof = measure(&ProbeOptions {
        array_bytes: Some(4 << 20),
        min_repetitions: 2,
        budget: Duration::from_millis(100),
        flops_round: Duration::from_millis(5),
        cache: false,
        ..ProbeOptions::default()
    })
    .unwrap();
    let int8 = roof.compute(Precision::Int8);
    let bf16 = roof.compute(Precision::Bf16);
    let notes = &roof.probe.as_ref().unwrap().notes;
    #[cfg(target_arch = "x86_64")]
    let (has_int8, has_bf16) = (
        std::arch::is_x86_feature_detected!("avx2"),
        std::arch::is_x86_feature_detected!("avx512bf16"),
    );
    #[cfg(not(target_arch = "x86_64"))]
    let (has_int8, has_bf16) = (false, false);
    if has_int8 {
        let figure = int8.expect("an INT8 peak");
        let int8 = how(figure);
        assert!(figure.value > 0.0 && int8.median > 0.0, "{figure:?}");
        assert!(
            int8.method.contains("vpmaddubsw") || int8.method.contains("vpdpbusd"),
            "{}",
            int8.method
        );
        assert!(int8.method.contains("2 ops per multiply-add"));
        assert!(int8.threads >= 1 && int8.lanes >= Some(32) && int8.chains >= Some(12));
        let r = BrickRoofline::from_profile(
            &profiler_core::Profile::empty(),
            &roof,
            Some(Precision::Int8),
            None,
        )
        .expect("bricks judged against the INT8 peak");
        assert_eq!(r.precision, Precision::Int8);
    } else {
        assert!(int8.is_none());
    }
    if has_bf16 {
        assert!(bf16.is_some_and(|f| how(f).method.contains("vdpbf16ps")));
    } else {
        assert!(bf16.is_none());
        assert!(
            notes
                .iter()
                .any(|n| n.contains("BF16") && n.contains("no native bf16 instruction")),
            "{notes:?}"
        );
    }
}
