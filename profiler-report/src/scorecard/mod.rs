//! The training scorecard: grades a run's throughput against the hardware
//! ceiling, names the bottleneck, summarises layers and hotspot ops, flags
//! regressions against a baseline and recommends next steps.
//!
//! Three ways in, each for one job: [`scorecard()`] for the live profiler
//! (reads the environment), [`ScorecardBuilder`] for a saved
//! [`Profile`](profiler_core::Profile) or a trainer's step-profiler line with
//! explicit settings, and [`compute_training_scorecard`], the reference
//! entry point other tools call. A [`TrainingScorecard`] renders as terminal
//! text (`Display`), Markdown ([`TrainingScorecard::to_markdown`]), an HTML
//! fragment ([`TrainingScorecard::to_html`]) and JSON
//! ([`TrainingScorecard::to_json`]).

mod baseline;
mod builder;
mod compute;
mod error;
mod grade;
mod html;
mod input;
mod markdown;
mod model;
mod parse;
mod recommend;
mod regression;
pub(crate) mod stats;
mod terminal;
mod thresholds;

pub use builder::{ENV_BASELINE, ScorecardBuilder, scorecard};
pub use compute::compute_training_scorecard;
pub use error::ScorecardError;
pub use grade::{Bottleneck, Grade};
pub use input::{PerLayerData, PhaseData, StepProfilerInput};
pub use model::{LayerSummary, Regression, Severity, TrainingScorecard};
pub use parse::{
    STEP_PROFILER_TAGS, find_last_step_profiler_line, parse_last_step_profiler_line,
    parse_step_profiler_line,
};
pub use thresholds::{ModelShape, Thresholds};
