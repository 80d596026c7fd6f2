//! Preparing a standalone SVG document (e.g. an inferno flamegraph) for
//! inlining into the HTML page.

/// Ids of inferno's controls that only its script drives: search, reset
/// zoom, the match counter and the hover details line.
const SCRIPTED_CONTROLS: [&str; 4] = ["search", "unzoom", "matched", "details"];

/// `svg` without its XML prolog and doctype, without `<script>…</script>`
/// elements, the root's `onload` attribute and the controls only the
/// script drives; its stylesheet scoped to `.flamegraph`, and the root
/// frame labelled.
///
/// Made for inferno's output (the SVG the report itself produces), not a
/// sanitizer for untrusted SVG. An HTML page cannot carry an XML
/// declaration or a second doctype. The script goes too: inferno's runs
/// page-wide once inlined; it takes the page's *first* `<svg>` (another
/// chart) as its own and strips that chart's size, and it captures Ctrl+F.
/// Without it the flamegraph still renders, with a tooltip per frame; its
/// Search and Reset Zoom controls would do nothing, so they go, and the
/// root frame, which the script would have labelled, gets its label here.
/// Inline, the SVG's `text { ... }` rule would restyle every SVG on the
/// page, hence the scoping.
pub(crate) fn inline_svg(svg: &str) -> String {
    let out = inline_document(svg);
    let out = SCRIPTED_CONTROLS
        .iter()
        .fold(out, |out, id| strip_text_with_id(&out, id));
    label_root(&scope_style(&out, ".flamegraph"))
}

/// `svg` without prolog, doctype, scripts and the root's `onload`.
fn inline_document(svg: &str) -> String {
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

/// `svg` without the `<text>` element whose id is `id` (when there is one).
fn strip_text_with_id(svg: &str, id: &str) -> String {
    let marker = format!(" id=\"{id}\"");
    let Some(at) = svg.find(&marker) else {
        return svg.to_owned();
    };
    let (Some(start), Some(end)) = (svg[..at].rfind("<text"), svg[at..].find("</text>")) else {
        return svg.to_owned();
    };
    // The id must belong to that `<text>` start tag.
    if svg[start..at].contains('>') {
        return svg.to_owned();
    }
    let end = at + end + "</text>".len();
    format!("{}{}", &svg[..start], &svg[end..])
}

/// Every selector of the first `<style>` element prefixed with `scope`.
fn scope_style(svg: &str, scope: &str) -> String {
    let Some(open) = svg.find("<style") else {
        return svg.to_owned();
    };
    let Some(body) = svg[open..].find('>').map(|i| open + i + 1) else {
        return svg.to_owned();
    };
    let Some(close) = svg[body..].find("</style>").map(|i| body + i) else {
        return svg.to_owned();
    };
    let mut css = String::with_capacity(close - body + 256);
    for line in svg[body..close].split_inclusive('\n') {
        match line.split_once('{') {
            Some((selectors, rule)) if !selectors.trim().is_empty() => {
                let scoped: Vec<String> = selectors
                    .split(',')
                    .map(|sel| format!("{scope} {}", sel.trim()))
                    .collect();
                css.push_str(&scoped.join(", "));
                css.push_str(" {");
                css.push_str(rule);
            }
            _ => css.push_str(line),
        }
    }
    format!("{}{css}{}", &svg[..body], &svg[close..])
}

/// The root frame (`all`, whose text inferno leaves for its script to
/// fill) labelled with its title, e.g. `all (4,982,655 µs)`.
fn label_root(svg: &str) -> String {
    let Some(title_at) = svg.find("<title>all (") else {
        return svg.to_owned();
    };
    let title_start = title_at + "<title>".len();
    let Some(title_end) = svg[title_start..].find("</title>").map(|i| title_start + i) else {
        return svg.to_owned();
    };
    let title = &svg[title_start..title_end];
    let label = title
        .strip_suffix(", 100%)")
        .map_or_else(|| title.to_owned(), |head| format!("{head})"));
    let Some(empty) = svg[title_end..].find("></text>").map(|i| title_end + i + 1) else {
        return svg.to_owned();
    };
    // Only the root's own text: no other element may start in between.
    if svg[title_end..empty].contains("<g") {
        return svg.to_owned();
    }
    format!("{}{label}{}", &svg[..empty], &svg[empty..])
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
    fn dead_controls_go_the_root_is_labelled_and_styles_are_scoped() {
        let svg = "<svg><style type=\"text/css\">\ntext { font-size:12px }\n#search:hover, #search.show { opacity:1; }\n</style>\
                   <text id=\"title\" x=\"1\">run</text><text id=\"search\" fill=\"b\">Search</text>\
                   <text id=\"unzoom\" class=\"hide\">Reset Zoom</text>\
                   <g><title>all (1,234 µs, 100%)</title><rect/><text x=\"0\"></text></g>\
                   <g><title>step (1,234 µs, 100.00%)</title><rect/><text x=\"0\">step</text></g></svg>";
        let out = inline_svg(svg);
        assert!(
            !out.contains("Search") && !out.contains("Reset Zoom"),
            "{out}"
        );
        assert!(out.contains("<text id=\"title\" x=\"1\">run</text>"));
        assert!(out.contains("<text x=\"0\">all (1,234 µs)</text>"), "{out}");
        assert!(out.contains(">step</text>"));
        assert!(
            out.contains("\n.flamegraph text { font-size:12px }\n"),
            "{out}"
        );
        assert!(
            out.contains(".flamegraph #search:hover, .flamegraph #search.show {"),
            "{out}"
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
