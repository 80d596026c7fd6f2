//! What the grade is measured against: the memory-bound ceiling
//! `peak_bw_gb_s * 1e9 / bytes_per_token`, and where its bytes per token
//! came from: given, derived from the bricks' byte annotations, or the
//! presets' placeholder (a guess, and labelled as one).

use profiler_core::Profile;
use profiler_core::hardware::{Hardware, MemoryLevel};
use serde::{Deserialize, Serialize};

use crate::model::hardware::DEFAULT_BYTES_PER_TOKEN;

/// The memory-bound ceiling a grade is measured against: a device's DRAM
/// bandwidth and the bytes a token moves, as resolved for one scorecard
/// (the bytes may come from the bricks). Not checked: an unusable ceiling
/// withholds the grade, saying why.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Ceiling {
    /// Peak memory bandwidth, GB/s.
    pub(crate) peak_bw_gb_s: f64,
    /// Bytes moved per token.
    pub(crate) bytes_per_token: f64,
}

impl Ceiling {
    /// The ceiling of `hw`: its DRAM bandwidth and bytes per token (the
    /// placeholder [`DEFAULT_BYTES_PER_TOKEN`] when it gives none). `None`
    /// without a DRAM bandwidth.
    pub(crate) fn of(hw: &Hardware) -> Option<Self> {
        Some(Self {
            peak_bw_gb_s: hw.memory(MemoryLevel::Dram)?.value,
            bytes_per_token: hw
                .bytes_per_token()
                .map_or(DEFAULT_BYTES_PER_TOKEN, |f| f.value),
        })
    }

    /// Memory-bound throughput ceiling: `peak_bw_gb_s * 1e9 / bytes_per_token`.
    pub(crate) fn peak_throughput_tok_s(&self) -> f64 {
        (self.peak_bw_gb_s * 1e9) / self.bytes_per_token
    }
}

/// Where the bytes per token of a ceiling came from; serialised snake_case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BytesPerTokenSource {
    /// Set explicitly: `PROFILER_BYTES_PER_TOKEN`, a hardware file,
    /// `ScorecardBuilder::bytes_per_token`, or a hardware model with a
    /// value other than the placeholder.
    Given,
    /// Derived from the byte annotations of the recorded bricks: the sum of
    /// every brick's `total_bytes` over the tokens of the recorded steps.
    Bricks,
    /// The presets' placeholder, [`DEFAULT_BYTES_PER_TOKEN`] (158 MB, a
    /// 79M-parameter bf16 model read once per token): a guess.
    Default,
}

impl BytesPerTokenSource {
    /// Where the number came from, in words, shown next to it.
    #[must_use]
    pub const fn describe(self) -> &'static str {
        match self {
            Self::Given => "as given",
            Self::Bricks => "from brick annotations",
            Self::Default => "the presets' default, a guess",
        }
    }

    /// How a ceiling's bytes per token was chosen when nothing else is
    /// known: the placeholder value is the default, any other value was
    /// given.
    pub(crate) fn of_ceiling(spec: &Ceiling) -> Self {
        if spec.bytes_per_token.to_bits() == DEFAULT_BYTES_PER_TOKEN.to_bits() {
            Self::Default
        } else {
            Self::Given
        }
    }
}

/// Bytes per token from a profile's brick annotations, or `None` when no
/// brick recorded bytes or no recorded step carried tokens.
///
/// What counts: the `total_bytes` of every brick in the profile, over the
/// tokens of the recorded steps. Bricks record only while recording is on,
/// and a schedule pauses recording in its wait and warm-up steps, so for a
/// run that does its work inside steps this is the bytes the recorded
/// steps moved per token they processed. Bricks that ran outside steps
/// while recording was on (an evaluation pass, say) add to it, and a brick
/// that calls another brick counts both: declare `bytes` on the innermost
/// kernels only.
pub(crate) fn bytes_per_token_from_bricks(profile: &Profile) -> Option<f64> {
    let total: u128 = profile
        .bricks
        .iter()
        .map(|b| u128::from(b.total_bytes))
        .sum();
    let tokens = profile.steps.tokens;
    (total > 0 && tokens > 0).then(|| total as f64 / tokens as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use profiler_core::{BrickCategory, BrickStats};

    #[test]
    fn brick_bytes_over_recorded_tokens() {
        let mut p = Profile::empty();
        assert_eq!(bytes_per_token_from_bricks(&p), None, "no bricks");
        let brick = |name: &str, total_bytes| BrickStats {
            total_bytes,
            ..BrickStats::new(name, BrickCategory::Other)
        };
        p.bricks = vec![brick("a", 3_000), brick("b", 1_000), brick("c", 0)];
        assert_eq!(bytes_per_token_from_bricks(&p), None, "no tokens");
        p.steps.tokens = 8;
        assert_eq!(bytes_per_token_from_bricks(&p), Some(500.0));
        p.bricks = vec![brick("a", 0)];
        assert_eq!(bytes_per_token_from_bricks(&p), None, "no bytes");
    }

    #[test]
    fn the_placeholder_is_a_default_and_anything_else_is_given() {
        let laptop = crate::model::hardware::preset("rtx_4060l").unwrap();
        let ceiling = Ceiling::of(&laptop).unwrap();
        assert_eq!(
            BytesPerTokenSource::of_ceiling(&ceiling),
            BytesPerTokenSource::Default
        );
        assert!((ceiling.peak_throughput_tok_s() - 256e9 / 158e6).abs() < 1e-9);
        let spec = Ceiling {
            bytes_per_token: 2e6,
            ..ceiling
        };
        assert_eq!(
            BytesPerTokenSource::of_ceiling(&spec),
            BytesPerTokenSource::Given
        );
        assert_eq!(Ceiling::of(&Hardware::new("bare")), None);
    }
}
