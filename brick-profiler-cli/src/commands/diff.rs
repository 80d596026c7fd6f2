//! `diff`: a new run against one or more baselines, measure by measure;
//! a change counts only when its whole interval lies beyond the threshold
//! (raised to a noise floor of 1.5 times the baselines' spread). Exits 1 on a regression or when
//! nothing could be judged, 0 otherwise.

use std::path::PathBuf;

use clap::Args;
use profiler_report::diff::{Criteria, compute_diff};

use crate::context::Context;
use crate::error::{CliError, Status};
use crate::input::load_run;
use crate::output::{Format, emit};

/// Compare a run against baselines brick by brick, noise-aware.
#[derive(Debug, Args)]
#[command(
    after_help = "Per brick the per-call latency distributions are compared (the latency \
histograms of saved profiles, each launch of an ncu export, the mean and standard deviation of an \
nsys summary), and the step times and per-step throughput when the runs have them. Each measure \
gets an interval for its relative change: the Hodges-Lehmann shift with its Mann-Whitney \
confidence interval at 1 - --alpha, or a z-interval of the means for nsys. With at least five \
times --min-samples calls a side, only each side's fastest fifth is compared (a wait for a core \
only adds time; for throughput, the highest fifth). Verdicts: slower (or lower throughput) when the whole interval lies beyond \
--threshold; faster likewise; no change when it lies within; inconclusive when it crosses; not \
enough samples below --min-samples or without a distribution. With several baselines (the last \
runs on main), they are pooled and their spread sets a noise floor for each measure: \
threshold = max(--threshold, 1.5 x (max - min) / median of the baselines' centres); a call under \
2 us has a floor of 4 x --threshold. Bricks are judged \
relative to the run-wide shift (the median change of the bricks, when at least five have an \
interval), so a machine slower as a whole flags no brick while one brick that moves against the \
rest does; a step time, throughput or phase that moved with every brick, or without the \
bricks' time per step, is inconclusive, not failed \
(--absolute judges bricks by their own change). Memory (bytes and \
allocations per call, peak bytes) is counted exactly and compared against floors.

Formats (--format): table (alias text), markdown (a pull-request comment: the measures that \
changed with their intervals; --report-url adds a link line), json (everything), bmf (Bencher \
Metric Format: per brick latency with lower_value/upper_value, step latency and throughput, \
peak-bytes), gab (github-action-benchmark customSmallerIsBetter), junit (JUnit XML, one test \
case per measure, failed for a regression).

Examples:
  brick-profiler diff main.json branch.json
  brick-profiler diff main-1.json main-2.json main-3.json branch.json --format markdown
  brick-profiler diff base/*.json new.json --format junit -o perf.xml

Exit status: 1 on a regression (with --strict also an inconclusive slowdown or a measure with \
not enough samples), or when no measure had enough samples (no verdict); 0 otherwise."
)]
pub(crate) struct DiffArgs {
    /// Baseline runs (profile.json or Nsight exports), then the new run last.
    #[arg(required = true, num_args = 2.., value_name = "BASELINE... NEW")]
    runs: Vec<PathBuf>,
    /// Relative change an interval must lie wholly beyond to count.
    #[arg(long, default_value_t = 0.10, value_name = "FRACTION")]
    threshold: f64,
    /// Relative worsening (estimate) that makes a regression critical.
    #[arg(long, default_value_t = 0.20, value_name = "FRACTION")]
    critical: f64,
    /// The intervals are at confidence 1 - alpha.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// Calls (or steps) needed per side before an interval is computed.
    #[arg(long, default_value_t = 8, value_name = "N")]
    min_samples: usize,
    /// Also fail on an inconclusive slowdown and on measures with not enough samples.
    #[arg(long)]
    strict: bool,
    /// Judge bricks by their own change, not relative to the run-wide shift.
    #[arg(long)]
    absolute: bool,
    /// Link to the full HTML report, as the last line of the Markdown summary.
    #[arg(long, value_name = "URL")]
    report_url: Option<String>,
}

pub(crate) fn run(args: &DiffArgs, cx: &Context) -> Result<Status, CliError> {
    let t = Criteria {
        threshold: args.threshold,
        critical: args.critical,
        alpha: args.alpha,
        min_samples: args.min_samples,
        relative_to_run: !args.absolute,
    };
    t.validate()
        .map_err(|e| CliError::Input(format!("diff: {e}")))?;
    let summary = |p: &PathBuf| -> Result<_, CliError> {
        Ok(load_run(p)?.run_summary(&p.display().to_string())?)
    };
    let (new, baselines) = args
        .runs
        .split_last()
        .ok_or_else(|| CliError::Input("diff: give the baseline runs and the new run".into()))?;
    let baselines = baselines
        .iter()
        .map(summary)
        .collect::<Result<Vec<_>, _>>()?;
    let d = compute_diff(&baselines, &summary(new)?, &t);
    let text = match cx.format {
        Format::Markdown => Some(d.to_markdown_with_link(args.report_url.as_deref())),
        Format::Bmf => Some(d.to_bmf()),
        Format::Gab => Some(d.to_gab()),
        Format::Junit => Some(d.to_junit()),
        Format::Table | Format::Json => None,
    };
    match text {
        Some(text) => emit(&text, cx.output.as_deref())?,
        None => cx.show(&d)?,
    }
    // Nothing judged: nothing passes.
    Ok(if d.regressed(args.strict) || !d.has_verdict() {
        Status::CheckFailed
    } else {
        Status::Ok
    })
}
