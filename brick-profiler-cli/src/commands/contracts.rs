//! `contracts verify|list`: a saved run checked against YAML contracts (the
//! shipped ones and any folder of your own); exits 1 when one is not passed.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use profiler_core::hardware::MemoryLevel;
use profiler_report::contracts::{
    ContractSet, ParityMetrics, RooflineMetrics, ScorecardMetrics, Verifier,
};
use profiler_report::input::Input;
use profiler_report::roofline::FullProfileOptions;
use profiler_report::run::RunSummary;

use crate::context::{Context, ContractReports};
use crate::error::{CliError, Status};
use crate::input::{load, load_run};
use crate::output::emit;

/// Check runs against YAML contracts.
#[derive(Debug, Args)]
pub(crate) struct ContractsArgs {
    #[command(subcommand)]
    command: ContractsCommand,
}

#[derive(Debug, Subcommand)]
enum ContractsCommand {
    /// Check a run against contracts: one per --contract, or every contract of --dir.
    #[command(after_help = "Examples:
  brick-profiler contracts verify target/profile/profile.json --contract brick-profiler-v1
  brick-profiler contracts verify target/profile/profile.json --dir contracts/ --metric layers=4

  brick-profiler contracts verify run.json --contract roofline-model-v1 --hardware h100 --params 7e9 --bits-per-weight 4
  brick-profiler contracts verify run.json --contract parity-profiling-v1 --parity-baseline torch.json

Exit status: 1 when a test fails, is unmeasurable or invalid, or when no test was checked
(skipped, not applicable and prose tests do not count).")]
    Verify(VerifyArgs),
    /// List the shipped contracts (and those of --dir, beside the errors of files that do not load).
    List {
        /// A folder of *.yaml contracts.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

#[derive(Debug, Args)]
struct VerifyArgs {
    /// A saved profile.json or an Nsight export.
    profile: PathBuf,
    /// A contract to check, shipped or from --dir (repeatable).
    #[arg(long = "contract", value_name = "NAME")]
    contracts: Vec<String>,
    /// A folder of *.yaml contracts; without --contract all of them are checked.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// A metric rules may read, e.g. `layers=4` (repeatable; numbers, true/false, or text).
    #[arg(long = "metric", value_name = "NAME=VALUE", value_parser = metric)]
    metrics: Vec<(String, String)>,
    /// Parameters of the model, for the `roofline` computation (with --bits-per-weight and --hardware).
    #[arg(long, value_name = "N")]
    params: Option<f64>,
    /// Bits per weight of the model, for the `roofline` computation.
    #[arg(long, value_name = "BITS")]
    bits_per_weight: Option<f64>,
    /// A baseline (parity JSON or saved profile) for the `parity` computation.
    #[arg(long, value_name = "FILE")]
    parity_baseline: Option<PathBuf>,
}

/// The computations a contract reads (`roofline.x`, `parity.x`) and what
/// registers each from the command line.
const COMPUTED: [(&str, &str); 2] = [
    (
        "roofline",
        "--params N --bits-per-weight B with --hardware NAME|FILE",
    ),
    ("parity", "--parity-baseline FILE"),
];

/// The computations `contract` reads that this command line can give.
fn needs(set_name: &str, v: &Verifier) -> Vec<&'static str> {
    let Some(c) = v.find(set_name) else {
        return Vec::new();
    };
    COMPUTED
        .iter()
        .filter(|(ns, _)| {
            let prefix = format!("{ns}.");
            c.falsification_tests
                .iter()
                .any(|t| t.test.contains(&prefix))
        })
        .map(|(ns, _)| *ns)
        .collect()
}

/// The roofline and parity computations the arguments register.
fn computations(
    args: &VerifyArgs,
    cx: &Context,
    mut v: Verifier,
) -> Result<(Verifier, Vec<&'static str>), CliError> {
    let mut given = Vec::new();
    if let (Some(params), Some(bits)) = (args.params, args.bits_per_weight) {
        let hw = cx.hardware(None)?.ok_or_else(|| {
            CliError::Input("--params and --bits-per-weight need --hardware NAME|FILE".to_owned())
        })?;
        let origin = cx.hardware_origin().unwrap_or_default();
        if hw.memory(MemoryLevel::Dram).is_none() {
            return Err(CliError::Input(format!(
                "{origin}: no DRAM bandwidth for the roofline"
            )));
        }
        // The analytical roofline takes the dense peak, never FP32 here.
        if hw.dense_peak().is_none() {
            return Err(CliError::Input(format!(
                "{origin}: no compute peak for the roofline"
            )));
        }
        if !(params.is_finite() && params >= 0.0 && params < u64::MAX as f64) {
            return Err(CliError::Input(format!(
                "--params {params}: not a parameter count"
            )));
        }
        v = v.computation(RooflineMetrics::new(params as u64, bits, hw));
        given.push("roofline");
    } else if args.params.is_some() || args.bits_per_weight.is_some() {
        return Err(CliError::Input(
            "give --params and --bits-per-weight together (with --hardware)".to_owned(),
        ));
    }
    if let Some(path) = &args.parity_baseline {
        let baseline = match load(path)? {
            Input::Parity(p) => p,
            Input::Profile(p) => RunSummary::from_profile(&p, p.run.name.clone()),
            other => {
                return Err(CliError::Input(format!(
                    "--parity-baseline `{}` holds {}, not a parity JSON or a saved profile",
                    path.display(),
                    other.what()
                )));
            }
        };
        v = v.computation(ParityMetrics::against(baseline));
        given.push("parity");
    }
    Ok((v, given))
}

fn metric(s: &str) -> Result<(String, String), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=VALUE"))?;
    if k.trim().is_empty() {
        return Err(format!("`{s}` has no name"));
    }
    Ok((k.trim().to_owned(), v.trim().to_owned()))
}

/// The note for a `--dir` contract named like a shipped one.
fn shadows(c: &profiler_report::contracts::Contract) -> String {
    format!(
        "note: `{}` from `{}` shadows the shipped contract of that name",
        c.name, c.source
    )
}

fn verifier(dir: Option<&PathBuf>) -> Result<(Verifier, Vec<String>), CliError> {
    let mut v = Verifier::new();
    let mut names = Vec::new();
    if let Some(dir) = dir {
        let set = ContractSet::load_dir(dir).map_err(CliError::input)?;
        names = set.names().map(str::to_owned).collect();
        for c in set.shadowing() {
            eprintln!("brick-profiler: {}", shadows(c));
        }
        v = v.load_dir(dir).map_err(CliError::input)?;
    }
    Ok((v, names))
}

fn verify(args: &VerifyArgs, cx: &Context) -> Result<Status, CliError> {
    let (mut v, dir_names) = verifier(args.dir.as_ref())?;
    let names = if args.contracts.is_empty() {
        if dir_names.is_empty() {
            return Err(CliError::Input(format!(
                "contracts verify: name a contract with --contract (shipped: {}) or a folder with --dir",
                ContractSet::shipped()
                    .names()
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        dir_names
    } else {
        args.contracts.clone()
    };
    let hardware = cx.hardware(None)?;
    if let Some(graded) = hardware.filter(|h| h.memory(MemoryLevel::Dram).is_some()) {
        v = v.computation(ScorecardMetrics::new().hardware(graded));
    }
    for (k, value) in &args.metrics {
        v = match value.as_str() {
            "true" => v.metric(k.clone(), true),
            "false" => v.metric(k.clone(), false),
            text => match text.parse::<f64>() {
                Ok(n) => v.metric(k.clone(), n),
                Err(_) => v.metric(k.clone(), text.to_owned()),
            },
        };
    }
    let (v, given) = computations(args, cx, v)?;
    for n in &names {
        if let Some(ns) = needs(n, &v).into_iter().find(|ns| !given.contains(ns)) {
            let how = COMPUTED
                .iter()
                .find(|(c, _)| *c == ns)
                .map_or("", |(_, h)| h);
            return Err(CliError::Input(format!(
                "contract `{n}` checks the `{ns}` computation, which needs {how}"
            )));
        }
    }
    let profile = load_run(&args.profile)?.into_profile(&FullProfileOptions::default())?;
    let reports = names
        .iter()
        .map(|n| v.verify(n, &profile).map_err(CliError::input))
        .collect::<Result<Vec<_>, _>>()?;
    let passed = reports.iter().all(|r| r.passed());
    cx.show(&ContractReports(reports))?;
    Ok(if passed {
        Status::Ok
    } else {
        Status::CheckFailed
    })
}

/// The shipped contracts (with what their computations need) and those of
/// `dir`: the good files, then each bad file with its errors. Exits 1 when a
/// file of `dir` does not load.
fn list(dir: Option<&PathBuf>, cx: &Context) -> Result<Status, CliError> {
    let v = Verifier::new();
    // Contract names are checked to be lowercase letters, digits and `-`.
    let mut lines: Vec<String> = ContractSet::shipped()
        .names()
        .map(|n| {
            let how: Vec<&str> = needs(n, &v)
                .iter()
                .filter_map(|ns| COMPUTED.iter().find(|(c, _)| c == ns).map(|(_, h)| *h))
                .collect();
            if how.is_empty() {
                format!("{n} (shipped)")
            } else {
                format!("{n} (shipped; verify with {})", how.join("; "))
            }
        })
        .collect();
    let mut status = Status::Ok;
    if let Some(dir) = dir {
        let scan = ContractSet::scan_dir(dir).map_err(CliError::input)?;
        for c in &scan.set {
            let prose = c
                .falsification_tests
                .iter()
                .filter(|t| t.parsed.is_none())
                .count();
            let mut notes = Vec::new();
            if prose > 0 {
                notes.push(format!("{prose} test(s) not machine-checkable"));
            }
            if !c.warnings.is_empty() {
                notes.push(format!("{} unused key(s)", c.warnings.len()));
            }
            if ContractSet::shipped().get(&c.name).is_some() {
                notes.push("shadows the shipped contract of that name".to_owned());
            }
            let notes = if notes.is_empty() {
                String::new()
            } else {
                format!("; {}", notes.join(", "))
            };
            lines.push(format!("{} (from --dir{notes})", c.name));
        }
        for e in &scan.errors {
            status = Status::CheckFailed;
            lines.push(format!("error: {}", e.file()));
            lines.extend(e.errors().iter().map(|x| format!("  {x}")));
        }
    }
    emit(&lines.join("\n"), cx.output.as_deref())?;
    Ok(status)
}

pub(crate) fn run(args: &ContractsArgs, cx: &Context) -> Result<Status, CliError> {
    match &args.command {
        ContractsCommand::Verify(a) => verify(a, cx),
        ContractsCommand::List { dir } => list(dir.as_ref(), cx),
    }
}
