//! Text for HTML and XML (SVG) documents, in element content and in quoted
//! attribute values.

/// Escapes `&`, `<`, `>`, `"` and `'` for HTML text and attribute values.
pub(crate) fn html(text: &str) -> String {
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
    fn escapes_markup_and_quotes() {
        assert_eq!(
            html(r#"<script>alert("x&'y")</script>"#),
            "&lt;script&gt;alert(&quot;x&amp;&#39;y&quot;)&lt;/script&gt;"
        );
        assert_eq!(html("plain"), "plain");
    }
}
