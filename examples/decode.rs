//! Inference generation, profiled the way a GPU decoder is: deferred sync
//! mode with a device timer, one "sync" and `finalize` per step; the prompt
//! as one `prefill` step, then one `decode` step per token; then the
//! inference scorecard (TTFT, TPOT, ITL, prefill and decode tokens/s) and a
//! check against the `gpu-decode-profiling-v1` contract.
//!
//! A small transformer (embedding, layers of RMSNorm, QKV with a KV cache,
//! RoPE, attention, output projection, SwiGLU FFN, a final norm and an LM
//! head) written as plain CPU kernels, every one a `#[brick]`. The CPU event
//! timer stands in for CUDA events: bricks record start/end events and
//! `finalize(elapsed_ns())` resolves them after each token.
//!
//! ```text
//! cargo run --release --example decode -- --tokens 64 --prompt 16
//! ```

use profiler::{
    Direction, brick,
    sync::{CpuEventTimer, SyncMode},
};

/// Model and run sizes.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// Model width.
    pub hidden: usize,
    /// Attention heads (`hidden` is a multiple).
    pub heads: usize,
    /// FFN width.
    pub ffn: usize,
    /// Vocabulary size.
    pub vocab: usize,
    /// Transformer layers.
    pub layers: usize,
}

impl Config {
    /// Small enough for a debug-build test, with the per-call work ordered
    /// LM head (vocab x hidden) > gate (ffn x hidden) > RMSNorm (hidden).
    pub const SMALL: Config = Config {
        hidden: 64,
        heads: 4,
        ffn: 256,
        vocab: 2048,
        layers: 2,
    };
}

struct Layer {
    attn_norm: Vec<f32>,
    wqkv: Vec<f32>,
    wo: Vec<f32>,
    ffn_norm: Vec<f32>,
    w_gate: Vec<f32>,
    w_up: Vec<f32>,
    w_down: Vec<f32>,
}

/// Weights with a deterministic pseudo-random fill.
pub struct Model {
    cfg: Config,
    embed: Vec<f32>,
    layers: Vec<Layer>,
    final_norm: Vec<f32>,
    lm_head: Vec<f32>,
}

/// Per-layer key and value cache, one row of `hidden` per position.
struct KvCache {
    k: Vec<Vec<f32>>,
    v: Vec<Vec<f32>>,
}

fn weights(n: usize, seed: &mut u64, scale: f32) -> Vec<f32> {
    (0..n)
        .map(|_| {
            // xorshift64*: reproducible without a dependency.
            *seed ^= *seed >> 12;
            *seed ^= *seed << 25;
            *seed ^= *seed >> 27;
            let r = seed.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40;
            (r as f32 / (1u64 << 24) as f32 - 0.5) * 2.0 * scale
        })
        .collect()
}

impl Model {
    /// A model of `cfg` with weights from `seed`.
    pub fn new(cfg: Config, mut seed: u64) -> Self {
        let (h, f) = (cfg.hidden, cfg.ffn);
        let s = &mut seed;
        let scale = 1.0 / (h as f32).sqrt();
        let layers = (0..cfg.layers)
            .map(|_| Layer {
                attn_norm: vec![1.0; h],
                wqkv: weights(3 * h * h, s, scale),
                wo: weights(h * h, s, scale),
                ffn_norm: vec![1.0; h],
                w_gate: weights(f * h, s, scale),
                w_up: weights(f * h, s, scale),
                w_down: weights(h * f, s, 1.0 / (f as f32).sqrt()),
            })
            .collect();
        Self {
            cfg,
            embed: weights(cfg.vocab * h, s, 1.0),
            layers,
            final_norm: vec![1.0; h],
            lm_head: weights(cfg.vocab * h, s, scale),
        }
    }
}

/// `w[rows x x.len()] * x`.
fn matvec(w: &[f32], x: &[f32]) -> Vec<f32> {
    w.chunks_exact(x.len())
        .map(|row| row.iter().zip(x).map(|(a, b)| a * b).sum())
        .collect()
}

#[brick(Embedding, elements = 1)]
fn embed(table: &[f32], token: usize, hidden: usize) -> Vec<f32> {
    table[token * hidden..(token + 1) * hidden].to_vec()
}

#[brick(RmsNorm, elements = x.len())]
fn rms_norm(x: &[f32], scale: &[f32]) -> Vec<f32> {
    let mean_sq = x.iter().map(|v| v * v).sum::<f32>() / x.len() as f32;
    let inv = 1.0 / (mean_sq + 1e-6).sqrt();
    x.iter().zip(scale).map(|(v, s)| v * inv * s).collect()
}

/// Projects to q, k and v and appends k and v to the layer's cache.
#[brick(QkvProjection, flops = 2 * w.len())]
fn qkv(x: &[f32], w: &[f32], k_cache: &mut Vec<Vec<f32>>, v_cache: &mut Vec<Vec<f32>>) -> Vec<f32> {
    let h = x.len();
    let out = matvec(w, x);
    k_cache.push(out[h..2 * h].to_vec());
    v_cache.push(out[2 * h..].to_vec());
    out[..h].to_vec()
}

/// Rotary position embedding of the query and the newest key.
#[brick(RopeEmbedding)]
fn rope(q: &mut [f32], k: &mut [f32], pos: usize, head_dim: usize) {
    for x in [q, k] {
        for head in x.chunks_exact_mut(head_dim) {
            for (i, pair) in head.chunks_exact_mut(2).enumerate() {
                let theta = pos as f32 / 10_000f32.powf(2.0 * i as f32 / head_dim as f32);
                let (sin, cos) = theta.sin_cos();
                let (a, b) = (pair[0], pair[1]);
                pair[0] = a * cos - b * sin;
                pair[1] = a * sin + b * cos;
            }
        }
    }
}

/// Scaled dot products of the query with every cached key, per head.
#[brick(AttentionScore)]
fn attention_scores(q: &[f32], keys: &[Vec<f32>], heads: usize) -> Vec<f32> {
    let d = q.len() / heads;
    let scale = 1.0 / (d as f32).sqrt();
    (0..heads)
        .flat_map(|h| {
            let qh = &q[h * d..(h + 1) * d];
            keys.iter().map(move |k| {
                qh.iter()
                    .zip(&k[h * d..(h + 1) * d])
                    .map(|(a, b)| a * b)
                    .sum::<f32>()
                    * scale
            })
        })
        .collect()
}

#[brick(AttentionSoftmax)]
fn softmax(scores: &mut [f32], width: usize) {
    for row in scores.chunks_exact_mut(width) {
        let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mut sum = 0.0;
        for v in row.iter_mut() {
            *v = (*v - max).exp();
            sum += *v;
        }
        row.iter_mut().for_each(|v| *v /= sum);
    }
}

/// Attention-weighted sum of the cached values, per head.
#[brick(AttentionOutput)]
fn attention_output(probs: &[f32], values: &[Vec<f32>], heads: usize, hidden: usize) -> Vec<f32> {
    let d = hidden / heads;
    let mut out = vec![0.0; hidden];
    for (h, p) in probs.chunks_exact(values.len()).enumerate() {
        for (weight, v) in p.iter().zip(values) {
            for (o, x) in out[h * d..(h + 1) * d]
                .iter_mut()
                .zip(&v[h * d..(h + 1) * d])
            {
                *o += weight * x;
            }
        }
    }
    out
}

#[brick(OutputProjection, flops = 2 * w.len())]
fn output_projection(x: &[f32], w: &[f32]) -> Vec<f32> {
    matvec(w, x)
}

#[brick(GateProjection, flops = 2 * w.len())]
fn gate_projection(x: &[f32], w: &[f32]) -> Vec<f32> {
    matvec(w, x)
}

#[brick(UpProjection, flops = 2 * w.len())]
fn up_projection(x: &[f32], w: &[f32]) -> Vec<f32> {
    matvec(w, x)
}

/// SwiGLU: `silu(gate) * up`.
#[brick(SiLU)]
fn swiglu(gate: &[f32], up: &[f32]) -> Vec<f32> {
    gate.iter()
        .zip(up)
        .map(|(g, u)| g / (1.0 + (-g).exp()) * u)
        .collect()
}

#[brick(DownProjection, flops = 2 * w.len())]
fn down_projection(x: &[f32], w: &[f32]) -> Vec<f32> {
    matvec(w, x)
}

#[brick("ResidualAdd", category = Other)]
fn residual_add(x: &mut [f32], y: &[f32]) {
    x.iter_mut().zip(y).for_each(|(a, b)| *a += b);
}

#[brick(LmHead, elements = 1, flops = 2 * w.len())]
fn lm_head(x: &[f32], w: &[f32]) -> Vec<f32> {
    matvec(w, x)
}

/// Greedy sampling.
#[brick(Sampling)]
fn argmax(logits: &[f32]) -> usize {
    logits
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map_or(0, |(i, _)| i)
}

/// Decodes one token at `pos` and returns the next one.
fn forward(m: &Model, cache: &mut [KvCache], token: usize, pos: usize) -> usize {
    let c = m.cfg;
    let mut x = embed(&m.embed, token, c.hidden);
    for (i, (layer, kv)) in m.layers.iter().zip(cache.iter_mut()).enumerate() {
        let _scope = profiler::layer(i, Direction::Forward);
        let h = rms_norm(&x, &layer.attn_norm);
        let mut q = qkv(&h, &layer.wqkv, &mut kv.k, &mut kv.v);
        if let Some(k) = kv.k.last_mut() {
            rope(&mut q, k, pos, c.hidden / c.heads);
        }
        let mut scores = attention_scores(&q, &kv.k, c.heads);
        softmax(&mut scores, kv.k.len());
        let ctx = attention_output(&scores, &kv.v, c.heads, c.hidden);
        let attn = output_projection(&ctx, &layer.wo);
        residual_add(&mut x, &attn);
        let h = rms_norm(&x, &layer.ffn_norm);
        let g = gate_projection(&h, &layer.w_gate);
        let u = up_projection(&h, &layer.w_up);
        let ffn = down_projection(&swiglu(&g, &u), &layer.w_down);
        residual_add(&mut x, &ffn);
    }
    let h = rms_norm(&x, &m.final_norm);
    argmax(&lm_head(&h, &m.lm_head))
}

/// Generates `tokens` tokens after `prompt` in deferred sync mode with the
/// CPU event timer: the prompt as one step of `prompt.len()` tokens in the
/// `prefill` phase (its last position gives the first token), then one
/// step of one token per further token in the `decode` phase. Returns the
/// generated tokens. Every position runs the whole model, LM head
/// included, so the LM head runs once per step token.
pub fn decode(model: &Model, prompt: &[usize], tokens: usize) -> Vec<usize> {
    profiler::sync::set_sync_mode(SyncMode::Deferred);
    profiler::Config::new()
        .device_timer(CpuEventTimer::default())
        .apply();
    let mut cache: Vec<KvCache> = (0..model.cfg.layers)
        .map(|_| KvCache {
            k: Vec::new(),
            v: Vec::new(),
        })
        .collect();
    let mut out = Vec::with_capacity(tokens);
    if tokens == 0 {
        return out;
    }
    let prompt = if prompt.is_empty() { &[0][..] } else { prompt };
    let mut token = 0;
    {
        let _step = profiler::step(prompt.len() as u64);
        let _prefill = profiler::phase("prefill");
        for (pos, &t) in prompt.iter().enumerate() {
            token = forward(model, &mut cache, t % model.cfg.vocab, pos);
        }
        // On a GPU: synchronize the stream here, then resolve the events.
        profiler::sync::finalize(profiler::sync::elapsed_ns());
    }
    out.push(token);
    for pos in prompt.len()..prompt.len() + tokens - 1 {
        let _step = profiler::step(1);
        let _decode = profiler::phase("decode");
        token = forward(model, &mut cache, token, pos);
        profiler::sync::finalize(profiler::sync::elapsed_ns());
        out.push(token);
    }
    out
}

/// The same model as plain forward passes, one step of one token each and
/// no generation phase: a forward-only run (its scorecard has no token
/// latencies). Returns the tokens.
pub fn forward_steps(model: &Model, tokens: usize) -> Vec<usize> {
    let mut cache: Vec<KvCache> = (0..model.cfg.layers)
        .map(|_| KvCache {
            k: Vec::new(),
            v: Vec::new(),
        })
        .collect();
    let mut token = 1;
    (0..tokens)
        .map(|pos| {
            let _step = profiler::step(1);
            token = forward(model, &mut cache, token, pos);
            token
        })
        .collect()
}

#[allow(dead_code)] // `main` is unused where tests include this file as a module.
fn main() {
    let (mut tokens, mut prompt_len) = (64, 16);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next().map(|v| v.parse::<usize>())) {
            ("--tokens", Some(Ok(n))) if n > 0 => tokens = n,
            ("--prompt", Some(Ok(n))) if n > 0 => prompt_len = n,
            _ => {
                eprintln!(
                    "usage: decode [--tokens N] [--prompt P]   (N, P > 0; defaults 64 and 16)"
                );
                std::process::exit(2);
            }
        }
    }
    let model = Model::new(Config::SMALL, 42);
    let prompt: Vec<usize> = (1..=prompt_len).collect();
    profiler::enable();
    let generated = decode(&model, &prompt, tokens);
    let profile = profiler::snapshot();
    // The inference scorecard; hardware from PROFILER_HARDWARE and friends.
    let scorecard = profiler_report::scorecard();
    profiler::disable();

    println!(
        "generated {} tokens after a {prompt_len}-token prompt ({} layers, vocab {}): {:?}...",
        generated.len(),
        Config::SMALL.layers,
        Config::SMALL.vocab,
        &generated[..generated.len().min(8)]
    );
    println!("{}", profiler_report::summary_text(&profile));
    println!("{scorecard}");
    match profiler_report::contracts::verify_contract("gpu-decode-profiling-v1", &profile) {
        Ok(report) => {
            print!("{report}");
            if !report.passed() {
                std::process::exit(1);
            }
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
