//! Text for Markdown (CommonMark with GitHub tables): table cells and list
//! items that render as the literal text, never as markup.

/// [`visible`](super::visible::visible) text, trimmed, with a backslash before every
/// character that could start markup: `\` `` ` `` `*` `[` `]` `<` `>` `|`
/// `&` `~`, `_` at a word boundary (inside a word it is literal), and a
/// leading `#`, `-`, `+` or list number's `.`/`)` (block markers in a list
/// item). So `<script>` shows as text, `|` stays inside its cell and a line
/// break cannot end a row.
pub(crate) fn markdown(text: &str) -> String {
    let text = super::visible::visible(text);
    let text = text.trim();
    let chars: Vec<char> = text.chars().collect();
    let digits = chars.iter().take_while(|c| c.is_ascii_digit()).count();
    let mut out = String::with_capacity(text.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        let word = |j: Option<usize>| {
            j.and_then(|j| chars.get(j))
                .is_some_and(|c| c.is_alphanumeric())
        };
        let escape = match c {
            '\\' | '`' | '*' | '[' | ']' | '<' | '>' | '|' | '&' | '~' => true,
            '_' => !(word(i.checked_sub(1)) && word(Some(i + 1))),
            '#' | '-' | '+' => i == 0,
            '.' | ')' => digits > 0 && i == digits,
            _ => false,
        };
        if escape {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_escaped_and_words_stay_readable() {
        assert_eq!(
            markdown("<script>alert(1)</script>"),
            "\\<script\\>alert(1)\\</script\\>"
        );
        assert_eq!(markdown("a|b"), "a\\|b");
        assert_eq!(markdown("gemm_fwd rms_norm"), "gemm_fwd rms_norm");
        assert_eq!(markdown("_em_ *b* `c`"), "\\_em\\_ \\*b\\* \\`c\\`");
        assert_eq!(markdown("# x - y"), "\\# x - y");
        assert_eq!(markdown("12. x"), "12\\. x");
        assert_eq!(markdown("a\\b &amp;"), "a\\\\b \\&amp;");
        assert_eq!(markdown("a\nb"), "a\\\\nb");
        assert_eq!(markdown("  "), "(unnamed)");
    }
}
