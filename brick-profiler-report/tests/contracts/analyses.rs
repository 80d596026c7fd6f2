//! Contracts about analyses, checked through the `Computation` seam: the
//! scorecard with the project's implementation, the roofline and parity
//! with test-local computations that follow (or break) their formulas.

use profiler_core::Profile;
use profiler_core::hardware::{Figure, Hardware, MemoryLevel, Source};
use profiler_report::{
    contracts::{Computation, Metrics, ScorecardMetrics, Verdict, Verifier},
    scorecard::{PhaseData, StepProfilerInput, Thresholds},
};

use super::check;

// ---------------------------------------------------------------- scorecard

/// A peak of exactly 1 tok/s, so the throughput is the efficiency: 1 GB/s
/// over 1 GB per token.
fn unit_peak() -> Hardware {
    let mut hw = Hardware::new("unit");
    hw.set_memory(MemoryLevel::Dram, Figure::new(1.0, Source::Given))
        .unwrap();
    hw.set_bytes_per_token(Figure::new(1e9, Source::Given))
        .unwrap();
    hw
}

fn step_input(forward_ms: f64, h2d_ms: f64) -> StepProfilerInput {
    let mut input = StepProfilerInput {
        steps: 10,
        avg_step_ms: 100.0,
        wall_coverage: (forward_ms + h2d_ms) / 100.0,
        ..StepProfilerInput::default()
    };
    for (name, ms) in [("forward", forward_ms), ("h2d", h2d_ms)] {
        input.phases.insert(
            name.to_owned(),
            PhaseData {
                total_ms: ms,
                pct: ms,
                avg_ms: ms,
            },
        );
    }
    input
}

fn scorecard_report(
    efficiency: f64,
    metrics: ScorecardMetrics,
) -> profiler_report::contracts::ContractReport {
    Verifier::new()
        .computation(metrics.input(step_input(90.0, 0.0), efficiency))
        .verify("training-step-scorecard-v1", &Profile::empty())
        .unwrap()
}

#[test]
fn the_scorecard_satisfies_its_contract_in_every_grade_band() {
    // Boundaries included: a boundary value gets the higher grade.
    for efficiency in [
        0.0, 0.05, 0.10, 0.15, 0.20, 0.39, 0.40, 0.55, 0.60, 0.99, 1.0,
    ] {
        let report = scorecard_report(efficiency, ScorecardMetrics::new().hardware(unit_peak()));
        assert!(report.passed(), "efficiency {efficiency}:\n{report}");
        // Exactly one grade rule applies to each efficiency.
        let applied = ["TSS-002", "TSS-003", "TSS-004", "TSS-005", "TSS-006"]
            .iter()
            .filter(|id| report.result(id).unwrap().verdict == Verdict::Pass)
            .count();
        assert_eq!(applied, 1, "efficiency {efficiency}:\n{report}");
    }
}

#[test]
fn the_bottleneck_rules_hold_for_transfer_and_launch_bound_steps() {
    for (forward, h2d, expected) in [(40.0, 40.0, "transfer"), (30.0, 0.0, "launch")] {
        let report = Verifier::new()
            .computation(
                ScorecardMetrics::new()
                    .hardware(unit_peak())
                    .input(step_input(forward, h2d), 0.3),
            )
            .verify("training-step-scorecard-v1", &Profile::empty())
            .unwrap();
        assert!(report.passed(), "{report}");
        let applied = if expected == "transfer" {
            "TSS-009"
        } else {
            "TSS-010"
        };
        assert_eq!(
            report.result(applied).unwrap().verdict,
            Verdict::Pass,
            "{report}"
        );
    }
}

#[test]
fn non_compat_grade_thresholds_falsify_the_scorecard_contract() {
    let lenient = Thresholds {
        grade_a: 0.50,
        ..Thresholds::default()
    };
    let metrics = ScorecardMetrics::new()
        .hardware(unit_peak())
        .thresholds(lenient);
    let report = scorecard_report(0.55, metrics);
    let failed: Vec<&str> = report.failures().map(|r| r.id.as_str()).collect();
    assert_eq!(failed, ["TSS-003"], "{report}");
    let m = report
        .result("TSS-003")
        .unwrap()
        .measurement
        .clone()
        .unwrap();
    assert_eq!(m.expr, "scorecard.grade");
    assert_eq!(m.measured.to_string(), "\"A\"");
    assert_eq!(m.bound.to_string(), "\"B\"");
}

#[test]
fn a_profile_without_hardware_skips_the_grade_rules() {
    let report = check(
        "training-step-scorecard-v1",
        &super::decode_profile(8, 2, 0.9),
    );
    assert_eq!(report.result("TSS-002").unwrap().verdict, Verdict::Skipped);
    // Nor does it pass on the coverage of a run without phases: that rule
    // has no data, so nothing was checked and the contract is not passed.
    assert_ne!(report.result("TSS-013").unwrap().verdict, Verdict::Pass);
    assert!(!report.passed(), "{report}");
}

#[test]
fn a_throughput_above_the_peak_withholds_the_grade() {
    let report = scorecard_report(1.5, ScorecardMetrics::new().hardware(unit_peak()));
    assert_eq!(
        report.result("TSS-008").unwrap().verdict,
        Verdict::Pass,
        "{report}"
    );
}

// ---------------------------------------------------------------- roofline

/// The roofline as a computation, with a switch for two classic bugs.
struct Roofline {
    params: f64,
    bits: f64,
    bandwidth_gb_s: f64,
    gflops: f64,
    ops_per_token: f64,
    measured_tok_s: Option<f64>,
    /// Combine the ceilings with max, and call a tie Bandwidth.
    buggy: bool,
}

impl Roofline {
    fn llama_7b_q4(buggy: bool) -> Self {
        Self {
            params: 7e9,
            bits: 4.5,
            bandwidth_gb_s: 100.0,
            gflops: 1000.0,
            ops_per_token: 2.0,
            measured_tok_s: Some(20.0),
            buggy,
        }
    }
}

impl Computation for Roofline {
    fn namespace(&self) -> &str {
        "roofline"
    }

    fn compute(&self, _profile: &Profile) -> Result<Metrics, String> {
        if self.bandwidth_gb_s <= 0.0 || self.gflops <= 0.0 {
            return Err("bandwidth and compute must be positive".into());
        }
        let model_bytes = self.params * self.bits / 8.0;
        let bw = if model_bytes == 0.0 {
            f64::INFINITY
        } else {
            self.bandwidth_gb_s / (model_bytes / 1e9)
        };
        let compute = self.gflops * 1e9 / (self.params * self.ops_per_token);
        let (ceiling, bandwidth_bound) = if self.buggy {
            (bw.max(compute), bw <= compute)
        } else {
            (bw.min(compute), bw < compute)
        };
        Ok(Metrics::new()
            .with("total_params", self.params)
            .with("bits_per_weight", self.bits)
            .with("bandwidth_gb_s", self.bandwidth_gb_s)
            .with("compute_gflops", self.gflops)
            .with("ops_per_token", self.ops_per_token)
            .with("model_bytes", model_bytes)
            .with("bw_ceiling_tok_s", bw)
            .with("compute_ceiling_tok_s", compute)
            .with("ceiling_tok_s", ceiling)
            .with(
                "bottleneck",
                if bandwidth_bound {
                    "bandwidth"
                } else {
                    "compute"
                },
            )
            .with("contract_id", "roofline-model-v1")
            .with("measured_tok_s", self.measured_tok_s))
    }
}

fn roofline_report(r: Roofline) -> profiler_report::contracts::ContractReport {
    Verifier::new()
        .computation(r)
        .verify("roofline-model-v1", &Profile::empty())
        .unwrap()
}

#[test]
fn a_roofline_that_follows_the_formulas_passes() {
    let report = roofline_report(Roofline::llama_7b_q4(false));
    assert!(report.passed(), "{report}");
    assert_eq!(report.result("RM-006").unwrap().verdict, Verdict::Skipped);
    // A tie is compute-bound: 100 GB/s over 3.9375 GB vs 1000 GFLOPS over 2 x 7e9.
    let tie = Roofline {
        gflops: 100.0 / 3.9375 * 14.0,
        ..Roofline::llama_7b_q4(false)
    };
    assert!(roofline_report(tie).passed());
}

#[test]
fn a_roofline_with_max_and_an_inverted_tie_fails() {
    let report = roofline_report(Roofline::llama_7b_q4(true));
    let failed: Vec<&str> = report.failures().map(|r| r.id.as_str()).collect();
    assert_eq!(failed, ["RM-004"], "{report}");
    let tie = Roofline {
        gflops: 100.0 / 3.9375 * 14.0,
        ..Roofline::llama_7b_q4(true)
    };
    let report = roofline_report(tie);
    assert!(report.failures().any(|r| r.id == "RM-006"), "{report}");
}

#[test]
fn a_measured_throughput_above_the_ceiling_fails_rm_009() {
    let report = roofline_report(Roofline {
        measured_tok_s: Some(40.0),
        ..Roofline::llama_7b_q4(false)
    });
    let failed: Vec<&str> = report.failures().map(|r| r.id.as_str()).collect();
    assert_eq!(failed, ["RM-009"], "{report}");
}

#[test]
fn roofline_rules_without_a_computation_name_the_missing_plug_in() {
    let report = check("roofline-model-v1", &Profile::empty());
    let r = report.result("RM-001").unwrap();
    assert_eq!(r.verdict, Verdict::Invalid);
    assert!(
        r.detail
            .contains("no computation is registered for `roofline`"),
        "{}",
        r.detail
    );
}

#[test]
fn a_computation_that_cannot_run_makes_its_rules_unmeasurable() {
    let report = roofline_report(Roofline {
        bandwidth_gb_s: 0.0,
        ..Roofline::llama_7b_q4(false)
    });
    let r = report.result("RM-007").unwrap();
    assert_eq!(r.verdict, Verdict::Unmeasurable);
    assert!(
        r.detail.contains("bandwidth and compute must be positive"),
        "{}",
        r.detail
    );
}

// ---------------------------------------------------------------- parity

/// Parity as a computation over per-op times; `top_only` decides parity
/// over the displayed gaps, `strict` uses `< 1.10`.
struct Parity {
    ours: Vec<(&'static str, f64)>,
    baseline: Vec<(&'static str, f64)>,
    ours_tok_s: f64,
    baseline_tok_s: f64,
    strict: bool,
}

impl Computation for Parity {
    fn namespace(&self) -> &str {
        "parity"
    }

    fn compute(&self, _profile: &Profile) -> Result<Metrics, String> {
        let mut gaps: Vec<f64> = self
            .ours
            .iter()
            .filter_map(|(op, ms)| {
                let base = self.baseline.iter().find(|(b, _)| b == op)?.1;
                (*ms > 0.0 && base > 0.0).then(|| ms / base)
            })
            .collect();
        gaps.sort_by(|a, b| b.total_cmp(a));
        let achieved = if self.strict {
            gaps.iter().all(|r| *r < 1.10)
        } else {
            gaps.iter().all(|r| *r <= 1.10)
        };
        let top = &gaps[..gaps.len().min(5)];
        let ratio = if self.ours_tok_s > 0.0 {
            self.baseline_tok_s / self.ours_tok_s
        } else {
            0.0
        };
        Ok(Metrics::new()
            .with("ours_tok_s", self.ours_tok_s)
            .with("baseline_tok_s", self.baseline_tok_s)
            .with("throughput_ratio", ratio)
            .with("ours_launches", 120.0)
            .with("baseline_launches", 100.0)
            .with("launch_ratio", 1.2)
            .with("parity_achieved", achieved)
            .with("max_gap_ratio", gaps.first().copied())
            .with("gap_count", gaps.len() as u64)
            .with("top_gap_count", top.len() as u64)
            .with("top_gaps_sorted", top.windows(2).all(|w| w[0] >= w[1])))
    }
}

fn parity(strict: bool, gemm_ms: f64) -> Parity {
    Parity {
        ours: vec![("gemm", gemm_ms), ("norm", 1.0), ("softmax", 0.5)],
        baseline: vec![("gemm", 10.0), ("norm", 1.0), ("rope", 0.2)],
        ours_tok_s: 900.0,
        baseline_tok_s: 1000.0,
        strict,
    }
}

#[test]
fn parity_at_exactly_one_point_one_passes() {
    let report = Verifier::new()
        .computation(parity(false, 11.0))
        .verify("parity-profiling-v1", &Profile::empty())
        .unwrap();
    assert!(report.passed(), "{report}");
}

#[test]
fn a_strict_parity_boundary_falsifies_pp_004() {
    let report = Verifier::new()
        .computation(parity(true, 11.0))
        .verify("parity-profiling-v1", &Profile::empty())
        .unwrap();
    let failed: Vec<&str> = report.failures().map(|r| r.id.as_str()).collect();
    assert_eq!(failed, ["PP-004"], "{report}");
    let m = report
        .result("PP-004")
        .unwrap()
        .measurement
        .clone()
        .unwrap();
    assert_eq!(m.measured.to_string(), "false");
    assert_eq!(m.bound.to_string(), "true");
}
