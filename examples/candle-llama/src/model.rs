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
    _weights: VarMap,
    shape: Shape,
}

impl Model {
    /// Builds the model of `shape` with random weights (candle's default
    /// initialisation of each layer); nothing is downloaded.
    ///
    /// # Errors
    /// A tensor candle cannot create.
    pub fn random(shape: Shape) -> Result<Self, CandleError> {
        let device = Device::Cpu;
        let weights = VarMap::new();
        let vb = VarBuilder::from_varmap(&weights, DType::F32, &device);
        let config = shape.config();
        let llama = Llama::load(vb, &config)?;
        // No key/value cache: every pass sees the whole sequence.
        let cache = Cache::new(false, DType::F32, &config, &device)?;
        Ok(Self {
            llama,
            cache,
            _weights: weights,
            shape,
        })
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
