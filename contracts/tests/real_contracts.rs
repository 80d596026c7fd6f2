//! Contracts in the upstream provable-contracts format, copied from the
//! public repository (`tests/fixtures/real/contracts/`, sources in its
//! PROVENANCE.md): every file is read, and each check compares with what the
//! file holds (counted by hand) or expects errors naming the file and the
//! problem.

use std::path::PathBuf;

use profiler_contracts::{ContractError, ContractSet, load_contract};

fn real(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/real/contracts")
        .join(name)
}

/// (file, equations, falsification tests, prose tests, warnings), counted
/// by hand: unknown keys are `metadata.author`, one `applies_to` per proof
/// obligation, and the top-level keys this project does not use.
const LOADS: [(&str, usize, usize, usize, usize); 8] = [
    ("attention-kernel-v1", 1, 5, 5, 10),
    ("flash-attention-v1", 1, 4, 4, 9),
    ("kernel-launch-budget-v1", 3, 4, 3, 7),
    ("matmul-kernel-v1", 2, 5, 5, 10),
    ("performance-grading-v1", 3, 5, 5, 8),
    ("rmsnorm-kernel-v1", 1, 5, 5, 11),
    ("roofline-model-v1", 4, 5, 4, 8),
    ("softmax-kernel-v1", 1, 6, 6, 18),
];

#[test]
fn upstream_contracts_load_with_warnings_for_unused_keys() {
    for (name, equations, tests, prose, warnings) in LOADS {
        let c =
            load_contract(real(&format!("{name}.yaml"))).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(c.name, name);
        assert_eq!(c.equations.len(), equations, "{name}");
        assert_eq!(c.falsification_tests.len(), tests, "{name}");
        let prose_n = c
            .falsification_tests
            .iter()
            .filter(|t| t.parsed.is_none())
            .count();
        assert_eq!(prose_n, prose, "{name}");
        assert_eq!(c.warnings.len(), warnings, "{name}: {:#?}", c.warnings);
        assert!(
            c.warnings.iter().all(|w| w.line > 0),
            "{name}: {:?}",
            c.warnings
        );
    }
}

#[test]
fn warnings_name_the_key_and_its_line() {
    let c = load_contract(real("rmsnorm-kernel-v1.yaml")).unwrap();
    let shown: Vec<String> = c.warnings.iter().map(ToString::to_string).collect();
    let at = |field: &str| c.warnings.iter().find(|w| w.field == field).map(|w| w.line);
    assert_eq!(at("metadata.author"), Some(4), "{shown:#?}");
    assert_eq!(at("kani_harnesses"), Some(96), "{shown:#?}");
    assert_eq!(at("qa_gate"), Some(110), "{shown:#?}");
    assert_eq!(
        at("proof_obligations[0].applies_to"),
        Some(23),
        "{shown:#?}"
    );
    assert!(shown[0].contains("rmsnorm-kernel-v1.yaml:4: `metadata.author`: unknown key `author`"));
    // "proptest with L in [1, 200]" is prose; the one-word "proptest" reads as
    // a rule naming a metric (it is then an unknown metric, never a pass).
    let k = load_contract(real("kernel-launch-budget-v1.yaml")).unwrap();
    let t = |id: &str| k.test(id).unwrap();
    assert!(t("FALSIFY-KL-001").parsed.is_none());
    assert_eq!(t("FALSIFY-KL-001").test, "proptest with L in [1, 200]");
    assert!(t("FALSIFY-KL-004").parsed.is_some());
}

#[test]
fn every_error_of_a_file_is_reported_at_once() {
    // The tensor-layout contract has no equations, and its 8 tests use
    // `falsification_test:` / `if_test_passes:` instead of `test:` / `if_fails:`.
    let e = load_contract(real("tensor-layout-v1.yaml")).unwrap_err();
    let all = e.errors();
    assert_eq!(all.len(), 1 + 8 * 2, "{e}");
    assert!(
        all.iter()
            .all(|x| x.file().ends_with("tensor-layout-v1.yaml"))
    );
    assert!(
        all[0]
            .to_string()
            .contains("a contract needs at least one equation")
    );
    assert_eq!(all[1].line(), Some(481));
    assert!(
        all[1].to_string().contains("missing required key `test`"),
        "{}",
        all[1]
    );
    let e = load_contract(real("layer-parity-v1.yaml")).unwrap_err();
    assert!(
        e.to_string()
            .contains("layer-parity-v1.yaml:17: `equations`"),
        "{e}"
    );
}

#[test]
fn a_folder_lists_good_files_beside_the_errors_of_bad_ones() {
    let scan = ContractSet::scan_dir(real("")).unwrap();
    let good: Vec<&str> = scan.set.names().collect();
    // `roofline-model-v1` is refused: a shipped contract has that name.
    assert_eq!(
        good,
        [
            "attention-kernel-v1",
            "flash-attention-v1",
            "kernel-launch-budget-v1",
            "matmul-kernel-v1",
            "performance-grading-v1",
            "rmsnorm-kernel-v1",
            "softmax-kernel-v1",
        ]
    );
    let bad: Vec<String> = scan
        .errors
        .iter()
        .map(|e| {
            PathBuf::from(e.file())
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(
        bad,
        [
            "layer-parity-v1.yaml",
            "roofline-model-v1.yaml",
            "tensor-layout-v1.yaml"
        ]
    );
    assert!(
        scan.errors[1]
            .to_string()
            .contains("is the name of a shipped contract"),
        "{}",
        scan.errors[1]
    );
    assert!(matches!(scan.errors[2], ContractError::Several(_)));
    // The strict reader still refuses the folder as a whole.
    assert!(ContractSet::load_dir(real("")).is_err());
}
