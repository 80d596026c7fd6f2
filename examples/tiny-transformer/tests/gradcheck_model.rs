//! Finite-difference gradient check of the full model (embedding, every block tensor,
//! final norm, LM head) on tiny configurations.
//!
//! The analytic gradients come from `train_step` with `lr = 0`, which runs the complete
//! forward/backward path while leaving the parameters unchanged. The numeric gradients
//! perturb a sample of elements in every tensor and call `forward_loss`.
//!
//! Tolerances: the loss is an `f32` computed through many `f32` kernels, so even the
//! five-point difference with `h = 1e-2` carries ~1e-5 of absolute noise. Gradients below
//! `FLOOR = 1e-2` are therefore compared absolutely (error ≤ `TOL·FLOOR = 1e-4`), larger
//! ones relatively (≤ 1 %). Over several seeds the largest error seen was ~4e-3.

mod common;

use common::{assert_grad_close, derivative};
use tiny_transformer::{Batch, Config, Model, Rng};

/// Elements sampled uniformly per tensor, plus as many among the significant gradients.
const SAMPLES: usize = 8;
const EPS: f32 = 1e-2;
const TOL: f64 = 1e-2;
const FLOOR: f64 = 1e-2;

/// Replaces the default initialisation with larger random values, so that every path
/// through the network carries a gradient well above finite-difference noise.
fn randomise(model: &mut Model, seed: u64) {
    let mut rng = Rng::new(seed);
    let params = model.params_mut();
    let names = params.tensor_names();
    for (name, tensor) in names.iter().zip(params.tensors_mut()) {
        let (mean, std) = if name.ends_with("norm") {
            (1.0, 0.3)
        } else {
            (0.0, 0.5)
        };
        for x in tensor {
            *x = mean + std * rng.normal();
        }
    }
}

fn check_model(cfg: &Config) {
    assert_eq!(
        cfg.lr, 0.0,
        "the check relies on lr = 0 leaving the parameters unchanged"
    );
    let mut model = Model::new(cfg);
    randomise(&mut model, cfg.seed + 100);
    let batch = Batch::generate(cfg, 0);

    let before = model.params().clone();
    model.train_step(&batch);
    assert_eq!(
        model.params(),
        &before,
        "lr = 0 must not change the parameters"
    );
    let grads = model.grads().clone();

    let mut rng = Rng::new(cfg.seed + 200);
    let names = before.tensor_names();
    for (t, (name, grad)) in names.iter().zip(grads.tensors()).enumerate() {
        // Uniform samples check that zero gradients (e.g. embedding rows of tokens absent
        // from the batch) are zero; samples among |grad| > FLOOR guarantee real signal.
        let significant: Vec<usize> = (0..grad.len())
            .filter(|&i| grad[i].abs() as f64 > FLOOR)
            .collect();
        let mut indices: Vec<usize> = (0..SAMPLES).map(|_| rng.below(grad.len())).collect();
        if !significant.is_empty() {
            indices.extend((0..SAMPLES).map(|_| significant[rng.below(significant.len())]));
        }
        let analytic: Vec<f32> = indices.iter().map(|&i| grad[i]).collect();
        let numeric: Vec<f64> = indices
            .iter()
            .map(|&i| {
                let orig = before.tensors()[t][i];
                let g = derivative(orig, EPS, |xi| {
                    model.params_mut().tensors_mut()[t][i] = xi;
                    model.forward_loss(&batch) as f64
                });
                model.params_mut().tensors_mut()[t][i] = orig;
                g
            })
            .collect();
        let label = format!("L{} {name}", cfg.n_layers);
        assert_grad_close(&label, &analytic, &numeric, TOL, FLOOR);
    }
}

#[test]
fn full_model_gradients_match_finite_differences_two_layers() {
    check_model(&Config {
        lr: 0.0,
        ..Config::tiny()
    });
}

#[test]
fn full_model_gradients_match_finite_differences_one_layer() {
    check_model(&Config {
        n_layers: 1,
        lr: 0.0,
        seed: 11,
        ..Config::tiny()
    });
}

/// Backward kernels accumulate, so gradients must be cleared every step: two identical
/// steps with `lr = 0` must produce bit-identical gradients.
#[test]
fn gradients_do_not_leak_between_steps() {
    let cfg = Config {
        lr: 0.0,
        ..Config::tiny()
    };
    let mut model = Model::new(&cfg);
    let batch = Batch::generate(&cfg, 3);
    model.train_step(&batch);
    let first = model.grads().clone();
    model.train_step(&batch);
    assert_eq!(model.grads(), &first);
    assert!(first.lm_head.iter().any(|&g| g != 0.0));
}
