//! Rules as long as a contract file allows, evaluated on the test thread's
//! default stack: chains at the parser's height limit evaluate to the right
//! verdict, and a megabyte-long comparison chain takes linear time.

use profiler_core::Profile;
use profiler_report::contracts::{Value, Verdict, Verifier, parse_contract};

use super::decode_profile;

/// The verdict, measurement and detail of a one-test contract.
fn run(test: &str, profile: &Profile) -> (Verdict, Option<(Value, Value)>, String) {
    let text = format!(
        "metadata:\n  version: \"0.1.0\"\n  created: \"2025-06-01\"\n  description: d\n\
         equations:\n  e:\n    formula: f\nfalsification_tests:\n  - id: H-1\n    rule: r\n\
         \x20   prediction: p\n    test: '{test}'\n    if_fails: look\n"
    );
    let contract = parse_contract("hostile-test", "hostile-test.yaml", &text).unwrap();
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
fn chains_at_the_height_limit_evaluate() {
    // 255 terms: the tallest sum the parser accepts under a comparison.
    assert_eq!(
        verdict(&format!("{}1 == 255", "1 + ".repeat(254))),
        Verdict::Pass
    );
    assert_eq!(
        verdict(&format!("{}1 == 1", "1 * ".repeat(254))),
        Verdict::Pass
    );
    assert_eq!(
        verdict(&format!("{}false", "false or ".repeat(255))),
        Verdict::Fail
    );
    assert_eq!(
        verdict(&format!("{}wall_ns > 0", "wall_ns > 0 and ".repeat(254))),
        Verdict::Pass
    );
    let (v, _, detail) = run(
        &format!("wall{} > 0", ".a".repeat(254)),
        &decode_profile(16, 2, 0.9),
    );
    assert_eq!(v, Verdict::Invalid, "{detail}");
}

#[test]
fn a_megabyte_comparison_chain_is_evaluated_in_linear_time() {
    // 200,000 links (1 MB): each link used to quote both sides by walking
    // the text from its start, which took minutes.
    let chain = "0 <= ".repeat(200_000);
    let (v, m, _) = run(&format!("{chain}0"), &decode_profile(16, 2, 0.9));
    assert_eq!(v, Verdict::Pass);
    assert_eq!(m, Some((Value::Num(0.0), Value::Num(0.0))));
    let (v, m, _) = run(&format!("{chain}-1"), &decode_profile(16, 2, 0.9));
    assert_eq!(v, Verdict::Fail);
    // `-1` is no literal, so it is reported as the measured side.
    assert_eq!(m, Some((Value::Num(-1.0), Value::Num(0.0))));
}
