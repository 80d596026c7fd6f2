//! Rules one file must satisfy beyond its YAML shape: identifiers, Rust
//! conditions that parse, test ids, test expressions, tolerances. All
//! problems of a file are collected, in line order.

use proc_macro2::{TokenStream, TokenTree};

use crate::depth::check_depth;
use crate::error::{ContractError, ContractWarning};
use crate::model::{Condition, Contract, Equation, FalsificationTest, Metadata, ProofObligation};
use crate::rule::{is_prose, parse_rule};
use crate::schema::{RawContract, RawEquation, RawMetadata, RawObligation, RawTest};

/// Rust keywords, which cannot name an equation (its macro would not parse).
const RUST_KEYWORDS: [&str; 51] = [
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try",
];

struct Problems<'a> {
    file: &'a str,
    list: Vec<ContractError>,
    warnings: Vec<ContractWarning>,
}

impl Problems<'_> {
    fn invalid(&mut self, line: usize, field: String, message: String) {
        self.list.push(ContractError::Invalid {
            file: self.file.to_owned(),
            line,
            field,
            message,
        });
    }
}

pub(crate) fn contract(
    name: &str,
    source: &str,
    text: &str,
    raw: RawContract,
) -> Result<Contract, ContractError> {
    let mut p = Problems {
        file: source,
        list: Vec::new(),
        warnings: Vec::new(),
    };
    if !is_contract_name(name) {
        p.invalid(
            1,
            "(file name)".to_owned(),
            format!(
                "contract name `{name}` must be lowercase letters, digits and `-` \
                 (e.g. `my-model-v1`)"
            ),
        );
    }
    let version_line = line_of(&raw.metadata.version);
    let metadata = metadata(&mut p, name, raw.metadata);
    check_content(
        &mut p,
        version_line,
        !raw.equations.0.is_empty(),
        !raw.falsification_tests.is_empty(),
    );
    let equations = raw
        .equations
        .0
        .into_iter()
        .map(|(eq_name, value)| {
            let line = key_line(text, &eq_name, line_of(&value));
            equation(&mut p, eq_name, line, value.value)
        })
        .collect();
    let proof_obligations = proof_obligations(&mut p, raw.proof_obligations);
    let falsification_tests = falsification_tests(&mut p, raw.falsification_tests);
    if let Some(e) = ContractError::combine(p.list) {
        return Err(e);
    }
    Ok(Contract {
        name: name.to_owned(),
        source: source.to_owned(),
        metadata,
        equations,
        proof_obligations,
        falsification_tests,
        warnings: p.warnings,
    })
}

/// The metadata, checked: a version, and no dependency on the contract
/// itself (`name`).
fn metadata(p: &mut Problems<'_>, name: &str, m: RawMetadata) -> Metadata {
    let version_line = line_of(&m.version);
    if m.version.value.trim().is_empty() {
        p.invalid(
            version_line,
            "metadata.version".into(),
            "must not be empty".into(),
        );
    }
    let mut depends_on = Vec::new();
    let mut depends_on_lines = Vec::new();
    for (i, dep) in m.depends_on.into_iter().enumerate() {
        depends_on_lines.push(line_of(&dep));
        if dep.value == name {
            p.invalid(
                line_of(&dep),
                format!("metadata.depends_on[{i}]"),
                format!("a contract cannot depend on itself (`{name}`)"),
            );
        }
        depends_on.push(dep.value);
    }
    Metadata {
        version: m.version.value,
        created: m.created,
        description: m.description,
        references: m.references,
        depends_on,
        depends_on_lines,
    }
}

/// Upstream contracts may describe their computation otherwise
/// (`layer_steps`): without equations, only the tests are checked (a
/// warning says so). A contract with neither says nothing: an error.
fn check_content(p: &mut Problems<'_>, version_line: usize, equations: bool, tests: bool) {
    if !equations && !tests {
        p.invalid(
            version_line,
            "equations".into(),
            "a contract needs at least one equation or falsification test".into(),
        );
    } else if !equations {
        p.warnings.push(ContractWarning {
            file: p.file.to_owned(),
            line: version_line,
            field: "equations".into(),
            message: "no equations: only the falsification tests are checked".into(),
        });
    }
}

/// The proof obligations, each tolerance checked (finite, not negative).
fn proof_obligations(p: &mut Problems<'_>, raw: Vec<RawObligation>) -> Vec<ProofObligation> {
    let mut obligations = Vec::with_capacity(raw.len());
    for (i, o) in raw.into_iter().enumerate() {
        let tolerance = o.tolerance.map(|t| {
            if !(t.value.is_finite() && t.value >= 0.0) {
                p.invalid(
                    line_of(&t),
                    format!("proof_obligations[{i}].tolerance"),
                    format!("must be a finite, non-negative number, not {}", t.value),
                );
            }
            t.value
        });
        obligations.push(ProofObligation {
            kind: o.kind,
            property: o.property,
            formal: o.formal,
            tolerance,
        });
    }
    obligations
}

/// The falsification tests that are complete, each id used once.
fn falsification_tests(p: &mut Problems<'_>, raw: Vec<RawTest>) -> Vec<FalsificationTest> {
    let mut tests: Vec<FalsificationTest> = Vec::new();
    for (i, t) in raw.into_iter().enumerate() {
        if let Some(test) = falsification_test(p, i, t) {
            if let Some(first) = tests.iter().find(|x| x.id == test.id) {
                p.invalid(
                    test.line,
                    format!("falsification_tests[{i}].id"),
                    format!(
                        "duplicate falsification test id `{}` (first at line {})",
                        test.id, first.line
                    ),
                );
            }
            tests.push(test);
        }
    }
    tests
}

fn equation(p: &mut Problems<'_>, name: String, line: usize, raw: RawEquation) -> Equation {
    if let Err(why) = check_equation_name(&name) {
        p.invalid(line, format!("equations.{name}"), why);
    }
    let mut conditions = |kind: &str, list: Vec<serde_saphyr::Spanned<String>>| {
        list.into_iter()
            .enumerate()
            .map(|(i, c)| {
                let cond_line = line_of(&c);
                let field = format!("equations.{name}.{kind}[{i}]");
                if let Err(deep) = check_depth(&c.value) {
                    p.invalid(cond_line, field, deep.message());
                    return Condition {
                        text: c.value,
                        line: cond_line,
                        uses_input: false,
                        uses_result: false,
                    };
                }
                let condition = condition(c.value, cond_line);
                match syn::parse_str::<syn::Expr>(&condition.text) {
                    Err(e) => p.invalid(
                        cond_line,
                        field,
                        format!("`{}` is not a Rust expression: {e}", condition.text.trim()),
                    ),
                    Ok(_) if kind == "preconditions" && condition.uses_result => p.invalid(
                        cond_line,
                        field,
                        "a precondition cannot read `result` (only `input` is bound on entry)"
                            .into(),
                    ),
                    Ok(_) => {}
                }
                condition
            })
            .collect::<Vec<_>>()
    };
    let preconditions = conditions("preconditions", raw.preconditions);
    let postconditions = conditions("postconditions", raw.postconditions);
    Equation {
        name,
        line,
        formula: raw.formula,
        domain: raw.domain,
        codomain: raw.codomain,
        preconditions,
        postconditions,
        invariants: raw.invariants,
    }
}

fn condition(text: String, line: usize) -> Condition {
    let tokens: Option<TokenStream> = text.parse().ok();
    let (uses_input, uses_result) = tokens.map_or((false, false), |t| {
        (reads(t.clone(), "input"), reads(t, "result"))
    });
    Condition {
        text,
        line,
        uses_input,
        uses_result,
    }
}

/// Whether `tokens` use the variable `name` (not a field or method of that name).
fn reads(tokens: TokenStream, name: &str) -> bool {
    let mut after_dot = false;
    for tree in tokens {
        match tree {
            TokenTree::Ident(i) if i == name && !after_dot => return true,
            TokenTree::Group(g) if reads(g.stream(), name) => return true,
            TokenTree::Punct(ref p) => {
                after_dot = p.as_char() == '.';
                continue;
            }
            _ => {}
        }
        after_dot = false;
    }
    false
}

fn falsification_test(p: &mut Problems<'_>, i: usize, t: RawTest) -> Option<FalsificationTest> {
    // Upstream's other form: code that tries to falsify the claim, and what
    // it means when that code passes. Code is shown, never run or passed.
    let code = t.test.is_none() && t.falsification_test.is_some();
    let test = t.test.or(t.falsification_test);
    let if_fails = t.if_fails.or(t.if_test_passes);
    // Every missing key of the test is reported, not only the first.
    let line = t.id.as_ref().or(test.as_ref()).map_or(0, line_of);
    let mut missing = Vec::new();
    for (key, absent) in [
        ("`id`", t.id.is_none()),
        ("`rule`", t.rule.is_none()),
        ("`prediction`", t.prediction.is_none()),
        ("`test`", test.is_none()),
        (
            if code {
                "`if_test_passes` (or `if_fails`)"
            } else {
                "`if_fails`"
            },
            if_fails.is_none(),
        ),
    ] {
        if absent {
            missing.push(key);
        }
    }
    for key in &missing {
        p.invalid(
            line,
            format!("falsification_tests[{i}]"),
            format!("missing required key {key}"),
        );
    }
    let (Some(id_s), Some(rule), Some(prediction), Some(test_s), Some(if_fails)) =
        (t.id, t.rule, t.prediction, test, if_fails)
    else {
        return None;
    };
    let id = id_s.value;
    let ok_id = !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !ok_id {
        p.invalid(
            line,
            format!("falsification_tests[{i}].id"),
            format!("id `{id}` must be letters, digits, `-`, `_` or `.` (e.g. `GDP-001`)"),
        );
    }
    let test_line = line_of(&test_s);
    let parsed = match parse_rule(&test_s.value) {
        _ if code => None,
        Ok(parsed) => Some(parsed),
        // Upstream contracts describe some tests in words ("proptest with
        // random inputs"): kept, shown as not machine-checkable, never passed.
        Err(_) if is_prose(&test_s.value) => None,
        Err(e) => {
            p.list.push(ContractError::Rule {
                file: p.file.to_owned(),
                line: test_line,
                id,
                column: e.column,
                message: e.message,
            });
            return None;
        }
    };
    Some(FalsificationTest {
        id,
        line,
        rule,
        prediction,
        test: test_s.value,
        parsed,
        test_line,
        if_fails,
    })
}

/// Whether `name` is a valid contract name: `[a-z0-9][a-z0-9-]*`.
pub(crate) fn is_contract_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// An equation name must be a snake_case Rust identifier and not a keyword.
pub(crate) fn check_equation_name(name: &str) -> Result<(), String> {
    let snake = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !snake {
        return Err(format!(
            "equation name `{name}` must be a snake_case Rust identifier (e.g. `wall_coverage`)"
        ));
    }
    if RUST_KEYWORDS.contains(&name) {
        return Err(format!(
            "equation name `{name}` is a Rust keyword; its macro could not be named"
        ));
    }
    Ok(())
}

fn line_of<T>(spanned: &serde_saphyr::Spanned<T>) -> usize {
    spanned.referenced.line() as usize
}

/// The line of mapping key `name` at or before `value_line` (the value's
/// own location is where its first nested key is).
fn key_line(text: &str, name: &str, value_line: usize) -> usize {
    let lines: Vec<&str> = text.lines().take(value_line).collect();
    lines
        .iter()
        .rposition(|l| {
            let l = l.trim_start();
            let l = l.strip_prefix(['"', '\'']).unwrap_or(l);
            l.strip_prefix(name)
                .is_some_and(|rest| rest.trim_start_matches(['"', '\'']).starts_with(':'))
        })
        .map_or(value_line, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equation_names_are_snake_case_identifiers() {
        assert!(check_equation_name("wall_coverage").is_ok());
        assert!(check_equation_name("p99_latency").is_ok());
        for bad in ["WallCoverage", "wall-coverage", "1st", "_x", "", "été"] {
            assert!(check_equation_name(bad).is_err(), "{bad}");
        }
        assert!(
            check_equation_name("match")
                .unwrap_err()
                .contains("keyword")
        );
    }

    #[test]
    fn variable_reads_skip_fields_and_methods() {
        let t = |s: &str| s.parse::<TokenStream>().unwrap();
        assert!(reads(t("input.len() > 0"), "input"));
        assert!(reads(t("f(&*input)"), "input"));
        assert!(!reads(t("x.input > 0"), "input"));
        assert!(!reads(t("stats.result()"), "result"));
        assert!(reads(t("(result as u8) < 4"), "result"));
    }

    #[test]
    fn key_lines_are_found_above_the_value() {
        let text = "equations:\n  wall_coverage:\n    # note\n    formula: x\n";
        assert_eq!(key_line(text, "wall_coverage", 4), 2);
        assert_eq!(key_line(text, "missing", 4), 4);
    }
}
