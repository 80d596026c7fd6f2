//! Drawing tests: golden DOT and ASCII files, DOT validity under Graphviz
//! for hostile names, the depth limit, and a full-budget graph. Rewrite
//! the golden files with `UPDATE_GOLDEN=1 cargo test -p brick-profiler-report graph`
//! and review the diff.

use std::io::Write as _;
use std::process::{Command, Stdio};

use profiler_core::BrickId;
use profiler_core::kernel::{
    DEFAULT_GRAPH_NODES, EdgeKind, ExecutionGraph, GraphLimits, KernelNode, NodeKind,
    TransferDirection, TransferNode,
};

use super::*;

/// A small forward pass: step > layer > (brick, kernels, transfer), a
/// function with an async task, and one weighted dependency.
fn golden_graph() -> ExecutionGraph {
    let mut g = ExecutionGraph::new();
    let step = g.push_scope(NodeKind::Step { index: 0 });
    let layer = g.push_scope(NodeKind::Layer { index: 0 });
    g.record_brick(BrickId::RmsNorm, 1_200, 4_096);
    let gemm = g.record_kernel_launch(
        KernelNode::new("gemm_f16")
            .grid(8, 8, 1)
            .block(16, 16, 1)
            .shared_mem(4_096)
            .timing_ns(12_500)
            .arithmetic_intensity(42.5)
            .ptx_hash(0xabc),
    );
    g.record_transfer(
        TransferNode::new("host", "cuda:0", 1 << 20, TransferDirection::H2D).timing_ns(250_000),
    );
    let softmax = g.record_kernel_launch(KernelNode::new("softmax"));
    g.record_custom_brick("MyFusedOp", 900, 64);
    g.add_weighted_edge(gemm, softmax, EdgeKind::DependsOn, 2.5)
        .unwrap();
    g.pop_scope(layer).unwrap();
    let loss = g.push_scope(NodeKind::Function {
        name: "loss".into(),
        file: Some("src/loss.rs".into()),
        line: Some(7),
    });
    g.add_in_scope(NodeKind::AsyncTask {
        name: "prefetch".into(),
        poll_count: 3,
        yield_count: 2,
        total_poll_ns: 800,
    });
    g.pop_scope(loss).unwrap();
    g.pop_scope(step).unwrap();
    g
}

/// Compares `actual` with `tests/golden/{name}`, or rewrites it when
/// `UPDATE_GOLDEN` is set.
fn golden(name: &str, actual: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1)", path.display()));
    assert!(
        expected == actual,
        "{name} differs from the golden file; actual:\n{actual}"
    );
}

/// Runs `dot -Tsvg` on `text`; `None` (with a message) when Graphviz is missing.
fn render_svg(text: &str) -> Option<String> {
    let child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) => {
            eprintln!("skipped: Graphviz `dot` not runnable ({e})");
            return None;
        }
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "dot rejected the file: {stderr}\n{text}"
    );
    assert!(!stderr.contains("syntax error"), "{stderr}");
    Some(String::from_utf8(out.stdout).unwrap())
}

#[test]
fn dot_matches_the_golden_file() {
    golden("kernel_graph.dot", &dot(&golden_graph()));
}

#[test]
fn ascii_tree_matches_the_golden_file() {
    golden("kernel_graph.txt", &ascii_tree(&golden_graph()));
}

#[test]
fn the_golden_dot_renders() {
    if let Some(svg) = render_svg(&dot(&golden_graph())) {
        assert!(svg.contains("gemm_f16") && svg.contains("<svg"));
    }
}

#[test]
fn hostile_names_keep_the_dot_valid() {
    let names = [
        r#"say "hi""#,
        r"back\slash\N",
        "new\nline",
        "<b>html</b> & {rec|ord}",
        "trailing\\",
    ];
    let mut g = ExecutionGraph::new();
    let scope = g.push_scope(NodeKind::function(names[0]));
    for name in &names[1..] {
        g.record_kernel_launch(KernelNode::new(*name).timing_ns(5));
    }
    g.record_transfer(TransferNode::new("a\"b", "c\\d", 1, TransferDirection::D2D));
    g.pop_scope(scope).unwrap();
    let dot = dot_with(
        &g,
        &DotOptions {
            title: "title \"quoted\"\n<line>".into(),
            ..DotOptions::default()
        },
    );
    // Every quote inside a label is escaped: unescaped quotes pair up per line.
    for line in dot.lines() {
        let unescaped = line
            .replace("\\\\", "")
            .replace("\\\"", "")
            .matches('"')
            .count();
        assert_eq!(unescaped % 2, 0, "unbalanced quotes in {line}");
    }
    assert!(dot.contains(r#"say \"hi\""#) && dot.contains(r"back\\slash\\N"));
    if let Some(svg) = render_svg(&dot) {
        assert!(svg.contains("say &quot;hi&quot;"), "{svg}");
        assert!(svg.contains(r"back\slash\N"), "{svg}");
        assert!(
            svg.contains("&lt;b&gt;html&lt;/b&gt; &amp; {rec|ord}"),
            "{svg}"
        );
        assert!(svg.contains(">new<") && svg.contains(">line<"), "{svg}");
    }
}

#[test]
fn an_empty_graph_says_so() {
    let g = ExecutionGraph::new();
    assert_eq!(ascii_tree(&g), "(empty graph)\n");
    let mut full = ExecutionGraph::with_limits(GraphLimits {
        max_nodes: 0,
        max_edges: 0,
    });
    full.add_node(NodeKind::Layer { index: 0 });
    assert_eq!(
        ascii_tree(&full),
        "(empty graph)\n0 nodes, 0 edges; dropped 1 nodes, 0 edges (budget 0 nodes, 0 edges)\n"
    );
    let text = dot(&g);
    assert!(text.starts_with("// 0 nodes, 0 edges; dropped 0 nodes, 0 edges\n"));
    render_svg(&text);
}

#[test]
fn a_node_with_two_parents_is_drawn_once() {
    let mut g = ExecutionGraph::new();
    let a = g.add_node(NodeKind::function("a"));
    let b = g.add_node(NodeKind::function("b"));
    let shared = g.add_node(NodeKind::function("shared"));
    g.add_edge(a, shared, EdgeKind::Calls).unwrap();
    g.add_edge(b, shared, EdgeKind::Calls).unwrap();
    let tree = ascii_tree(&g);
    assert_eq!(
        tree,
        "a (function)\n└── shared (function)\nb (function)\n└── shared (drawn above as n2)\n\
         3 nodes, 2 edges; dropped 0 nodes, 0 edges\n"
    );
}

#[test]
fn a_hierarchy_cycle_is_drawn_without_looping() {
    let mut g = ExecutionGraph::new();
    let a = g.add_node(NodeKind::function("a"));
    let b = g.add_node(NodeKind::function("b"));
    g.add_edge(a, b, EdgeKind::Calls).unwrap();
    g.add_edge(b, a, EdgeKind::Calls).unwrap();
    assert_eq!(
        ascii_tree(&g),
        "a (function)\n└── b (function)\n    └── a (drawn above as n0)\n\
         2 nodes, 2 edges; dropped 0 nodes, 0 edges\n"
    );
}

#[test]
fn deep_nesting_stops_at_the_depth_limit() {
    let mut g = ExecutionGraph::new();
    let scopes: Vec<_> = (0..100)
        .map(|i| g.push_scope(NodeKind::Layer { index: i }))
        .collect();
    for s in scopes.into_iter().rev() {
        g.pop_scope(s).unwrap();
    }
    let tree = ascii_tree(&g);
    assert_eq!(tree.lines().count(), 65 + 1 + 1);
    assert!(tree.contains("layer 64 (layer)\n"));
    assert!(!tree.contains("layer 65 "));
    assert!(tree.contains("└── ... 35 nodes below not drawn (depth limit 64)\n"));
}

#[test]
fn a_full_budget_graph_is_drawn_whole() {
    // Smoke test of scale (no time assertion): 1 scope + 99 999 kernels fill
    // the 100 000-node budget; 5 more are dropped with their 2 edges each.
    let mut g = ExecutionGraph::new();
    let scope = g.push_scope(NodeKind::function("decode"));
    for i in 0..100_004u64 {
        g.record_kernel_launch(KernelNode::new("k").timing_ns(i % 7 + 1));
    }
    g.pop_scope(scope).unwrap();
    assert_eq!(g.len(), DEFAULT_GRAPH_NODES);
    let text = dot(&g);
    assert!(text.starts_with(
        "// 100000 nodes, 199997 edges; dropped 5 nodes, 10 edges (budget 100000 nodes, 400000 edges)\n"
    ));
    let node_ns: u64 = (0..99_999u64).map(|i| i % 7 + 1).sum();
    let path = format!(
        "// critical path: {} over 99999 nodes\n",
        super::text::format_ns(node_ns + 99_998)
    );
    assert!(text.contains(&path), "{path}");
    let tree = ascii_tree(&g);
    assert_eq!(tree.lines().count(), 100_001);
}

#[test]
fn tree_lines_pass_names_and_details_through_the_terminal_escaper() {
    let mut g = ExecutionGraph::new();
    let scope = g.push_scope(NodeKind::Function {
        name: "evil\u{202e}\u{1b}[2J".into(),
        file: Some("src/a\nb.rs".into()),
        line: Some(3),
    });
    g.record_kernel_launch(KernelNode::new("").timing_ns(5));
    g.pop_scope(scope).unwrap();
    let tree = ascii_tree(&g);
    let lines: Vec<&str> = tree.lines().collect();
    assert_eq!(lines.len(), 3, "{tree}");
    assert_eq!(lines[0], r"evil\u{202e}\x1b[2J (function, src/a\nb.rs:3)");
    assert!(lines[1].starts_with("└── (unnamed) (kernel, "), "{tree}");
    assert!(!tree.contains(['\u{1b}', '\u{202e}']), "{tree}");
}
