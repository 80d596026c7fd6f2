//! `contracts verify|list`: a saved run checked against YAML contracts (the
//! shipped ones and any folder of your own); exits 1 when one is not passed.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use profiler_report::contract::{ContractSet, ScorecardMetrics, Verifier};
use profiler_report::import::FullProfileOptions;

use crate::context::{Context, ContractReports};
use crate::error::{CliError, Status};
use crate::input::Run;
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
  profiler-report contracts verify target/profile/profile.json --contract brick-profiler-v1
  profiler-report contracts verify target/profile/profile.json --dir contracts/ --metric layers=4

Exit status: 1 when a test fails, is unmeasurable or invalid (skipped tests do not count).")]
    Verify(VerifyArgs),
    /// List the shipped contracts (and those of --dir).
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

fn verifier(dir: Option<&PathBuf>) -> Result<(Verifier, Vec<String>), CliError> {
    let mut v = Verifier::new();
    let mut names = Vec::new();
    if let Some(dir) = dir {
        let set = ContractSet::load_dir(dir).map_err(CliError::input)?;
        names = set.names().map(str::to_owned).collect();
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
    if let Some(spec) = hardware
        .as_ref()
        .and_then(|h| h.config.as_ref())
        .and_then(|m| m.spec())
    {
        v = v.computation(ScorecardMetrics::new().hardware(spec));
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
    let profile = Run::load(&args.profile)?.into_profile(&FullProfileOptions::default())?;
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

pub(crate) fn run(args: &ContractsArgs, cx: &Context) -> Result<Status, CliError> {
    match &args.command {
        ContractsCommand::Verify(a) => verify(a, cx),
        ContractsCommand::List { dir } => {
            let (_, dir_names) = verifier(dir.as_ref())?;
            // Contract names are checked to be lowercase letters, digits and `-`.
            let mut lines: Vec<String> = ContractSet::shipped()
                .names()
                .map(|n| format!("{n} (shipped)"))
                .collect();
            lines.extend(dir_names.iter().map(|n| format!("{n} (from --dir)")));
            emit(&lines.join("\n"), cx.output.as_deref())?;
            Ok(Status::Ok)
        }
    }
}
