//! What kind of run a scorecard scores: training (backward work
//! recorded), generation (`prefill`/`decode` phases) or plain forward
//! passes. The kind picks the rows: a run without backward work never shows
//! a backward column, ratio or time.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The kind of run, told from what it recorded; serialised snake_case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    /// Backward layers or backward phases (`backward`, `*_bwd`, `loss`,
    /// `opt`) were recorded, or the data is a trainer's log. The default,
    /// so scorecards saved before kinds were recorded load as training.
    #[default]
    Training,
    /// `prefill` or `decode` phases ran: an inference run that generates
    /// tokens, scored by token latencies and decode bandwidth.
    Generation,
    /// Forward passes only, without generation phases.
    Forward,
}

impl RunKind {
    /// Tells the kind of a recorded run from its layers' backward time,
    /// its phase names and whether a generation phase ran: training wins
    /// over generation (a run that trains and samples is a training run),
    /// generation over forward.
    pub(crate) fn of<'a>(
        backward_layer: bool,
        mut phases: impl Iterator<Item = &'a str>,
        generated: bool,
    ) -> Self {
        if backward_layer || phases.any(is_backward_phase) {
            Self::Training
        } else if generated {
            Self::Generation
        } else {
            Self::Forward
        }
    }

    /// Whether backward rows (column, ratio) can have data.
    #[must_use]
    pub fn has_backward(self) -> bool {
        self == Self::Training
    }

    /// The word that titles its scorecard: `Training`, `Inference`, `Forward`.
    #[must_use]
    pub fn noun(self) -> &'static str {
        match self {
            Self::Training => "Training",
            Self::Generation => "Inference",
            Self::Forward => "Forward",
        }
    }
}

impl fmt::Display for RunKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Training => "training",
            Self::Generation => "prefill/decode",
            Self::Forward => "forward only",
        })
    }
}

/// Phases that only training runs have.
fn is_backward_phase(name: &str) -> bool {
    matches!(name, "backward" | "bwd" | "loss" | "opt" | "optimizer") || name.ends_with("_bwd")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backward_phases_are_told_by_name() {
        for name in ["backward", "blk_bwd", "loss", "opt"] {
            assert!(is_backward_phase(name), "{name}");
        }
        for name in ["forward", "prefill", "decode", "embed", "h2d"] {
            assert!(!is_backward_phase(name), "{name}");
        }
    }
}
