//! The full model: embedding, transformer blocks, final norm, LM head, loss and training step.

use profiler::Direction;

use crate::block::{BlockGradBufs, LayerActs, block_backward, block_forward};
use crate::config::Config;
use crate::data::Batch;
use crate::kernels::embedding::{embedding_backward, embedding_forward};
use crate::kernels::loss::{cross_entropy_backward, cross_entropy_forward};
use crate::kernels::norm::{rmsnorm_backward, rmsnorm_forward};
use crate::kernels::projection::{lm_head, lm_head_backward};
use crate::kernels::rope::{ROPE_BASE, RopeTable};
use crate::optim::Adam;
use crate::params::Params;

/// Forward activations, allocated once and reused by every step.
#[derive(Clone, Debug)]
struct Activations {
    /// Residual stream: `stream[0]` is the embedding output, `stream[l + 1]` the output of
    /// block `l`; each `N × D`.
    stream: Vec<Vec<f32>>,
    /// Saved activations of each block.
    layers: Vec<LayerActs>,
    /// Final RMSNorm output, `N × D`, and its `1/rms` per row.
    xf: Vec<f32>,
    inv_rms_f: Vec<f32>,
    /// LM-head output, `N × V`.
    logits: Vec<f32>,
    /// Softmax of the logits, `N × V`.
    probs: Vec<f32>,
}

/// Gradient buffers for activations, allocated once and reused by every step.
#[derive(Clone, Debug)]
struct GradBufs {
    /// `∂L/∂logits`, `N × V`.
    d_logits: Vec<f32>,
    /// `∂L/∂(final norm output)`, `N × D`.
    d_xf: Vec<f32>,
    /// `∂L/∂(output of the current block)`, `N × D`.
    d_y: Vec<f32>,
    /// `∂L/∂(input of the current block)`, `N × D`; swapped with `d_y` after each block.
    d_x: Vec<f32>,
    /// Scratch for the inside of a block.
    block: BlockGradBufs,
}

/// A decoder-only transformer with its gradients, Adam state and work buffers.
#[derive(Clone, Debug)]
pub struct Model {
    cfg: Config,
    params: Params,
    grads: Params,
    optim: Adam,
    rope: RopeTable,
    acts: Activations,
    bufs: GradBufs,
}

impl Model {
    /// Builds a model with deterministically initialised parameters (see [`Params::init`]).
    pub fn new(cfg: &Config) -> Self {
        cfg.validate();
        let (n, d, v) = (cfg.rows(), cfg.d_model, cfg.vocab);
        let acts = Activations {
            stream: vec![vec![0.0; n * d]; cfg.n_layers + 1],
            layers: (0..cfg.n_layers).map(|_| LayerActs::new(cfg)).collect(),
            xf: vec![0.0; n * d],
            inv_rms_f: vec![0.0; n],
            logits: vec![0.0; n * v],
            probs: vec![0.0; n * v],
        };
        let bufs = GradBufs {
            d_logits: vec![0.0; n * v],
            d_xf: vec![0.0; n * d],
            d_y: vec![0.0; n * d],
            d_x: vec![0.0; n * d],
            block: BlockGradBufs::new(cfg),
        };
        Self {
            cfg: cfg.clone(),
            params: Params::init(cfg),
            grads: Params::zeros(cfg),
            optim: Adam::new(cfg),
            rope: RopeTable::new(cfg.seq_len, cfg.head_dim(), ROPE_BASE),
            acts,
            bufs,
        }
    }

    /// The configuration the model was built with.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// Current parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Mutable parameters (e.g. to perturb them in gradient checks).
    pub fn params_mut(&mut self) -> &mut Params {
        &mut self.params
    }

    /// The optimizer (e.g. to read its step count).
    pub fn optimizer(&self) -> &Adam {
        &self.optim
    }

    /// Mutable optimizer, e.g. to change the learning rate or enable weight decay.
    pub fn optimizer_mut(&mut self) -> &mut Adam {
        &mut self.optim
    }

    /// Gradients computed by the most recent [`Model::train_step`] (before its update).
    pub fn grads(&self) -> &Params {
        &self.grads
    }

    /// One training step on `batch`: forward, backward and an Adam update.
    ///
    /// Returns the mean cross-entropy loss of `batch` *before* the update. The step runs
    /// in the nine canonical training phases (`embed`, `forward`, `norm_lm`, `loss`,
    /// `lm_bwd`, `norm_bwd`, `blk_bwd`, `embed_bwd`, `opt`), each a profiler phase, and
    /// every block runs inside a layer scope with its index and direction.
    pub fn train_step(&mut self, batch: &Batch) -> f32 {
        match self.train_step_with(batch, |_| Ok::<(), std::convert::Infallible>(())) {
            Ok(loss) => loss,
            Err(never) => match never {},
        }
    }

    /// [`Model::train_step`] with `before_update` run on the gradients between the
    /// backward phases and the optimizer: data parallelism averages them across ranks
    /// there. When it fails, the step ends without an update and its error is returned.
    ///
    /// # Errors
    /// The error of `before_update`.
    pub fn train_step_with<E>(
        &mut self,
        batch: &Batch,
        before_update: impl FnOnce(&mut Params) -> Result<(), E>,
    ) -> Result<f32, E> {
        self.check_batch(batch);
        let n_layers = self.cfg.n_layers;

        // Each phase is a profiler scope; its guard ends the phase when it drops.
        let phase = profiler::phase;

        let p = phase("embed"); // token embedding lookup
        self.embed_forward(batch);
        drop(p);

        let p = phase("forward"); // transformer blocks, first to last
        for layer in 0..n_layers {
            let _layer = profiler::layer(layer, Direction::Forward);
            self.layer_forward(layer);
        }
        drop(p);

        let p = phase("norm_lm"); // final RMSNorm + LM head
        self.norm_lm_forward();
        drop(p);

        let p = phase("loss"); // cross-entropy and its gradient w.r.t. the logits
        let loss = self.loss_forward(batch);
        self.loss_backward(batch);
        drop(p);

        let p = phase("lm_bwd"); // clear parameter gradients, LM head backward
        self.grads.zero();
        self.lm_head_backward();
        drop(p);

        let p = phase("norm_bwd"); // final RMSNorm backward
        self.final_norm_backward();
        drop(p);

        let p = phase("blk_bwd"); // transformer blocks, last to first
        for layer in (0..n_layers).rev() {
            let _layer = profiler::layer(layer, Direction::Backward);
            self.layer_backward(layer);
        }
        drop(p);

        let p = phase("embed_bwd"); // embedding scatter-add
        self.embed_backward(batch);
        drop(p);

        before_update(&mut self.grads)?;

        let p = phase("opt"); // Adam update
        self.optim.step(&mut self.params, &self.grads);
        drop(p);

        Ok(loss)
    }

    /// Mean cross-entropy loss of `batch` without computing gradients or updating anything.
    ///
    /// Reuses the model's activation buffers, hence `&mut self`; parameters, gradients and
    /// optimizer state are left untouched.
    pub fn forward_loss(&mut self, batch: &Batch) -> f32 {
        self.check_batch(batch);
        self.embed_forward(batch);
        for layer in 0..self.cfg.n_layers {
            self.layer_forward(layer);
        }
        self.norm_lm_forward();
        self.loss_forward(batch)
    }

    fn check_batch(&self, batch: &Batch) {
        assert_eq!(
            (batch.batch, batch.seq_len),
            (self.cfg.batch, self.cfg.seq_len),
            "batch shape does not match the model config"
        );
        assert_eq!(batch.inputs.len(), self.cfg.rows());
        assert_eq!(batch.targets.len(), self.cfg.rows());
    }

    fn embed_forward(&mut self, batch: &Batch) {
        let out = &mut self.acts.stream[0];
        embedding_forward(&self.params.embed, &batch.inputs, out, self.cfg.d_model);
    }

    /// Forward of block `layer`: `stream[layer]` → `stream[layer + 1]`.
    fn layer_forward(&mut self, layer: usize) {
        let (before, after) = self.acts.stream.split_at_mut(layer + 1);
        block_forward(
            &self.params.layers[layer],
            &before[layer],
            &mut after[0],
            &mut self.acts.layers[layer],
            &self.cfg,
            &self.rope,
        );
    }

    fn norm_lm_forward(&mut self) {
        let (n, d, v) = (self.cfg.rows(), self.cfg.d_model, self.cfg.vocab);
        let a = &mut self.acts;
        let x = &a.stream[self.cfg.n_layers];
        rmsnorm_forward(x, &self.params.final_norm, &mut a.xf, &mut a.inv_rms_f, d);
        lm_head(&a.xf, &self.params.lm_head, &mut a.logits, n, d, v);
    }

    fn loss_forward(&mut self, batch: &Batch) -> f32 {
        let a = &mut self.acts;
        cross_entropy_forward(&a.logits, &batch.targets, &mut a.probs, self.cfg.vocab)
    }

    fn loss_backward(&mut self, batch: &Batch) {
        let d_logits = &mut self.bufs.d_logits;
        d_logits.fill(0.0);
        cross_entropy_backward(&self.acts.probs, &batch.targets, d_logits, self.cfg.vocab);
    }

    fn lm_head_backward(&mut self) {
        let (n, d, v) = (self.cfg.rows(), self.cfg.d_model, self.cfg.vocab);
        let b = &mut self.bufs;
        b.d_xf.fill(0.0);
        let (x, w) = (&self.acts.xf, &self.params.lm_head);
        lm_head_backward(
            &b.d_logits,
            x,
            w,
            &mut b.d_xf,
            &mut self.grads.lm_head,
            n,
            d,
            v,
        );
    }

    /// Final RMSNorm backward; leaves `∂L/∂(last block output)` in `bufs.d_y`.
    fn final_norm_backward(&mut self) {
        let b = &mut self.bufs;
        let a = &self.acts;
        b.d_y.fill(0.0);
        rmsnorm_backward(
            &a.stream[self.cfg.n_layers],
            &self.params.final_norm,
            &a.inv_rms_f,
            &b.d_xf,
            &mut b.d_y,
            &mut self.grads.final_norm,
            self.cfg.d_model,
        );
    }

    /// Backward of block `layer`: consumes `bufs.d_y` (gradient of its output) and leaves
    /// the gradient of its input in `bufs.d_y` for the block below.
    fn layer_backward(&mut self, layer: usize) {
        let b = &mut self.bufs;
        b.d_x.fill(0.0);
        block_backward(
            &self.params.layers[layer],
            &mut self.grads.layers[layer],
            &self.acts.stream[layer],
            &self.acts.layers[layer],
            &b.d_y,
            &mut b.d_x,
            &mut b.block,
            &self.cfg,
            &self.rope,
        );
        std::mem::swap(&mut b.d_y, &mut b.d_x);
    }

    /// Embedding backward from `bufs.d_y`, the gradient of the embedding output.
    fn embed_backward(&mut self, batch: &Batch) {
        let d_model = self.cfg.d_model;
        embedding_backward(
            &batch.inputs,
            &self.bufs.d_y,
            &mut self.grads.embed,
            d_model,
        );
    }
}
