//! `import ncu|nsys`: Nsight Compute CSVs and Nsight Systems kernel
//! summaries (saved, or produced by running the tool found on `PATH`) as
//! the same reports a live run gives, optionally saved as a profile the
//! other subcommands read.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use profiler_core::hardware::Precision;
use profiler_report::input::Run;
use profiler_report::input::nsight::{
    NcuReport, NsightTool, NsysReport, full_profiles_to_profile, parse_ncu_csv, parse_nsys_stats,
};

use super::common::{gemm, ncu_options, precision};
use crate::context::Context;
use crate::error::{CliError, Status};
use crate::input::load_run;
use crate::output::write_file;

/// Import Nsight Compute or Nsight Systems output.
#[derive(Debug, Args)]
pub(crate) struct ImportArgs {
    #[command(subcommand)]
    command: ImportCommand,
}

#[derive(Debug, Subcommand)]
enum ImportCommand {
    /// Nsight Compute: `ncu --csv` output (details or raw page) or a .ncu-rep report.
    #[command(
        after_help = "Each launch becomes a FullProfile (JSON version 2.0: hardware, kernel, \
timing, throughput, roofline, compute, memory), classified on the roofline of --hardware or of the \
device the export names. FLOPs come from the FP instruction counters when collected, else from \
--gemm or --flops, else they are withheld (never guessed). With --format json the output is an array \
of FullProfiles, one per launch, in file order.

Examples:
  brick-profiler import ncu gemm.csv --hardware 4090
  brick-profiler import ncu gemm.csv --kernel gemm --gemm 4096 --format json > gemm.json
  brick-profiler import ncu --run --save-profile gemm.profile.json -- ./bench --size 4096"
    )]
    Ncu(NcuArgs),
    /// Nsight Systems: the CUDA kernel summary (`nsys stats`, text or CSV) or a .nsys-rep report.
    #[command(after_help = "Examples:
  nsys stats --report cuda_gpu_kern_sum --format csv run.nsys-rep > kernels.csv
  brick-profiler import nsys kernels.csv --save-profile kernels.profile.json
  brick-profiler import nsys --run -- ./train --steps 20")]
    Nsys(NsysArgs),
}

#[derive(Debug, Args)]
struct NcuArgs {
    /// An `ncu --csv` export or a .ncu-rep report (needs ncu on PATH).
    #[arg(required_unless_present = "run", conflicts_with = "run")]
    file: Option<PathBuf>,
    /// Profile the command after `--` with ncu found on PATH.
    #[arg(long, requires = "command")]
    run: bool,
    /// The command to profile (after `--`).
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<OsString>,
    /// Extra argument for ncu (repeatable), e.g. --ncu-arg=--launch-count=5.
    #[arg(long = "ncu-arg", value_name = "ARG", allow_hyphen_values = true)]
    ncu_args: Vec<String>,
    /// Only kernels whose name contains TEXT (or whose ID is TEXT).
    #[arg(long, value_name = "TEXT")]
    kernel: Option<String>,
    /// FLOPs of a GEMM: `2n^3` (N) or `2mnk` (MxNxK); needs a single kernel (see --kernel).
    #[arg(long, value_name = "N|MxNxK", value_parser = gemm)]
    gemm: Option<(u64, u64, u64)>,
    /// FLOPs per launch; needs a single kernel (see --kernel).
    #[arg(long, value_name = "FLOPS")]
    flops: Option<f64>,
    /// Precision of the roof (default: that of the counted FLOPs, else fp32).
    #[arg(long, value_parser = precision)]
    precision: Option<Precision>,
    /// Save the kernels as a profile.json the other subcommands read.
    #[arg(long, value_name = "FILE")]
    save_profile: Option<PathBuf>,
    /// With --run: save ncu's CSV output.
    #[arg(long, value_name = "FILE", requires = "run")]
    save_csv: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct NsysArgs {
    /// `nsys stats` output (text or CSV) or a .nsys-rep/.sqlite report (needs nsys on PATH).
    #[arg(required_unless_present = "run", conflicts_with = "run")]
    file: Option<PathBuf>,
    /// Profile the command after `--` with nsys found on PATH.
    #[arg(long, requires = "command")]
    run: bool,
    /// The command to profile (after `--`).
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<OsString>,
    /// Extra argument for `nsys profile` (repeatable).
    #[arg(long = "nsys-arg", value_name = "ARG", allow_hyphen_values = true)]
    nsys_args: Vec<String>,
    /// Save the kernels as a profile.json the other subcommands read.
    #[arg(long, value_name = "FILE")]
    save_profile: Option<PathBuf>,
    /// With --run: save the kernel summary CSV.
    #[arg(long, value_name = "FILE", requires = "run")]
    save_csv: Option<PathBuf>,
}

fn path_var() -> Option<OsString> {
    std::env::var_os("PATH")
}

fn save_profile(profile: &profiler_core::Profile, path: &Path) -> Result<(), CliError> {
    crate::output::not_an_input(path)?;
    profile
        .write(path)
        .map_err(|e| CliError::Output(e.to_string()))
}

fn ncu(args: &NcuArgs, cx: &Context) -> Result<Status, CliError> {
    let report: NcuReport = if args.run {
        let tool = NsightTool::find("ncu", path_var().as_deref())?;
        let csv = tool.run_ncu(&args.ncu_args, &args.command)?;
        if let Some(path) = &args.save_csv {
            write_file(path, csv.as_bytes())?;
        }
        parse_ncu_csv(&csv, "ncu output")?
    } else {
        let file = args.file.as_deref().unwrap_or(Path::new("-"));
        match load_run(file)? {
            Run::Ncu(r) => r,
            _ => {
                return Err(CliError::Input(format!(
                    "`{}` is not an Nsight Compute export (`ncu --csv`)",
                    file.display()
                )));
            }
        }
    };
    let hardware = cx.hardware(None)?;
    let gemm_text = args.gemm.map(|(m, n, k)| {
        if m == n && n == k {
            n.to_string()
        } else {
            format!("{m}x{n}x{k}")
        }
    });
    let options = ncu_options(
        hardware.as_ref(),
        cx.hardware_origin(),
        args.precision,
        args.gemm,
        gemm_text.as_deref(),
        args.flops,
        args.kernel.clone(),
    )?;
    let profiles = report.full_profiles(&options)?;
    if let Some(path) = &args.save_profile {
        save_profile(&full_profiles_to_profile(&profiles, &report.origin), path)?;
    }
    cx.show(&profiles)?;
    Ok(Status::Ok)
}

fn nsys(args: &NsysArgs, cx: &Context) -> Result<Status, CliError> {
    let report: NsysReport = if args.run {
        let tool = NsightTool::find("nsys", path_var().as_deref())?;
        let dir = std::env::temp_dir().join(format!("profiler-report-nsys-{}", std::process::id()));
        std::fs::create_dir_all(&dir)
            .map_err(|e| CliError::Output(format!("cannot create `{}`: {e}", dir.display())))?;
        let result = tool.run_nsys(&args.nsys_args, &args.command, &dir);
        // The report files are the tool's scratch; the summary is kept below.
        let _ = std::fs::remove_dir_all(&dir);
        let csv = result?;
        if let Some(path) = &args.save_csv {
            write_file(path, csv.as_bytes())?;
        }
        parse_nsys_stats(&csv, "nsys output")?
    } else {
        let file = args.file.as_deref().unwrap_or(Path::new("-"));
        match load_run(file)? {
            Run::Nsys(r) => r,
            _ => {
                return Err(CliError::Input(format!(
                    "`{}` is not an Nsight Systems kernel summary (`nsys stats --report cuda_gpu_kern_sum`)",
                    file.display()
                )));
            }
        }
    };
    if let Some(path) = &args.save_profile {
        save_profile(&report.to_profile(), path)?;
    }
    cx.show(&report)?;
    Ok(Status::Ok)
}

pub(crate) fn run(args: &ImportArgs, cx: &Context) -> Result<Status, CliError> {
    match &args.command {
        ImportCommand::Ncu(a) => ncu(a, cx),
        ImportCommand::Nsys(a) => nsys(a, cx),
    }
}
