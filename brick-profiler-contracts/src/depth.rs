//! How deeply a Rust condition's text nests (brackets and prefix operators)
//! and how many operators it chains, measured on the text before `syn`
//! parses it: `syn`'s trees are as deep as either, and recursing through
//! thousands of levels would overflow the stack.

/// Conditions nesting deeper than this are refused.
pub(crate) const MAX_CONDITION_DEPTH: usize = 64;

/// Conditions with more binary operators, `.` and `?` than this are refused.
pub(crate) const MAX_CONDITION_OPERATORS: usize = 512;

/// Why a condition is refused before `syn` reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TooDeep {
    /// It nests deeper than [`MAX_CONDITION_DEPTH`] at this 1-based column.
    Nested(usize),
    /// Its operator past [`MAX_CONDITION_OPERATORS`] is at this column.
    Chained(usize),
}

impl TooDeep {
    /// What is wrong, for the contract error.
    pub(crate) fn message(self) -> String {
        match self {
            Self::Nested(column) => format!(
                "the condition nests more than {MAX_CONDITION_DEPTH} levels deep \
                 (brackets and prefix operators), at column {column}"
            ),
            Self::Chained(column) => format!(
                "the condition chains more than {MAX_CONDITION_OPERATORS} operators, \
                 at column {column}"
            ),
        }
    }
}

/// Checks the nesting of `text`: each open bracket adds a level until it
/// closes, and each prefix operator (`!`, `-`, `*`, `&`) adds one until the
/// next binary operator or separator at its bracket level. String literals
/// are skipped. Approximate (a precedence-free scan), but never lower than
/// the depth `syn` recurses to.
pub(crate) fn check_depth(text: &str) -> Result<(), TooDeep> {
    // Prefix operators open at each bracket level, innermost last.
    let mut levels: Vec<usize> = vec![0];
    let mut depth = 0usize;
    // Whether the previous significant character ends an operand, so that
    // `-`, `*`, `&` after it are binary.
    let mut after_operand = false;
    let mut operators = 0usize;
    let mut chars = text.chars().enumerate().peekable();
    while let Some((i, c)) = chars.next() {
        let column = i + 1;
        match c {
            '"' => {
                while let Some((_, s)) = chars.next() {
                    match s {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
                after_operand = true;
            }
            '(' | '[' | '{' => {
                depth += 1;
                levels.push(0);
                after_operand = false;
            }
            ')' | ']' | '}' => {
                if levels.len() > 1 {
                    depth -= 1 + levels.pop().unwrap_or(0);
                }
                after_operand = true;
            }
            '!' | '-' | '*' | '&' if !after_operand => {
                depth += 1;
                if let Some(open) = levels.last_mut() {
                    *open += 1;
                }
            }
            '.' => {
                operators += 1;
                after_operand = true;
            }
            c if c.is_alphanumeric() || c == '_' || c == '\'' => {
                after_operand = true;
            }
            c if c.is_whitespace() => {}
            _ => {
                if c == '&' && chars.peek().is_some_and(|(_, n)| *n == '&') {
                    chars.next();
                }
                operators += 1;
                // A binary operator or separator ends the prefix operators
                // of its operand.
                if let Some(open) = levels.last_mut() {
                    depth -= *open;
                    *open = 0;
                }
                after_operand = false;
            }
        }
        if depth > MAX_CONDITION_DEPTH {
            return Err(TooDeep::Nested(column));
        }
        if operators > MAX_CONDITION_OPERATORS {
            return Err(TooDeep::Chained(column));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_error(text: &str) -> Option<usize> {
        match check_depth(text) {
            Err(TooDeep::Nested(column)) => Some(column),
            Err(TooDeep::Chained(_)) => panic!("{text}: counted as a chain"),
            Ok(()) => None,
        }
    }

    #[test]
    fn ordinary_conditions_pass() {
        for text in [
            "input.0.is_finite() && input.0 >= 0.0",
            "!input.is_empty() && -x < *y && &a == &b",
            &format!("{}x{}", "(a && ".repeat(60), ")".repeat(60)),
            "(0.0..=1.0).contains(result)",
            "x == \"(((((\" && y[0] == {1}",
            &format!("{}x{}", "(".repeat(64), ")".repeat(64)),
            &"-x * ".repeat(250),
        ] {
            assert_eq!(depth_error(text), None, "{text}");
        }
    }

    #[test]
    fn deep_brackets_and_prefix_runs_are_refused_where_they_cross_the_limit() {
        assert_eq!(depth_error(&"(".repeat(3600)), Some(65));
        assert_eq!(depth_error(&format!("x == {}1", "!".repeat(100))), Some(70));
        assert_eq!(depth_error(&"-(".repeat(40)), Some(65));
        assert_eq!(depth_error(&"[{".repeat(40)), Some(65));
    }

    #[test]
    fn long_operator_chains_are_refused_at_the_operator_past_the_limit() {
        assert_eq!(check_depth(&"1 + ".repeat(512)), Ok(()));
        assert_eq!(
            check_depth(&"1 + ".repeat(600)),
            Err(TooDeep::Chained(512 * 4 + 3))
        );
        assert_eq!(
            check_depth(&"x.a".repeat(600)),
            Err(TooDeep::Chained(513 * 3 - 1))
        );
    }
}
