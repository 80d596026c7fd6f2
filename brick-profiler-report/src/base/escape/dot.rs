//! Text for Graphviz DOT double-quoted strings (labels, the graph title).

/// Text for a DOT double-quoted string: `"` and `\` escaped (a backslash
/// would otherwise start an escape such as `\N`), line breaks as `\n`,
/// other control characters as spaces. `<`, `>`, `{`, `}` and `|` need no
/// escape inside a quoted (non-record, non-HTML) label.
pub(crate) fn dot(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    dot_into(&mut out, text);
    out
}

/// [`dot()`] appending to `out`.
pub(crate) fn dot_into(out: &mut String, text: &str) {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push_str("\\n");
                }
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_name_stays_inside_its_quotes() {
        assert_eq!(dot(r#"say "hi""#), r#"say \"hi\""#);
        assert_eq!(dot(r"a\N\"), r"a\\N\\");
        assert_eq!(dot("two\nlines\r\nthree\rfour"), r"two\nlines\nthree\nfour");
        assert_eq!(dot("tab\there\u{0}"), "tab here ");
        assert_eq!(dot("<b>{x|y}</b>"), "<b>{x|y}</b>");
    }
}
