//! The shipped contracts: every file parses, is registered, and has what its
//! spec requires; the generated macros for them are well-formed Rust.

use profiler_contracts::{ContractSet, SHIPPED_SOURCES, codegen};

#[test]
fn every_yaml_file_in_the_folder_is_shipped() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let shipped: Vec<&str> = SHIPPED_SOURCES.iter().map(|(n, _)| *n).collect();
    assert_eq!(on_disk, shipped);
    // Loaded from disk they take the shipped names and shadow them.
    let from_disk = ContractSet::load_dir(dir).unwrap();
    let shadowing: Vec<&str> = from_disk.shadowing().map(|c| c.name.as_str()).collect();
    assert_eq!(shadowing, shipped);
    assert_eq!(ContractSet::shipped().shadowing().count(), 0);
}

#[test]
fn shipped_contracts_parse_and_have_every_section() {
    let set = ContractSet::shipped();
    assert_eq!(set.len(), 6);
    for c in set {
        assert!(!c.metadata.version.is_empty(), "{}", c.name);
        assert!(!c.metadata.description.is_empty(), "{}", c.name);
        assert!(!c.metadata.references.is_empty(), "{}", c.name);
        assert!(!c.equations.is_empty(), "{}", c.name);
        assert!(!c.proof_obligations.is_empty(), "{}", c.name);
        assert!(c.falsification_tests.len() >= 3, "{}", c.name);
        for t in &c.falsification_tests {
            assert!(!t.if_fails.is_empty(), "{} {}", c.name, t.id);
        }
    }
}

#[test]
fn decode_contract_has_the_four_core_equations() {
    let c = ContractSet::shipped()
        .get("gpu-decode-profiling-v1")
        .unwrap();
    for name in [
        "wall_coverage",
        "sync_verification",
        "token_accounting",
        "brick_ordering",
    ] {
        assert!(c.equation(name).is_some(), "{name}");
    }
    let sync = c.equation("sync_verification").unwrap();
    assert!(!sync.preconditions.is_empty());
    let ordering = c.equation("brick_ordering").unwrap();
    assert!(ordering.postconditions.iter().all(|k| k.uses_result));
    assert_eq!(c.metadata.depends_on, ["brick-profiler-v1"]);
}

#[test]
fn generated_shipped_macros_parse_as_rust() {
    let source = codegen::shipped_source().unwrap();
    let file: syn::File = syn::parse_str(&source).expect("generated code parses");
    let macros = file
        .items
        .iter()
        .filter(|i| matches!(i, syn::Item::Macro(_)))
        .count();
    assert!(macros >= 10, "{macros} macros");
    assert!(source.contains("macro_rules! contract_pre_sync_verification"));
    assert!(source.contains("macro_rules! contract_post_brick_ordering"));
    assert!(source.contains("macro_rules! contract_post_token_accounting"));
    assert!(source.contains("macro_rules! contract_post_wall_coverage"));
    assert!(source.contains("macro_rules! contract_pre_wall_coverage"));
    // No precondition-less equation gets a pre macro.
    assert!(!source.contains("contract_pre_brick_ordering"));
}

#[test]
fn every_shipped_test_is_machine_checkable_and_every_key_known() {
    for c in ContractSet::shipped() {
        assert!(c.warnings.is_empty(), "{}: {:?}", c.name, c.warnings);
        for t in &c.falsification_tests {
            assert!(t.parsed.is_some(), "{} {} is prose", c.name, t.id);
        }
    }
}
