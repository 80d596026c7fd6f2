//! Row-major `f32` matrix multiplication and its two backward variants.
//!
//! Shapes: `A` is `m×k`, `B` is `k×n`, `C = A·B` is `m×n`. In the model `A` is an
//! activation (`N×in`) and `B` a weight stored as `in×out`, so `y = x·W`.
//!
//! All three kernels use an `i-k-j`-style order whose inner loop walks contiguous rows,
//! either as `axpy` (`row += a·row`) or as a dot product of two rows.

use super::{axpy, dot};

fn check_dims(a: usize, b: usize, c: usize, m: usize, k: usize, n: usize) {
    assert!(
        m > 0 && k > 0 && n > 0,
        "matmul: dimensions must be non-zero"
    );
    assert_eq!(a, m * k, "matmul: A must be m×k");
    assert_eq!(b, k * n, "matmul: B must be k×n");
    assert_eq!(c, m * n, "matmul: C must be m×n");
}

/// `C = A·B` (overwrites `c`).
///
/// Loop order `i-k-j`: for each row `i` of `C`, add `A[i,p] · B[p,:]` for every `p`.
///
/// Cost: elements `m·n`; flops `2·m·k·n`; bytes `4·(m·k + k·n + m·n)`.
pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: usize, k: usize, n: usize) {
    check_dims(a.len(), b.len(), c.len(), m, k, n);
    for (a_row, c_row) in a.chunks_exact(k).zip(c.chunks_exact_mut(n)) {
        c_row.fill(0.0);
        for (&a_ip, b_row) in a_row.iter().zip(b.chunks_exact(n)) {
            axpy(a_ip, b_row, c_row);
        }
    }
}

/// `dA += dC·Bᵀ` — gradient of `C = A·B` with respect to `A`.
///
/// `dc` is `m×n`, `b` is `k×n`, `da` is `m×k`. Each `dA[i,p]` is the dot product of row `i`
/// of `dC` with row `p` of `B`, so both operands are read contiguously.
///
/// Cost: elements `m·k`; flops `2·m·k·n`; bytes `4·(m·n + k·n + 2·m·k)`.
pub fn matmul_backward_a(dc: &[f32], b: &[f32], da: &mut [f32], m: usize, k: usize, n: usize) {
    check_dims(da.len(), b.len(), dc.len(), m, k, n);
    for (dc_row, da_row) in dc.chunks_exact(n).zip(da.chunks_exact_mut(k)) {
        for (da_ip, b_row) in da_row.iter_mut().zip(b.chunks_exact(n)) {
            *da_ip += dot(dc_row, b_row);
        }
    }
}

/// `dB += Aᵀ·dC` — gradient of `C = A·B` with respect to `B`.
///
/// `a` is `m×k`, `dc` is `m×n`, `db` is `k×n`. Loop order `i-k-j`: for each row `i`,
/// add `A[i,p] · dC[i,:]` to row `p` of `dB`.
///
/// Cost: elements `k·n`; flops `2·m·k·n`; bytes `4·(m·k + m·n + 2·k·n)`.
pub fn matmul_backward_b(a: &[f32], dc: &[f32], db: &mut [f32], m: usize, k: usize, n: usize) {
    check_dims(a.len(), db.len(), dc.len(), m, k, n);
    for (a_row, dc_row) in a.chunks_exact(k).zip(dc.chunks_exact(n)) {
        for (&a_ip, db_row) in a_row.iter().zip(db.chunks_exact_mut(n)) {
            axpy(a_ip, dc_row, db_row);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_naive_product() {
        let (m, k, n) = (3, 4, 5);
        let a: Vec<f32> = (0..m * k).map(|i| (i as f32 * 0.37).sin()).collect();
        let b: Vec<f32> = (0..k * n).map(|i| (i as f32 * 0.71).cos()).collect();
        let mut c = vec![f32::NAN; m * n];
        matmul(&a, &b, &mut c, m, k, n);
        for i in 0..m {
            for j in 0..n {
                let naive: f32 = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
                assert!((c[i * n + j] - naive).abs() < 1e-5);
            }
        }
    }

    #[test]
    fn backward_kernels_accumulate() {
        let (m, k, n) = (2, 3, 2);
        let a = vec![1.0; m * k];
        let b = vec![1.0; k * n];
        let dc = vec![1.0; m * n];
        let mut da = vec![10.0; m * k];
        let mut db = vec![10.0; k * n];
        matmul_backward_a(&dc, &b, &mut da, m, k, n);
        matmul_backward_b(&a, &dc, &mut db, m, k, n);
        assert!(da.iter().all(|&x| x == 10.0 + n as f32));
        assert!(db.iter().all(|&x| x == 10.0 + m as f32));
    }
}
