//! Every output of brick-profiler-report stays well-formed for any name: hostile
//! brick, phase, layer-op, trace-op, device, thread and run names go through
//! every format, and each output is read back by a real parser of that
//! format (serde_json, roxmltree, html5ever via scraper, pulldown-cmark and
//! inferno's own folded-stack reader). Parity and roofline outputs are in
//! `hostile_names/analyses.rs`.

use std::collections::BTreeMap;

use profiler_core::{Profile, trace::Timeline};
use profiler_report::export::{merge_ranks, write_perfetto_trace_to};
use profiler_report::{
    HtmlReport, chrome_trace_json, flamegraph_svg, folded_stacks,
    scorecard::{ScorecardBuilder, TrainingScorecard},
    speedscope_json, trace,
};
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use serde_json::Value;

/// The names and the run that carries them.
#[path = "hostile_names/fixture.rs"]
mod fixture;
use fixture::{hostile, profile};

/// Parity and roofline outputs, read back the same way.
#[path = "hostile_names/analyses.rs"]
mod analyses;

/// How terminal, Markdown and HTML show a name: `(unnamed)` when blank,
/// control, bidi and non-characters as visible escapes, the rest as is.
fn shown(name: &str) -> String {
    if name.trim().is_empty() {
        return "(unnamed)".to_owned();
    }
    let mut out = String::new();
    for c in name.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if (0x80..0xa0).contains(&(c as u32))
                || matches!(c as u32, 0x061c | 0x200e | 0x200f | 0x2028 | 0x2029)
                || (0x202a..=0x202e).contains(&(c as u32))
                || (0x2066..=0x2069).contains(&(c as u32))
                || (c as u32) & 0xfffe == 0xfffe =>
            {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

fn scorecard(p: &Profile) -> TrainingScorecard {
    let mut sc = ScorecardBuilder::from_profile(p)
        .thresholds(profiler_report::scorecard::Thresholds {
            hotspot_count: 100,
            ..Default::default()
        })
        .build()
        .expect("default thresholds are valid");
    // Names reach the free-text fields too.
    sc.recommendations
        .push(format!("look at `{}`", hostile()[4]));
    sc.regressions.push(profiler_report::scorecard::Regression {
        metric: "step_time_ms\n| x |".into(),
        delta: 0.5,
        severity: profiler_report::scorecard::Severity::Critical,
        detail: Some("<script>alert(1)</script>\x1b[0m".into()),
        baseline: Some(10.0),
        current: Some(15.0),
    });
    // And the alerts shown above everything.
    sc.alerts.push(format!(
        "baseline differs: ops only in this run: {}",
        hostile()[4]
    ));
    sc
}

// ---------------------------------------------------------------- JSON

fn json(text: &str, what: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{what} is not JSON: {e}"))
}

#[test]
fn json_outputs_parse_and_keep_every_name_exactly() {
    let p = profile();
    let chrome = json(&chrome_trace_json(&p), "Chrome trace");
    let event_names: Vec<&str> = chrome["traceEvents"]
        .as_array()
        .expect("traceEvents")
        .iter()
        .filter(|e| e["ph"] == "X")
        .filter_map(|e| e["name"].as_str())
        .collect();
    for name in hostile() {
        assert!(
            event_names.contains(&name.as_str()),
            "Chrome trace lost {name:?}"
        );
    }
    json(
        &merge_ranks(&[p.clone(), p.clone()]).chrome_json,
        "merged trace",
    );

    let speedscope = json(&speedscope_json(&p), "speedscope");
    let frames: Vec<&str> = speedscope["shared"]["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .filter_map(|f| f["name"].as_str())
        .collect();
    for name in hostile() {
        assert!(frames.contains(&name.as_str()), "speedscope lost {name:?}");
    }

    let sc = scorecard(&p);
    let text = sc.to_json();
    json(&text, "scorecard JSON");
    assert_eq!(TrainingScorecard::from_json(&text).expect("round trip"), sc);
}

/// A protobuf string field: key (field 2, length-delimited), varint length,
/// the bytes.
fn proto_string(name: &str) -> Vec<u8> {
    let mut out = vec![0x12];
    let mut len = name.len();
    while len >= 0x80 {
        out.push((len as u8 & 0x7f) | 0x80);
        len >>= 7;
    }
    out.push(len as u8);
    out.extend_from_slice(name.as_bytes());
    out
}

/// A varint at `at`, and where it ends.
fn varint(bytes: &[u8], mut at: usize) -> (usize, usize) {
    let (mut value, mut shift) = (0usize, 0);
    loop {
        let b = bytes[at];
        value |= usize::from(b & 0x7f) << shift;
        at += 1;
        if b < 0x80 {
            return (value, at);
        }
        shift += 7;
    }
}

/// The packets of a Perfetto trace, inflated: each `Trace.packet` (field 1)
/// holds one `compressed_packets` (field 50), zlib of more packets.
fn inflated_packets(bytes: &[u8]) -> Vec<u8> {
    use std::io::Read as _;
    let (mut at, mut out) = (0, Vec::new());
    while at < bytes.len() {
        assert_eq!(bytes[at], 0x0a, "Trace.packet at {at}");
        let (len, start) = varint(bytes, at + 1);
        let packet = &bytes[start..start + len];
        assert_eq!(packet[..2], [0x92, 0x03], "compressed_packets");
        let (zlen, zstart) = varint(packet, 2);
        flate2::read::ZlibDecoder::new(&packet[zstart..zstart + zlen])
            .read_to_end(&mut out)
            .expect("zlib");
        at = start + len;
    }
    out
}

#[test]
fn perfetto_trace_keeps_every_name_byte_for_byte() {
    let mut bytes = Vec::new();
    let written = write_perfetto_trace_to(&profile(), &mut bytes).expect("in memory");
    assert!(
        written.events > 0 && written.warnings.is_empty(),
        "{written:?}"
    );
    let packets = inflated_packets(&bytes);
    // Each name is interned as `EventName.name` (field 2): its bytes
    // unchanged (Perfetto's strings are raw UTF-8, no escaping).
    for name in hostile() {
        let field = proto_string(&name);
        let found = packets.windows(field.len()).any(|w| w == field.as_slice());
        assert!(found, "pftrace lost {name:?}");
    }
    // Perfetto's own schema reads it in `integration/tests/perfetto.rs`.
}

// ---------------------------------------------------------------- folded

/// Parses XML as a browser would: inferno's SVGs carry a DOCTYPE.
fn xml(text: &str) -> Result<roxmltree::Document<'_>, roxmltree::Error> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    roxmltree::Document::parse_with_options(text, options)
}

/// Frames and count of a folded line as inferno reads it: the line alone
/// is drawn by `inferno::flamegraph::from_lines`, the SVG parsed, and each
/// frame's `<title>` (`name (N µs, P%)`) read back, outermost first.
fn inferno_reads(line: &str) -> (Vec<String>, u64) {
    let mut options = inferno::flamegraph::Options::default();
    options.count_name = "µs".into();
    options.min_width = 0.0;
    let mut svg = Vec::new();
    inferno::flamegraph::from_lines(&mut options, [line], &mut svg)
        .unwrap_or_else(|e| panic!("inferno refused {line:?}: {e}"));
    let svg = String::from_utf8(svg).expect("UTF-8 SVG");
    let doc = xml(&svg).unwrap_or_else(|e| panic!("{e}: {line:?}"));
    let mut frames: Vec<(f64, String)> = Vec::new();
    let mut total = 0;
    for g in doc.descendants().filter(|n| n.has_tag_name("g")) {
        let Some(title) = g.children().find(|n| n.has_tag_name("title")) else {
            continue;
        };
        let title = title.text().unwrap_or_default();
        let (name, stats) = title.rsplit_once(" (").expect("`name (stats)`");
        assert!(
            !stats.contains(';'),
            "inferno read {line:?} as a differential profile: {title}"
        );
        let count: u64 = stats
            .split(' ')
            .next()
            .expect("a count")
            .replace(',', "")
            .parse()
            .expect("a number");
        let rect = g.children().find(|n| n.has_tag_name("rect")).expect("rect");
        let y: f64 = rect.attribute("y").expect("y").parse().expect("number");
        if name == "all" {
            total = count;
        } else {
            frames.push((-y, name.to_owned()));
        }
    }
    frames.sort_by(|a, b| a.0.total_cmp(&b.0));
    (frames.into_iter().map(|(_, n)| n).collect(), total)
}

/// Checks that inferno reads each line with the frames and count written.
fn assert_folded_reads_back(folded: &str) -> Vec<usize> {
    let mut depths = Vec::new();
    for line in folded.lines() {
        let (stack, count) = line.rsplit_once(' ').expect("`stack count`");
        let written: Vec<&str> = stack.split(';').collect();
        assert!(
            written.iter().all(|f| !f.is_empty() && f.trim() == *f),
            "empty or padded frame in {line:?}"
        );
        let (frames, total) = inferno_reads(line);
        assert_eq!(frames, written, "frames of {line:?}");
        assert_eq!(total.to_string(), count, "count of {line:?}");
        depths.push(written.len());
    }
    depths
}

#[test]
fn folded_stacks_read_back_frame_for_frame() {
    let p = profile();
    let folded = folded_stacks(&p);
    let depths = assert_folded_reads_back(&folded);
    // One step line, then per name a phase line and a brick line below it;
    // distinct names stay distinct frames.
    let n = hostile().len();
    let mut by_depth: BTreeMap<usize, usize> = BTreeMap::new();
    for d in depths {
        *by_depth.entry(d).or_default() += 1;
    }
    assert_eq!(by_depth, BTreeMap::from([(1, 1), (2, n - 1), (3, n - 1)]));

    let no_timeline = Profile {
        timeline: Timeline::default(),
        ..p.clone()
    };
    let depths = assert_folded_reads_back(&folded_stacks(&no_timeline));
    assert_eq!(depths, vec![1; n - 1]);

    let collapsed = trace::flamegraph_collapsed(&p.trace);
    let depths = assert_folded_reads_back(&collapsed);
    assert_eq!(depths, vec![3; n - 1]);
}

// ---------------------------------------------------------------- SVG

fn assert_valid_svg(svg: &str) -> roxmltree::Document<'_> {
    let doc = xml(svg).unwrap_or_else(|e| panic!("invalid SVG: {e}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let scripts = doc
        .descendants()
        .filter(|n| n.has_tag_name("script"))
        .count();
    assert_eq!(scripts, 1, "only inferno's own script");
    doc
}

#[test]
fn flamegraph_svgs_are_valid_xml() {
    let p = profile();
    for (folded, what) in [
        (folded_stacks(&p), "folded stacks"),
        (trace::flamegraph_collapsed(&p.trace), "collapsed"),
    ] {
        let svg = flamegraph_svg(&folded, "<title>\0\x1b[31m").expect(what);
        let doc = assert_valid_svg(&svg);
        let titles: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("title"))
            .filter_map(|n| n.text())
            .collect();
        assert!(
            titles.iter().any(|t| t.starts_with("<script>")),
            "{what}: the script name is a frame"
        );
    }
}

#[test]
fn the_xml_check_rejects_what_browsers_reject() {
    assert!(xml("<svg><text>a\0b</text></svg>").is_err());
    assert!(xml("<svg><text>a\x1bb</text></svg>").is_err());
    assert!(xml("<svg><text>a&#x1b;b</text></svg>").is_err());
    assert!(xml("<svg><text>a\u{fffe}b</text></svg>").is_err());
    assert!(xml("<svg><text>a\tb\u{202e}c</text></svg>").is_ok());
}

// ---------------------------------------------------------------- HTML

#[test]
fn html_report_parses_without_errors_and_shows_every_name_escaped() {
    let p = profile();
    let sc = scorecard(&p);
    let svg = flamegraph_svg(&folded_stacks(&p), "flame").expect("svg");
    let html = HtmlReport::new(&p)
        .title("<script>alert(1)</script>\n")
        .scorecard(&sc)
        .flamegraph_svg(svg)
        .render();
    let doc = scraper::Html::parse_document(&html);
    assert!(doc.errors.is_empty(), "HTML parse errors: {:?}", doc.errors);
    let script = scraper::Selector::parse("script").expect("selector");
    assert_eq!(doc.select(&script).count(), 1, "only the sort script");
    assert!(!html.contains("<script>alert"));
    let cell = scraper::Selector::parse("td").expect("selector");
    let cells: Vec<String> = doc.select(&cell).map(|c| c.text().collect()).collect();
    for name in hostile() {
        assert!(
            cells.contains(&shown(&name)),
            "no table cell shows {:?} as {:?}",
            name,
            shown(&name)
        );
    }
}

#[test]
fn scorecard_html_fragment_parses_without_errors() {
    let sc = scorecard(&profile());
    let doc = scraper::Html::parse_fragment(&sc.to_html());
    assert!(doc.errors.is_empty(), "{:?}", doc.errors);
    let script = scraper::Selector::parse("script").expect("selector");
    assert_eq!(doc.select(&script).count(), 0);
}

// ---------------------------------------------------------------- Markdown

/// The tables of a Markdown document as pulldown-cmark reads them: rows of
/// cell texts, the header row first. Raw HTML anywhere fails the test.
fn markdown_tables(md: &str) -> Vec<Vec<Vec<String>>> {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    let (mut row, mut cell) = (Vec::<String>::new(), None::<String>);
    let mut tables: Vec<Vec<Vec<String>>> = Vec::new();
    for event in Parser::new_ext(md, options) {
        match event {
            Event::Html(h) | Event::InlineHtml(h) => panic!("raw HTML in Markdown: {h:?}"),
            Event::Start(Tag::Table(_)) => tables.push(Vec::new()),
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => row.push(cell.take().unwrap_or_default()),
            Event::End(TagEnd::TableHead | TagEnd::TableRow) => {
                tables
                    .last_mut()
                    .expect("a table")
                    .push(std::mem::take(&mut row));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(c) = cell.as_mut() {
                    c.push_str(&t);
                }
            }
            _ => {}
        }
    }
    for table in &tables {
        for r in table {
            assert_eq!(r.len(), table[0].len(), "row {r:?} of\n{md}");
        }
    }
    tables
}

#[test]
fn markdown_tables_keep_their_shape_and_pass_no_html() {
    let sc = scorecard(&profile());
    let md = sc.to_markdown();
    let tables = markdown_tables(&md);
    assert_eq!(tables.len(), 2, "metrics and hotspots:\n{md}");
    let hotspots: Vec<&str> = tables[1][1..].iter().map(|r| r[0].as_str()).collect();
    for name in hostile() {
        assert!(
            hotspots.contains(&shown(&name).as_str()),
            "hotspot {:?} shown as {:?}; cells {hotspots:?}",
            name,
            shown(&name)
        );
    }
}

// ---------------------------------------------------------------- terminal

#[test]
fn terminal_scorecard_has_no_control_characters_and_aligned_columns() {
    let text = scorecard(&profile()).to_string();
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "control characters in:\n{text}"
    );
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| *l == "Hotspot operations")
        .expect("hotspot table");
    let rows: Vec<&str> = lines[start + 1..]
        .iter()
        .take_while(|l| !l.is_empty())
        .copied()
        .collect();
    assert_eq!(rows.len(), hostile().len() + 1, "header and one row per op");
    // The share column ends at one character column in every row.
    let ends: Vec<usize> = rows.iter().map(|r| r.chars().count()).collect();
    assert!(ends.iter().all(|&e| e == ends[0]), "{rows:#?}");
    for name in hostile() {
        assert!(
            rows.iter().any(|r| r.contains(&shown(&name))),
            "{name:?} not shown as {:?}",
            shown(&name)
        );
    }
}
