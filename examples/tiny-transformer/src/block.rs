//! One pre-norm transformer block, forward and backward.
//!
//! ```text
//! h = x + Wo · attention(rope(RMSNorm(x) · Wqkv))
//! y = h + Wdown · (silu(RMSNorm(h) · Wgate) ⊙ (RMSNorm(h) · Wup))
//! ```
//!
//! Each statement in [`block_forward`] and [`block_backward`] is one kernel call, so each
//! can be wrapped in its own profiling scope.

use crate::config::Config;
use crate::kernels::activation::{
    silu_gate_backward, silu_gate_forward, softmax_backward, softmax_forward,
};
use crate::kernels::attention::{
    attention_output_backward, attention_output_forward, attention_scores_backward,
    attention_scores_forward,
};
use crate::kernels::norm::{rmsnorm_backward, rmsnorm_forward};
use crate::kernels::projection::{
    down_projection, down_projection_backward, gate_projection, gate_projection_backward,
    output_projection, output_projection_backward, qkv_projection, qkv_projection_backward,
    up_projection, up_projection_backward,
};
use crate::kernels::residual::{residual_backward, residual_forward};
use crate::kernels::rope::{RopeTable, rope_backward, rope_forward};
use crate::params::LayerParams;

/// Activations of one block saved by the forward pass for the backward pass.
#[derive(Clone, Debug)]
pub struct LayerActs {
    /// `RMSNorm(x)`, `N × D`.
    pub xn1: Vec<f32>,
    /// `1/rms` per row of `x`, `N`.
    pub inv_rms1: Vec<f32>,
    /// Projected queries/keys/values after RoPE, `N × 3D`.
    pub qkv: Vec<f32>,
    /// Attention probabilities (scores before the softmax), `batch × H × T × T`.
    pub probs: Vec<f32>,
    /// Attention output before the output projection, `N × D`.
    pub attn: Vec<f32>,
    /// Residual stream after attention, `h = x + attn·Wo`, `N × D`.
    pub h: Vec<f32>,
    /// `RMSNorm(h)`, `N × D`.
    pub xn2: Vec<f32>,
    /// `1/rms` per row of `h`, `N`.
    pub inv_rms2: Vec<f32>,
    /// Gate projection, `N × F`.
    pub gate: Vec<f32>,
    /// Up projection, `N × F`.
    pub up: Vec<f32>,
    /// `silu(gate) ⊙ up`, `N × F`.
    pub act: Vec<f32>,
}

impl LayerActs {
    /// Zeroed buffers shaped for `cfg`.
    pub fn new(cfg: &Config) -> Self {
        let (n, d, f) = (cfg.rows(), cfg.d_model, cfg.d_ff);
        Self {
            xn1: vec![0.0; n * d],
            inv_rms1: vec![0.0; n],
            qkv: vec![0.0; n * 3 * d],
            probs: vec![0.0; cfg.attn_shape().scores_len()],
            attn: vec![0.0; n * d],
            h: vec![0.0; n * d],
            xn2: vec![0.0; n * d],
            inv_rms2: vec![0.0; n],
            gate: vec![0.0; n * f],
            up: vec![0.0; n * f],
            act: vec![0.0; n * f],
        }
    }
}

/// Gradient scratch buffers for [`block_backward`], shared by all layers.
#[derive(Clone, Debug)]
pub struct BlockGradBufs {
    d_h: Vec<f32>,
    d_xn: Vec<f32>,
    d_act: Vec<f32>,
    d_gate: Vec<f32>,
    d_up: Vec<f32>,
    d_attn: Vec<f32>,
    d_probs: Vec<f32>,
    d_scores: Vec<f32>,
    d_qkv: Vec<f32>,
}

impl BlockGradBufs {
    /// Buffers shaped for `cfg`.
    pub fn new(cfg: &Config) -> Self {
        let (n, d, f) = (cfg.rows(), cfg.d_model, cfg.d_ff);
        let scores = cfg.attn_shape().scores_len();
        Self {
            d_h: vec![0.0; n * d],
            d_xn: vec![0.0; n * d],
            d_act: vec![0.0; n * f],
            d_gate: vec![0.0; n * f],
            d_up: vec![0.0; n * f],
            d_attn: vec![0.0; n * d],
            d_probs: vec![0.0; scores],
            d_scores: vec![0.0; scores],
            d_qkv: vec![0.0; n * 3 * d],
        }
    }
}

/// Zeroes a gradient buffer and returns it, ready for accumulating backward kernels.
fn zeroed(buf: &mut [f32]) -> &mut [f32] {
    buf.fill(0.0);
    buf
}

/// Block forward: reads the residual stream `x` (`N × D`), writes the block output `y`
/// (`N × D`) and saves what the backward pass needs in `acts`.
pub fn block_forward(
    p: &LayerParams,
    x: &[f32],
    y: &mut [f32],
    acts: &mut LayerActs,
    cfg: &Config,
    rope: &RopeTable,
) {
    let (n, d, f) = (cfg.rows(), cfg.d_model, cfg.d_ff);
    let a = acts;
    // Attention sub-block.
    rmsnorm_forward(x, &p.attn_norm, &mut a.xn1, &mut a.inv_rms1, d);
    qkv_projection(&a.xn1, &p.wqkv, &mut a.qkv, n, d, 3 * d);
    rope_forward(&mut a.qkv, 3 * d, 2 * d, rope);
    attention_scores_forward(&a.qkv, &mut a.probs, cfg.attn_shape());
    softmax_forward(&mut a.probs, cfg.seq_len);
    attention_output_forward(&a.probs, &a.qkv, &mut a.attn, cfg.attn_shape());
    output_projection(&a.attn, &p.wo, &mut a.h, n, d, d);
    residual_forward(x, &mut a.h);
    // Feed-forward sub-block.
    rmsnorm_forward(&a.h, &p.ffn_norm, &mut a.xn2, &mut a.inv_rms2, d);
    gate_projection(&a.xn2, &p.w_gate, &mut a.gate, n, d, f);
    up_projection(&a.xn2, &p.w_up, &mut a.up, n, d, f);
    silu_gate_forward(&a.gate, &a.up, &mut a.act);
    down_projection(&a.act, &p.w_down, y, n, f, d);
    residual_forward(&a.h, y);
}

/// Block backward: given `d_y = ∂L/∂y`, accumulates `∂L/∂x` into `d_x` and the parameter
/// gradients into `g`. `x` and `acts` must come from the matching [`block_forward`].
// One argument per distinct buffer keeps the data flow explicit for profiling.
#[allow(clippy::too_many_arguments)]
pub fn block_backward(
    p: &LayerParams,
    g: &mut LayerParams,
    x: &[f32],
    acts: &LayerActs,
    d_y: &[f32],
    d_x: &mut [f32],
    bufs: &mut BlockGradBufs,
    cfg: &Config,
    rope: &RopeTable,
) {
    let (n, d, f) = (cfg.rows(), cfg.d_model, cfg.d_ff);
    let (a, s) = (acts, bufs);
    // Feed-forward sub-block, in reverse. The FFN branch receives d_y unchanged.
    residual_backward(d_y, zeroed(&mut s.d_h));
    let d_act = zeroed(&mut s.d_act);
    down_projection_backward(d_y, &a.act, &p.w_down, d_act, &mut g.w_down, n, f, d);
    silu_gate_backward(
        &a.gate,
        &a.up,
        &s.d_act,
        zeroed(&mut s.d_gate),
        zeroed(&mut s.d_up),
    );
    let d_xn = zeroed(&mut s.d_xn);
    gate_projection_backward(&s.d_gate, &a.xn2, &p.w_gate, d_xn, &mut g.w_gate, n, d, f);
    up_projection_backward(&s.d_up, &a.xn2, &p.w_up, d_xn, &mut g.w_up, n, d, f);
    rmsnorm_backward(
        &a.h,
        &p.ffn_norm,
        &a.inv_rms2,
        &s.d_xn,
        &mut s.d_h,
        &mut g.ffn_norm,
        d,
    );
    // Attention sub-block, in reverse. The attention branch receives d_h unchanged.
    residual_backward(&s.d_h, d_x);
    let d_attn = zeroed(&mut s.d_attn);
    output_projection_backward(&s.d_h, &a.attn, &p.wo, d_attn, &mut g.wo, n, d, d);
    attention_output_backward(
        &a.probs,
        &a.qkv,
        &s.d_attn,
        zeroed(&mut s.d_probs),
        zeroed(&mut s.d_qkv),
        cfg.attn_shape(),
    );
    softmax_backward(&a.probs, &s.d_probs, zeroed(&mut s.d_scores), cfg.seq_len);
    attention_scores_backward(&a.qkv, &s.d_scores, &mut s.d_qkv, cfg.attn_shape());
    rope_backward(&mut s.d_qkv, 3 * d, 2 * d, rope);
    let d_xn = zeroed(&mut s.d_xn);
    qkv_projection_backward(&s.d_qkv, &a.xn1, &p.wqkv, d_xn, &mut g.wqkv, n, d, 3 * d);
    rmsnorm_backward(
        x,
        &p.attn_norm,
        &a.inv_rms1,
        &s.d_xn,
        d_x,
        &mut g.attn_norm,
        d,
    );
}
