//! `parity`: per-op comparison of our run against one or more baselines
//! (saved profiles, parity profiles, PyTorch traces, Nsight exports).

use std::path::PathBuf;

use clap::Args;
use profiler_report::import::FullProfileOptions;
use profiler_report::parity::{OpMapping, compute_parity_comparison, compute_parity_multi};

use super::common::parity_profile;
use crate::context::Context;
use crate::error::{CliError, Status};
use crate::output::write_file;

/// Are we as fast as the baselines, op by op?
#[derive(Debug, Args)]
#[command(
    after_help = "Inputs may be saved profiles, parity profiles (runtime, ops), PyTorch \
profiler traces (mapped to our ops with --mapping, else the built-in rules) or Nsight exports. With \
several baselines, each op is held to the fastest.

Examples:
  profiler-report parity target/profile/profile.json earlier.json
  profiler-report parity target/profile/profile.json torch_trace.json --mapping ops.toml --svg parity.svg
  profiler-report parity ours.json pytorch.json llamacpp.json --require-parity

Exit status: 1 with --require-parity when an op is more than 10% slower than its baseline."
)]
pub(crate) struct ParityArgs {
    /// Our run.
    ours: PathBuf,
    /// One or more baselines.
    #[arg(required = true)]
    baselines: Vec<PathBuf>,
    /// Op mapping for PyTorch traces (.toml or .json).
    #[arg(long, value_name = "FILE")]
    mapping: Option<PathBuf>,
    /// Tokens per step of PyTorch traces (for their throughput).
    #[arg(long, value_name = "N")]
    tokens_per_step: Option<f64>,
    /// Also write the bar chart as SVG.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Exit 1 when parity is not achieved.
    #[arg(long)]
    require_parity: bool,
}

pub(crate) fn run(args: &ParityArgs, cx: &Context) -> Result<Status, CliError> {
    let hardware = cx.hardware(None)?;
    let mut mapping = match &args.mapping {
        Some(m) => OpMapping::from_file(m).map_err(CliError::input)?,
        None => OpMapping::defaults(),
    };
    if let Some(t) = args.tokens_per_step {
        mapping = mapping.with_tokens_per_step(t);
    }
    let ncu = FullProfileOptions {
        hardware: hardware.map(|h| h.roofline),
        ..FullProfileOptions::default()
    };
    let ours = parity_profile(&args.ours, &mapping, &ncu, true)?;
    let baselines = args
        .baselines
        .iter()
        .map(|b| parity_profile(b, &mapping, &ncu, false))
        .collect::<Result<Vec<_>, _>>()?;
    let achieved = if let [one] = baselines.as_slice() {
        let c = compute_parity_comparison(&ours, one);
        if let Some(path) = &args.svg {
            write_file(path, c.to_svg().as_bytes())?;
        }
        cx.show(&c)?;
        c.parity_achieved
    } else {
        let c = compute_parity_multi(&ours, &baselines);
        if let Some(path) = &args.svg {
            write_file(path, c.to_svg().as_bytes())?;
        }
        cx.show(&c)?;
        c.parity_achieved
    };
    Ok(if args.require_parity && !achieved {
        Status::CheckFailed
    } else {
        Status::Ok
    })
}
