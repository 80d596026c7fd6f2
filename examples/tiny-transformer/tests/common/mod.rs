//! Shared helpers for the gradient-check tests: random inputs, central finite differences
//! in `f64`, and a scale-aware relative-error comparison.

#![allow(dead_code)] // each test binary uses a different subset

use tiny_transformer::Rng;

/// `n` samples of `N(mean, std²)`.
pub(crate) fn random_vec(rng: &mut Rng, n: usize, mean: f32, std: f32) -> Vec<f32> {
    (0..n).map(|_| mean + std * rng.normal()).collect()
}

/// `Σ w_i·y_i`, accumulated in `f64`: a scalar "loss" whose gradient w.r.t. `y` is `w`.
pub(crate) fn weighted_sum(y: &[f32], w: &[f32]) -> f64 {
    assert_eq!(y.len(), w.len());
    y.iter().zip(w).map(|(&a, &b)| a as f64 * b as f64).sum()
}

/// Five-point central difference of `f` at `x` with step `h`:
/// `f'(x) ≈ (f(x−2h) − 8·f(x−h) + 8·f(x+h) − f(x+2h)) / 12h`, truncation error `O(h⁴)`.
///
/// The high order lets `h` be large enough for `f32` rounding noise (`∝ ulp/h`) to stay
/// small without the truncation error of a plain central difference (`O(h²)`).
/// `x ± h` is rounded to `f32`; the resulting error is about `ulp(x)/h` relative, ≤ 1e-5
/// for the values used here.
pub(crate) fn derivative(x: f32, h: f32, mut f: impl FnMut(f32) -> f64) -> f64 {
    let (f_m2, f_m1) = (f(x - 2.0 * h), f(x - h));
    let (f_p1, f_p2) = (f(x + h), f(x + 2.0 * h));
    (f_m2 - 8.0 * f_m1 + 8.0 * f_p1 - f_p2) / (12.0 * h as f64)
}

/// Numeric gradient of `f` at `x` for every element of `x` (see [`derivative`]).
pub(crate) fn numeric_grad(x: &[f32], h: f32, mut f: impl FnMut(&[f32]) -> f64) -> Vec<f64> {
    let mut xp = x.to_vec();
    (0..x.len())
        .map(|i| {
            let g = derivative(x[i], h, |xi| {
                xp[i] = xi;
                f(&xp)
            });
            xp[i] = x[i];
            g
        })
        .collect()
}

/// Largest relative error between analytic and numeric gradients.
///
/// Per element: `|a − n| / max(|a|, |n|, floor)`. Gradients smaller than `floor` are thus
/// compared on an absolute scale: central differences of an `f32` computation cannot
/// resolve them, and dividing by them would only amplify rounding noise.
pub(crate) fn max_rel_error(analytic: &[f32], numeric: &[f64], floor: f64) -> f64 {
    assert_eq!(analytic.len(), numeric.len());
    analytic
        .iter()
        .zip(numeric)
        .map(|(&a, &n)| {
            let a = a as f64;
            (a - n).abs() / a.abs().max(n.abs()).max(floor)
        })
        .fold(0.0, f64::max)
}

/// Asserts that `analytic` matches `numeric` within `tol` (see [`max_rel_error`]) and
/// that at least one gradient exceeds `floor`, so the check is not vacuous.
/// Prints and returns the error for reporting.
pub(crate) fn assert_grad_close(
    name: &str,
    analytic: &[f32],
    numeric: &[f64],
    tol: f64,
    floor: f64,
) -> f64 {
    let scale = numeric.iter().fold(0.0f64, |m, &n| m.max(n.abs()));
    assert!(
        scale > floor,
        "{name}: all gradients below {floor:e}, the check would be vacuous"
    );
    let err = max_rel_error(analytic, numeric, floor);
    println!(
        "{name:<24} max rel error {err:.2e} (|grad| up to {scale:.2e}, {} elements)",
        numeric.len()
    );
    assert!(
        err < tol,
        "{name}: max relative error {err:.3e} >= {tol:e}\n analytic {analytic:?}\n numeric  {numeric:?}"
    );
    err
}
