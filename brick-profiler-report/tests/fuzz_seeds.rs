//! The fuzz seeds (`fuzz/seeds/<target>/`, written from the main job's
//! files by `fuzz/seed.sh`) still read with the reader their target fuzzes:
//! a seed the reader rejects would start the fuzzer from nothing.

use std::path::{Path, PathBuf};

use profiler_core::Profile;
use profiler_report::input::native::{parse_execution_trace, parse_last_step_profiler_line};
use profiler_report::run::RunSummary;
use profiler_report::scorecard::TrainingScorecard;

fn seeds(target: &str) -> Vec<(PathBuf, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/seeds")
        .join(target);
    let mut files: Vec<(PathBuf, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.expect("directory entry").path();
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path, text)
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no seeds in {}", dir.display());
    files
}

const REGENERATE: &str = "regenerate the seeds with fuzz/seed.sh";

#[test]
fn profile_seeds_read() {
    for (path, text) in seeds("profile_json") {
        if let Err(e) = Profile::from_json(&text) {
            panic!("{}: {e}; {REGENERATE}", path.display());
        }
    }
}

#[test]
fn execution_trace_seeds_read_and_hold_entries() {
    let mut entries = 0;
    for (path, text) in seeds("execution_trace") {
        match parse_execution_trace(&text) {
            Ok(trace) => entries += trace.entries.len(),
            Err(e) => panic!("{}: {e}; {REGENERATE}", path.display()),
        }
    }
    assert!(entries > 0, "no seed holds a trace entry");
}

#[test]
fn scorecard_seeds_read_as_a_baseline_or_a_step_profiler_log() {
    let (mut baselines, mut logs) = (0, 0);
    for (path, text) in seeds("scorecard_inputs") {
        if TrainingScorecard::from_json(&text).is_ok() {
            baselines += 1;
        } else if let Err(e) = parse_last_step_profiler_line(&text) {
            panic!(
                "{}: neither a baseline nor a log: {e}; {REGENERATE}",
                path.display()
            );
        } else {
            logs += 1;
        }
    }
    assert!(
        baselines > 0 && logs > 0,
        "{baselines} baselines, {logs} logs"
    );
}

#[test]
fn parity_seeds_read() {
    for (path, text) in seeds("parity_json") {
        if let Err(e) = RunSummary::from_parity_json(&text, &path.display().to_string()) {
            panic!("{}: {e}; {REGENERATE}", path.display());
        }
    }
}

/// The contract seeds are exactly the shipped contracts' tests and
/// conditions, and every rule seed parses.
#[test]
fn contract_seeds_match_the_shipped_contracts() {
    use profiler_report::contracts::ContractSet;
    let text_of = |target: &str| -> Vec<String> {
        let mut texts: Vec<String> = seeds(target).into_iter().map(|(_, t)| t).collect();
        texts.sort();
        texts
    };
    let shipped = ContractSet::shipped();
    let mut rules: Vec<String> = shipped
        .iter()
        .flat_map(|c| c.falsification_tests.iter().map(|t| t.test.clone()))
        .collect();
    rules.sort();
    assert_eq!(text_of("contract_rules"), rules, "{REGENERATE}");
    let mut conditions: Vec<String> = shipped
        .iter()
        .flat_map(|c| &c.equations)
        .flat_map(|e| e.preconditions.iter().chain(&e.postconditions))
        .map(|k| k.text.clone())
        .collect();
    conditions.sort();
    assert_eq!(text_of("preconditions"), conditions, "{REGENERATE}");
    for rule in &rules {
        assert!(profiler_contracts::rule::parse_rule(rule).is_ok(), "{rule}");
    }
}
