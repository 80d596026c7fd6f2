//! What the scorecard reads from a run, [`RunView`]: taken once from its
//! source, a [`Profile`] or a trainer's step-profiler log, with where each
//! value came from. The computation reads nothing else.

use std::collections::BTreeMap;

use profiler_core::hardware::Hardware;
use profiler_core::profile::LaunchGap;
use profiler_core::sync::SyncMode;
use profiler_core::{Direction, Profile};

use super::ceiling::bytes_per_token_from_bricks;
use super::cold::{ColdCall, cold_calls};
use super::device_time::device_times;
use super::kind::RunKind;
use super::measured::{measured_throughput, timed_a_device};
use super::memory::{LayerBytes, MemoryPeak, layer_bytes};
use super::time_base::TimeBase;
use super::tokens::{TokenTimes, phase_rate};
use crate::model::step::{MAX_STEP_SAMPLES, PerLayerData, PhaseData, StepProfilerInput, stride};

/// How the share of step time outside phases is known, which decides how
/// launch overhead is estimated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Coverage {
    /// Measured by the profiler: the top-level phase time inside steps over
    /// step wall time (`None`: no step time to measure against). Launch
    /// overhead is the uncovered rest, unknown when no phases were recorded.
    Measured(Option<f64>),
    /// Written in a trainer's log. Launch overhead follows the standard rule
    /// on the log's per-step phase totals,
    /// `1 - min(sum(phase total_ms) / avg_step_ms, 1)`.
    Logged(f64),
}

impl Coverage {
    /// The share of step time inside phases, as the scorecard shows it
    /// (0 when unmeasured).
    pub(crate) fn fraction(self) -> f64 {
        match self {
            Self::Measured(c) => c.unwrap_or(0.0),
            Self::Logged(c) => c,
        }
    }
}

/// The steps of a run, as the scorecard reads them.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Steps {
    /// Steps recorded.
    pub(crate) count: usize,
    /// Mean step wall time, ms.
    pub(crate) avg_ms: f64,
    /// Per-step wall times, ms (at most [`MAX_STEP_SAMPLES`] from a profile).
    pub(crate) samples_ms: Vec<f64>,
    /// Tokens of each step in `samples_ms`, or empty when unknown.
    pub(crate) samples_tokens: Vec<u64>,
    /// Steps that ended before anything ran inside them.
    pub(crate) empty: u64,
    /// Steps opened inside another open step, left out of every total.
    pub(crate) nested: u64,
}

/// What only a recorded profile knows: how it timed, what it ran on, what
/// went wrong while recording.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Recorded {
    /// Whether the run timed device work (a device timer, or a waiting sync mode).
    pub(crate) device_timed: bool,
    /// The sync mode it ran with, named in the CPU-run alert.
    pub(crate) sync_mode: SyncMode,
    /// The hardware the run recorded, used when none is given.
    pub(crate) hardware: Option<Hardware>,
    /// Bytes per token from the bricks' byte annotations, when they declare any.
    pub(crate) brick_bytes_per_token: Option<f64>,
    /// Whether steps were recorded, so times are per step rather than run totals.
    pub(crate) times_per_step: bool,
    /// Lost-record warnings and the run's own notes, shown first.
    pub(crate) notes: Vec<String>,
    /// The highest step peak of each memory kind, when memory was tracked.
    pub(crate) memory_peaks: Vec<MemoryPeak>,
    /// Each layer's host memory, by index (empty when none was tracked).
    pub(crate) layer_memory: BTreeMap<usize, LayerBytes>,
    /// Set when the run's measured ceilings were taken on a busy machine: why.
    pub(crate) busy_ceilings: Option<String>,
    /// The wait from launch to device start of the device-timed bricks,
    /// when the device timer placed their work on the host clock.
    pub(crate) launch_gap: Option<LaunchGap>,
    /// Token latencies of the `prefill` and `decode` phases.
    pub(crate) tokens: TokenTimes,
    /// Bricks whose time is dominated by one slow call.
    pub(crate) cold_calls: Vec<ColdCall>,
}

/// Everything the scorecard computation reads about a run.
///
/// Times are per step when the source has steps (a profile's run totals
/// divided by its step count), so they sit beside `steps.avg_ms` and runs of
/// different lengths compare.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RunView {
    /// Tokens/s measured over the steps or given, or why there is none.
    pub(crate) throughput: Result<f64, String>,
    /// Step count, mean, samples and the empty and nested steps.
    pub(crate) steps: Steps,
    /// Share of step time inside phases, and where it came from.
    pub(crate) coverage: Coverage,
    /// Phases by name.
    pub(crate) phases: BTreeMap<String, PhaseData>,
    /// Layers in index order.
    pub(crate) layers: Vec<PerLayerData>,
    /// Time of ops outside every layer, ms.
    pub(crate) ops: BTreeMap<String, f64>,
    /// Facts only a recorded profile has; `None` for a trainer's log.
    pub(crate) recorded: Option<Recorded>,
    /// Training, generation or forward only (a trainer's log is training).
    pub(crate) kind: RunKind,
    /// The clock of `layers` and `ops`: device time when the profile
    /// captured kernels.
    pub(crate) time_base: TimeBase,
    /// The devices' busy time per step, ms, when kernels were captured
    /// inside steps.
    pub(crate) device_busy_ms: Option<f64>,
    /// The ops' names on host time, when device time replaced them: the
    /// run's shape names its bricks whatever clock timed them, so a
    /// baseline on the other clock is not of another shape.
    pub(crate) host_op_names: Option<Vec<String>>,
}

impl RunView {
    /// A trainer's step-profiler log measured at `throughput` (the compat
    /// path: its coverage and phase totals are taken as written).
    pub(crate) fn from_step_log(
        input: &StepProfilerInput,
        throughput: Result<f64, String>,
    ) -> Self {
        Self {
            throughput,
            steps: Steps {
                count: input.steps,
                avg_ms: input.avg_step_ms,
                samples_ms: input.step_samples_ms.clone(),
                samples_tokens: input.step_samples_tokens.clone(),
                empty: input.empty_steps,
                nested: input.nested_steps,
            },
            coverage: Coverage::Logged(input.wall_coverage),
            phases: input.phases.clone(),
            layers: input.per_layer.clone(),
            ops: input.ops.clone(),
            recorded: None,
            kind: RunKind::Training,
            time_base: TimeBase::default(),
            device_busy_ms: None,
            host_op_names: None,
        }
    }

    /// Reads a profile once: throughput over its steps, phases, layers and
    /// ops from its statistics, measured coverage, and what it recorded
    /// about the run.
    ///
    /// Phase `pct` is the phase's top-level time inside steps over step wall
    /// time. Layer `fwd_ms`/`bwd_ms` are the forward/backward
    /// [`LayerStats::total_ns`](profiler_core::profile::LayerStats::total_ns); a
    /// layer's ops merge both directions. Top-level ops are the bricks' time
    /// outside every layer (all of it when there are no layers).
    pub(crate) fn from_profile(profile: &Profile) -> Self {
        let steps = &profile.steps;
        let per_step = steps.count.max(1) as f64;
        let ms = |ns: u64| ns as f64 / 1e6 / per_step;
        let mut notes = profile.counters.warnings();
        notes.extend(profile.run.notes.iter().cloned());
        let tokens = TokenTimes::of(&profile.generation, steps);
        let mut view = Self {
            throughput: measured_throughput(profile),
            steps: Steps {
                count: usize::try_from(steps.count).unwrap_or(usize::MAX),
                avg_ms: steps.avg_step_ms(),
                samples_ms: stride(&steps.samples_ns, MAX_STEP_SAMPLES)
                    .map(|&ns| ns as f64 / 1e6)
                    .collect(),
                // Same stride as the times, so the two stay paired.
                samples_tokens: if steps.samples_tokens.len() == steps.samples_ns.len() {
                    stride(&steps.samples_tokens, MAX_STEP_SAMPLES)
                        .copied()
                        .collect()
                } else {
                    Vec::new()
                },
                empty: steps.empty,
                nested: steps.nested,
            },
            coverage: Coverage::Measured(profile.wall_coverage()),
            phases: phases(profile, &ms),
            layers: layers(profile, &ms),
            ops: ops_outside_layers(profile, &ms),
            recorded: None,
            kind: RunKind::Forward,
            time_base: TimeBase::default(),
            device_busy_ms: None,
            host_op_names: None,
        };
        // The run's kind is read from host times: a backward pass is one
        // whether or not it launched kernels.
        view.kind = RunKind::of(
            view.layers.iter().any(|l| l.bwd_ms > 0.0),
            view.phases.keys().map(String::as_str),
            tokens.generated(),
        );
        if let Some(device) = device_times(profile, &ms) {
            let names: std::collections::BTreeSet<&String> = view
                .layers
                .iter()
                .flat_map(|l| l.ops.keys())
                .chain(view.ops.keys())
                .collect();
            view.host_op_names = Some(names.into_iter().cloned().collect());
            view.layers = device.layers;
            view.ops = device.ops;
            view.time_base = device.base;
            view.device_busy_ms = device.busy_ns.filter(|_| steps.count > 0).map(ms);
        }
        if view.kind == RunKind::Generation {
            // Graded on decode: the steps mix prompt and generated tokens.
            view.throughput = phase_rate(tokens.decode_work, tokens.decodes, "decode");
        }
        view.recorded = Some(Recorded {
            device_timed: timed_a_device(profile),
            sync_mode: profile.run.sync_mode,
            hardware: profile.run.hardware.clone(),
            brick_bytes_per_token: bytes_per_token_from_bricks(profile),
            times_per_step: steps.count > 0,
            notes,
            memory_peaks: MemoryPeak::of(profile.memory.as_ref()),
            launch_gap: profile.run.launch_gap,
            layer_memory: layer_bytes(profile.memory.as_ref(), steps.count),
            busy_ceilings: profile.run.hardware.as_ref().and_then(|h| h.busy.clone()),
            cold_calls: cold_calls(profile, per_step),
            tokens,
        });
        view
    }

    /// The same data in the trainer-log shape (recorded facts dropped).
    pub(crate) fn to_step_log(&self) -> StepProfilerInput {
        StepProfilerInput {
            steps: self.steps.count,
            avg_step_ms: self.steps.avg_ms,
            wall_coverage: self.coverage.fraction(),
            phases: self.phases.clone(),
            per_layer: self.layers.clone(),
            bottleneck: None,
            gemm_pct: 0.0,
            // A run total the view does not keep; `from_profile` sets it.
            total_ms: 0.0,
            ops: self.ops.clone(),
            step_samples_ms: self.steps.samples_ms.clone(),
            step_samples_tokens: self.steps.samples_tokens.clone(),
            empty_steps: self.steps.empty,
            nested_steps: self.steps.nested,
        }
    }

    /// Whether the run timed device work; `None` for a log, which does not say.
    pub(crate) fn device_timed(&self) -> Option<bool> {
        self.recorded.as_ref().map(|r| r.device_timed)
    }
}

impl StepProfilerInput {
    /// Reads steps, phases, layers and ops from a profile, in the
    /// trainer-log shape (for tools that take step-profiler data).
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
        Self {
            total_ms: profile.steps.total_ns as f64 / 1e6,
            ..RunView::from_profile(profile).to_step_log()
        }
    }
}

/// Phases by name, per step.
fn phases(profile: &Profile, ms: &impl Fn(u64) -> f64) -> BTreeMap<String, PhaseData> {
    let step_ns = profile.steps.total_ns;
    profile
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
        .collect()
}

/// Layers in index order, both directions merged into one entry each.
fn layers(profile: &Profile, ms: &impl Fn(u64) -> f64) -> Vec<PerLayerData> {
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
    layers.into_values().collect()
}

/// Each brick's time outside every layer, per step.
fn ops_outside_layers(profile: &Profile, ms: &impl Fn(u64) -> f64) -> BTreeMap<String, f64> {
    let mut in_layers: BTreeMap<&str, u64> = BTreeMap::new();
    for op in profile.layers.iter().flat_map(|l| &l.ops) {
        *in_layers.entry(op.name.as_str()).or_default() += op.total_ns;
    }
    profile
        .bricks
        .iter()
        .filter_map(|b| {
            let outside = b
                .total_ns
                .saturating_sub(in_layers.get(b.name.as_str()).copied().unwrap_or(0));
            (outside > 0).then(|| (b.name.clone(), ms(outside)))
        })
        .collect()
}

#[cfg(test)]
mod tests;
