//! The HTML report's charts and reading aids: step time over steps with
//! the steps the schedule left out, per-brick latency distributions, self
//! time beside total time, counter charts, the trace link, the glossary,
//! each table shown once, and no GPU vocabulary on a CPU run without a
//! word of explanation. Parsed with `scraper`, so the checks read the page
//! as a browser does.

use profiler_core::{
    BrickCategory, BrickStats, Profile, Schedule,
    stats::{HistBucket, LatencyHistogram},
    sync::SyncMode,
    trace::{CounterSample, CounterTrack},
};
use profiler_report::{
    HtmlReport,
    scorecard::{ScorecardBuilder, TrainingScorecard},
};
use scraper::{ElementRef, Html, Selector};

// ---------------------------------------------------------------- fixtures

/// A brick with `total_ns`, `child_ns` and one histogram bucket per
/// `(lo ns, hi ns, calls)`.
fn brick(name: &str, total_ns: u64, child_ns: u64, buckets: &[(u64, u64, u64)]) -> BrickStats {
    let mut b = BrickStats::new(name, BrickCategory::Other);
    b.count = buckets.iter().map(|x| x.2).sum();
    b.total_ns = total_ns;
    b.child_ns = child_ns;
    b.min_ns = buckets.first().map_or(0, |x| x.0);
    b.max_ns = buckets.last().map_or(0, |x| x.1 - 1);
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

/// A CPU training run: a `Layer` brick calling `MatMul` and `Norm` (so
/// their time is in its total, not its self time), a bimodal `Gather`;
/// 40 steps in two cycles of 3 warm-up and 20 recorded steps, one of them
/// 9x slower than the rest; a loss counter.
fn profile() -> Profile {
    let mut p = Profile::empty();
    p.run.name = "cpu run".into();
    p.run.sync_mode = SyncMode::None;
    p.run.device_timer = false;
    p.bricks = vec![
        brick(
            "Layer",
            100_000_000,
            70_000_000,
            &[(900_000, 1_100_000, 100)],
        ),
        brick("MatMul", 50_000_000, 0, &[(450_000, 550_000, 100)]),
        brick("Norm", 20_000_000, 0, &[(180_000, 220_000, 100)]),
        // 90 calls near 10 µs and 10 near 1 ms: two regimes.
        brick(
            "Gather",
            10_900_000,
            0,
            &[(9_500, 10_500, 90), (950_000, 1_050_000, 10)],
        ),
    ];
    let index: Vec<u64> = (3..23).chain(26..46).collect();
    let mut ns = vec![10_000_000u64; index.len()];
    ns[17] = 90_000_000; // step 20
    p.steps.count = index.len() as u64;
    p.steps.skipped = 6;
    p.steps.total_ns = ns.iter().sum();
    p.steps.tokens = 512 * index.len() as u64;
    p.steps.samples_ns = ns;
    p.steps.samples_tokens = vec![512; index.len()];
    p.steps.samples_index = index;
    // Cycles of 3 warm-up steps and 20 recorded ones.
    p.steps.schedule = Some(Schedule {
        wait: 0,
        warmup: 3,
        active: 20,
        repeat: 0,
    });
    p.counter_tracks = vec![CounterTrack {
        name: "loss".into(),
        samples: (0..40)
            .map(|i| CounterSample {
                t_ns: 10_000_000 * i,
                value: 4.0 / (1.0 + i as f64),
                thread: 0,
            })
            .collect(),
    }];
    p
}

fn scorecard(p: &Profile) -> TrainingScorecard {
    ScorecardBuilder::from_profile(p)
        .hardware(laptop_bandwidth())
        .build()
        .expect("scorecard")
}

fn page(p: &Profile) -> Html {
    let html = HtmlReport::new(p)
        .scorecard(&scorecard(p))
        .trace_file("trace <1>.json")
        .render();
    let doc = Html::parse_document(&html);
    assert!(doc.errors.is_empty(), "HTML parse errors: {:?}", doc.errors);
    doc
}

fn sel(s: &str) -> Selector {
    Selector::parse(s).expect("selector")
}

fn all<'a>(root: ElementRef<'a>, s: &str) -> Vec<ElementRef<'a>> {
    root.select(&sel(s)).collect()
}

fn section<'a>(doc: &'a Html, id: &str) -> ElementRef<'a> {
    doc.select(&sel(&format!("section#{id}")))
        .next()
        .unwrap_or_else(|| panic!("no section {id}"))
}

fn text(e: ElementRef<'_>) -> String {
    e.text().collect()
}

// ---------------------------------------------------------------- tests

#[test]
fn bricks_show_self_time_and_its_split_next_to_total() {
    let doc = page(&profile());
    let table = section(&doc, "bricks");
    let heads: Vec<String> = all(table, "thead th").into_iter().map(text).collect();
    let col = |name: &str| {
        heads
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name} in {heads:?}"))
    };
    let (total, self_ms, self_share) = (col("Total ms"), col("Self ms"), col("Self share"));
    assert_eq!(
        self_ms,
        total + 2,
        "self time sits right after total and share"
    );
    let row_of = |name: &str| {
        all(table, "tbody tr")
            .into_iter()
            .find(|r| r.select(&sel("th")).next().map(text).as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no row {name}"))
    };
    fn cell(row: ElementRef<'_>, i: usize) -> ElementRef<'_> {
        row.child_elements().nth(i).expect("cell")
    }
    let value = |row: ElementRef<'_>, i: usize| -> f64 {
        cell(row, i)
            .value()
            .attr("data-v")
            .and_then(|v| v.parse().ok())
            .expect("data-v")
    };
    // Layer: 100 ms in all, 70 ms of it in MatMul and Norm.
    let layer = row_of("Layer");
    assert_eq!((value(layer, total), value(layer, self_ms)), (100.0, 30.0));
    let split = cell(layer, self_ms).value().attr("title").expect("split");
    assert_eq!(
        split,
        "total 100.0 ms = self 30.00 ms + 70.00 ms in bricks it called"
    );
    for name in ["Layer", "MatMul", "Norm", "Gather"] {
        let row = row_of(name);
        let b = profile();
        let b = b.brick(name).expect("brick");
        // Self + children = total, as the table shows them.
        let children = b.child_ns as f64 / 1e6;
        assert!(
            (value(row, self_ms) + children - value(row, total)).abs() < 1e-9,
            "{name}"
        );
    }
    // Self shares divide by all self time (30 + 50 + 20 + 10.9 ms) and add
    // up to 100%; total shares count nested time twice.
    let shares: f64 = all(table, "tbody tr")
        .into_iter()
        .map(|r| value(r, self_share))
        .sum();
    assert!((shares - 100.0).abs() < 1e-9, "{shares}");
    assert!((value(row_of("MatMul"), self_share) - 50.0 / 110.9 * 100.0).abs() < 1e-9);
    // Sorting by the self column ranks MatMul first, Layer second.
    let mut by_self: Vec<(f64, String)> = all(table, "tbody tr")
        .into_iter()
        .map(|r| (value(r, self_ms), text(cell(r, 0))))
        .collect();
    by_self.sort_by(|a, b| b.0.total_cmp(&a.0));
    assert_eq!(by_self[0].1, "MatMul");
    assert_eq!(by_self[1].1, "Layer");
}

#[test]
fn step_chart_marks_the_warm_up_the_gap_and_the_slow_step() {
    let doc = page(&profile());
    let steps = section(&doc, "steps");
    let charts = all(steps, "svg.line-chart");
    assert_eq!(charts.len(), 2, "step time and tok/s");
    let tips = |chart: ElementRef<'_>, s: &str| -> Vec<String> {
        all(chart, s)
            .into_iter()
            .filter_map(|e| e.select(&sel("title")).next().map(text))
            .collect()
    };
    for chart in &charts {
        let left_out = tips(*chart, "rect.left-out");
        assert_eq!(
            left_out,
            [
                "steps 0–2 (3 steps): warm-up, left out of the profile",
                "steps 23–25 (3 steps): warm-up, left out of the profile",
            ]
            .map(str::to_owned)
        );
        // The line breaks at the gap: two runs of points.
        assert_eq!(all(*chart, "polyline.line").len(), 2);
        assert_eq!(all(*chart, "line.ref.median").len(), 1);
    }
    let spikes = tips(charts[0], "circle.spike");
    assert!(
        spikes.contains(&"step 20: 90.00 ms (9.000× the median)".to_owned()),
        "{spikes:?}"
    );
    let labels: Vec<String> = all(charts[0], "text.ref").into_iter().map(text).collect();
    assert_eq!(labels, ["p90 10.00 ms", "p50 10.00 ms"]);
    // Exact step percentiles in the facts: 39 steps at 10 ms, one at 90.
    assert!(text(steps).contains("10.00 / 10.00 / 10.00 / 90.00 / 90.00 ms"));
}

#[test]
fn latency_rows_show_both_regimes_of_a_bimodal_brick() {
    let doc = page(&profile());
    let latency = section(&doc, "latency");
    let rows = all(latency, "g.brick-row");
    let names: Vec<String> = rows
        .iter()
        .map(|r| text(r.select(&sel("text.name")).next().expect("name")))
        .collect();
    assert_eq!(
        names,
        ["Layer", "MatMul", "Norm", "Gather"],
        "by total time"
    );
    let gather = rows[3];
    let bins: Vec<String> = all(gather, "rect.bin")
        .into_iter()
        .map(|b| text(b.select(&sel("title")).next().expect("tip")))
        .collect();
    assert_eq!(bins.len(), 2, "{bins:?}");
    assert!(bins[0].ends_with(": 90 calls (90.0%)") && bins[1].ends_with(": 10 calls (10.0%)"));
    let marks: Vec<String> = all(gather, "rect.mark")
        .into_iter()
        .map(|m| text(m.select(&sel("title")).next().expect("tip")))
        .collect();
    // The median is in the fast group, the p99 in the slow one.
    assert_eq!(
        marks,
        [
            "p50: 9.97 µs",
            "p90: 9.97 µs",
            "p99: 998 µs",
            "max: 1.05 ms"
        ]
    );
}

#[test]
fn counters_get_a_chart_each() {
    let doc = page(&profile());
    let counters = section(&doc, "counters");
    let charts = all(counters, "svg.counter-chart");
    assert_eq!(charts.len(), 1);
    assert_eq!(all(charts[0], "polyline.line").len(), 1);
    assert_eq!(
        all(charts[0], "circle.pt").len(),
        40,
        "every sample hovered"
    );
    let caption = text(counters.select(&sel("figcaption")).next().expect("caption"));
    assert_eq!(
        caption,
        "loss: 40 samples, first 4.000, last 0.100, min 0.100, max 4.000."
    );
}

#[test]
fn the_trace_link_and_the_glossary_are_there_and_every_table_once() {
    let doc = page(&profile());
    let link = doc
        .select(&sel("header .links a"))
        .next()
        .expect("trace link");
    assert_eq!(link.value().attr("href"), Some("trace <1>.json"));
    let header = text(doc.select(&sel("header")).next().expect("header"));
    assert!(header.contains("ui.perfetto.dev") && header.contains("Open trace file"));

    // Every term a header or metric name links to is defined.
    let glossary = section(&doc, "glossary");
    let defined: Vec<String> = all(glossary, "dt")
        .into_iter()
        .filter_map(|d| d.value().attr("id").map(str::to_owned))
        .collect();
    for id in [
        "wall-coverage",
        "launch",
        "transfer",
        "efficiency",
        "mfu",
        "self-time",
        "percentiles",
        "gflops",
        "gbps",
        "intensity",
    ] {
        assert!(defined.contains(&format!("glossary-{id}")), "{id}");
    }
    for a in doc.select(&sel("a.term")) {
        let href = a.value().attr("href").expect("href");
        assert!(defined.iter().any(|d| href == format!("#{d}")), "{href}");
        assert!(a.value().attr("title").is_some_and(|t| t.len() > 20));
    }
    assert!(doc.select(&sel("th[title]")).count() >= 10);

    // The scorecard's per-layer and hotspot tables are the report's own
    // sections; the scorecard section does not repeat them.
    let sc = section(&doc, "scorecard");
    assert_eq!(all(sc, "table").len(), 1, "only the metrics");
    assert!(!text(sc).contains("Hotspot Operations"));
    assert!(
        scorecard(&profile())
            .to_html()
            .contains("Hotspot Operations")
    );
}

#[test]
fn a_cpu_run_explains_the_gpu_words_it_mentions() {
    let p = profile();
    let doc = page(&p);
    let body = text(doc.select(&sel("main")).next().expect("main"));
    let glossary = text(section(&doc, "glossary"));
    // Outside the glossary, no transfer or launch figures.
    let outside = body.replace(&glossary, "");
    for word in ["Transfer", "Launch overhead", "h2d", "kernel launch"] {
        assert!(!outside.contains(word), "{word} outside the glossary");
    }
    // In the glossary, both terms say why this run does not show them.
    let launch = doc
        .select(&sel("dt#glossary-launch + dd"))
        .next()
        .map(text)
        .expect("launch");
    assert!(launch.contains("Not shown for this run: it timed no device"));
    let transfer = doc
        .select(&sel("dt#glossary-transfer + dd"))
        .next()
        .map(text)
        .expect("transfer");
    assert!(transfer.contains("Not shown for this run"));

    // A device run shows the terms without that note.
    let mut gpu = profile();
    gpu.run.device_timer = true;
    let doc = page(&gpu);
    let launch = doc
        .select(&sel("dt#glossary-launch + dd"))
        .next()
        .map(text)
        .expect("launch");
    assert!(!launch.contains("Not shown"));
}

#[test]
fn kernel_sections_appear_with_their_data_and_only_then() {
    use profiler_core::kernel::{
        EdgeKind, ExecutionGraph, KernelChecksum, KernelNode, NodeKind, TileLevel, TileStats,
    };
    let plain = page(&profile());
    for id in ["tiles", "checksums", "critical-path"] {
        assert!(
            plain
                .select(&sel(&format!("section#{id}")))
                .next()
                .is_none(),
            "a profile without kernel data has no {id} section"
        );
    }

    let mut p = profile();
    let mut macro_tiles = TileStats::new(TileLevel::Macro);
    macro_tiles.add(2_000, 4_096, 8_192, 3);
    p.tiles = vec![macro_tiles];
    p.checksums = vec![
        KernelChecksum::of("RmsNorm", 0, 0, &[1.0, 2.0]),
        KernelChecksum::of("RmsNorm", 0, 1, &[1.0, 2.0]),
        KernelChecksum::of("<Gemm>", 1, 0, &[3.0]),
    ];
    let mut graph = ExecutionGraph::new();
    let scope = graph.add_node(NodeKind::function("step"));
    let gemm = graph.add_node(NodeKind::Kernel(KernelNode::new("gemm").timing_ns(5_000)));
    let norm = graph.add_node(NodeKind::Kernel(KernelNode::new("norm").timing_ns(1_000)));
    graph.add_edge(scope, gemm, EdgeKind::Launches).unwrap();
    graph.add_edge(scope, norm, EdgeKind::Launches).unwrap();
    graph.add_edge(gemm, norm, EdgeKind::DependsOn).unwrap();
    p.graph = Some(graph);

    let doc = page(&p);
    let tiles = text(section(&doc, "tiles"));
    assert!(
        tiles.contains("macro") && tiles.contains("4,096"),
        "{tiles}"
    );
    let checksums = section(&doc, "checksums");
    let rows: Vec<String> = all(checksums, "tbody tr").into_iter().map(text).collect();
    assert_eq!(rows.len(), 2, "one row per kernel: {rows:?}");
    assert!(
        rows[0].starts_with("<Gemm>1"),
        "names escaped, sorted: {rows:?}"
    );
    assert!(rows[1].starts_with("RmsNorm2"), "{rows:?}");
    let path = text(section(&doc, "critical-path"));
    assert!(path.contains("gemm") && path.contains("norm"), "{path}");

    // Against a reference run, the checksums section shows the divergence.
    let mut reference = p.clone();
    reference.run.name = "cpu reference".into();
    reference.checksums[1] = KernelChecksum::of("RmsNorm", 0, 1, &[1.0, 2.5]);
    let html = HtmlReport::new(&p).checksum_reference(&reference).render();
    let doc = Html::parse_document(&html);
    assert!(doc.errors.is_empty(), "{:?}", doc.errors);
    let checksums = text(section(&doc, "checksums"));
    assert!(checksums.contains("cpu reference"), "{checksums}");
    assert!(checksums.contains("RmsNorm"), "{checksums}");
    let verdict = doc
        .select(&sel("section#checksums .verdict.diverged"))
        .next()
        .map(text)
        .expect("a diverged verdict");
    assert!(verdict.contains("RmsNorm"), "{verdict}");
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
