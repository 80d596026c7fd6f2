//! Malformed contracts: each case gives one precise, typed error naming the
//! file, the line and the field, and nothing panics.

use std::time::{Duration, Instant};

use profiler_contracts::{
    ContractError, ContractSet, MAX_CONTRACT_BYTES, load_contract, parse_contract,
};

const VALID: &str = r#"metadata:
  version: "1.0.0"
  created: "2025-06-01"
  description: A test contract.
equations:
  total_time:
    formula: "sum of samples"
    preconditions:
      - "!input.is_empty()"
    postconditions:
      - "*result >= input.iter().copied().max().unwrap_or(0)"
falsification_tests:
  - id: T-001
    rule: Positive.
    prediction: Positive.
    test: "brick_ns > 0"
    if_fails: Look.
"#;

fn parse(text: &str) -> Result<profiler_contracts::Contract, ContractError> {
    parse_contract("my-contract", "contracts/my-contract.yaml", text)
}

/// The single error of `text`, as `(line, field, message)`.
fn schema_error(text: &str) -> (usize, String, String) {
    match parse(text).unwrap_err() {
        ContractError::Schema {
            file,
            line,
            field,
            message,
        }
        | ContractError::Invalid {
            file,
            line,
            field,
            message,
        } => {
            assert_eq!(file, "contracts/my-contract.yaml");
            (line, field, message)
        }
        other => panic!("unexpected error kind: {other:?}"),
    }
}

#[test]
fn the_valid_fixture_parses() {
    let c = parse(VALID).unwrap();
    assert_eq!(c.name, "my-contract");
    let eq = c.equation("total_time").unwrap();
    assert_eq!(eq.line, 6);
    assert_eq!(eq.preconditions[0].line, 9);
    assert!(eq.preconditions[0].uses_input && !eq.preconditions[0].uses_result);
    assert!(eq.postconditions[0].uses_result && eq.postconditions[0].uses_input);
    assert_eq!(c.falsification_tests[0].line, 13);
}

#[test]
fn a_missing_field_names_its_parent_and_line() {
    let text = VALID.replace("    formula: \"sum of samples\"\n", "");
    let (line, field, message) = schema_error(&text);
    assert_eq!(field, "equations.total_time");
    assert_eq!(message, "missing required key `formula`");
    assert_eq!(line, 6);
    let text = VALID.replace("  created: \"2025-06-01\"\n", "");
    let (_, field, message) = schema_error(&text);
    assert_eq!(
        (field.as_str(), message.as_str()),
        ("metadata", "missing required key `created`")
    );
}

#[test]
fn a_wrong_type_says_what_was_expected() {
    let text = VALID.replace(
        "    preconditions:\n      - \"!input.is_empty()\"\n",
        "    preconditions: \"!input.is_empty()\"\n",
    );
    let (line, field, message) = schema_error(&text);
    assert_eq!(line, 8);
    assert_eq!(field, "equations.total_time.preconditions");
    assert_eq!(
        message,
        "expected a list of strings (Rust boolean expressions)"
    );
    let e = parse(&text).unwrap_err().to_string();
    assert_eq!(
        e,
        "contracts/my-contract.yaml:8: `equations.total_time.preconditions`: expected a list \
         of strings (Rust boolean expressions)"
    );
}

#[test]
fn an_unquoted_number_is_not_a_string() {
    let text = VALID.replace("version: \"1.0.0\"", "version: 1.0");
    let (line, field, message) = schema_error(&text);
    assert_eq!((line, field.as_str()), (2, "metadata.version"));
    assert!(message.starts_with("expected a string; quote"), "{message}");
}

#[test]
fn a_wrong_number_type_is_refused() {
    let text = format!(
        "{VALID}proof_obligations:\n  - type: bound\n    property: p\n    tolerance: small\n"
    );
    let (line, field, message) = schema_error(&text);
    assert_eq!(
        (line, field.as_str(), message.as_str()),
        (21, "proof_obligations[0].tolerance", "expected a number")
    );
}

#[test]
fn an_unknown_key_lists_the_known_ones() {
    let text = VALID.replace(
        "    formula: \"sum of samples\"\n",
        "    formula: \"sum of samples\"\n    fromula: typo\n",
    );
    let (line, field, message) = schema_error(&text);
    assert_eq!((line, field.as_str()), (8, "equations.total_time.fromula"));
    assert!(
        message.starts_with("unknown key `fromula`, expected one of:"),
        "{message}"
    );
    assert!(message.contains("formula"), "{message}");
}

#[test]
fn an_unknown_obligation_type_lists_the_choices() {
    let text = format!("{VALID}proof_obligations:\n  - type: hunch\n    property: p\n");
    let (line, field, message) = schema_error(&text);
    assert_eq!((line, field.as_str()), (19, "proof_obligations[0].type"));
    assert!(message.starts_with("unknown value `hunch`"), "{message}");
    assert!(message.contains("conservation"), "{message}");
}

#[test]
fn too_many_aliases_are_refused() {
    let refs = vec!["*r"; 100].join(", ");
    let text = VALID.replace(
        "  description: A test contract.\n",
        &format!("  description: &r A test contract.\n  references: [{refs}]\n"),
    );
    let (line, field, message) = schema_error(&text);
    assert!(
        message.starts_with("alias expansion over the limit"),
        "{message}"
    );
    assert_eq!(line, 5);
    assert!(field.starts_with("metadata.references"), "{field}");
}

#[test]
fn an_alias_bomb_is_refused_quickly() {
    let mut bomb = String::from("  - &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    let mut prev = 'a';
    for c in "bcdefghi".chars() {
        let refs = vec![format!("*{prev}"); 9].join(", ");
        bomb.push_str(&format!("  - &{c} [{refs}]\n"));
        prev = c;
    }
    let text = VALID.replace(
        "  description: A test contract.\n",
        &format!("  description: A test contract.\n  references:\n{bomb}"),
    );
    let start = Instant::now();
    let (line, field, message) = schema_error(&text);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "took {:?}",
        start.elapsed()
    );
    // Refused at the first nested alias: the schema takes strings only, so the
    // expansion stops before it starts (the alias budget backs this up).
    assert!(field.starts_with("metadata.references["), "{field}");
    assert_eq!(message, "expected a string");
    assert_eq!(line, 6);
}

#[test]
fn a_ten_megabyte_file_is_refused_before_parsing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.yaml");
    let mut text = VALID.to_owned();
    text.push_str(&"# padding\n".repeat(1_000_000));
    std::fs::write(&path, &text).unwrap();
    let start = Instant::now();
    let e = load_contract(&path).unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(1));
    match &e {
        ContractError::TooLarge { size, limit, .. } => {
            assert_eq!(*size, text.len() as u64);
            assert_eq!(*limit, MAX_CONTRACT_BYTES);
        }
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().contains("huge.yaml"), "{e}");
    assert!(matches!(parse(&text), Err(ContractError::TooLarge { .. })));
}

#[test]
fn a_condition_that_is_not_rust_fails_with_its_line() {
    let text = VALID.replace("\"!input.is_empty()\"", "\"input.len( > 0\"");
    let (line, field, message) = schema_error(&text);
    assert_eq!(
        (line, field.as_str()),
        (9, "equations.total_time.preconditions[0]")
    );
    assert!(
        message.starts_with("`input.len( > 0` is not a Rust expression"),
        "{message}"
    );
}

#[test]
fn a_precondition_cannot_read_the_result() {
    let text = VALID.replace("\"!input.is_empty()\"", "\"*result > 0\"");
    let (line, _, message) = schema_error(&text);
    assert_eq!(line, 9);
    assert!(message.contains("cannot read `result`"), "{message}");
}

#[test]
fn equation_names_must_be_snake_case() {
    let text = VALID.replace("  total_time:", "  TotalTime:");
    let (line, field, message) = schema_error(&text);
    assert_eq!((line, field.as_str()), (6, "equations.TotalTime"));
    assert!(message.contains("snake_case"), "{message}");
}

#[test]
fn a_test_expression_error_names_the_id_and_column() {
    let text = VALID.replace("\"brick_ns > 0\"", "\"brick_ns >> 0\"");
    let e = parse(&text).unwrap_err();
    match &e {
        ContractError::Rule {
            line,
            id,
            column,
            message,
            ..
        } => {
            assert_eq!((*line, id.as_str(), *column), (16, "T-001", 11));
            assert_eq!(message, "expected a value, found `>`");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        e.to_string(),
        "contracts/my-contract.yaml:16: falsification test `T-001`: `test`, column 11: \
         expected a value, found `>`"
    );
}

#[test]
fn duplicate_test_ids_are_refused() {
    let test =
        "  - id: T-001\n    rule: r\n    prediction: p\n    test: \"1 > 0\"\n    if_fails: f\n";
    let text = format!("{VALID}{test}");
    let (line, field, message) = schema_error(&text);
    assert_eq!((line, field.as_str()), (18, "falsification_tests[1].id"));
    assert_eq!(
        message,
        "duplicate falsification test id `T-001` (first at line 13)"
    );
}

#[test]
fn several_problems_are_all_reported_in_order() {
    let text = VALID
        .replace("  total_time:", "  Total:")
        .replace("\"brick_ns > 0\"", "\"(\"");
    let e = parse(&text).unwrap_err();
    let lines: Vec<_> = e.errors().iter().map(|e| e.line()).collect();
    assert_eq!(lines, [Some(6), Some(16)]);
}

#[test]
fn depends_on_must_name_a_known_contract() {
    let dir = tempfile::tempdir().unwrap();
    let text = VALID.replace(
        "  description: A test contract.\n",
        "  description: A test contract.\n  depends_on: [brick-profiler-v2]\n",
    );
    std::fs::write(dir.path().join("mine-v1.yaml"), &text).unwrap();
    let e = ContractSet::load_dir(dir.path()).unwrap_err();
    let ContractError::Invalid {
        line,
        field,
        message,
        file,
    } = &e
    else {
        panic!("{e:?}")
    };
    assert!(file.ends_with("mine-v1.yaml"));
    assert_eq!((*line, field.as_str()), (5, "metadata.depends_on[0]"));
    assert_eq!(
        message,
        "unknown contract `brick-profiler-v2`, did you mean `brick-profiler-v1`?"
    );
}

#[test]
fn dependency_cycles_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (name, dep) in [("a-v1", "b-v1"), ("b-v1", "a-v1")] {
        let text = VALID.replace(
            "  description: A test contract.\n",
            &format!("  description: A test contract.\n  depends_on: [{dep}]\n"),
        );
        let text = text.replace("total_time", &format!("total_{}", &name[..1]));
        std::fs::write(dir.path().join(format!("{name}.yaml")), text).unwrap();
    }
    let e = ContractSet::load_dir(dir.path()).unwrap_err().to_string();
    assert!(e.contains("dependency cycle: a-v1 -> b-v1 -> a-v1"), "{e}");
}

#[test]
fn a_directory_of_valid_contracts_loads_with_shipped_dependencies() {
    let dir = tempfile::tempdir().unwrap();
    let text = VALID.replace(
        "  description: A test contract.\n",
        "  description: A test contract.\n  depends_on: [brick-profiler-v1]\n",
    );
    std::fs::write(dir.path().join("mine-v1.yaml"), text).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not a contract").unwrap();
    let set = ContractSet::load_dir(dir.path()).unwrap();
    assert_eq!(set.names().collect::<Vec<_>>(), ["mine-v1"]);
}

#[test]
fn garbage_never_panics() {
    let cases = [
        "",
        "---",
        "[]",
        "metadata: 3",
        "{",
        "equations:\n  - a\n",
        "\t\tx: y",
        "a: b: c",
        "metadata:\n  version: '1'\n  created: x\n  description: y\nequations: {}\n",
        "%YAML 9.9\n---\nx: 1",
        "!!binary AAAA",
        "? [a, b]\n: c\n",
    ];
    for text in cases {
        let e = parse(text).unwrap_err();
        assert!(!e.to_string().is_empty(), "{text:?}");
    }
}
