//! `diff`: two runs compared brick by brick; a change is flagged only when
//! it is beyond the threshold, significant and above the old run's noise.
//! Exits 1 on a regression, 0 on noise.

use std::path::PathBuf;

use clap::Args;
use profiler_report::diff::compute_diff;
use profiler_report::scorecard::Thresholds;

use crate::context::Context;
use crate::error::{CliError, Status};
use crate::input::load_run;

/// Compare two runs brick by brick, noise-aware.
#[derive(Debug, Args)]
#[command(
    after_help = "Per brick the per-call latency distributions are compared (the latency \
histograms of saved profiles, each launch of an ncu export, the mean and standard deviation of an \
nsys summary), and the step times when both runs have them. A change counts as a regression only \
when it exceeds --threshold, the shift test gives p < --alpha (Mann-Whitney U, or a z-test of means \
for nsys) and the shift exceeds --noise-floor times the old run's noise (scaled MAD, or standard \
deviation). A slowdown that cannot be tested (no distribution, fewer than --min-samples calls) is \
reported as untested and fails only with --strict.

Examples:
  brick-profiler diff main.json branch.json
  brick-profiler diff yesterday.csv today.csv --threshold 0.05 --format markdown

Exit status: 1 on a regression (or, with --strict, an untested slowdown), or when no brick is in \
both runs (no verdict); 0 on noise."
)]
pub(crate) struct DiffArgs {
    /// The earlier run (profile.json or an Nsight export).
    old: PathBuf,
    /// The later run.
    new: PathBuf,
    /// Relative change below which nothing is flagged.
    #[arg(long, default_value_t = 0.10, value_name = "FRACTION")]
    threshold: f64,
    /// Relative slowdown that makes a regression critical.
    #[arg(long, default_value_t = 0.20, value_name = "FRACTION")]
    critical: f64,
    /// Significance level of the shift test.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// Noise floor in multiples of the old run's scaled MAD.
    #[arg(long, default_value_t = 2.0, value_name = "MADS")]
    noise_floor: f64,
    /// Calls (or steps) needed per side before a test runs.
    #[arg(long, default_value_t = 8, value_name = "N")]
    min_samples: usize,
    /// Also fail on slowdowns that cannot be tested.
    #[arg(long)]
    strict: bool,
}

pub(crate) fn run(args: &DiffArgs, cx: &Context) -> Result<Status, CliError> {
    let t = Thresholds {
        step_time_warning: args.threshold,
        step_time_critical: args.critical,
        significance_alpha: args.alpha,
        noise_floor_mads: args.noise_floor,
        min_samples: args.min_samples,
        ..Thresholds::default()
    };
    t.validate()
        .map_err(|e| CliError::Input(format!("diff: {e}")))?;
    if args.critical < args.threshold {
        return Err(CliError::Input(format!(
            "diff: --critical ({}) is below --threshold ({})",
            args.critical, args.threshold
        )));
    }
    let label = |p: &PathBuf| p.display().to_string();
    let old = load_run(&args.old)?.run_summary(&label(&args.old))?;
    let new = load_run(&args.new)?.run_summary(&label(&args.new))?;
    let d = compute_diff(&old, &new, &t);
    cx.show(&d)?;
    // No brick in both runs: nothing was judged, so nothing passes.
    Ok(if d.regressed(args.strict) || !d.has_verdict() {
        Status::CheckFailed
    } else {
        Status::Ok
    })
}
