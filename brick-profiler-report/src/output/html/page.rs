//! The page around the sections: head with the inline stylesheet, header,
//! table of contents, footer and the small optional sort script. Knows
//! nothing about what a section holds.

use std::fmt::Write as _;

use crate::base::escape;
use crate::base::section::Section;

/// What the page shows around its sections; strings are already HTML.
pub(crate) struct Page<'a> {
    /// Page and `<h1>` title (HTML).
    pub(crate) title: &'a str,
    /// The line under the title (HTML).
    pub(crate) subtitle: &'a str,
    /// Where the companion files are and how to open them (HTML).
    pub(crate) links: Option<&'a str>,
    /// Warnings shown in the first section; badged in the header when non-zero.
    pub(crate) warnings: usize,
    /// Sections in page order, with unique ids.
    pub(crate) sections: &'a [Section],
    /// Footer line (HTML).
    pub(crate) footer: &'a str,
    /// `<meta name="generator">` content (plain text).
    pub(crate) generator: &'a str,
    /// A script of the page's own, run after the sort script (empty: none).
    pub(crate) script: &'a str,
}

/// The complete HTML document.
pub(crate) fn render(page: &Page<'_>) -> String {
    let mut s = String::with_capacity(
        16 * 1024 + page.sections.iter().map(|x| x.body.len()).sum::<usize>(),
    );
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"{}\">\n<title>{} · profiler report</title>\n\
         <style>\n{CSS}</style>\n</head>\n<body>\n<div class=\"page\">\n",
        escape::html(page.generator),
        page.title
    );
    let _ = writeln!(
        s,
        "<header class=\"page-header\">\n<h1>{}</h1>\n<p class=\"meta\">{}</p>",
        page.title, page.subtitle
    );
    if let Some(links) = page.links {
        let _ = writeln!(s, "<p class=\"links\">{links}</p>");
    }
    if let Some(first) = page.sections.first().filter(|_| page.warnings > 0) {
        let _ = writeln!(
            s,
            "<p><a class=\"badge\" href=\"#{}\">⚠ {} warning{}</a></p>",
            first.id,
            page.warnings,
            if page.warnings == 1 { "" } else { "s" }
        );
    }
    s.push_str("</header>\n<nav class=\"toc\" aria-label=\"Contents\">\n<ol>\n");
    for section in page.sections {
        let _ = writeln!(
            s,
            "<li><a href=\"#{}\">{}</a></li>",
            section.id,
            escape::html(&section.title)
        );
    }
    s.push_str("</ol>\n</nav>\n<main>\n");
    for section in page.sections {
        render_section(&mut s, section);
    }
    let _ = write!(
        s,
        "</main>\n<footer>{}</footer>\n</div>\n<script>\n{SORT_SCRIPT}{}</script>\n</body>\n</html>\n",
        page.footer, page.script
    );
    s
}

fn render_section(s: &mut String, section: &Section) {
    // A body that is already a `<section>` (the scorecard fragment) only
    // needs its id; anything else is framed with its title.
    if let Some(rest) = section
        .body
        .strip_prefix("<section")
        .filter(|_| section.framed)
    {
        let _ = write!(s, "<section id=\"{}\"{rest}", section.id);
        if !rest.ends_with('\n') {
            s.push('\n');
        }
        return;
    }
    let _ = write!(
        s,
        "<section id=\"{}\">\n<h2>{}</h2>\n{}",
        section.id,
        escape::html(&section.title),
        section.body
    );
    if !section.body.ends_with('\n') {
        s.push('\n');
    }
    s.push_str("</section>\n");
}

/// Sorts `table.sortable` by the clicked header: numeric cells by their
/// `data-v` (largest first on the first click), others by text. Optional:
/// the page reads the same without it.
const SORT_SCRIPT: &str = r#"document.querySelectorAll("table.sortable thead th").forEach(function (th) {
  th.addEventListener("click", function () {
    var i = th.cellIndex, body = th.closest("table").tBodies[0];
    // Numbers sort largest first on the first click, names A to Z.
    var first = body.rows[0] && body.rows[0].cells[i];
    var numeric = first !== undefined && first.dataset.v !== undefined;
    var current = th.getAttribute("aria-sort");
    var asc = current ? current !== "ascending" : !numeric;
    th.parentNode.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    Array.prototype.slice.call(body.rows).sort(function (a, b) {
      var x = a.cells[i], y = b.cells[i];
      var d = x.dataset.v !== undefined ? x.dataset.v - y.dataset.v : x.textContent.localeCompare(y.textContent);
      return asc ? d : -d;
    }).forEach(function (row) { body.appendChild(row); });
  });
});
"#;

/// The page's stylesheet: system fonts, light scheme with a dark variant.
/// Chart rules use class selectors so an inlined flamegraph's own `text`
/// rule cannot restyle them.
const CSS: &str = r#":root {
  --fg: #1f2328; --muted: #59636e; --bg: #ffffff; --panel: #f6f8fa; --border: #d1d9e0;
  --accent: #0969da; --bar: #4e79a7; --bad: #cf222e;
  --warn-bg: #fff8c5; --warn-border: #d4a72c; --warn-fg: #3b2300;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --panel: #151b23; --border: #3d444d;
    --accent: #4493f8; --bar: #6d9bd1; --bad: #f85149;
    --warn-bg: #2e2511; --warn-border: #bb8009; --warn-fg: #f2d58a;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
.page { max-width: 1200px; margin: 0 auto; padding: 24px 20px 40px; }
h1 { font-size: 26px; margin: 0 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 19px; margin: 0 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--border); }
h3 { font-size: 15px; margin: 20px 0 8px; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--panel); padding: 1px 4px; border-radius: 4px; }
.meta, .note, figcaption, footer { color: var(--muted); }
.meta { margin: 0; }
.note { margin: 4px 0 8px; }
.badge {
  display: inline-block; padding: 2px 10px; border-radius: 12px; font-weight: 600;
  background: var(--warn-bg); color: var(--warn-fg); border: 1px solid var(--warn-border);
}
nav.toc ol {
  list-style: none; display: flex; flex-wrap: wrap; gap: 4px 18px; margin: 16px 0 28px;
  padding: 10px 14px; background: var(--panel); border: 1px solid var(--border); border-radius: 6px;
}
section { margin: 0 0 36px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 8px 0; }
th, td { padding: 4px 10px; text-align: left; vertical-align: top; border-bottom: 1px solid var(--border); }
th { font-weight: 600; white-space: nowrap; }
thead th { background: var(--panel); }
tbody tr:nth-child(even) { background: var(--panel); }
tfoot th, tfoot td { border-top: 2px solid var(--border); font-weight: 600; }
.num { text-align: right; white-space: nowrap; }
table.data { width: 100%; }
table.facts th { color: var(--muted); font-weight: 500; }
table.facts tbody tr:nth-child(even) { background: none; }
table.sortable thead th { cursor: pointer; }
table.sortable th[aria-sort="ascending"]::after { content: " ▲"; }
table.sortable th[aria-sort="descending"]::after { content: " ▼"; }
.bar-cell { width: 28%; min-width: 80px; }
.bar { display: block; height: 10px; margin-top: 5px; background: var(--bar); border-radius: 2px; }
.alert {
  margin: 0 0 16px; padding: 10px 14px; border: 1px solid var(--warn-border); border-left-width: 6px;
  border-radius: 6px; background: var(--warn-bg); color: var(--warn-fg);
}
.alert-title { margin: 0 0 4px; font-weight: 700; }
.alert ul { margin: 0; padding-left: 20px; }
.scroll, .flamegraph { overflow-x: auto; }
figure { margin: 8px 0 16px; }
figcaption { font-size: 12px; }
svg.chart { display: block; max-width: 100%; height: auto; }
.chart text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 11px; fill: var(--fg); }
.chart .value { font-size: 10px; }
.chart.dense text { font-size: 9px; }
.chart .tick, .chart .axis-label { fill: var(--muted); }
.chart .grid { stroke: var(--border); stroke-width: 1; }
.chart .axis { stroke: var(--muted); stroke-width: 1; }
.flamegraph svg { max-width: 100%; height: auto; }
.links { margin: 8px 0 0; padding: 8px 12px; background: var(--panel); border: 1px solid var(--border); border-radius: 6px; }
a.term { color: inherit; text-decoration: underline dotted var(--muted); }
th[title] { text-decoration: underline dotted var(--muted); text-underline-offset: 3px; }
tbody th { font-weight: 500; white-space: nowrap; }
table.bricks { font-size: 13px; }
table.bricks th, table.bricks td { padding: 4px 8px; }
table.bricks th.name { position: sticky; left: 0; z-index: 1; background: var(--bg); box-shadow: 1px 0 0 var(--border); }
table.bricks thead th.name { background: var(--panel); z-index: 2; }
table.bricks tbody tr:nth-child(even) th.name { background: var(--panel); }
.chart-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(460px, 1fr)); gap: 4px 24px; }
.line-chart text { font-size: 13px; }
.line-chart .left-out-label { fill: var(--muted); font-size: 12px; }
.line-chart .line { fill: none; stroke: var(--accent); stroke-width: 1.5; stroke-linejoin: round; }
.line-chart .line.envelope { fill: var(--accent); fill-opacity: 0.35; stroke-width: 0.8; }
.line-chart .line.dot, .line-chart .pt { fill: var(--accent); stroke: none; }
.line-chart .spike { fill: var(--bad); stroke: var(--bg); stroke-width: 0.6; }
.line-chart .band { fill: var(--accent); fill-opacity: 0.13; }
.line-chart .left-out { fill: var(--muted); fill-opacity: 0.2; }
.line-chart line.ref { stroke: var(--fg); stroke-width: 1; stroke-dasharray: 5 4; }
.line-chart line.ref.edge { stroke: var(--muted); stroke-dasharray: 2 3; }
.line-chart text.ref { fill: var(--muted); }
.latency-chart text { font-size: 12px; }
.latency-chart .numbers, .latency-chart .legend { font-size: 11px; }
.latency-chart .bin { fill: var(--bar); }
.latency-chart .grid.minor { opacity: 0.45; }
.latency-chart .mark.p50 { fill: var(--fg); }
.latency-chart .mark.p90 { fill: #e8871e; }
.latency-chart .mark.p99 { fill: var(--bad); }
.latency-chart .mark.max { fill: var(--muted); }
.latency-chart .numbers, .latency-chart .legend { fill: var(--muted); }
.latency-chart .brick-row:hover .name { font-weight: 600; }
dl.glossary { margin: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(440px, 1fr)); gap: 10px 32px; }
dl.glossary dt { font-weight: 600; }
dl.glossary dd { margin: 2px 0 0; }
dl.glossary dt:target, dl.glossary dt:target + dd { background: var(--warn-bg); }
@media (max-width: 760px) {
  .page { padding: 16px 10px 32px; }
  th, td, table.bricks th, table.bricks td { padding: 4px 6px; }
  .chart-grid, dl.glossary { grid-template-columns: 1fr; }
  table.bricks .opt { display: none; }
  nav.toc ol { gap: 2px 12px; }
}
.training-scorecard .non-finite, .training-scorecard li.critical { color: var(--bad); }
footer { margin-top: 24px; padding-top: 10px; border-top: 1px solid var(--border); font-size: 12px; }
@media print { nav.toc { display: none; } section { break-inside: avoid-page; } }
"#;
