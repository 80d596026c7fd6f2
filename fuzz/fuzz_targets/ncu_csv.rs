//! Any text through the Nsight Compute importer: parsing never panics, and
//! every number of every `FullProfile` it builds, on any device, is finite.

#![no_main]

#[path = "../common/mod.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use profiler_report::hardware::preset;
use profiler_report::{
    export::{full_profiles_json, full_profiles_markdown, full_profiles_text},
    input::nsight::{
        FlopsAssumption, FullProfile, Sourced, full_profiles_to_run_summary,
        full_profiles_to_profile, parse_ncu_csv,
    },
    roofline::FullProfileOptions,
};

fn finite(v: &Option<Sourced>) {
    if let Some(s) = v {
        assert!(
            s.value.is_finite() && s.value >= 0.0,
            "{} = {}",
            s.source,
            s.value
        );
    }
}

fn check(p: &FullProfile) {
    for v in [
        &p.timing.duration_ns,
        &p.throughput.sm_pct,
        &p.throughput.dram_pct,
        &p.throughput.dram_gb_s,
        &p.compute.flops,
        &p.compute.achieved_tflops,
        &p.memory.dram_bytes,
        &p.memory.l2_hit_rate_pct,
        &p.kernel.registers_per_thread,
    ] {
        finite(v);
    }
    let r = &p.roofline;
    for v in [
        r.ridge_point,
        r.arithmetic_intensity,
        r.achieved_tflops,
        r.attainable_tflops,
        r.efficiency_pct,
        r.distance_to_ridge,
    ]
    .into_iter()
    .flatten()
    {
        assert!(v.is_finite(), "roofline value {v}");
    }
    assert_eq!(r.bound.is_some(), r.unavailable.is_none());
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(report) = parse_ncu_csv(text, "fuzz.csv") else {
        return;
    };
    assert!(!report.kernels.is_empty());
    let options = [
        FullProfileOptions::default(),
        FullProfileOptions {
            hardware: preset("4090").ok(),
            flops: Some(FlopsAssumption::Gemm {
                m: 64,
                n: 64,
                k: 64,
                origin: "fuzz".into(),
            }),
            kernel_filter: report.kernels.first().map(|k| k.id.clone()),
            ..FullProfileOptions::default()
        },
    ];
    for o in &options {
        // A filter or a FLOP statement may not fit the input: an error, not a panic.
        let Ok(profiles) = report.full_profiles(o) else {
            continue;
        };
        profiles.iter().for_each(check);
        let _ = full_profiles_text(&profiles);
        let _ = full_profiles_markdown(&profiles);
        let json = full_profiles_json(&profiles);
        common::assert_finite_json(&json, "full profiles JSON");
        let p = full_profiles_to_profile(&profiles, "fuzz.csv");
        assert!(p.bricks.iter().all(|b| b.min_ns <= b.max_ns));
        let _ = full_profiles_to_run_summary(&profiles, "fuzz");
    }
});
