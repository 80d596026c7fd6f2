//! `scorecard`: the training scorecard of a saved profile (or a trainer's
//! step-profiler line), optionally against a baseline scorecard; exits 1 on
//! a regression.

use profiler_core::hardware::MemoryLevel;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use profiler_report::input::{self, Input, Run};
use profiler_report::roofline::FullProfileOptions;
use profiler_report::scorecard::{ScorecardBuilder, Severity, Thresholds, TrainingScorecard};

use crate::context::Context;
use crate::error::{CliError, Status};
use crate::input::{load, read_text};

/// The least severe regression that fails the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FailOn {
    /// Any regression.
    Warning,
    /// Critical regressions only.
    Critical,
}

/// Grade a saved run: efficiency, bottleneck, layers, hotspots, regressions.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  brick-profiler scorecard target/profile/profile.json --hardware h100 --bytes-per-token 14e9
  brick-profiler scorecard today.json --baseline target/profile/scorecard.json --format markdown
  brick-profiler scorecard train.log --throughput 51200   # a trainer's step_profiler_v2 line

Exit status: 1 when --baseline is given and a regression (of --fail-on severity or worse) is found.")]
pub(crate) struct ScorecardArgs {
    /// A saved profile.json, an Nsight export, or a log with a step-profiler line.
    profile: PathBuf,
    /// A saved scorecard (scorecard.json) to flag regressions against.
    #[arg(long, value_name = "SCORECARD.json")]
    baseline: Option<PathBuf>,
    /// Fail on regressions of this severity or worse.
    #[arg(long, value_enum, default_value_t = FailOn::Warning)]
    fail_on: FailOn,
    /// Bytes one token moves, for the throughput ceiling of --hardware.
    #[arg(long, value_name = "BYTES")]
    bytes_per_token: Option<f64>,
    /// Dense peak for MFU, TFLOP/s (overrides the hardware's).
    #[arg(long, value_name = "TFLOPS")]
    peak_tflops: Option<f64>,
    /// Tokens/s of a step-profiler line (which carries none).
    #[arg(long, value_name = "TOK_S")]
    throughput: Option<f64>,
    /// Thresholds file (.toml or .json; fields of `Thresholds`, missing ones default).
    #[arg(long, value_name = "FILE")]
    thresholds: Option<PathBuf>,
    /// Also save this scorecard as a baseline for later runs.
    #[arg(long, value_name = "FILE")]
    save_baseline: Option<PathBuf>,
}

fn thresholds(path: &std::path::Path) -> Result<Thresholds, CliError> {
    let text = read_text(path)?;
    let t: Thresholds = if input::format_extension(path).as_deref() == Some("toml") {
        toml::from_str(&text).map_err(|e| {
            CliError::Input(format!(
                "malformed thresholds `{}`: {}",
                path.display(),
                e.message()
            ))
        })?
    } else {
        serde_json::from_str(&text).map_err(|e| {
            CliError::Input(format!("malformed thresholds `{}`: {e}", path.display()))
        })?
    };
    t.validate()
        .map_err(|e| CliError::Input(format!("thresholds `{}`: {e}", path.display())))?;
    Ok(t)
}

pub(crate) fn run(args: &ScorecardArgs, cx: &Context) -> Result<Status, CliError> {
    let hardware = cx.hardware(args.bytes_per_token)?;
    let profile;
    let mut builder = match load(&args.profile)? {
        Input::StepLog(input) => {
            let tok_s = args.throughput.ok_or_else(|| {
            CliError::Input(format!(
                "`{}` is a step-profiler line, which has no throughput: pass --throughput TOK_S",
                args.profile.display()
            ))
        })?;
            ScorecardBuilder::from_input(input, tok_s)
        }
        other => {
            profile = Run::from_input(other, &args.profile)?.into_profile(&FullProfileOptions {
                hardware: hardware.clone(),
                ..FullProfileOptions::default()
            })?;
            ScorecardBuilder::from_profile(&profile)
        }
    };
    let mut notes = Vec::new();
    if let Some(h) = hardware {
        if h.memory(MemoryLevel::Dram).is_some() {
            // Without --bytes-per-token the scorecard takes the bricks'
            // byte annotations, else the placeholder, and its Ceiling row
            // says which.
            builder = builder.hardware(h);
        } else {
            notes.push(format!(
                "{} has no DRAM bandwidth: not graded against it",
                cx.hardware_origin().unwrap_or_default()
            ));
        }
    }
    if let Some(t) = args.peak_tflops {
        builder = builder.peak_tflops(t);
    }
    if let Some(path) = &args.thresholds {
        builder = builder.thresholds(thresholds(path)?);
    }
    if let Some(path) = &args.baseline {
        builder =
            builder.baseline(TrainingScorecard::load_baseline(path).map_err(CliError::input)?);
    }
    let mut sc = builder.build().map_err(CliError::input)?;
    sc.warnings.splice(0..0, notes);
    if let Some(path) = &args.save_baseline {
        sc.save_baseline(path)
            .map_err(|e| CliError::Output(e.to_string()))?;
    }
    cx.show(&sc)?;
    let floor = match args.fail_on {
        FailOn::Warning => Severity::Warning,
        FailOn::Critical => Severity::Critical,
    };
    Ok(if sc.regressions.iter().any(|r| r.severity >= floor) {
        Status::CheckFailed
    } else {
        Status::Ok
    })
}
