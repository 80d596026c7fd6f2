//! Rotary position embedding (RoPE), applied in place to the query and key heads.
//!
//! Within each head, adjacent pairs `(x[2i], x[2i+1])` are rotated by the angle
//! `pos · base^(−2i/hd)`, where `pos` is the token's position in its sequence.
//! Rotation is linear and orthogonal, so the backward pass is the inverse rotation.

use profiler::brick;

/// Default RoPE frequency base.
pub const ROPE_BASE: f32 = 10_000.0;

/// Precomputed `cos`/`sin` of the rotation angles, `seq_len × head_dim/2` each.
#[derive(Clone, Debug)]
pub struct RopeTable {
    /// `cos[pos·half + i]`.
    pub cos: Vec<f32>,
    /// `sin[pos·half + i]`.
    pub sin: Vec<f32>,
    /// Positions covered (the sequence length).
    pub seq_len: usize,
    /// Head size (must be even).
    pub head_dim: usize,
}

impl RopeTable {
    /// Builds the table for positions `0..seq_len` and heads of size `head_dim`.
    pub fn new(seq_len: usize, head_dim: usize, base: f32) -> Self {
        assert!(
            head_dim > 0 && head_dim.is_multiple_of(2),
            "RoPE needs an even head size"
        );
        let half = head_dim / 2;
        let mut cos = Vec::with_capacity(seq_len * half);
        let mut sin = Vec::with_capacity(seq_len * half);
        for pos in 0..seq_len {
            for i in 0..half {
                let freq = (base as f64).powf(-2.0 * i as f64 / head_dim as f64);
                let angle = pos as f64 * freq;
                cos.push(angle.cos() as f32);
                sin.push(angle.sin() as f32);
            }
        }
        Self {
            cos,
            sin,
            seq_len,
            head_dim,
        }
    }
}

/// Rotates every head in the first `rot_cols` columns of each row; `sign = −1` inverts.
fn rotate(x: &mut [f32], row_stride: usize, rot_cols: usize, table: &RopeTable, sign: f32) {
    let (hd, half) = (table.head_dim, table.head_dim / 2);
    assert!(rot_cols <= row_stride && rot_cols.is_multiple_of(hd));
    assert!(x.len().is_multiple_of(row_stride));
    for (r, row) in x.chunks_exact_mut(row_stride).enumerate() {
        let pos = r % table.seq_len;
        let cos = &table.cos[pos * half..(pos + 1) * half];
        let sin = &table.sin[pos * half..(pos + 1) * half];
        for head in row[..rot_cols].chunks_exact_mut(hd) {
            for ((pair, &c), &s) in head.chunks_exact_mut(2).zip(cos).zip(sin) {
                let s = sign * s;
                let (a, b) = (pair[0], pair[1]);
                pair[0] = a * c - b * s;
                pair[1] = a * s + b * c;
            }
        }
    }
}

/// RoPE forward, in place.
///
/// `x` holds `rows = x.len() / row_stride` rows; row `r` is at position `r % seq_len`.
/// The first `rot_cols` columns of each row are consecutive heads of size `head_dim`
/// (for the packed `qkv` buffer: `row_stride = 3·D`, `rot_cols = 2·D`, i.e. `q` and `k`).
///
/// Cost: elements `rows·rot_cols`; flops `3·rows·rot_cols` (6 per pair);
/// bytes `12·rows·rot_cols` (read and write `x`, read one `cos`/`sin` value per element).
#[brick(RopeEmbedding, elements = x.len() / row_stride * rot_cols, bytes = 12 * (x.len() / row_stride * rot_cols), flops = 3 * (x.len() / row_stride * rot_cols))]
pub fn rope_forward(x: &mut [f32], row_stride: usize, rot_cols: usize, table: &RopeTable) {
    rotate(x, row_stride, rot_cols, table, 1.0);
}

/// RoPE backward, in place: turns `∂L/∂(rotated)` into `∂L/∂(unrotated)` by rotating
/// with the negated angle (the transpose of an orthogonal rotation).
///
/// Unlike the other backward kernels this overwrites rather than accumulates.
/// Cost: same as [`rope_forward`].
#[brick("RopeBackward", category = Attention, elements = dx.len() / row_stride * rot_cols, bytes = 12 * (dx.len() / row_stride * rot_cols), flops = 3 * (dx.len() / row_stride * rot_cols))]
pub fn rope_backward(dx: &mut [f32], row_stride: usize, rot_cols: usize, table: &RopeTable) {
    rotate(dx, row_stride, rot_cols, table, -1.0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_zero_is_identity_and_backward_inverts() {
        let table = RopeTable::new(3, 4, ROPE_BASE);
        let orig: Vec<f32> = (0..3 * 10).map(|i| (i as f32 * 0.3).sin()).collect();
        let mut x = orig.clone();
        rope_forward(&mut x, 10, 8, &table);
        assert_eq!(&x[..10], &orig[..10], "position 0 must not rotate");
        assert_ne!(&x[10..18], &orig[10..18]);
        assert_eq!(
            &x[18..20],
            &orig[18..20],
            "columns past rot_cols are untouched"
        );
        rope_backward(&mut x, 10, 8, &table);
        for (a, b) in x.iter().zip(&orig) {
            assert!((a - b).abs() < 1e-6);
        }
    }
}
