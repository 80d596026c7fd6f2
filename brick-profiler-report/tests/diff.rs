//! Diffing a run against baselines: a change counts only when its whole
//! interval lies beyond the threshold (raised to the baselines' spread);
//! noise, improvements, inconclusive intervals, measures with too few
//! samples and moments (Nsight Systems) each get their own verdict.

use profiler_core::stats::{HistBucket, LatencyHistogram};
use profiler_core::{BrickCategory, BrickStats, Profile};
use profiler_report::diff::Criteria;
use profiler_report::diff::{Change, Metric, compute_diff};
use profiler_report::run::{Distribution, OpSummary, RunSummary};
use profiler_report::scorecard::Severity;

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
        &[RunSummary::from_profile(old, "old.json")],
        &RunSummary::from_profile(new, "new.json"),
        &Criteria::default(),
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
            brick("Noisy", &samples(50_000.0, 0.6, 12, 12)),
            brick("Steady", &samples(20_400.0, 0.02, 500, 13)),
            brick("Faster", &samples(30_000.0, 0.02, 500, 14)),
        ],
        samples(12.5e6, 0.02, 50, 15),
    );
    let d = diff(&old, &new);
    let row = |name: &str| d.rows().find(|r| r.name == name).unwrap();
    let gemm = row("Gemm");
    assert_eq!(gemm.change, Change::Regression, "{}", gemm.detail);
    assert_eq!(gemm.severity, Some(Severity::Critical));
    let (lo, hi) = gemm.interval.unwrap();
    assert!(
        lo > 0.10 && lo < 0.25 && hi > 0.25 && hi < 0.35,
        "{lo} {hi}"
    );
    assert_eq!(gemm.samples, (1000, 1000));
    assert_eq!(gemm.threshold, 0.10);
    assert!(gemm.detail.contains("Mann-Whitney"), "{}", gemm.detail);
    assert!(
        gemm.detail.contains("spread evenly within their buckets"),
        "{}",
        gemm.detail
    );
    // Twelve calls spread ±60%: whatever the draws, the interval is wide
    // and crosses the threshold.
    let noisy = row("Noisy");
    let (lo, hi) = noisy.interval.unwrap();
    assert!(hi - lo > 0.4, "{noisy:?}");
    assert_eq!(noisy.change, Change::Inconclusive, "{}", noisy.detail);
    assert_eq!(
        row("Steady").change,
        Change::NoChange,
        "{}",
        row("Steady").detail
    );
    assert_eq!(row("Faster").change, Change::Improvement);
    // The step time is 25% slower too, but against one baseline a step's
    // wall time cannot fail the gate: inconclusive.
    let step = d.step_time.as_ref().unwrap();
    assert_eq!(step.change, Change::Inconclusive, "{}", step.detail);
    assert!(
        step.detail.contains("against one baseline"),
        "{}",
        step.detail
    );
    assert_eq!(step.samples, (50, 50));
    assert!(d.regressed(false));
    assert_eq!(d.count(Change::Regression), 1);
    // Most time first.
    assert_eq!(d.bricks[0].name, "Gemm");
    // Renderers.
    let text = d.to_string();
    assert!(text.contains("SLOWER (critical)"), "{text}");
    assert!(
        text.contains("Result: 1 regression(s), 1 improvement(s), 2 inconclusive"),
        "{text}"
    );
    let md = d.to_markdown_with_link(Some("https://ci.example/report.html"));
    assert!(md.starts_with("## Performance: ❌ 1 regression(s)"), "{md}");
    assert!(md.contains("| Gemm | 1000 → 1000 |"), "{md}");
    assert!(
        md.ends_with("[Full HTML report](<https://ci.example/report.html>)\n"),
        "{md}"
    );
    // The changed rows come before the folded table of every row.
    let folded = md.find("<details>").unwrap();
    assert!(md.find("| Gemm |").unwrap() < folded, "{md}");
    assert!(md.find("| Steady |").unwrap() > folded, "{md}");
    let json: serde_json::Value = serde_json::from_str(&d.to_json()).unwrap();
    assert_eq!(json["bricks"][0]["change"], "regression");
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
    assert!(!d.regressed(false), "{d}");
    assert!(d.has_verdict());
    assert!(d.rows().all(|r| r.change != Change::Regression), "{d}");
}

#[test]
fn measures_without_enough_samples_are_reported_and_fail_only_when_strict() {
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
    assert_eq!(r.change, Change::NotEnoughSamples);
    assert!(
        r.detail.contains("no per-call distribution"),
        "{}",
        r.detail
    );
    assert_eq!((r.old, r.new, r.center), (100.0, 150.0, "mean"));
    assert!(!d.regressed(false) && d.regressed(true));
    // Nothing had an interval: no verdict, which a gate treats as failed.
    assert!(!d.has_verdict());
    assert!(d.to_string().contains("no verdict"), "{d}");
    assert!(d.notes.iter().any(|n| n.contains("no step samples")));
    // Too few calls for an interval.
    let few = |c| profile(vec![brick("Few", &samples(c, 0.01, 3, 1))], vec![]);
    let d = diff(&few(100.0), &few(200.0));
    assert_eq!(d.bricks[0].change, Change::NotEnoughSamples);
    assert!(
        d.bricks[0].detail.contains("3 vs 3 samples, 8 needed"),
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
fn moments_use_a_z_interval_of_means() {
    let side = |mean: f64, stddev: f64, n: u64| RunSummary {
        name: "nsys".into(),
        ops: vec![OpSummary {
            name: "gemm".into(),
            calls: Some(n),
            total_ns: (mean * n as f64) as u64,
            distribution: Distribution::Moments { mean, stddev, n },
            median_ns: None,
            flops_per_call: None,
        }],
        ..RunSummary::default()
    };
    let t = Criteria::default();
    let d = compute_diff(&[side(1000.0, 20.0, 200)], &side(1200.0, 20.0, 200), &t);
    let r = &d.bricks[0];
    assert_eq!(r.change, Change::Regression, "{}", r.detail);
    // 200 ± 1.96 * sqrt(2 * 400 / 200) = 200 ± 3.92 ns over 1000 ns.
    let (lo, hi) = r.interval.unwrap();
    assert!(
        (lo - 0.196_08).abs() < 1e-4 && (hi - 0.203_92).abs() < 1e-4,
        "{lo} {hi}"
    );
    assert!(r.detail.contains("z-interval"), "{}", r.detail);
    // A 20% shift with a 90% standard deviation: 200 ± 176 ns crosses 10%.
    let d = compute_diff(&[side(1000.0, 900.0, 200)], &side(1200.0, 900.0, 200), &t);
    assert_eq!(
        d.bricks[0].change,
        Change::Inconclusive,
        "{}",
        d.bricks[0].detail
    );
    // Too few launches for the normal approximation.
    let d = compute_diff(&[side(1000.0, 20.0, 10)], &side(1200.0, 20.0, 10), &t);
    assert_eq!(d.bricks[0].change, Change::NotEnoughSamples);
}

#[test]
fn the_baselines_spread_raises_the_threshold() {
    let run = |center: f64, seed: u64| {
        RunSummary::from_profile(
            &profile(
                vec![brick("Gemm", &samples(center, 0.01, 500, seed))],
                vec![],
            ),
            format!("run-{seed}"),
        )
    };
    let t = Criteria::default();
    let new = run(118_000.0, 9);
    // Against the one quiet baseline, +18% is a regression ...
    let one = compute_diff(&[run(100_000.0, 1)], &new, &t);
    assert_eq!(one.bricks[0].change, Change::Regression, "{one}");
    assert_eq!(one.bricks[0].baseline_spread, None);
    // ... but two baselines 25% apart say this machine moves that much.
    let two = compute_diff(&[run(100_000.0, 1), run(125_000.0, 2)], &new, &t);
    let r = &two.bricks[0];
    let spread = r.baseline_spread.unwrap();
    assert!(spread > 0.15 && spread < 0.25, "{spread}");
    // The range of a few runs understates the next run's: the floor is
    // half as much again.
    assert_eq!(r.threshold, 1.5 * spread);
    assert_ne!(r.change, Change::Regression, "{two}");
    assert_eq!(r.samples, (1000, 500), "the baselines are pooled");
    assert!(r.detail.contains("the 2 baselines' spread"), "{}", r.detail);
    assert_eq!(two.baselines, ["run-1", "run-2"]);
}

#[test]
fn throughput_per_step_is_judged_larger_is_better() {
    let run = |step_ns: f64, seed: u64| {
        let mut p = profile(vec![], samples(step_ns, 0.02, 40, seed));
        p.steps.tokens = 256 * 40;
        p.steps.samples_tokens = vec![256; 40];
        RunSummary::from_profile(&p, "r")
    };
    // Two baselines: against one, a step's wall time only ever reaches
    // inconclusive.
    let d = compute_diff(
        &[run(10e6, 1), run(10e6, 3)],
        &run(12.5e6, 2),
        &Criteria::default(),
    );
    let t = d.throughput.as_ref().unwrap();
    assert_eq!(t.metric, Metric::Throughput);
    assert_eq!(t.change, Change::Regression, "{}", t.detail);
    assert!(t.relative.unwrap() < -0.15, "{t:?}");
    assert!(d.to_string().contains("LOWER"), "{d}");
    // Faster steps are higher throughput: an improvement, not a failure.
    let d = compute_diff(
        &[run(12.5e6, 1), run(12.5e6, 3)],
        &run(10e6, 2),
        &Criteria::default(),
    );
    assert_eq!(d.throughput.unwrap().change, Change::Improvement);
    let one = compute_diff(&[run(10e6, 1)], &run(12.5e6, 2), &Criteria::default());
    assert_eq!(one.throughput.unwrap().change, Change::Inconclusive);
}

#[test]
fn ci_formats_carry_the_new_numbers_and_escape_names() {
    let old = profile(
        vec![
            brick("Gemm", &samples(100_000.0, 0.02, 500, 1)),
            brick("<a&\"b>", &samples(20_000.0, 0.02, 500, 2)),
        ],
        samples(10e6, 0.02, 40, 3),
    );
    let new = profile(
        vec![
            brick("Gemm", &samples(125_000.0, 0.02, 500, 4)),
            brick("<a&\"b>", &samples(20_000.0, 0.02, 500, 5)),
        ],
        samples(10e6, 0.02, 40, 6),
    );
    // Gemm counts 2 MFLOP a call; the new run ran on a 1 TFLOP/s FP32 peak.
    let (mut old, mut new) = (old, new);
    for p in [&mut old, &mut new] {
        p.bricks[0].total_flops = 2_000_000 * p.bricks[0].count;
    }
    let mut hw = profiler::hardware::Hardware::new("cpu");
    hw.set_compute(
        profiler::hardware::Precision::Fp32,
        profiler::hardware::Figure::new(1.0, profiler::hardware::Source::Given),
    )
    .unwrap();
    new.run.hardware = Some(hw);
    let d = diff(&old, &new);
    let gemm = d.bricks.iter().find(|r| r.name == "Gemm").unwrap();
    let bmf: serde_json::Value = serde_json::from_str(&d.to_bmf()).unwrap();
    let flops = &bmf["Gemm"]["throughput"];
    let rate = flops["value"].as_f64().unwrap();
    assert!((rate - 2e6 / gemm.new * 1e9).abs() < 1e-6 * rate, "{flops}");
    let (lo, hi) = (
        flops["lower_value"].as_f64().unwrap(),
        flops["upper_value"].as_f64().unwrap(),
    );
    assert!(lo < rate && rate < hi, "{flops}");
    let efficiency = bmf["Gemm"]["efficiency"]["value"].as_f64().unwrap();
    assert!((efficiency - rate / 1e12).abs() < 1e-12, "{efficiency}");
    assert!(
        bmf["<a&\"b>"]["throughput"].is_null(),
        "no FLOP count, no FLOP/s"
    );
    let latency = &bmf["Gemm"]["latency"];
    assert_eq!(latency["value"].as_f64(), Some(gemm.new));
    let (lo, hi) = (
        latency["lower_value"].as_f64().unwrap(),
        latency["upper_value"].as_f64().unwrap(),
    );
    assert!(lo < gemm.new && gemm.new < hi, "{lo} {} {hi}", gemm.new);
    assert!(bmf["step"]["latency"]["value"].as_f64().unwrap() > 9e6);
    assert!(
        bmf["<a&\"b>"]["latency"].is_object(),
        "names stay exact in JSON"
    );

    let gab: serde_json::Value = serde_json::from_str(&d.to_gab()).unwrap();
    let entries = gab.as_array().unwrap();
    assert_eq!(entries.len(), d.rows().count());
    let g = entries
        .iter()
        .find(|e| e["name"] == "Gemm latency")
        .unwrap();
    assert_eq!(
        (g["unit"].as_str(), g["value"].as_f64()),
        (Some("ns"), Some(gemm.new))
    );
    assert!(g["range"].as_str().unwrap().starts_with('+'), "{g}");

    let junit = d.to_junit();
    assert!(
        junit.contains("tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"0\""),
        "{junit}"
    );
    assert_eq!(junit.matches("<failure ").count(), 1, "{junit}");
    assert!(
        junit.contains("name=\"&lt;a&amp;&quot;b&gt; latency\""),
        "{junit}"
    );
    assert!(!junit.contains("<a&"), "{junit}");
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
    assert_eq!(d.count(Change::Regression), 0, "time did not change");
    assert_eq!(d.memory.len(), 1);
    let m = &d.memory[0];
    assert_eq!(m.change, Change::Regression, "{m:?}");
    assert_eq!(m.allocations_per_call, (1.0, 4.0));
    assert!(d.regressed(false), "a memory regression fails the diff");
    assert!(
        d.to_string()
            .contains("memory Gemm (host): more memory: allocations per call 1.0 -> 4.0"),
        "{d}"
    );
    assert!(d.to_markdown().contains("| Gemm | host |"));
    assert!(d.to_string().contains("1 memory regression(s)"));
    let bmf: serde_json::Value = serde_json::from_str(&d.to_bmf()).unwrap();
    assert_eq!(bmf["Gemm"]["peak-bytes"]["value"].as_f64(), Some(65_536.0));

    // The same memory on both sides, or memory on one side only, passes.
    new.memory = memory(100, 65_536);
    assert!(!diff(&old, &new).regressed(false));
    new.memory = None;
    assert!(diff(&old, &new).memory.is_empty());
}

#[test]
fn a_machine_slower_as_a_whole_flags_no_brick_but_one_brick_against_the_rest_does() {
    let names = ["A", "B", "C", "D", "E", "Hot"];
    let run = |factor: f64, hot: f64, seed: u64| {
        let bricks = names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let f = if *name == "Hot" { hot } else { factor };
                let center = 10_000.0 * (i + 1) as f64 * f;
                brick(name, &samples(center, 0.02, 300, seed + i as u64))
            })
            .collect();
        let mut p = profile(bricks, samples(1e6 * factor, 0.02, 40, seed));
        // Two calls of each brick a step.
        p.steps.count = 150;
        RunSummary::from_profile(&p, "r")
    };
    // Every brick 25% slower, and Hot 45%: Hot is 16% slower than the run.
    let (old, new) = (
        vec![run(1.0, 1.0, 1), run(1.0, 1.0, 50)],
        run(1.25, 1.45, 100),
    );
    let d = compute_diff(&old, &new, &Criteria::default());
    let shift = d.run_shift.unwrap();
    assert!((shift - 0.25).abs() < 0.03, "{shift}");
    let hot = d.bricks.iter().find(|r| r.name == "Hot").unwrap();
    assert_eq!(hot.change, Change::Regression, "{}", hot.detail);
    assert!((hot.relative.unwrap() - 0.16).abs() < 0.03, "{hot:?}");
    assert!(
        hot.detail.contains("relative to the run-wide shift of +"),
        "{}",
        hot.detail
    );
    assert_eq!(d.count(Change::Regression), 1, "{d}");
    // The step time moved with every brick: inconclusive, failed only when strict.
    let step = d.step_time.as_ref().unwrap();
    assert_eq!(step.change, Change::Inconclusive, "{}", step.detail);
    assert!(
        step.detail.contains("every brick moved alike"),
        "{}",
        step.detail
    );
    // Judged absolutely, every brick and the step time are slower.
    let absolute = Criteria {
        relative_to_run: false,
        ..Criteria::default()
    };
    let d = compute_diff(&old, &new, &absolute);
    assert_eq!(d.run_shift, None);
    assert_eq!(d.count(Change::Regression), names.len() + 1, "{d}");
}
