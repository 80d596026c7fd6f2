//! `html`: one self-contained HTML report rebuilt from saved files: the run,
//! its scorecard, flamegraph, roofline, parity against baselines and
//! contract verdicts, as the main job writes it.

use profiler_core::hardware::MemoryLevel;
use std::path::PathBuf;

use clap::Args;
use profiler_core::Profile;
use profiler_core::hardware::Precision;
use profiler_report::HtmlReport;
use profiler_report::contracts::Verifier;
use profiler_report::parity::OpMapping;
use profiler_report::roofline::{FullProfileOptions, RooflineOptions};
use profiler_report::scorecard::{ScorecardBuilder, TrainingScorecard};

use super::common::{brick_roofline, level, parity_profile, precision};
use crate::context::Context;
use crate::error::{CliError, Status};
use crate::input::load_run;
use crate::output::write_file;

/// Write one self-contained HTML report of a saved run.
#[derive(Debug, Args)]
#[command(
    after_help = "The page holds the run facts and warnings, the scorecard (recomputed, or \
--scorecard), per-layer times, hotspots, the flamegraph, every brick, steps and phases, and, when \
they apply, the roofline (ceilings from --hardware, else measured during the run), parity against \
each --baseline-profile/--baseline-pytorch, the --contract verdicts, and the kernel sections \
(tiles, checksums, critical path) when the run recorded them.

Examples:
  brick-profiler html target/profile/profile.json -o report.html --trace-file trace.json
  brick-profiler html today.json -o report.html --baseline target/profile/scorecard.json \\
      --baseline-profile yesterday.json --contract brick-profiler-v1"
)]
pub(crate) struct HtmlArgs {
    /// A saved profile.json (or an Nsight export).
    profile: PathBuf,
    /// Page title (default: the run's name).
    #[arg(long)]
    title: Option<String>,
    /// Show this saved scorecard instead of recomputing one.
    #[arg(long, value_name = "SCORECARD.json", conflicts_with = "baseline")]
    scorecard: Option<PathBuf>,
    /// A saved scorecard whose regressions the scorecard section lists.
    #[arg(long, value_name = "SCORECARD.json")]
    baseline: Option<PathBuf>,
    /// Bytes one token moves, for the throughput ceiling of --hardware.
    #[arg(long, value_name = "BYTES")]
    bytes_per_token: Option<f64>,
    /// A saved profile of an earlier run to report parity against (repeatable).
    #[arg(long, value_name = "FILE")]
    baseline_profile: Vec<PathBuf>,
    /// A PyTorch profiler trace to report parity against.
    #[arg(long, value_name = "FILE")]
    baseline_pytorch: Option<PathBuf>,
    /// Op mapping for --baseline-pytorch (.toml or .json).
    #[arg(long, value_name = "FILE", requires = "baseline_pytorch")]
    mapping: Option<PathBuf>,
    /// Precision of the roofline's roof.
    #[arg(long, value_parser = precision)]
    precision: Option<Precision>,
    /// Memory level of the roofline's roof.
    #[arg(long, value_parser = level)]
    level: Option<MemoryLevel>,
    /// A contract whose verdicts to add (repeatable).
    #[arg(long = "contract", value_name = "NAME")]
    contracts: Vec<String>,
    /// Leave the flamegraph out.
    #[arg(long)]
    no_flamegraph: bool,
    /// Link this Chrome trace from the page's header (a path relative to the
    /// page, e.g. trace.json from `trace chrome`).
    #[arg(long, value_name = "HREF")]
    trace_file: Option<String>,
    /// A saved profile of a known-good run: the checksums section then shows
    /// where this run's kernel outputs first differ from it.
    #[arg(long, value_name = "PROFILE.json")]
    checksum_reference: Option<PathBuf>,
}

fn scorecard(
    args: &HtmlArgs,
    profile: &Profile,
    cx: &Context,
) -> Result<TrainingScorecard, CliError> {
    if let Some(path) = &args.scorecard {
        return TrainingScorecard::load_baseline(path).map_err(CliError::input);
    }
    let mut b = ScorecardBuilder::from_profile(profile);
    let graded = cx.hardware(args.bytes_per_token)?;
    if let Some(config) = graded.filter(|h| h.memory(MemoryLevel::Dram).is_some()) {
        b = b.hardware(config);
    }
    if let Some(path) = &args.baseline {
        b = b.baseline(TrainingScorecard::load_baseline(path).map_err(CliError::input)?);
    }
    b.build().map_err(CliError::input)
}

pub(crate) fn run(args: &HtmlArgs, cx: &Context) -> Result<Status, CliError> {
    let out = cx
        .output
        .as_deref()
        .ok_or_else(|| CliError::Input("html: name the page to write with -o FILE".to_owned()))?;
    let hardware = cx.hardware(args.bytes_per_token)?;
    let ncu = FullProfileOptions {
        hardware: hardware.clone(),
        ..FullProfileOptions::default()
    };
    let run = load_run(&args.profile)?;
    let launches = run.launches(&ncu)?;
    let profile = run.into_profile(&ncu)?;
    let sc = scorecard(args, &profile, cx)?;
    let reference = match &args.checksum_reference {
        Some(path) => Some(Profile::read(path).map_err(CliError::input)?),
        None => None,
    };
    // A run without ceilings simply has no roofline section; the reason is printed.
    let roofline = match brick_roofline(
        &profile,
        hardware.as_ref(),
        &RooflineOptions {
            precision: args.precision,
            level: args.level,
            ..RooflineOptions::default()
        }
        .or_counted_in(&launches),
    ) {
        Ok(r) => Some(r.with_levels_of(&launches)),
        Err(e) if hardware.is_none() && args.precision.is_none() && args.level.is_none() => {
            eprintln!("brick-profiler: no roofline section: {e}");
            None
        }
        Err(e) => return Err(e),
    };
    let mapping = match &args.mapping {
        Some(m) => OpMapping::from_file(m).map_err(CliError::input)?,
        None => OpMapping::defaults(),
    };
    let baselines = args
        .baseline_profile
        .iter()
        .chain(&args.baseline_pytorch)
        .map(|p| parity_profile(p, &mapping, &ncu, false))
        .collect::<Result<Vec<_>, _>>()?;
    let contracts = if args.contracts.is_empty() {
        Vec::new()
    } else {
        let v = Verifier::new();
        args.contracts
            .iter()
            .map(|n| v.verify(n, &profile).map_err(CliError::input))
            .collect::<Result<Vec<_>, _>>()?
    };

    let mut report = HtmlReport::new(&profile)
        .scorecard(&sc)
        .parity(&baselines)
        .contracts(&contracts);
    if !args.no_flamegraph {
        report = report.flamegraph().map_err(CliError::input)?;
    }
    if let Some(t) = &args.title {
        report = report.title(t.clone());
    }
    if let Some(href) = &args.trace_file {
        report = report.trace_file(href.clone());
    }
    if let Some(reference) = &reference {
        report = report.checksum_reference(reference);
    }
    if let Some(r) = &roofline {
        report = report.roofline(r);
    }
    write_file(out, report.render().as_bytes())?;
    Ok(Status::Ok)
}
