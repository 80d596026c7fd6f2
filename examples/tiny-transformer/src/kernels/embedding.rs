//! Token embedding lookup and its scatter-add backward.

use profiler::brick;

/// Embedding lookup: `out[r, :] = table[tokens[r], :]` (overwrites `out`).
///
/// `table` is `vocab × dim`; `out` is `rows × dim` with `rows = tokens.len()`.
///
/// Cost: elements `rows·dim`; flops `0`; bytes `8·rows·dim + 4·rows`.
#[brick(Embedding, elements = out.len(), bytes = 8 * out.len() + 4 * tokens.len())]
pub fn embedding_forward(table: &[f32], tokens: &[u32], out: &mut [f32], dim: usize) {
    assert!(dim > 0 && table.len().is_multiple_of(dim));
    assert_eq!(out.len(), tokens.len() * dim);
    let vocab = table.len() / dim;
    for (&tok, row) in tokens.iter().zip(out.chunks_exact_mut(dim)) {
        let tok = tok as usize;
        assert!(tok < vocab, "token {tok} out of range (vocab {vocab})");
        row.copy_from_slice(&table[tok * dim..(tok + 1) * dim]);
    }
}

/// Embedding backward (scatter-add): `d_table[tokens[r], :] += d_out[r, :]`.
///
/// Repeated tokens accumulate into the same row.
///
/// Cost: elements `rows·dim`; flops `rows·dim`; bytes `12·rows·dim + 4·rows`.
#[brick("EmbeddingBackward", elements = d_out.len(), bytes = 12 * d_out.len() + 4 * tokens.len(), flops = d_out.len())]
pub fn embedding_backward(tokens: &[u32], d_out: &[f32], d_table: &mut [f32], dim: usize) {
    assert!(dim > 0 && d_table.len().is_multiple_of(dim));
    assert_eq!(d_out.len(), tokens.len() * dim);
    let vocab = d_table.len() / dim;
    for (&tok, d_row) in tokens.iter().zip(d_out.chunks_exact(dim)) {
        let tok = tok as usize;
        assert!(tok < vocab, "token {tok} out of range (vocab {vocab})");
        super::axpy(1.0, d_row, &mut d_table[tok * dim..(tok + 1) * dim]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_and_scatter_add() {
        let table = [0.0, 1.0, 10.0, 11.0, 20.0, 21.0];
        let tokens = [2, 0, 2];
        let mut out = [0.0; 6];
        embedding_forward(&table, &tokens, &mut out, 2);
        assert_eq!(out, [20.0, 21.0, 0.0, 1.0, 20.0, 21.0]);
        let mut d_table = [0.0; 6];
        embedding_backward(&tokens, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &mut d_table, 2);
        assert_eq!(d_table, [3.0, 4.0, 0.0, 0.0, 6.0, 8.0]);
    }
}
