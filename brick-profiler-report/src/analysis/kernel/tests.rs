//! Kernel reports: golden text, Markdown and HTML files, the verdicts and
//! notes each input case gets, and well-formed output for hostile names.
//! Rewrite the golden files with
//! `UPDATE_GOLDEN=1 cargo test -p brick-profiler-report kernel` and review the diff.

use profiler_core::BrickId;
use profiler_core::kernel::{
    DivergenceReport, EdgeKind, ExecutionGraph, GraphLimits, KernelChecksum, KernelNode, NodeKind,
    TileLevel, TileTable, TransferDirection, TransferNode, compare_checksums,
};

use super::*;

fn tiles() -> TileTable {
    let mut t = TileTable::new();
    t.record(TileLevel::Macro, 2_000_000, 1_048_576, 4_000_000_000, 10);
    t.record(TileLevel::Macro, 4_000_000, 1_048_576, 4_000_000_000, 30);
    t.record(TileLevel::Micro, 5_000, 4_096, 65_536, 0);
    t
}

fn divergence() -> DivergenceReport {
    let c = KernelChecksum::new;
    let reference = [
        c("RmsNorm", 0, 0, 0x11),
        c("attn_qk", 0, 0, 0x22),
        c("ffn_up", 0, 0, 0x33),
        c("ffn_down", 1, 0, 0x44),
    ];
    let current = [
        c("RmsNorm", 0, 0, 0x11),
        c("attn_qk", 0, 0, 0x2F),
        c("ffn_up", 0, 0, 0x3F),
        c("lm_head", 1, 0, 0x55),
    ];
    compare_checksums(&reference, &current)
}

fn graph() -> ExecutionGraph {
    let mut g = ExecutionGraph::new();
    let layer = g.push_scope(NodeKind::Layer { index: 0 });
    g.record_brick(BrickId::RmsNorm, 1_200, 4_096);
    let gemm = g.record_kernel_launch(KernelNode::new("gemm_f16").timing_ns(12_500));
    g.record_transfer(
        TransferNode::new("host", "cuda:0", 1 << 20, TransferDirection::H2D).timing_ns(250_000),
    );
    let softmax = g.record_kernel_launch(KernelNode::new("softmax"));
    g.add_weighted_edge(gemm, softmax, EdgeKind::DependsOn, 2.5)
        .unwrap();
    g.pop_scope(layer).unwrap();
    g
}

fn report(text: bool, md: bool) -> String {
    let summary = critical_path_summary(&graph(), DEFAULT_CRITICAL_PATH_ROWS);
    let peak = Some(2_000.0);
    if text {
        [
            format_tile_table_text(&tiles(), peak),
            format_divergence_text(&divergence()),
            format_critical_path_text(&summary),
        ]
        .join("\n")
    } else if md {
        [
            format_tile_table_markdown(&tiles(), peak),
            format_divergence_markdown(&divergence()),
            format_critical_path_markdown(&summary),
        ]
        .join("\n")
    } else {
        [
            format_tile_table_html(&tiles(), peak),
            format_divergence_html(&divergence()),
            format_critical_path_html(&summary),
        ]
        .concat()
    }
}

/// Compares `actual` with `tests/golden/{name}`, or rewrites it when
/// `UPDATE_GOLDEN` is set.
fn golden(name: &str, actual: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1)", path.display()));
    assert!(
        expected == actual,
        "{name} differs from the golden file; actual:\n{actual}"
    );
}

/// Checks that `html` is a well-formed fragment: tags nest and close, and
/// text holds no raw `<`, `>` or bare `&`.
fn assert_well_formed(html: &str) {
    let mut open: Vec<&str> = Vec::new();
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        check_text(&rest[..lt]);
        let end = rest[lt..].find('>').expect("unclosed tag") + lt;
        let tag = &rest[lt + 1..end];
        assert!(!tag.contains('<'), "`<` inside tag <{tag}>");
        let name = tag
            .trim_start_matches('/')
            .split_whitespace()
            .next()
            .unwrap_or("");
        if let Some(closing) = tag.strip_prefix('/') {
            assert_eq!(open.pop(), Some(closing.trim()), "mismatched </{closing}>");
        } else {
            open.push(name);
        }
        rest = &rest[end + 1..];
    }
    check_text(rest);
    assert!(open.is_empty(), "unclosed tags {open:?}");
}

fn check_text(text: &str) {
    assert!(!text.contains('>'), "raw `>` in text {text:?}");
    for (i, _) in text.match_indices('&') {
        let entity = &text[i..];
        let ok = ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"]
            .iter()
            .any(|e| entity.starts_with(e));
        assert!(ok, "bare `&` in text {text:?}");
    }
}

#[test]
fn kernel_reports_match_the_golden_files() {
    golden("kernel_report.txt", &report(true, false));
    golden("kernel_report.md", &report(false, true));
    let html = report(false, false);
    assert_well_formed(&html);
    golden("kernel_report.html", &html);
}

#[test]
fn cache_efficiency_needs_a_valid_peak() {
    let none = format_tile_table_text(&tiles(), None);
    assert!(none.contains("cache efficiency: – (no peak GFLOP/s given)"));
    assert!(
        none.lines()
            .filter(|l| l.starts_with("macro") || l.starts_with("micro"))
            .all(|l| l.ends_with(crate::base::textfmt::DASH))
    );
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let text = format_tile_table_text(&tiles(), Some(bad));
        assert!(text.contains("cache efficiency: – (peak GFLOP/s"), "{text}");
        assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
    }
    // 1333.3 GFLOP/s against 2000 -> 66.7%; 13.1 against 2000 -> 0.7%.
    let valid = format_tile_table_text(&tiles(), Some(2_000.0));
    assert!(valid.contains("66.7%") && valid.contains("0.7%"), "{valid}");
    assert_eq!(
        format_tile_table_text(&TileTable::new(), None),
        "Tiles\n(no tile samples)\n"
    );
}

#[test]
fn divergence_verdicts_name_the_case() {
    let c = KernelChecksum::new;
    let verdict = |r: &[KernelChecksum], cur: &[KernelChecksum]| {
        format_divergence_text(&compare_checksums(r, cur))
            .lines()
            .nth(1)
            .unwrap()
            .to_owned()
    };
    let same = [c("a", 0, 0, 1), c("b", 0, 1, 2)];
    assert_eq!(verdict(&same, &same), "identical: all 2 calls match");
    assert_eq!(
        verdict(&[], &[]),
        "nothing to compare: neither run recorded checksums"
    );
    assert_eq!(
        verdict(&[c("a", 0, 0, 1)], &[c("b", 0, 0, 1)]),
        "nothing compared: the runs share no call"
    );
    assert_eq!(
        verdict(&same, &same[..1]),
        "no compared call differs (1 compared), but the runs made different calls"
    );
    assert_eq!(
        verdict(&same, &[c("a", 0, 0, 1), c("b", 0, 1, 3)]),
        "DIVERGENCE at 'b' (layer 0, pos 1): expected 0x0000000000000002, got 0x0000000000000003"
    );
}

#[test]
fn long_divergence_lists_are_cut_and_counted() {
    let reference: Vec<_> = (0..150)
        .map(|i| KernelChecksum::new("k", 0, i, 1))
        .collect();
    let current: Vec<_> = (0..150)
        .map(|i| KernelChecksum::new("k", 0, i, 2))
        .collect();
    let text = format_divergence_text(&compare_checksums(&reference, &current));
    assert!(text.contains("... and 50 more"));
    assert_eq!(
        text.lines()
            .filter(|l| l.contains("0x0000000000000002"))
            .count(),
        MAX_DIVERGENCE_ROWS + 1, // the rows and the verdict line
    );
}

#[test]
fn the_critical_path_summary_says_what_limits_it() {
    let s = critical_path_summary(&graph(), 2);
    // gemm 12 500 + 1 + transfer 250 000 + 1 + softmax (untimed) 0.
    assert_eq!(
        (s.length_ns, s.path_nodes, s.missing_timing),
        (262_502.0, 3, 1)
    );
    let heaviest: Vec<_> = s
        .heaviest
        .iter()
        .map(|e| (e.step, e.name.as_str()))
        .collect();
    assert_eq!(heaviest, [(2, "host -> cuda:0"), (1, "gemm_f16")]);
    let text = format_critical_path_text(&s);
    assert!(
        text.contains("a lower bound: 1 untimed kernels or transfers on it count as 0"),
        "{text}"
    );
    assert!(text.contains("95.2%"), "{text}"); // 250 000 / 262 502

    let mut cyclic = ExecutionGraph::new();
    let a = cyclic.add_node(NodeKind::Layer { index: 0 });
    let b = cyclic.add_node(NodeKind::Layer { index: 1 });
    cyclic.depends_on(a, b).unwrap();
    cyclic.depends_on(b, a).unwrap();
    let text = format_critical_path_text(&critical_path_summary(&cyclic, 5));
    assert!(
        text.contains("critical path unavailable: precedence edges form a cycle: n"),
        "{text}"
    );

    let mut full = ExecutionGraph::with_limits(GraphLimits {
        max_nodes: 1,
        max_edges: 10,
    });
    full.record_kernel_launch(KernelNode::new("kept").timing_ns(5));
    full.record_kernel_launch(KernelNode::new("dropped").timing_ns(5));
    let _open = full.push_scope(NodeKind::function("open"));
    let md = format_critical_path_markdown(&critical_path_summary(&full, 5));
    assert!(md.contains("dropped 2 nodes, 1 edges"), "{md}");
    assert!(md.contains("the path covers the kept graph only"), "{md}");
    assert!(md.contains("1 scopes left open"), "{md}");
    let empty = format_critical_path_text(&critical_path_summary(&ExecutionGraph::new(), 5));
    assert!(empty.contains("critical path: (empty graph)"), "{empty}");
}

#[test]
fn hostile_names_stay_escaped_in_every_format() {
    let name = "<script>alert(\"x\")</script> a|b *c* _d_ & `e`\nf";
    let c = |sum| KernelChecksum::new(name.to_owned(), 0, 0, sum);
    let div = compare_checksums(&[c(1)], &[c(2)]);
    let mut g = ExecutionGraph::new();
    g.record_kernel_launch(KernelNode::new(name).timing_ns(10));
    let summary = critical_path_summary(&g, 5);
    let html = [
        format_divergence_html(&div),
        format_critical_path_html(&summary),
    ]
    .concat();
    assert_well_formed(&html);
    assert!(!html.contains("<script") && html.contains("&lt;script&gt;"));
    for md in [
        format_divergence_markdown(&div),
        format_critical_path_markdown(&summary),
    ] {
        // Every `<` and `>` is backslash-escaped, so nothing renders as HTML.
        let raw = md
            .match_indices(['<', '>'])
            .any(|(i, _)| !md[..i].ends_with('\\'));
        assert!(!raw && md.contains(r"\<script\>"), "{md}");
        for row in md.lines().filter(|l| l.starts_with('|')) {
            // Cells split only on unescaped pipes: every row has the header's count.
            let cells = row.replace(r"\|", "").matches('|').count();
            let header = md
                .lines()
                .find(|l| l.starts_with('|'))
                .unwrap()
                .matches('|')
                .count();
            assert_eq!(cells, header, "{row}");
        }
    }
    for text in [
        format_divergence_text(&div),
        format_critical_path_text(&summary),
    ] {
        assert!(text.contains(r"`e`\nf"), "{text}");
    }
}

#[test]
fn tile_summary_lists_levels_with_samples() {
    let summary = TileSummary::new(&tiles(), true);
    let levels: Vec<_> = summary.tiles.iter().map(|r| r.level).collect();
    assert_eq!(levels, [TileLevel::Macro, TileLevel::Micro]);
    let macro_row = &summary.tiles[0];
    assert_eq!(macro_row.avg_us, 3_000.0);
    assert_eq!(macro_row.min_us, 2_000.0);
    assert_eq!(macro_row.cache_misses, 40);
    assert_eq!(macro_row.gflops, 8e9 / (6e6 / 1e9) / 1e9);
}

#[test]
fn tile_summary_text_is_a_fixed_table() {
    let text = TileSummary::new(&tiles(), true).to_string();
    let expected = "\
=== Tile Profiling Summary ===
Level     Samples       Avg µs    GFLOP/s       AI  Elem/sample
macro           2       3000.0    1333.33   953.67      1048576
micro           1          5.0      13.11     4.00         4096
";
    assert_eq!(text, expected);
    assert_eq!(
        TileSummary::new(&TileTable::new(), true).to_string(),
        "=== Tile Profiling Summary ===\n(no tile samples)\n"
    );
    assert_eq!(
        TileSummary::new(&tiles(), false).to_string(),
        "=== Tile Profiling Summary ===\n(tile profiling disabled)\n"
    );
}

#[test]
fn tile_summary_json_has_the_reference_keys() {
    let json: serde_json::Value =
        serde_json::from_str(&TileSummary::new(&tiles(), true).to_json()).unwrap();
    assert_eq!(json["tile_profiling_enabled"], true);
    let row = &json["tiles"][1];
    assert_eq!(row["level"], "micro");
    for key in [
        "count",
        "total_ns",
        "avg_us",
        "min_us",
        "max_us",
        "gflops",
        "arithmetic_intensity",
        "total_elements",
        "total_flops",
    ] {
        assert!(row.get(key).is_some(), "missing {key}");
    }
    assert_eq!(row["total_flops"], 65_536);
}

#[test]
fn a_divergence_line_keeps_a_hostile_kernel_name_on_its_line() {
    let d = profiler_core::kernel::DivergenceInfo {
        name: "attn\u{1b}[2J\nfake".into(),
        layer_idx: 3,
        position: 17,
        expected: 0xDEAD_BEEF,
        actual: 1,
        reference_index: 0,
        current_index: 0,
    };
    let line = super::divergence::format_divergence_line(&d);
    assert!(!line.chars().any(char::is_control), "{line:?}");
    assert!(
        line.starts_with("DIVERGENCE at 'attn")
            && line.ends_with(
                "(layer 3, pos 17): expected 0x00000000DEADBEEF, got 0x0000000000000001"
            ),
        "{line}"
    );
}
