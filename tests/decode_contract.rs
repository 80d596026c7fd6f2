//! The decode example's workload, run at a small size, satisfies the
//! `gpu-decode-profiling-v1` contract; and contracts checked on a real
//! recording fail when the recording is doctored.
#![cfg(not(feature = "off"))]

mod common;

#[allow(dead_code, unreachable_pub)]
#[path = "../examples/decode.rs"]
mod decode;

use profiler_report::contracts::{Verdict, verify_contract};

fn decode_profile(tokens: usize) -> profiler::Profile {
    let model = decode::Model::new(decode::Config::SMALL, 7);
    let generated = decode::decode(&model, &[3], tokens);
    assert_eq!(generated.len(), tokens);
    profiler::snapshot()
}

#[test]
fn the_decode_run_passes_gpu_decode_profiling_v1() {
    let _lock = common::exclusive();
    let profile = decode_profile(24);
    let report = verify_contract("gpu-decode-profiling-v1", &profile).unwrap();
    assert!(report.passed(), "{report}");
    assert_eq!(report.results.len(), 9);
    // Deferred mode: the Immediate-only rule does not apply.
    assert_eq!(report.result("GDP-003").unwrap().verdict, Verdict::Skipped);
    let tokens = report
        .result("GDP-004")
        .unwrap()
        .measurement
        .clone()
        .unwrap();
    assert_eq!(
        tokens.measured,
        profiler_report::contracts::Value::Num(24.0)
    );
    // Prefill and decode are marked: every step is one of them.
    assert_eq!(report.result("GDP-009").unwrap().verdict, Verdict::Pass);
    // The counting invariants hold on the same recording.
    let counting = verify_contract("brick-profiler-v1", &profile).unwrap();
    assert!(counting.passed(), "{counting}");
}

#[test]
fn a_token_counted_twice_falsifies_token_accounting() {
    let _lock = common::exclusive();
    let mut profile = decode_profile(8);
    profile.steps.tokens += 1;
    let report = verify_contract("gpu-decode-profiling-v1", &profile).unwrap();
    assert!(!report.passed());
    let failed: Vec<&str> = report.failures().map(|r| r.id.as_str()).collect();
    assert_eq!(failed, ["GDP-004", "GDP-005", "GDP-006"]);
    let m = report
        .result("GDP-004")
        .unwrap()
        .measurement
        .clone()
        .unwrap();
    assert_eq!(
        (m.measured.to_string(), m.bound.to_string()),
        ("8".into(), "9".into())
    );
}
