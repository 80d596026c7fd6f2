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
const LOADS: [(&str, usize, usize, usize, usize); 9] = [
    ("attention-kernel-v1", 1, 5, 5, 10),
    ("flash-attention-v1", 1, 4, 4, 9),
    // `metadata.updated` and `.author`, a `lean_theorem` under each of its
    // 9 equations, 14 `applies_to`, `kani_harnesses`, `qa_gate`.
    ("gpu-decode-profiling-v1", 9, 15, 15, 27),
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

/// Upstream contracts that describe their computation as `layer_steps`
/// (no equations) load with a warning, and only their tests are checked.
/// Upstream's other form of a test, Rust code under `falsification_test:`
/// with `if_test_passes:`, is kept and shown, never run or passed. The
/// tensor-layout contract is still refused, with every error at once: 3 of
/// its 8 code tests give no consequence, one under a misspelt key.
#[test]
fn upstream_contracts_without_equations_load_and_every_error_is_reported_at_once() {
    let l = load_contract(real("layer-parity-v1.yaml")).unwrap();
    assert!(l.equations.is_empty());
    assert_eq!(l.falsification_tests.len(), 4);
    // `apr parity model.gguf --assert` is a command, read as prose.
    assert!(l.test("PARITY-001").unwrap().parsed.is_none());
    let equations = l
        .warnings
        .iter()
        .find(|w| w.field == "equations")
        .expect("a warning names the missing equations");
    assert!(
        equations
            .message
            .contains("only the falsification tests are checked")
    );

    let e = load_contract(real("tensor-layout-v1.yaml")).unwrap_err();
    let all: Vec<String> = e.errors().iter().map(ToString::to_string).collect();
    assert_eq!(all.len(), 4, "{all:#?}");
    assert!(
        e.errors()
            .iter()
            .all(|x| x.file().ends_with("tensor-layout-v1.yaml"))
    );
    for (at, line) in [(0, 493), (1, 582), (2, 600)] {
        assert!(
            all[at].contains(&format!("tensor-layout-v1.yaml:{line}"))
                && all[at].contains("missing required key `if_test_passes` (or `if_fails`)"),
            "{all:#?}"
        );
    }
    assert!(
        all[3].contains(":610:") && all[3].contains("did you mean `if_test_passes`?"),
        "{all:#?}"
    );
}

#[test]
fn a_folder_lists_good_files_beside_the_errors_of_bad_ones() {
    let scan = ContractSet::scan_dir(real("")).unwrap();
    let good: Vec<&str> = scan.set.names().collect();
    // Upstream's `roofline-model-v1` takes the name of the shipped one and
    // shadows it: a folder of upstream's contracts means upstream's.
    assert_eq!(
        good,
        [
            "attention-kernel-v1",
            "flash-attention-v1",
            "gpu-decode-profiling-v1",
            "kernel-launch-budget-v1",
            "layer-parity-v1",
            "matmul-kernel-v1",
            "performance-grading-v1",
            "rmsnorm-kernel-v1",
            "roofline-model-v1",
            "softmax-kernel-v1",
        ]
    );
    let shadowing: Vec<&str> = scan.set.shadowing().map(|c| c.name.as_str()).collect();
    assert_eq!(shadowing, ["gpu-decode-profiling-v1", "roofline-model-v1"]);
    assert!(
        scan.set
            .get("roofline-model-v1")
            .is_some_and(|c| c.source.ends_with("real/contracts/roofline-model-v1.yaml")),
        "the folder's contract, not the shipped one"
    );
    let bad: Vec<&str> = scan.errors.iter().map(|e| e.file()).collect();
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].ends_with("tensor-layout-v1.yaml"), "{bad:?}");
    assert!(matches!(scan.errors[0], ContractError::Several(_)));
    // The strict reader still refuses the folder as a whole.
    assert!(ContractSet::load_dir(real("")).is_err());
}

/// Upstream's `gpu-decode-profiling-v1` gives each equation a
/// `lean_theorem` (a Lean proof's name): a key this project does not use,
/// warned about at each of its lines (grep: 29, 40, 52, 63, 74, 88, 100,
/// 111, 124), while the equations themselves load.
#[test]
fn lean_theorem_keys_are_unused_keys_each_with_its_line() {
    let c = load_contract(real("gpu-decode-profiling-v1.yaml")).unwrap();
    let lines: Vec<usize> = c
        .warnings
        .iter()
        .filter(|w| w.field.ends_with("lean_theorem"))
        .map(|w| w.line)
        .collect();
    assert_eq!(
        lines,
        [29, 40, 52, 63, 74, 88, 100, 111, 124],
        "{:#?}",
        c.warnings
    );
    assert_eq!(
        c.equation("wall_coverage").map(|e| e.line),
        Some(18),
        "{:?}",
        c.equations
    );
    assert_eq!(c.metadata.version, "2.0.0");
}
