//! Adam optimizer (with optional decoupled weight decay, off by default).

use profiler::brick;

use crate::config::Config;
use crate::params::Params;

/// Per-step Adam constants shared by every tensor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamStep {
    /// Learning rate.
    pub lr: f32,
    /// First-moment decay.
    pub beta1: f32,
    /// Second-moment decay.
    pub beta2: f32,
    /// Denominator epsilon.
    pub eps: f32,
    /// Decoupled weight decay (AdamW style); 0 disables it.
    pub weight_decay: f32,
    /// Bias correction `1 − beta1^t`.
    pub bias1: f32,
    /// Bias correction `1 − beta2^t`.
    pub bias2: f32,
}

/// Adam update of one tensor, in place:
///
/// ```text
/// m = β1·m + (1−β1)·g        v = β2·v + (1−β2)·g²
/// p −= lr · ( (m/bias1) / (sqrt(v/bias2) + eps) + weight_decay·p )
/// ```
///
/// Cost (`n = p.len()`): elements `n`; flops `16·n`; bytes `28·n`
/// (read `p, g, m, v`, write `p, m, v`).
#[brick("AdamUpdate", elements = p.len(), bytes = 28 * p.len(), flops = 16 * p.len())]
pub fn adam_update(p: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32], s: &AdamStep) {
    let n = p.len();
    assert!(g.len() == n && m.len() == n && v.len() == n);
    let (inv_b1, inv_b2) = (1.0 / s.bias1, 1.0 / s.bias2);
    for (((pi, &gi), mi), vi) in p.iter_mut().zip(g).zip(m.iter_mut()).zip(v.iter_mut()) {
        *mi = s.beta1 * *mi + (1.0 - s.beta1) * gi;
        *vi = s.beta2 * *vi + (1.0 - s.beta2) * gi * gi;
        let m_hat = *mi * inv_b1;
        let v_hat = *vi * inv_b2;
        *pi -= s.lr * (m_hat / (v_hat.sqrt() + s.eps) + s.weight_decay * *pi);
    }
}

/// Adam optimizer state: hyper-parameters, step count and the two moment estimates.
#[derive(Clone, Debug)]
pub struct Adam {
    /// Learning rate.
    pub lr: f32,
    /// First-moment decay (0.9).
    pub beta1: f32,
    /// Second-moment decay (0.999).
    pub beta2: f32,
    /// Denominator epsilon (1e-8).
    pub eps: f32,
    /// Decoupled weight decay (0 by default).
    pub weight_decay: f32,
    steps: u32,
    m: Params,
    v: Params,
}

impl Adam {
    /// Zero-initialised state for a model built from `cfg`, with learning rate `cfg.lr`.
    pub fn new(cfg: &Config) -> Self {
        Self {
            lr: cfg.lr,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 0.0,
            steps: 0,
            m: Params::zeros(cfg),
            v: Params::zeros(cfg),
        }
    }

    /// Number of updates applied so far.
    pub fn steps(&self) -> u32 {
        self.steps
    }

    /// Applies one update to every tensor of `params` using `grads`.
    pub fn step(&mut self, params: &mut Params, grads: &Params) {
        self.steps += 1;
        let t = self.steps as i32;
        let s = AdamStep {
            lr: self.lr,
            beta1: self.beta1,
            beta2: self.beta2,
            eps: self.eps,
            weight_decay: self.weight_decay,
            bias1: 1.0 - self.beta1.powi(t),
            bias2: 1.0 - self.beta2.powi(t),
        };
        let tensors = params
            .tensors_mut()
            .into_iter()
            .zip(grads.tensors())
            .zip(self.m.tensors_mut())
            .zip(self.v.tensors_mut());
        for (((p, g), m), v) in tensors {
            adam_update(p, g, m, v, &s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_step_moves_each_weight_by_lr_against_the_gradient_sign() {
        let s = AdamStep {
            lr: 0.1,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 0.0,
            bias1: 0.1,
            bias2: 0.001,
        };
        let mut p = vec![1.0, 1.0, 1.0];
        let (mut m, mut v) = (vec![0.0; 3], vec![0.0; 3]);
        adam_update(&mut p, &[2.0, -0.5, 0.0], &mut m, &mut v, &s);
        assert!((p[0] - 0.9).abs() < 1e-6);
        assert!((p[1] - 1.1).abs() < 1e-6);
        assert_eq!(p[2], 1.0);
    }

    #[test]
    fn weight_decay_shrinks_weights_without_gradient() {
        let s = AdamStep {
            lr: 0.1,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 0.5,
            bias1: 0.1,
            bias2: 0.001,
        };
        let mut p = vec![2.0];
        let (mut m, mut v) = (vec![0.0], vec![0.0]);
        adam_update(&mut p, &[0.0], &mut m, &mut v, &s);
        assert!((p[0] - 1.9).abs() < 1e-6, "{}", p[0]);
    }
}
