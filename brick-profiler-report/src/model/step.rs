//! The trainer-log input of the scorecard, [`StepProfilerInput`]: the
//! step-profiler JSON that trainers print, and the phase and layer records
//! it holds.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Per-step samples kept from a profile (evenly strided beyond this).
pub(crate) const MAX_STEP_SAMPLES: usize = 4096;

/// Time in one phase.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PhaseData {
    /// Total time over all recorded steps, ms.
    pub total_ms: f64,
    /// Share of step wall time, percent.
    pub pct: f64,
    /// Mean time per occurrence, ms.
    pub avg_ms: f64,
}

/// Time in one layer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PerLayerData {
    /// Layer index.
    pub layer: usize,
    /// Forward time, ms.
    pub fwd_ms: f64,
    /// Backward time, ms.
    pub bwd_ms: f64,
    /// Time per op inside the layer, ms.
    pub ops: BTreeMap<String, f64>,
}

/// Step-profiler data: phases, layers and ops of a training run.
///
/// Every field defaults when missing. `ops` is the top-level op map of
/// `step_profiler_v2` lines (ops not attributed to a layer).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StepProfilerInput {
    /// Steps recorded.
    pub steps: usize,
    /// Mean step wall time, ms.
    pub avg_step_ms: f64,
    /// Share of step time inside phases, `[0, 1]`.
    pub wall_coverage: f64,
    /// Phases by name.
    pub phases: BTreeMap<String, PhaseData>,
    /// Layers.
    pub per_layer: Vec<PerLayerData>,
    /// The trainer's own bottleneck guess (informational).
    pub bottleneck: Option<String>,
    /// Share of time in GEMMs, percent (informational).
    pub gemm_pct: f64,
    /// Total time, ms (legacy text-parsed field).
    pub total_ms: f64,
    /// Ops outside any layer, ms.
    pub ops: BTreeMap<String, f64>,
    /// Per-step wall times, ms, for the noise-aware regression test.
    pub step_samples_ms: Vec<f64>,
    /// Tokens of each step in `step_samples_ms` (empty when unknown): with
    /// them the regression test compares per-step throughput.
    pub step_samples_tokens: Vec<u64>,
    /// Recorded steps that ended before anything ran inside them (their
    /// times measure nothing; see `profiler::profile::StepSummary::empty`).
    pub empty_steps: u64,
    /// Steps opened inside another open step, left out of every total.
    pub nested_steps: u64,
}

/// At most `max` items, evenly spaced over `items`.
pub(crate) fn stride<T>(items: &[T], max: usize) -> impl Iterator<Item = &T> {
    let step = items.len().div_ceil(max.max(1)).max(1);
    items.iter().step_by(step)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stride_caps_and_spreads() {
        let v: Vec<u32> = (0..10).collect();
        let picked: Vec<u32> = stride(&v, 4).copied().collect();
        assert_eq!(picked, vec![0, 3, 6, 9]);
        assert_eq!(stride(&v, 100).count(), 10);
    }
}
