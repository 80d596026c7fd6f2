//! Residual (skip) connections: `y = x + branch(x)`.
//!
//! The forward pass adds the skip input into the branch output in place; in the backward
//! pass the branch simply receives `dy` unchanged, and the skip path accumulates it.

use profiler::brick;

/// Residual add, in place: `branch_out += x`, turning the branch output into `x + branch`.
///
/// Cost (`n = x.len()`, `N·D` in the model): elements `n`; flops `n`; bytes `12·n`.
#[brick("Residual", elements = x.len(), bytes = 12 * x.len(), flops = x.len())]
pub fn residual_forward(x: &[f32], branch_out: &mut [f32]) {
    assert_eq!(x.len(), branch_out.len());
    for (o, &xi) in branch_out.iter_mut().zip(x) {
        *o += xi;
    }
}

/// Residual backward for the skip path: `d_x += d_out`.
///
/// The gradient reaching the branch is `d_out` itself, so it needs no kernel.
///
/// Cost: elements `n`; flops `n`; bytes `12·n`.
#[brick("ResidualBackward", elements = d_out.len(), bytes = 12 * d_out.len(), flops = d_out.len())]
pub fn residual_backward(d_out: &[f32], d_x: &mut [f32]) {
    assert_eq!(d_out.len(), d_x.len());
    for (dx, &d) in d_x.iter_mut().zip(d_out) {
        *dx += d;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward_adds_and_backward_accumulates() {
        let mut y = vec![1.0, 2.0];
        residual_forward(&[10.0, 20.0], &mut y);
        assert_eq!(y, [11.0, 22.0]);
        let mut dx = vec![1.0, 1.0];
        residual_backward(&[0.5, -0.5], &mut dx);
        assert_eq!(dx, [1.5, 0.5]);
    }
}
