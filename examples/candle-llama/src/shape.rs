//! The model's sizes, checked, and the candle configuration built from them.

use candle_transformers::models::llama::Config;

/// Sizes of the model and of one forward pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Transformer blocks.
    pub layers: usize,
    /// Model width (hidden size).
    pub hidden: usize,
    /// Attention heads.
    pub heads: usize,
    /// Key/value heads (grouped-query attention when fewer than `heads`).
    pub kv_heads: usize,
    /// Width of the feed-forward network.
    pub intermediate: usize,
    /// Vocabulary size.
    pub vocab: usize,
    /// Tokens per sequence.
    pub seq: usize,
    /// Sequences per pass.
    pub batch: usize,
}

impl Shape {
    /// Checks that candle can build and run the model, naming the size
    /// that is wrong.
    ///
    /// # Errors
    /// A zero size, a width that the heads do not divide into even head
    /// sizes, or heads that the key/value heads do not divide.
    pub fn check(&self) -> Result<(), String> {
        let sizes = [
            ("--layers", self.layers),
            ("--hidden", self.hidden),
            ("--heads", self.heads),
            ("--kv-heads", self.kv_heads),
            ("--intermediate", self.intermediate),
            ("--vocab", self.vocab),
            ("--seq", self.seq),
            ("--batch", self.batch),
        ];
        if let Some((name, _)) = sizes.iter().find(|(_, v)| *v == 0) {
            return Err(format!("{name} must be > 0"));
        }
        if !self.hidden.is_multiple_of(self.heads) || !(self.hidden / self.heads).is_multiple_of(2)
        {
            return Err(format!(
                "--hidden ({}) must be a multiple of --heads ({}) with an even head size",
                self.hidden, self.heads
            ));
        }
        if !self.heads.is_multiple_of(self.kv_heads) {
            return Err(format!(
                "--heads ({}) must be a multiple of --kv-heads ({})",
                self.heads, self.kv_heads
            ));
        }
        Ok(())
    }

    /// Width of one head.
    #[must_use]
    pub fn head_dim(&self) -> usize {
        self.hidden / self.heads
    }

    /// Tokens per pass.
    #[must_use]
    pub fn tokens(&self) -> usize {
        self.batch * self.seq
    }

    /// The candle-transformers configuration of these sizes.
    #[must_use]
    pub fn config(&self) -> Config {
        Config {
            hidden_size: self.hidden,
            intermediate_size: self.intermediate,
            vocab_size: self.vocab,
            num_hidden_layers: self.layers,
            num_attention_heads: self.heads,
            num_key_value_heads: self.kv_heads,
            use_flash_attn: false,
            rms_norm_eps: 1e-5,
            rope_theta: 10_000.0,
            bos_token_id: None,
            eos_token_id: None,
            rope_scaling: None,
            max_position_embeddings: self.seq.max(16),
            tie_word_embeddings: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Shape {
        Shape {
            layers: 2,
            hidden: 32,
            heads: 4,
            kv_heads: 2,
            intermediate: 64,
            vocab: 100,
            seq: 8,
            batch: 2,
        }
    }

    #[test]
    fn sizes_are_checked_by_name() {
        assert_eq!(small().check(), Ok(()));
        let zero = Shape { seq: 0, ..small() };
        assert_eq!(zero.check(), Err("--seq must be > 0".to_owned()));
        let odd = Shape {
            hidden: 36,
            heads: 4,
            ..small()
        };
        assert!(odd.check().unwrap_err().contains("even head size"));
        let gqa = Shape {
            kv_heads: 3,
            ..small()
        };
        assert!(gqa.check().unwrap_err().contains("--kv-heads (3)"));
    }
}
