//! Mean cross-entropy over token positions, from logits.

use profiler::brick;

/// Cross-entropy forward: returns `mean_r (logsumexp(logits[r]) − logits[r, targets[r]])`.
///
/// Also writes the softmax of each logit row into `probs` for the backward pass.
/// The per-row losses are accumulated in `f64`.
///
/// Cost (`rows = targets.len()`): elements `rows·vocab` (`probs`); flops `5·rows·vocab`;
/// bytes `8·rows·vocab + 4·rows`.
#[brick("CrossEntropy", elements = logits.len(), bytes = 8 * logits.len() + 4 * targets.len(), flops = 5 * logits.len())]
pub fn cross_entropy_forward(
    logits: &[f32],
    targets: &[u32],
    probs: &mut [f32],
    vocab: usize,
) -> f32 {
    let rows = targets.len();
    assert!(rows > 0 && vocab > 0);
    assert_eq!(logits.len(), rows * vocab);
    assert_eq!(probs.len(), logits.len());
    let mut total = 0.0f64;
    for ((row, p_row), &target) in logits
        .chunks_exact(vocab)
        .zip(probs.chunks_exact_mut(vocab))
        .zip(targets)
    {
        let target = target as usize;
        assert!(
            target < vocab,
            "target {target} out of range (vocab {vocab})"
        );
        let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mut sum = 0.0f32;
        for (p, &z) in p_row.iter_mut().zip(row) {
            *p = (z - max).exp();
            sum += *p;
        }
        let inv = 1.0 / sum;
        for p in p_row.iter_mut() {
            *p *= inv;
        }
        total += (max + sum.ln() - row[target]) as f64;
    }
    (total / rows as f64) as f32
}

/// Cross-entropy backward: `d_logits += (probs − onehot(target)) / rows`.
///
/// Cost: elements `rows·vocab`; flops `2·rows·vocab`; bytes `12·rows·vocab + 4·rows`.
#[brick("CrossEntropyBackward", elements = probs.len(), bytes = 12 * probs.len() + 4 * targets.len(), flops = 2 * probs.len())]
pub fn cross_entropy_backward(probs: &[f32], targets: &[u32], d_logits: &mut [f32], vocab: usize) {
    let rows = targets.len();
    assert_eq!(probs.len(), rows * vocab);
    assert_eq!(d_logits.len(), probs.len());
    let scale = 1.0 / rows as f32;
    for ((p_row, d_row), &target) in probs
        .chunks_exact(vocab)
        .zip(d_logits.chunks_exact_mut(vocab))
        .zip(targets)
    {
        for (d, &p) in d_row.iter_mut().zip(p_row) {
            *d += p * scale;
        }
        d_row[target as usize] -= scale;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_logits_give_ln_vocab() {
        let vocab = 8;
        let logits = vec![3.0; 2 * vocab];
        let mut probs = vec![0.0; logits.len()];
        let loss = cross_entropy_forward(&logits, &[1, 5], &mut probs, vocab);
        assert!((loss - (vocab as f32).ln()).abs() < 1e-6);
        let mut d = vec![0.0; logits.len()];
        cross_entropy_backward(&probs, &[1, 5], &mut d, vocab);
        // Each row's gradient sums to zero.
        for row in d.chunks_exact(vocab) {
            assert!(row.iter().sum::<f32>().abs() < 1e-6);
        }
        assert!(d[1] < 0.0 && d[vocab + 5] < 0.0);
    }
}
