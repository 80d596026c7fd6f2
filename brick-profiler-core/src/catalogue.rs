//! The brick catalogue: the 23 built-in [`BrickId`]s, their seven
//! [`BrickCategory`]s and the per-brick [`BrickBottleneck`] label.
//!
//! Indices, names, categories and aliases are part of the saved-file format.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Broad kind of work a brick does; categories aggregate brick time in reports.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[repr(u8)]
pub enum BrickCategory {
    /// Normalisation (RMSNorm, LayerNorm).
    Norm = 0,
    /// Attention: projections, RoPE, scores, softmax, output.
    Attention = 1,
    /// Feed-forward network: gate/up/down projections and activations.
    Ffn = 2,
    /// Everything else: embedding, LM head, sampling, dynamic bricks.
    #[default]
    Other = 3,
    /// Sparse linear algebra.
    Sparse = 4,
    /// Fast Fourier transforms.
    Fft = 5,
    /// Dense factorisations and solvers.
    Solver = 6,
}

impl BrickCategory {
    /// Number of categories.
    pub const COUNT: usize = 7;

    /// Every category, in index order.
    pub const ALL: [BrickCategory; Self::COUNT] = [
        Self::Norm,
        Self::Attention,
        Self::Ffn,
        Self::Other,
        Self::Sparse,
        Self::Fft,
        Self::Solver,
    ];

    /// Display name: "Norm", "Attention", "FFN", "Other", "Sparse", "FFT", "Solver".
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Norm => "Norm",
            Self::Attention => "Attention",
            Self::Ffn => "FFN",
            Self::Other => "Other",
            Self::Sparse => "Sparse",
            Self::Fft => "FFT",
            Self::Solver => "Solver",
        }
    }

    /// Looks a category up by variant or display name (`Ffn` and `FFN` both work).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|c| c.name() == name || format!("{c:?}") == name)
    }
}

impl fmt::Display for BrickCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What limits a brick, as set by the user or an analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum BrickBottleneck {
    /// Not classified.
    #[default]
    Unknown,
    /// Limited by memory bandwidth or latency.
    Memory,
    /// Limited by arithmetic throughput.
    Compute,
}

impl fmt::Display for BrickBottleneck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Unknown => "unknown",
            Self::Memory => "memory",
            Self::Compute => "compute",
        })
    }
}

macro_rules! brick_ids {
    ($($variant:ident = $idx:literal, $category:ident, [$($alias:literal),*];)*) => {
        /// A built-in brick: a kernel or layer part every transformer has.
        ///
        /// Built-in bricks occupy slots `0..COUNT` and are O(1) to record.
        /// Names other than these are custom bricks (see `#[brick("Name")]`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[repr(u8)]
        pub enum BrickId {
            $(
                #[doc = concat!("`", stringify!($variant), "` (category ", stringify!($category), ").")]
                $variant = $idx,
            )*
        }

        impl BrickId {
            /// Every built-in brick, in index order.
            pub const ALL: [BrickId; Self::COUNT] = [$(Self::$variant),*];

            /// The variant name, e.g. `"RmsNorm"`.
            #[must_use]
            pub const fn name(self) -> &'static str {
                match self { $(Self::$variant => stringify!($variant)),* }
            }

            /// The category this brick's time is aggregated under.
            #[must_use]
            pub const fn category(self) -> BrickCategory {
                match self { $(Self::$variant => BrickCategory::$category),* }
            }

            /// Resolves a variant name or one of its aliases (`"Rope"`, `"SiLU"`, `"LU"`, ...).
            // Compat: the reference API is an inherent `from_str` returning `Option`;
            // the `FromStr` impl below gives the typed error for `str::parse`.
            #[allow(clippy::should_implement_trait)]
            #[must_use]
            pub fn from_str(name: &str) -> Option<Self> {
                match name {
                    $(stringify!($variant) $(| $alias)* => Some(Self::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

brick_ids! {
    RmsNorm = 0, Norm, [];
    LayerNorm = 1, Norm, [];
    QkvProjection = 2, Attention, ["Qkv"];
    RopeEmbedding = 3, Attention, ["Rope", "RoPE"];
    AttentionScore = 4, Attention, [];
    AttentionSoftmax = 5, Attention, ["Softmax"];
    AttentionOutput = 6, Attention, [];
    OutputProjection = 7, Attention, ["OutProj"];
    GateProjection = 8, Ffn, ["Gate"];
    UpProjection = 9, Ffn, ["Up"];
    Activation = 10, Ffn, ["SiLU", "GELU", "ReLU"];
    DownProjection = 11, Ffn, ["Down"];
    Embedding = 12, Other, ["Embed"];
    LmHead = 13, Other, ["Head"];
    Sampling = 14, Other, ["Sample"];
    SpMV = 15, Sparse, ["spmv"];
    SpMM = 16, Sparse, ["spmm"];
    FormatConvert = 17, Sparse, [];
    FFT1D = 18, Fft, ["FFT", "fft1d"];
    FFT2D = 19, Fft, ["fft2d"];
    LUFactorize = 20, Solver, ["LU"];
    QRFactorize = 21, Solver, ["QR"];
    SVDCompute = 22, Solver, ["SVD"];
}

impl BrickId {
    /// Number of built-in bricks.
    pub const COUNT: usize = 23;

    /// The brick at `index`, if it is a built-in slot.
    #[must_use]
    pub fn from_index(index: usize) -> Option<Self> {
        Self::ALL.get(index).copied()
    }
}

impl fmt::Display for BrickId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error of `"...".parse::<BrickId>()`: the name is neither a variant nor an alias.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown brick `{name}`{}", profiler_suggest::did_you_mean(*suggestion))]
pub struct UnknownBrick {
    /// The name that was given.
    pub name: String,
    /// The closest built-in name, when one is close.
    pub suggestion: Option<&'static str>,
}

impl FromStr for BrickId {
    type Err = UnknownBrick;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        BrickId::from_str(name).ok_or_else(|| UnknownBrick {
            name: name.to_owned(),
            suggestion: closest_name(name),
        })
    }
}

/// The built-in name closest to `name`, if one is close.
fn closest_name(name: &str) -> Option<&'static str> {
    profiler_suggest::suggest(name, BrickId::ALL.iter().map(|id| id.name()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_names_and_categories_match_the_table() {
        assert_eq!(BrickId::ALL.len(), BrickId::COUNT);
        for (i, id) in BrickId::ALL.iter().enumerate() {
            assert_eq!(*id as usize, i);
            assert_eq!(BrickId::from_index(i), Some(*id));
        }
        assert_eq!(BrickId::LmHead as u8, 13);
        assert_eq!(BrickId::SVDCompute as u8, 22);
        assert_eq!(BrickId::Activation.category(), BrickCategory::Ffn);
        assert_eq!(BrickId::FormatConvert.category(), BrickCategory::Sparse);
        assert_eq!(BrickId::Sampling.category(), BrickCategory::Other);
        assert_eq!(BrickId::QRFactorize.to_string(), "QRFactorize");
    }

    #[test]
    fn aliases_resolve() {
        let cases = [
            ("Qkv", BrickId::QkvProjection),
            ("Rope", BrickId::RopeEmbedding),
            ("RoPE", BrickId::RopeEmbedding),
            ("Softmax", BrickId::AttentionSoftmax),
            ("OutProj", BrickId::OutputProjection),
            ("Gate", BrickId::GateProjection),
            ("Up", BrickId::UpProjection),
            ("SiLU", BrickId::Activation),
            ("GELU", BrickId::Activation),
            ("ReLU", BrickId::Activation),
            ("Down", BrickId::DownProjection),
            ("Embed", BrickId::Embedding),
            ("Head", BrickId::LmHead),
            ("Sample", BrickId::Sampling),
            ("spmv", BrickId::SpMV),
            ("spmm", BrickId::SpMM),
            ("FFT", BrickId::FFT1D),
            ("fft1d", BrickId::FFT1D),
            ("fft2d", BrickId::FFT2D),
            ("LU", BrickId::LUFactorize),
            ("QR", BrickId::QRFactorize),
            ("SVD", BrickId::SVDCompute),
        ];
        for (alias, id) in cases {
            assert_eq!(BrickId::from_str(alias), Some(id), "{alias}");
        }
        for id in BrickId::ALL {
            assert_eq!(BrickId::from_str(id.name()), Some(id));
        }
        assert_eq!(BrickId::from_str("rmsnorm"), None);
    }

    #[test]
    fn parse_error_suggests_the_closest_name() {
        let err = "RmsNrom".parse::<BrickId>().unwrap_err();
        assert_eq!(err.suggestion, Some("RmsNorm"));
        assert_eq!(
            err.to_string(),
            "unknown brick `RmsNrom`, did you mean `RmsNorm`?"
        );
        let err = "Totally".parse::<BrickId>().unwrap_err();
        assert_eq!(err.to_string(), "unknown brick `Totally`");
    }

    #[test]
    fn categories_have_display_names_and_indices() {
        let names: Vec<&str> = BrickCategory::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(
            names,
            [
                "Norm",
                "Attention",
                "FFN",
                "Other",
                "Sparse",
                "FFT",
                "Solver"
            ]
        );
        for (i, c) in BrickCategory::ALL.iter().enumerate() {
            assert_eq!(*c as usize, i);
        }
        assert_eq!(BrickCategory::default(), BrickCategory::Other);
        assert_eq!(BrickCategory::from_name("FFN"), Some(BrickCategory::Ffn));
        assert_eq!(BrickCategory::from_name("Ffn"), Some(BrickCategory::Ffn));
        assert_eq!(BrickCategory::from_name("nope"), None);
    }
}
