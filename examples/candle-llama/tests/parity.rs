//! The candle model against the same model in PyTorch: the example, run at
//! the sizes of the committed trace with `--parity-trace` and `--mapping`,
//! compares exactly the bricks the mapping names on both sides, with the
//! same calls per forward pass, over most of each side's step time, and
//! leaves no large PyTorch op unmapped. Times are not asserted: the trace
//! was recorded on a loaded machine, and so is this run.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use candle_llama::{Args, run};
use clap::Parser;
use profiler_report::parity::Basis;

/// Passes after warm-up.
const PASSES: u64 = 2;
/// Blocks of the traced model (the example's default).
const LAYERS: u64 = 4;

/// The committed fixtures, from this package's folder.
fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/real/candle")
        .join(name)
}

/// Each candle span name (as the PyTorch script names its ranges) and the
/// brick the candle side records it as.
const SPANS: [(&str, &str); 7] = [
    ("block", "block"),
    ("attn", "attn"),
    ("attn-rot", "RopeEmbedding"),
    ("mlp", "mlp"),
    ("rms-norm", "RmsNorm"),
    ("linear", "linear"),
    ("sample", "Sampling"),
];

/// Calls per step of each `record_function` range in the PyTorch trace.
fn torch_calls_per_step(trace: &Path) -> BTreeMap<String, f64> {
    let text = std::fs::read_to_string(trace).expect("the trace reads");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("the trace is JSON");
    let ranges: Vec<&str> = doc["traceEvents"]
        .as_array()
        .expect("traceEvents")
        .iter()
        .filter(|e| e["ph"] == "X" && e["cat"] == "user_annotation")
        .filter_map(|e| e["name"].as_str())
        .collect();
    let steps = ranges
        .iter()
        .filter(|n| n.starts_with("ProfilerStep#"))
        .count();
    assert_eq!(steps, 2, "the trace's profiled passes");
    let mut calls = BTreeMap::new();
    for name in ranges.iter().filter(|n| !n.starts_with("ProfilerStep#")) {
        *calls.entry((*name).to_owned()).or_insert(0.0) += 1.0 / steps as f64;
    }
    calls
}

#[test]
fn candle_and_pytorch_compare_the_mapped_bricks_call_for_call() {
    let out = std::env::temp_dir().join(format!("candle-llama-parity-{}", std::process::id()));
    let (trace, mapping) = (
        fixture("llama_torch_cpu.trace.json"),
        fixture("llama.mapping.toml"),
    );
    let passes = (PASSES + 1).to_string();
    // The trace's sizes are the example's defaults: only the passes differ.
    let args = Args::parse_from([
        "candle-llama",
        "--passes",
        &passes,
        "--warmup",
        "1",
        "--no-ceilings",
        // The PyTorch trace is of forward passes over the whole sequence.
        "--generate",
        "0",
        "--out",
        out.to_str().expect("utf-8 temp dir"),
        "--parity-trace",
        trace.to_str().expect("utf-8 path"),
        "--mapping",
        mapping.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(args.layers as u64, LAYERS);
    let outcome = run(&args).expect("the run succeeds");
    let parity = outcome.parity.as_ref().expect("a parity comparison");
    let c = &parity.comparison;
    let profile = &outcome.profile;
    assert_eq!(profile.steps.count, PASSES);

    // Every span is called as often per pass on both sides, compared or not.
    let torch = torch_calls_per_step(&trace);
    for (span, brick) in SPANS {
        let ours = profile.brick(brick).map_or(0, |b| b.count) as f64 / PASSES as f64;
        assert_eq!(torch.get(span), Some(&ours), "{span} ({brick}) per pass");
    }
    assert_eq!(torch["block"], LAYERS as f64);
    assert_eq!(torch["linear"], 7.0 * LAYERS as f64 + 1.0);

    // Exactly the one level of bricks that never nest is compared.
    let compared: BTreeSet<&str> = c.all_gaps.iter().map(|g| g.op.as_str()).collect();
    assert_eq!(
        compared,
        BTreeSet::from(["RmsNorm", "Sampling", "attn", "mlp"])
    );
    assert_eq!(c.coverage.compared_ops, 4);
    for gap in &c.all_gaps {
        assert!(
            gap.ours_ms > 0.0 && gap.baseline_ms > 0.0,
            "{} timed on both sides: {gap:?}",
            gap.op
        );
    }
    // The nesting bricks are candle's alone; the LM head and the embedding,
    // which candle does not time apart, PyTorch's alone.
    let only_ours: BTreeSet<&str> = c.only_ours.iter().map(String::as_str).collect();
    assert_eq!(
        only_ours,
        BTreeSet::from(["RopeEmbedding", "block", "linear"])
    );
    let only_torch: BTreeSet<&str> = c.only_baseline.iter().map(String::as_str).collect();
    assert_eq!(only_torch, BTreeSet::from(["Embedding", "LmHead"]));

    // The verdict says what it was computed over: most of each step.
    assert_eq!(
        (c.coverage.ours_basis, c.coverage.baseline_basis),
        (Basis::StepTime, Basis::StepTime)
    );
    assert!(c.coverage.clocks_agree(), "host times on both sides");
    assert!(
        c.coverage.ours > 0.8 && c.coverage.ours <= 1.0,
        "candle: {:?}",
        c.coverage
    );
    assert!(
        c.coverage.baseline > 0.9 && c.coverage.baseline <= 1.0,
        "pytorch: {:?}",
        c.coverage
    );
    let verdict = c.to_string();
    assert!(verdict.contains("compared"), "{verdict}");
    assert!(verdict.contains("of candle's step time"), "{verdict}");
    assert!(verdict.contains("of pytorch's step time"), "{verdict}");

    // No large PyTorch op is left unmapped.
    let import = &parity.baseline;
    assert_eq!(import.steps, 2);
    assert!(import.mapped_fraction > 0.9, "{}", import.mapped_fraction);
    let step_ms = import.summary.step_ns.unwrap_or(0.0) / 1e6;
    for op in &import.unmapped {
        assert!(op.ms < 0.01 * step_ms, "{} unmapped: {} ms", op.name, op.ms);
    }
    assert!(
        import.summary.tokens_per_s.unwrap_or(0.0) > 0.0,
        "tokens per step"
    );

    // The reports sit beside the others.
    for name in ["parity.md", "parity.json", "parity.svg", "report.html"] {
        assert!(outcome.files.contains(&out.join(name)), "{name}");
    }
    let json = std::fs::read_to_string(out.join("parity.json")).expect("parity.json");
    assert!(json.contains("\"RmsNorm\"") && json.contains("\"pytorch\""));
    std::fs::remove_dir_all(&out).ok();
}
