//! Parity and roofline outputs with hostile op, brick, runtime and device
//! names: Markdown, terminal text, SVG, HTML and JSON, each read back by
//! the parser of its format.

use profiler_core::hardware::{Figure, Hardware, MemoryLevel, Precision, Source};
use profiler_core::{BrickCategory, BrickStats, Profile};
use profiler_report::HtmlReport;
use profiler_report::parity::{ParityComparison, compute_parity_comparison, parity_section};
use profiler_report::roofline::{BrickRoofline, roofline_section};
use profiler_report::run::{OpSummary, RunSummary};

use super::{hostile, json, markdown_tables, shown, xml};

/// Ours and a baseline timing every hostile op (distinct ratios, so the
/// order is fixed), each side with a hostile runtime name and note, and
/// one hostile op only we timed.
fn parity() -> ParityComparison {
    let names = hostile();
    // ms per step, as a parity file gives them.
    let op = |name: &str, ms: f64| OpSummary::total(name, (ms * 1e6).round() as u64);
    let ops = |scale: f64| -> Vec<OpSummary> {
        names
            .iter()
            .enumerate()
            .map(|(i, n)| op(n, (i + 1) as f64 * scale))
            .collect()
    };
    let mut ours_ops = ops(1.0);
    ours_ops.push(op("only ours\u{202e}|\n<b>", 1.0));
    let ours = RunSummary {
        name: "<script>ours</script>\u{2066}|x\n".into(),
        tokens_per_s: Some(50.0),
        launches_per_step: Some(40),
        ops: ours_ops,
        notes: vec!["note \x1b[31m\u{202e}|\n# heading".into()],
        ..Default::default()
    };
    let base = RunSummary {
        name: "\x1b[2Jbase\u{200f}".into(),
        tokens_per_s: Some(100.0),
        launches_per_step: Some(20),
        ops: names
            .iter()
            .enumerate()
            .map(|(i, n)| op(n, (i * i + 1) as f64))
            .collect(),
        ..Default::default()
    };
    compute_parity_comparison(&ours, &base)
}

/// A profile whose every hostile name is an annotated brick, placed on a
/// device with a hostile name.
fn roofline() -> BrickRoofline {
    let mut p = Profile::empty();
    p.bricks = hostile()
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let mut b = BrickStats::new(name, BrickCategory::Other);
            b.count = 1 + i as u64;
            b.total_flops = 1_000_000 * (1 + i as u64);
            b.total_bytes = 100_000 * (1 + (i as u64 * 7) % 13);
            b.total_ns = 1_000_000;
            b
        })
        .collect();
    let mut device = Hardware::new("<gpu>\u{202e}|\n\x1b[31m");
    device
        .set_compute(Precision::Fp32, Figure::new(0.2, Source::Given))
        .expect("a valid peak");
    device
        .set_memory(MemoryLevel::Dram, Figure::new(20.0, Source::Given))
        .expect("a valid bandwidth");
    BrickRoofline::from_profile(&p, &device, None, None).expect("the roofline")
}

/// Terminal text: no control character but line breaks, no bidi control.
fn assert_terminal_safe(text: &str) {
    let bad = |c: char| {
        (c.is_control() && c != '\n')
            || matches!(u32::from(c), 0x200e | 0x200f | 0x202a..=0x202e | 0x2066..=0x2069)
    };
    assert!(!text.chars().any(bad), "unsafe character in:\n{text}");
}

/// An SVG of ours: well-formed XML without any script; its `<title>` texts.
fn svg_titles(svg: &str) -> Vec<String> {
    let doc = xml(svg).unwrap_or_else(|e| panic!("invalid SVG: {e}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    assert!(!doc.descendants().any(|n| n.has_tag_name("script")));
    doc.descendants()
        .filter(|n| n.has_tag_name("title"))
        .filter_map(|n| n.text().map(str::to_owned))
        .collect()
}

/// A report page with `section`: parses without errors, has only the sort
/// script; the texts of its table cells.
fn page_cells(section: profiler_report::html::Section) -> Vec<String> {
    let p = Profile::empty();
    let html = HtmlReport::new(&p).section(section).render();
    let doc = scraper::Html::parse_document(&html);
    assert!(doc.errors.is_empty(), "HTML parse errors: {:?}", doc.errors);
    let script = scraper::Selector::parse("script").expect("selector");
    assert!(doc.select(&script).count() <= 1, "only the sort script");
    let cell = scraper::Selector::parse("td").expect("selector");
    doc.select(&cell).map(|c| c.text().collect()).collect()
}

#[test]
fn parity_markdown_keeps_its_table_and_lists_and_passes_no_html() {
    let c = parity();
    assert_eq!(c.all_gaps.len(), hostile().len());
    let md = c.to_markdown();
    let tables = markdown_tables(&md);
    assert_eq!(tables.len(), 1, "{md}");
    let ops: Vec<&str> = tables[0][1..].iter().map(|r| r[0].as_str()).collect();
    let expected: Vec<String> = c.gaps.iter().map(|g| shown(&g.op)).collect();
    assert_eq!(ops, expected);
    // The runtime names stay in the one heading; the op only we timed and
    // the note read back as written.
    assert_eq!(md.lines().filter(|l| l.starts_with('#')).count(), 4, "{md}");
    let text: String = pulldown_cmark::Parser::new(&md)
        .filter_map(|e| match e {
            pulldown_cmark::Event::Text(t) => Some(t.into_string()),
            _ => None,
        })
        .collect();
    for name in [
        "<script>ours</script>\u{2066}|x\n",
        "only ours\u{202e}|\n<b>",
        "note \x1b[31m\u{202e}|\n# heading",
    ] {
        assert!(text.contains(&shown(name)), "{name:?} not shown in\n{md}");
    }
}

#[test]
fn parity_terminal_view_has_one_line_per_gap_and_no_controls() {
    let c = parity();
    let text = c.to_string();
    assert_terminal_safe(&text);
    // Three bullets and the heading, the column header, the gaps, the notes.
    assert_eq!(
        text.lines().count(),
        5 + c.all_gaps.len() + c.notes.len(),
        "{text}"
    );
}

#[test]
fn parity_svg_html_and_json_keep_every_op() {
    let c = parity();
    let titles = svg_titles(&c.to_svg());
    for g in &c.gaps {
        assert!(
            titles.iter().any(|t| t.contains(&shown(&g.op))),
            "no SVG title shows {:?}",
            g.op
        );
    }
    let cells = page_cells(parity_section(&c));
    for g in &c.all_gaps {
        assert!(
            cells.contains(&shown(&g.op)),
            "no HTML cell shows {:?} as {:?}",
            g.op,
            shown(&g.op)
        );
    }
    let back = json(&c.to_json(), "parity JSON");
    let ops: Vec<&str> = back["all_gaps"]
        .as_array()
        .expect("all_gaps")
        .iter()
        .filter_map(|g| g["op"].as_str())
        .collect();
    let exact: Vec<&str> = c.all_gaps.iter().map(|g| g.op.as_str()).collect();
    assert_eq!(ops, exact);
}

#[test]
fn roofline_markdown_and_terminal_keep_one_row_per_brick() {
    let r = roofline();
    assert_eq!(r.points.len(), hostile().len());
    let md = r.to_markdown();
    let tables = markdown_tables(&md);
    assert_eq!(tables.len(), 1, "{md}");
    let bricks: Vec<&str> = tables[0][1..].iter().map(|row| row[0].as_str()).collect();
    let expected: Vec<String> = r.points.iter().map(|p| shown(&p.name)).collect();
    assert_eq!(bricks, expected);
    assert_eq!(md.lines().filter(|l| l.starts_with("## ")).count(), 1);

    let text = r.to_string();
    assert_terminal_safe(&text);
    // The summary, the ceilings, the column header, the points, the notes.
    assert_eq!(
        text.lines().count(),
        3 + r.points.len() + r.notes.len(),
        "{text}"
    );
}

#[test]
fn roofline_svg_html_and_json_keep_every_brick() {
    let r = roofline();
    let svg = r.to_svg();
    let titles = svg_titles(&svg);
    let doc = xml(&svg).expect("valid SVG");
    let labels: Vec<&str> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("label"))
        .filter_map(|n| n.text())
        .collect();
    for p in &r.points {
        let name = shown(&p.name);
        assert!(labels.contains(&name.as_str()), "no label {name:?}");
        assert!(
            titles.iter().any(|t| t.starts_with(&name)),
            "no title {name:?}"
        );
    }
    let cells = page_cells(roofline_section(&r));
    for p in &r.points {
        assert!(cells.contains(&shown(&p.name)), "no HTML cell {:?}", p.name);
    }
    let back = json(&r.to_json(), "roofline JSON");
    let names: Vec<&str> = back["points"]
        .as_array()
        .expect("points")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    let exact: Vec<&str> = r.points.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, exact);
}
