//! The built-in reading of span names: aliases of catalogue bricks (the
//! names candle, burn and `#[instrument]` code give their spans), and the
//! category of any other name, guessed from the words in it.

use profiler_core::{BrickCategory, BrickId};

/// Span names (after [`normalise`]) that are built-in bricks.
const ALIASES: &[(&str, BrickId)] = &[
    ("rmsnorm", BrickId::RmsNorm),
    ("layernorm", BrickId::LayerNorm),
    ("embedding", BrickId::Embedding),
    ("embed", BrickId::Embedding),
    ("wte", BrickId::Embedding),
    ("lmhead", BrickId::LmHead),
    ("rope", BrickId::RopeEmbedding),
    ("rotary", BrickId::RopeEmbedding),
    ("rotaryemb", BrickId::RopeEmbedding),
    ("rotaryembedding", BrickId::RopeEmbedding),
    ("attnrot", BrickId::RopeEmbedding),
    ("qkv", BrickId::QkvProjection),
    ("qkvproj", BrickId::QkvProjection),
    ("softmax", BrickId::AttentionSoftmax),
    ("oproj", BrickId::OutputProjection),
    ("outproj", BrickId::OutputProjection),
    ("gateproj", BrickId::GateProjection),
    ("upproj", BrickId::UpProjection),
    ("downproj", BrickId::DownProjection),
    ("silu", BrickId::Activation),
    ("gelu", BrickId::Activation),
    ("relu", BrickId::Activation),
    ("act", BrickId::Activation),
    ("sample", BrickId::Sampling),
    ("sampling", BrickId::Sampling),
];

/// Lower case without `-`, `_`, `.` and spaces: `rms-norm`, `rms_norm` and
/// `RmsNorm` read alike.
pub(crate) fn normalise(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '-' | '_' | '.' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The built-in brick a span name stands for: a catalogue name or alias
/// (`RmsNorm`, `Rope`) or a span name of the table above.
pub(crate) fn builtin(name: &str) -> Option<BrickId> {
    if let Some(id) = BrickId::from_str(name) {
        return Some(id);
    }
    let key = normalise(name);
    ALIASES
        .iter()
        .find(|(alias, _)| *alias == key)
        .map(|&(_, id)| id)
        .or_else(|| {
            BrickId::ALL
                .into_iter()
                .find(|id| normalise(id.name()) == key)
        })
}

/// The category of a custom brick named `name`, from the words in it.
pub(crate) fn category(name: &str) -> BrickCategory {
    let key = normalise(name);
    let has = |words: &[&str]| words.iter().any(|w| key.contains(w));
    if has(&["attn", "attention"]) {
        BrickCategory::Attention
    } else if has(&["mlp", "ffn", "feedforward", "moe", "expert"]) {
        BrickCategory::Ffn
    } else if has(&["norm"]) {
        BrickCategory::Norm
    } else if has(&["fft"]) {
        BrickCategory::Fft
    } else {
        BrickCategory::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candle_span_names_map_to_their_bricks() {
        assert_eq!(builtin("rms-norm"), Some(BrickId::RmsNorm));
        assert_eq!(builtin("layer-norm"), Some(BrickId::LayerNorm));
        assert_eq!(builtin("embedding"), Some(BrickId::Embedding));
        assert_eq!(builtin("attn-rot"), Some(BrickId::RopeEmbedding));
        assert_eq!(builtin("lm_head"), Some(BrickId::LmHead));
        assert_eq!(builtin("RmsNorm"), Some(BrickId::RmsNorm));
        assert_eq!(builtin("Rope"), Some(BrickId::RopeEmbedding));
        assert_eq!(builtin("attn"), None);
        assert_eq!(builtin("mlp"), None);
        assert_eq!(builtin("linear"), None);
    }

    #[test]
    fn other_names_get_a_category_from_their_words() {
        assert_eq!(category("attn"), BrickCategory::Attention);
        assert_eq!(category("self_attention"), BrickCategory::Attention);
        assert_eq!(category("mlp"), BrickCategory::Ffn);
        assert_eq!(category("feed-forward"), BrickCategory::Ffn);
        assert_eq!(category("group-norm"), BrickCategory::Norm);
        assert_eq!(category("block"), BrickCategory::Other);
        assert_eq!(category("linear"), BrickCategory::Other);
    }
}
