//! The rule language of falsification tests: the `test` field of each test
//! is a small expression over named metrics of a profile, parsed here and
//! evaluated by `brick-profiler-report`.
//!
//! # Grammar
//!
//! ```text
//! test       := "if" expr "then" expr        (skipped when the guard is false)
//!             | expr
//! expr       := and ( ("or" | "||") and )*
//! and        := not ( ("and" | "&&") not )*
//! not        := ("not" | "!") not
//!             | ("all" | "any") NAME "in" NAME ":" expr
//!             | comparison
//! comparison := sum ( ("==" | "!=" | "<" | "<=" | ">" | ">=" | "~=") sum )*
//! sum        := product ( ("+" | "-") product )*
//! product    := unary ( ("*" | "/") unary )*
//! unary      := "-" unary | postfix
//! postfix    := atom ( "." NAME )*
//! atom       := NUMBER | STRING | "true" | "false" | "none"
//!             | NAME | NAME "(" [ expr ("," expr)* ] ")" | "(" expr ")"
//! ```
//!
//! Comparisons chain (`0 <= wall_coverage <= 1` means both hold); `~=` is
//! equality within a relative tolerance of 1e-9. Strings use `"` or `'`.
//! Names are metrics (`wall_coverage`, `decoded_tokens`), dotted metrics
//! (`scorecard.grade`, `counters.lost`), or calls (`brick(LmHead).avg_ns`).
//! Which names exist is up to the evaluator; the parser only checks syntax.
//!
//! ```
//! use profiler_contracts::rule::{Rule, parse_rule};
//! let rule = parse_rule(
//!     r#"if sync_mode == "immediate" then brick(LmHead).avg_ns > 10 * brick(RmsNorm).avg_ns"#,
//! )
//! .unwrap();
//! assert!(matches!(rule, Rule::Conditional { .. }));
//! let err = parse_rule("wall_coverage >= (0.85").unwrap_err();
//! assert_eq!(err.column, 23);
//! ```

mod ast;
mod error;
mod height;
mod lexer;
mod parser;

pub use ast::{ArithOp, CmpOp, Expr, ExprKind, LogicOp, Rule, Span};
pub use error::RuleSyntaxError;

/// Parses a test expression.
///
/// # Errors
/// [`RuleSyntaxError`] with the column and what was expected.
pub fn parse_rule(text: &str) -> Result<Rule, RuleSyntaxError> {
    lexer::tokenize(text)
        .and_then(|tokens| parser::Parser::new(tokens, text.len()).rule())
        .map_err(|e| e.in_characters(text))
}

/// Whether a `test` that is not in the rule language is prose rather than a
/// mistyped rule: two words side by side (outside quotes) that are not
/// words of the rule language, which no rule has (`proptest with random
/// inputs`, `static assertion`).
pub(crate) fn is_prose(test: &str) -> bool {
    const RULE_WORDS: [&str; 8] = ["and", "or", "not", "if", "then", "true", "false", "none"];
    let unquoted: String = test.split('"').step_by(2).collect::<Vec<_>>().join(" ");
    let word = |w: &str| {
        let w = w.trim_end_matches([':', ',', ';']);
        w.chars().next().is_some_and(char::is_alphabetic)
            && w.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !RULE_WORDS.contains(&w.to_ascii_lowercase().as_str())
    };
    let words: Vec<&str> = unquoted.split_whitespace().collect();
    words.windows(2).any(|pair| word(pair[0]) && word(pair[1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> Expr {
        match parse_rule(text).unwrap() {
            Rule::Check(e) => e,
            Rule::Conditional { .. } => panic!("not a plain check"),
        }
    }

    #[test]
    fn precedence_puts_products_under_comparisons() {
        let e = check("brick(LmHead).avg_ns > 10 * brick(RmsNorm).avg_ns");
        let ExprKind::Compare(lhs, chain) = e.kind else {
            panic!("not a comparison")
        };
        assert!(matches!(lhs.kind, ExprKind::Field(_, ref f) if f == "avg_ns"));
        assert_eq!(chain.len(), 1);
        assert_eq!(chain[0].0, CmpOp::Gt);
        assert!(matches!(
            chain[0].1.kind,
            ExprKind::Arith(ArithOp::Mul, _, _)
        ));
    }

    #[test]
    fn and_binds_tighter_than_or() {
        let e = check("a > 1 or b > 2 and c > 3");
        assert!(matches!(e.kind, ExprKind::Logic(LogicOp::Or, _, ref r)
            if matches!(r.kind, ExprKind::Logic(LogicOp::And, _, _))));
    }

    #[test]
    fn comparisons_chain() {
        let e = check("0 <= wall_coverage <= 1");
        let ExprKind::Compare(_, chain) = e.kind else {
            panic!("not a comparison")
        };
        assert_eq!(chain.len(), 2);
    }

    #[test]
    fn quantifier_body_extends_to_the_end() {
        let e = check("all b in bricks: b.min_ns <= b.avg_ns and b.avg_ns <= b.max_ns");
        let ExprKind::Quantifier {
            all,
            var,
            collection,
            body,
        } = e.kind
        else {
            panic!("not a quantifier")
        };
        assert!(all);
        assert_eq!((var.as_str(), collection.as_str()), ("b", "bricks"));
        assert!(matches!(body.kind, ExprKind::Logic(LogicOp::And, _, _)));
    }

    #[test]
    fn spans_quote_the_source() {
        let text = "brick(LmHead).count == layers * decoded_tokens";
        let e = check(text);
        let ExprKind::Compare(lhs, chain) = e.kind else {
            panic!("not a comparison")
        };
        assert_eq!(lhs.span.text(text), "brick(LmHead).count");
        assert_eq!(chain[0].1.span.text(text), "layers * decoded_tokens");
    }

    #[test]
    fn errors_point_at_the_column() {
        let cases = [
            ("wall_coverage >=", 17, "expected a value at the end"),
            (
                "if a > 1 b < 2",
                10,
                "expected `then` after the `if` condition, found `b`",
            ),
            (
                "brick(LmHead.count",
                19,
                "expected `,` or `)` in the argument list at the end",
            ),
            ("a > 1 b", 7, "unexpected `b` after a complete expression"),
            ("x == then", 6, "expected a value, found the keyword `then`"),
            ("", 1, "empty test expression"),
        ];
        for (text, column, message) in cases {
            let e = parse_rule(text).unwrap_err();
            assert_eq!((e.column, e.message.as_str()), (column, message), "{text}");
        }
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let text = format!("{}1{}", "(".repeat(500), ")".repeat(500));
        let e = parse_rule(&text).unwrap_err();
        assert!(e.message.contains("nested too deeply"), "{e}");
        for prefix in ["not ", "-", "f("] {
            let text = format!("{}x", prefix.repeat(10_000));
            assert!(parse_rule(&text).is_err(), "{prefix}");
        }
    }
}
