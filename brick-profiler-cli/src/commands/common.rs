//! Steps several subcommands share: resolving a profile's roofline, reading
//! parity inputs of any kind, parsing FLOP statements and precision names.

use std::path::Path;

use profiler_core::Profile;
use profiler_core::hardware::{Hardware, MemoryLevel, Precision, UnitError};
use profiler_report::hardware::recorded;
use profiler_report::input::{Input, Run};
use profiler_report::parity::{OpMapping, import_chrome_trace};
use profiler_report::roofline::{BrickRoofline, RooflineOptions};
use profiler_report::run::{Clock, RunSummary};
use profiler_report::{input::nsight::FlopsAssumption, roofline::FullProfileOptions};

use crate::error::CliError;
use crate::input::{load, stem};

/// `fp32`, `bf16`, ... for clap.
pub(crate) fn precision(s: &str) -> Result<Precision, String> {
    s.parse().map_err(|e: UnitError| e.to_string())
}

/// `dram`, `l2`, ... for clap.
pub(crate) fn level(s: &str) -> Result<MemoryLevel, String> {
    s.parse().map_err(|e: UnitError| e.to_string())
}

/// `--gemm N` or `--gemm MxNxK`.
pub(crate) fn gemm(s: &str) -> Result<(u64, u64, u64), String> {
    let dims: Vec<u64> = s
        .split(['x', 'X'])
        .map(|d| d.trim().replace('_', "").parse::<u64>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("`{s}` is not N or MxNxK (whole numbers)"))?;
    match dims.as_slice() {
        [n] if *n > 0 => Ok((*n, *n, *n)),
        [m, n, k] if *m > 0 && *n > 0 && *k > 0 => Ok((*m, *n, *k)),
        _ => Err(format!("`{s}` is not N or MxNxK (numbers above 0)")),
    }
}

/// How Nsight Compute launches are built into profiles.
pub(crate) fn ncu_options(
    hardware: Option<&Hardware>,
    hardware_origin: Option<String>,
    precision: Option<Precision>,
    gemm: Option<(u64, u64, u64)>,
    gemm_text: Option<&str>,
    flops: Option<f64>,
    kernel: Option<String>,
) -> Result<FullProfileOptions, CliError> {
    let flops = match (gemm, flops) {
        (Some((m, n, k)), None) => Some(FlopsAssumption::Gemm {
            m,
            n,
            k,
            origin: format!("--gemm {}", gemm_text.unwrap_or_default()),
        }),
        (None, Some(f)) if f.is_finite() && f > 0.0 => Some(FlopsAssumption::Total {
            flops: f,
            origin: format!("--flops {f}"),
        }),
        (None, Some(f)) => {
            return Err(CliError::Input(format!(
                "--flops: `{f}` must be a number above 0"
            )));
        }
        (Some(_), Some(_)) => {
            return Err(CliError::Input(
                "--gemm and --flops both state the FLOPs: give one".into(),
            ));
        }
        (None, None) => None,
    };
    Ok(FullProfileOptions {
        hardware: hardware.cloned(),
        hardware_origin,
        precision,
        flops,
        kernel_filter: kernel,
    })
}

/// The roofline a profile is judged against: `--hardware`, else the
/// hardware it recorded (measured during the run, when it was).
pub(crate) fn kernel_roofline(
    profile: &Profile,
    hardware: Option<&Hardware>,
) -> Result<Hardware, CliError> {
    if let Some(h) = hardware {
        return Ok(h.clone());
    }
    if let Some(config) = profile.run.hardware.as_ref().and_then(recorded) {
        return Ok(config);
    }
    Err(CliError::Input(
        "no ceilings: the profile has no measured ceilings or recorded hardware; \
         pass --hardware NAME|FILE"
            .to_owned(),
    ))
}

/// The per-brick roofline of a profile.
pub(crate) fn brick_roofline(
    profile: &Profile,
    hardware: Option<&Hardware>,
    options: &RooflineOptions,
) -> Result<BrickRoofline, CliError> {
    let roof = kernel_roofline(profile, hardware)?;
    BrickRoofline::from_profile_with(profile, &roof, options).map_err(CliError::input)
}

/// `NAME=LEVEL` of `--pin`.
pub(crate) fn pin(s: &str) -> Result<(String, MemoryLevel), String> {
    let (name, l) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=LEVEL"))?;
    Ok((name.trim().to_owned(), level(l)?))
}

/// A parity input: a profile or Nsight export, a parity profile, or a
/// PyTorch trace mapped with `mapping`. Profiles are named after their run
/// with `run_name` (ours), else after the file (baselines, which are often
/// earlier runs of the same job); traces after their file, unless the
/// mapping names the runtime, so two traces never read as one "pytorch".
pub(crate) fn parity_profile(
    path: &Path,
    mapping: &OpMapping,
    ncu: &FullProfileOptions,
    run_name: bool,
) -> Result<RunSummary, CliError> {
    parity_side(path, load(path)?, mapping, ncu, run_name)
}

/// As [`parity_profile`], for an input already loaded from `path`.
pub(crate) fn parity_side(
    path: &Path,
    input: Input,
    mapping: &OpMapping,
    ncu: &FullProfileOptions,
    run_name: bool,
) -> Result<RunSummary, CliError> {
    match input {
        Input::Parity(p) => Ok(p),
        Input::PytorchTrace(t) | Input::ChromeTrace(t) => {
            let mut p = import_chrome_trace(&t, mapping)
                .map_err(CliError::input)?
                .summary;
            if mapping.runtime.is_none() {
                p.name = stem(path);
            }
            Ok(p)
        }
        run @ (Input::Ncu(_) | Input::Nsys(_) | Input::FullProfiles(_)) => {
            let profile = Run::from_input(run, path)?.into_profile(ncu)?;
            let mut p = RunSummary::from_profile(&profile, stem(path));
            // Nsight times kernels on the device.
            p.clock = Clock::Device;
            p.notes
                .push("op times are kernel durations Nsight measured on the device".to_owned());
            Ok(p)
        }
        run @ Input::Profile(_) => {
            let profile = Run::from_input(run, path)?.into_profile(ncu)?;
            let name = if run_name && !profile.run.name.is_empty() {
                profile.run.name.clone()
            } else {
                stem(path)
            };
            Ok(RunSummary::from_profile(&profile, name))
        }
        other => Err(CliError::Input(format!(
            "`{}` holds {}: parity takes profiles, parity profiles, PyTorch traces or Nsight exports",
            path.display(),
            other.what()
        ))),
    }
}
