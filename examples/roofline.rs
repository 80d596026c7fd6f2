//! Rooflines from the command line: the per-brick roofline of a saved
//! profile on a device preset or on the ceilings measured during its run,
//! and the analytical decode ceilings of a model size.
//!
//! ```text
//! # The main job's bricks on the ceilings measured during the run:
//! cargo run --release --example roofline -- target/profile/profile.json
//! # ... or on an H100, judged against its BF16 roof, as Markdown:
//! cargo run --release --example roofline -- target/profile/profile.json \
//!     --device h100 --precision bf16 --format markdown --svg h100.svg
//! # Decode ceilings of a 7B model at 4 bits per weight on an A100:
//! cargo run --release --example roofline -- --params 7e9 --bits 4 --device nvidia_a100
//! ```

use std::error::Error;
use std::path::PathBuf;

use clap::{Parser, ValueEnum};
use profiler::Profile;
use profiler::hardware::{MemoryLevel, Precision};
use profiler_report::hardware::preset;
use profiler_report::roofline::{BrickRoofline, compute_roofline};

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Terminal,
    Markdown,
    Json,
}

/// Per-brick or analytical rooflines.
#[derive(Debug, Parser)]
#[command(name = "roofline")]
struct Args {
    /// A saved profile (profile.json) for the per-brick roofline.
    profile: Option<PathBuf>,
    /// Device preset (h100, a100, 4090, ...; apple_m_series and nvidia_a100
    /// for the analytical roofline). Default: the profile's recorded hardware (its measured ceilings).
    #[arg(long)]
    device: Option<String>,
    /// Precision of the roof bricks are judged against.
    #[arg(long, value_parser = |s: &str| s.parse::<Precision>())]
    precision: Option<Precision>,
    /// Memory level of that roof.
    #[arg(long, value_parser = |s: &str| s.parse::<MemoryLevel>())]
    level: Option<MemoryLevel>,
    /// Parameters, for the analytical roofline (e.g. 7e9).
    #[arg(long)]
    params: Option<f64>,
    /// Bits per weight, for the analytical roofline.
    #[arg(long, default_value_t = 16.0)]
    bits: f64,
    /// Output format.
    #[arg(long, value_enum, default_value = "terminal")]
    format: Format,
    /// Also write the roofline plot here.
    #[arg(long)]
    svg: Option<PathBuf>,
}

fn run(args: &Args) -> Result<String, Box<dyn Error>> {
    if let Some(params) = args.params {
        if !(0.0..1e19).contains(&params) {
            return Err(format!("--params {params}: expected a parameter count").into());
        }
        let hw = preset(args.device.as_deref().unwrap_or("nvidia_a100"))?;
        let r = compute_roofline(params.round() as u64, args.bits, &hw)?;
        return Ok(match args.format {
            Format::Terminal => r.to_string(),
            Format::Markdown => r.to_markdown(),
            Format::Json => r.to_json(),
        });
    }
    let Some(path) = &args.profile else {
        return Err("give a profile.json, or --params for the analytical roofline".into());
    };
    let profile = Profile::read(path)?;
    let roof = match (&args.device, &profile.run.hardware) {
        (Some(name), _) => preset(name)?,
        (None, Some(hw)) => hw.clone(),
        (None, None) => {
            return Err(format!(
                "`{}` holds no hardware: name a device with --device",
                path.display()
            )
            .into());
        }
    };
    let r = BrickRoofline::from_profile(&profile, &roof, args.precision, args.level)?;
    if let Some(svg) = &args.svg {
        profiler::fs::write_atomic(svg, r.to_svg().as_bytes())
            .map_err(|e| format!("cannot write `{}`: {e}", svg.display()))?;
    }
    Ok(match args.format {
        Format::Terminal => r.to_string(),
        Format::Markdown => r.to_markdown(),
        Format::Json => r.to_json(),
    })
}

fn main() -> std::process::ExitCode {
    match run(&Args::parse()) {
        Ok(text) => {
            println!("{text}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("roofline: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
