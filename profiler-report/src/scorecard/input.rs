//! The scorecard's input, [`StepProfilerInput`]: the step-profiler JSON that
//! trainers print, or the same data read from a [`Profile`].

use std::collections::BTreeMap;

use profiler_core::{Direction, Profile};
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

impl StepProfilerInput {
    /// Reads steps, phases, layers and ops from a profile.
    ///
    /// Times are per recorded step (run totals divided by the step count), so
    /// they sit beside `avg_step_ms` and scorecards of runs of different
    /// lengths compare; a profile without steps keeps run totals.
    /// Phase `pct` is the phase's top-level time inside steps over step wall
    /// time. Layer `fwd_ms`/`bwd_ms` are the forward/backward
    /// [`LayerStats::total_ns`](profiler_core::profile::LayerStats::total_ns); a
    /// layer's ops merge both directions. Top-level `ops` are bricks' time
    /// outside every layer (all of it when there are no layers).
    #[must_use]
    pub fn from_profile(profile: &Profile) -> Self {
        let steps = &profile.steps;
        let step_ns = steps.total_ns;
        let per_step = steps.count.max(1) as f64;
        let ms = |ns: u64| ns as f64 / 1e6 / per_step;
        let phases = profile
            .phases
            .iter()
            .map(|p| {
                let pct = if step_ns > 0 {
                    p.in_steps_ns as f64 / step_ns as f64 * 100.0
                } else {
                    0.0
                };
                let data = PhaseData {
                    total_ms: ms(p.total_ns),
                    pct,
                    avg_ms: p.avg_ms(),
                };
                (p.name.clone(), data)
            })
            .collect();

        let mut layers: BTreeMap<u32, PerLayerData> = BTreeMap::new();
        for stats in &profile.layers {
            let entry = layers.entry(stats.index).or_insert_with(|| PerLayerData {
                layer: stats.index as usize,
                ..PerLayerData::default()
            });
            match stats.direction {
                Direction::Forward => entry.fwd_ms += ms(stats.total_ns()),
                Direction::Backward => entry.bwd_ms += ms(stats.total_ns()),
            }
            for op in &stats.ops {
                *entry.ops.entry(op.name.clone()).or_default() += ms(op.total_ns);
            }
        }

        let mut in_layers: BTreeMap<&str, u64> = BTreeMap::new();
        for op in profile.layers.iter().flat_map(|l| &l.ops) {
            *in_layers.entry(op.name.as_str()).or_default() += op.total_ns;
        }
        let ops = profile
            .bricks
            .iter()
            .filter_map(|b| {
                let outside = b
                    .total_ns
                    .saturating_sub(in_layers.get(b.name.as_str()).copied().unwrap_or(0));
                (outside > 0).then(|| (b.name.clone(), ms(outside)))
            })
            .collect();

        Self {
            steps: usize::try_from(steps.count).unwrap_or(usize::MAX),
            avg_step_ms: steps.avg_step_ms(),
            wall_coverage: profile.wall_coverage().unwrap_or(0.0),
            phases,
            per_layer: layers.into_values().collect(),
            bottleneck: None,
            gemm_pct: 0.0,
            total_ms: step_ns as f64 / 1e6,
            ops,
            step_samples_ms: stride(&steps.samples_ns, MAX_STEP_SAMPLES)
                .map(|&ns| ns as f64 / 1e6)
                .collect(),
            // Same stride as the times, so the two stay paired.
            step_samples_tokens: if steps.samples_tokens.len() == steps.samples_ns.len() {
                stride(&steps.samples_tokens, MAX_STEP_SAMPLES)
                    .copied()
                    .collect()
            } else {
                Vec::new()
            },
            empty_steps: steps.empty,
            nested_steps: steps.nested,
        }
    }
}

/// At most `max` items, evenly spaced over `items`.
pub(crate) fn stride<T>(items: &[T], max: usize) -> impl Iterator<Item = &T> {
    let step = items.len().div_ceil(max.max(1)).max(1);
    items.iter().step_by(step)
}

#[cfg(test)]
mod tests {
    use super::*;
    use profiler_core::profile::{LayerOp, LayerStats, PhaseStats};

    fn layer(index: u32, direction: Direction, scope_ns: u64, ops: &[(&str, u64)]) -> LayerStats {
        LayerStats {
            index,
            direction,
            scope_count: u64::from(scope_ns > 0),
            scope_ns,
            ops: ops
                .iter()
                .map(|(n, t)| LayerOp {
                    name: (*n).to_owned(),
                    count: 1,
                    total_ns: *t,
                })
                .collect(),
        }
    }

    #[test]
    fn phases_and_layers_convert_to_ms() {
        let mut p = Profile::empty();
        p.steps.count = 2;
        p.steps.total_ns = 200_000_000;
        p.steps.samples_ns = vec![90_000_000, 110_000_000];
        p.phases.push(PhaseStats {
            name: "h2d".to_owned(),
            count: 2,
            total_ns: 50_000_000,
            min_ns: 0,
            max_ns: 0,
            in_steps_ns: 50_000_000,
        });
        p.layers.push(layer(
            0,
            Direction::Forward,
            10_000_000,
            &[("Gemm", 6_000_000)],
        ));
        // No scope: the layer's time is the sum of its ops.
        p.layers
            .push(layer(0, Direction::Backward, 0, &[("Gemm", 15_000_000)]));
        let input = StepProfilerInput::from_profile(&p);
        assert_eq!(input.steps, 2);
        assert_eq!(input.avg_step_ms, 100.0);
        assert_eq!(input.phases["h2d"].pct, 25.0);
        assert_eq!(input.phases["h2d"].avg_ms, 25.0);
        // Per step: the run had 2 steps.
        assert_eq!(input.phases["h2d"].total_ms, 25.0);
        assert_eq!(input.per_layer[0].fwd_ms, 5.0);
        assert_eq!(input.per_layer[0].bwd_ms, 7.5);
        assert_eq!(input.per_layer[0].ops["Gemm"], 10.5);
        assert!(input.ops.is_empty());
        assert_eq!(input.step_samples_ms, vec![90.0, 110.0]);
        assert_eq!(input.wall_coverage, 0.25);
    }

    #[test]
    fn bricks_outside_layers_are_top_level_ops() {
        let mut p = Profile::empty();
        p.steps.count = 4;
        p.steps.total_ns = 400_000_000;
        p.layers.push(layer(
            0,
            Direction::Forward,
            10_000_000,
            &[("Gemm", 8_000_000)],
        ));
        let brick = |name: &str, total_ns| profiler_core::BrickStats {
            count: 4,
            total_ns,
            ..profiler_core::BrickStats::new(name, profiler_core::BrickCategory::Other)
        };
        // Gemm also ran outside the layer; LmHead only outside.
        p.bricks = vec![brick("Gemm", 12_000_000), brick("LmHead", 20_000_000)];
        let input = StepProfilerInput::from_profile(&p);
        assert_eq!(input.ops["Gemm"], 1.0, "4 ms outside layers over 4 steps");
        assert_eq!(input.ops["LmHead"], 5.0);
        assert_eq!(input.per_layer[0].ops["Gemm"], 2.0);
    }

    #[test]
    fn stride_caps_and_spreads() {
        let v: Vec<u32> = (0..10).collect();
        let picked: Vec<u32> = stride(&v, 4).copied().collect();
        assert_eq!(picked, vec![0, 3, 6, 9]);
        assert_eq!(stride(&v, 100).count(), 10);
    }
}
