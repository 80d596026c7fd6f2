//! Kernel tools through the live profiler: tile timers, output checksums
//! and divergence between two profiles, and the execution graph fed by
//! steps, layers and bricks.

mod common;

use profiler::Direction;
use profiler::kernel::{
    self, EdgeKind, KernelNode, NodeKind, TileLevel, TransferDirection, TransferNode,
};

#[profiler::brick(QkvProjection)]
fn qkv() {
    std::thread::sleep(std::time::Duration::from_millis(1));
}

#[profiler::brick(RmsNorm)]
fn norm() {
    std::hint::black_box(0u8);
}

#[test]
fn tile_timers_record_only_when_tile_profiling_is_on() {
    let _lock = common::exclusive();
    let t = kernel::start_tile(TileLevel::Macro, 0, 0);
    kernel::stop_tile(t, 10, 20);
    assert!(profiler::snapshot().tiles.is_empty(), "off by default");

    profiler::Config::new().tile_profiling(true).apply();
    for row in 0..4 {
        let t = kernel::start_tile(TileLevel::Micro, row, 0);
        std::hint::black_box(row);
        kernel::stop_tile_with_misses(t, 256, 2 * 256 * 16, 3);
    }
    let t = kernel::start_tile(TileLevel::Macro, 0, 0);
    kernel::stop_tile(t, 1024, 0);
    profiler::Config::new().tile_profiling(false).apply();
    let profile = profiler::snapshot();
    let micro = profile
        .tiles
        .iter()
        .find(|t| t.level == TileLevel::Micro)
        .expect("micro tiles");
    assert_eq!(
        (
            micro.count,
            micro.total_elements,
            micro.total_flops,
            micro.cache_misses
        ),
        (4, 1024, 4 * 8192, 12)
    );
    assert!(micro.min_ns <= micro.max_ns && micro.total_ns >= micro.max_ns);
    assert_eq!(profile.tiles.len(), 2, "levels with samples only");
    assert!(
        profile.bricks.iter().all(|b| !b.name.starts_with("__tile")),
        "tile slots are hidden"
    );
    let back = profiler::Profile::from_json(&profile.to_json()).expect("round trip");
    assert_eq!(back.tiles, profile.tiles);
}

#[test]
fn checksums_locate_the_first_divergence_between_two_profiles() {
    let _lock = common::exclusive();
    let reference: Vec<Vec<f32>> = (0..4).map(|i| vec![i as f32; 128]).collect();
    for (pos, out) in reference.iter().enumerate() {
        kernel::record_checksum("attention", 1, pos as u64, out);
    }
    let good = profiler::snapshot();
    profiler::reset();
    for (pos, out) in reference.iter().enumerate() {
        let mut out = out.clone();
        if pos == 2 {
            out[5] += 1e-3; // the fast kernel is wrong here
        }
        if pos == 3 {
            out[100] += 1.0; // beyond the first 64 floats: not seen
        }
        kernel::record_checksum("attention", 1, pos as u64, &out);
    }
    let bad = profiler::snapshot();
    let divergence = kernel::find_divergence(&good.checksums, &bad.checksums).expect("diverges");
    assert_eq!(
        (
            divergence.name.as_ref(),
            divergence.layer_idx,
            divergence.position
        ),
        ("attention", 1, 2)
    );
    assert!(
        profiler_report::kernel::format_divergence_line(&divergence)
            .starts_with("DIVERGENCE at 'attention' (layer 1, pos 2): expected 0x")
    );
    profiler::disable();
    kernel::record_checksum("attention", 1, 9, &reference[0]);
    assert_eq!(
        profiler::snapshot().checksums.len(),
        4,
        "a no-op while disabled"
    );
}

#[test]
fn the_graph_is_off_by_default_and_fed_by_steps_layers_and_bricks_when_on() {
    let _lock = common::exclusive();
    qkv();
    assert!(profiler::snapshot().graph.is_none(), "off by default");

    profiler::Config::new().execution_graph(true).apply();
    {
        let _step = profiler::step(8);
        for layer in 0..2u32 {
            let _layer = profiler::layer(layer, Direction::Forward);
            norm();
            qkv();
            let copy = kernel::record_transfer(TransferNode::new(
                "host",
                "gpu0",
                4096,
                TransferDirection::H2D,
            ));
            let launch = kernel::record_kernel_launch(KernelNode::new("gemm"));
            if let (Some(l), Some(c)) = (launch, copy) {
                kernel::depends_on(l, c);
            }
        }
    }
    profiler::Config::new().execution_graph(false).apply();
    let graph = profiler::snapshot().graph.expect("graph recorded");
    let count = |f: &dyn Fn(&NodeKind) -> bool| graph.nodes().iter().filter(|n| f(&n.kind)).count();
    assert_eq!(count(&|k| matches!(k, NodeKind::Step { .. })), 1);
    assert_eq!(count(&|k| matches!(k, NodeKind::Layer { .. })), 2);
    assert_eq!(count(&|k| matches!(k, NodeKind::Brick { .. })), 4);
    assert_eq!(count(&|k| matches!(k, NodeKind::Kernel(_))), 2);
    let contains = graph
        .edges()
        .iter()
        .filter(|e| e.kind == EdgeKind::Contains)
        .count();
    assert!(
        contains >= 2 + 4,
        "layers in the step, bricks in their layers"
    );
    assert_eq!(graph.check_balance(), Ok(()), "every scope closed");
    let path = graph.critical_path().expect("a DAG");
    assert!(path.length_ns >= 2e6, "two 1 ms bricks in sequence");
    let dot = profiler_report::graph::dot(&graph);
    assert!(dot.contains("digraph execution_graph {"), "{dot}");
    assert!(dot.contains("critical path:"), "{dot}");
}
