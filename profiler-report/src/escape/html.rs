//! Text for HTML and XML (SVG) documents, in element content and in quoted
//! attribute values.

/// [`visible`](super::visible::visible) text with `&`, `<`, `>`, `"` and `'` as
/// entities: well-formed in HTML and XML, in content and quoted attributes,
/// for any input (XML has no form at all for most control characters).
pub(crate) fn html(text: &str) -> String {
    let text = super::visible::visible(text);
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_quotes_and_controls() {
        assert_eq!(
            html(r#"<script>alert("x&'y")</script>"#),
            "&lt;script&gt;alert(&quot;x&amp;&#39;y&quot;)&lt;/script&gt;"
        );
        assert_eq!(html("plain"), "plain");
        assert_eq!(html("nul\0<b>\x1b"), "nul\\0&lt;b&gt;\\x1b");
    }
}
