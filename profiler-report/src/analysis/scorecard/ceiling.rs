//! What the grade is measured against: the memory-bound ceiling
//! `peak_bw_gb_s * 1e9 / bytes_per_token`, and where its bytes per token
//! came from: given, derived from the bricks' byte annotations, or the
//! presets' placeholder (a guess, and labelled as one).

use profiler_core::Profile;
use serde::{Deserialize, Serialize};

use crate::model::hardware::{DEFAULT_BYTES_PER_TOKEN, HardwareSpec};

/// Where the bytes per token of a ceiling came from; serialised snake_case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BytesPerTokenSource {
    /// Set explicitly: `PROFILER_BYTES_PER_TOKEN`, a hardware file,
    /// `ScorecardBuilder::bytes_per_token`, or a [`HardwareSpec`] with a
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

    /// How a spec's bytes per token was chosen when nothing else is known:
    /// the placeholder value is the default, any other value was given.
    pub(crate) fn of_spec(spec: &HardwareSpec) -> Self {
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
        assert_eq!(
            BytesPerTokenSource::of_spec(&HardwareSpec::rtx_4060l()),
            BytesPerTokenSource::Default
        );
        let spec = HardwareSpec {
            bytes_per_token: 2e6,
            ..HardwareSpec::rtx_4060l()
        };
        assert_eq!(
            BytesPerTokenSource::of_spec(&spec),
            BytesPerTokenSource::Given
        );
    }
}
