//! The HTML report: section order and table of contents, escaping, warnings,
//! the layer chart, number formatting, extension sections, the inlined
//! flamegraph, atomic writes and a golden page. Rewrite the golden file with
//! `UPDATE_GOLDEN=1 cargo test -p brick-profiler-report --test html` and review
//! the diff (open it in a browser too).

use profiler_core::{
    BrickCategory, BrickStats, Direction, Profile, Schedule,
    profile::{ClockSource, LayerOp, LayerStats, Overhead, PhaseStats},
    stats::{HistBucket, LatencyHistogram},
    sync::SyncMode,
    trace::{CounterSample, CounterTrack},
};
use profiler_report::html::Section;
use profiler_report::{
    ExportError, HtmlReport, flamegraph_svg, folded_stacks,
    scorecard::{ScorecardBuilder, TrainingScorecard},
    write_html_report,
};

// ---------------------------------------------------------------- fixtures

const DANGEROUS: &str = r#"<script>alert("x")</script>&"#;

/// A brick whose samples all fall in `buckets` (`(lo ns, hi ns, count)`).
fn brick(
    name: &str,
    category: BrickCategory,
    total_ns: u64,
    (min_ns, max_ns): (u64, u64),
    buckets: &[(u64, u64, u64)],
) -> BrickStats {
    let mut b = BrickStats::new(name, category);
    b.count = buckets.iter().map(|x| x.2).sum();
    b.total_ns = total_ns;
    b.min_ns = min_ns;
    b.max_ns = max_ns;
    b.latency = LatencyHistogram {
        buckets: buckets
            .iter()
            .map(|&(lo_ns, hi_ns, count)| HistBucket {
                lo_ns,
                hi_ns,
                count,
            })
            .collect(),
    };
    b
}

fn layer(index: u32, direction: Direction, scope_ms: f64, ops: &[(&str, f64)]) -> LayerStats {
    let ns = |ms: f64| (ms * 1e6).round() as u64;
    LayerStats {
        index,
        direction,
        scope_count: 4,
        scope_ns: ns(scope_ms),
        ops: ops
            .iter()
            .map(|&(name, ms)| LayerOp {
                name: name.to_owned(),
                count: 4,
                total_ns: ns(ms),
            })
            .collect(),
    }
}

fn phase(name: &str, count: u64, total_ms: u64) -> PhaseStats {
    PhaseStats {
        name: name.to_owned(),
        count,
        total_ns: total_ms * 1_000_000,
        min_ns: 0,
        max_ns: 0,
        in_steps_ns: total_ms * 1_000_000,
        latency: Default::default(),
    }
}

/// A small, fixed training run: four bricks with samples (one with a name
/// full of markup, one calling another), one never called and one whose
/// samples took 0 ns; three layers forward and backward; four steps after
/// the schedule's wait and warm-up, with their tokens, and four phases (one
/// never entered, one with quotes in its name); a counter; dropped deferred
/// records and two run notes.
fn profile() -> Profile {
    use BrickCategory::{Attention, Ffn, Norm, Other};
    let mut p = Profile::empty();
    let run = &mut p.run;
    run.name = "train_tiny".into();
    run.host = "gpu-box-01".into();
    run.pid = 4242;
    run.started_at_unix_ns = 1_700_000_000_000_000_000;
    run.wall_ns = 2_500_000_000;
    run.threads_seen = 2;
    run.clock.source = ClockSource::Tsc;
    run.clock.ns_per_tick = 0.357_142;
    run.sync_mode = SyncMode::Deferred;
    run.device_timer = true;
    run.overhead = Some(Overhead {
        per_call_ns: 12.5,
        floor_ns: 8.25,
        subtracted: true,
    });
    run.notes = vec![
        "overhead floor subtracted from every sample".into(),
        "logger <stderr> & file".into(),
    ];

    let mut matmul = brick(
        "MatMul",
        Ffn,
        60_000_000,
        (40_000, 120_000),
        &[
            (40_000, 48_000, 600),
            (48_000, 56_000, 588),
            (112_000, 128_000, 12),
        ],
    );
    matmul.total_elements = 9_830_400;
    matmul.total_bytes = 3_000_000_000;
    matmul.total_flops = 600_000_000_000;
    let mut attention = brick(
        "Attention",
        Attention,
        30_000_000,
        (45_000, 60_000),
        &[(49_152, 53_248, 600)],
    );
    attention.total_elements = 4_915_200;
    // Attention calls RmsNorm: 6 ms of its 30 ms are the norm's.
    attention.child_ns = 6_000_000;
    let mut norm = brick(
        "RmsNorm",
        Norm,
        6_000_000,
        (2_000, 4_000),
        &[(2_048, 3_072, 2_400)],
    );
    norm.total_elements = 9_830_400;
    norm.total_bytes = 1_200_000_000;
    let dangerous = brick(
        DANGEROUS,
        Other,
        900_000,
        (280_000, 320_000),
        &[(262_144, 327_680, 3)],
    );
    let idle = BrickStats::new("Idle", Other);
    let spin = brick("Spin", Other, 0, (0, 0), &[(0, 1, 5)]);
    p.bricks = vec![matmul, attention, norm, dangerous, spin, idle];

    let ops = |mm: f64, at: f64| [("MatMul", mm), ("Attention", at)];
    p.layers = vec![
        layer(0, Direction::Forward, 4.0, &ops(3.0, 0.8)),
        layer(0, Direction::Backward, 8.0, &ops(6.0, 1.5)),
        layer(1, Direction::Forward, 4.4, &ops(3.2, 1.0)),
        layer(1, Direction::Backward, 9.0, &ops(6.4, 2.2)),
        layer(2, Direction::Forward, 4.8, &ops(1.0, 3.5)),
        layer(2, Direction::Backward, 10.4, &ops(3.0, 5.0)),
    ];

    p.steps.count = 4;
    p.steps.skipped = 2;
    p.steps.tokens = 8_192;
    p.steps.total_ns = 400_000_000;
    p.steps.samples_ns = vec![98_000_000, 100_000_000, 99_000_000, 103_000_000];
    // Steps 0 and 1 were the schedule's wait and warm-up.
    p.steps.samples_index = vec![2, 3, 4, 5];
    p.steps.samples_tokens = vec![2_048; 4];
    p.steps.schedule = Some(Schedule {
        wait: 1,
        warmup: 1,
        active: 4,
        repeat: 1,
    });
    p.phases = vec![
        phase("forward", 4, 150),
        phase("backward", 4, 200),
        phase(r#"opt "quotes""#, 4, 20),
        phase("h2d", 0, 0),
    ];
    p.counters.pending_overflow = 7;
    p.counter_tracks = vec![CounterTrack {
        name: "loss <nats>".into(),
        samples: [4.1, 3.2, 2.9, 2.7]
            .iter()
            .enumerate()
            .map(|(i, &value)| CounterSample {
                t_ns: 500_000_000 + 100_000_000 * i as u64,
                value,
                thread: 0,
            })
            .collect(),
    }];
    p
}

fn scorecard_of(p: &Profile) -> TrainingScorecard {
    ScorecardBuilder::from_profile(p)
        .hardware(laptop_bandwidth())
        .build()
        .expect("scorecard")
}

/// A stand-in for an inferno SVG: prolog, doctype, script and `onload`.
const STUB_SVG: &str = r#"<?xml version="1.0" standalone="no"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg version="1.1" width="300" height="40" onload="init(evt)" viewBox="0 0 300 40" xmlns="http://www.w3.org/2000/svg"><script type="text/ecmascript"><![CDATA[function init(evt) {}]]></script><g><title>MatMul (60,000 µs, 61.92%)</title><rect x="0" y="20" width="186" height="15" fill="rgb(230,120,40)"/></g></svg>"#;

/// The full report of [`profile`] with every optional part.
fn full_report(p: &Profile, sc: &TrainingScorecard) -> String {
    HtmlReport::new(p)
        .scorecard(sc)
        .flamegraph_svg(STUB_SVG)
        .section(Section::new(
            "roofline",
            "Roofline",
            "<p>ceilings go here</p>",
        ))
        .section(Section::new(
            "parity",
            "Parity <vs> PyTorch",
            "<p>later</p>",
        ))
        .render()
}

/// The text of the `<section id="{id}">` element.
fn section<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!("<section id=\"{id}\""))
        .unwrap_or_else(|| panic!("no section {id}"));
    let len = html[start..].find("</section>").expect("section closes");
    &html[start..start + len]
}

/// Checks that every element is closed in order (void elements, `/>`,
/// comments, doctypes and raw `<script>`/`<style>` text excepted).
fn assert_balanced(html: &str) {
    const VOID: [&str; 6] = ["meta", "br", "img", "input", "link", "hr"];
    let mut open: Vec<&str> = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        rest = &rest[i..];
        let skip_to = |rest: &str, end: &str| {
            let j = rest.find(end).unwrap_or_else(|| panic!("`{end}` missing"));
            j + end.len()
        };
        if rest.starts_with("<!--") {
            rest = &rest[skip_to(rest, "-->")..];
            continue;
        }
        if rest.starts_with("<!") || rest.starts_with("<?") {
            rest = &rest[skip_to(rest, ">")..];
            continue;
        }
        let end = rest.find('>').expect("tag closes");
        let tag = &rest[1..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(open.pop(), Some(name.trim()), "closing </{name}>");
            continue;
        }
        let name = tag
            .split(|c: char| c.is_whitespace() || c == '/')
            .next()
            .unwrap_or_default();
        assert!(
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric()),
            "bad tag <{tag}>"
        );
        if tag.ends_with('/') || VOID.contains(&name) {
            continue;
        }
        if name == "script" || name == "style" {
            rest = &rest[skip_to(rest, &format!("</{name}>"))..];
            continue;
        }
        open.push(name);
    }
    assert!(open.is_empty(), "unclosed: {open:?}");
}

/// Words (runs of letters) of `html` that a non-finite float prints as.
fn non_finite_words(html: &str) -> Vec<&str> {
    html.split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| matches!(w.to_ascii_lowercase().as_str(), "nan" | "inf" | "infinity"))
        .collect()
}

// ---------------------------------------------------------------- tests

#[test]
fn sections_appear_in_order_behind_a_table_of_contents() {
    let p = profile();
    let html = full_report(&p, &scorecard_of(&p));
    let ids = [
        "run",
        "scorecard",
        "steps",
        "layers",
        "hotspots",
        "latency",
        "flamegraph",
        "bricks",
        "counters",
        "roofline",
        "parity",
        "glossary",
    ];
    let nav = html.find("<nav class=\"toc\"").expect("table of contents");
    let mut last_link = nav;
    let mut last_section = html.find("</nav>").expect("nav closes");
    for id in ids {
        let link = html
            .find(&format!("<li><a href=\"#{id}\">"))
            .unwrap_or_else(|| panic!("no link to {id}"));
        let sec = html
            .find(&format!("<section id=\"{id}\""))
            .unwrap_or_else(|| panic!("no section {id}"));
        assert!(link > last_link && sec > last_section, "{id} out of order");
        (last_link, last_section) = (link, sec);
    }
    assert_eq!(html.matches("<section id=").count(), ids.len());
    assert_eq!(html.matches("<li><a href=\"#").count(), ids.len());
    // The scorecard fragment is reused, not re-rendered: it just gets the id.
    assert!(html.contains("<section id=\"scorecard\" class=\"training-scorecard\">"));
    assert!(section(&html, "scorecard").contains("<h2>Training Scorecard</h2>"));
    assert!(html.ends_with("</html>\n"));
    assert_balanced(&html);
}

#[test]
fn data_strings_are_escaped() {
    let p = profile();
    let html = full_report(&p, &scorecard_of(&p));
    let escaped = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;";
    assert!(!html.contains("<script>alert"));
    assert!(!html.contains(DANGEROUS));
    // In the bricks table, and the hotspots without a scorecard.
    assert!(section(&html, "bricks").contains(escaped));
    let plain = HtmlReport::new(&p).render();
    assert!(section(&plain, "hotspots").contains(escaped));
    assert!(section(&html, "steps").contains("<td>opt &quot;quotes&quot;</td>"));
    assert!(section(&html, "run").contains("<li>logger &lt;stderr&gt; &amp; file</li>"));
    assert!(html.contains("<li><a href=\"#parity\">Parity &lt;vs&gt; PyTorch</a></li>"));
    assert!(html.contains("<h2>Parity &lt;vs&gt; PyTorch</h2>"));
    // Titles set by the caller are escaped too.
    let titled = HtmlReport::new(&p).title("a <b> & c").render();
    assert!(titled.contains("<h1>a &lt;b&gt; &amp; c</h1>"));
    assert!(titled.contains("<title>a &lt;b&gt; &amp; c · profiler report</title>"));
}

#[test]
fn control_characters_in_names_are_shown_not_sent() {
    let mut p = profile();
    p.bricks[0].name = "nul\0\x1b[31mred\r\n\u{202e}".into();
    p.phases[0].name = "\u{7}bell".into();
    p.run.notes.push("note\u{0}".into());
    let sc = scorecard_of(&p);
    let html = full_report(&p, &sc);
    let banned = |c: char| (c.is_control() && !matches!(c, '\n' | '\t')) || c == '\u{202e}';
    assert!(
        !html.chars().any(banned),
        "raw control characters in the page"
    );
    assert!(!sc.to_html().chars().any(banned));
    assert!(section(&html, "bricks").contains(">nul\\0\\x1b[31mred\\r\\n\\u{202e}</th>"));
    assert!(section(&html, "steps").contains("<td>\\x07bell</td>"));
    assert!(section(&html, "run").contains("<li>note\\0</li>"));
}

#[test]
fn lost_records_and_notes_are_impossible_to_miss() {
    let p = profile();
    let html = HtmlReport::new(&p).render();
    let run = section(&html, "run");
    let alert = run
        .find("<div class=\"alert\" role=\"alert\">")
        .expect("alert box");
    assert!(
        alert < run.find("<table").expect("facts"),
        "alert comes first"
    );
    assert!(run.contains("⚠ 3 warnings: read before trusting the numbers"));
    assert!(run.contains(
        "<li>7 deferred records dropped: pending queue full (raise Config::pending_capacity)</li>"
    ));
    assert!(run.contains("<li>overhead floor subtracted from every sample</li>"));
    assert!(html.contains("<a class=\"badge\" href=\"#run\">⚠ 3 warnings</a>"));

    // The timeline's own drop count is reported even when the counter is 0.
    let mut q = profile();
    q.counters.pending_overflow = 0;
    q.run.notes.clear();
    q.timeline.dropped = 12;
    let html = HtmlReport::new(&q).render();
    assert!(html.contains("<li>12 timeline events dropped"));
    assert!(html.contains("⚠ 1 warning:"));

    q.timeline.dropped = 0;
    let html = HtmlReport::new(&q).render();
    assert!(!html.contains("class=\"alert\"") && !html.contains("class=\"badge\""));
}

#[test]
fn run_facts_are_shown() {
    let p = profile();
    let run = HtmlReport::new(&p).render();
    let run = section(&run, "run");
    for fact in [
        "<th scope=\"row\">Host</th><td>gpu-box-01</td>",
        "<td>2023-11-14T22:13:20Z</td>",
        "<th scope=\"row\">Wall time</th><td>2.5 s</td>",
        "<th scope=\"row\">Threads</th><td>2</td>",
        "<td>TSC, 0.357 ns/tick</td>",
        "<td>deferred, device timer installed</td>",
        "<td>12.50 ns per call, floor 8.250 ns (subtracted from every sample)</td>",
    ] {
        assert!(run.contains(fact), "missing {fact}");
    }
}

#[test]
fn layer_chart_has_one_bar_per_layer_and_direction() {
    let p = profile();
    let html = HtmlReport::new(&p).render();
    let layers = section(&html, "layers");
    let svg = &layers[layers.find("<svg").expect("chart")..layers.find("</svg>").expect("end")];
    assert_eq!(svg.matches("class=\"bar fwd\"").count(), 3);
    assert_eq!(svg.matches("class=\"bar bwd\"").count(), 3);
    for label in ["L0", "L1", "L2", "forward", "backward", "ms", "layer"] {
        assert!(svg.contains(&format!(">{label}</text>")), "missing {label}");
    }
    // Per step: the profile has 4 steps (layer 1 backward: 9 ms over the run).
    assert!(svg.contains("<title>layer 1 backward: 2.250 ms</title>"));
    assert!(layers.contains("per step (mean of 4 steps)"));
    // Values as text, and the axis reaches past the longest bar (2.6 ms).
    assert!(svg.contains(">2.600</text>") && svg.contains(">3</text>"));
    // The table beside it: ratio and top op with its share of the layer.
    assert!(layers.contains(
        "<tr><td>1</td><td class=\"num\">1.100</td><td class=\"num\">2.250</td>\
         <td class=\"num\">2.05</td><td>MatMul</td><td class=\"num\">75.0%</td></tr>"
    ));
    assert!(
        layers
            .contains("<td class=\"num\">2.17</td><td>Attention</td><td class=\"num\">68.0%</td>")
    );
    assert!(layers.contains(
        "<tfoot><tr><th>Total</th><td class=\"num\">3.300</td><td class=\"num\">6.850</td>\
         <td class=\"num\">2.08</td>"
    ));
}

#[test]
fn no_layers_leave_a_note_instead_of_a_chart() {
    let mut p = profile();
    p.layers.clear();
    let html = HtmlReport::new(&p).render();
    let layers = section(&html, "layers");
    assert!(layers.contains("No layer scopes were recorded"));
    assert!(!layers.contains("<svg") && !layers.contains("<table"));
}

#[test]
fn numbers_are_formatted() {
    let p = profile();
    let html = HtmlReport::new(&p).render();
    let bricks = section(&html, "bricks");
    // MatMul: 1,200 calls, 60 ms (61.9% of 96.9 ms), all of it its own
    // time (66.0% of the 90.9 ms of self time: 6 ms of Attention's are
    // RmsNorm's), p50 in the 40-48 µs bucket, p90 and p99 in the 48-56 µs
    // one, 10,000 GFLOP/s, 50 GB/s, 200 FLOP/byte, 163.84 M elements/s.
    let matmul = [
        "<th scope=\"row\" class=\"name\">MatMul</th><td class=\"opt\">FFN</td>",
        "<td class=\"num\" data-v=\"1200\">1,200</td>",
        "<td class=\"num\" data-v=\"60\">60.00</td>",
        ">61.9%</td>",
        "<td title=\"total 60.00 ms = self 60.00 ms + 0 ms in bricks it called\" class=\"num\" data-v=\"60\">60.00</td>",
        ">66.0%</td>",
        "<td class=\"num\" data-v=\"43.636\">43.64</td>",
        "<td class=\"num opt\" data-v=\"51.692\">51.69</td>",
        "<td class=\"num\" data-v=\"51.692\">51.69</td>",
        "<td class=\"num\" data-v=\"10000\">10000.0</td>",
        "<td class=\"num\" data-v=\"50\">50.00</td>",
        "<td class=\"num opt\" data-v=\"200\">200.0</td>",
        "<td class=\"num opt\" data-v=\"163840000\">164 M</td></tr>",
    ]
    .concat();
    let row = bricks
        .lines()
        .find(|l| l.contains(">MatMul</th>"))
        .expect("MatMul row");
    let mut at = 0;
    for cell in matmul.split_inclusive("</td>") {
        let found = row[at..]
            .find(cell)
            .unwrap_or_else(|| panic!("{cell} in {row}"));
        at += found + cell.len();
    }
    // Never-called and zero-time bricks show dashes, not zeros or NaN.
    let idle = bricks
        .lines()
        .find(|l| l.contains(">Idle</th>"))
        .expect("Idle");
    assert_eq!(idle.matches(">–</td>").count(), 7, "{idle}");
    let spin = bricks
        .lines()
        .find(|l| l.contains(">Spin</th>"))
        .expect("Spin");
    assert!(spin.contains(">5</td>") && spin.contains(">0.0%</td>"));

    let steps = section(&html, "steps");
    for fact in [
        "<td>4</td>",
        "<td>2 (schedule: wait 1, warm-up 1, active 4, repeat 1)</td>",
        "<td>8,192</td>",
        "<td>100.0 ms</td>",
        "<td>98.00 / 99.00 / 103.0 / 103.0 / 103.0 ms</td>",
        "<td>20.5 k tok/s</td>",
        "<td>92.5%</td>",
    ] {
        assert!(steps.contains(fact), "missing {fact}");
    }
    assert!(steps.contains(
        "<tr><td>backward</td><td class=\"num\">4</td><td class=\"num\">200.0</td>\
         <td class=\"num\">50.00</td><td class=\"num\">50.0%</td>\
         <td class=\"bar-cell\"><span class=\"bar\" style=\"width:50.0%\"></span></td></tr>"
    ));
    assert!(steps.contains(
        "<tr><td>h2d</td><td class=\"num\">0</td><td class=\"num\">0</td>\
         <td class=\"num\">–</td><td class=\"num\">0.0%</td>"
    ));
}

#[test]
fn hotspots_come_from_the_scorecard_else_the_slowest_bricks() {
    let p = profile();
    let sc = scorecard_of(&p);
    assert!(!sc.hotspot_ops.is_empty());
    let with = HtmlReport::new(&p).scorecard(&sc).render();
    let hot = section(&with, "hotspots");
    assert!(hot.contains("from the scorecard"));
    // Per step over 4 steps: MatMul's 22.6 ms in layers plus 37.4 ms outside them.
    assert!(hot.contains("<th class=\"num\">ms / step</th>"));
    assert!(hot.contains(
        "<tr><td>MatMul</td><td class=\"num\">15.00</td><td class=\"num\">61.9%</td>\
         <td class=\"bar-cell\"><span class=\"bar\" style=\"width:61.9%\"></span></td></tr>"
    ));

    let mut many = profile();
    many.bricks = (0..12u64)
        .map(|i| {
            brick(
                &format!("b{i}"),
                BrickCategory::Other,
                (i + 1) * 1_000_000,
                (1, 1),
                &[],
            )
        })
        .collect();
    let html = HtmlReport::new(&many).render();
    let hot = section(&html, "hotspots");
    assert_eq!(hot.matches("<tr><td>").count(), 10);
    assert!(hot.find("<td>b11</td>") < hot.find("<td>b10</td>"));
    assert!(!hot.contains("<td>b1</td>") && !hot.contains("<td>b0</td>"));
    assert!(hot.contains("<td>b11</td><td class=\"num\">12.00</td><td class=\"num\">15.4%</td>"));
}

#[test]
fn degenerate_profiles_never_print_nan_or_inf() {
    // Everything zero: bricks without samples or time, a layer with no
    // forward time, a phase never entered, steps without time or tokens.
    let mut p = profile();
    for b in &mut p.bricks {
        b.total_ns = 0;
    }
    p.bricks.push(BrickStats::new("Empty", BrickCategory::Norm));
    p.layers[0].scope_ns = 0;
    p.layers[0].ops.clear();
    p.steps.total_ns = 0;
    p.steps.tokens = 0;
    p.phases.push(phase("never", 0, 0));
    let sc = scorecard_of(&p);
    let svg = flamegraph_svg(&folded_stacks(&profile()), "t").expect("flamegraph");
    let html = HtmlReport::new(&p)
        .scorecard(&sc)
        .flamegraph_svg(svg)
        .render();
    assert_eq!(non_finite_words(&html), Vec::<&str>::new());
    assert!(
        section(&html, "layers").contains(
            "<td class=\"num\">0</td><td class=\"num\">2.000</td><td class=\"num\">–</td>"
        )
    );
    assert_balanced(&html);

    let empty = Profile::empty();
    let html = HtmlReport::new(&empty)
        .scorecard(&scorecard_of(&empty))
        .render();
    assert_eq!(non_finite_words(&html), Vec::<&str>::new());
    assert!(html.contains("<h1>Profile report</h1>"));
    assert!(section(&html, "bricks").contains("No bricks recorded."));
    assert!(section(&html, "steps").contains("No steps recorded"));
    assert_balanced(&html);

    // The check itself catches what Rust prints for non-finite floats.
    let bad = format!("<td>{}</td><td>{}</td>", f64::NAN, f64::INFINITY);
    assert_eq!(non_finite_words(&bad), ["NaN", "inf"]);
}

#[test]
fn extension_sections_follow_the_built_in_ones() {
    let p = profile();
    let html = HtmlReport::new(&p)
        .section(Section::new("roofline", "Roofline", "<svg id=\"r\"></svg>"))
        .section(Section::new(
            "contracts",
            "Contracts",
            "<ul><li>ok</li></ul>",
        ))
        .section(Section::new("steps", "Steps again", "<p>dup</p>"))
        .render();
    let steps = html.find("<section id=\"steps\">").expect("steps");
    let roofline = html.find("<section id=\"roofline\">").expect("roofline");
    let contracts = html.find("<section id=\"contracts\">").expect("contracts");
    let dup = html
        .find("<section id=\"steps-2\">")
        .expect("renamed duplicate");
    assert!(steps < roofline && roofline < contracts && contracts < dup);
    assert!(html.contains(
        "<section id=\"roofline\">\n<h2>Roofline</h2>\n<svg id=\"r\"></svg>\n</section>"
    ));
    assert!(html.contains("<li><a href=\"#steps-2\">Steps again</a></li>"));
    assert!(dup < html.find("<footer>").expect("footer"));
}

#[test]
fn a_flat_flamegraph_is_captioned_as_flat() {
    // `profile()` has no timeline: its flamegraph is one frame per brick.
    let p = profile();
    assert_eq!(p.timeline.event_count(), 0);
    let svg = flamegraph_svg(&folded_stacks(&p), "flat").expect("flamegraph");
    let fg = section(
        &HtmlReport::new(&p).flamegraph_svg(svg.clone()).render(),
        "flamegraph",
    )
    .to_owned();
    assert!(
        fg.contains("<p class=\"note\">Flat: this run recorded no timeline (trace mode was off)"),
        "{fg}"
    );
    assert!(fg.contains("trace_mode(true)"));
    // With a timeline, the caption describes the nesting instead.
    let mut nested = p.clone();
    nested.timeline.names.push("step".to_owned());
    nested
        .timeline
        .threads
        .push(profiler_core::trace::ThreadTimeline {
            thread: 0,
            name: None,
            events: vec![profiler_core::trace::TimelineEvent {
                kind: profiler_core::trace::EventKind::Step,
                name: 0,
                start_ns: 0,
                dur_ns: 1_000,
                layer: None,
                direction: None,
                elements: 0,
                bytes: 0,
                flops: 0,
            }],
        });
    let fg = section(
        &HtmlReport::new(&nested).flamegraph_svg(svg).render(),
        "flamegraph",
    )
    .to_owned();
    assert!(
        fg.contains("Self time per stack of steps, phases, layers and bricks"),
        "{fg}"
    );
}

#[test]
fn flamegraph_svg_is_inlined_without_prolog_or_script() {
    let p = profile();
    let svg = flamegraph_svg(&folded_stacks(&p), "train_tiny").expect("flamegraph");
    assert!(svg.starts_with("<?xml") && svg.contains("<!DOCTYPE svg"));
    assert!(svg.contains("<script") && svg.contains("init(evt)"));
    let html = HtmlReport::new(&p).flamegraph_svg(svg).render();
    let fg = section(&html, "flamegraph");
    let inline = fg
        .find("<div class=\"flamegraph\">\n<svg ")
        .expect("inline svg");
    assert!(fg[inline..].contains("id=\"frames\""));
    assert!(fg.contains("<title>MatMul (60,000 µs, 61.92%)</title>"));
    assert!(fg.contains("&lt;script&gt;alert"));
    assert!(!html.contains("<?xml") && !html.contains("<!DOCTYPE svg"));
    assert!(!html.contains("init(evt)"));
    // The only script left is the page's own (table sorting).
    assert_eq!(html.matches("<script").count(), 1);
    assert!(html.find("<script>") > html.find("</main>"));
    assert_balanced(&html);
}

#[test]
fn write_is_atomic_and_errors_name_the_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("report.html");
    std::fs::write(&path, "old").expect("seed");
    let html = HtmlReport::new(&profile()).render();
    write_html_report(&html, &path).expect("write");
    assert_eq!(std::fs::read_to_string(&path).expect("read back"), html);
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, ["report.html"], "no temporary file left behind");

    let bad = dir.path().join("missing").join("report.html");
    let err = write_html_report(&html, &bad).expect_err("no such directory");
    match &err {
        ExportError::Write { path, .. } => assert_eq!(path, &bad),
        other => panic!("unexpected error {other:?}"),
    }
    assert!(
        err.to_string().contains(&bad.display().to_string()),
        "{err}"
    );
    assert!(!bad.exists());
}

#[test]
fn golden_report() {
    let p = profile();
    let html = full_report(&p, &scorecard_of(&p));
    // The generator's version changes with every release; the page does not.
    let html = html.replace(
        &format!("brick-profiler-report {}", env!("CARGO_PKG_VERSION")),
        "brick-profiler-report VERSION",
    );
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/report.html");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &html).expect("write golden file");
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1)", path.display()));
    assert!(
        expected == html,
        "report.html differs from the golden file; actual:\n{html}"
    );
}

/// The RTX 4060 Laptop's DRAM bandwidth (256 GB/s) given as a custom
/// device: no name, preset or compute peak to add to the page.
fn laptop_bandwidth() -> profiler_core::hardware::Hardware {
    use profiler_core::hardware::{Figure, Hardware, MemoryLevel, Source};
    let mut hw = Hardware::new("custom");
    hw.set_memory(MemoryLevel::Dram, Figure::new(256.0, Source::Given))
        .unwrap();
    hw
}
