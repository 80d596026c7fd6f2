//! Hostile contract text within the 1 MiB file limit: chains of rule
//! operators as long as the file allows, and Rust conditions nested
//! thousands deep, each refused with a typed error naming the test or the
//! condition and the position, on the test thread's default stack.

use profiler_contracts::rule::{Rule, parse_rule};
use profiler_contracts::{ContractError, MAX_CONTRACT_BYTES, parse_contract};

const HEAD: &str = r#"metadata:
  version: "1.0.0"
  created: "2025-06-01"
  description: A hostile contract.
equations:
  total_time:
    formula: "sum of samples"
    preconditions:
      - "PRE"
falsification_tests:
  - id: H-001
    rule: Hostile.
    prediction: Refused.
    test: "TEST"
    if_fails: Look.
"#;

fn contract(pre: &str, test: &str) -> Result<profiler_contracts::Contract, ContractError> {
    let text = HEAD.replace("PRE", pre).replace("TEST", test);
    assert!(text.len() <= MAX_CONTRACT_BYTES as usize, "{}", text.len());
    parse_contract("hostile", "contracts/hostile.yaml", &text)
}

/// The column and message of the rule error `test` gives.
fn rule_error(test: &str) -> (usize, String) {
    match contract("!input.is_empty()", test) {
        Err(ContractError::Rule {
            id,
            line,
            column,
            message,
            ..
        }) => {
            assert_eq!((id.as_str(), line), ("H-001", 14));
            (column, message)
        }
        other => panic!("expected a rule error, got {other:?}"),
    }
}

#[test]
fn a_long_sum_is_refused_where_it_grows_too_deep() {
    // 9,400 terms overflowed the stack when evaluated.
    let test = format!("{}1 > 0", "1 + ".repeat(9_400));
    let (column, message) = rule_error(&test);
    // The 256th `+` would make the tree 257 levels high.
    assert_eq!(column, 256 * 4 - 1);
    assert_eq!(
        message,
        "expression too deep at `+`: more than 256 nested operations \
         (split the chain into several tests)"
    );
}

#[test]
fn a_long_disjunction_is_refused() {
    let test = format!("{}true", "true or ".repeat(10_000));
    let (column, message) = rule_error(&test);
    assert_eq!(column, 255 * 8 + 6);
    assert!(
        message.starts_with("expression too deep at `or`"),
        "{message}"
    );
}

#[test]
fn a_long_field_path_is_refused() {
    let test = format!("x{} > 0", ".a".repeat(25_000));
    let (column, message) = rule_error(&test);
    assert_eq!(column, 2 + 2 * 255);
    assert!(
        message.starts_with("expression too deep at `.`"),
        "{message}"
    );
}

#[test]
fn a_tree_too_big_to_clone_is_refused() {
    // ~400k terms of mixed operators: refused before a tree exists.
    let text = "a * b - c / d and ".repeat(50_000) + "x";
    let e = parse_rule(&text).unwrap_err();
    assert!(e.message.starts_with("expression too deep"), "{e}");
}

#[test]
fn chains_up_to_the_limit_parse_and_clone() {
    let text = format!("{}1 == 256", "1 + ".repeat(254));
    let rule = parse_rule(&text).unwrap();
    assert_eq!(rule.clone(), rule);
    assert!(matches!(rule, Rule::Check(_)));
    let one_more = format!("{}1 == 256", "1 + ".repeat(255));
    assert!(parse_rule(&one_more).is_err());
}

#[test]
fn a_long_comparison_chain_is_one_level() {
    let text = format!("{}0", "0 <= ".repeat(200_000));
    let Rule::Check(e) = parse_rule(&text).unwrap() else {
        panic!("not a check")
    };
    let profiler_contracts::rule::ExprKind::Compare(_, chain) = e.kind else {
        panic!("not a comparison")
    };
    assert_eq!(chain.len(), 200_000);
}

#[test]
fn errors_count_columns_in_characters() {
    let e = parse_rule("\"é\" == ü ?").unwrap_err();
    assert_eq!(
        (e.column, e.message.as_str()),
        (10, "unexpected character `?`")
    );
    let text = "\"é\" == 1 + 2";
    let Rule::Check(e) = parse_rule(text).unwrap() else {
        panic!("not a check")
    };
    assert_eq!(e.span.text(text), text);
}

/// The message of the precondition error `pre` gives.
fn precondition_error(pre: &str) -> String {
    match contract(pre, "brick_ns > 0") {
        Err(ContractError::Invalid {
            line,
            field,
            message,
            ..
        }) => {
            assert_eq!(
                (line, field.as_str()),
                (9, "equations.total_time.preconditions[0]")
            );
            message
        }
        other => panic!("expected an invalid precondition, got {other:?}"),
    }
}

#[test]
fn deeply_nested_preconditions_are_refused_before_syn_parses_them() {
    // 3,600 `(` (8 KB) overflowed the stack inside syn.
    let pre = format!("{}1{}", "(".repeat(3_600), ")".repeat(3_600));
    assert_eq!(
        precondition_error(&pre),
        "the condition nests more than 64 levels deep (brackets and prefix operators), \
         at column 65"
    );
    let pre = format!("{}input.is_empty()", "!".repeat(10_000));
    assert!(precondition_error(&pre).ends_with("at column 65"));
    let pre = format!("{}1{}", "-[".repeat(5_000), "]".repeat(5_000));
    assert!(precondition_error(&pre).ends_with("at column 65"));
}

#[test]
fn preconditions_nested_within_the_limit_still_parse() {
    let pre = format!("{}!input.is_empty(){}", "(".repeat(60), ")".repeat(60));
    let c = contract(&pre, "brick_ns > 0").unwrap();
    assert!(c.equations[0].preconditions[0].uses_input);
}

#[test]
fn long_operator_chains_in_preconditions_are_refused() {
    // syn builds `1 + 1 + ...` as a tree as deep as it is long, and
    // dropping 100,000 levels overflowed the stack.
    let pre = format!("input.len() > {}1", "1 + ".repeat(100_000));
    assert_eq!(
        precondition_error(&pre),
        "the condition chains more than 512 operators, at column 2057"
    );
    let pre = format!("input.len() > {}1", "1 + ".repeat(400));
    let c = contract(&pre, "brick_ns > 0").unwrap();
    assert!(c.equations[0].preconditions[0].uses_input);
}
