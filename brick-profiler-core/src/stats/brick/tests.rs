//! A brick's statistics: merging, self time and memory counters.

use super::*;

fn sample() -> BrickStats {
    BrickStats {
        count: 4,
        total_ns: 10_000,
        min_ns: 1_000,
        max_ns: 4_000,
        total_elements: 2_000,
        total_bytes: 50_000,
        total_compressed_bytes: 10_000,
        total_flops: 80_000,
        total_cycles: 30_000,
        min_cycles: 3_000,
        max_cycles: 12_000,
        ..BrickStats::new("RmsNorm", BrickCategory::Norm)
    }
}

#[test]
fn derived_values_follow_the_reference_formulas() {
    let s = sample();
    assert_eq!(s.avg_us(), 2.5);
    assert_eq!(s.min_us(), 1.0);
    assert_eq!(s.max_us(), 4.0);
    assert_eq!(s.throughput(), 2_000.0 / 10e-6);
    assert_eq!(s.compression_ratio(), 5.0);
    assert_eq!(s.throughput_gbps(), 5.0);
    assert_eq!(s.gflops(), 8.0);
    assert_eq!(s.cycles_per_element(), 15.0);
    assert_eq!(s.avg_cycles(), 7_500.0);
    assert!((s.estimated_ipc() - 2_000.0 / 30_000.0).abs() < 1e-12);
    assert_eq!(s.diagnose_from_cycles(), CycleDiagnosis::MemoryBound);
    assert_eq!(s.percentage(40_000), 25.0);
}

#[test]
fn empty_stats_derive_zeros_not_nan() {
    let s = BrickStats::new("X", BrickCategory::Other);
    for v in [
        s.avg_us(),
        s.min_us(),
        s.max_us(),
        s.throughput(),
        s.throughput_gbps(),
        s.cycles_per_element(),
        s.avg_cycles(),
        s.estimated_ipc(),
        s.p99_us(),
        s.percentage(0),
    ] {
        assert_eq!(v, 0.0);
    }
    assert_eq!(s.compression_ratio(), 1.0);
    assert_eq!(s.diagnose_from_cycles(), CycleDiagnosis::InsufficientData);
    assert_eq!(s.min_ns, u64::MAX);
}

#[test]
fn diagnosis_thresholds() {
    let mut s = sample();
    s.total_elements = 70_000; // IPC 2.33
    assert_eq!(s.diagnose_from_cycles(), CycleDiagnosis::ComputeBound);
    s.total_elements = 30_000; // IPC 1, 1/3 ns per cycle
    assert_eq!(s.diagnose_from_cycles(), CycleDiagnosis::Balanced);
    s.total_ns = 60_000; // 2 ns per cycle
    assert_eq!(s.diagnose_from_cycles(), CycleDiagnosis::Throttled);
}

#[test]
fn merge_combines_extremes_and_sums() {
    let mut a = sample();
    let mut b = sample();
    b.min_ns = 10;
    b.max_ns = 9_000;
    a.merge(&b);
    assert_eq!(
        (a.count, a.total_ns, a.min_ns, a.max_ns),
        (8, 20_000, 10, 9_000)
    );
}

#[test]
fn merge_ignores_the_extremes_of_an_empty_side() {
    let mut empty = BrickStats {
        min_ns: 0,
        min_cycles: 0,
        ..BrickStats::new("x", BrickCategory::Norm)
    };
    let mut b = sample();
    b.min_ns = 700;
    b.min_cycles = 2_000;
    empty.merge(&b);
    assert_eq!(
        (empty.count, empty.min_ns, empty.min_cycles),
        (4, 700, 2_000)
    );
    let before = (empty.min_ns, empty.min_cycles);
    empty.merge(&BrickStats {
        min_ns: 1,
        ..BrickStats::new("x", BrickCategory::Norm)
    });
    assert_eq!((empty.min_ns, empty.min_cycles), before);
}
