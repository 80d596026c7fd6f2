//! The training scorecard: grades a run's throughput against the hardware
//! ceiling, names the bottleneck, summarises layers and hotspot ops, flags
//! regressions against a baseline and recommends next steps (SPEC section 6).
//!
//! Inputs are a [`Profile`](profiler_core::Profile) or the step-profiler
//! JSON line trainers print; outputs render as terminal text (`Display`),
//! Markdown, HTML and JSON.

mod baseline;
mod builder;
mod compute;
mod error;
mod html;
mod input;
mod markdown;
mod model;
mod parse;
mod recommend;
mod regression;
mod stats;
mod terminal;
mod thresholds;

pub use baseline::{load_baseline, save_baseline};
pub use builder::{ENV_BASELINE, ScorecardBuilder, scorecard};
pub use compute::{compute_training_scorecard, compute_training_scorecard_with};
pub use error::ScorecardError;
pub use html::format_training_scorecard_html;
pub use input::{PerLayerData, PhaseData, StepProfilerInput};
pub use markdown::format_training_scorecard_markdown;
pub use model::{Bottleneck, Grade, LayerSummary, Regression, Severity, TrainingScorecard};
pub use parse::{
    STEP_PROFILER_TAGS, find_last_step_profiler_line, parse_last_step_profiler_line,
    parse_step_profiler_line,
};
pub use thresholds::{LaunchRule, ModelShape, ScorecardOptions, Thresholds};
