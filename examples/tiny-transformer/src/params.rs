//! Trainable parameters (also used, with the same shapes, for gradients and Adam moments).

use crate::config::Config;
use crate::rng::Rng;

/// Random-stream domain for parameter initialisation.
const DOMAIN_INIT: u64 = 0x1417_1A11;

/// Parameters of one transformer block. Weights are stored `in × out` (`y = x·W`).
#[derive(Clone, Debug, PartialEq)]
pub struct LayerParams {
    /// Gain of the pre-attention RMSNorm, `D`.
    pub attn_norm: Vec<f32>,
    /// Fused query/key/value projection, `D × 3D`.
    pub wqkv: Vec<f32>,
    /// Attention output projection, `D × D`.
    pub wo: Vec<f32>,
    /// Gain of the pre-FFN RMSNorm, `D`.
    pub ffn_norm: Vec<f32>,
    /// FFN gate projection, `D × F`.
    pub w_gate: Vec<f32>,
    /// FFN up projection, `D × F`.
    pub w_up: Vec<f32>,
    /// FFN down projection, `F × D`.
    pub w_down: Vec<f32>,
}

/// Names of the [`LayerParams`] tensors, in [`LayerParams::tensors`] order.
pub const LAYER_TENSOR_NAMES: [&str; 7] = [
    "attn_norm",
    "wqkv",
    "wo",
    "ffn_norm",
    "w_gate",
    "w_up",
    "w_down",
];

impl LayerParams {
    fn zeros(cfg: &Config) -> Self {
        let (d, f) = (cfg.d_model, cfg.d_ff);
        Self {
            attn_norm: vec![0.0; d],
            wqkv: vec![0.0; d * 3 * d],
            wo: vec![0.0; d * d],
            ffn_norm: vec![0.0; d],
            w_gate: vec![0.0; d * f],
            w_up: vec![0.0; d * f],
            w_down: vec![0.0; f * d],
        }
    }

    /// The tensors of this block, in [`LAYER_TENSOR_NAMES`] order.
    pub fn tensors(&self) -> [&[f32]; 7] {
        [
            &self.attn_norm,
            &self.wqkv,
            &self.wo,
            &self.ffn_norm,
            &self.w_gate,
            &self.w_up,
            &self.w_down,
        ]
    }

    /// Mutable view of [`LayerParams::tensors`].
    pub fn tensors_mut(&mut self) -> [&mut [f32]; 7] {
        [
            &mut self.attn_norm,
            &mut self.wqkv,
            &mut self.wo,
            &mut self.ffn_norm,
            &mut self.w_gate,
            &mut self.w_up,
            &mut self.w_down,
        ]
    }
}

/// All trainable parameters of the model.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// Token embedding table, `V × D`.
    pub embed: Vec<f32>,
    /// Transformer blocks.
    pub layers: Vec<LayerParams>,
    /// Gain of the final RMSNorm, `D`.
    pub final_norm: Vec<f32>,
    /// LM head (unembedding), `D × V`.
    pub lm_head: Vec<f32>,
}

impl Params {
    /// All-zero parameters shaped for `cfg` (used for gradients and optimizer state).
    pub fn zeros(cfg: &Config) -> Self {
        Self {
            embed: vec![0.0; cfg.vocab * cfg.d_model],
            layers: (0..cfg.n_layers).map(|_| LayerParams::zeros(cfg)).collect(),
            final_norm: vec![0.0; cfg.d_model],
            lm_head: vec![0.0; cfg.d_model * cfg.vocab],
        }
    }

    /// Deterministic initialisation from `cfg.seed`.
    ///
    /// * Norm gains: 1.
    /// * Embedding: `N(0, 1)` (the first RMSNorm rescales it anyway).
    /// * Projections: `N(0, 1/fan_in)`; the two projections that write into the residual
    ///   stream (`wo`, `w_down`) are further scaled by `1/sqrt(2·n_layers)`.
    /// * LM head: `N(0, 0.02²)`, so the initial loss is close to `ln(vocab)`.
    pub fn init(cfg: &Config) -> Self {
        cfg.validate();
        let mut rng = Rng::stream(cfg.seed, DOMAIN_INIT, 0);
        let mut p = Self::zeros(cfg);
        let (d, f) = (cfg.d_model as f32, cfg.d_ff as f32);
        let resid_scale = 1.0 / (2.0 * cfg.n_layers as f32).sqrt();
        rng.fill_normal(&mut p.embed, 1.0);
        for layer in &mut p.layers {
            layer.attn_norm.fill(1.0);
            layer.ffn_norm.fill(1.0);
            rng.fill_normal(&mut layer.wqkv, 1.0 / d.sqrt());
            rng.fill_normal(&mut layer.wo, resid_scale / d.sqrt());
            rng.fill_normal(&mut layer.w_gate, 1.0 / d.sqrt());
            rng.fill_normal(&mut layer.w_up, 1.0 / d.sqrt());
            rng.fill_normal(&mut layer.w_down, resid_scale / f.sqrt());
        }
        p.final_norm.fill(1.0);
        rng.fill_normal(&mut p.lm_head, 0.02);
        p
    }

    /// Every tensor, in a fixed order: `embed`, each layer's tensors, `final_norm`, `lm_head`.
    pub fn tensors(&self) -> Vec<&[f32]> {
        let mut out: Vec<&[f32]> = vec![&self.embed];
        for layer in &self.layers {
            out.extend(layer.tensors());
        }
        out.push(&self.final_norm);
        out.push(&self.lm_head);
        out
    }

    /// Mutable view of [`Params::tensors`] (same order).
    pub fn tensors_mut(&mut self) -> Vec<&mut [f32]> {
        let mut out: Vec<&mut [f32]> = vec![&mut self.embed];
        for layer in &mut self.layers {
            out.extend(layer.tensors_mut());
        }
        out.push(&mut self.final_norm);
        out.push(&mut self.lm_head);
        out
    }

    /// Human-readable tensor names, e.g. `"layers.1.wqkv"`, in [`Params::tensors`] order.
    pub fn tensor_names(&self) -> Vec<String> {
        let mut out = vec!["embed".to_string()];
        for l in 0..self.layers.len() {
            out.extend(LAYER_TENSOR_NAMES.iter().map(|n| format!("layers.{l}.{n}")));
        }
        out.push("final_norm".to_string());
        out.push("lm_head".to_string());
        out
    }

    /// Total number of scalars.
    pub fn num_elements(&self) -> usize {
        self.tensors().iter().map(|t| t.len()).sum()
    }

    /// Sets every element to zero.
    pub fn zero(&mut self) {
        for t in self.tensors_mut() {
            t.fill(0.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_names_and_init() {
        let cfg = Config::default();
        let p = Params::init(&cfg);
        assert_eq!(p.num_elements(), cfg.num_params());
        assert_eq!(p.tensors().len(), p.tensor_names().len());
        assert_eq!(p.tensor_names()[2], "layers.0.wqkv");
        assert_eq!(p, Params::init(&cfg), "init must be deterministic");
        let other = Params::init(&Config { seed: 1, ..cfg });
        assert_ne!(p.embed, other.embed);
    }
}
