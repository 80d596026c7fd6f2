//! Causal multi-head self-attention over a packed `qkv` buffer.
//!
//! Layouts:
//! * `qkv` is `N × 3D`; row `b·T + t` is `[q | k | v]`, and head `h` of each part occupies
//!   columns `h·hd .. (h+1)·hd` of that part.
//! * `scores`/`probs` are `batch × H × T × T`; entry `[b, h, i, j]` is query `i` attending
//!   to key `j`. Entries with `j > i` are masked (`−∞` scores, probability 0).
//! * The attention output is `N × D` with heads concatenated, ready for the output projection.
//!
//! The softmax between scores and output lives in [`super::activation`].

use profiler::brick;

use super::{axpy, dot};

const Q: usize = 0;
const K: usize = 1;
const V: usize = 2;

/// Dimensions of one attention call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttnShape {
    /// Number of sequences.
    pub batch: usize,
    /// Tokens per sequence (`T`).
    pub seq_len: usize,
    /// Number of heads (`H`).
    pub n_heads: usize,
    /// Size of one head (`hd`).
    pub head_dim: usize,
}

impl AttnShape {
    /// Model width `D = H·hd`.
    pub fn d_model(&self) -> usize {
        self.n_heads * self.head_dim
    }

    /// Token positions `N = batch·T`.
    pub fn rows(&self) -> usize {
        self.batch * self.seq_len
    }

    /// Length of the score / probability buffer, `batch·H·T·T`.
    pub fn scores_len(&self) -> usize {
        self.batch * self.n_heads * self.seq_len * self.seq_len
    }

    /// Unmasked (query, key) pairs `P = batch·H·T·(T+1)/2`.
    pub fn causal_pairs(&self) -> usize {
        self.batch * self.n_heads * self.seq_len * (self.seq_len + 1) / 2
    }

    /// Offset of head `h` of `part` (q/k/v) for token `t` of sequence `b` in `qkv`.
    fn qkv_at(&self, b: usize, t: usize, part: usize, h: usize) -> usize {
        let d = self.d_model();
        (b * self.seq_len + t) * 3 * d + part * d + h * self.head_dim
    }

    /// Offset of head `h` for token `t` of sequence `b` in an `N × D` buffer.
    fn out_at(&self, b: usize, t: usize, h: usize) -> usize {
        (b * self.seq_len + t) * self.d_model() + h * self.head_dim
    }

    /// Offset of score row `[b, h, i, :]`.
    fn score_row(&self, b: usize, h: usize, i: usize) -> usize {
        ((b * self.n_heads + h) * self.seq_len + i) * self.seq_len
    }

    /// All `(b, h)` pairs.
    fn heads(&self) -> impl Iterator<Item = (usize, usize)> + use<> {
        let n_heads = self.n_heads;
        (0..self.batch).flat_map(move |b| (0..n_heads).map(move |h| (b, h)))
    }

    fn check(&self, qkv: usize, scores: usize) {
        assert_eq!(
            qkv,
            self.rows() * 3 * self.d_model(),
            "attention: bad qkv length"
        );
        assert_eq!(scores, self.scores_len(), "attention: bad scores length");
    }
}

/// Causal scores `S[b,h,i,j] = q_i·k_j / sqrt(hd)` for `j ≤ i`, `−∞` above the diagonal.
///
/// Cost: elements `batch·H·T·T`; flops `2·P·hd + P`; bytes `4·(2·N·D + batch·H·T·T)`.
#[brick(AttentionScore, elements = s.scores_len(), bytes = 4 * (2 * s.rows() * s.d_model() + s.scores_len()), flops = s.causal_pairs() * (2 * s.head_dim + 1))]
pub fn attention_scores_forward(qkv: &[f32], scores: &mut [f32], s: AttnShape) {
    s.check(qkv.len(), scores.len());
    let (hd, t_len) = (s.head_dim, s.seq_len);
    let scale = 1.0 / (hd as f32).sqrt();
    for (b, h) in s.heads() {
        for i in 0..t_len {
            let q = &qkv[s.qkv_at(b, i, Q, h)..][..hd];
            let row = &mut scores[s.score_row(b, h, i)..][..t_len];
            let (visible, masked) = row.split_at_mut(i + 1);
            for (j, score) in visible.iter_mut().enumerate() {
                *score = scale * dot(q, &qkv[s.qkv_at(b, j, K, h)..][..hd]);
            }
            masked.fill(f32::NEG_INFINITY);
        }
    }
}

/// Attention output `O[b,i,h,:] = Σ_{j≤i} P[b,h,i,j] · v_j` (overwrites `out`, `N × D`).
///
/// Cost: elements `N·D`; flops `2·P·hd`; bytes `4·(P + 2·N·D)`.
#[brick(AttentionOutput, elements = s.rows() * s.d_model(), bytes = 4 * (s.causal_pairs() + 2 * s.rows() * s.d_model()), flops = 2 * s.causal_pairs() * s.head_dim)]
pub fn attention_output_forward(probs: &[f32], qkv: &[f32], out: &mut [f32], s: AttnShape) {
    s.check(qkv.len(), probs.len());
    assert_eq!(out.len(), s.rows() * s.d_model());
    let hd = s.head_dim;
    for (b, h) in s.heads() {
        for i in 0..s.seq_len {
            let o = &mut out[s.out_at(b, i, h)..][..hd];
            o.fill(0.0);
            let p_row = &probs[s.score_row(b, h, i)..][..=i];
            for (j, &p) in p_row.iter().enumerate() {
                axpy(p, &qkv[s.qkv_at(b, j, V, h)..][..hd], o);
            }
        }
    }
}

/// Backward of [`attention_output_forward`]:
/// `dP[b,h,i,j] += dO_i·v_j` (`j ≤ i`) and `dv_j += Σ_{i≥j} P[b,h,i,j] · dO_i`
/// (into the `v` columns of `d_qkv`).
///
/// Cost: elements `P + N·D`; flops `4·P·hd`; bytes `4·(3·P + 4·N·D)`.
#[brick("AttentionOutputBackward", category = Attention, elements = s.causal_pairs() + s.rows() * s.d_model(), bytes = 4 * (3 * s.causal_pairs() + 4 * s.rows() * s.d_model()), flops = 4 * s.causal_pairs() * s.head_dim)]
pub fn attention_output_backward(
    probs: &[f32],
    qkv: &[f32],
    d_out: &[f32],
    d_probs: &mut [f32],
    d_qkv: &mut [f32],
    s: AttnShape,
) {
    s.check(qkv.len(), probs.len());
    s.check(d_qkv.len(), d_probs.len());
    assert_eq!(d_out.len(), s.rows() * s.d_model());
    let (hd, t_len) = (s.head_dim, s.seq_len);
    for (b, h) in s.heads() {
        for i in 0..t_len {
            let d_o = &d_out[s.out_at(b, i, h)..][..hd];
            let dp_row = &mut d_probs[s.score_row(b, h, i)..][..=i];
            for (j, dp) in dp_row.iter_mut().enumerate() {
                *dp += dot(d_o, &qkv[s.qkv_at(b, j, V, h)..][..hd]);
            }
        }
        for j in 0..t_len {
            let dv = &mut d_qkv[s.qkv_at(b, j, V, h)..][..hd];
            for i in j..t_len {
                let p = probs[s.score_row(b, h, i) + j];
                axpy(p, &d_out[s.out_at(b, i, h)..][..hd], dv);
            }
        }
    }
}

/// Backward of [`attention_scores_forward`]: with `c = 1/sqrt(hd)`,
/// `dq_i += c·Σ_{j≤i} dS[i,j]·k_j` and `dk_j += c·Σ_{i≥j} dS[i,j]·q_i`
/// (into the `q` and `k` columns of `d_qkv`; masked entries of `d_scores` are ignored).
///
/// Cost: elements `2·N·D`; flops `4·P·hd + 2·P`; bytes `4·(2·P + 6·N·D)`.
#[brick("AttentionScoreBackward", category = Attention, elements = 2 * s.rows() * s.d_model(), bytes = 4 * (2 * s.causal_pairs() + 6 * s.rows() * s.d_model()), flops = s.causal_pairs() * (4 * s.head_dim + 2))]
pub fn attention_scores_backward(qkv: &[f32], d_scores: &[f32], d_qkv: &mut [f32], s: AttnShape) {
    s.check(qkv.len(), d_scores.len());
    assert_eq!(d_qkv.len(), qkv.len());
    let (hd, t_len) = (s.head_dim, s.seq_len);
    let scale = 1.0 / (hd as f32).sqrt();
    for (b, h) in s.heads() {
        for i in 0..t_len {
            let dq = &mut d_qkv[s.qkv_at(b, i, Q, h)..][..hd];
            let ds_row = &d_scores[s.score_row(b, h, i)..][..=i];
            for (j, &ds) in ds_row.iter().enumerate() {
                axpy(scale * ds, &qkv[s.qkv_at(b, j, K, h)..][..hd], dq);
            }
        }
        for j in 0..t_len {
            let dk = &mut d_qkv[s.qkv_at(b, j, K, h)..][..hd];
            for i in j..t_len {
                let ds = d_scores[s.score_row(b, h, i) + j];
                axpy(scale * ds, &qkv[s.qkv_at(b, i, Q, h)..][..hd], dk);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_token_attends_to_itself() {
        // With T = 1 the output must equal v exactly, whatever q and k are.
        let s = AttnShape {
            batch: 2,
            seq_len: 1,
            n_heads: 2,
            head_dim: 2,
        };
        let qkv: Vec<f32> = (0..s.rows() * 3 * s.d_model()).map(|i| i as f32).collect();
        let mut scores = vec![0.0; s.scores_len()];
        attention_scores_forward(&qkv, &mut scores, s);
        let probs = vec![1.0; s.scores_len()];
        let mut out = vec![0.0; s.rows() * s.d_model()];
        attention_output_forward(&probs, &qkv, &mut out, s);
        assert_eq!(out, vec![8.0, 9.0, 10.0, 11.0, 20.0, 21.0, 22.0, 23.0]);
        assert_eq!(s.causal_pairs(), 4);
    }
}
