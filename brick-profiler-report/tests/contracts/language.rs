//! The rule language as the verifier evaluates it: guards, chains,
//! quantifiers, `~=`, `none`, functions, and precise messages for unknown
//! names and for data a profile lacks.

use profiler_core::Profile;
use profiler_report::contracts::{ContractError, Value, Verdict, Verifier, parse_contract};

use super::decode_profile;

/// The verdict, measurement and detail of a one-test contract.
fn run(test: &str, profile: &Profile) -> (Verdict, Option<(Value, Value)>, String) {
    let text = format!(
        "metadata:\n  version: \"0.1.0\"\n  created: \"2025-06-01\"\n  description: d\n\
         equations:\n  e:\n    formula: f\nfalsification_tests:\n  - id: L-1\n    rule: r\n\
         \x20   prediction: p\n    test: '{test}'\n    if_fails: look\n"
    );
    let contract = parse_contract("lang-test", "lang-test.yaml", &text).unwrap();
    let report = Verifier::new().verify_contract(&contract, profile);
    let r = report.results[0].clone();
    (
        r.verdict,
        r.measurement.map(|m| (m.measured, m.bound)),
        r.detail,
    )
}

fn verdict(test: &str) -> Verdict {
    run(test, &decode_profile(16, 2, 0.9)).0
}

#[test]
fn arithmetic_comparisons_and_chains() {
    assert_eq!(
        verdict("brick(RmsNorm).count == (2 * layers + 1) * decoded_tokens"),
        Verdict::Pass
    );
    assert_eq!(verdict("0.85 <= wall_coverage <= 1"), Verdict::Pass);
    assert_eq!(verdict("0.95 <= wall_coverage <= 1"), Verdict::Fail);
    assert_eq!(
        verdict("brick(LmHead).avg_ns / brick(GateProjection).avg_ns == 10"),
        Verdict::Pass
    );
    assert_eq!(
        verdict("-brick(LmHead).avg_ns < 0 and abs(-3) == 3"),
        Verdict::Pass
    );
    assert_eq!(verdict("min(1, 2) == 1 and max(1, 2) == 2"), Verdict::Pass);
    assert_eq!(
        verdict("wall_coverage ~= brick_ns / wall_ns and not (wall_coverage == 0.9000001)"),
        Verdict::Pass
    );
    assert_eq!(verdict("wall_coverage ~= 0.9"), Verdict::Fail); // 0.9 to 7 digits only
}

#[test]
fn a_literal_on_the_left_reports_the_metric_as_measured() {
    let (v, m, _) = run("0.95 <= wall_coverage", &decode_profile(16, 2, 0.9));
    assert_eq!(v, Verdict::Fail);
    let (measured, bound) = m.unwrap();
    assert!((measured.as_num().unwrap() - 0.9).abs() < 1e-6);
    assert_eq!(bound, Value::Num(0.95));
}

#[test]
fn quantifiers_name_the_failing_element() {
    assert_eq!(verdict("all b in bricks: b.count >= 16"), Verdict::Pass);
    assert_eq!(
        verdict("any b in bricks: b.name == \"LmHead\""),
        Verdict::Pass
    );
    assert_eq!(
        verdict("any c in categories: c.total_ns > 1e12"),
        Verdict::Fail
    );
    let (v, m, detail) = run(
        "all b in bricks: b.avg_ns < 100000",
        &decode_profile(16, 2, 0.9),
    );
    assert_eq!(v, Verdict::Fail);
    assert_eq!(m.unwrap(), (Value::Num(400_000.0), Value::Num(100_000.0)));
    assert_eq!(detail, "b = LmHead");
    assert_eq!(
        verdict("brick(Head).count == 16 and category(ffn).count == 64"),
        Verdict::Pass
    );
}

#[test]
fn or_and_guards_short_circuit() {
    assert_eq!(
        verdict("wall_coverage > 2 or decoded_tokens == 16"),
        Verdict::Pass
    );
    // The right side would divide by zero; the guard keeps it from running.
    assert_eq!(
        verdict("if counters.lost > 0 then 1 / counters.lost > 0"),
        Verdict::Skipped
    );
    assert_eq!(
        verdict("counters.lost > 0 and 1 / counters.lost > 0"),
        Verdict::Fail
    );
    let (v, _, detail) = run("1 / counters.lost > 0", &decode_profile(16, 2, 0.9));
    assert_eq!(v, Verdict::Unmeasurable);
    assert_eq!(detail, "`1 / counters.lost`: division by zero");
}

#[test]
fn none_compares_by_equality_only() {
    let p = decode_profile(16, 2, 0.9);
    // No hardware in the profile: the scorecard withholds grade and peak.
    assert_eq!(run("scorecard.grade == none", &p).0, Verdict::Pass);
    // A value the run does not have makes the rule not applicable, by
    // order or by equality with a value: never a pass or a fail.
    let (v, _, detail) = run("scorecard.peak_tok_s > 0", &p);
    assert_eq!(v, Verdict::NotApplicable);
    assert!(
        detail.contains("`scorecard.peak_tok_s` is none, a value the run does not have"),
        "{detail}"
    );
    let (v, _, detail) = run("scorecard.grade == \"A\"", &p);
    assert_eq!(v, Verdict::NotApplicable, "{detail}");
    assert_eq!(run("scorecard.grade != none", &p).0, Verdict::Fail);
}

#[test]
fn unknown_names_are_invalid_with_a_suggestion() {
    let cases = [
        (
            "wall_coverge >= 0.85",
            "unknown metric `wall_coverge`, did you mean `wall_coverage`?",
        ),
        (
            "brick(LmHead).avg_n > 0",
            "a brick has no field `avg_n`, did you mean `avg_ns`?",
        ),
        (
            "scorecard.grad == none",
            "`scorecard` has no metric `grad`, did you mean `scorecard.grade`?",
        ),
        (
            "category(Ffm).count > 0",
            "unknown category `Ffm` (one of Norm, Attention, FFN, Other, Sparse, FFT, Solver)",
        ),
        (
            "median(1) > 0",
            "unknown function `median` (one of brick, category, min, max, abs)",
        ),
        (
            "sync_mode > 1",
            "cannot compare `sync_mode` (\"deferred\") > `1` (1)",
        ),
        (
            "brick(LmHead) > 0",
            "`brick(LmHead)` is the brick `LmHead`; read a field such as `.count` or `.avg_ns`",
        ),
        (
            "all b in blocks: b.count > 0",
            "unknown collection `blocks` (one of bricks, categories)",
        ),
    ];
    for (test, message) in cases {
        let (v, _, detail) = run(test, &decode_profile(16, 2, 0.9));
        assert_eq!((v, detail.as_str()), (Verdict::Invalid, message), "{test}");
    }
}

#[test]
fn an_unknown_contract_gets_a_suggestion() {
    let e = Verifier::new()
        .verify("gpu-decode-profiling-v2", &Profile::empty())
        .unwrap_err();
    assert_eq!(e.suggestion.as_deref(), Some("gpu-decode-profiling-v1"));
    assert_eq!(
        e.to_string(),
        "unknown contract `gpu-decode-profiling-v2`, did you mean `gpu-decode-profiling-v1`?"
    );
}

#[test]
fn a_folder_of_user_contracts_is_verified_and_malformed_ones_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let contract = "metadata:\n  version: \"1.0.0\"\n  created: \"2025-06-01\"\n  description: d\n  \
         depends_on: [gpu-decode-profiling-v1]\nequations:\n  head_share:\n    formula: f\n\
         falsification_tests:\n  - id: MY-1\n    rule: The LM head is at most 70% of brick time.\n\
         \x20   prediction: p\n    test: \"brick(LmHead).total_ns <= 0.7 * brick_ns\"\n    if_fails: f\n";
    std::fs::write(dir.path().join("my-decoder-v1.yaml"), contract).unwrap();
    let verifier = Verifier::new().load_dir(dir.path()).unwrap();
    let report = verifier
        .verify("my-decoder-v1", &decode_profile(16, 2, 0.9))
        .unwrap();
    assert!(report.passed(), "{report}");

    std::fs::write(
        dir.path().join("broken-v1.yaml"),
        contract.replace("total_ns <=", "total_ns <=="),
    )
    .unwrap();
    let e = Verifier::new().load_dir(dir.path()).unwrap_err();
    let ContractError::Rule {
        file,
        line,
        id,
        column,
        ..
    } = &e
    else {
        panic!("{e:?}")
    };
    assert!(file.ends_with("broken-v1.yaml"));
    assert_eq!((*line, id.as_str(), *column), (13, "MY-1", 26));
}

#[test]
fn reports_serialise_to_json() {
    let report = super::check("gpu-decode-profiling-v1", &decode_profile(16, 2, 0.5));
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["contract"], "gpu-decode-profiling-v1");
    assert_eq!(json["results"][0]["id"], "GDP-001");
    assert_eq!(json["results"][0]["verdict"], "fail");
    assert_eq!(json["results"][0]["measurement"]["bound"], 0.85);
}
