//! The model: candle-transformers' llama with random weights on the CPU,
//! and one layer written here, the greedy sampler, annotated as a brick.

use candle_core::{D, DType, Device, Tensor};
use candle_nn::{VarBuilder, VarMap};
use candle_transformers::models::llama::{Cache, Llama};
use profiler::brick;

use crate::shape::Shape;

/// Errors of building or running the model.
pub type CandleError = candle_core::Error;

/// The llama model with its rotary tables and causal masks.
pub struct Model {
    llama: Llama,
    cache: Cache,
    /// Kept so the weights live as long as the model.
    weights: VarMap,
    shape: Shape,
    config: candle_transformers::models::llama::Config,
}

impl Model {
    /// Builds the model of `shape` with random weights (candle's default
    /// initialisation of each layer); nothing is downloaded.
    ///
    /// # Errors
    /// A tensor candle cannot create.
    pub fn random(shape: Shape) -> Result<Self, CandleError> {
        Self::with_positions(shape, shape.seq)
    }

    /// The model of `shape` for sequences of up to `positions` tokens
    /// (prompt and generated ones), with a key/value cache when `positions`
    /// exceeds the prompt: generation then runs a prefill and one decode
    /// step per token.
    ///
    /// # Errors
    /// A tensor candle cannot create.
    pub fn with_positions(shape: Shape, positions: usize) -> Result<Self, CandleError> {
        let device = Device::Cpu;
        let weights = VarMap::new();
        let vb = VarBuilder::from_varmap(&weights, DType::F32, &device);
        let mut config = shape.config();
        config.max_position_embeddings = config.max_position_embeddings.max(positions);
        let llama = Llama::load(vb, &config)?;
        // Without generation every pass sees the whole sequence: no cache.
        let cache = Cache::new(positions > shape.seq, DType::F32, &config, &device)?;
        Ok(Self {
            llama,
            cache,
            weights,
            shape,
            config,
        })
    }

    /// Bytes of all weights (f32), the embedding table included.
    #[must_use]
    pub fn weight_bytes(&self) -> u64 {
        let elements: usize = self.weights.all_vars().iter().map(|v| v.elem_count()).sum();
        4 * elements as u64
    }

    /// Prefill: runs the prompts `tokens` (`[batch, seq]`) from position 0
    /// with a fresh key/value cache and returns the first generated token
    /// of each sequence, `[batch]`.
    ///
    /// # Errors
    /// A shape candle rejects.
    pub fn prefill(&mut self, tokens: &Tensor) -> Result<Tensor, CandleError> {
        self.cache = Cache::new(true, DType::F32, &self.config, &Device::Cpu)?;
        self.forward(tokens)
    }

    /// One decode step: the tokens `next` (`[batch]`) at position `pos`
    /// against the cache; returns the following token of each sequence.
    ///
    /// # Errors
    /// A shape candle rejects.
    pub fn decode(&mut self, next: &Tensor, pos: usize) -> Result<Tensor, CandleError> {
        let logits = self
            .llama
            .forward(&next.unsqueeze(1)?, pos, &mut self.cache)?;
        sample(&logits, self.shape.vocab)
    }

    /// Deterministic token ids of pass `pass`: `batch` sequences of `seq`.
    ///
    /// # Errors
    /// A tensor candle cannot create.
    pub fn tokens(&self, pass: u64) -> Result<Tensor, CandleError> {
        let Shape {
            batch, seq, vocab, ..
        } = self.shape;
        let ids: Vec<u32> = (0..batch * seq)
            .map(|i| ((i as u64 * 7919 + pass * 104_729) % vocab as u64) as u32)
            .collect();
        Tensor::from_vec(ids, (batch, seq), &Device::Cpu)
    }

    /// One forward pass: the logits of each sequence's last token, then
    /// the greedy next token of each.
    ///
    /// # Errors
    /// A shape candle rejects.
    pub fn forward(&mut self, tokens: &Tensor) -> Result<Tensor, CandleError> {
        let logits = self.llama.forward(tokens, 0, &mut self.cache)?;
        sample(&logits, self.shape.vocab)
    }
}

/// Greedy sampling, the one layer written here: the arg-max of each row
/// of `[batch, vocab]` logits (a compare per logit, four bytes read).
#[brick(
    Sampling,
    elements = logits.dims().first().copied().unwrap_or(0),
    bytes = 4 * logits.elem_count(),
    flops = logits.elem_count()
)]
fn sample(logits: &Tensor, vocab: usize) -> Result<Tensor, CandleError> {
    let (_, width) = logits.dims2()?;
    if width != vocab {
        return Err(candle_core::Error::Msg(format!(
            "logits are {width} wide, the vocabulary has {vocab} tokens"
        )));
    }
    logits.argmax(D::Minus1)
}
