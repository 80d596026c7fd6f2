//! The training scorecard: grades a run's throughput against the hardware
//! ceiling, names the bottleneck, summarises layers and hotspot ops, flags
//! regressions against a baseline and recommends next steps.
//!
//! Three ways in, each for one job: [`scorecard()`](fn@builder::scorecard) for the live profiler
//! (reads the environment), [`ScorecardBuilder`] for a saved
//! [`Profile`](profiler_core::Profile) or a trainer's step-profiler line with
//! explicit settings, and [`compute_training_scorecard`], the stable
//! entry point other tools call. A [`TrainingScorecard`] renders as terminal
//! text (`Display`), Markdown ([`TrainingScorecard::to_markdown`]), an HTML
//! fragment ([`TrainingScorecard::to_html`]) and JSON
//! ([`TrainingScorecard::to_json`]).

mod baseline;
mod breakdown;
pub(crate) mod builder;
mod ceiling;
mod cold;
mod compute;
mod device_time;
mod grade;
mod html;
mod inference;
mod kind;
mod markdown;
mod measured;
mod memory;
mod model;
mod noise;
mod recommend;
mod regression;
mod shape;
pub(crate) mod stats;
mod terminal;
mod text;
mod thresholds;
mod time_base;
mod tokens;
mod units;
mod verdict;
mod view;

pub use crate::model::saved_scorecard::SavedScorecard;
pub use crate::model::scorecard_error::ScorecardError;
pub use crate::model::step::{PerLayerData, PhaseData, StepProfilerInput};
pub use builder::{ENV_BASELINE, ScorecardBuilder};
pub use ceiling::BytesPerTokenSource;
pub(crate) use cold::cold_calls;
pub use compute::compute_training_scorecard;
pub use grade::{Bottleneck, Grade, Withheld};
pub use inference::{CeilingUse, InferenceRows, MAX_LATENCY_SAMPLES, Percentiles};
pub use kind::RunKind;
pub(crate) use measured::timed_a_device;
pub use memory::MemoryPeak;
pub use model::{BaselineComparison, LayerSummary, Regression, Severity, TrainingScorecard};
pub use shape::RunShape;
pub use thresholds::{ModelShape, Thresholds};
pub use time_base::{TimeBase, TimeSource};
pub(crate) use tokens::{TokenTimes, phase_rate, quantile, token_latencies};
