//! Preparing a standalone SVG document (e.g. an inferno flamegraph) for
//! inlining into the HTML page.

/// `svg` without its XML prolog and doctype, without `<script>…</script>`
/// elements and without the root's `onload` attribute.
///
/// Made for inferno's output (the SVG the report itself produces), not a
/// sanitizer for untrusted SVG. An HTML page cannot carry an XML
/// declaration or a second doctype. The script goes too: inferno's runs
/// page-wide once inlined; it takes the page's *first* `<svg>` (another
/// chart) as its own and strips that chart's size, and it captures Ctrl+F.
/// Without it the flamegraph still renders, with a tooltip per frame.
pub(crate) fn inline_svg(svg: &str) -> String {
    let mut rest = svg.trim_start();
    loop {
        if rest.starts_with("<?") {
            rest = after(rest, "?>");
        } else if rest.starts_with("<!DOCTYPE") || rest.starts_with("<!doctype") {
            // An internal subset (`[...]`) may hold `>`; it ends with `]>`.
            let end = match (rest.find('['), rest.find('>')) {
                (Some(open), Some(close)) if open < close => "]>",
                _ => ">",
            };
            rest = after(rest, end);
        } else {
            break;
        }
        rest = rest.trim_start();
    }
    let mut out = strip_elements(rest, "<script", "</script>");
    if let Some(start) = out.find("<svg") {
        let tag_end = out[start..].find('>').map_or(out.len(), |i| start + i);
        if let Some(attr) = out[start..tag_end].find(" onload=\"") {
            let from = start + attr;
            let value = from + " onload=\"".len();
            if let Some(close) = out[value..tag_end].find('"') {
                out.replace_range(from..=value + close, "");
            }
        }
    }
    out
}

/// The text after the first `end`, or nothing when `end` never comes.
fn after<'a>(text: &'a str, end: &str) -> &'a str {
    text.find(end).map_or("", |i| &text[i + end.len()..])
}

/// `text` without every `open ... close` element (unclosed: to the end).
fn strip_elements(text: &str, open: &str, close: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(open) {
        out.push_str(&rest[..start]);
        rest = after(&rest[start..], close);
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prolog_doctype_scripts_and_onload_are_removed() {
        let svg = "<?xml version=\"1.0\" standalone=\"no\"?>\n\
                   <!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"x.dtd\">\n\
                   <svg version=\"1.1\" onload=\"init(evt)\" width=\"10\">\
                   <script type=\"text/ecmascript\"><![CDATA[var a = 1 > 0;]]></script>\
                   <rect/><script>b()</script></svg>";
        assert_eq!(
            inline_svg(svg),
            "<svg version=\"1.1\" width=\"10\"><rect/></svg>"
        );
    }

    #[test]
    fn internal_subsets_and_plain_svgs() {
        let svg = "<!DOCTYPE svg [<!ENTITY a \"<b>\">]>\n<svg><g/></svg>";
        assert_eq!(inline_svg(svg), "<svg><g/></svg>");
        assert_eq!(inline_svg("  <svg/>"), "<svg/>");
        assert_eq!(inline_svg("<?xml version=\"1.0\""), "");
    }
}
