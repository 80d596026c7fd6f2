//! Any text through the Nsight Systems importer: parsing never panics, and
//! every kernel it accepts is consistent (finite, ordered extremes, at
//! least one launch) and converts and renders.

#![no_main]

use libfuzzer_sys::fuzz_target;
use profiler_report::diff::compute_diff;
use profiler_report::input::nsight::parse_nsys_stats;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(report) = parse_nsys_stats(text, "fuzz.txt") else {
        return;
    };
    assert!(!report.kernels.is_empty());
    for k in &report.kernels {
        assert!(k.instances >= 1);
        for v in [k.total_ns, k.avg_ns, k.min_ns, k.max_ns] {
            assert!(v.is_finite() && v >= 0.0, "{v}");
        }
        assert!(k.med_ns.is_none_or(f64::is_finite));
        assert!(k.stddev_ns.is_none_or(f64::is_finite));
    }
    let profile = report.to_profile();
    assert_eq!(profile.bricks.len(), report.kernels.len());
    let _ = report.to_text();
    let _ = report.to_markdown();
    let _ = report.to_json();
    let input = report.to_run_summary();
    let d = compute_diff(std::slice::from_ref(&input), &input, &Default::default());
    assert!(!d.regressed(false), "a run never regresses against itself");
    let _ = d.to_string();
    let _ = d.to_bmf();
    let _ = d.to_gab();
    let _ = d.to_junit();
});
