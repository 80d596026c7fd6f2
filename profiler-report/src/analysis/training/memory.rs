//! The memory line of the scorecard: the step whose live bytes peaked
//! highest, per memory kind, and the brick that was running at the peak.

use profiler_core::alloc::{MemoryKind, MemoryProfile};
use serde::{Deserialize, Serialize};

/// The step whose live bytes peaked highest, and the brick running then.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryPeak {
    /// Which memory.
    pub kind: MemoryKind,
    /// The step's index.
    pub step: u64,
    /// Live bytes above the step's start at the peak.
    pub peak_bytes: u64,
    /// The innermost brick at the peak (`None` outside any brick).
    pub brick: Option<String>,
}

impl MemoryPeak {
    /// The peak of each kind in a profile's memory.
    #[must_use]
    pub fn of(memory: Option<&MemoryProfile>) -> Vec<MemoryPeak> {
        let Some(memory) = memory else {
            return Vec::new();
        };
        MemoryKind::ALL
            .iter()
            .filter_map(|&kind| memory.peak_step(kind))
            .map(|s| MemoryPeak {
                kind: s.kind,
                step: s.index,
                peak_bytes: s.peak_bytes,
                brick: s.peak_brick.clone(),
            })
            .collect()
    }

    /// `2.00 MB in step 3, in Matmul`, the brick's name through `escape`.
    pub fn text(&self, escape: impl Fn(&str) -> String) -> String {
        let at = self.brick.as_deref().map_or_else(
            || "outside any brick".to_owned(),
            |b| format!("in {}", escape(b)),
        );
        format!(
            "{} in step {}, {at}",
            profiler_core::units::bytes(self.peak_bytes as f64),
            self.step
        )
    }
}
