//! Compute kernels: plain functions over `f32` slices with explicit dimensions.
//!
//! # Conventions
//!
//! * Tensors are dense, row-major `f32` slices; the shape is given by the arguments
//!   (`m, k, n` for matmuls, the row width `dim`/`cols`/`vocab` elsewhere, in which case
//!   `rows = len / width`).
//! * **Forward** kernels overwrite their outputs.
//! * **Backward** kernels *accumulate* (`+=`) into their gradient outputs, so callers zero
//!   gradient buffers first. This makes residual connections and shared inputs trivial.
//!   The one exception is [`rope::rope_backward`], which rotates a gradient in place.
//! * No kernel allocates, spawns threads or uses `unsafe`.
//! * Every kernel is a `#[brick]`: the profiler records its calls, time,
//!   elements, bytes and FLOPs (the numbers below). The one matmul kernel is
//!   profiled through its six named roles in [`projection`].
//!
//! # Cost model
//!
//! Every kernel documents three numbers for profiling annotations:
//!
//! * `elements`: output elements produced (for backward kernels: gradient elements written),
//! * `bytes`: compulsory memory traffic, `4 × (f32 elements read + f32 elements written)`
//!   (accumulated outputs count as read and written; `u32` token ids as 4 bytes each),
//! * `flops`: floating-point operations, counting `exp`, `sqrt` and division as one each.
//!
//! Symbols follow [`crate::Config`]: `N = batch·seq_len`, `D`, `H`, `hd`, `F`, `V`, `T`, and
//! `P = batch·H·T·(T+1)/2` causal (query, key) pairs.

pub mod activation;
pub mod attention;
pub mod embedding;
pub mod loss;
pub mod matmul;
pub mod norm;
pub mod projection;
pub mod residual;
pub mod rope;

/// Dot product of two equal-length slices.
///
/// Uses 8 independent partial sums over fixed-size chunks so the compiler can vectorise
/// the reduction (floating-point addition is not associative, so a single running sum
/// would stay scalar). Cost: `2·len` flops.
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    let (a_chunks, a_tail) = a.as_chunks::<8>();
    let (b_chunks, b_tail) = b.as_chunks::<8>();
    let mut acc = [0.0f32; 8];
    for (ca, cb) in a_chunks.iter().zip(b_chunks) {
        for ((s, &x), &y) in acc.iter_mut().zip(ca).zip(cb) {
            *s += x * y;
        }
    }
    let mut sum: f32 = acc.iter().sum();
    for (x, y) in a_tail.iter().zip(b_tail) {
        sum += x * y;
    }
    sum
}

/// `y += alpha · x` over equal-length slices. Cost: `2·len` flops.
#[inline]
pub fn axpy(alpha: f32, x: &[f32], y: &mut [f32]) {
    assert_eq!(x.len(), y.len());
    for (yi, &xi) in y.iter_mut().zip(x) {
        *yi += alpha * xi;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_and_axpy_match_naive() {
        for len in [0, 1, 7, 8, 9, 23] {
            let a: Vec<f32> = (0..len).map(|i| i as f32 * 0.5 - 1.0).collect();
            let b: Vec<f32> = (0..len).map(|i| 2.0 - i as f32 * 0.25).collect();
            let naive: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!((dot(&a, &b) - naive).abs() < 1e-4, "len {len}");
            let mut y = b.clone();
            axpy(3.0, &a, &mut y);
            for i in 0..len {
                assert_eq!(y[i], b[i] + 3.0 * a[i]);
            }
        }
    }
}
