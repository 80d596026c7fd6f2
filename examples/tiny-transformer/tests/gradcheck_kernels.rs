//! Finite-difference gradient checks of the individual backward kernels.
//!
//! Each kernel `y = f(x)` is turned into a scalar `L = Σ w·y` with random weights `w`;
//! the analytic gradient is the backward kernel applied to `dy = w`, and the numeric one
//! comes from central differences.
//!
//! `eps = 1e-2`: the kernels compute in `f32`, so the finite-difference error is dominated
//! by rounding (`∝ ulp / eps`), not truncation (`∝ eps²`). Measured maximum relative errors
//! are ~3e-4..2e-3 at `eps = 1e-2` versus up to 1.7e-2 at `eps = 1e-3` (the cross-entropy
//! kernel returns its loss as an `f32`). A wrong backward formula gives errors of order 1.

mod common;

use common::{assert_grad_close, numeric_grad, random_vec, weighted_sum};
use tiny_transformer::Rng;
use tiny_transformer::kernels::activation::{
    silu_gate_backward, silu_gate_forward, softmax_backward, softmax_forward,
};
use tiny_transformer::kernels::attention::{
    AttnShape, attention_output_backward, attention_output_forward, attention_scores_backward,
    attention_scores_forward,
};
use tiny_transformer::kernels::loss::{cross_entropy_backward, cross_entropy_forward};
use tiny_transformer::kernels::matmul::{matmul, matmul_backward_a, matmul_backward_b};
use tiny_transformer::kernels::norm::{rmsnorm_backward, rmsnorm_forward};
use tiny_transformer::kernels::rope::{ROPE_BASE, RopeTable, rope_backward, rope_forward};

const EPS: f32 = 1e-2;
const TOL: f64 = 1e-2;
/// Gradients are O(1); below this they are compared absolutely.
const FLOOR: f64 = 1e-3;

#[test]
fn matmul_backward_matches_finite_differences() {
    let mut rng = Rng::new(1);
    let (m, k, n) = (3, 4, 5);
    let a = random_vec(&mut rng, m * k, 0.0, 1.0);
    let b = random_vec(&mut rng, k * n, 0.0, 1.0);
    let w = random_vec(&mut rng, m * n, 0.0, 1.0);
    let loss = |a: &[f32], b: &[f32]| {
        let mut c = vec![0.0; m * n];
        matmul(a, b, &mut c, m, k, n);
        weighted_sum(&c, &w)
    };
    let (mut da, mut db) = (vec![0.0; m * k], vec![0.0; k * n]);
    matmul_backward_a(&w, &b, &mut da, m, k, n);
    matmul_backward_b(&a, &w, &mut db, m, k, n);
    assert_grad_close(
        "matmul dA",
        &da,
        &numeric_grad(&a, EPS, |a| loss(a, &b)),
        TOL,
        FLOOR,
    );
    assert_grad_close(
        "matmul dB",
        &db,
        &numeric_grad(&b, EPS, |b| loss(&a, b)),
        TOL,
        FLOOR,
    );
}

#[test]
fn rmsnorm_backward_matches_finite_differences() {
    let mut rng = Rng::new(2);
    let (rows, dim) = (3, 6);
    let x = random_vec(&mut rng, rows * dim, 0.2, 1.0);
    let gain = random_vec(&mut rng, dim, 1.0, 0.3);
    let w = random_vec(&mut rng, rows * dim, 0.0, 1.0);
    let loss = |x: &[f32], gain: &[f32]| {
        let (mut y, mut inv) = (vec![0.0; rows * dim], vec![0.0; rows]);
        rmsnorm_forward(x, gain, &mut y, &mut inv, dim);
        weighted_sum(&y, &w)
    };
    let (mut y, mut inv) = (vec![0.0; rows * dim], vec![0.0; rows]);
    rmsnorm_forward(&x, &gain, &mut y, &mut inv, dim);
    let (mut dx, mut dgain) = (vec![0.0; rows * dim], vec![0.0; dim]);
    rmsnorm_backward(&x, &gain, &inv, &w, &mut dx, &mut dgain, dim);
    let num_dx = numeric_grad(&x, EPS, |x| loss(x, &gain));
    let num_dgain = numeric_grad(&gain, EPS, |g| loss(&x, g));
    assert_grad_close("rmsnorm dx", &dx, &num_dx, TOL, FLOOR);
    assert_grad_close("rmsnorm dgain", &dgain, &num_dgain, TOL, FLOOR);
}

#[test]
fn softmax_backward_matches_finite_differences() {
    let mut rng = Rng::new(3);
    let (rows, cols) = (3, 5);
    let x = random_vec(&mut rng, rows * cols, 0.0, 2.0);
    let w = random_vec(&mut rng, rows * cols, 0.0, 1.0);
    let loss = |x: &[f32]| {
        let mut p = x.to_vec();
        softmax_forward(&mut p, cols);
        weighted_sum(&p, &w)
    };
    let mut p = x.clone();
    softmax_forward(&mut p, cols);
    let mut dx = vec![0.0; rows * cols];
    softmax_backward(&p, &w, &mut dx, cols);
    assert_grad_close("softmax dx", &dx, &numeric_grad(&x, EPS, loss), TOL, FLOOR);
}

#[test]
fn rope_backward_matches_finite_differences() {
    let mut rng = Rng::new(4);
    // Two sequences of 3 positions; rows of 10 columns of which the first 8 are two heads
    // of size 4 that get rotated (the last 2 play the role of `v` and stay untouched).
    let (seq_len, head_dim, row_stride, rot_cols) = (3, 4, 10, 8);
    let table = RopeTable::new(seq_len, head_dim, ROPE_BASE);
    let x = random_vec(&mut rng, 2 * seq_len * row_stride, 0.0, 1.0);
    let w = random_vec(&mut rng, x.len(), 0.0, 1.0);
    let loss = |x: &[f32]| {
        let mut y = x.to_vec();
        rope_forward(&mut y, row_stride, rot_cols, &table);
        weighted_sum(&y, &w)
    };
    let mut dx = w.clone();
    rope_backward(&mut dx, row_stride, rot_cols, &table);
    assert_grad_close("rope dx", &dx, &numeric_grad(&x, EPS, loss), TOL, FLOOR);
}

#[test]
fn silu_gate_backward_matches_finite_differences() {
    let mut rng = Rng::new(5);
    let n = 24;
    let gate = random_vec(&mut rng, n, 0.0, 2.0);
    let up = random_vec(&mut rng, n, 0.0, 1.0);
    let w = random_vec(&mut rng, n, 0.0, 1.0);
    let loss = |gate: &[f32], up: &[f32]| {
        let mut out = vec![0.0; n];
        silu_gate_forward(gate, up, &mut out);
        weighted_sum(&out, &w)
    };
    let (mut d_gate, mut d_up) = (vec![0.0; n], vec![0.0; n]);
    silu_gate_backward(&gate, &up, &w, &mut d_gate, &mut d_up);
    let num_gate = numeric_grad(&gate, EPS, |g| loss(g, &up));
    let num_up = numeric_grad(&up, EPS, |u| loss(&gate, u));
    assert_grad_close("silu_gate d_gate", &d_gate, &num_gate, TOL, FLOOR);
    assert_grad_close("silu_gate d_up", &d_up, &num_up, TOL, FLOOR);
}

/// RoPE → causal scores → softmax → attention output, exactly as inside a block.
#[test]
fn attention_block_backward_matches_finite_differences() {
    let mut rng = Rng::new(6);
    let s = AttnShape {
        batch: 2,
        seq_len: 4,
        n_heads: 2,
        head_dim: 4,
    };
    let d = s.d_model();
    let table = RopeTable::new(s.seq_len, s.head_dim, ROPE_BASE);
    let qkv = random_vec(&mut rng, s.rows() * 3 * d, 0.0, 1.0);
    let w = random_vec(&mut rng, s.rows() * d, 0.0, 1.0);
    let forward = |qkv_raw: &[f32]| {
        let mut qkv = qkv_raw.to_vec();
        rope_forward(&mut qkv, 3 * d, 2 * d, &table);
        let mut probs = vec![0.0; s.scores_len()];
        attention_scores_forward(&qkv, &mut probs, s);
        softmax_forward(&mut probs, s.seq_len);
        let mut out = vec![0.0; s.rows() * d];
        attention_output_forward(&probs, &qkv, &mut out, s);
        (qkv, probs, out)
    };
    let (qkv_rot, probs, _) = forward(&qkv);
    let mut d_probs = vec![0.0; s.scores_len()];
    let mut d_scores = vec![0.0; s.scores_len()];
    let mut d_qkv = vec![0.0; qkv.len()];
    attention_output_backward(&probs, &qkv_rot, &w, &mut d_probs, &mut d_qkv, s);
    softmax_backward(&probs, &d_probs, &mut d_scores, s.seq_len);
    attention_scores_backward(&qkv_rot, &d_scores, &mut d_qkv, s);
    rope_backward(&mut d_qkv, 3 * d, 2 * d, &table);
    let numeric = numeric_grad(&qkv, EPS, |x| weighted_sum(&forward(x).2, &w));
    assert_grad_close("attention d_qkv", &d_qkv, &numeric, TOL, FLOOR);
}

#[test]
fn cross_entropy_backward_matches_finite_differences() {
    let mut rng = Rng::new(7);
    let (rows, vocab) = (4, 7);
    let logits = random_vec(&mut rng, rows * vocab, 0.0, 2.0);
    let targets = [0u32, 6, 3, 3];
    let loss = |z: &[f32]| {
        let mut probs = vec![0.0; rows * vocab];
        cross_entropy_forward(z, &targets, &mut probs, vocab) as f64
    };
    let mut probs = vec![0.0; rows * vocab];
    cross_entropy_forward(&logits, &targets, &mut probs, vocab);
    let mut d_logits = vec![0.0; rows * vocab];
    cross_entropy_backward(&probs, &targets, &mut d_logits, vocab);
    let numeric = numeric_grad(&logits, EPS, loss);
    assert_grad_close("cross_entropy d_logits", &d_logits, &numeric, TOL, FLOOR);
}
