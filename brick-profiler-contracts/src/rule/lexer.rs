//! Splits a rule's text into tokens, each with the column it starts at.

use super::ast::Span;
use super::error::RuleSyntaxError;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Number(f64),
    Str(String),
    Ident(String),
    /// Operators and punctuation, as written.
    Punct(&'static str),
}

#[derive(Debug, Clone)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) span: Span,
}

/// Two-character operators first, so `<=` is not read as `<` then `=`.
const PUNCTS: [&str; 19] = [
    "==", "!=", "<=", ">=", "~=", "&&", "||", "<", ">", "(", ")", ",", ".", "+", "-", "*", "/",
    "!", ":",
];

/// Tokens with byte spans; errors carry byte offsets too (`parse_rule`
/// turns them into character columns once, so quoting a span stays O(1)).
pub(super) fn tokenize(text: &str) -> Result<Vec<Token>, RuleSyntaxError> {
    let chars: Vec<char> = text.chars().collect();
    let offsets: Vec<usize> = text.char_indices().map(|(b, _)| b).collect();
    let byte = |i: usize| offsets.get(i).copied().unwrap_or(text.len());
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let tok = if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit))
        {
            i = number_end(&chars, i);
            let s: String = chars[start..i].iter().filter(|c| **c != '_').collect();
            let value: f64 = s.parse().map_err(|_| {
                RuleSyntaxError::new(byte(start), format!("malformed number `{s}`"))
            })?;
            Tok::Number(value)
        } else if c.is_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            Tok::Ident(chars[start..i].iter().collect())
        } else if c == '"' || c == '\'' {
            i += 1;
            let mut s = String::new();
            while i < chars.len() && chars[i] != c {
                s.push(chars[i]);
                i += 1;
            }
            if i == chars.len() {
                return Err(RuleSyntaxError::new(byte(start), "unterminated string"));
            }
            i += 1;
            Tok::Str(s)
        } else {
            let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
            let Some(p) = PUNCTS.iter().find(|p| rest.starts_with(**p)) else {
                return Err(RuleSyntaxError::new(
                    byte(start),
                    format!("unexpected character `{c}`"),
                ));
            };
            i += p.chars().count();
            Tok::Punct(p)
        };
        out.push(Token {
            tok,
            span: Span {
                start: byte(start),
                end: byte(i),
            },
        });
    }
    Ok(out)
}

/// End of a number starting at `i`: digits, one fraction, one exponent.
fn number_end(chars: &[char], mut i: usize) -> usize {
    let digits = |i: &mut usize| {
        while *i < chars.len() && (chars[*i].is_ascii_digit() || chars[*i] == '_') {
            *i += 1;
        }
    };
    digits(&mut i);
    if chars.get(i) == Some(&'.') && chars.get(i + 1).is_some_and(char::is_ascii_digit) {
        i += 1;
        digits(&mut i);
    }
    if matches!(chars.get(i), Some('e' | 'E')) {
        let sign = usize::from(matches!(chars.get(i + 1), Some('+' | '-')));
        if chars.get(i + 1 + sign).is_some_and(char::is_ascii_digit) {
            i += 1 + sign;
            digits(&mut i);
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<Tok> {
        tokenize(text).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn two_character_operators_win() {
        assert_eq!(
            kinds("a<=b ~= 1e-9"),
            vec![
                Tok::Ident("a".into()),
                Tok::Punct("<="),
                Tok::Ident("b".into()),
                Tok::Punct("~="),
                Tok::Number(1e-9),
            ]
        );
    }

    #[test]
    fn numbers_take_underscores_and_exponents() {
        assert_eq!(
            kinds("1_000 .5 2E3"),
            vec![Tok::Number(1000.0), Tok::Number(0.5), Tok::Number(2000.0)]
        );
    }

    #[test]
    fn field_access_on_a_call_is_not_a_number() {
        assert_eq!(kinds("f(x).avg_ns")[4], Tok::Punct("."));
    }

    #[test]
    fn errors_name_the_column() {
        let e = tokenize("a >= 0.85 # b").unwrap_err();
        assert_eq!(e.column, 11);
        let e = tokenize("x == \"open").unwrap_err();
        assert_eq!((e.column, e.message.as_str()), (6, "unterminated string"));
    }
}
