//! The brick and category names the macros accept, mirrored from
//! `brick-profiler-core`'s catalogue (a unit test keeps the two in step), and
//! the nearest of them to a mistyped name.

/// Built-in bricks: the `BrickId` variant, its category and the aliases it
/// also answers to.
const BRICKS: &[(&str, &str, &[&str])] = &[
    ("RmsNorm", "Norm", &[]),
    ("LayerNorm", "Norm", &[]),
    ("QkvProjection", "Attention", &["Qkv"]),
    ("RopeEmbedding", "Attention", &["Rope", "RoPE"]),
    ("AttentionScore", "Attention", &[]),
    ("AttentionSoftmax", "Attention", &["Softmax"]),
    ("AttentionOutput", "Attention", &[]),
    ("OutputProjection", "Attention", &["OutProj"]),
    ("GateProjection", "Ffn", &["Gate"]),
    ("UpProjection", "Ffn", &["Up"]),
    ("Activation", "Ffn", &["SiLU", "GELU", "ReLU"]),
    ("DownProjection", "Ffn", &["Down"]),
    ("Embedding", "Other", &["Embed"]),
    ("LmHead", "Other", &["Head"]),
    ("Sampling", "Other", &["Sample"]),
    ("SpMV", "Sparse", &["spmv"]),
    ("SpMM", "Sparse", &["spmm"]),
    ("FormatConvert", "Sparse", &[]),
    ("FFT1D", "Fft", &["FFT", "fft1d"]),
    ("FFT2D", "Fft", &["fft2d"]),
    ("LUFactorize", "Solver", &["LU"]),
    ("QRFactorize", "Solver", &["QR"]),
    ("SVDCompute", "Solver", &["SVD"]),
];

/// Brick categories: the `BrickCategory` variant and its other spellings.
const CATEGORIES: &[(&str, &[&str])] = &[
    ("Norm", &[]),
    ("Attention", &[]),
    ("Ffn", &["FFN"]),
    ("Other", &[]),
    ("Sparse", &[]),
    ("Fft", &["FFT"]),
    ("Solver", &[]),
];

/// The `BrickId` variant named by `name` (a variant name or an alias).
pub(crate) fn brick(name: &str) -> Option<&'static str> {
    BRICKS
        .iter()
        .find(|(variant, _, aliases)| *variant == name || aliases.contains(&name))
        .map(|(variant, _, _)| *variant)
}

/// The `BrickCategory` variant named by `name`.
pub(crate) fn category(name: &str) -> Option<&'static str> {
    CATEGORIES
        .iter()
        .find(|(variant, aliases)| *variant == name || aliases.contains(&name))
        .map(|(variant, _)| *variant)
}

/// The category a built-in brick's time counts under, for error messages.
pub(crate) fn brick_category(variant: &str) -> &'static str {
    BRICKS
        .iter()
        .find(|(v, _, _)| *v == variant)
        .map_or("Other", |(_, category, _)| *category)
}

/// The known brick name or alias closest to `name`, if any is close.
pub(crate) fn suggest_brick(name: &str) -> Option<&'static str> {
    profiler_suggest::suggest(
        name,
        BRICKS.iter().flat_map(|(variant, _, aliases)| {
            std::iter::once(*variant).chain(aliases.iter().copied())
        }),
    )
}

/// The known category spelling closest to `name`, if any is close.
pub(crate) fn suggest_category(name: &str) -> Option<&'static str> {
    profiler_suggest::suggest(
        name,
        CATEGORIES.iter().flat_map(|(variant, aliases)| {
            std::iter::once(*variant).chain(aliases.iter().copied())
        }),
    )
}

/// Category variants, for the "expected one of" list.
pub(crate) fn category_names() -> impl Iterator<Item = &'static str> {
    CATEGORIES.iter().map(|(variant, _)| *variant)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_and_aliases_resolve() {
        assert_eq!(brick("RmsNorm"), Some("RmsNorm"));
        assert_eq!(brick("RoPE"), Some("RopeEmbedding"));
        assert_eq!(brick("GELU"), Some("Activation"));
        assert_eq!(brick("fft1d"), Some("FFT1D"));
        assert_eq!(brick("rmsnorm"), None, "lookups are case-sensitive");
        assert_eq!(category("FFN"), Some("Ffn"));
        assert_eq!(category("Fft"), Some("Fft"));
        assert_eq!(category("ffn"), None);
    }

    #[test]
    fn suggestions_are_case_insensitive_and_bounded() {
        assert_eq!(suggest_brick("RmsNrom"), Some("RmsNorm"));
        assert_eq!(suggest_brick("rmsnorm"), Some("RmsNorm"));
        assert_eq!(suggest_brick("SPMV"), Some("SpMV"));
        assert_eq!(suggest_brick("Softmx"), Some("Softmax"));
        assert_eq!(suggest_brick("Convolution"), None);
        assert_eq!(suggest_category("Atention"), Some("Attention"));
        assert_eq!(suggest_category("Sovler"), Some("Solver"));
        assert_eq!(suggest_category("Vision"), None);
    }

    /// The tables must name exactly what `brick-profiler-core` defines.
    #[test]
    fn tables_match_profiler_core() {
        use profiler::{BrickCategory, BrickId};
        let variants: Vec<&str> = BRICKS.iter().map(|(v, _, _)| *v).collect();
        let core: Vec<&str> = BrickId::ALL.iter().map(|id| id.name()).collect();
        assert_eq!(variants, core);
        for (variant, category, aliases) in BRICKS {
            let id = BrickId::from_str(variant).expect("core knows every variant");
            assert_eq!(format!("{:?}", id.category()), *category, "{variant}");
            assert_eq!(brick_category(variant), *category);
            for alias in *aliases {
                assert_eq!(BrickId::from_str(alias), Some(id), "{alias}");
                assert_eq!(brick(alias), Some(*variant), "{alias}");
            }
        }
        for category in BrickCategory::ALL {
            let variant = format!("{category:?}");
            assert_eq!(self::category(&variant), Some(variant.as_str()));
            assert_eq!(self::category(category.name()), Some(variant.as_str()));
        }
        assert_eq!(CATEGORIES.len(), BrickCategory::COUNT);
    }
}
