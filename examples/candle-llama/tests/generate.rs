//! The example generates tokens at a small size: one prefill and decode
//! steps per pass, the inference scorecard in scorecard.json with decode
//! graded against the measured DRAM bandwidth at the bytes a token reads
//! (checked here from the model's sizes), and the token latencies in the
//! HTML report.

use candle_llama::{Args, run};
use clap::Parser;
use profiler::Profile;
use serde_json::Value;

const PASSES: u64 = 2;
const GENERATE: u64 = 5;
const LAYERS: u64 = 2;
const HIDDEN: u64 = 32;
const HEADS: u64 = 4;
const KV_HEADS: u64 = 2;
const INTER: u64 = 64;
const VOCAB: u64 = 64;
const SEQ: u64 = 8;
const BATCH: u64 = 2;

#[test]
fn generation_gives_the_inference_scorecard() {
    let out = std::env::temp_dir().join(format!("candle-llama-gen-{}", std::process::id()));
    let s = |v: u64| v.to_string();
    let (passes, generate) = (s(PASSES + 1), s(GENERATE));
    let sizes = [
        s(LAYERS),
        s(HIDDEN),
        s(HEADS),
        s(KV_HEADS),
        s(INTER),
        s(VOCAB),
        s(SEQ),
        s(BATCH),
    ];
    let args = Args::parse_from([
        "candle-llama",
        "--passes",
        &passes,
        "--warmup",
        "1",
        "--generate",
        &generate,
        "--layers",
        &sizes[0],
        "--hidden",
        &sizes[1],
        "--heads",
        &sizes[2],
        "--kv-heads",
        &sizes[3],
        "--intermediate",
        &sizes[4],
        "--vocab",
        &sizes[5],
        "--seq",
        &sizes[6],
        "--batch",
        &sizes[7],
        "--out",
        out.to_str().expect("utf-8 temp dir"),
        "--probe-array-mib",
        "8",
    ]);
    run(&args).expect("the run succeeds");

    let profile = Profile::read(out.join("profile.json")).expect("profile.json reads back");
    assert_eq!(
        profile.steps.count,
        PASSES * GENERATE,
        "warm-up pass left out"
    );
    assert_eq!(
        profile.steps.tokens,
        PASSES * (BATCH * SEQ + (GENERATE - 1) * BATCH),
        "prompts, then one token per sequence per decode step"
    );
    assert_eq!(profile.generation.events.len() as u64, PASSES * GENERATE);

    let sc: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("scorecard.json")).expect("scorecard.json"),
    )
    .expect("JSON");
    assert_eq!(sc["run_kind"], "generation");
    let rows = &sc["inference"];
    assert_eq!(rows["requests"], PASSES);
    assert_eq!(rows["ttft"]["samples"], PASSES);
    assert_eq!(rows["itl"]["samples"], PASSES * (GENERATE - 1));
    assert_eq!(rows["decode_tokens"], PASSES * (GENERATE - 1) * BATCH);
    assert_eq!(rows["prefill_tokens"], PASSES * BATCH * SEQ);
    assert!(sc["forward_backward_ratio"].is_null());

    // Bytes a generated token reads, from the sizes: every f32 weight once
    // per step, shared by the batch, plus the sequence's key/value cache at
    // the mean length of the decode steps (seq + 1 .. seq + GENERATE - 1).
    let kv_width = KV_HEADS * (HIDDEN / HEADS);
    let per_block = 2 * HIDDEN * HIDDEN + 2 * HIDDEN * kv_width + 3 * HIDDEN * INTER + 2 * HIDDEN;
    let params = 2 * VOCAB * HIDDEN + LAYERS * per_block + HIDDEN;
    let mean_len = SEQ as f64 + GENERATE as f64 / 2.0;
    let kv = (4 * LAYERS * 2 * kv_width) as f64 * mean_len;
    let per_token = (4.0 * params as f64 + BATCH as f64 * kv) / BATCH as f64;
    let given = sc["bytes_per_token"].as_f64().expect("bytes per token");
    assert!((given - per_token).abs() < 1e-6, "{given} vs {per_token}");
    let basis = rows["decode_vs_bandwidth"]["basis"].as_str().unwrap();
    assert!(basis.contains("(measured on this machine)"), "{basis}");
    assert!(
        rows["prefill_vs_compute"]["basis"]
            .as_str()
            .unwrap()
            .contains("2N + 2LHQT from the model shape")
    );

    let html = std::fs::read_to_string(out.join("report.html")).expect("report.html");
    assert!(html.contains("Inference Scorecard") && html.contains("Token latency"));
    std::fs::remove_dir_all(&out).ok();
}
