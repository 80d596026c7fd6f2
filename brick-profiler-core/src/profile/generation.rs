//! Token generation as a profile reports it: each occurrence of a phase
//! named `prefill` or `decode`, with its start on the run's clock, so time
//! to first token and inter-token latency can be computed afterwards.

use serde::{Deserialize, Serialize};

/// Most generation phase occurrences kept; later ones are counted in
/// [`GenerationLog::dropped`].
pub const MAX_GENERATION_EVENTS: usize = 100_000;

/// The two phases of generating tokens, recognised by phase name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GenerationPhase {
    /// Processing the prompt; its end is the first token.
    Prefill,
    /// Producing one more token per sequence.
    Decode,
}

impl GenerationPhase {
    /// The phase a phase name marks: exactly `prefill` or `decode`.
    #[must_use]
    pub fn of_name(name: &str) -> Option<Self> {
        match name {
            "prefill" => Some(Self::Prefill),
            "decode" => Some(Self::Decode),
            _ => None,
        }
    }
}

/// One occurrence of a generation phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenEvent {
    /// Prefill or decode.
    pub phase: GenerationPhase,
    /// Start, ns since the run began.
    pub start_ns: u64,
    /// Duration, ns.
    pub duration_ns: u64,
    /// Index of the recorded step it ran in (its tokens are the step's),
    /// `None` when it ran outside every step.
    #[serde(default)]
    pub step: Option<u64>,
}

impl TokenEvent {
    /// End, ns since the run began: when its token was ready.
    #[must_use]
    pub fn end_ns(&self) -> u64 {
        self.start_ns.saturating_add(self.duration_ns)
    }
}

/// Every recorded occurrence of `prefill` and `decode` phases, in the
/// order they ended.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenerationLog {
    /// The occurrences, at most [`MAX_GENERATION_EVENTS`].
    #[serde(default)]
    pub events: Vec<TokenEvent>,
    /// Occurrences beyond the cap (in the phase totals, not in `events`).
    #[serde(default)]
    pub dropped: u64,
}

impl GenerationLog {
    /// Whether nothing was generated (no prefill or decode phase ran).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.events.is_empty() && self.dropped == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_names_mark_generation() {
        assert_eq!(
            GenerationPhase::of_name("prefill"),
            Some(GenerationPhase::Prefill)
        );
        assert_eq!(
            GenerationPhase::of_name("decode"),
            Some(GenerationPhase::Decode)
        );
        assert_eq!(GenerationPhase::of_name("Decode"), None);
        assert_eq!(GenerationPhase::of_name("forward"), None);
    }
}
