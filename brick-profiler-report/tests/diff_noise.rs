//! Diffing on a shared machine: waits for a core only add time, so a change
//! is judged on each side's fastest fifth of calls; the baselines' spread
//! sets a floor of 1.5 times itself; a call of a microsecond or two has a floor
//! of its own; phases are judged on their histograms, with the step's
//! guards for wall time.

use profiler_core::profile::PhaseStats;
use profiler_core::stats::{HistBucket, LatencyHistogram};
use profiler_core::{BrickCategory, BrickStats, Profile};
use profiler_report::diff::{Change, Criteria, compute_diff};
use profiler_report::run::{Distribution, RunSummary};

/// Deterministic values spread `±spread` (relative) around `center`.
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

/// `values` in log-linear buckets, 16 per octave, as the recorder keeps them.
fn histogram(values: &[u64]) -> LatencyHistogram {
    let mut buckets: std::collections::BTreeMap<i64, u64> = std::collections::BTreeMap::new();
    for &v in values {
        *buckets
            .entry((16.0 * (v as f64).log2()).floor() as i64)
            .or_default() += 1;
    }
    LatencyHistogram {
        buckets: buckets
            .into_iter()
            .map(|(i, count)| HistBucket {
                lo_ns: 2f64.powf(i as f64 / 16.0).ceil() as u64,
                hi_ns: 2f64.powf((i + 1) as f64 / 16.0).ceil() as u64,
                count,
            })
            .collect(),
    }
}

fn brick(name: &str, values: &[u64]) -> BrickStats {
    let mut b = BrickStats::new(name, BrickCategory::Other);
    b.latency = histogram(values);
    b.count = values.len() as u64;
    b.total_ns = values.iter().sum();
    b.min_ns = values.iter().copied().min().unwrap_or(u64::MAX);
    b.max_ns = values.iter().copied().max().unwrap_or(0);
    b
}

fn phase(name: &str, values: &[u64]) -> PhaseStats {
    PhaseStats {
        name: name.to_owned(),
        count: values.len() as u64,
        total_ns: values.iter().sum(),
        min_ns: values.iter().copied().min().unwrap_or(0),
        max_ns: values.iter().copied().max().unwrap_or(0),
        in_steps_ns: values.iter().sum(),
        latency: histogram(values),
    }
}

/// `calls` calls around `center`, of which the share `slow` were held up
/// (a wait for a core) by 60%.
fn held_up(center: f64, calls: usize, slow: f64, seed: u64) -> Vec<u64> {
    let mut v = samples(center, 0.02, calls, seed);
    let held = (calls as f64 * slow) as usize;
    for x in v.iter_mut().skip(calls - held) {
        *x = (*x as f64 * 1.6) as u64;
    }
    v
}

fn run(bricks: Vec<BrickStats>, phases: Vec<PhaseStats>, name: &str) -> RunSummary {
    let mut p = Profile::empty();
    p.bricks = bricks;
    p.phases = phases;
    p.steps.count = 100;
    RunSummary::from_profile(&p, name)
}

#[test]
fn calls_held_up_by_a_busy_machine_are_no_regression_but_slower_code_is() {
    // The same code; in the new run 60% of the calls waited for a core (a
    // median 60% later), in the baseline 10%.
    let old = run(
        vec![brick("Gemm", &held_up(100_000.0, 1000, 0.1, 1))],
        vec![],
        "old",
    );
    let busy = run(
        vec![brick("Gemm", &held_up(100_000.0, 1000, 0.6, 2))],
        vec![],
        "new",
    );
    let d = compute_diff(std::slice::from_ref(&old), &busy, &Criteria::default());
    let r = &d.bricks[0];
    assert_eq!(r.change, Change::NoChange, "{}", r.detail);
    assert_eq!(r.center, "median of the fastest fifth");
    assert_eq!(r.samples, (1000, 1000), "the counts are the calls");
    assert!(
        r.method.contains("the fastest fifth of 1000 vs 1000"),
        "{}",
        r.method
    );
    // Code 15% slower shows in the fastest calls too, however many waited.
    let slower = run(
        vec![brick("Gemm", &held_up(115_000.0, 1000, 0.6, 3))],
        vec![],
        "new",
    );
    let d = compute_diff(&[old], &slower, &Criteria::default());
    let r = &d.bricks[0];
    assert_eq!(r.change, Change::Regression, "{}", r.detail);
    // Within a bucket's width (4.4%) of the truth: where calls fell in a
    // bucket is not known.
    let (lo, hi) = r.interval.unwrap();
    let x = r.relative.unwrap();
    assert!(
        lo > 0.10 && hi < 0.20 && (x - 0.15).abs() < 0.03,
        "{x} {lo} {hi}"
    );
}

#[test]
fn few_calls_are_judged_whole() {
    // 30 calls a side: a fifth would be 6, under the 8 an interval needs.
    let old = run(
        vec![brick("Gemm", &samples(100_000.0, 0.02, 30, 1))],
        vec![],
        "old",
    );
    let new = run(
        vec![brick("Gemm", &samples(130_000.0, 0.02, 30, 2))],
        vec![],
        "new",
    );
    let r = &compute_diff(&[old], &new, &Criteria::default()).bricks[0];
    assert_eq!(r.center, "median");
    assert_eq!(r.change, Change::Regression, "{}", r.detail);
    assert!(!r.method.contains("fastest"), "{}", r.method);
}

#[test]
fn a_short_call_is_judged_against_a_higher_floor() {
    let side = |center: f64, seed: u64| {
        run(
            vec![brick("Adam", &samples(center, 0.02, 500, seed))],
            vec![],
            "r",
        )
    };
    let c = Criteria::default();
    // A 0.7 µs call 25% slower: within the short-call floor of 40%.
    let d = compute_diff(&[side(700.0, 1)], &side(875.0, 2), &c);
    let r = &d.bricks[0];
    assert!((r.threshold - 0.40).abs() < 1e-12, "{}", r.threshold);
    assert_eq!(r.change, Change::NoChange, "{}", r.detail);
    assert!(r.detail.contains("short-call floor"), "{}", r.detail);
    // Twice as slow is beyond it.
    let d = compute_diff(&[side(700.0, 1)], &side(1400.0, 3), &c);
    assert_eq!(
        d.bricks[0].change,
        Change::Regression,
        "{}",
        d.bricks[0].detail
    );
    // A 20 µs call 25% slower is judged against the given 10%.
    let d = compute_diff(&[side(20_000.0, 1)], &side(25_000.0, 2), &c);
    assert_eq!(d.bricks[0].threshold, 0.10);
    assert_eq!(
        d.bricks[0].change,
        Change::Regression,
        "{}",
        d.bricks[0].detail
    );
}

#[test]
fn phases_are_judged_on_their_histograms_as_wall_time() {
    let side = |gemm: f64, forward: f64, seed: u64| {
        run(
            vec![brick("Gemm", &samples(gemm, 0.02, 400, seed))],
            vec![phase("forward", &samples(forward, 0.02, 100, seed + 1))],
            "r",
        )
    };
    let summary = side(100_000.0, 1e6, 1);
    assert!(
        matches!(
            summary.phases[0].distribution,
            Distribution::Histogram { .. }
        ),
        "{:?}",
        summary.phases[0].distribution
    );
    let old = [side(100_000.0, 1e6, 1), side(100_000.0, 1e6, 10)];
    // The phase 30% slower while its bricks did not move: the time is
    // outside the bricks (waits for a core), so inconclusive.
    let d = compute_diff(&old, &side(100_000.0, 1.3e6, 20), &Criteria::default());
    let p = &d.phases[0];
    assert!(p.interval.is_some(), "{}", p.detail);
    assert_eq!(p.change, Change::Inconclusive, "{}", p.detail);
    assert!(p.detail.contains("outside the bricks"), "{}", p.detail);
    assert!(!d.regressed(false));
    // The phase 30% slower with the bricks' time: a regression.
    let d = compute_diff(&old, &side(130_000.0, 1.3e6, 20), &Criteria::default());
    let p = &d.phases[0];
    assert_eq!(p.change, Change::Regression, "{}", p.detail);
    // A profile without phase histograms (before schema 1.4) keeps a mean.
    let mut bare = Profile::empty();
    bare.phases = vec![PhaseStats {
        latency: LatencyHistogram::default(),
        ..phase("forward", &[1_000_000; 100])
    }];
    let bare = RunSummary::from_profile(&bare, "old");
    assert_eq!(bare.phases[0].distribution, Distribution::Unknown);
    let d = compute_diff(&[bare], &side(100_000.0, 1e6, 1), &Criteria::default());
    assert_eq!(d.phases[0].change, Change::NotEnoughSamples);
}
