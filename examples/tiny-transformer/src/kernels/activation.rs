//! Element-wise and row-wise activations: row softmax and the SiLU gate.

use profiler::brick;

/// Logistic sigmoid.
#[inline]
fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Row softmax, in place, over rows of width `cols`.
///
/// Numerically stable (subtracts the row maximum). Entries equal to `−∞` get probability
/// exactly 0, which is how the causal mask is applied. Every row needs at least one
/// finite entry.
///
/// Cost (`rows = x.len() / cols`): elements `rows·cols`; flops `5·rows·cols`
/// (max, subtract, exp, sum, scale); bytes `8·rows·cols`.
#[brick(AttentionSoftmax, elements = x.len(), bytes = 8 * x.len(), flops = 5 * x.len())]
pub fn softmax_forward(x: &mut [f32], cols: usize) {
    assert!(cols > 0 && x.len().is_multiple_of(cols));
    for row in x.chunks_exact_mut(cols) {
        let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mut sum = 0.0;
        for v in row.iter_mut() {
            *v = (*v - max).exp();
            sum += *v;
        }
        let inv = 1.0 / sum;
        for v in row.iter_mut() {
            *v *= inv;
        }
    }
}

/// Softmax backward: `dx += p ⊙ (dp − Σ_j p_j·dp_j)` per row, given the probabilities `p`.
///
/// Cost: elements `rows·cols`; flops `5·rows·cols`; bytes `16·rows·cols`.
#[brick("AttentionSoftmaxBackward", category = Attention, elements = probs.len(), bytes = 16 * probs.len(), flops = 5 * probs.len())]
pub fn softmax_backward(probs: &[f32], d_probs: &[f32], dx: &mut [f32], cols: usize) {
    assert!(cols > 0 && probs.len().is_multiple_of(cols));
    assert_eq!(d_probs.len(), probs.len());
    assert_eq!(dx.len(), probs.len());
    for ((p_row, dp_row), dx_row) in probs
        .chunks_exact(cols)
        .zip(d_probs.chunks_exact(cols))
        .zip(dx.chunks_exact_mut(cols))
    {
        let inner = super::dot(p_row, dp_row);
        for ((dxi, &p), &dp) in dx_row.iter_mut().zip(p_row).zip(dp_row) {
            *dxi += p * (dp - inner);
        }
    }
}

/// SiLU-gated unit: `out = silu(gate) ⊙ up`, with `silu(g) = g·σ(g)`.
///
/// Cost (`n = gate.len()`, `N·F` in the model): elements `n`; flops `6·n`; bytes `12·n`.
#[brick(Activation, elements = out.len(), bytes = 12 * out.len(), flops = 6 * out.len())]
pub fn silu_gate_forward(gate: &[f32], up: &[f32], out: &mut [f32]) {
    assert_eq!(up.len(), gate.len());
    assert_eq!(out.len(), gate.len());
    for ((o, &g), &u) in out.iter_mut().zip(gate).zip(up) {
        *o = g * sigmoid(g) * u;
    }
}

/// Backward of [`silu_gate_forward`]:
/// `d_gate += d_out·up·σ(g)·(1 + g·(1 − σ(g)))` and `d_up += d_out·silu(g)`.
///
/// Cost: elements `2·n`; flops `14·n`; bytes `28·n`.
#[brick("ActivationBackward", category = Ffn, elements = 2 * d_out.len(), bytes = 28 * d_out.len(), flops = 14 * d_out.len())]
pub fn silu_gate_backward(
    gate: &[f32],
    up: &[f32],
    d_out: &[f32],
    d_gate: &mut [f32],
    d_up: &mut [f32],
) {
    let n = gate.len();
    assert!(up.len() == n && d_out.len() == n && d_gate.len() == n && d_up.len() == n);
    for ((((&g, &u), &d), dg), du) in gate
        .iter()
        .zip(up)
        .zip(d_out)
        .zip(d_gate.iter_mut())
        .zip(d_up.iter_mut())
    {
        let sig = sigmoid(g);
        *dg += d * u * sig * (1.0 + g * (1.0 - sig));
        *du += d * g * sig;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softmax_rows_sum_to_one_and_mask_is_zero() {
        let mut x = vec![1.0, 2.0, f32::NEG_INFINITY, 1000.0, 1000.0, 1000.0];
        softmax_forward(&mut x, 3);
        assert!((x[0] + x[1] - 1.0).abs() < 1e-6);
        assert_eq!(x[2], 0.0);
        assert!(x[3..].iter().all(|&p| (p - 1.0 / 3.0).abs() < 1e-6));
    }

    #[test]
    fn silu_gate_known_values() {
        let mut out = [0.0; 2];
        silu_gate_forward(&[0.0, 1.0], &[5.0, 2.0], &mut out);
        assert_eq!(out[0], 0.0);
        assert!((out[1] - 2.0 * sigmoid(1.0)).abs() < 1e-6);
    }
}
