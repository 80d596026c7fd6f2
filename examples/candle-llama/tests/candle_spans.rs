//! The example at a small size: candle's own spans become bricks with one
//! call per block per forward pass, each block is its layer, the mapped
//! bricks carry the work derived from the shapes, and every report file is
//! written.

use candle_llama::{Args, run, work};
use clap::Parser;
use profiler::{BrickCategory, Direction, Profile};

const LAYERS: u64 = 3;
/// Passes after warm-up.
const PASSES: u64 = 4;

#[test]
fn candle_spans_become_bricks_per_block_per_pass() {
    let out = std::env::temp_dir().join(format!("candle-llama-{}", std::process::id()));
    let passes = (PASSES + 1).to_string();
    let layers = LAYERS.to_string();
    let args = Args::parse_from([
        "candle-llama",
        "--passes",
        &passes,
        "--warmup",
        "1",
        "--layers",
        &layers,
        "--hidden",
        "32",
        "--heads",
        "4",
        "--kv-heads",
        "2",
        "--intermediate",
        "64",
        "--vocab",
        "64",
        "--seq",
        "8",
        "--batch",
        "2",
        // Forward passes: the work per call is derived for them.
        "--generate",
        "0",
        "--out",
        out.to_str().expect("utf-8 temp dir"),
        // Small probe arrays keep the test quick.
        "--probe-array-mib",
        "8",
    ]);
    let shape = args.shape().expect("valid sizes");
    let outcome = run(&args).expect("the run succeeds");

    // What was written is what the run profiled.
    let profile = Profile::read(out.join("profile.json")).expect("profile.json reads back");
    assert_eq!(profile.steps.count, PASSES, "warm-up left out");
    let count = |name: &str| profile.brick(name).map_or(0, |b| b.count);
    let per_pass = |name: &str| count(name) as f64 / PASSES as f64;
    assert_eq!(per_pass("block"), LAYERS as f64);
    assert_eq!(per_pass("attn"), LAYERS as f64);
    assert_eq!(per_pass("mlp"), LAYERS as f64);
    assert_eq!(
        per_pass("RopeEmbedding"),
        2.0 * LAYERS as f64,
        "queries and keys"
    );
    assert_eq!(
        per_pass("RmsNorm"),
        2.0 * LAYERS as f64 + 1.0,
        "two per block, the final norm"
    );
    assert_eq!(
        per_pass("linear"),
        7.0 * LAYERS as f64 + 1.0,
        "seven per block, the LM head"
    );
    assert_eq!(per_pass("Sampling"), 1.0, "the #[brick] layer written here");
    assert_eq!(
        count("attn"),
        outcome.profile.brick("attn").map_or(0, |b| b.count)
    );

    let brick = |name: &str| profile.brick(name).expect(name);
    assert_eq!(brick("attn").category, BrickCategory::Attention);
    assert_eq!(brick("mlp").category, BrickCategory::Ffn);
    assert_eq!(brick("RmsNorm").category, BrickCategory::Norm);
    // Nesting: a block's time is mostly its attention, MLP and norms.
    let block = brick("block");
    assert!(block.child_ns > 0 && block.child_ns <= block.total_ns);
    assert!(brick("attn").child_ns > 0, "its projections and rotations");
    assert!(block.child_ns >= brick("attn").total_ns + brick("mlp").total_ns);

    // Work from the shapes, per call.
    let mlp = work::mlp(&shape);
    assert_eq!(brick("mlp").total_flops, mlp.flops * LAYERS * PASSES);
    assert_eq!(brick("mlp").total_bytes, mlp.bytes * LAYERS * PASSES);
    assert!(brick("Sampling").total_flops > 0);

    // Each block is its layer, in the order candle builds them.
    for index in 0..LAYERS as u32 {
        let layer = profile
            .layer(index, Direction::Forward)
            .unwrap_or_else(|| panic!("layer {index}"));
        assert_eq!(layer.scope_count, PASSES, "layer {index}");
        let ops = |name: &str| {
            layer
                .ops
                .iter()
                .find(|o| o.name == name)
                .map_or(0, |o| o.count)
        };
        assert_eq!(ops("attn"), PASSES);
        assert_eq!(ops("mlp"), PASSES);
        assert_eq!(ops("linear"), 7 * PASSES);
        assert_eq!(ops("RmsNorm"), 2 * PASSES);
    }
    assert!(profile.layer(LAYERS as u32, Direction::Forward).is_none());

    for name in [
        "profile.json",
        "trace.json",
        "roofline.svg",
        "roofline.json",
        "report.html",
        "scorecard.json",
    ] {
        assert!(
            outcome.files.contains(&out.join(name)),
            "{name} in {:?}",
            outcome.files
        );
    }
    let roofline = std::fs::read_to_string(out.join("roofline.json")).expect("roofline.json");
    for name in ["\"mlp\"", "\"attn\"", "\"RmsNorm\""] {
        assert!(roofline.contains(name), "{name} placed on the roofline");
    }
    let html = std::fs::read_to_string(out.join("report.html")).expect("report.html");
    assert!(html.contains("RopeEmbedding") && html.contains("attn"));
    std::fs::remove_dir_all(&out).ok();
}
