//! Text for HTML and XML (SVG) documents, in element content and in quoted
//! attribute values: names ([`html`]) and text the report writes ([`xml`]).

/// [`visible`](super::visible::visible) text with `&`, `<`, `>`, `"` and `'` as
/// entities: well-formed in HTML and XML, in content and quoted attributes,
/// for any input (XML has no form at all for most control characters).
pub(crate) fn html(text: &str) -> String {
    // `visible` leaves no character that `xml` would replace, so this is
    // exactly the entity pass on the visible text.
    xml(&super::visible::visible(text))
}

/// `text` for XML text and attribute values, as written: no
/// [`visible`](super::visible::visible) pass, for text the report writes
/// itself (SVG labels, whose names went through `visible` first).
/// Characters XML 1.0 does not allow at all (C0 controls other than tab,
/// line feed and carriage return; U+FFFE, U+FFFF) become U+FFFD, since no
/// escape makes them legal.
pub(crate) fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// A relative path as an `href` value: each byte outside the characters a
/// URL path keeps as they are (`A-Z a-z 0-9 - . _ ~ /`) percent-encoded,
/// so a name with a space, `#`, `?`, `%` or a quote still links to itself
/// and the value is safe in a quoted attribute.
pub(crate) fn href(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(char::from(b));
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hrefs_percent_encode_all_but_path_characters() {
        assert_eq!(
            href("run/rank-00002/report.html"),
            "run/rank-00002/report.html"
        );
        assert_eq!(
            href("my run/#1?\"x\"<>&é"),
            "my%20run/%231%3F%22x%22%3C%3E%26%C3%A9"
        );
    }

    #[test]
    fn escapes_markup_quotes_and_controls() {
        assert_eq!(
            html(r#"<script>alert("x&'y")</script>"#),
            "&lt;script&gt;alert(&quot;x&amp;&#39;y&quot;)&lt;/script&gt;"
        );
        assert_eq!(html("plain"), "plain");
        assert_eq!(html("nul\0<b>\x1b"), "nul\\0&lt;b&gt;\\x1b");
    }

    #[test]
    fn escapes_markup_and_replaces_characters_xml_forbids() {
        assert_eq!(
            xml("a<b>&\"c'\u{1}\t"),
            "a&lt;b&gt;&amp;&quot;c&#39;\u{FFFD}\t"
        );
    }
}
