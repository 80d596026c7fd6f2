//! `parity`: per-op comparison of our run against one or more baselines
//! (saved profiles, parity profiles, PyTorch traces, Nsight exports).

use std::path::PathBuf;

use clap::Args;
use profiler_report::input::Input;
use profiler_report::parity::{
    OpMapping, compute_parity_comparison, compute_parity_multi, device_preset, suggest_mapping,
};
use profiler_report::roofline::FullProfileOptions;

use super::common::parity_side;
use crate::context::Context;
use crate::error::{CliError, Status};
use crate::input::load;
use crate::output::write_file;

/// Are we as fast as the baselines, op by op?
#[derive(Debug, Args)]
#[command(
    after_help = "Inputs may be saved profiles, parity profiles (runtime, ops), PyTorch \
profiler traces (mapped to our ops with --mapping, else the built-in rules) or Nsight exports. With \
several baselines, each op is held to the fastest.

Examples:
  brick-profiler parity target/profile/profile.json earlier.json
  brick-profiler parity target/profile/profile.json torch_trace.json --mapping ops.toml --svg parity.svg
  brick-profiler parity ours.json pytorch.json llamacpp.json --require-parity
  brick-profiler parity --suggest-mapping torch_trace.json > ops.toml

Every verdict says what it covers (the share of each side's step time, or of its device time when \
its ops are device time) and the clock of each side. Device time is compared with device time and \
host time with host time: with no op on both sides, or the two sides on different clocks, there \
is no verdict (and --require-parity fails). Traces are named by their file. Without --hardware, a \
trace's device (deviceProperties) picks the hardware preset Nsight inputs are judged with, and \
says so. --suggest-mapping prints a draft mapping file for a PyTorch trace: its forward ops \
grouped by module path, op name and input shapes, with their time, reaching inside ranges that \
are not bricks (listed as comments) and compiled regions.

Exit status: 1 with --require-parity when an op is more than 10% slower than its baseline, or \
when no op was compared."
)]
pub(crate) struct ParityArgs {
    /// Our run.
    #[arg(required_unless_present = "suggest_mapping")]
    ours: Option<PathBuf>,
    /// One or more baselines.
    #[arg(required_unless_present = "suggest_mapping")]
    baselines: Vec<PathBuf>,
    /// Print a draft op mapping for this PyTorch trace (and compare nothing).
    #[arg(long, value_name = "TRACE", conflicts_with_all = ["ours", "baselines", "svg", "require_parity"])]
    suggest_mapping: Option<PathBuf>,
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
    if let Some(trace) = &args.suggest_mapping {
        let origin = trace.display().to_string();
        let draft = match load(trace)? {
            Input::PytorchTrace(t) | Input::ChromeTrace(t) => {
                suggest_mapping(&t, &mapping, &origin).map_err(CliError::input)?
            }
            other => {
                return Err(CliError::Input(format!(
                    "parity --suggest-mapping: `{origin}` is {}, not a PyTorch trace",
                    other.what()
                )));
            }
        };
        print!("{draft}");
        return Ok(Status::Ok);
    }
    let Some(ours_path) = &args.ours else {
        return Err(CliError::Input(
            "parity: give our run and at least one baseline".to_owned(),
        ));
    };
    let inputs = std::iter::once(ours_path)
        .chain(&args.baselines)
        .map(|p| Ok((p, load(p)?)))
        .collect::<Result<Vec<_>, CliError>>()?;
    let hardware = match hardware {
        Some(h) => Some(h),
        None => trace_hardware(&inputs)?,
    };
    let ncu = FullProfileOptions {
        hardware,
        ..FullProfileOptions::default()
    };
    let mut sides = inputs
        .into_iter()
        .enumerate()
        .map(|(i, (path, input))| parity_side(path, input, &mapping, &ncu, i == 0))
        .collect::<Result<Vec<_>, _>>()?;
    let baselines = sides.split_off(1);
    let Some(ours) = sides.pop() else {
        return Err(CliError::Input(
            "parity: give our run and at least one baseline".to_owned(),
        ));
    };
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

/// Without `--hardware`, the preset a PyTorch trace's device names, for
/// the Nsight inputs that need ceilings; said on stderr when it is used.
fn trace_hardware(
    inputs: &[(&PathBuf, Input)],
) -> Result<Option<profiler_core::hardware::Hardware>, CliError> {
    let needs = inputs
        .iter()
        .any(|(_, i)| matches!(i, Input::Ncu(_) | Input::Nsys(_) | Input::FullProfiles(_)));
    let named = inputs.iter().find_map(|(path, i)| match i {
        Input::PytorchTrace(t) | Input::ChromeTrace(t) => {
            let device = t.devices().first()?.name.as_str();
            Some((path, device, device_preset(device)?))
        }
        _ => None,
    });
    let (Some((path, device, preset)), true) = (named, needs) else {
        return Ok(None);
    };
    let alias = preset.aliases.first().copied().unwrap_or(preset.name);
    eprintln!(
        "brick-profiler: --hardware not given: using the `{alias}` preset ({}), named by the \
         device `{}` of `{}` (pass --hardware to choose)",
        preset.name,
        plain(device),
        path.display()
    );
    profiler_report::hardware::resolve(alias)
        .map(Some)
        .map_err(|e| CliError::Input(format!("--hardware: {e}")))
}

/// `text` without control characters or bidirectional overrides, for a
/// terminal line.
fn plain(text: &str) -> String {
    text.chars()
        .filter(|c| {
            !c.is_control() && !matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect()
}
