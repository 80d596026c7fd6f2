//! RMSNorm: `y = x / rms(x) ⊙ gain`, with `rms(x) = sqrt(mean(x²) + eps)`, per row.

use profiler::brick;

/// Epsilon added to the mean square before the square root.
pub const RMS_EPS: f32 = 1e-5;

/// RMSNorm forward over rows of width `dim`.
///
/// Writes `y` and saves `inv_rms[r] = 1 / rms(x[r])` (one per row) for the backward pass.
///
/// Cost (`rows = x.len() / dim`): elements `rows·dim`; flops `4·rows·dim`
/// (square-accumulate, then two multiplies); bytes `4·(2·rows·dim + dim + rows)`.
#[brick(RmsNorm, elements = x.len(), bytes = 4 * (2 * x.len() + dim + inv_rms.len()), flops = 4 * x.len())]
pub fn rmsnorm_forward(x: &[f32], gain: &[f32], y: &mut [f32], inv_rms: &mut [f32], dim: usize) {
    let started = std::time::Instant::now();
    let rows = x.len() / dim;
    assert_eq!(gain.len(), dim);
    assert_eq!(x.len(), rows * dim);
    assert_eq!(y.len(), x.len());
    assert_eq!(inv_rms.len(), rows);
    for ((x_row, y_row), inv) in x
        .chunks_exact(dim)
        .zip(y.chunks_exact_mut(dim))
        .zip(inv_rms.iter_mut())
    {
        let mean_sq = super::dot(x_row, x_row) / dim as f32;
        let r = 1.0 / (mean_sq + RMS_EPS).sqrt();
        *inv = r;
        for ((yi, &xi), &gi) in y_row.iter_mut().zip(x_row).zip(gain) {
            *yi = xi * r * gi;
        }
    }
    crate::slowdown::pad("RmsNorm", started);
}

/// RMSNorm backward: `dx += ∂L/∂x`, `dgain += ∂L/∂gain` given `dy = ∂L/∂y`.
///
/// With `r = inv_rms` and `s = Σ_i dy_i·gain_i·x_i` per row:
/// `dx_j = r·dy_j·gain_j − x_j·r³·s / dim` and `dgain_j = Σ_rows dy_j·x_j·r`.
///
/// Cost: elements `rows·dim` (`dx`) + `dim` (`dgain`); flops `11·rows·dim`;
/// bytes `4·(4·rows·dim + 3·dim + rows)`.
#[brick("RmsNormBackward", category = Norm, elements = x.len(), bytes = 4 * (4 * x.len() + 3 * dim + inv_rms.len()), flops = 11 * x.len())]
pub fn rmsnorm_backward(
    x: &[f32],
    gain: &[f32],
    inv_rms: &[f32],
    dy: &[f32],
    dx: &mut [f32],
    dgain: &mut [f32],
    dim: usize,
) {
    let rows = x.len() / dim;
    assert_eq!(x.len(), rows * dim);
    assert_eq!(gain.len(), dim);
    assert_eq!(dgain.len(), dim);
    assert_eq!(inv_rms.len(), rows);
    assert_eq!(dy.len(), x.len());
    assert_eq!(dx.len(), x.len());
    for (((x_row, dy_row), dx_row), &r) in x
        .chunks_exact(dim)
        .zip(dy.chunks_exact(dim))
        .zip(dx.chunks_exact_mut(dim))
        .zip(inv_rms)
    {
        let s: f32 = dy_row
            .iter()
            .zip(gain)
            .zip(x_row)
            .map(|((&dyi, &gi), &xi)| dyi * gi * xi)
            .sum();
        let c = s * r * r * r / dim as f32;
        for ((((dxi, &xi), &dyi), &gi), dgi) in dx_row
            .iter_mut()
            .zip(x_row)
            .zip(dy_row)
            .zip(gain)
            .zip(dgain.iter_mut())
        {
            *dxi += r * dyi * gi - xi * c;
            *dgi += dyi * xi * r;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_has_unit_rms_with_unit_gain() {
        let dim = 6;
        let x: Vec<f32> = (0..2 * dim).map(|i| i as f32 - 4.5).collect();
        let gain = vec![1.0; dim];
        let (mut y, mut inv) = (vec![0.0; x.len()], vec![0.0; 2]);
        rmsnorm_forward(&x, &gain, &mut y, &mut inv, dim);
        for row in y.chunks_exact(dim) {
            let ms: f32 = row.iter().map(|v| v * v).sum::<f32>() / dim as f32;
            assert!((ms - 1.0).abs() < 1e-4, "mean square {ms}");
        }
    }
}
