//! The shipped roofline and parity contracts against the project's own
//! implementations (not stand-ins): they pass on sound inputs and fail,
//! with the rule id, where the measured run contradicts the model.

use profiler_core::Profile;
use profiler_report::contracts::{ParityMetrics, RooflineMetrics, Verdict, Verifier};
use profiler_report::hardware::preset;
use profiler_report::run::{OpSummary, RunSummary};

fn profile_at(tokens: u64, total_ns: u64) -> Profile {
    let mut p = Profile::empty();
    p.run.name = "ours".into();
    p.steps.count = 1;
    p.steps.tokens = tokens;
    p.steps.total_ns = total_ns;
    p
}

#[test]
fn the_roofline_implementation_passes_its_contract() {
    for (params, bits, hw) in [
        (7_000_000_000, 4.0, preset("nvidia_a100").unwrap()),
        (1_000, 16.0, preset("apple_m_series").unwrap()),
        (0, 4.0, preset("apple_m_series").unwrap()),
    ] {
        let report = Verifier::new()
            .computation(RooflineMetrics::new(params, bits, hw))
            .verify("roofline-model-v1", &profile_at(100, 1_000_000_000))
            .expect("shipped contract");
        assert!(report.passed(), "{params} params: {report}");
    }
}

#[test]
fn a_run_faster_than_its_roofline_fails_with_the_rule_id() {
    // 7B at 4 bits on an A100 tops out near 583 tok/s; this run claims 10 000.
    let report = Verifier::new()
        .computation(RooflineMetrics::new(
            7_000_000_000,
            4.0,
            preset("nvidia_a100").unwrap(),
        ))
        .verify("roofline-model-v1", &profile_at(10_000, 1_000_000_000))
        .expect("shipped contract");
    assert!(!report.passed());
    let failed: Vec<&str> = report.failures().map(|r| r.id.as_str()).collect();
    assert_eq!(failed.len(), 1, "{report}");
    let result = report.result(failed[0]).expect("result");
    assert_eq!(result.verdict, Verdict::Fail);
    assert!(
        result
            .measurement
            .as_ref()
            .is_some_and(|m| m.measured.to_string().starts_with("10000")),
        "{report}"
    );
}

/// Ops in ms per step, as a parity file gives them.
fn parity_profile(runtime: &str, tok_s: f64, ops: &[(&str, f64)]) -> RunSummary {
    RunSummary {
        name: runtime.into(),
        tokens_per_s: Some(tok_s),
        step_ns: Some(10e6),
        launches_per_step: Some(100),
        ops: ops
            .iter()
            .map(|&(n, ms)| OpSummary::total(n, (ms * 1e6).round() as u64))
            .collect(),
        ..RunSummary::default()
    }
}

#[test]
fn the_parity_implementation_passes_its_contract_at_and_off_parity() {
    let baseline = parity_profile("pytorch", 1000.0, &[("gemm", 5.0), ("norm", 1.0)]);
    for gemm in [5.2, 9.0] {
        let ours = parity_profile(
            "ours",
            900.0,
            &[("gemm", gemm), ("norm", 1.0), ("rope", 0.3)],
        );
        let report = Verifier::new()
            .computation(ParityMetrics::against(baseline.clone()).ours(ours))
            .verify("parity-profiling-v1", &Profile::empty())
            .expect("shipped contract");
        assert!(report.passed(), "gemm {gemm} ms: {report}");
    }
    // From an empty profile: no op is compared, so parity is not achieved
    // (no verdict over nothing), which PP-005 requires.
    let report = Verifier::new()
        .computation(ParityMetrics::against(baseline))
        .verify("parity-profiling-v1", &Profile::empty())
        .expect("shipped contract");
    let text = report.to_string();
    assert!(text.contains("PASS PP-005"), "{text}");
    assert!(text.contains("PASS PP-002"), "{text}");
}
