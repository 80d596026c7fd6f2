//! Diffing two runs: a change is flagged only when it is beyond the
//! threshold, significant and above the old run's noise floor; noise,
//! improvements, untestable changes and moments (Nsight Systems) each get
//! their own verdict.

use profiler_core::stats::{HistBucket, LatencyHistogram};
use profiler_core::{BrickCategory, BrickStats, Profile};
use profiler_report::diff::{Verdict, compute_diff};
use profiler_report::run::{Distribution, OpSummary, RunSummary};
use profiler_report::scorecard::{Severity, Thresholds};

/// Samples around `center` ns: a deterministic spread of `±spread` (relative).
fn samples(center: f64, spread: f64, n: usize, seed: u64) -> Vec<u64> {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).max(1);
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let u = (state % 10_000) as f64 / 10_000.0 * 2.0 - 1.0;
            (center * (1.0 + spread * u)).round() as u64
        })
        .collect()
}

/// A brick whose histogram holds `values` in log-linear buckets (16 per
/// octave, as the recorder uses).
fn brick(name: &str, values: &[u64]) -> BrickStats {
    let mut b = BrickStats::new(name, BrickCategory::Other);
    let mut buckets: std::collections::BTreeMap<i64, u64> = std::collections::BTreeMap::new();
    for &v in values {
        *buckets
            .entry((16.0 * (v as f64).log2()).floor() as i64)
            .or_default() += 1;
    }
    b.latency = LatencyHistogram {
        buckets: buckets
            .into_iter()
            .map(|(i, count)| HistBucket {
                lo_ns: 2f64.powf(i as f64 / 16.0).ceil() as u64,
                hi_ns: 2f64.powf((i + 1) as f64 / 16.0).ceil() as u64,
                count,
            })
            .collect(),
    };
    b.count = values.len() as u64;
    b.total_ns = values.iter().sum();
    b.min_ns = values.iter().copied().min().unwrap_or(u64::MAX);
    b.max_ns = values.iter().copied().max().unwrap_or(0);
    b
}

fn profile(bricks: Vec<BrickStats>, steps: Vec<u64>) -> Profile {
    let mut p = Profile::empty();
    p.bricks = bricks;
    p.steps.count = steps.len() as u64;
    p.steps.total_ns = steps.iter().sum();
    p.steps.samples_ns = steps;
    p
}

fn diff(old: &Profile, new: &Profile) -> profiler_report::diff::ProfileDiff {
    compute_diff(
        &RunSummary::from_profile(old, "old.json"),
        &RunSummary::from_profile(new, "new.json"),
        &Thresholds::default(),
    )
}

#[test]
fn a_real_slowdown_is_a_regression_and_noise_is_not() {
    let old = profile(
        vec![
            brick("Gemm", &samples(100_000.0, 0.02, 1000, 1)),
            brick("Noisy", &samples(50_000.0, 0.6, 12, 2)),
            brick("Steady", &samples(20_000.0, 0.02, 500, 3)),
            brick("Faster", &samples(40_000.0, 0.02, 500, 4)),
        ],
        samples(10e6, 0.02, 50, 5),
    );
    let new = profile(
        vec![
            brick("Gemm", &samples(125_000.0, 0.02, 1000, 11)),
            brick("Noisy", &samples(58_000.0, 0.6, 12, 12)),
            brick("Steady", &samples(20_400.0, 0.02, 500, 13)),
            brick("Faster", &samples(30_000.0, 0.02, 500, 14)),
        ],
        samples(12.5e6, 0.02, 50, 15),
    );
    let d = diff(&old, &new);
    let row = |name: &str| d.rows().find(|r| r.name == name).unwrap();
    let gemm = row("Gemm");
    assert_eq!(gemm.verdict, Verdict::Regression, "{}", gemm.detail);
    assert_eq!(gemm.severity, Some(Severity::Critical));
    let t = gemm.test.as_ref().unwrap();
    assert!(t.p_value < 1e-6 && t.shift_ns > t.noise_floor_ns, "{t:?}");
    assert!(gemm.detail.contains("Mann-Whitney"), "{}", gemm.detail);
    let noisy = row("Noisy");
    assert!(noisy.change.unwrap() > 0.10, "{noisy:?}");
    assert_eq!(noisy.verdict, Verdict::Noise, "{}", noisy.detail);
    assert_eq!(row("Steady").verdict, Verdict::Unchanged);
    assert_eq!(row("Faster").verdict, Verdict::Improvement);
    let step = d.step_time.as_ref().unwrap();
    assert_eq!(step.verdict, Verdict::Regression);
    assert!(d.regressed(false));
    assert_eq!(d.count(Verdict::Regression), 2);
    // Most time first.
    assert_eq!(d.bricks[0].name, "Gemm");
    // Renderers.
    let text = d.to_string();
    assert!(text.contains("REGRESSION (critical)"), "{text}");
    assert!(
        text.contains("Result: 2 regression(s), 1 improvement(s), 1 within noise"),
        "{text}"
    );
    let md = d.to_markdown();
    assert!(md.contains("| Gemm | 1000 → 1000 |"), "{md}");
    let json: serde_json::Value = serde_json::from_str(&d.to_json()).unwrap();
    assert_eq!(json["bricks"][0]["verdict"], "regression");
}

#[test]
fn noise_alone_passes() {
    let old = profile(
        vec![brick("Gemm", &samples(100_000.0, 0.5, 40, 1))],
        samples(10e6, 0.5, 20, 2),
    );
    let new = profile(
        vec![brick("Gemm", &samples(100_000.0, 0.5, 40, 21))],
        samples(10e6, 0.5, 20, 22),
    );
    let d = diff(&old, &new);
    assert!(!d.regressed(true), "{d}");
}

#[test]
fn untestable_changes_are_reported_and_fail_only_when_strict() {
    let mut a = BrickStats::new("Once", BrickCategory::Other);
    a.count = 4;
    a.total_ns = 400;
    a.min_ns = 90;
    a.max_ns = 110;
    let mut b = a.clone();
    b.total_ns = 600;
    b.max_ns = 160;
    let d = diff(&profile(vec![a], vec![]), &profile(vec![b], vec![]));
    let r = &d.bricks[0];
    assert_eq!(r.verdict, Verdict::Untested);
    assert!(
        r.detail.contains("no per-call distribution"),
        "{}",
        r.detail
    );
    assert_eq!((r.old_ns, r.new_ns, r.center), (100.0, 150.0, "mean"));
    assert!(!d.regressed(false) && d.regressed(true));
    assert!(d.notes.iter().any(|n| n.contains("no step samples")));
    // Too few calls to test.
    let few = |c| profile(vec![brick("Few", &samples(c, 0.01, 3, 1))], vec![]);
    let d = diff(&few(100.0), &few(200.0));
    assert_eq!(d.bricks[0].verdict, Verdict::Untested);
    assert!(
        d.bricks[0].detail.contains("too few samples"),
        "{}",
        d.bricks[0].detail
    );
}

#[test]
fn added_and_removed_bricks_are_listed() {
    let old = profile(vec![brick("A", &[10, 11]), brick("Gone", &[5])], vec![]);
    let new = profile(vec![brick("A", &[10, 11]), brick("New", &[7])], vec![]);
    let d = diff(&old, &new);
    assert_eq!(d.added, ["New"]);
    assert_eq!(d.removed, ["Gone"]);
    assert_eq!(d.bricks.len(), 1);
}

#[test]
fn moments_use_a_z_test_of_means() {
    let side = |mean: f64, stddev: f64, n: u64| RunSummary {
        name: "nsys".into(),
        ops: vec![OpSummary {
            name: "gemm".into(),
            calls: Some(n),
            total_ns: (mean * n as f64) as u64,
            distribution: Distribution::Moments { mean, stddev, n },
            median_ns: None,
        }],
        ..RunSummary::default()
    };
    let t = Thresholds::default();
    let d = compute_diff(&side(1000.0, 20.0, 200), &side(1200.0, 20.0, 200), &t);
    assert_eq!(d.bricks[0].verdict, Verdict::Regression);
    assert_eq!(d.bricks[0].test.as_ref().unwrap().method, "z-test");
    // A 20% shift inside a 50% standard deviation is under the noise floor.
    let d = compute_diff(&side(1000.0, 500.0, 200), &side(1200.0, 500.0, 200), &t);
    assert_eq!(d.bricks[0].verdict, Verdict::Noise);
    // Too few launches for a z-test.
    let d = compute_diff(&side(1000.0, 20.0, 10), &side(1200.0, 20.0, 10), &t);
    assert_eq!(d.bricks[0].verdict, Verdict::Untested);
}

#[test]
fn more_allocations_per_call_fail_the_diff_like_a_slowdown() {
    use profiler_core::alloc::{BrickMemory, MemoryKind, MemoryProfile};
    let memory = |allocations: u64, peak: u64| {
        Some(MemoryProfile {
            bricks: vec![BrickMemory {
                name: "Gemm".to_owned(),
                kind: MemoryKind::Host,
                calls: 100,
                allocated_bytes: 100 * 65_536,
                allocations,
                freed_bytes: 100 * 65_536,
                peak_bytes: peak,
                retained_bytes: 0,
                self_allocated_bytes: 100 * 65_536,
                self_allocations: allocations,
                self_freed_bytes: 100 * 65_536,
            }],
            ..MemoryProfile::default()
        })
    };
    let times = samples(100_000.0, 0.02, 100, 1);
    let mut old = profile(vec![brick("Gemm", &times)], Vec::new());
    let mut new = old.clone();
    old.memory = memory(100, 65_536);
    new.memory = memory(400, 65_536);
    let d = diff(&old, &new);
    assert_eq!(d.count(Verdict::Regression), 0, "time did not change");
    assert_eq!(d.memory.len(), 1);
    let m = &d.memory[0];
    assert_eq!(m.verdict, Verdict::Regression, "{m:?}");
    assert_eq!(m.allocations_per_call, (1.0, 4.0));
    assert!(d.regressed(false), "a memory regression fails the diff");
    assert!(
        d.to_string()
            .contains("memory Gemm (host): regression: allocations per call 1.0 -> 4.0")
    );
    assert!(d.to_markdown().contains("| Gemm | host |"));
    assert!(d.to_string().contains("1 memory regression(s)"));

    // The same memory on both sides, or memory on one side only, passes.
    new.memory = memory(100, 65_536);
    assert!(!diff(&old, &new).regressed(false));
    new.memory = None;
    assert!(diff(&old, &new).memory.is_empty());
}
