//! Contract verification: doctored profiles fail the right rule with the
//! measured value; every shipped contract has a passing and a failing case.
//! Decode and counting rules are here; the scorecard, roofline and parity
//! contracts (through the `Computation` seam) in `contracts/analyses.rs`
//! and against the project's own implementations in
//! `contracts/implementations.rs`;
//! the rule language's semantics and errors in `contracts/language.rs`;
//! rules as long as a contract file allows in `contracts/hostile.rs`.

#[path = "contracts/analyses.rs"]
mod analyses;
#[path = "contracts/hostile.rs"]
mod hostile;
#[path = "contracts/implementations.rs"]
mod implementations;
#[path = "contracts/language.rs"]
mod language;

use profiler_core::{
    BrickCategory, BrickId, BrickStats, CategoryStats, Direction, Profile,
    profile::{CategoryEntry, LayerStats},
    stats::{HistBucket, LatencyHistogram},
    sync::SyncMode,
};
use profiler_report::contracts::{ContractReport, Value, Verdict, Verifier, verify_contract};

// ---------------------------------------------------------------- fixtures

/// A brick with `count` samples of exactly `ns` each.
pub(crate) fn brick(name: &str, count: u64, ns: u64) -> BrickStats {
    let category = BrickId::from_str(name).map_or(BrickCategory::Other, BrickId::category);
    let mut b = BrickStats::new(name, category);
    b.count = count;
    b.total_ns = count * ns;
    b.min_ns = ns;
    b.max_ns = ns;
    b.latency = LatencyHistogram {
        buckets: vec![HistBucket {
            lo_ns: ns,
            hi_ns: ns + 1,
            count,
        }],
    };
    b
}

/// Category totals recomputed from the bricks.
pub(crate) fn with_categories(mut p: Profile) -> Profile {
    p.categories = BrickCategory::ALL
        .iter()
        .map(|&category| {
            let mut stats = CategoryStats::default();
            for b in p.bricks.iter().filter(|b| b.category == category) {
                stats.total_ns += b.total_ns;
                stats.total_elements += b.total_elements;
                stats.count += b.count;
            }
            CategoryEntry { category, stats }
        })
        .collect();
    p.bricks.sort_by_key(|b| std::cmp::Reverse(b.total_ns));
    p
}

/// A valid decode profile: `tokens` steps of 1 token, `layers` forward
/// layer scopes, per-call times LmHead 400 µs > gate 40 µs > norm 2 µs, and
/// brick time covering `coverage` of the wall time.
pub(crate) fn decode_profile(tokens: u64, layers: u64, coverage: f64) -> Profile {
    let calls = tokens * layers;
    let mut p = Profile::empty();
    p.run.sync_mode = SyncMode::Deferred;
    p.run.device_timer = true;
    p.bricks = vec![
        brick("Embedding", tokens, 1_000),
        brick("RmsNorm", (2 * layers + 1) * tokens, 2_000),
        brick("QkvProjection", calls, 30_000),
        brick("AttentionScore", calls, 5_000),
        brick("GateProjection", calls, 40_000),
        brick("DownProjection", calls, 40_000),
        brick("LmHead", tokens, 400_000),
    ];
    p.layers = (0..layers as u32)
        .map(|index| LayerStats {
            index,
            direction: Direction::Forward,
            scope_count: tokens,
            scope_ns: 1,
            ops: Vec::new(),
        })
        .collect();
    let brick_ns: u64 = p.bricks.iter().map(|b| b.total_ns).sum();
    p.steps.count = tokens;
    p.steps.tokens = tokens;
    p.steps.total_ns = (brick_ns as f64 / coverage).round() as u64;
    with_categories(p)
}

pub(crate) fn check(contract: &str, profile: &Profile) -> ContractReport {
    verify_contract(contract, profile).unwrap()
}

fn failed_ids(report: &ContractReport) -> Vec<&str> {
    report.failures().map(|r| r.id.as_str()).collect()
}

fn measured(report: &ContractReport, id: &str) -> (Value, Value) {
    let m = report
        .result(id)
        .and_then(|r| r.measurement.clone())
        .unwrap_or_else(|| panic!("{id} has no measurement:\n{report}"));
    (m.measured, m.bound)
}

fn set_brick(p: &mut Profile, name: &str, f: impl FnOnce(&mut BrickStats)) {
    f(p.bricks.iter_mut().find(|b| b.name == name).unwrap());
}

// ---------------------------------------------------------------- decode

#[test]
fn a_valid_decode_profile_passes() {
    let report = check("gpu-decode-profiling-v1", &decode_profile(16, 2, 0.95));
    assert!(report.passed(), "{report}");
    assert_eq!(report.count(Verdict::Pass), 7);
    // GDP-003 (not Immediate mode) and GDP-009 (no generation phases).
    assert_eq!(report.count(Verdict::Skipped), 2);
    let (m, b) = measured(&report, "GDP-001");
    assert!((m.as_num().unwrap() - 0.95).abs() < 1e-6);
    assert_eq!(b, Value::Num(0.85));
}

#[test]
fn coverage_of_one_half_fails_gdp_001_with_the_measured_value() {
    let report = check("gpu-decode-profiling-v1", &decode_profile(16, 2, 0.5));
    assert_eq!(failed_ids(&report), ["GDP-001"]);
    let (m, b) = measured(&report, "GDP-001");
    assert!((m.as_num().unwrap() - 0.5).abs() < 1e-6, "{m}");
    assert_eq!(b, Value::Num(0.85));
    let text = report.to_string();
    assert!(
        text.contains("FAIL GDP-001  wall_coverage >= 0.85"),
        "{text}"
    );
    assert!(
        text.contains("measured wall_coverage = 0.5, bound >= 0.85"),
        "{text}"
    );
    assert!(
        text.contains("if it fails: Work between bricks is not annotated"),
        "{text}"
    );
}

#[test]
fn brick_time_above_wall_time_fails_gdp_002() {
    let report = check("gpu-decode-profiling-v1", &decode_profile(16, 2, 1.25));
    assert_eq!(failed_ids(&report), ["GDP-002"]);
    let (m, _) = measured(&report, "GDP-002");
    assert!((m.as_num().unwrap() - 1.25).abs() < 1e-6, "{m}");
}

#[test]
fn an_lm_head_faster_than_rms_norm_fails_the_ordering() {
    let mut p = decode_profile(16, 2, 0.95);
    set_brick(&mut p, "LmHead", |b| *b = brick("LmHead", 16, 1_000));
    let report = check("gpu-decode-profiling-v1", &with_categories(p));
    assert!(failed_ids(&report).contains(&"GDP-007"), "{report}");
    let (m, b) = measured(&report, "GDP-007");
    assert_eq!(m, Value::Num(1_000.0));
    // LmHead (1 µs) is compared with the gate (40 µs) first, the chain's first link.
    assert_eq!(b, Value::Num(40_000.0));
}

#[test]
fn immediate_mode_needs_an_lm_head_ten_times_a_norm() {
    let mut p = decode_profile(16, 2, 0.95);
    p.run.sync_mode = SyncMode::Immediate;
    assert!(check("gpu-decode-profiling-v1", &p).passed());
    // A hook that does not wait: every brick costs its launch, ~the same.
    set_brick(&mut p, "LmHead", |b| *b = brick("LmHead", 16, 5_000));
    let report = check("gpu-decode-profiling-v1", &with_categories(p));
    assert!(failed_ids(&report).contains(&"GDP-003"), "{report}");
    let (m, b) = measured(&report, "GDP-003");
    assert_eq!((m, b), (Value::Num(5_000.0), Value::Num(20_000.0)));
}

#[test]
fn a_token_count_that_does_not_match_fails_token_accounting() {
    let mut p = decode_profile(16, 2, 0.95);
    p.steps.tokens = 17;
    let report = check("gpu-decode-profiling-v1", &p);
    assert_eq!(failed_ids(&report), ["GDP-004", "GDP-005", "GDP-006"]);
    assert_eq!(
        measured(&report, "GDP-004"),
        (Value::Num(16.0), Value::Num(17.0))
    );
    assert_eq!(
        measured(&report, "GDP-005"),
        (Value::Num(32.0), Value::Num(34.0))
    );
    assert_eq!(
        measured(&report, "GDP-006"),
        (Value::Num(80.0), Value::Num(85.0))
    );
}

#[test]
fn without_layer_scopes_layer_rules_are_unmeasurable_until_layers_is_given() {
    let mut p = decode_profile(16, 2, 0.95);
    p.layers.clear();
    let report = check("gpu-decode-profiling-v1", &p);
    assert!(!report.passed());
    let r = report.result("GDP-005").unwrap();
    assert_eq!(r.verdict, Verdict::Unmeasurable);
    assert!(r.detail.contains("no forward layer scopes"), "{}", r.detail);
    let report = Verifier::new()
        .metric("layers", 2.0)
        .verify("gpu-decode-profiling-v1", &p)
        .unwrap();
    assert!(report.passed(), "{report}");
}

#[test]
fn a_missing_lm_head_is_unmeasurable_not_a_pass() {
    let mut p = decode_profile(16, 2, 0.95);
    p.bricks.retain(|b| b.name != "LmHead");
    let report = check("gpu-decode-profiling-v1", &with_categories(p));
    // Its count is exactly 0, so token accounting fails with a number...
    assert_eq!(
        measured(&report, "GDP-004"),
        (Value::Num(0.0), Value::Num(16.0))
    );
    // ...and its per-call time does not exist.
    let r = report.result("GDP-007").unwrap();
    assert_eq!(r.verdict, Verdict::Unmeasurable);
    assert!(
        r.detail.contains("brick `LmHead` has no samples"),
        "{}",
        r.detail
    );
}

#[test]
fn pending_deferred_records_fail_gdp_008() {
    let mut p = decode_profile(16, 2, 0.95);
    p.counters.pending = 3;
    let report = check("gpu-decode-profiling-v1", &p);
    assert_eq!(failed_ids(&report), ["GDP-008"]);
    assert_eq!(
        measured(&report, "GDP-008"),
        (Value::Num(3.0), Value::Num(0.0))
    );
}

// ---------------------------------------------------------------- counting

#[test]
fn a_live_multithreaded_recording_passes_brick_profiler_v1() {
    profiler_core::reset();
    profiler_core::enable();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..250 {
                    let t = profiler_core::compat::start_brick(BrickId::SpMV);
                    profiler_core::compat::stop_brick(t, 8);
                }
            });
        }
    });
    let p = profiler_core::snapshot();
    profiler_core::disable();
    assert_eq!(p.brick("SpMV").map(|b| b.count), Some(1000));
    let report = check("brick-profiler-v1", &p);
    assert!(report.passed(), "{report}");
}

#[test]
fn doctored_counts_fail_brick_profiler_v1() {
    let good = decode_profile(4, 1, 0.9);
    assert!(check("brick-profiler-v1", &good).passed());

    let mut p = good.clone();
    set_brick(&mut p, "RmsNorm", |b| b.min_ns = 9_000);
    let report = check("brick-profiler-v1", &p);
    assert_eq!(failed_ids(&report), ["BP-001"]);
    let r = report.result("BP-001").unwrap();
    let m = r.measurement.clone().unwrap();
    assert_eq!(m.element.as_deref(), Some("b = RmsNorm"));
    assert_eq!(
        (m.measured, m.bound),
        (Value::Num(9_000.0), Value::Num(2_001.0))
    );

    let mut p = good.clone();
    set_brick(&mut p, "LmHead", |b| b.count += 1);
    let report = check("brick-profiler-v1", &p);
    assert!(failed_ids(&report).contains(&"BP-002"), "{report}");

    let mut p = good.clone();
    p.counters.pending_overflow = 2;
    assert_eq!(failed_ids(&check("brick-profiler-v1", &p)), ["BP-004"]);

    let mut p = good;
    p.categories[0].stats.total_ns += 1;
    let report = check("brick-profiler-v1", &p);
    assert_eq!(failed_ids(&report), ["BP-006"]);
    let m = report
        .result("BP-006")
        .unwrap()
        .measurement
        .clone()
        .unwrap();
    assert_eq!(m.element.as_deref(), Some("c = Norm"));
}

#[test]
fn an_nsight_import_makes_histogram_rules_not_applicable_not_failed() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/real/nsight/nsys_two_runs_gcn.md");
    let text = std::fs::read_to_string(path).unwrap();
    let runs = profiler_report::input::nsight::parse_nsys_stats_all(&text, "gcn.md").unwrap();
    let profile = runs[0].to_profile();
    let report = verify_contract("brick-profiler-v1", &profile).unwrap();
    let bp2 = report.result("BP-002").unwrap();
    assert_eq!(bp2.verdict, Verdict::NotApplicable, "{report}");
    assert!(
        bp2.detail.contains("no latency histograms"),
        "{}",
        bp2.detail
    );
    assert!(report.passed(), "{report}");
    assert!(
        report.coverage().contains("1 not applicable to this input"),
        "{report}"
    );
    assert!(report.checked() >= 1);
}

#[test]
fn a_run_that_checked_nothing_is_no_verdict() {
    let report = ContractReport {
        contract: "c".into(),
        version: "1".into(),
        results: [Verdict::Skipped, Verdict::NotMachineCheckable]
            .into_iter()
            .map(|verdict| profiler_report::contracts::RuleResult {
                id: "X".into(),
                rule: String::new(),
                test: String::new(),
                verdict,
                measurement: None,
                detail: String::new(),
                if_fails: String::new(),
            })
            .collect(),
    };
    assert!(!report.passed());
    assert_eq!(report.checked(), 0);
    assert!(
        report
            .coverage()
            .starts_with("no verdict: none of 2 rules was checked")
    );
    assert!(report.to_string().contains("no verdict"), "{report}");
}
