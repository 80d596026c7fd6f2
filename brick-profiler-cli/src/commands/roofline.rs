//! `roofline`: every annotated brick (or imported kernel) of a saved run on
//! the roofline of the chosen hardware, with an optional SVG plot.

use std::path::PathBuf;

use clap::Args;
use profiler_core::hardware::{MemoryLevel, Precision};
use profiler_report::roofline::RooflineOptions;

use super::common::{brick_roofline, gemm, level, ncu_options, pin, precision};
use crate::context::Context;
use crate::error::{CliError, Status};
use crate::input::load_run;
use crate::output::write_file;

/// Place every brick with FLOPs, bytes and time on the roofline.
#[derive(Debug, Args)]
#[command(
    after_help = "Ceilings come from --hardware, else from those measured during the run, else \
from the hardware the profile recorded.

Examples:
  brick-profiler roofline target/profile/profile.json --svg roofline.svg
  brick-profiler roofline target/profile/profile.json --hardware h100 --precision bf16
  brick-profiler roofline gemm.csv --hardware 4090 --gemm 4096   # an ncu export"
)]
pub(crate) struct RooflineArgs {
    /// A saved profile.json or an Nsight export.
    profile: PathBuf,
    /// Precision of the roof (fp64, fp32, tf32, fp16, bf16, int8; default fp32 when the hardware has it).
    #[arg(long, value_parser = precision)]
    precision: Option<Precision>,
    /// One memory level for every brick's roof (dram, l3, l2, l1, pcie; default: each brick's
    /// own, the fastest cache its bytes per call fit in when cache sizes are known, else dram).
    #[arg(long, value_parser = level)]
    level: Option<MemoryLevel>,
    /// Pin one brick's roof level: NAME=LEVEL, e.g. `--pin MatMul=l2` (repeatable).
    #[arg(long, value_name = "NAME=LEVEL", value_parser = pin)]
    pin: Vec<(String, MemoryLevel)>,
    /// Also write the plot as SVG.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// ncu exports: FLOPs of a GEMM, `2n^3` (N) or `2mnk` (MxNxK), for the kernel --kernel selects.
    #[arg(long, value_name = "N|MxNxK", value_parser = gemm)]
    gemm: Option<(u64, u64, u64)>,
    /// ncu exports: FLOPs per launch of the kernel --kernel selects.
    #[arg(long, value_name = "FLOPS")]
    flops: Option<f64>,
    /// ncu exports: only kernels whose name contains TEXT (or whose ID is TEXT).
    #[arg(long, value_name = "TEXT")]
    kernel: Option<String>,
}

pub(crate) fn run(args: &RooflineArgs, cx: &Context) -> Result<Status, CliError> {
    let hardware = cx.hardware(None)?;
    let gemm_text = args.gemm.map(|(m, n, k)| {
        if m == n && n == k {
            n.to_string()
        } else {
            format!("{m}x{n}x{k}")
        }
    });
    let ncu = ncu_options(
        hardware.as_ref(),
        cx.hardware_origin(),
        args.precision,
        args.gemm,
        gemm_text.as_deref(),
        args.flops,
        args.kernel.clone(),
    )?;
    let run = load_run(&args.profile)?;
    let launches = run.launches(&ncu)?;
    let profile = run.into_profile(&ncu)?;
    let options = RooflineOptions {
        precision: args.precision,
        level: args.level,
        pins: args.pin.iter().cloned().collect(),
    }
    .or_counted_in(&launches);
    let roofline = brick_roofline(&profile, hardware.as_ref(), &options)?.with_levels_of(&launches);
    if let Some(path) = &args.svg {
        write_file(path, roofline.to_svg().as_bytes())?;
    }
    cx.show(&roofline)?;
    Ok(Status::Ok)
}
