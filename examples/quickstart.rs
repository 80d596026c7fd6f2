//! Quickstart: annotate four CPU kernels as bricks, run them a few hundred
//! times like a tiny MLP block would, and print the profile.
//!
//! ```text
//! cargo run --release --example quickstart
//! ```

use profiler::brick;

const ROWS: usize = 64;
const DIM: usize = 256;
const HIDDEN: usize = 512;

/// `out[m x n] = a[m x k] * b[k x n]`, row-major, i-k-j loop order.
#[brick("Matmul", category = Ffn, elements = m * n, bytes = 4 * (m * k + k * n + m * n), flops = 2 * m * n * k)]
fn matmul(a: &[f32], b: &[f32], out: &mut [f32], m: usize, k: usize, n: usize) {
    out.fill(0.0);
    for i in 0..m {
        let row = &mut out[i * n..(i + 1) * n];
        for (p, &a_ip) in a[i * k..(i + 1) * k].iter().enumerate() {
            for (o, &b_pj) in row.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                *o += a_ip * b_pj;
            }
        }
    }
}

/// Row-wise RMSNorm with a learned scale.
#[brick(RmsNorm, elements = x.len(), bytes = 8 * x.len(), flops = 4 * x.len())]
fn rms_norm(x: &mut [f32], scale: &[f32]) {
    for row in x.chunks_mut(scale.len()) {
        let mean_sq = row.iter().map(|v| v * v).sum::<f32>() / row.len() as f32;
        let inv = 1.0 / (mean_sq + 1e-6).sqrt();
        for (v, s) in row.iter_mut().zip(scale) {
            *v *= inv * s;
        }
    }
}

/// SiLU in place: `x * sigmoid(x)`.
#[brick(SiLU, elements = x.len(), bytes = 8 * x.len(), flops = 5 * x.len())]
fn silu(x: &mut [f32]) {
    for v in x.iter_mut() {
        *v /= 1.0 + (-*v).exp();
    }
}

/// Numerically stable softmax over each row of `width` values.
#[brick(Softmax, elements = x.len(), bytes = 8 * x.len(), flops = 5 * x.len())]
fn softmax(x: &mut [f32], width: usize) {
    for row in x.chunks_mut(width) {
        let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mut sum = 0.0;
        for v in row.iter_mut() {
            *v = (*v - max).exp();
            sum += *v;
        }
        row.iter_mut().for_each(|v| *v /= sum);
    }
}

/// Deterministic pseudo-random weights in [-0.05, 0.05).
fn weights(len: usize, seed: u32) -> Vec<f32> {
    let mut state = seed.wrapping_mul(2_654_435_761).max(1);
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state as f32 / u32::MAX as f32 - 0.5) * 0.1
        })
        .collect()
}

fn main() {
    let w_up = weights(DIM * HIDDEN, 1);
    let w_down = weights(HIDDEN * DIM, 2);
    let scale = vec![1.0f32; DIM];
    let mut x = weights(ROWS * DIM, 3);
    let mut hidden = vec![0.0f32; ROWS * HIDDEN];
    let mut out = vec![0.0f32; ROWS * DIM];

    profiler::enable();
    for _ in 0..300 {
        rms_norm(&mut x, &scale);
        matmul(&x, &w_up, &mut hidden, ROWS, DIM, HIDDEN);
        silu(&mut hidden);
        matmul(&hidden, &w_down, &mut out, ROWS, HIDDEN, DIM);
        softmax(&mut out, DIM);
        for (xi, oi) in x.iter_mut().zip(&out) {
            *xi += oi; // residual
        }
    }
    let profile = profiler::snapshot();
    print!("{}", profiler_report::summary_text(&profile));
    match profile.brick("Matmul") {
        Some(mm) => println!(
            "\nmatmul: {:.2} GFLOP/s, {:.2} GB/s, p99 {:.1} µs (checksum {:.4})",
            mm.gflops(),
            mm.throughput_gbps(),
            mm.p99_us(),
            x.iter().sum::<f32>()
        ),
        None => println!("\nnothing recorded: the profiler was compiled out (`off` feature)"),
    }
}
