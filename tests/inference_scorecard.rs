//! The scorecard of recorded runs of each kind (training, prefill+decode,
//! forward only), read as a user reads it: the terminal text, Markdown,
//! HTML and the saved JSON. Every row is checked against the profile it
//! came from, and no row shows a number the run has no data for.
#![cfg(not(feature = "off"))]

mod common;

#[allow(dead_code, unreachable_pub)]
#[path = "../examples/decode.rs"]
mod decode;

use profiler::{Direction, Profile, brick};
use profiler_report::scorecard::{RunKind, ScorecardBuilder, TrainingScorecard};
use serde_json::Value;

fn json(sc: &TrainingScorecard) -> Value {
    serde_json::from_str(&sc.to_json()).expect("scorecard JSON parses")
}

/// The terminal row `name`, without its label.
fn row<'a>(text: &'a str, name: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("  {name:<16} ")))
        .unwrap_or_else(|| panic!("no `{name}` row in:\n{text}"))
}

fn has_row(text: &str, name: &str) -> bool {
    text.lines()
        .any(|l| l.starts_with(&format!("  {name:<16} ")))
}

fn build(profile: &Profile) -> TrainingScorecard {
    ScorecardBuilder::from_profile(profile)
        .build()
        .expect("scorecard")
}

/// Nearest-rank quantile, computed here independently of the report crate.
fn nearest_rank(mut xs: Vec<f64>, q: f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    let rank = ((q * xs.len() as f64).ceil() as usize).clamp(1, xs.len());
    xs[rank - 1]
}

/// What the inference rows must say, from the raw generation log: token
/// ends per request, gaps and time per output token.
struct Expected {
    ttft: Vec<f64>,
    itl: Vec<f64>,
    tpot: Vec<f64>,
    decode_tok_s: f64,
    prefill_tok_s: f64,
}

fn expected(p: &Profile) -> Expected {
    use profiler::profile::GenerationPhase::{Decode, Prefill};
    let ms = |ns: u64| ns as f64 / 1e6;
    let tokens_of = |step: Option<u64>| {
        let i = p
            .steps
            .samples_index
            .iter()
            .position(|&s| Some(s) == step)
            .expect("every phase ran in a recorded step");
        p.steps.samples_tokens[i]
    };
    let mut requests: Vec<Vec<u64>> = Vec::new();
    let (mut ttft, mut prefill, mut decode) = (Vec::new(), (0u64, 0u64), (0u64, 0u64));
    for e in &p.generation.events {
        match e.phase {
            Prefill => {
                requests.push(vec![e.end_ns()]);
                ttft.push(ms(e.duration_ns));
                prefill = (prefill.0 + tokens_of(e.step), prefill.1 + e.duration_ns);
            }
            Decode => {
                requests
                    .last_mut()
                    .expect("a prefill first")
                    .push(e.end_ns());
                decode = (decode.0 + tokens_of(e.step), decode.1 + e.duration_ns);
            }
        }
    }
    let mut itl = Vec::new();
    let mut tpot = Vec::new();
    for ends in &requests {
        let gaps: Vec<f64> = ends.windows(2).map(|w| ms(w[1] - w[0])).collect();
        if !gaps.is_empty() {
            tpot.push(ms(ends[ends.len() - 1] - ends[0]) / gaps.len() as f64);
        }
        itl.extend(gaps);
    }
    Expected {
        ttft,
        itl,
        tpot,
        decode_tok_s: decode.0 as f64 / (decode.1 as f64 / 1e9),
        prefill_tok_s: prefill.0 as f64 / (prefill.1 as f64 / 1e9),
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Two requests of the decode example: an 8-token prompt, then 12 tokens.
fn generation_run() -> Profile {
    let model = decode::Model::new(decode::Config::SMALL, 7);
    let prompt: Vec<usize> = (1..=8).collect();
    for _ in 0..2 {
        let out = decode::decode(&model, &prompt, 12);
        assert_eq!(out.len(), 12);
    }
    profiler::snapshot()
}

#[test]
fn a_prefill_decode_run_gets_the_inference_rows_and_no_backward_ones() {
    let _lock = common::exclusive();
    let profile = generation_run();
    let sc = build(&profile);
    assert_eq!(sc.run_kind, RunKind::Generation);
    let want = expected(&profile);
    assert_eq!(want.ttft.len(), 2);
    assert_eq!(want.itl.len(), 2 * 11, "11 gaps after each first token");

    let rows = sc.inference.as_ref().expect("inference rows");
    assert_eq!(rows.requests, 2);
    let ttft = rows.ttft.expect("TTFT");
    assert_eq!(ttft.samples, 2);
    assert!(close(ttft.p50_ms, nearest_rank(want.ttft.clone(), 0.5)));
    assert!(close(ttft.p90_ms, nearest_rank(want.ttft.clone(), 0.9)));
    let itl = rows.itl.expect("ITL");
    assert_eq!(itl.samples, 22);
    for (got, q) in [(itl.p50_ms, 0.5), (itl.p90_ms, 0.9), (itl.p99_ms, 0.99)] {
        assert!(close(got, nearest_rank(want.itl.clone(), q)), "ITL p{q}");
    }
    let tpot = rows.tpot.expect("TPOT");
    assert_eq!(tpot.samples, 2);
    assert!(close(tpot.p50_ms, nearest_rank(want.tpot.clone(), 0.5)));
    assert!(close(rows.decode_tok_s.unwrap(), want.decode_tok_s));
    assert!(close(rows.prefill_tok_s.unwrap(), want.prefill_tok_s));
    assert_eq!((rows.prefill_tokens, rows.decode_tokens), (16, 22));
    assert!(
        close(sc.throughput_tok_s, want.decode_tok_s),
        "graded on decode"
    );
    assert!(rows.not_available.is_empty(), "{:?}", rows.not_available);

    // No hardware: neither phase is graded, each says why and which ceiling.
    let d = &rows.decode_vs_bandwidth;
    assert_eq!((d.efficiency, d.grade), (None, None));
    assert!(d.basis.starts_with("memory bandwidth"), "{}", d.basis);
    let p = &rows.prefill_vs_compute;
    assert_eq!((p.efficiency, p.grade), (None, None));
    assert!(p.basis.starts_with("compute"), "{}", p.basis);

    let text = sc.to_string();
    assert!(
        text.starts_with("Inference scorecard (prefill/decode run)"),
        "{text}"
    );
    for name in ["TTFT", "TPOT", "ITL", "Prefill tok/s", "Decode tok/s"] {
        assert!(!row(&text, name).starts_with("n/a"), "{name}: {text}");
    }
    assert!(row(&text, "TTFT").ends_with("over 2 requests"), "{text}");
    assert!(row(&text, "ITL").ends_with("over 22 token gaps"), "{text}");
    assert!(row(&text, "Decode vs BW").starts_with("n/a: "), "{text}");
    assert_eq!(
        row(&text, "Bwd/Fwd ratio"),
        "n/a: prefill/decode run: no backward pass recorded"
    );
    assert!(
        !text.contains("bwd ms") && !text.contains("bwd/fwd"),
        "{text}"
    );
    assert!(
        !has_row(&text, "Throughput"),
        "the step mix is not a rate: {text}"
    );

    let v = json(&sc);
    assert_eq!(v["run_kind"], "generation");
    assert!(v["forward_backward_ratio"].is_null());
    for layer in v["per_layer_summary"].as_array().unwrap() {
        assert!(
            layer["bwd_ms"].is_null() && layer["ratio"].is_null(),
            "{layer}"
        );
        assert!(layer["fwd_ms"].as_f64().unwrap() > 0.0);
    }
    assert_eq!(v["inference"]["ttft"]["samples"], 2);
    assert_eq!(
        v["inference"]["itl_samples_ms"].as_array().unwrap().len(),
        22
    );
    let back = TrainingScorecard::from_json(&sc.to_json()).expect("reads back");
    assert_eq!(back.inference, sc.inference);
    assert_eq!(back.run_kind, RunKind::Generation);

    let md = sc.to_markdown();
    assert!(md.starts_with("## Inference Scorecard"), "{md}");
    assert!(md.contains("| TTFT | p50 "), "{md}");
    let html = sc.to_html();
    assert!(html.contains("<h2>Inference Scorecard</h2>"));
    assert!(html.contains("<td>ITL</td><td>p50 "), "{html}");
    assert!(!html.contains("<th>Bwd ms</th>"));
}

#[test]
fn a_generation_run_passes_the_inference_contract_and_gdp() {
    let _lock = common::exclusive();
    let profile = generation_run();
    for name in ["inference-scorecard-v1", "gpu-decode-profiling-v1"] {
        let report = profiler_report::contracts::verify_contract(name, &profile).unwrap();
        assert!(report.passed(), "{name}: {report}");
    }
    // A decode phase outside any step: its tokens are unknown, and both the
    // contract and the decode rate say so.
    let mut doctored = profile.clone();
    doctored.generation.events[1].step = None;
    let report =
        profiler_report::contracts::verify_contract("inference-scorecard-v1", &doctored).unwrap();
    let failed: Vec<&str> = report.failures().map(|r| r.id.as_str()).collect();
    assert_eq!(failed, ["INF-002", "INF-006"], "{report}");
    // A step without its decode phase: token latencies miss a token.
    let mut missing = profile.clone();
    missing.generation.events.pop();
    let report =
        profiler_report::contracts::verify_contract("gpu-decode-profiling-v1", &missing).unwrap();
    let failed: Vec<&str> = report.failures().map(|r| r.id.as_str()).collect();
    assert_eq!(failed, ["GDP-009"], "{report}");
    let sc = build(&doctored);
    let rows = sc.inference.unwrap();
    assert_eq!(rows.decode_tok_s, None);
    assert!(rows.not_available["decode_tok_s"].contains("1 of 22 decode phases"));
}

#[test]
fn a_forward_only_run_shows_no_backward_coverage_or_token_rows() {
    let _lock = common::exclusive();
    let model = decode::Model::new(decode::Config::SMALL, 7);
    assert_eq!(decode::forward_steps(&model, 10).len(), 10);
    let profile = profiler::snapshot();
    let sc = build(&profile);
    assert_eq!(sc.run_kind, RunKind::Forward);
    assert!(sc.inference.is_none());
    let text = sc.to_string();
    assert!(
        text.starts_with("Forward scorecard (forward only run)"),
        "{text}"
    );
    assert_eq!(
        row(&text, "Bwd/Fwd ratio"),
        "n/a: forward only run: no backward pass recorded"
    );
    assert_eq!(
        row(&text, "Wall coverage"),
        "n/a: no phases recorded: wrap the parts of each step in profiler::phase(..)"
    );
    for name in ["TTFT", "TPOT", "ITL", "Decode tok/s"] {
        assert!(!has_row(&text, name), "{name}: {text}");
    }
    // Steps of one token each: throughput is the steps' own.
    let tok_s = profile.steps.tokens as f64 / (profile.steps.total_ns as f64 / 1e9);
    assert!(close(sc.throughput_tok_s, tok_s));
    assert!(!text.contains("bwd ms"), "{text}");
    let v = json(&sc);
    assert_eq!(v["run_kind"], "forward");
    assert!(v["wall_coverage"].is_null() && v["forward_backward_ratio"].is_null());
    assert!(v.get("inference").is_none());
    let md = sc.to_markdown();
    assert!(md.starts_with("## Forward Scorecard"), "{md}");
    assert!(
        md.contains("| Wall coverage | n/a: no phases recorded"),
        "{md}"
    );
}

#[brick(GateProjection)]
fn work(n: u64) -> u64 {
    std::hint::black_box((0..n).sum())
}

#[test]
fn a_training_run_keeps_its_backward_rows_and_gets_no_token_rows() {
    let _lock = common::exclusive();
    for _ in 0..4 {
        let _step = profiler::step(32);
        {
            let _fwd = profiler::phase("forward");
            let _layer = profiler::layer(0, Direction::Forward);
            work(20_000);
        }
        let _bwd = profiler::phase("blk_bwd");
        let _layer = profiler::layer(0, Direction::Backward);
        work(40_000);
    }
    let profile = profiler::snapshot();
    let sc = build(&profile);
    assert_eq!(sc.run_kind, RunKind::Training);
    assert!(sc.inference.is_none() && sc.not_measured.is_empty());
    let layer = &sc.per_layer_summary[0];
    assert!(layer.bwd_ms > 0.0 && layer.fwd_ms > 0.0);
    let text = sc.to_string();
    assert!(text.starts_with("Training scorecard\n"), "{text}");
    assert!(!row(&text, "Bwd/Fwd ratio").starts_with("n/a"), "{text}");
    assert!(
        text.contains("bwd ms") && text.contains("bwd/fwd"),
        "{text}"
    );
    assert!(!has_row(&text, "TTFT"), "{text}");
    let v = json(&sc);
    assert_eq!(v["run_kind"], "training");
    assert!(v["forward_backward_ratio"].as_f64().unwrap() > 0.0);
    assert!(v["per_layer_summary"][0]["bwd_ms"].as_f64().unwrap() > 0.0);
    assert!(sc.to_markdown().starts_with("## Training Scorecard"));
}

/// A brick of `n` calls of `ns` each, per `(ns, n)`, one exact histogram
/// bucket each.
fn brick_of(name: &str, calls: &[(u64, u64)]) -> profiler::BrickStats {
    use profiler::stats::{HistBucket, LatencyHistogram};
    let mut b = profiler::BrickStats::new(name, profiler::BrickCategory::Other);
    b.count = calls.iter().map(|c| c.1).sum();
    b.total_ns = calls.iter().map(|c| c.0 * c.1).sum();
    b.min_ns = calls.iter().map(|c| c.0).min().unwrap_or(0);
    b.max_ns = calls.iter().map(|c| c.0).max().unwrap_or(0);
    b.latency = LatencyHistogram {
        buckets: calls
            .iter()
            .map(|&(ns, count)| HistBucket {
                lo_ns: ns,
                hi_ns: ns + 1,
                count,
            })
            .collect(),
    };
    b
}

#[test]
fn one_cold_call_is_named_and_does_not_rank_a_hotspot() {
    let mut p = Profile::empty();
    // 199 calls of 4 us and one cold 12.6 ms call (13.4 ms in all), beside
    // a brick of 200 calls of 20 us (4 ms in all).
    p.bricks.push(brick_of(
        "OutputProjection",
        &[(4_000, 199), (12_600_000, 1)],
    ));
    p.bricks.push(brick_of("GateProjection", &[(20_000, 200)]));
    let sc = build(&p);
    let names: Vec<&str> = sc.hotspot_ops.iter().map(|h| h.0.as_str()).collect();
    assert_eq!(names, ["GateProjection", "OutputProjection"], "{sc}");
    // Ranked without the cold call's excess over p99: 199 x 4 us + 4 us.
    assert!(
        (sc.hotspot_ops[1].1 - 0.8).abs() < 0.01,
        "{:?}",
        sc.hotspot_ops
    );
    let warning = sc
        .warnings
        .iter()
        .find(|w| w.starts_with("`OutputProjection`"))
        .unwrap_or_else(|| panic!("{:?}", sc.warnings));
    assert!(
        warning.contains("12.6 ms") && warning.contains("94.1%"),
        "{warning}"
    );
    assert!(!sc.warnings.iter().any(|w| w.contains("GateProjection")));
}
