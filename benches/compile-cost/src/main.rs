//! Compile cost of the annotations: builds one crate of 500 small functions
//! per variant (no annotation, fastrace `#[trace]`, tracing
//! `#[instrument(skip_all)]`, `#[brick]`, `#[trace_op]`) in release mode and
//! prints the median time of each crate's own build, side by side.
//!
//! ```sh
//! cargo run --release -p compile-cost-bench                 # 500 fns, 5 rounds
//! cargo run --release -p compile-cost-bench -- --reps 9 --only plain,fastrace,brick
//! ```
//!
//! The crates go into a throw-away workspace (`--dir`, default under the
//! system temp dir, removed afterwards unless `--keep`). Dependencies are
//! built once first; each measured build then recompiles only the
//! variant's own crate. Rounds run every variant once, in turn, so slow
//! phases of a shared machine hit all of them alike.

mod generate;
mod measure;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use generate::{VARIANTS, Variant};
use measure::Sample;

struct Options {
    fns: usize,
    reps: usize,
    only: Option<Vec<String>>,
    dir: Option<PathBuf>,
    keep: bool,
}

const USAGE: &str = "usage: compile-cost [--fns N] [--reps N] [--only a,b,..] [--dir PATH] [--keep]\n\
                     variants: plain, fastrace, tracing, brick, brick-builtin, trace_op";

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        fns: 500,
        reps: 5,
        only: None,
        dir: None,
        keep: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("`{name}` needs a value"));
        match arg.as_str() {
            "--fns" => options.fns = number(&value("--fns")?)?,
            "--reps" => options.reps = number(&value("--reps")?)?,
            "--only" => {
                options.only = Some(value("--only")?.split(',').map(str::to_owned).collect());
            }
            "--dir" => options.dir = Some(PathBuf::from(value("--dir")?)),
            "--keep" => options.keep = true,
            "--help" | "-h" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    Ok(options)
}

fn number(text: &str) -> Result<usize, String> {
    match text.parse() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("expected a positive integer, found `{text}`")),
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("compile-cost: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let options = parse_options()?;
    let variants: Vec<&Variant> = match &options.only {
        None => VARIANTS.iter().collect(),
        Some(names) => names
            .iter()
            .map(|name| {
                VARIANTS
                    .iter()
                    .find(|v| v.name == name)
                    .ok_or(format!("unknown variant `{name}`\n{USAGE}"))
            })
            .collect::<Result<_, _>>()?,
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root
        .canonicalize()
        .map_err(|e| format!("{}: {e}", root.display()))?;
    let dir = options.dir.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("profiler-compile-cost-{}", std::process::id()))
    });
    generate::workspace(&dir, &root, &variants, options.fns)
        .map_err(|e| format!("writing {}: {e}", dir.display()))?;
    eprintln!("building dependencies once in {} ...", dir.display());
    measure::cargo(&dir, &["build", "--release", "--quiet", "--workspace"])?;
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); variants.len()];
    for round in 1..=options.reps {
        eprintln!("round {round} of {}", options.reps);
        for (variant, samples) in variants.iter().zip(&mut samples) {
            samples.push(measure::build(&dir, variant.name, &variant.package())?);
        }
    }
    print_table(&variants, &samples, options.fns, options.reps);
    if !options.keep && options.dir.is_none() {
        std::fs::remove_dir_all(&dir).map_err(|e| format!("removing {}: {e}", dir.display()))?;
    }
    Ok(())
}

fn print_table(variants: &[&Variant], samples: &[Vec<Sample>], fns: usize, reps: usize) {
    let medians: Vec<(f64, Option<f64>)> = samples
        .iter()
        .map(|s| {
            let mut wall: Vec<f64> = s.iter().map(|s| s.wall).collect();
            let cpu: Option<Vec<f64>> = s.iter().map(|s| s.cpu).collect();
            (
                measure::summary(&mut wall).0,
                cpu.map(|mut c| measure::summary(&mut c).0),
            )
        })
        .collect();
    let cpu_of = |name: &str| {
        variants
            .iter()
            .position(|v| v.name == name)
            .and_then(|i| medians[i].1)
    };
    let (plain, fastrace) = (cpu_of("plain"), cpu_of("fastrace"));
    println!(
        "\nrelease build of one crate of {fns} functions, median of {reps} rounds (range in brackets)\n"
    );
    println!(
        "| variant | wall s | CPU s | CPU over plain | CPU vs fastrace |\n|---|---|---|---|---|"
    );
    for ((variant, samples), (_, cpu)) in variants.iter().zip(samples).zip(&medians) {
        let mut wall: Vec<f64> = samples.iter().map(|s| s.wall).collect();
        let (median, min, max) = measure::summary(&mut wall);
        let cpu_cell = |f: &dyn Fn(f64) -> String| cpu.map_or("-".to_owned(), f);
        let cpu_range = {
            let cpus: Option<Vec<f64>> = samples.iter().map(|s| s.cpu).collect();
            cpus.map(|mut c| {
                let (m, lo, hi) = measure::summary(&mut c);
                format!("{m:.2} [{lo:.2}-{hi:.2}]")
            })
            .unwrap_or_else(|| "-".to_owned())
        };
        let over_plain = cpu_cell(&|c| plain.map_or("-".to_owned(), |p| format!("{:+.2}", c - p)));
        let vs_fastrace =
            cpu_cell(&|c| fastrace.map_or("-".to_owned(), |f| format!("{:.2}x", c / f)));
        println!(
            "| {} | {median:.2} [{min:.2}-{max:.2}] | {cpu_range} | {over_plain} | {vs_fastrace} |",
            variant.name
        );
    }
    println!(
        "\nCPU: user + system time of the build's processes (rustc runs codegen on \
         several threads, so it can exceed wall time); steadier than wall time on a \
         busy machine."
    );
}
