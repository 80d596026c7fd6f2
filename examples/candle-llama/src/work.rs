//! How candle's spans become bricks, with the work of each call derived
//! from the model's shapes, so the roofline can place the mapped bricks.
//!
//! FLOPs count the matrix products (2 per multiply-add) and the
//! element-wise work named below; bytes count f32 weights read plus the
//! activations a call reads and writes, a lower bound on the traffic.

use profiler::tracing::{BrickLayer, SpanRule};

use crate::shape::Shape;

/// Bytes of one f32.
const F32: u64 = 4;

/// Work of one call: elements, bytes, FLOPs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Work {
    /// Elements processed (tokens for the layer-sized bricks).
    pub elements: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Floating-point operations.
    pub flops: u64,
}

/// Sizes as u64, once.
struct Dims {
    tokens: u64,
    batch: u64,
    seq: u64,
    hidden: u64,
    heads: u64,
    kv_heads: u64,
    head_dim: u64,
    inter: u64,
    vocab: u64,
    layers: u64,
}

impl Dims {
    fn of(s: &Shape) -> Self {
        let u = |v: usize| v as u64;
        Self {
            tokens: u(s.tokens()),
            batch: u(s.batch),
            seq: u(s.seq),
            hidden: u(s.hidden),
            heads: u(s.heads),
            kv_heads: u(s.kv_heads),
            head_dim: u(s.head_dim()),
            inter: u(s.intermediate),
            vocab: u(s.vocab),
            layers: u(s.layers),
        }
    }

    fn kv_width(&self) -> u64 {
        self.kv_heads * self.head_dim
    }
}

/// One `mlp` call: gate, up and down projections, SiLU and the product.
#[must_use]
pub fn mlp(shape: &Shape) -> Work {
    let d = Dims::of(shape);
    let matmuls = 2 * d.tokens * d.hidden * d.inter * 3;
    Work {
        elements: d.tokens,
        bytes: F32 * (3 * d.hidden * d.inter + 2 * d.tokens * d.hidden + 3 * d.tokens * d.inter),
        // SiLU (about 4 operations) and the gate-up product per element.
        flops: matmuls + 5 * d.tokens * d.inter,
    }
}

/// One `attn` call: q/k/v/o projections, scores, softmax and the weighted
/// sum of values, with every head attending over the whole sequence.
#[must_use]
pub fn attention(shape: &Shape) -> Work {
    let d = Dims::of(shape);
    let projections = 2 * d.tokens * d.hidden * (2 * d.hidden + 2 * d.kv_width());
    let scores = d.batch * d.heads * d.seq * d.seq;
    Work {
        elements: d.tokens,
        bytes: F32
            * (2 * d.hidden * d.hidden
                + 2 * d.hidden * d.kv_width()
                + 2 * d.tokens * d.hidden
                + 2 * scores),
        // Two score products, then about 5 operations per score (scale,
        // mask, exponent, sum, divide).
        flops: projections + 2 * 2 * scores * d.head_dim + 5 * scores,
    }
}

/// One `rms-norm` call over the hidden states: square, sum, scale, weight.
#[must_use]
pub fn rms_norm(shape: &Shape) -> Work {
    let d = Dims::of(shape);
    Work {
        elements: d.tokens,
        bytes: F32 * (2 * d.tokens * d.hidden + d.hidden),
        flops: 4 * d.tokens * d.hidden,
    }
}

/// One `attn-rot` call, averaged over its query and key calls (the same
/// span rotates both): two products and a sum per element.
#[must_use]
pub fn rotary(shape: &Shape) -> Work {
    let d = Dims::of(shape);
    let elements = d.tokens * d.head_dim * (d.heads + d.kv_heads) / 2;
    Work {
        elements,
        bytes: F32 * (2 * elements + d.seq * d.head_dim),
        flops: 3 * elements,
    }
}

/// One `linear` call, averaged over every linear of a pass (one span for
/// all of them): q, k, v, o, gate, up, down per block and the LM head on
/// the last token of each sequence; the pass total is exact to rounding.
#[must_use]
pub fn linear(shape: &Shape) -> Work {
    let d = Dims::of(shape);
    let per_block_weights =
        2 * d.hidden * d.hidden + 2 * d.hidden * d.kv_width() + 3 * d.hidden * d.inter;
    let per_block_flops = 2 * d.tokens * per_block_weights;
    let head_weights = d.hidden * d.vocab;
    let calls = 7 * d.layers + 1;
    let flops = d.layers * per_block_flops + 2 * d.batch * head_weights;
    let weights = d.layers * per_block_weights + head_weights;
    Work {
        elements: d.tokens,
        bytes: F32 * weights / calls,
        flops: flops / calls,
    }
}

/// The tracing layer for the llama model of `shape`: candle's span names
/// keep their default bricks (`attn-rot` is `RopeEmbedding`, `rms-norm` is
/// `RmsNorm`, `attn`, `mlp`, `block` and `linear` are custom bricks of their
/// categories) and gain the work of each call; each block is its layer, in
/// the order candle builds them.
#[must_use]
pub fn brick_layer(shape: &Shape) -> BrickLayer {
    let rule = |name: &str, w: Work| SpanRule::named(name).work(w.elements, w.bytes, w.flops);
    BrickLayer::builder()
        .rule(SpanRule::named("block").layer_per_instance())
        .rule(rule("attn", attention(shape)))
        .rule(rule("attn-rot", rotary(shape)))
        .rule(rule("mlp", mlp(shape)))
        .rule(rule("rms-norm", rms_norm(shape)))
        .rule(rule("linear", linear(shape)))
        .build()
}

/// The tracing layer for generation: the same bricks and layers as
/// [`brick_layer`], without the work per call, which is derived for a
/// pass over the whole sequence and would be wrong for a decode step.
#[must_use]
pub fn generation_layer() -> BrickLayer {
    let mut builder = BrickLayer::builder().rule(SpanRule::named("block").layer_per_instance());
    for name in ["attn", "attn-rot", "mlp", "rms-norm", "linear"] {
        builder = builder.rule(SpanRule::named(name));
    }
    builder.build()
}

/// Bytes one generated token reads from memory at batch `shape.batch`:
/// every weight once per decode step (shared by the batch), plus each
/// sequence's key/value cache at the mean cache length of `generate`
/// tokens after a prompt of `shape.seq`: `(weights + batch * kv) / batch`.
#[must_use]
pub fn decode_bytes_per_token(shape: &Shape, weight_bytes: u64, generate: u64) -> f64 {
    let d = Dims::of(shape);
    // Decode step i (1..generate) attends over seq + i cached positions.
    let steps = generate.saturating_sub(1).max(1);
    let mean_len = d.seq as f64 + (steps + 1) as f64 / 2.0;
    let kv = (F32 * d.layers * 2 * d.kv_width()) as f64 * mean_len;
    (weight_bytes as f64 + d.batch as f64 * kv) / d.batch as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape() -> Shape {
        Shape {
            layers: 2,
            hidden: 8,
            heads: 2,
            kv_heads: 1,
            intermediate: 16,
            vocab: 10,
            seq: 4,
            batch: 1,
        }
    }

    #[test]
    fn decode_bytes_are_the_weights_per_token_plus_the_cache() {
        let s = shape();
        // Two decode steps attend over seq + 1 and seq + 2 positions.
        let kv_per_pos = (4 * s.layers * 2 * s.kv_heads * s.head_dim()) as f64;
        let mean = s.seq as f64 + 1.5;
        let expected = (1000.0 + s.batch as f64 * kv_per_pos * mean) / s.batch as f64;
        assert_eq!(decode_bytes_per_token(&s, 1000, 3), expected);
    }

    #[test]
    fn mlp_work_is_its_three_projections_and_the_gating() {
        // 4 tokens x (8x16 weights x 3 products) x 2, plus 5 x 4 x 16.
        assert_eq!(mlp(&shape()).flops, 2 * 4 * 8 * 16 * 3 + 5 * 4 * 16);
        assert_eq!(mlp(&shape()).elements, 4);
    }

    #[test]
    fn linear_work_averages_the_pass_total() {
        let w = linear(&shape());
        // Per block: q,o 8x8, k,v 8x4, gate/up/down 8x16 -> 512 weights.
        let block = 2 * 64 + 2 * 32 + 3 * 128;
        let total = 2 * (2 * 4 * block) + 2 * 80;
        assert_eq!(w.flops, total / 15);
    }
}
