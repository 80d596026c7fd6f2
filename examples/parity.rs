//! Prints a parity report of a profile against one or more baselines: saved
//! profiles of earlier runs, saved parity profiles, or PyTorch traces.
//!
//! ```text
//! # The main job against the committed PyTorch trace of the same model:
//! cargo run --release --example train_tiny
//! cargo run --release --example parity -- target/profile/profile.json \
//!     --baseline-pytorch tests/fixtures/pytorch/tiny_transformer_cpu.trace.json \
//!     --mapping tests/fixtures/pytorch/tiny_transformer.mapping.toml
//!
//! # The main job against a saved profile of an earlier run:
//! cp target/profile/profile.json target/earlier.json   # after an earlier run
//! cargo run --release --example parity -- target/profile/profile.json \
//!     --baseline-profile target/earlier.json
//! ```
//!
//! Several `--baseline-*` flags compare against the fastest baseline per op.
//! `--format markdown|json|terminal` picks the output (default terminal);
//! `--svg FILE` also writes the per-op bar chart.

use std::error::Error;
use std::path::PathBuf;

use clap::{Parser, ValueEnum};
use profiler::Profile;
use profiler_report::parity::{
    OpMapping, compute_parity_comparison, compute_parity_multi, import_pytorch_trace,
};
use profiler_report::run::RunSummary;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Terminal,
    Markdown,
    Json,
}

/// Parity of a profile against baselines.
#[derive(Debug, Parser)]
#[command(name = "parity")]
struct Args {
    /// Our profile (profile.json written by the profiler).
    ours: PathBuf,
    /// Name of our side in the report.
    #[arg(long, default_value = "ours")]
    name: String,
    /// A saved profile of another run (profile.json).
    #[arg(long)]
    baseline_profile: Vec<PathBuf>,
    /// A saved parity profile (a parity JSON file).
    #[arg(long)]
    baseline_parity: Vec<PathBuf>,
    /// A PyTorch Chrome trace (torch.profiler's export_chrome_trace).
    #[arg(long)]
    baseline_pytorch: Vec<PathBuf>,
    /// Op mapping for the PyTorch traces (.toml or .json).
    #[arg(long)]
    mapping: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "terminal")]
    format: Format,
    /// Also write the per-op bar chart here.
    #[arg(long)]
    svg: Option<PathBuf>,
}

fn run(args: &Args) -> Result<String, Box<dyn Error>> {
    let ours = RunSummary::from_profile(&Profile::read(&args.ours)?, &args.name);
    let mut baselines = Vec::new();
    for path in &args.baseline_profile {
        let name = path.file_stem().map_or_else(
            || "baseline".to_owned(),
            |s| s.to_string_lossy().into_owned(),
        );
        baselines.push(RunSummary::from_profile(&Profile::read(path)?, name));
    }
    for path in &args.baseline_parity {
        baselines.push(RunSummary::read_parity(path)?);
    }
    let mapping = match &args.mapping {
        Some(path) => OpMapping::from_file(path)?,
        None => OpMapping::defaults(),
    };
    for path in &args.baseline_pytorch {
        baselines.push(import_pytorch_trace(path, &mapping)?.summary);
    }
    let (text, svg) = match baselines.as_slice() {
        [] => {
            return Err(
                "give at least one --baseline-profile, --baseline-parity or --baseline-pytorch"
                    .into(),
            );
        }
        [one] => {
            let c = compute_parity_comparison(&ours, one);
            let text = match args.format {
                Format::Terminal => c.to_string(),
                Format::Markdown => c.to_markdown(),
                Format::Json => c.to_json(),
            };
            (text, c.to_svg())
        }
        many => {
            let c = compute_parity_multi(&ours, many);
            let text = match args.format {
                Format::Terminal => c.to_string(),
                Format::Markdown => c.to_markdown(),
                Format::Json => c.to_json(),
            };
            (text, c.to_svg())
        }
    };
    if let Some(path) = &args.svg {
        profiler::fs::write_atomic(path, svg.as_bytes())
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    }
    Ok(text)
}

fn main() -> std::process::ExitCode {
    match run(&Args::parse()) {
        Ok(text) => {
            println!("{text}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("parity: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
