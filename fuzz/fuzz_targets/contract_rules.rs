//! Any text as a falsification test's `test` expression: parsing never
//! panics or overflows the stack; a parsed rule clones to an equal rule and
//! evaluates against a small profile (the main job's) into a verdict whose
//! report renders as text and as JSON that parses.

#![no_main]

#[path = "../common/mod.rs"]
mod common;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use profiler_contracts::rule::parse_rule;
use profiler_core::Profile;
use profiler_report::contracts::{ContractSet, Verifier};

const PROFILE: &str = include_str!("../seeds/profile_json/train_tiny.profile.json");

fn profile() -> &'static Profile {
    static PROFILE_READ: OnceLock<Profile> = OnceLock::new();
    PROFILE_READ.get_or_init(|| Profile::from_json(PROFILE).expect("the seed profile reads"))
}

fuzz_target!(|data: &[u8]| {
    let Some(text) = common::text(data) else {
        return;
    };
    let Ok(rule) = parse_rule(text) else {
        return;
    };
    assert_eq!(rule.clone(), rule);
    let mut contract = ContractSet::shipped()
        .get("gpu-decode-profiling-v1")
        .expect("a shipped contract")
        .clone();
    let mut test = contract.falsification_tests[0].clone();
    test.test = text.to_owned();
    test.parsed = Some(rule);
    contract.falsification_tests = vec![test];
    for profile in [profile(), &Profile::empty()] {
        let report = Verifier::new().verify_contract(&contract, profile);
        assert_eq!(report.results.len(), 1);
        let _ = report.to_string();
        common::assert_json(&report.to_json(), "contract report JSON");
    }
});
